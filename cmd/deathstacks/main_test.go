package main

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// commandNames lists every command line that has its own flags: each
// command, with bench's two.
func commandNames() [][]string {
	var out [][]string
	for name := range commands() {
		if name == "bench" {
			out = append(out, []string{"bench", "mcts"}, []string{"bench", "nn"})
			continue
		}
		out = append(out, []string{name})
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], " ") < strings.Join(out[j], " ") })
	return out
}

// textFlag matches a flag of PrintDefaults that takes text: a string or a
// repeated value.
var textFlag = regexp.MustCompile(`(?m)^  -(\S+) (string|value)$`)

// Every flag that takes text, given explicitly empty, is bad input.
func TestEmptyTextFlags(t *testing.T) {
	seen := 0
	for _, cmd := range commandNames() {
		_, help, code := runBotCLI("", append(cmd, "--help")...)
		if code != 0 {
			t.Fatalf("%v --help: status %d", cmd, code)
		}
		flags := textFlag.FindAllStringSubmatch(help, -1)
		seen += len(flags)
		for _, f := range flags {
			args := append(append([]string(nil), cmd...), "--"+f[1]+"=")
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				_, errOut, code := runBotCLI("", args...)
				if code != 2 || !strings.Contains(errOut, "empty") {
					t.Errorf("status %d, stderr %q: want 2 and a word on the empty flag", code, firstLine(errOut))
				}
			})
		}
	}
	if seen < 20 {
		t.Errorf("only %d text flags found in the commands' help: is the pattern stale?", seen)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

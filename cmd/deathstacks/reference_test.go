package main

// The command-line reference (README.md) against the code: every flag
// each command defines is in its section's table, every flag the page
// names exists, and every deathstacks command line written in the
// repository's Markdown names a command and only flags it takes.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// referenceFile is the command-line reference, beside this test.
const referenceFile = "README.md"

// historyFiles hold history, which may quote command lines of earlier
// versions: the command-line check passes over them.
var historyFiles = map[string]bool{"train/EXPERIMENTS.md": true, "cmd/CHANGELOG.md": true}

// helpFlagNames are the names the flag package answers with the usage
// without defining them.
var helpFlagNames = map[string]bool{"h": true, "help": true}

// commandFlags returns the flags of every command, keyed by the words
// that name it after the program ("eval", and "bench mcts" for a command
// that takes a kind), as each command's --help lists them.
func commandFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	defined := map[string]map[string]bool{}
	for name := range commands() {
		addCommandFlags(t, defined, name)
	}
	return defined
}

var (
	// kindsUsage is the usage line of a command that takes a kind:
	// "usage: deathstacks bench mcts|nn [flags] ...".
	kindsUsage = regexp.MustCompile(`(?m)^usage: [^\n]*? ([a-z]+(?:\|[a-z]+)+) \[flags\]`)
	// helpFlag is a flag's first line in the flag package's usage.
	helpFlag = regexp.MustCompile(`(?m)^  -(\S+)`)
)

// addCommandFlags adds to defined the flags of the command that the words
// of path name, or of each of its kinds, read from its --help.
func addCommandFlags(t *testing.T, defined map[string]map[string]bool, path string) {
	t.Helper()
	var help bytes.Buffer
	args := append(strings.Fields(path), "--help")
	if code := run(args, stdio{in: strings.NewReader(""), out: &help, err: &help}); code != 0 {
		t.Fatalf("deathstacks %s --help: status %d, want 0:\n%s", path, code, help.String())
	}
	if m := kindsUsage.FindStringSubmatch(help.String()); m != nil {
		for _, kind := range strings.Split(m[1], "|") {
			addCommandFlags(t, defined, path+" "+kind)
		}
		return
	}
	flags := map[string]bool{}
	if _, list, ok := strings.Cut(help.String(), "\nflags:\n"); ok {
		for _, m := range helpFlag.FindAllStringSubmatch(list, -1) {
			flags[m[1]] = true
		}
	}
	defined[path] = flags
}

// docSection is the section of the reference about one command.
type docSection struct {
	line   int             // of its heading
	listed map[string]bool // the flags the first column of its tables lists
}

var (
	// commandHeading is the heading of a command's section: the command in
	// code, "### `deathstacks bench mcts`".
	commandHeading = regexp.MustCompile("^(#{2,6}) `deathstacks ([a-z]+(?: [a-z]+)?)`$")
	anyHeading     = regexp.MustCompile(`^(#{1,6}) `)
	// codeFlag is a flag written at the start of a code span, "`--name".
	codeFlag = regexp.MustCompile("`--([a-z][a-z0-9-]*)")
	// unescapedPipe separates the cells of a table row.
	unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)
)

// referenceProblems compares the reference's text with the flags the
// commands define (keyed as [commandFlags] keys them) and describes each
// difference as "README.md:LINE: ...": a command without a section, a
// section of no command, a flag missing from its command's table, and a
// flag the page names that its command (outside a command's section:
// every command) does not define.
func referenceProblems(text string, defined map[string]map[string]bool) []string {
	var problems []string
	say := func(line int, format string, a ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: ", referenceFile, line)+fmt.Sprintf(format, a...))
	}
	sections := map[string]*docSection{}
	var current string // the command of the section the line is in
	currentLevel := 0
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		if h := anyHeading.FindStringSubmatch(line); h != nil && (current == "" || len(h[1]) <= currentLevel) {
			current, currentLevel = "", 0
			if m := commandHeading.FindStringSubmatch(line); m != nil {
				current, currentLevel = m[2], len(m[1])
				switch {
				case sections[current] != nil:
					say(n, "a second section of `deathstacks %s` (the first at line %d)", current, sections[current].line)
				case defined[current] == nil:
					say(n, "a section of `deathstacks %s`, which is no command (the commands: %s)", current, strings.Join(sortedKeys(defined), ", "))
				}
				sections[current] = &docSection{line: n, listed: map[string]bool{}}
			}
			continue
		}
		if current != "" && strings.HasPrefix(line, "|") {
			cells := unescapedPipe.Split(line, 3)
			if len(cells) == 3 {
				for _, m := range codeFlag.FindAllStringSubmatch(cells[1], -1) {
					sections[current].listed[m[1]] = true
				}
			}
		}
		for _, name := range spanFlags(line) {
			switch {
			case helpFlagNames[name]:
			case current != "" && defined[current] != nil && !defined[current][name]:
				say(n, "--%s is no flag of `deathstacks %s`", name, current)
			case current == "" && !definedAnywhere(defined, name):
				say(n, "--%s is no flag of any command", name)
			}
		}
	}
	for _, command := range sortedKeys(defined) {
		s := sections[command]
		if s == nil {
			say(1, "no section `deathstacks %s` (a heading \"### `deathstacks %s`\" and a table of its flags)", command, command)
			continue
		}
		for _, name := range sortedKeys(defined[command]) {
			if !s.listed[name] {
				say(s.line, "`deathstacks %s` defines --%s, which the table of its section does not list", command, name)
			}
		}
	}
	return problems
}

// spanFlags returns the flags named in the code spans of a line that are
// not command lines (those [commandLineProblems] checks): each word of a
// span that starts with -- and a letter. (A single dash is left to other
// programs' flags, as in sh -c.)
func spanFlags(line string) []string {
	var names []string
	for _, span := range codeSpans(line) {
		if commandLines(shellWords(span.text)) != nil {
			continue
		}
		for _, w := range strings.Fields(span.text) {
			if name, ok := flagName(w); ok && name != "" && strings.HasPrefix(strings.TrimLeft(w, "[("), "--") {
				names = append(names, name)
			}
		}
	}
	return names
}

func definedAnywhere(defined map[string]map[string]bool, name string) bool {
	for _, flags := range defined {
		if flags[name] {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestReferenceListsEveryFlag(t *testing.T) {
	text, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range referenceProblems(string(text), commandFlags(t)) {
		t.Error(p)
	}
}

// TestReferenceProblemsFinds plants each kind of error in a copy of the
// reference and wants it found.
func TestReferenceProblemsFinds(t *testing.T) {
	data, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	defined := commandFlags(t)
	evalRow := "| `--opening-plies K` | 4 | random plies that start each pair of games |\n"
	for _, tc := range []struct {
		name     string
		old, new string // the first old in the text becomes new
		want     string
	}{
		{"stale flag in a table", evalRow, evalRow + "| `--openings FILE` | none | a stale flag |\n",
			"--openings is no flag of `deathstacks eval`"},
		{"stale flag in prose", "`deathstacks plot --run DIR` redraws", "`deathstacks plot --run DIR` (see `--dir`) redraws",
			"--dir is no flag of `deathstacks plot`"},
		{"stale flag outside the commands", "(`--player`, `--vs`)", "(`--player`, `--versus`)",
			"--versus is no flag of any command"},
		{"missing flag", evalRow, "",
			"`deathstacks eval` defines --opening-plies, which the table of its section does not list"},
		{"missing alias", "| `--simulations N`, `--sims N` | 100 |", "| `--simulations N` | 100 |",
			"`deathstacks ladder` defines --sims, which"},
		{"missing section", "### `deathstacks version`", "### version",
			"no section `deathstacks version`"},
		{"section of no command", "### `deathstacks bench nn`", "### `deathstacks bench gpu`",
			"a section of `deathstacks bench gpu`, which is no command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(text, tc.old) {
				t.Fatalf("the reference no longer holds %q to doctor", tc.old)
			}
			problems := referenceProblems(strings.Replace(text, tc.old, tc.new, 1), defined)
			for _, p := range problems {
				if strings.Contains(p, tc.want) {
					return
				}
			}
			t.Errorf("no problem says %q; got:\n%s", tc.want, strings.Join(problems, "\n"))
		})
	}
}

// snippet is code in a Markdown file: a code block's line (continued
// lines joined) or an inline code span, with the line it starts on.
type snippet struct {
	line int
	text string
}

var fence = regexp.MustCompile("^ {0,3}(```+|~~~+)")

// codeSnippets returns the code of a Markdown text: the lines of fenced
// and indented code blocks, a line ending in a backslash joined with the
// next, and the inline code spans of the other lines, which may run over
// the lines of a paragraph.
func codeSnippets(text string) []snippet {
	var out []snippet
	var para []string // the lines of the paragraph so far
	paraStart := 0
	flush := func() {
		joined := strings.Join(para, "\n")
		for _, span := range codeSpans(joined) {
			out = append(out, snippet{paraStart + strings.Count(joined[:span.at], "\n"), strings.ReplaceAll(span.text, "\n", " ")})
		}
		para = nil
	}
	lines := strings.Split(text, "\n")
	fenceMark, inIndented := "", false
	for i := 0; i < len(lines); i++ {
		line, n := lines[i], i+1
		if fenceMark != "" {
			if strings.HasPrefix(strings.TrimSpace(line), fenceMark) {
				fenceMark = ""
				continue
			}
		} else if m := fence.FindStringSubmatch(line); m != nil {
			flush()
			fenceMark = m[1]
			continue
		}
		indented := strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
		inIndented = fenceMark == "" && indented && (inIndented || len(para) == 0)
		if fenceMark != "" || inIndented {
			code := strings.TrimSpace(line)
			for strings.HasSuffix(code, `\`) && i+1 < len(lines) {
				i++
				code = strings.TrimSuffix(code, `\`) + " " + strings.TrimSpace(lines[i])
			}
			out = append(out, snippet{n, code})
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			paraStart = n
		}
		para = append(para, line)
	}
	flush()
	return out
}

// codeSpan is an inline code span: where it starts in the text, and its
// text.
type codeSpan struct {
	at   int
	text string
}

// codeSpans returns the inline code spans of Markdown text, a table's
// escaped \| read as a space (an alternative, as in red\|blue).
func codeSpans(text string) []codeSpan {
	var spans []codeSpan
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := 1
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		ticks := text[i : i+n]
		end := -1
		for j := i + n; j < len(text); {
			k := strings.Index(text[j:], ticks)
			if k < 0 {
				break
			}
			k += j
			if k+n == len(text) || text[k+n] != '`' {
				end = k
				break
			}
			j = k + n
			for j < len(text) && text[j] == '`' {
				j++
			}
		}
		if end < 0 {
			i += n
			continue
		}
		spans = append(spans, codeSpan{i, strings.ReplaceAll(text[i+n:end], `\|`, " ")})
		i = end + n
	}
	return spans
}

// shellWords splits code into words as a shell would: blanks separate
// them and quotes group them; an unbalanced quote runs to the end.
func shellWords(code string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range code {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// commandWords is one deathstacks command line in code: the words after
// the program.
type commandWords struct {
	program string
	args    []string
}

var (
	// cmdSpec is the start of a cmd player spec, whose rest is a command
	// line: "cmd:" or "cmd(timeout=2s):".
	cmdSpec = regexp.MustCompile(`^cmd(\([^)]*\))?:`)
	// envAssignment is a shell variable set for a command, GOMAXPROCS=1.
	envAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// commandPrefixes are the words after which a shell expects a command.
var commandPrefixes = map[string]bool{
	"&&": true, "||": true, "|": true, ";": true, "(": true, "$": true, ">": true,
	"time": true, "exec": true, "nohup": true, "sudo": true, "env": true, "then": true, "do": true,
}

// commandEnds are the words that end a command's arguments.
var commandEnds = map[string]bool{"&&": true, "||": true, "|": true, ";": true, "&": true, ")": true, "#": true}

// commandLines finds the deathstacks command lines among words: the
// program ("deathstacks" or a path ending in /deathstacks where a shell
// expects a command, the command line of a cmd player spec, or "go run
// ./cmd/deathstacks") and its arguments up to the end of the command (a
// | within the brackets of a synopsis, [--token T | --nats-creds FILE],
// does not end it).
// Words that hold blanks (quoted) are searched as code of their own.
func commandLines(words []string) []commandWords {
	var out []commandWords
	for i := 0; i < len(words); i++ {
		if strings.ContainsAny(words[i], " \t") {
			out = append(out, commandLines(shellWords(words[i]))...)
			continue
		}
		n := programWords(words, i)
		if n == 0 {
			continue
		}
		end, depth := i+n, 0 // depth: of the brackets of a synopsis, in which | is "or"
		for ; end < len(words) && programWords(words, end) == 0; end++ {
			w := words[end]
			if depth == 0 && (commandEnds[w] || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "2>")) {
				break
			}
			depth += strings.Count(w, "[") - strings.Count(w, "]")
		}
		out = append(out, commandWords{strings.Join(words[i:i+n], " "), words[i+n : end]})
		i = end - 1
	}
	return out
}

// programWords returns how many words at words[i] name the program: 3
// for go run ./cmd/deathstacks, 1 for the program, 0 for none.
func programWords(words []string, i int) int {
	w := words[i]
	if w == "go" && i+2 < len(words) && words[i+1] == "run" &&
		strings.TrimSuffix(strings.TrimPrefix(words[i+2], "./"), "/") == "cmd/deathstacks" {
		return 3
	}
	atCommand := i == 0 || commandPrefixes[words[i-1]] || envAssignment.MatchString(words[i-1])
	if loc := cmdSpec.FindStringIndex(w); loc != nil {
		w, atCommand = w[loc[1]:], true
	}
	if atCommand && (w == "deathstacks" || builtProgram.MatchString(w) && !strings.HasSuffix(w, "cmd/deathstacks")) {
		return 1
	}
	return 0
}

// builtProgram is a path to a built deathstacks, ./deathstacks or
// /tmp/x/deathstacks, and not a Go package's (./cmd/deathstacks,
// github.com/deathstacks/deathstacks).
var builtProgram = regexp.MustCompile(`^(\.{1,2}|~|\$[A-Za-z_]+)?/([^/]+/)*deathstacks$`)

// placeholder reports whether a word stands for a command or a kind
// rather than naming one: <command>, [...], ..., $CMD.
func placeholder(w string) bool {
	return w == "" || strings.IndexAny(w, "<[{$.…") == 0
}

// flagName returns the name of a flag word (-x, --name, --name=value,
// [--name), "" for "--", and false for any other word.
func flagName(w string) (string, bool) {
	w = strings.TrimLeft(w, "[(")
	if w == "--" {
		return "", true
	}
	if !strings.HasPrefix(w, "-") {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
	name = strings.TrimRight(name, "]),.;:…")
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return "", false
	}
	return name, true
}

// commandLineProblems checks every deathstacks command line in the code
// of a Markdown file (path, for the messages) against the commands and
// their flags (keyed as [commandFlags] keys them): "PATH:LINE: `COMMAND
// LINE`: what is wrong".
func commandLineProblems(path, text string, defined map[string]map[string]bool) []string {
	kinds := map[string][]string{}
	for key := range defined {
		if command, kind, ok := strings.Cut(key, " "); ok {
			kinds[command] = append(kinds[command], kind)
		}
	}
	var problems []string
	for _, s := range codeSnippets(text) {
		for _, c := range commandLines(shellWords(s.text)) {
			if what := commandProblem(c.args, defined, kinds); what != "" {
				line := strings.Join(append([]string{c.program}, c.args...), " ")
				problems = append(problems, fmt.Sprintf("%s:%d: `%s`: %s", path, s.line, line, what))
			}
		}
	}
	return problems
}

// commandProblem says what is wrong with the arguments of one command
// line, "" when nothing is. A word that stands for a command
// (<command>) or ends with a colon (an error message quoted,
// "deathstacks train: stopped ...") passes.
func commandProblem(args []string, defined map[string]map[string]bool, kinds map[string][]string) string {
	if len(args) == 0 || placeholder(args[0]) || isHelp(args[0]) || strings.HasSuffix(args[0], ":") {
		return ""
	}
	key, rest := args[0], args[1:]
	if ks := kinds[key]; ks != nil {
		if len(rest) == 0 || placeholder(rest[0]) || isHelp(rest[0]) || strings.HasSuffix(rest[0], ":") {
			return ""
		}
		if defined[key+" "+rest[0]] == nil {
			return fmt.Sprintf("%s has no kind %q (its kinds: %s)", key, rest[0], strings.Join(ks, ", "))
		}
		key, rest = key+" "+rest[0], rest[1:]
	}
	flags := defined[key]
	if flags == nil {
		return fmt.Sprintf("no command %q (the commands: %s)", key, strings.Join(topCommands(defined), ", "))
	}
	for _, w := range rest {
		name, ok := flagName(w)
		switch {
		case !ok:
		case name == "":
			return ""
		case !flags[name] && !helpFlagNames[name]:
			return fmt.Sprintf("deathstacks %s has no flag --%s", key, name)
		}
	}
	return ""
}

// topCommands returns the commands' names, without their kinds.
func topCommands(defined map[string]map[string]bool) []string {
	seen := map[string]bool{}
	for key := range defined {
		command, _, _ := strings.Cut(key, " ")
		seen[command] = true
	}
	return sortedKeys(seen)
}

// moduleRoot returns the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func TestMarkdownCommandLines(t *testing.T) {
	root := moduleRoot(t)
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "*.md").Output()
	if err != nil {
		t.Skipf("git ls-files in %s: %v: no repository to list the Markdown files of", root, err)
	}
	defined := commandFlags(t)
	for _, path := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		if path == "" || historyFiles[path] {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, p := range commandLineProblems(path, string(text), defined) {
			t.Error(p)
		}
	}
}

func TestCommandLineProblems(t *testing.T) {
	defined := commandFlags(t)
	for _, tc := range []struct {
		name, markdown string
		want           string // a problem's text; "" for none
	}{
		{"inline", "Run `deathstacks eval --player random --player greedy --games 2`.", ""},
		{"fenced", "```sh\ndeathstacks train --config smoke\n```", ""},
		{"indented", "Text.\n\n    deathstacks perft --depth 3 --divide", ""},
		{"go run", "`go run ./cmd/deathstacks bench nn --batches 1,8 --per-call 2`", ""},
		{"synopsis in a table", "| `deathstacks actor --connect URL [--token T \\| --nats-creds FILE]` |", ""},
		{"synopsis", "`deathstacks actor --connect URL [--token T | --tls-cert FILE]`", "deathstacks actor has no flag --tls-cert"},
		{"placeholder", "`deathstacks <command> --help`", ""},
		{"error message", "`deathstacks train: stopped after 3 of 10 iterations`", ""},
		{"not the program", "`go build -o deathstacks ./cmd/deathstacks`, `pip install deathstacks`, `github.com/deathstacks/deathstacks env`", ""},
		{"built program", "`$GOPATH/bin/deathstacks plot --out x`", "deathstacks plot has no flag --out"},
		{"unknown command", "text\n\n`deathstacks evaluate --games 2`", "x.md:3: `deathstacks evaluate --games 2`: no command \"evaluate\""},
		{"unknown flag", "```\nGOMAXPROCS=1 ./deathstacks bench mcts --batches 4\n```", "x.md:2: `./deathstacks bench mcts --batches 4`: deathstacks bench mcts has no flag --batches"},
		{"unknown kind", "`deathstacks bench gpu`", "bench has no kind \"gpu\""},
		{"flag of another command", "`deathstacks train --resume && deathstacks export --resume`", "deathstacks export has no flag --resume"},
		{"continued line", "```\ndeathstacks eval --player random \\\n    --plyers greedy\n```", "x.md:2: `deathstacks eval --player random --plyers greedy`: deathstacks eval has no flag --plyers"},
		{"span over two lines", "See `deathstacks play\n--colour red` here.", "x.md:1: `deathstacks play --colour red`"},
		{"cmd player", "`--player 'cmd:./deathstacks bot --sims 20'`", "deathstacks bot has no flag --sims"},
		{"quoted", "`sh -c 'deathstacks show --depth 2'`", "deathstacks show has no flag --depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := commandLineProblems("x.md", tc.markdown, defined)
			switch {
			case tc.want == "" && len(problems) > 0:
				t.Errorf("problems %q, want none", problems)
			case tc.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tc.want)):
				t.Errorf("problems %q, want one with %q", problems, tc.want)
			}
		})
	}
}

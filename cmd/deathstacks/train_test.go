package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// train --resume on a directory with nothing to continue is bad input: it
// must stop at once with status 2, not start a new run.
func TestTrainResumeNothing(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		out  string
		want string
	}{
		{"missing", filepath.Join(base, "typo"), "does not exist"},
		{"empty", base, "holds no checkpoint"},
		{"file", file, "is a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runBotCLI("", "train", "--config", "smoke", "--out", tc.out, "--resume", "--quiet")
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, errOut, tc.want)
			}
			if strings.Contains(out, "new run") {
				t.Errorf("a new run started: %q", out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(base, "typo")); !os.IsNotExist(err) {
		t.Errorf("train --resume created the missing directory")
	}
}

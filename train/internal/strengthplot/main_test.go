package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, table string
		points      int    // measurements read, when want is ""
		want        string // a part of the error
	}{
		{"comments and blank lines", "# header\n\n55\t52\t69\tseed 1\tentry\n100\t107\t50\tseed 3\tentry\n", 2, ""},
		{"negative Elo", "55\t-7\t68\tseed 1\tentry\n", 1, ""},
		{"fields", "55 52 69 seed entry\n", 0, "t.tsv:1: 1 fields: want 5 separated by tabs"},
		{"minutes", "# c\nfifty\t52\t69\tseed\tentry\n", 0, `t.tsv:2: minutes "fifty": want a number of 0 or more`},
		{"negative minutes", "-5\t52\t69\tseed\tentry\n", 0, `minutes "-5": want a number of 0 or more`},
		{"elo", "55\tNaN\t69\tseed\tentry\n", 0, `elo "NaN": want a number`},
		{"interval", "55\t52\t-1\tseed\tentry\n", 0, `half-interval "-1": want a number of 0 or more`},
		{"empty", "# only a comment\n", 0, "t.tsv: no measurement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts, err := parse(strings.NewReader(tt.table), "t.tsv")
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil || len(pts) != tt.points {
				t.Fatalf("%d points, error %v: want %d points", len(pts), err, tt.points)
			}
		})
	}
	pts, _ := parse(strings.NewReader("55\t52\t69\tseed 1\tentry\n"), "t.tsv")
	if p := pts[0]; p.X != 55 || p.Y != 52 || p.Low != -17 || p.High != 121 {
		t.Errorf("point %+v: want 55, 52 from -17 to 121", p)
	}
}

// TestRunDrawsTheTable draws the repository's table, as README's command
// does, into a scratch folder.
func TestRunDrawsTheTable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "strength.png")
	if err := run(filepath.Join("..", "..", "strength.tsv"), out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("%s is not a PNG", out)
	}
}

package bot

import (
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

// cycleFEN is a position of one stack a side, whose moves can cycle.
const cycleFEN = "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r"

func FuzzParseGameLine(f *testing.F) {
	for _, s := range []string{env.StartFEN, cycleFEN + " moves a6-1-a5 f1-1-f2 a5-1-a6", cycleFEN + " moves", cycleFEN + " a6-1-a5", "x", "", " moves a1-1-a2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		pos, moves, err := parseGameLine(line)
		if err != nil {
			return
		}
		// What parses writes back as a line that parses the same.
		again := pos.FEN()
		if moves != nil {
			again = strings.Join(append([]string{again, movesWord}, moves...), " ")
		}
		pos2, moves2, err := parseGameLine(again)
		if err != nil || !pos2.SameAs(&pos) || strings.Join(moves2, " ") != strings.Join(moves, " ") || (moves2 == nil) != (moves == nil) {
			t.Fatalf("%q parsed, but its rewrite %q gives %v, %q, %v", line, again, pos2.FEN(), moves2, err)
		}
	})
}

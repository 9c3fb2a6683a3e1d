package env

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	tests := []struct {
		name, fen string
		ply       int
		want      string
	}{
		{"start", StartFEN, 0, `6  rr rr rr rr rr rr
5  .  .  .  .  .  .
4  .  .  .  .  .  .
3  .  .  .  .  .  .
2  .  .  .  .  .  .
1  bb bb bb bb bb bb
   a  b  c  d  e  f
red to move, ply 0
`},
		{"tall stacks", "bbrrbrr,,,,,/,,,,,/,,,rb,,/,,rrrrbr,,,/,,,,,/,,,,,bbrrb b", 12, `6  bbrrbrr .       .       .       .       .
5  .       .       .       .       .       .
4  .       .       .       rb      .       .
3  .       .       rrrrbr  .       .       .
2  .       .       .       .       .       .
1  .       .       .       .       .       bbrrb
   a       b       c       d       e       f
blue to move, ply 12, too tall: f1 a6
`},
		{"won", "rb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,r b", 3, `6  rb .  .  .  .  .
5  .  .  .  .  .  .
4  .  .  .  .  .  .
3  .  .  .  .  .  .
2  .  .  .  .  .  .
1  .  .  .  .  .  r
   a  b  c  d  e  f
blue to move, ply 3, red has won
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			p.SetPly(tt.ply)
			got := p.Render()
			if got != tt.want {
				t.Errorf("Render() =\n%s\nwant\n%s", got, tt.want)
			}
			for i, line := range strings.Split(got, "\n") {
				if strings.HasSuffix(line, " ") {
					t.Errorf("line %d ends in a space: %q", i+1, line)
				}
			}
		})
	}
}

package table

import "testing"

func TestTable(t *testing.T) {
	cases := []struct {
		name           string
		tab            Table
		text, markdown string
	}{
		{"numbers right, text left", Table{
			Head:  []string{"player", "Elo"},
			Right: []bool{false, true},
			Rows:  [][]string{{"alphabeta:depth=2", "+250"}, {"random", "0"}},
		}, "player              Elo\nalphabeta:depth=2  +250\nrandom                0\n",
			"| player | Elo |\n|---|---:|\n| alphabeta:depth=2 | +250 |\n| random | 0 |\n"},
		{"multibyte cells count as one column each", Table{
			Head:  []string{"±95%", "x"},
			Right: []bool{true, false},
			Rows:  [][]string{{"±5", "a"}, {"±1234", "b"}},
		}, " ±95%  x\n   ±5  a\n±1234  b\n", "| ±95% | x |\n|---:|---|\n| ±5 | a |\n| ±1234 | b |\n"},
		{"no trailing spaces", Table{
			Head:  []string{"a", "b"},
			Right: []bool{false, false},
			Rows:  [][]string{{"long cell", ""}},
		}, "a          b\nlong cell\n", "| a | b |\n|---|---|\n| long cell |  |\n"},
		{"pipes escaped in Markdown", Table{
			Head:  []string{"name"},
			Right: []bool{false},
			Rows:  [][]string{{"a|b"}},
		}, "name\na|b\n", "| name |\n|---|\n| a\\|b |\n"},
		{"no rows", Table{Head: []string{"a"}, Right: []bool{true}}, "a\n", "| a |\n|---:|\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tab.Text(); got != tc.text {
				t.Errorf("text: got\n%s\nwant\n%s", got, tc.text)
			}
			if got := tc.tab.Markdown(); got != tc.markdown {
				t.Errorf("markdown: got\n%s\nwant\n%s", got, tc.markdown)
			}
		})
	}
}

package players

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitCommandLine(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"  \t\n", nil},
		{"prog", []string{"prog"}},
		{"  ./deathstacks bot --player az:model=a,sims=200  ", []string{"./deathstacks", "bot", "--player", "az:model=a,sims=200"}},
		{`prog 'two words' "and three words"`, []string{"prog", "two words", "and three words"}},
		{`prog 'it''s' "a \"quote\" \\ \$ \x"`, []string{"prog", "its", `a "quote" \ $ \x`}},
		{`prog a\ b \'c\' \|`, []string{"prog", "a b", "'c'", "|"}},
		{"prog a\\\nb", []string{"prog", "ab"}},
		{"prog \"a\\\nb\"", []string{"prog", "ab"}},
		{`prog '' ""`, []string{"prog", "", ""}},
		{`prog '$HOME|*' "a;b&c<d>e(f)g*h?i[j]"`, []string{"prog", "$HOME|*", "a;b&c<d>e(f)g*h?i[j]"}},
		{"prog a#b c~d key=value,x", []string{"prog", "a#b", "c~d", "key=value,x"}},
		{`C:\\prog\\x`, []string{`C:\prog\x`}},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			got, err := splitCommandLine(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSplitCommandLineErrors(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"prog 'open", []string{"single quote at byte 5 is not closed"}},
		{`prog "open`, []string{"double quote at byte 5 is not closed"}},
		{`prog "a\"`, []string{"double quote at byte 5 is not closed"}},
		{`prog \`, []string{"a backslash ends it"}},
		{"prog | tee log", []string{`'|' at byte 5 is shell syntax`, "sh -c"}},
		{"prog 2>/dev/null", []string{`'>' at byte 6`}},
		{"prog; rm x", []string{`';'`}},
		{"prog &", []string{`'&'`}},
		{"prog $HOME", []string{`'$'`}},
		{"prog `x`", []string{"'`'"}},
		{"prog *.txt", []string{`'*'`}},
		{"prog (x)", []string{`'('`}},
		{"prog # comment", []string{`'#'`}},
		{"prog ~/engine", []string{`'~'`}},
		{`prog "$HOME"`, []string{`'$' at byte 6 is shell syntax within double quotes`}},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			_, err := splitCommandLine(tc.text)
			if err == nil {
				t.Fatal("no error")
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
		})
	}
}

// shellQuote writes a word in single quotes, as a shell reads it back.
func shellQuote(w string) string {
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// FuzzSplitCommandLine checks that the splitter never panics, and that
// the words it returns, each in single quotes, split back into the same
// words.
func FuzzSplitCommandLine(f *testing.F) {
	for _, seed := range []string{"", "prog a b", `a 'b c' "d \" e" f\ g`, "a\\\nb", `'' ""`, "x | y", `"$x"`, "'open", `\`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		words, err := splitCommandLine(text)
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellQuote(w)
		}
		again, err := splitCommandLine(strings.Join(quoted, " "))
		if err != nil {
			t.Fatalf("%q: words %q quoted back: %v", text, words, err)
		}
		if !reflect.DeepEqual(again, words) {
			t.Fatalf("%q: words %q, quoted back %q", text, words, again)
		}
	})
}

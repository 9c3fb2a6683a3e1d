package players

import (
	"fmt"
	"strings"
)

// splitCommandLine splits the command line of a cmd spec into words as a
// POSIX shell would, without running one: blanks (spaces, tabs, newlines)
// separate words; single quotes keep everything up to the next single
// quote; double quotes keep everything up to the next unescaped double
// quote, where a backslash escapes only \, ", $, ` and a newline; a
// backslash outside quotes keeps the next character (a backslash and a
// newline are dropped); a pair of quotes with nothing between is an empty word. What a shell would
// expand or run, and this does not, is refused rather than passed on as
// text: outside quotes, the operators | & ; < > ( ), $ and `, the globs
// * ? [, and # or ~ at the start of a word; within double quotes, $ and `.
// Quote such a character to pass it, or run "sh -c '...'" for a shell.
func splitCommandLine(text string) ([]string, error) {
	var (
		words  []string
		word   strings.Builder
		inWord bool
	)
	end := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end()
		case c == '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command line %q: the single quote at byte %d is not closed", text, i)
			}
			word.WriteString(text[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			j, err := doubleQuoted(text, i, &word)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = j
		case c == '\\':
			if i+1 == len(text) {
				return nil, fmt.Errorf("command line %q: a backslash ends it: want a character after it", text)
			}
			i++
			if text[i] != '\n' {
				word.WriteByte(text[i])
				inWord = true
			}
		case strings.IndexByte("|&;<>()$`*?[", c) >= 0, !inWord && (c == '#' || c == '~'):
			return nil, fmt.Errorf("command line %q: %q at byte %d is shell syntax, and no shell runs the command: quote it to pass it on, or run sh -c '...'", text, c, i)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

// doubleQuoted copies the text of the double-quoted string that opens at
// text[open] into word and returns the index of its closing quote.
func doubleQuoted(text string, open int, word *strings.Builder) (int, error) {
	for i := open + 1; i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			return i, nil
		case '\\':
			if i+1 < len(text) && strings.IndexByte("\\\"$`\n", text[i+1]) >= 0 {
				i++
				if text[i] != '\n' {
					word.WriteByte(text[i])
				}
				continue
			}
			word.WriteByte(c)
		case '$', '`':
			return 0, fmt.Errorf("command line %q: %q at byte %d is shell syntax within double quotes, and no shell runs the command: escape it with a backslash, or use single quotes", text, c, i)
		default:
			word.WriteByte(c)
		}
	}
	return 0, fmt.Errorf("command line %q: the double quote at byte %d is not closed", text, open)
}

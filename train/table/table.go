// Package table writes rows of cells under a header as aligned plain text
// or as Markdown, for the reports of evaluations and ladders, and counts
// of things with the noun that fits them, for the messages of training
// and of the command line.
package table

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Table is rows of cells under a header.
type Table struct {
	Head  []string
	Right []bool // the columns to align right: numbers
	Rows  [][]string
}

// Text writes the table with columns padded to line up, two spaces apart.
func (t Table) Text() string {
	widths := make([]int, len(t.Head))
	for _, row := range append([][]string{t.Head}, t.Rows...) {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, row := range append([][]string{t.Head}, t.Rows...) {
		var line strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				line.WriteString("  ")
			}
			if t.Right[i] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// Markdown writes the table in GitHub's Markdown, numbers aligned right.
func (t Table) Markdown() string {
	var b strings.Builder
	row := func(cells []string) {
		for _, c := range cells {
			b.WriteString("| " + strings.ReplaceAll(c, "|", `\|`) + " ")
		}
		b.WriteString("|\n")
	}
	row(t.Head)
	for _, right := range t.Right {
		if right {
			b.WriteString("|---:")
		} else {
			b.WriteString("|---")
		}
	}
	b.WriteString("|\n")
	for _, r := range t.Rows {
		row(r)
	}
	return b.String()
}

// Count writes n with the word that fits it: "1 ply", "2 plies", "0 games".
func Count(n int, singular, plural string) string {
	if n == 1 {
		return "1 " + singular
	}
	return strconv.Itoa(n) + " " + plural
}

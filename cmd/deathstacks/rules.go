// The commands that say what the rules say of positions: moves, perft and
// show.

package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train/table"
)

// runMoves answers each input line with one output line, even for a bad
// FEN, so that a program feeding it FENs can pair questions and answers.
func runMoves(args []string, s stdio) error {
	fs := newFlags("moves", "moves [--fen FEN] [--no-too-tall]\n\nWith --fen, prints the legal moves one per line. Without it, reads FEN lines\nfrom standard input and writes one line per input line: its legal moves\nseparated by spaces (empty for a finished position). A bad line gets a\nmessage on stderr and an empty output line; the exit status is then 2.", s)
	fen := fs.String("fen", "", "the position (FEN); without it, FEN lines are read from standard input")
	noTooTall := fs.Bool("no-too-tall", false, "turn the too-tall rule off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	tooTall := !*noTooTall
	if *fen != "" {
		p, err := env.ParseFEN(*fen)
		if err != nil {
			return usageErr("%v", err)
		}
		w := bufio.NewWriter(s.out)
		for _, m := range p.LegalMoves(nil, tooTall) {
			fmt.Fprintln(w, m)
		}
		return w.Flush()
	}
	sc := bufio.NewScanner(s.in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	w := bufio.NewWriter(s.out)
	bad := 0
	for line := 1; sc.Scan(); line++ {
		p, err := env.ParseFEN(sc.Text())
		if err != nil {
			bad++
			w.Flush()
			fmt.Fprintf(s.err, "deathstacks moves: line %d: %v\n", line, err)
			fmt.Fprintln(w)
			continue
		}
		moves := p.LegalMoves(nil, tooTall)
		texts := make([]string, len(moves))
		for i, m := range moves {
			texts[i] = m.String()
		}
		fmt.Fprintln(w, strings.Join(texts, " "))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	if bad > 0 {
		return &exitError{code: 2, err: errors.New(table.Count(bad, "bad line", "bad lines"))}
	}
	return nil
}

func runPerft(args []string, s stdio) error {
	fs := newFlags("perft", "perft --depth N [--fen FEN] [--divide] [--no-too-tall]\n\nCounts the move sequences of exactly N plies. The last line is\n\"Nodes searched: <N>\"; --divide first prints each move's count.", s)
	depth := fs.Int("depth", 0, "the number of plies (1 or more)")
	fen := fs.String("fen", env.StartFEN, "the position (FEN)")
	divide := fs.Bool("divide", false, "print the count after each legal move first")
	noTooTall := fs.Bool("no-too-tall", false, "turn the too-tall rule off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *depth < 1 {
		return usageErr("--depth must be 1 or more")
	}
	p, err := env.ParseFEN(*fen)
	if err != nil {
		return usageErr("%v", err)
	}
	var total uint64
	if *divide {
		for _, d := range env.Divide(p, *depth, !*noTooTall) {
			fmt.Fprintf(s.out, "%v: %d\n", d.Move, d.Nodes)
			total += d.Nodes
		}
		fmt.Fprintln(s.out)
	} else {
		total = env.Perft(p, *depth, !*noTooTall)
	}
	fmt.Fprintf(s.out, "Nodes searched: %d\n", total)
	return nil
}

func runShow(args []string, s stdio) error {
	fs := newFlags("show", "show [--fen FEN]\n\nDraws the position: rank 6 on top, each stack listed from the top piece down.", s)
	fen := fs.String("fen", env.StartFEN, "the position (FEN)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := env.ParseFEN(*fen)
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprint(s.out, p.Render())
	fmt.Fprintf(s.out, "legal moves: %d\n", p.CountMoves(true))
	return nil
}

// Command deathstacks trains, evaluates and plays Death Stacks agents.
//
// Run "deathstacks help" for the list of subcommands and
// "deathstacks <command> --help" for each command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: run gets the arguments after the command's
// name and the process's standard streams.
type command struct {
	summary string
	run     func(args []string, io stdio) error
}

// stdio bundles the streams a command reads and writes, so tests can run
// commands in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// commands lists the subcommands.
func commands() map[string]command {
	return map[string]command{
		"bench":    {"measure speed: bench mcts (searches), bench nn (network)", runBench},
		"bestmove": {"print a player's move for a position and what it knows", runBestmove},
		"bot":      {"answer FEN lines on stdin with a player's moves", runBot},
		"train":    {"train a network by self-play (the main job)", runTrain},
		"plot":     {"redraw a run's plots from its metrics", runPlot},
		"export":   {"write a trained player to one file", runExport},
		"eval":     {"rate players by a round robin: tables, results.json, report, chart", runEval},
		"ladder":   {"rate a run's network snapshots on one Elo scale against training time", runLadder},
		"moves":    {"list the legal moves of positions", runMoves},
		"perft":    {"count move sequences to a depth", runPerft},
		"play":     {"play a game in the terminal against a player", runPlay},
		"show":     {"draw a position as text", runShow},
		"serve":    {"play, analyse, replay and watch runs in the browser", runServe},
	}
}

// exitError carries a specific exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr}))
}

// run executes the command line and returns the exit status: 0 on success,
// 2 for a usage error or bad input, 1 for any other failure.
func run(args []string, s stdio) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		usage(s.out, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(s.err, "deathstacks: unknown command %q\n\n", args[0])
		usage(s.err, cmds)
		return 2
	}
	err := cmd.run(args[1:], s)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(s.err, "deathstacks %s: %v\n", args[0], ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(s.err, "deathstacks %s: %v\n", args[0], err)
	return 1
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: deathstacks <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, cmds[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'deathstacks <command> --help' for a command's flags.")
}

// newFlags returns a flag set for a subcommand that writes its help and
// parse errors to s.err. A parse error becomes a usage error (status 2).
func newFlags(name, synopsis string, s stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: deathstacks %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and turns a parse error into a usage error, and
// stray positional arguments into one too.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &exitError{code: 2} // the flag package has printed the problem
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// usageErr is an error for bad command-line input: exit status 2.
func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

// Command deathstacks trains, evaluates and plays Death Stacks agents.
//
// Run "deathstacks help" for the list of subcommands and
// "deathstacks <command> --help" for each command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/checkpoint"
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
	// stop, if not nil, stops the commands that stop on Ctrl-C when it
	// ends, as the signal would: a test's way to interrupt one. Its
	// cause, a stopSignal, says which signal (none: Ctrl-C).
	stop context.Context
}

// stopContext returns the context a command that stops on Ctrl-C starts
// from: s.stop, or the background.
func (s stdio) stopContext() context.Context {
	if s.stop == nil {
		return context.Background()
	}
	return s.stop
}

// commands lists the subcommands.
func commands() map[string]command {
	return map[string]command{
		"bench":    {"measure speed: bench mcts (searches), bench nn (network)", runBench},
		"bestmove": {"print a player's move for a position and what it knows", runBestmove},
		"bot":      {"answer FEN lines on stdin with a player's moves", runBot},
		"train":    {"train a network by self-play (the main job)", runTrain},
		"actor":    {"play self-play games for a training run on another machine", runActor},
		"plot":     {"redraw a run's plots from its metrics", runPlot},
		"export":   {"write a trained player to one file", runExport},
		"eval":     {"rate players by a round robin: tables, results.json, report, chart", runEval},
		"ladder":   {"rate the network snapshots of one or more runs on one Elo scale against training time", runLadder},
		"moves":    {"list the legal moves of positions", runMoves},
		"perft":    {"count move sequences to a depth", runPerft},
		"play":     {"play a game in the terminal against a player", runPlay},
		"show":     {"draw a position as text", runShow},
		"inspect":  {"describe a checkpoint, network or exported player file", runInspect},
		"version":  {"print the version, Go version, source revision and BLAS", runVersion},
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

// program is the command that runs this program as the user invoked it,
// ready for a shell: every command line the program prints or records
// starts with it (see [commandLine]). main sets it from os.Args[0]
// ([invokedAs]); commands run in-process by tests see "deathstacks".
var program = "deathstacks"

func main() {
	program = invokedAs(os.Args[0])
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// invokedAs returns the command that runs this program again as the user
// ran it, given arg0 (os.Args[0]): arg0 as typed ("deathstacks" found on
// PATH, "./deathstacks", "/opt/bin/deathstacks"), quoted for a shell when
// it needs it; "go run ./cmd/deathstacks" (from the module's root) for a
// binary that go run built, which lives in a folder of go's own (a
// temporary go-build<digits> folder, or the build cache, go-build) that
// nobody runs by its path; "deathstacks" when arg0 is empty.
func invokedAs(arg0 string) string {
	if arg0 == "" {
		return "deathstacks"
	}
	for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(arg0)), "/") {
		if digits, ok := strings.CutPrefix(dir, "go-build"); ok && strings.Trim(digits, "0123456789") == "" {
			return "go run ./cmd/deathstacks"
		}
	}
	return shellWord(arg0)
}

// run executes the command line and returns the exit status: 0 on success,
// 2 for a usage error or bad input, 128 plus the signal's number for a
// command a signal stopped (130 for Ctrl-C, 143 for SIGTERM; see
// [stoppedError]), 1 for any other failure.
func run(args []string, s stdio) int {
	cmds := commands()
	if len(args) == 0 {
		usage(s.err, cmds)
		return 2
	}
	if isHelp(args[0]) {
		usage(s.out, cmds)
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(s.err, "deathstacks: unknown command %q\nrun '%s help' for the commands\n", args[0], program)
		return 2
	}
	err := cmd.run(args[1:], s)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code, err = ee.code, ee.err
	} else if badInput(err) {
		code = 2
	}
	if err != nil {
		// Library errors may start with the command's own name ("ladder:
		// run x: ..."), which the line already says.
		fmt.Fprintf(s.err, "deathstacks %s: %s\n", args[0], strings.TrimPrefix(err.Error(), args[0]+": "))
	}
	return code
}

// badInput reports whether err comes from what the user named: a file or
// directory that does not exist, is not a run, or is not a readable
// checkpoint or network file, or a setting out of range. Such errors get
// status 2 from any command.
func badInput(err error) bool {
	var rde *train.RunDirError
	var fe *configs.FieldError
	if errors.As(err, &rde) || errors.As(err, &fe) {
		return true
	}
	for _, target := range []error{
		fs.ErrNotExist, checkpoint.ErrNotFound, checkpoint.ErrUnreadable,
		model.ErrNotNetwork, model.ErrFormatVersion, model.ErrEncoding,
		model.ErrArchitecture, model.ErrCorrupt, model.ErrTruncated,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// isHelp reports whether a word asks for help.
func isHelp(word string) bool {
	switch word {
	case "help", "-h", "--help", "-help":
		return true
	}
	return false
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
		fmt.Fprintf(fs.Output(), "usage: deathstacks %s\n", synopsis)
		flags := 0
		fs.VisitAll(func(*flag.Flag) { flags++ })
		if flags > 0 { // a command without flags gets no empty heading
			fmt.Fprintln(fs.Output(), "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args and turns a parse error into a usage error, and
// stray positional arguments into one too.
func parseFlags(fs *flag.FlagSet, args []string) error { return parseFlagsArgs(fs, args, 0) }

// parseFlagsArgs is [parseFlags] for a command that takes n positional
// arguments after its flags.
// A parse error says what is wrong in one line, then where the flags are
// described ([helpErr]), instead of the whole usage; --help prints that.
func parseFlagsArgs(fs *flag.FlagSet, args []string, n int) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return helpErr(fs.Name(), "%s", parseProblem(fs, args, err))
	case fs.NArg() > n:
		return helpErr(fs.Name(), "unexpected argument %q", fs.Arg(n))
	case fs.NArg() < n:
		return helpErr(fs.Name(), "an argument is missing")
	}
	// A flag given but empty (--fen '') is a mistake, often an unset shell
	// variable; taken as absent, it would silently mean the default.
	var empty error
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok && g.Get() == "" && empty == nil {
			empty = usageErr("--%s is empty: give a value or leave the flag out", f.Name)
		}
	})
	return empty
}

// helpErr is a usage error (status 2) whose second and last line points to
// the command's --help: "run 'deathstacks train --help' for its flags".
func helpErr(command, format string, a ...any) error {
	return usageErr("%s\nrun '%s %s --help' for its flags", fmt.Sprintf(format, a...), program, command)
}

// parseProblem says in the user's words what the flag package refused in
// args: the flag as it was written ("--bogus", "-n"), and for a value the
// value and the form wanted.
func parseProblem(fs *flag.FlagSet, args []string, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag %s", writtenFlag(args, name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("%s needs a value", writtenFlag(args, name))
	}
	for _, form := range []string{"invalid value %q for flag -%s", "invalid boolean value %q for -%s"} {
		var value, name string
		if _, scanErr := fmt.Sscanf(msg, form, &value, &name); scanErr != nil {
			continue
		}
		name = strings.TrimSuffix(name, ":")
		if f := fs.Lookup(name); f != nil {
			reason := msg[strings.Index(msg, ": ")+2:]
			return fmt.Sprintf("%s %q: %s", writtenFlag(args, name), value, wantedValue(f, reason))
		}
	}
	return msg
}

// writtenFlag is the flag called name as args wrote it: "--name" or
// "-name".
func writtenFlag(args []string, name string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		given, _, _ := strings.Cut(a, "=")
		if strings.TrimLeft(given, "-") == name && strings.HasPrefix(given, "-") {
			return given
		}
	}
	return "--" + name
}

// wantedValue says what f takes, by the type of its value; a flag of its
// own type says it in reason, its Set's error.
func wantedValue(f *flag.Flag, reason string) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return reason
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want a duration such as 90s, 15m or 1h30m"
	case int, int64:
		return "want a whole number"
	case uint, uint64:
		return "want a whole number, 0 or more"
	case float64:
		return "want a number"
	case bool:
		return "want true or false"
	}
	return reason
}

// flagErr turns a package's verdict on values the flags gave into a usage
// error (status 2) that names the flags: each [configs.FieldError] whose
// key, or the section its key is in ("rules" of "rules.max_plies"), is in
// flags (setting key to flag name) is said of its flag, "--games is 0:
// want 1 or more"; the package owns the check and its words, the command
// only the flag names.
func flagErr(err error, flags map[string]string) error {
	if err == nil {
		return nil
	}
	problems, ok := fieldErrors(err)
	if !ok {
		return usageErr("%v", err)
	}
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.Error()
		for key := p.Key; ; {
			if f, ok := flags[key]; ok {
				lines[i] = "--" + f + " " + p.Msg
				break
			}
			dot := strings.LastIndexByte(key, '.')
			if dot < 0 {
				break
			}
			key = key[:dot]
		}
	}
	return usageErr("%s", strings.Join(lines, "\n"))
}

// fieldErrors returns the FieldErrors err is made of, and false if any
// part of it is another error.
func fieldErrors(err error) ([]*configs.FieldError, bool) {
	switch e := err.(type) {
	case *configs.FieldError:
		return []*configs.FieldError{e}, true
	case interface{ Unwrap() []error }:
		var all []*configs.FieldError
		for _, part := range e.Unwrap() {
			some, ok := fieldErrors(part)
			if !ok {
				return nil, false
			}
			all = append(all, some...)
		}
		return all, true
	case interface{ Unwrap() error }:
		return fieldErrors(e.Unwrap())
	}
	return nil, false
}

// refuseOverwrite refuses, with status 2, to replace the finished result
// at path, which a command's flag (--out) chose, saying what is there
// (holds, such as "DIR holds a finished eval") and the way out; nothing
// at path is no refusal.
func refuseOverwrite(path, holds, flag string) error {
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	return usageErr("%s: choose another %s, or remove %s to replace it", holds, flag, path)
}

// usageErr is an error for bad command-line input: exit status 2.
func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

func runVersion(args []string, s stdio) error {
	fs := newFlags("version", "version\n\nPrints the module version, the Go version, the source revision when the\nbinary was built from a repository, and the matrix library in use.", s)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	version, goVersion, revision := "unknown", "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version, goVersion = bi.Main.Version, bi.GoVersion
		modified := false
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				revision = kv.Value
			case "vcs.modified":
				modified = kv.Value == "true"
			}
		}
		if revision != "" && modified {
			revision += " (with uncommitted changes)"
		}
	}
	fmt.Fprintf(s.out, "deathstacks %s\ngo: %s\n", version, goVersion)
	if revision != "" {
		fmt.Fprintf(s.out, "revision: %s\n", revision)
	}
	fmt.Fprintf(s.out, "blas: %s\n", model.BLAS)
	return nil
}

// flagGiven reports whether the command line set the flag called name,
// under that name or an alias.
func flagGiven(fs *flag.FlagSet, name string) bool {
	_, given := givenAs(fs, name)
	return given
}

// givenName returns the name the command line gave the flag called name
// under (an alias such as --sims of --simulations), or name itself.
func givenName(fs *flag.FlagSet, name string) string {
	if as, given := givenAs(fs, name); given {
		return as
	}
	return name
}

// givenAs returns the name under which the command line set the flag
// called name, itself or an alias (which shares its Value), and false when
// it did not set it.
func givenAs(fs *flag.FlagSet, name string) (as string, given bool) {
	want := fs.Lookup(name)
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name || (want != nil && f.Value == want.Value) {
			as, given = f.Name, true
		}
	})
	return as, given
}

// simulationsFlag defines --simulations, the search setting's key (as in
// az specs and config files), with --sims, its name in earlier versions,
// as an alias of the same value.
func simulationsFlag(fs *flag.FlagSet, value int, usage string) *int {
	p := fs.Int("simulations", value, usage)
	fs.Var(fs.Lookup("simulations").Value, "sims", "the same as --simulations (its earlier name)")
	return p
}

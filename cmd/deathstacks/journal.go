package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/progress"
)

// resumable is what eval and ladder share to survive an interruption: the
// journal of their finished games in their output directory, and --resume
// to continue one.
type resumable struct {
	what     string // "eval" or "ladder", for messages
	dir      string // the output directory
	journal  string // the journal's name in dir
	finished string // the results file a finished one leaves in dir
	resume   bool   // --resume
}

func (r resumable) path() string { return filepath.Join(r.dir, r.journal) }

// check refuses, before any player is built, to resume what has no
// journal and to start afresh over a journal, whose games would be lost.
func (r resumable) check() error {
	_, err := os.Lstat(r.path())
	switch exists := err == nil; {
	case r.resume && !exists:
		if _, err := os.Stat(filepath.Join(r.dir, r.finished)); err == nil {
			return usageErr("%s holds a finished %s; nothing to resume", r.dir, r.what)
		}
		return usageErr("no unfinished %s in %s", r.what, r.dir)
	case !r.resume && exists:
		h, played, err := arena.ReadJournal(r.path())
		if err != nil {
			return usageErr("%s holds an unfinished %s whose journal does not read: %v", r.dir, r.what, err)
		}
		return usageErr("%s holds an unfinished %s (%s played of %d): continue it with the same command and --resume, or choose another --out",
			r.dir, r.what, count(len(played), "game", "games"), h.Total)
	}
	return nil
}

// open starts the journal of the games that header describes, or with
// --resume continues the one there after checking it is of the same games.
// It returns the games played so far and the command line that started
// them, which is the one that replays them.
func (r resumable) open(header arena.JournalHeader) (*arena.Journal, []arena.GameRecord, string, error) {
	if !r.resume {
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return nil, nil, "", err
		}
		j, err := arena.CreateJournal(r.path(), header)
		return j, nil, header.Command, err
	}
	j, was, played, err := arena.ContinueJournal(r.path())
	if err != nil {
		return nil, nil, "", usageErr("%v", err)
	}
	if err := was.Mismatch(header); err != nil {
		j.Close()
		return nil, nil, "", usageErr("%s: %v", r.path(), err)
	}
	return j, played, was.Command, nil
}

// play runs play, which plays the games not in the journal, with a context
// that Ctrl-C or SIGTERM ends, and an onGame that journals each finished
// game and counts it on bar, a progress bar of total games, which starts
// at the played games. A signal makes it an error (status 1) that says how far
// the games came and the command line that continues them, again.
func (r resumable) play(s stdio, j *arena.Journal, played, total int, quiet bool, again string, play func(ctx context.Context, onGame func(arena.GameRecord), bar *progress.Bar) error) error {
	signalled, stop := stopOnSignal(s)
	defer stop()
	ctx, cancel := context.WithCancel(signalled)
	defer cancel()
	bar := progress.New(s.err, total, r.what, "games", quiet)
	bar.AddPrior(played)
	done := played
	var journalErr error
	err := play(ctx, func(rec arena.GameRecord) {
		if journalErr != nil {
			return
		}
		if journalErr = j.Append(rec); journalErr != nil {
			cancel() // a game that cannot be kept is not worth playing on for
			return
		}
		done++
		bar.Add(1)
	}, bar)
	bar.Finish()
	switch {
	case journalErr != nil:
		return journalErr
	case errors.Is(err, arena.ErrPlayedGame):
		return usageErr("%s: %v", r.path(), err)
	case err != nil && signalled.Err() != nil:
		return &exitError{code: 1, err: fmt.Errorf("stopped after %d of %d games; continue with: %s", done, total, again)}
	}
	return err
}

// stopOnSignal returns a context that Ctrl-C or SIGTERM ends, saying so on
// s.err; a second signal then ends the process at once. stop releases the
// signals.
func stopOnSignal(s stdio) (ctx context.Context, stop func()) {
	ctx, release := signal.NotifyContext(s.stopContext(), os.Interrupt, syscall.SIGTERM)
	said := make(chan struct{})
	unhook := context.AfterFunc(ctx, func() {
		defer close(said)
		release()
		fmt.Fprintln(s.err, "\nstopping: the games in progress are dropped and played again on --resume (interrupt again to quit at once)")
	})
	return ctx, func() {
		if !unhook() { // it has started: its line comes before any other
			<-said
		}
		release()
	}
}

// resumeCommand returns the command line that continues the games of the
// command name run with args: the same with --resume, and --out dir if it
// was not given.
func resumeCommand(name string, args []string, resume, outGiven bool, dir string) string {
	again := append([]string(nil), args...)
	if !outGiven {
		again = append(again, "--out", dir)
	}
	if !resume {
		again = append(again, "--resume")
	}
	return commandLine(name, again)
}

package main

import (
	"context"
	"errors"

	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/progress"
	"github.com/deathstacks/deathstacks/train/report"
)

// resumable is what eval and ladder share to survive an interruption: the
// journal of their finished games in their output directory, and --resume
// to continue one.
type resumable struct {
	what   string        // "eval" or "ladder", for messages
	out    report.Folder // the output directory and its files
	resume bool          // --resume
}

// output is the output directory with what the command asks of it.
func (r resumable) output() report.Output {
	return report.Output{Folder: r.out, What: r.what, Resume: r.resume, OutName: "--out", Continue: "the same command and --resume"}
}

func (r resumable) path() string { return r.out.Path(r.out.Journal) }

// check refuses, before any player is built, to resume what has no
// journal, and to start afresh over a journal or a finished result, which
// would be lost ([report.Output.Check]): a usage error.
func (r resumable) check() error {
	if err := r.output().Check(); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// open starts the journal of the games that header describes, or with
// --resume continues the one there after checking it is of the same games.
// It returns the games played so far and the command line that started
// them, which is the one that replays them.
func (r resumable) open(header arena.JournalHeader) (*arena.Journal, []arena.GameRecord, string, error) {
	j, played, command, _, err := r.output().Open(header)
	if err != nil && r.resume {
		return nil, nil, "", usageErr("%v", err)
	}
	return j, played, command, err
}

// play runs play, which plays the games not in the journal, with a context
// that Ctrl-C or SIGTERM ends, and an onGame that journals each finished
// game and counts it on bar, a progress bar of total games, which starts
// at the played games. A signal makes it the [stoppedError] that says how
// far the games came and the command line that continues them, again; the
// bar then stays where the games stopped and says so.
func (r resumable) play(s stdio, j *arena.Journal, played, total int, quiet bool, again string, play func(ctx context.Context, onGame func(arena.GameRecord), bar *progress.Bar) error) error {
	signalled, release := onStop(s, "the games in progress are dropped and played again on --resume")
	defer release()
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
	stopped := err != nil && signalled.Err() != nil
	switch {
	case stopped:
		bar.Stop("interrupted")
	case err != nil || journalErr != nil:
		bar.Stop("failed")
	default:
		bar.Finish()
	}
	switch {
	case journalErr != nil:
		return journalErr
	case errors.Is(err, arena.ErrPlayedGame):
		return usageErr("%s: %v", r.path(), err)
	case stopped:
		return stoppedError(signalled, ofTotal(done, total, "game", "games"), again)
	}
	return err
}

// resumeCommand returns the command line that continues the games of the
// command name run with args: the same with --resume, and --out dir if it
// was not given.
func resumeCommand(name string, args []string, resume, outGiven bool, dir string) string {
	if resume {
		return againCommand(name, args, outGiven, dir)
	}
	return againCommand(name, args, outGiven, dir, "--resume")
}

// againCommand returns the command line name run with args, with --out
// dir if it was not given, and then extra.
func againCommand(name string, args []string, outGiven bool, dir string, extra ...string) string {
	again := append([]string(nil), args...)
	if !outGiven {
		again = append(again, "--out", dir)
	}
	return commandLine(name, append(again, extra...))
}

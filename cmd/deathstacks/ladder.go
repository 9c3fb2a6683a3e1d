package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/eval"
)

func runLadder(args []string, s stdio) error {
	fs := newFlags("ladder", `ladder --run DIR [--vs SPEC ...] [--games N] [--parallel P] [--every K] [--sims N] [--time D] [--seed S] [--out DIR] [--resume] [--quiet]

Rates the network snapshots of a training run (DIR/nets/net-<iteration>.dsnn)
on one Elo scale and plots Elo against training time. Each snapshot plays as
an az player with the run's search settings (from DIR/config.yaml) without
noise or temperature, at --sims simulations a move (or for --time a move,
such as 1s, then without a simulation limit unless --sims is given too),
under the run's rules and evaluation openings. To keep the cost linear in the number of snapshots, the
pairs that play are: every snapshot against every --vs baseline, every
snapshot against the next one rated, and the baselines against each other;
one Elo fit over all games rates everyone, with random at 0 (or the first
baseline). Writes into --out:
  ladder.json         {"run", "anchor", "snapshots": [{"iteration", "name",
                      "elapsed_sec", "elo", "ci95": [low, high]}], "players",
                      "pairs", settings...} (players and pairs as in eval's
                      results.json)
  ladder.md           the tables, settings and the command that replays it
  ladder-games.jsonl  every game, one a line
  ladder.png          Elo against training time (from DIR/metrics.jsonl;
                      against iteration when that lacks some snapshot)
While it plays, ladder-games.partial.jsonl in --out keeps every finished
game, and goes once the files above are written. Ctrl-C (or SIGTERM) stops
it, dropping the games in progress (status 1); the same command with
--resume (--parallel and --quiet may differ) plays only the games missing.
Without --resume, an --out holding unfinished games is refused.`, s)
	run := fs.String("run", "", "the run directory")
	var vs stringList
	fs.Var(&vs, "vs", "a baseline player (default random and greedy): "+playerListHelp)
	games := fs.Int("games", 10, "games per pair of players")
	parallel := fs.Int("parallel", runtime.NumCPU(), "games played at once")
	every := fs.Int("every", 1, "rate the snapshots whose iteration is a multiple of K, and the latest")
	sims := fs.Int("sims", 100, "simulations per move of the network players")
	moveTime := fs.Duration("time", 0, "search time per move of the network players, such as 1s (then no simulation limit unless --sims is given); 0 = none")
	seed := fs.Uint64("seed", 1, "seed of the openings and players")
	out := fs.String("out", "", "the directory to write (default the run directory)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	resume := fs.Bool("resume", false, "continue the unfinished ladder in --out: play the games it lacks")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *run == "" {
		return usageErr("--run is required")
	}
	if *moveTime != 0 && !flagGiven(fs, "sims") {
		*sims = 0
	}
	opts := eval.LadderOptions{Every: *every, Simulations: *sims, Time: *moveTime, Games: *games, Parallel: *parallel, Seed: *seed}
	if err := opts.Validate(); err != nil {
		return flagErr(err, map[string]string{"every": "every", "simulations": "sims", "time": "time", "games": "games", "parallel": "parallel"})
	}
	if len(vs) == 0 {
		vs = stringList{"random", "greedy"}
	}
	dir := *out
	if dir == "" {
		dir = *run
	}
	res := resumable{what: "ladder", dir: dir, journal: eval.LadderGamesJournal, finished: eval.LadderResultsFile, resume: *resume}
	if err := res.check(); err != nil {
		return err
	}
	models := newModels(s.err)
	defer models.Close()
	baselines, err := buildContenders(models, "--vs", vs)
	if err != nil {
		return err
	}
	runInfo, err := train.LadderRun(*run)
	if err != nil {
		return usageErr("%v", err)
	}
	opts.Run = runInfo
	ladder, err := eval.NewLadder(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	journal, played, command, err := res.open(ladder.JournalHeader(baselines, commandLine("ladder", args)))
	if err != nil {
		return err
	}
	defer journal.Close()
	snaps := ladder.Snapshots()
	total := ladder.Games(len(baselines))
	fmt.Fprintf(s.out, "ladder: %s (iterations %d to %d), %s: %s, %d at once%s\n",
		count(len(snaps), "snapshot", "snapshots"), snaps[0].Iteration, snaps[len(snaps)-1].Iteration,
		count(len(baselines), "baseline", "baselines"), count(total, "game", "games"), *parallel, resumed(len(played)))
	start := time.Now()
	var (
		rep     *eval.LadderReport
		records []eval.GameRecord
	)
	err = res.play(s, journal, len(played), total, *quiet, resumeCommand("ladder", args, *resume, true, dir),
		func(ctx context.Context, onGame func(eval.GameRecord)) (err error) {
			rep, records, err = ladder.Play(ctx, baselines, played, onGame)
			return err
		})
	if err != nil {
		return err
	}
	if err := publish(s, rep, &rep.ReportSettings, command, start, dir, records,
		eval.LadderResultsFile, eval.LadderReportFile, eval.LadderGamesFile, eval.LadderChart); err != nil {
		return err
	}
	return journal.Remove()
}

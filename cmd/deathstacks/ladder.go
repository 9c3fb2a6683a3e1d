package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/builtin"
	"github.com/deathstacks/deathstacks/train/ladder"
	"github.com/deathstacks/deathstacks/train/progress"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/table"
)

// ladderSynopsis is ladder's help: its synopsis and what it does.
const ladderSynopsis = `ladder --run [NAME=]DIR [--run [NAME=]DIR ...] [--vs SPEC ...] [--games N] [--parallel P] [--every K] [--simulations N] [--time D] [--seed S] [--out DIR] [--resume] [--quiet]

Rates the network snapshots of a training run (DIR/nets/net-<iteration>.dsnn)
on one Elo scale and plots Elo against training time. Each snapshot plays as
an az player with its search settings, as az:model= plays it (those the
snapshot carries, or for an older one DIR/config.yaml's, without noise or
temperature and with the win search given at least 500,000 positions, a
player's budget), at --simulations a move (or for --time a move, such
as 1s, then without a simulation limit unless --simulations is given too),
under the run's rules and evaluation openings. To keep the cost linear in the number of snapshots, the
pairs that play are: every snapshot against every --vs baseline, every
snapshot against the next one rated, and the baselines against each other;
one Elo fit over all games rates everyone, with the anchor at 0 (the
built-in player of 2026-12-03, kept fixed: az:model=anchor), or else
random, or else the first baseline. Strong fixed baselines keep the scale
from saturating: the anchor, alpha-beta for a time a move (--vs
alphabeta:time=200ms) and the built-in player (--vs az:sims=200, az
without model=). Writes into --out:
  ladder.json         {"run", "anchor", "snapshots": [{"iteration", "name",
                      "elapsed_sec", "elo", "ci95": [low, high]}], "players",
                      "pairs", settings...} (players and pairs as in eval's
                      results.json, with each pair's draws by kind and by
                      the side ahead and the mean plies of decided games)
  ladder.md           the tables, settings and the command that replays it
  ladder-games.jsonl  every game, one a line
  ladder.png          Elo against training time (from DIR/metrics.jsonl;
                      against iteration when that lacks some snapshot)
With several --run, one ladder rates the snapshots of all the runs in one
fit, each run's with its own search settings; the runs must share rules and
evaluation openings (env.rules, eval.opening_plies), and --out is required.
A run is called NAME, or by default its directory's base name, and its
snapshots NAME/iter-000010; the latest snapshot of each run also plays the
latest of every other run; --every applies to each run. ladder.json adds
"runs": [{"name", "dir", "search"}] and a "run" to each snapshot ("run" is
the first run's directory), ladder.md a run column, and ladder.png draws a
curve per run.
While it plays, ladder-games.partial.jsonl in --out keeps every finished
game, and goes once the files above are written. Ctrl-C (or SIGTERM) stops
it, dropping the games in progress (status 130 after Ctrl-C, 143 after
SIGTERM); the same command with --resume (--parallel and --quiet may
differ) plays only the games missing. Without --resume, an --out holding
unfinished games or a finished ladder is refused (status 2).`

// ladderFlags are ladder's flags, read and checked.
type ladderFlags struct {
	runs   []runArg
	vs     stringList     // the baselines' specs
	opts   ladder.Options // without its runs and networks
	dir    string         // --out, or the first run's directory
	resume bool
	quiet  bool
}

func runLadder(args []string, s stdio) error {
	f, err := parseLadderFlags(args, s)
	if err != nil {
		return err
	}
	res := resumable{what: "ladder", out: report.LadderFolder(f.dir), resume: f.resume}
	if err := res.check(); err != nil {
		return err
	}
	models := newModels(s.err)
	defer models.Close()
	opts := f.opts
	opts.Networks = models
	baselines, _, _, err := buildContenders(models, "--vs", f.vs)
	if err != nil {
		return err
	}
	if opts.Runs, err = readLadderRuns(f.runs); err != nil {
		return err
	}
	ladder, err := ladder.New(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	journal, played, command, err := res.open(ladder.JournalHeader(baselines, commandLine("ladder", args)))
	if err != nil {
		return err
	}
	defer journal.Close()
	total := ladder.Games(len(baselines))
	fmt.Fprintf(s.out, "ladder: %s, %s: %s, %d at once%s\n", describeRuns(ladder.Runs()),
		table.Count(len(baselines), "baseline", "baselines"), table.Count(total, "game", "games"), opts.Parallel, resumed(len(played)))
	start := time.Now()
	var (
		rep     *report.LadderReport
		records []arena.GameRecord
	)
	err = res.play(s, journal, len(played), total, f.quiet, resumeCommand("ladder", args, f.resume, true, f.dir),
		func(ctx context.Context, onGame func(arena.GameRecord), _ *progress.Bar) (err error) {
			rep, records, err = ladder.Play(ctx, baselines, played, onGame)
			return err
		})
	if err != nil {
		return err
	}
	if err := publish(s, rep, &rep.Settings, command, start, f.dir, records,
		report.LadderResultsFile, report.LadderReportFile, report.LadderGamesFile, report.LadderChart); err != nil {
		return err
	}
	return journal.Remove()
}

// parseLadderFlags reads ladder's flags and checks them; every problem is
// a usage error naming its flag.
func parseLadderFlags(args []string, s stdio) (ladderFlags, error) {
	fs := newFlags("ladder", ladderSynopsis, s)
	var f ladderFlags
	var runs stringList
	fs.Var(&runs, "run", "a run directory, DIR or NAME=DIR (repeat for several runs)")
	fs.Var(&f.vs, "vs", "a baseline player (default random, greedy and anchor="+report.AnchorSpec+"): "+playerListHelp)
	games := fs.Int("games", 10, "games per pair of players")
	parallel := fs.Int("parallel", runtime.NumCPU(), "games played at once")
	every := fs.Int("every", 1, "rate the snapshots whose iteration is a multiple of K, and the latest, of each run")
	sims := simulationsFlag(fs, 100, "simulations per move of the network players")
	moveTime := fs.Duration("time", 0, "search time per move of the network players, such as 1s (then no simulation limit unless --simulations is given); 0 = none")
	seed := fs.Uint64("seed", 1, "seed of the openings and players")
	out := fs.String("out", "", "the directory to write (default the run directory; required with several runs)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&f.resume, "resume", false, "continue the unfinished ladder in --out: play the games it lacks")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if len(runs) == 0 {
		return f, usageErr("--run is required")
	}
	var err error
	if f.runs, err = parseRunArgs(runs); err != nil {
		return f, err
	}
	if len(f.runs) > 1 && *out == "" {
		return f, usageErr("--out is required with several runs: there is no one run directory to write into")
	}
	if *moveTime != 0 && !flagGiven(fs, "simulations") {
		*sims = 0
	}
	f.opts = ladder.Options{Every: *every, Simulations: *sims, Time: *moveTime, Games: *games, Parallel: *parallel, Seed: *seed}
	if err := f.opts.Validate(); err != nil {
		return f, flagErr(err, map[string]string{"every": "every", "simulations": givenName(fs, "simulations"), "time": "time", "games": "games", "parallel": "parallel"})
	}
	if len(f.vs) == 0 {
		f.vs = stringList{"random", "greedy", builtin.AnchorModel + "=" + report.AnchorSpec}
	}
	if f.dir = *out; f.dir == "" {
		f.dir = f.runs[0].dir
	}
	return f, nil
}

// readLadderRuns reads what the ladder needs of each run from its
// directory.
func readLadderRuns(runs []runArg) ([]ladder.Run, error) {
	out := make([]ladder.Run, 0, len(runs))
	for _, r := range runs {
		info, err := train.LadderRun(r.dir)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		info.Name = r.name
		out = append(out, info)
	}
	return out, nil
}

// runArg is a run of the ladder command: its name and directory.
type runArg struct{ name, dir string }

// parseRunArgs reads the --run arguments: NAME=DIR, or DIR for a run
// called by its directory's base name. A directory with = in its name
// is given as NAME=DIR, or with a / before the = (./a=b). Two runs of one
// name are refused: their snapshots' players would be called alike.
func parseRunArgs(args []string) ([]runArg, error) {
	var out []runArg
	for _, arg := range args {
		r := runArg{dir: arg}
		if name, dir, ok := strings.Cut(arg, "="); ok && !strings.ContainsRune(name, '/') && !strings.ContainsRune(name, filepath.Separator) {
			if name == "" || dir == "" {
				return nil, usageErr("--run %q: want NAME=DIR or DIR", arg)
			}
			r = runArg{name: name, dir: dir}
		}
		if r.name == "" {
			r.name = filepath.Base(filepath.Clean(r.dir))
		}
		for _, o := range out {
			if o.name == r.name {
				return nil, usageErr("--run: two runs are called %s (%s and %s): name each with --run NAME=DIR", r.name, o.dir, r.dir)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// describeRuns says which snapshots of which runs a ladder rates, such as
// "2 snapshots (iterations 2 to 3)" or, with several runs, "2 runs, 5
// snapshots (long: iterations 1 to 2; short: iterations 1 to 3)".
func describeRuns(runs []ladder.Run) string {
	n := 0
	spans := make([]string, len(runs))
	for i, r := range runs {
		n += len(r.Snapshots)
		spans[i] = fmt.Sprintf("iterations %d to %d", r.Snapshots[0].Iteration, r.Snapshots[len(r.Snapshots)-1].Iteration)
		if len(runs) > 1 {
			spans[i] = r.Name + ": " + spans[i]
		}
	}
	text := fmt.Sprintf("%s (%s)", table.Count(n, "snapshot", "snapshots"), strings.Join(spans, "; "))
	if len(runs) > 1 {
		text = fmt.Sprintf("%d runs, %s", len(runs), text)
	}
	return text
}

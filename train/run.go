package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/internal/cputime"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/progress"
	"github.com/deathstacks/deathstacks/train/remotegames"
	"github.com/deathstacks/deathstacks/train/replay"
	"github.com/deathstacks/deathstacks/train/runconfig"
	"github.com/deathstacks/deathstacks/train/table"
)

// RunOptions are the settings of one training session beyond the config.
type RunOptions struct {
	// Dir is the run directory; empty means cfg.RunDir(). Run holds its
	// lock ([checkpoint.LockRunDir]) while it trains there: a Dir another
	// process trains in is a [*RunDirError].
	Dir string
	// Resume continues from the latest complete checkpoint in Dir; a Dir
	// without one, or holding a run of another config name, is a
	// [*RunDirError]. Without Resume, a Dir that already holds checkpoints
	// is one too, so that no run is overwritten by mistake.
	Resume bool
	// Iterations stops the run once this many iterations exist in total,
	// counting those before a resume; 0 keeps the config's. It becomes
	// the run's target: the run's config.yaml (and checkpoints) keep it as
	// the config's iterations, so that a resume without it goes on to it.
	Iterations int
	// TimeLimit, when more than 0, replaces the config's time_limit, as
	// Iterations replaces its iterations, and the run keeps it the same way.
	TimeLimit time.Duration
	// Log receives progress bars (on a terminal) or log lines; nil is
	// silent.
	Log io.Writer
	// Quiet keeps only the one summary line per iteration.
	Quiet bool
	// Remote, when set, adds the games of other machines to each
	// iteration, after the local self-play.
	Remote remotegames.Source
	// NoSelfPlay leaves self-play to Remote: each iteration waits for
	// cfg.SelfPlay.GamesPerIteration games from it.
	NoSelfPlay bool
	// OnNetwork, when set, hears of every network self-play uses.
	OnNetwork NetworkHook
	// Now is the clock of the run's training time (its time limit and the
	// schedule that follows it); nil is time.Now.
	Now func() time.Time
}

// Summary is what a session did.
type Summary struct {
	Dir string
	// Iteration is the last completed iteration.
	Iteration int
	// Target is the iterations the run stops at; 0 when only its time
	// limit stops it.
	Target int
	// TimeLimit is the training time the run stops at; 0 when none.
	TimeLimit time.Duration
	// Session is the iterations this call of Run completed: 0 when a
	// resumed run had already reached its target or time limit.
	Session int
	// Stopped is set when ctx ended the session before its target.
	Stopped bool
}

// Run trains a network by self-play: each iteration plays
// cfg.SelfPlay.GamesPerIteration games with the configured search (a Gumbel
// root over PUCT by default) on the current
// network (all games in parallel through one batching server), adds their
// positions to the replay buffer, takes cfg.Optim.StepsPerIteration
// training steps on samples drawn from it, every cfg.Eval.Every iterations
// plays the baselines, then appends a line to metrics.jsonl, redraws the
// plots and writes a checkpoint atomically.
//
// When ctx ends during self-play or evaluation, the iteration in progress
// is dropped and Run returns with Stopped set: the last checkpoint is
// complete. When it ends during training, the iteration is finished and
// saved first.
func Run(ctx context.Context, cfg runconfig.Config, opts RunOptions) (Summary, error) {
	if opts.Iterations > 0 {
		cfg.Iterations = opts.Iterations
	}
	if opts.TimeLimit > 0 {
		cfg.TimeLimit = opts.TimeLimit
	}
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	dir := opts.Dir
	if dir == "" {
		dir = cfg.RunDir()
	}
	if opts.NoSelfPlay && opts.Remote == nil {
		return Summary{Dir: dir}, errors.New("train: no self-play at all: NoSelfPlay needs a Remote source")
	}
	if err := checkRunDir(dir, cfg.Name, opts.Resume); err != nil {
		return Summary{Dir: dir}, err
	}
	r := &runner{cfg: cfg, dir: dir, opts: opts, log: opts.Log, now: opts.Now}
	defer r.release()
	if r.log == nil {
		r.log = io.Discard
	}
	if r.now == nil {
		r.now = time.Now
	}
	if err := r.open(); err != nil {
		return Summary{Dir: dir}, err
	}
	return r.loop(ctx)
}

// RunDirError is a run directory that does not fit the request: nothing
// to resume in it, a run that a new one would overwrite, or not a
// directory at all. It is the caller's mistake, not a failure of training.
type RunDirError struct {
	Dir     string
	Problem string
}

func (e *RunDirError) Error() string { return "run directory " + e.Dir + ": " + e.Problem }

// checkRunDir checks, before anything is written, that dir can hold the
// session: with resume, a run of the config named name to continue; without,
// a place for a new run.
func checkRunDir(dir, name string, resume bool) error {
	bad := func(format string, a ...any) error {
		return &RunDirError{Dir: dir, Problem: fmt.Sprintf(format, a...)}
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && resume:
		return bad("does not exist: no run to resume (check the path, or start a run without --resume)")
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return bad("%v", err)
	case !info.IsDir():
		return bad("is a file, not a directory")
	}
	existing, err := checkpoint.List(dir)
	if err != nil {
		return bad("%v", err)
	}
	switch {
	case resume && len(existing) == 0:
		return bad("holds no checkpoint: no run to resume (check the path, or start a run without --resume)")
	case !resume && len(existing) > 0:
		return bad("already holds a run (%s): continue it with --resume, or choose another --out", table.Count(len(existing), "checkpoint", "checkpoints"))
	case !resume:
		return nil
	}
	saved, err := runconfig.LoadSaved(filepath.Join(dir, runconfig.File))
	if err == nil && saved.Name != name {
		return bad("holds a run of config %q, not %q: resume it with its own config, or choose another --out", saved.Name, name)
	}
	return nil
}

// runner is one training session.
type runner struct {
	cfg runconfig.Config
	dir string
	// unlock releases the run directory's lock, nil until it is held.
	unlock  func()
	opts    RunOptions
	log     io.Writer
	trainer *model.Trainer
	// player is the run's player: the trained network's weights averaged
	// over its last iterations (optim.average_iterations). Snapshots,
	// checkpoints and evaluations play it; self-play the trainer's.
	player *model.Network
	replay *replay.Buffer
	// lateStarts are the moves of the last iteration's games, which
	// selfplay.late_start_share starts games from (none after a resume).
	lateStarts [][]env.Move
	state      checkpoint.State
	now        func() time.Time
	// plan maps the run's progress to the learning-rate schedule's when
	// that follows the run (optim.total_steps 0).
	plan runconfig.SchedulePlan
	// carry takes the remote games from the start of a checkpoint's write
	// to the next iteration's Collect; nil when none does.
	carry *feeding
	// started is when the iteration in progress started, by the wall
	// clock: for [runner.shownElapsed].
	started time.Time
	// cpuBase is the run's CPU time at the checkpoint it went on from
	// less the process's CPU time then: with the process's CPU time now,
	// the run's (checkpoint.State.CPUSec).
	cpuBase float64
}

func metricsPath(dir string) string { return filepath.Join(dir, metrics.File) }

// open loads the latest checkpoint or starts a new run.
func (r *runner) open() error {
	if err := r.lock(); err != nil {
		return err
	}
	// A process killed while writing a file leaves its temporary file.
	for _, d := range []string{r.dir, filepath.Join(r.dir, checkpoint.NetsDir)} {
		stale, _ := filepath.Glob(filepath.Join(d, ".*.tmp-*"))
		for _, f := range stale {
			os.Remove(f)
		}
	}
	start := r.fresh
	if r.opts.Resume {
		start = r.resume
	}
	// The directory is made once the run has its network: a run refused
	// (a bad init, say) leaves nothing behind.
	if err := start(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(r.dir, checkpoint.NetsDir), 0o755); err != nil {
		return fmt.Errorf("run directory: %w", err)
	}
	if err := r.lock(); err != nil {
		return err
	}
	if r.opts.Remote != nil {
		// Actors fill a learner's window within seconds of their first
		// games (80,000 positions: 1.3 s at 2,500 games a second): its
		// memory is taken now, not while they wait.
		r.replay.Reserve()
	}
	text, err := r.cfg.YAML()
	if err != nil {
		return err
	}
	r.state.Config = string(text)
	return codec.WriteFileAtomic(filepath.Join(r.dir, runconfig.File), func(w io.Writer) error {
		_, err := w.Write(text)
		return err
	})
}

// lock holds the run directory for the session (checkpoint.LockRunDir)
// from before anything in it changes, or, for a directory still to be
// made, from when it is made; another process training there is a
// [*RunDirError]. It does nothing once the lock is held.
func (r *runner) lock() error {
	if r.unlock != nil {
		return nil
	}
	if _, err := os.Stat(r.dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := checkpoint.LockRunDir(r.dir)
	switch {
	case errors.Is(err, checkpoint.ErrLocked):
		return &RunDirError{Dir: r.dir, Problem: err.Error() + ": stop it first, or choose another --out"}
	case err != nil:
		return fmt.Errorf("train: %w", err)
	}
	r.unlock = unlock
	return nil
}

// release lets go of the run directory's lock, if held.
func (r *runner) release() {
	if r.unlock != nil {
		r.unlock()
		r.unlock = nil
	}
}

func (r *runner) fresh() error {
	if err := r.readAhead(nil); err != nil {
		return err
	}
	net, err := r.initialNetwork()
	if err != nil {
		return err
	}
	if r.trainer, err = model.NewTrainer(net, r.cfg.Optim.TrainerConfig()); err != nil {
		return err
	}
	r.player = net.Clone() // the first iteration's blend replaces its weights
	if r.replay, err = replay.New(r.cfg.Replay); err != nil {
		return err
	}
	// Metrics of an earlier run that never saved a checkpoint are stale.
	if err := os.Remove(metricsPath(r.dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	from := ""
	if r.cfg.Init != "" {
		from = fmt.Sprintf(", from %s (%d training steps)", r.cfg.Init, net.Steps())
	}
	fmt.Fprintf(r.log, "new run in %s: network %v, %d parameters%s\n", r.dir, r.cfg.Model, net.NumParams(), from)
	return nil
}

// initialNetwork returns a new run's network: the config's init, or
// random weights drawn from the run's seed.
func (r *runner) initialNetwork() (*model.Network, error) {
	if r.cfg.Init == "" {
		return model.New(r.cfg.Model, r.networkRNG())
	}
	net, err := LoadNetwork(r.cfg.Init)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	// A run with more blocks grows the network: the added ones start as
	// the identity, so the run begins where the init network is.
	have, want := net.Config().Blocks, r.cfg.Model.Blocks
	check := r.cfg.Model
	check.Blocks = min(have, want)
	if err := net.CheckConfig(check); err != nil {
		return nil, &configs.FieldError{Key: "init", Msg: fmt.Sprintf("is %q: its %v (model: must match it, or ask for more blocks)", r.cfg.Init, err)}
	}
	if have < want {
		if net, err = net.Deepen(want, r.networkRNG()); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		fmt.Fprintf(r.log, "deepened %s from %d to %d residual blocks (the added ones start as the identity)\n", r.cfg.Init, have, want)
	}
	net.Meta = map[string]string{} // a player's or a snapshot's: the run's files write their own
	return net, nil
}

// networkRNG draws a new run's weights from its seed.
func (r *runner) networkRNG() *rand.Rand {
	return rand.New(rand.NewPCG(r.cfg.Seed, 0x6e6574)) // "net"
}

func (r *runner) resume() error {
	path, skipped, err := checkpoint.Latest(r.dir)
	for _, s := range skipped {
		fmt.Fprintf(r.log, "warning: skipping damaged checkpoint %v\n", s)
	}
	if err != nil {
		return err
	}
	st, body, err := checkpoint.Open(path)
	if err != nil {
		return fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	if err := r.readAhead(st.Remote); err != nil {
		return err
	}
	ck, err := checkpoint.Decode(path, st, body, r.cfg)
	if err != nil {
		return err
	}
	if err := ck.Trainer.Network().CheckConfig(r.cfg.Model); err != nil {
		return fmt.Errorf("resume %s: %w", path, err)
	}
	r.trainer, r.player, r.replay, r.state = ck.Trainer, ck.Player, ck.Replay, ck.State
	r.plan = runconfig.ResumePlan(r.state.ScheduleProgress, r.cfg.RunProgress(r.state.ElapsedSec, float64(r.state.Iteration)), r.state.Iteration)
	if err := metrics.Truncate(metricsPath(r.dir), r.state.Iteration); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	fmt.Fprintf(r.log, "resuming %s at iteration %d (%d positions in the replay buffer)\n", path, r.state.Iteration, r.replay.Len())
	return nil
}

// readAhead lets a remote source that reads ahead start from cursor, the
// position the run goes on from.
func (r *runner) readAhead(cursor json.RawMessage) error {
	src, ok := r.opts.Remote.(remotegames.ReadAheadSource)
	if !ok {
		return nil
	}
	if err := src.ReadAhead(cursor); err != nil {
		return fmt.Errorf("remote games: %w", err)
	}
	return nil
}

// loop runs iterations until the target, the time limit or ctx.
func (r *runner) loop(ctx context.Context) (Summary, error) {
	target := r.cfg.Iterations
	sum := Summary{Dir: r.dir, Iteration: r.state.Iteration, Target: target, TimeLimit: r.cfg.TimeLimit}
	first := r.state.Iteration
	sessionStart, before := r.now(), r.state.ElapsedSec
	elapsed := func() float64 { return before + r.now().Sub(sessionStart).Seconds() }
	r.cpuBase = r.state.CPUSec - cputime.Process()
	evals, err := lanes(r.trainer.Network(), r.cfg.Server)
	if err != nil {
		return sum, err
	}
	defer func() {
		if r.carry != nil {
			// Its games are in no checkpoint: a resumed run takes them again.
			_, _, _ = r.carry.stop()
		}
	}()
	if err := r.publish(); err != nil {
		return sum, err
	}
	for {
		sum.Session = r.state.Iteration - first
		nothing := ""
		if sum.Session == 0 {
			nothing = "nothing left to do: "
		}
		switch {
		case r.reachedTarget():
			fmt.Fprintf(r.log, "done: %s%s in %s, the run's target\n", nothing, table.Count(r.state.Iteration, "iteration", "iterations"), r.dir)
			return sum, nil
		case r.reachedTimeLimit(elapsed()):
			fmt.Fprintf(r.log, "done: %sthe time limit (%v) is reached after %s in %s\n", nothing, r.cfg.TimeLimit, table.Count(r.state.Iteration, "iteration", "iterations"), r.dir)
			return sum, nil
		case ctx.Err() != nil:
			sum.Stopped = true
			return sum, nil
		}
		stopped, err := r.iteration(ctx, evals, elapsed)
		if err != nil {
			return sum, fmt.Errorf("iteration %d: %w", r.state.Iteration+1, err)
		}
		if stopped {
			fmt.Fprintf(r.log, "stopped: iteration %d was cut short; %s resumes from iteration %d\n", r.state.Iteration+1, r.dir, r.state.Iteration)
			sum.Stopped = true
			return sum, nil
		}
		sum.Iteration = r.state.Iteration
	}
}

// iteration runs one iteration; stopped reports that ctx cut it short
// before anything was saved.
func (r *runner) iteration(ctx context.Context, evals []mcts.Evaluator, elapsed func() float64) (stopped bool, err error) {
	it := r.state.Iteration + 1
	r.started = time.Now()
	m := metrics.Iteration{Iteration: it}
	var stats selfPlayStats
	if !r.opts.NoSelfPlay {
		if stats, stopped, err = r.selfPlay(ctx, evals, it, &m); stopped || err != nil {
			return stopped, err
		}
	}
	var remote remotegames.Result
	if r.opts.Remote != nil {
		if remote, err = r.collect(ctx, it); err != nil || ctx.Err() != nil {
			return ctx.Err() != nil, err
		}
	}
	if remote, err = r.trainAndAverage(it, &m, elapsed, remote); err != nil {
		return false, err
	}
	if e := r.cfg.Eval; e.Every > 0 && it%e.Every == 0 {
		if err := r.evaluate(ctx, it, &m); err != nil {
			if ctx.Err() == nil {
				return false, err
			}
			fmt.Fprintf(r.log, "evaluation of iteration %d cut short\n", it)
		}
	}
	saved := r.state.Remote
	r.advance(it, elapsed(), stats, remote, &m)
	if err := r.save(it, saved, m); err != nil {
		return false, err
	}
	fmt.Fprintln(r.log, summaryLine(m, r.cfg))
	return false, r.publish()
}

// selfPlay plays the iteration's games on the lanes' evaluators into the
// replay buffer and fills their figures into m; stopped reports that ctx
// cut it short.
func (r *runner) selfPlay(ctx context.Context, evals []mcts.Evaluator, it int, m *metrics.Iteration) (stats selfPlayStats, stopped bool, err error) {
	sp := newSelfPlayer(r.cfg, r.cfg.RunProgress(r.state.ElapsedSec, float64(it-1)))
	if r.cfg.SelfPlay.ProgressiveSimulations > 0 {
		m.SelfPlaySimulations = sp.search.Simulations
	}
	bar := progress.New(r.log, r.cfg.SelfPlay.GamesPerIteration, stage(r.cfg, it, "self-play", r.shownElapsed()), "games", r.opts.Quiet)
	seed := iterationSeed(r.cfg.Seed, it)
	sp.starts = r.lateStarts
	var starts [][]env.Move // this iteration's games, for the next one's late starts
	add := inOrder(func(g SelfPlayGame) error {
		for _, s := range g.Samples {
			if err := r.replay.Add(s); err != nil {
				return err
			}
		}
		if r.cfg.SelfPlay.LateStartShare > 0 && len(g.Moves) >= 2 {
			starts = append(starts, g.Moves)
		}
		return nil
	})
	stats, err = sp.runSelfPlay(ctx, evals, r.cfg.SelfPlay.GamesPerIteration, r.cfg.SelfPlay.ParallelGames, seed, func(i int, g SelfPlayGame) error {
		bar.Describe(stage(r.cfg, it, "self-play", r.shownElapsed()))
		bar.Add(1)
		return add(i, g)
	})
	if ctx.Err() != nil {
		bar.Stop("interrupted")
		return stats, true, nil
	}
	if err != nil {
		bar.Stop("failed")
		return stats, false, err
	}
	bar.Finish()
	r.lateStarts = starts
	stats.fill(m)
	return stats, false, nil
}

// inOrder returns a function that takes games numbered from 0 in any
// order and hands them to add in their numbers' order, each as soon as
// every game numbered lower has come: the replay buffer then holds an
// iteration's games in the same order whichever finish first, and a run
// counted in iterations repeats itself exactly from its seed.
func inOrder(add func(SelfPlayGame) error) func(int, SelfPlayGame) error {
	waiting := map[int]SelfPlayGame{}
	next := 0
	return func(i int, g SelfPlayGame) error {
		waiting[i] = g
		for {
			g, ok := waiting[next]
			if !ok {
				return nil
			}
			delete(waiting, next)
			next++
			if err := add(g); err != nil {
				return err
			}
		}
	}
}

// trainAndAverage trains the network, not interrupted, so that a stop
// during it still saves; the remote games go on entering the replay buffer
// meanwhile and are added to remote. Then it blends the trained network
// into the averaged player.
func (r *runner) trainAndAverage(it int, m *metrics.Iteration, elapsed func() float64, remote remotegames.Result) (remotegames.Result, error) {
	feeding := r.feed(remotegames.Request{Saved: r.state.Remote, Version: r.state.Iteration}, remote)
	err := r.train(it, m, elapsed)
	remote, _, ferr := feeding.stop()
	if err == nil {
		err = ferr
	}
	if err != nil {
		return remote, err
	}
	if r.opts.Remote != nil {
		remote.Fill(m)
	}
	return remote, r.player.Blend(r.trainer.Network(), r.cfg.Optim.AverageShare(it))
}

// advance records iteration it as done in the run's state, with
// elapsedSec of training time and the games played and taken, and fills
// the run's totals into m.
func (r *runner) advance(it int, elapsedSec float64, stats selfPlayStats, remote remotegames.Result, m *metrics.Iteration) {
	r.state.Iteration = it
	r.state.ElapsedSec = elapsedSec
	if cpu := cputime.Process(); cpu > 0 {
		r.state.CPUSec = r.cpuBase + cpu
	}
	r.state.ScheduleProgress = r.plan.Progress(r.cfg.RunProgress(r.state.ElapsedSec, float64(it)))
	r.state.Created = time.Now().UTC()
	r.state.Games += int64(stats.Games + remote.Games)
	r.state.Positions += int64(stats.Positions + remote.Positions)
	if remote.Cursor != nil {
		r.state.Remote = remote.Cursor
	}
	r.state.TrainSteps = r.trainer.Network().Steps()
	m.ElapsedSec = r.state.ElapsedSec
	m.CPUSec = r.state.CPUSec
	m.Cores = runtime.GOMAXPROCS(0)
	m.BufferSize = r.replay.Len()
}

// save writes iteration it: its metrics line first, so that a crash before
// the checkpoint leaves a line that resuming cuts off again, then the
// network's snapshot and the checkpoint, pruning the older ones, and the
// plots. saved is the remote cursor of the previous checkpoint.
func (r *runner) save(it int, saved json.RawMessage, m metrics.Iteration) error {
	if err := metrics.Append(metricsPath(r.dir), m); err != nil {
		return err
	}
	// The network carries the run's search settings, in its snapshot and
	// in the checkpoint alike, so that either plays as the run searched.
	meta, err := snapshotMeta(r.cfg, it)
	if err != nil {
		return err
	}
	maps.Copy(r.trainer.Network().Meta, meta)
	maps.Copy(r.player.Meta, meta)
	if err := r.player.Save(checkpoint.NetPath(r.dir, it)); err != nil {
		return err
	}
	// The checkpoint holds the buffer as it is now, the games up to its
	// cursor: the snapshot is taken before the next games come in.
	snap := r.replay.Snapshot()
	if r.opts.Remote != nil && !r.last() {
		// The remote games go on entering the replay buffer while the
		// checkpoint is written, for the next iteration; the stream keeps
		// them until its checkpoint.
		r.carry = r.feed(remotegames.Request{Saved: saved, Version: it, First: true}, remotegames.Result{Cursor: r.state.Remote})
	}
	if err := checkpoint.Save(checkpoint.Path(r.dir, it), r.state, r.player, r.trainer, snap); err != nil {
		return err
	}
	if err := checkpoint.Prune(r.dir, r.cfg.Output.KeepLast); err != nil {
		return fmt.Errorf("prune checkpoints: %w", err)
	}
	if r.cfg.Output.Plot {
		if err := metrics.PlotRun(r.dir); err != nil {
			fmt.Fprintf(r.log, "warning: plots: %v\n", err)
		}
	}
	return nil
}

// last reports that the run stops after the iteration it has just
// completed (its target or time limit reached).
func (r *runner) last() bool {
	return r.reachedTarget() || r.reachedTimeLimit(r.state.ElapsedSec)
}

// reachedTarget reports that the run has made the iterations it is to make.
func (r *runner) reachedTarget() bool {
	return r.cfg.Iterations > 0 && r.state.Iteration >= r.cfg.Iterations
}

// reachedTimeLimit reports that elapsedSec of training time are past the
// run's time limit.
func (r *runner) reachedTimeLimit(elapsedSec float64) bool {
	return r.cfg.TimeLimit > 0 && elapsedSec >= r.cfg.TimeLimit.Seconds()
}

// collect takes the iteration's games from the remote source: those taken
// while the last checkpoint was written, then those after them.
func (r *runner) collect(ctx context.Context, it int) (remotegames.Result, error) {
	var res remotegames.Result
	req := remotegames.Request{Cursor: r.state.Remote, Saved: r.state.Remote, Version: r.state.Iteration, First: true}
	if r.carry != nil {
		var err error
		res, req.First, err = r.carry.stop()
		r.carry = nil
		if err != nil {
			return res, err
		}
		req.Cursor = res.Cursor
	}
	carried := res.Games
	if r.opts.NoSelfPlay {
		req.MinGames = max(0, r.cfg.SelfPlay.GamesPerIteration-carried)
	}
	start := time.Now()
	more, err := r.opts.Remote.Collect(ctx, req, r.replay.Add)
	res.Merge(more)
	if err != nil && ctx.Err() == nil {
		return res, fmt.Errorf("remote games: %w", err)
	}
	took := fmt.Sprintf("in %.1fs", time.Since(start).Seconds())
	if carried > 0 {
		took = fmt.Sprintf("(%d of them taken while the last checkpoint was written, %d then) %s", carried, more.Games, took)
	}
	fmt.Fprintf(r.log, "iteration %d: %s from %s %s (dropped: %d stale, %d invalid, %d duplicate)\n",
		it, table.Count(res.Games, "remote game", "remote games"), table.Count(res.Actors, "actor", "actors"),
		took, res.Stale, res.Invalid, res.Duplicate)
	return res, nil
}

// publish hands the current network to the OnNetwork hook.
func (r *runner) publish() error {
	if r.opts.OnNetwork == nil {
		return nil
	}
	if err := r.opts.OnNetwork(r.state.Iteration, r.trainer.Network()); err != nil {
		return fmt.Errorf("publish network %d: %w", r.state.Iteration, err)
	}
	return nil
}

// shownElapsed is the run's training time for the progress bars: that
// of the iteration before this one, and the wall time since this one
// started, read without the run's clock (RunOptions.Now), which the bars
// must not advance.
func (r *runner) shownElapsed() float64 {
	return r.state.ElapsedSec + time.Since(r.started).Seconds()
}

// train takes the iteration's training steps and records their mean
// losses; a schedule that follows the run is moved to the run's progress
// before every step.
func (r *runner) train(it int, m *metrics.Iteration, elapsed func() float64) (err error) {
	steps, batchSize := r.cfg.Optim.StepsPerIteration, r.cfg.Optim.BatchSize
	if r.replay.Len() < batchSize {
		fmt.Fprintf(r.log, "iteration %d: %d positions in the buffer, fewer than a batch (%d): no training yet\n", it, r.replay.Len(), batchSize)
		return nil
	}
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(it)))
	bar := progress.New(r.log, steps, stage(r.cfg, it, "training", r.shownElapsed()), "steps", r.opts.Quiet)
	defer func() {
		if err != nil {
			bar.Stop("failed") // the bar stays where the steps stopped
			return
		}
		bar.Finish()
	}()
	start := time.Now()
	var batch replay.Batch
	var sum model.Losses
	for i := 0; i < steps; i++ {
		if err := r.replay.Sample(&batch, batchSize, rng); err != nil {
			return err
		}
		if r.cfg.Optim.FollowsRun() {
			p := r.plan.Progress(r.cfg.RunProgress(elapsed(), float64(it-1)+float64(i)/float64(steps)))
			if err := r.trainer.SetProgress(p); err != nil {
				return err
			}
		}
		l, err := r.trainer.Step(batch.Samples)
		if err != nil {
			return err
		}
		sum.Policy += l.Policy
		sum.Value += l.Value
		sum.L2 += l.L2
		sum.Total += l.Total
		sum.Entropy += l.Entropy
		sum.Reply += l.Reply
		sum.Ownership += l.Ownership
		sum.Score += l.Score
		sum.SoftPolicy += l.SoftPolicy
		m.LR = l.LR
		bar.Describe(stage(r.cfg, it, "training", r.shownElapsed()))
		bar.Add(1)
	}
	n := float64(steps)
	m.PolicyLoss, m.ValueLoss, m.L2Loss = sum.Policy/n, sum.Value/n, sum.L2/n
	m.TotalLoss, m.PolicyEntropy = sum.Total/n, sum.Entropy/n
	m.ReplyLoss, m.OwnershipLoss, m.ScoreLoss, m.SoftPolicyLoss = sum.Reply/n, sum.Ownership/n, sum.Score/n, sum.SoftPolicy/n
	m.TrainSteps = steps
	m.TrainSec = time.Since(start).Seconds()
	m.SamplesPerSec = float64(steps*batchSize) / m.TrainSec
	return nil
}

// iterationSeed derives the seed of an iteration's games from the run's.
func iterationSeed(seed uint64, it int) uint64 { return env.GameSeed(seed, -it-1) }

// fill copies the self-play figures into the metrics.
func (s selfPlayStats) fill(m *metrics.Iteration) {
	m.SelfPlayGames, m.SelfPlayPositions, m.SelfPlaySec = s.Games, s.Positions, s.Seconds
	if s.Games == 0 {
		return
	}
	g := float64(s.Games)
	m.MeanGameLength = float64(s.Plies) / g
	m.PositionsPerSec = float64(s.Positions) / s.Seconds
	m.EvalsPerSec = float64(s.Evaluated) / s.Seconds
	m.RedWinShare, m.BlueWinShare = float64(s.RedWins)/g, float64(s.BlueWins)/g
	m.DrawShare, m.MoveLimitShare = float64(s.Draws)/g, float64(s.MoveLimits)/g
	m.ResignedShare = float64(s.Resigned) / g
	if s.Playouts > 0 {
		m.ResignFalseShare = float64(s.ResignWrong) / float64(s.Playouts)
	}
}

// summaryWidth is the widest line of an iteration's summary: a terminal
// of 120 columns shows it without wrapping inside a figure.
const summaryWidth = 120

// summaryLine is what an iteration logs: one line, or, when that would be
// wider than summaryWidth, several, broken after a comma or semicolon and
// the later ones indented by four spaces.
func summaryLine(m metrics.Iteration, cfg runconfig.Config) string {
	var s summary
	s.add("", "%s: %d games", iterationName(cfg, m.Iteration), m.SelfPlayGames)
	if m.RemoteGames > 0 || m.Actors > 0 {
		s.extend(" + %d from %s (%.0f positions/s)", m.RemoteGames, table.Count(m.Actors, "actor", "actors"), m.ActorPositionsPerSec)
	}
	// The figures of the games played here, then of those from actors:
	// a pure learner has only the latter.
	if m.SelfPlayGames > 0 || m.RemoteGames == 0 {
		s.add(", ", "%.0f plies on average", m.MeanGameLength)
		s.add(", ", "%.0f%% decided", 100*(m.RedWinShare+m.BlueWinShare))
		s.add(", ", "%.0f positions/s", m.PositionsPerSec)
		if cfg.SelfPlay.FastSimulations > 0 && m.SelfPlaySec > 0 {
			// Playout cap randomization records a share of the plies only.
			s.extend(" recorded of %.0f plies/s", m.MeanGameLength*float64(m.SelfPlayGames)/m.SelfPlaySec)
		}
	}
	if m.RemoteGames > 0 {
		s.add(", ", "remote %.0f plies on average", m.RemoteMeanGameLength)
		s.add(", ", "%.0f%% decided", 100*m.RemoteDecidedShare)
	}
	if m.TrainSteps > 0 {
		s.add("; ", "loss policy %.3f value %.3f", m.PolicyLoss, m.ValueLoss)
	}
	// One Elo figure: on the anchor's scale, the project's, when the
	// evaluation rated the network against the anchor; else each
	// baseline's own, from the score against it.
	for _, base := range cfg.Eval.Baselines {
		if r, ok := m.Eval[base]; ok && m.Rating != nil {
			s.add("; ", "vs %s %.0f%%", base, 100*r.Score)
		} else if ok {
			s.add("; ", "vs %s %.0f%% (%+.0f Elo)", base, 100*r.Score, r.Elo)
		}
	}
	if r := m.Rating; r != nil {
		s.add("; ", "Elo %+.0f ±%.0f (anchor 0)", r.Elo, (r.EloHigh-r.EloLow)/2)
	}
	s.add("; ", "%s", runClock(cfg, m.ElapsedSec))
	return s.wrap(summaryWidth)
}

// iterationName names iteration it with the run's target when it has
// one: "iteration 3 of 10", else "iteration 3".
func iterationName(c runconfig.Config, it int) string {
	if c.Iterations > 0 {
		return fmt.Sprintf("iteration %d of %d", it, c.Iterations)
	}
	return fmt.Sprintf("iteration %d", it)
}

// runClock says how much training time the run has had after elapsedSec,
// with its time limit and the time left when it has one: "12m3s elapsed
// of 55m, 42m57s left", else "12m3s elapsed".
func runClock(c runconfig.Config, elapsedSec float64) string {
	elapsed := time.Duration(elapsedSec * float64(time.Second))
	if c.TimeLimit <= 0 {
		return shortDuration(elapsed) + " elapsed"
	}
	return fmt.Sprintf("%s elapsed of %s, %s left", shortDuration(elapsed), shortDuration(c.TimeLimit), shortDuration(max(c.TimeLimit-elapsed, 0)))
}

// stage is what a progress bar of iteration it's stage ("self-play",
// "training") says after elapsedSec of the run's training time: the
// iteration of the target, and the time of the limit when there is one,
// "iteration 3 of 10 self-play (12m3s elapsed of 55m, 42m57s left)".
func stage(c runconfig.Config, it int, what string, elapsedSec float64) string {
	if c.TimeLimit <= 0 {
		return iterationName(c, it) + " " + what
	}
	return fmt.Sprintf("%s %s (%s)", iterationName(c, it), what, runClock(c, elapsedSec))
}

// shortDuration writes d to the second without the zero units at its
// end: 55m, 1h30m, 12m3s, 0s.
func shortDuration(d time.Duration) string {
	text := d.Round(time.Second).String()
	if strings.HasSuffix(text, "m0s") {
		text = strings.TrimSuffix(text, "0s")
	}
	if strings.HasSuffix(text, "h0m") {
		text = strings.TrimSuffix(text, "0m")
	}
	return text
}

// summary is the parts of an iteration's summary, each with the
// separator before it (", " or "; "), which a line may end at.
type summary struct{ seps, parts []string }

// add appends a part after sep.
func (s *summary) add(sep, format string, a ...any) {
	s.seps = append(s.seps, sep)
	s.parts = append(s.parts, fmt.Sprintf(format, a...))
}

// extend appends text to the last part: the two never part.
func (s *summary) extend(format string, a ...any) {
	s.parts[len(s.parts)-1] += fmt.Sprintf(format, a...)
}

// wrap joins the parts into lines of at most width columns where it can
// (a part wider alone stays whole), each ending at a separator, the
// separator's space giving way to a new line and an indent.
func (s *summary) wrap(width int) string {
	const indent = "    "
	var b strings.Builder
	line := 0 // the columns of the current line
	for i, part := range s.parts {
		sep := s.seps[i]
		end := line + len(sep) + len(part)
		if i < len(s.parts)-1 {
			end++ // the separator a break after this part would leave
		}
		if i > 0 && end > width {
			b.WriteString(strings.TrimRight(sep, " ") + "\n" + indent)
			line = len(indent)
			sep = ""
		}
		b.WriteString(sep + part)
		line += len(sep) + len(part)
	}
	return b.String()
}

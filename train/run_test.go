package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// smokeConfig is configs/smoke.yaml writing into dir, with the plots on so
// that the whole iteration is exercised.
func smokeConfig(t testing.TB, dir string) runconfig.Config {
	t.Helper()
	cfg, err := runconfig.Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Output.Dir = dir
	cfg.Output.Plot = true
	return cfg
}

// plainSmokeConfig is smokeConfig without plots and evaluation, for tests
// about the loop's bookkeeping.
func plainSmokeConfig(t testing.TB, dir string) runconfig.Config {
	t.Helper()
	cfg := smokeConfig(t, dir)
	cfg.Output.Plot = false
	cfg.Eval.Every = 0
	return cfg
}

func TestRunSmokeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	cfg := smokeConfig(t, dir)
	var log strings.Builder
	sum, err := Run(context.Background(), cfg, RunOptions{Log: &log})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if sum.Iteration != cfg.Iterations || sum.Stopped {
		t.Errorf("summary %+v: want %d iterations, not stopped", sum, cfg.Iterations)
	}
	ms, err := metrics.Read(metricsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != cfg.Iterations {
		t.Fatalf("%d metrics lines, want %d", len(ms), cfg.Iterations)
	}
	for i, m := range ms {
		if m.Iteration != i+1 || m.SelfPlayGames != cfg.SelfPlay.GamesPerIteration || m.TrainSteps != cfg.Optim.StepsPerIteration {
			t.Errorf("metrics %d: %+v", i, m)
		}
		if !(m.PolicyLoss > 0) || !(m.ValueLoss >= 0) || !(m.PolicyEntropy > 0) || !(m.PositionsPerSec > 0) || !(m.EvalsPerSec > 0) {
			t.Errorf("metrics %d: losses or rates missing: %+v", i, m)
		}
		if r, ok := m.Eval["random"]; !ok || r.Games != cfg.Eval.Games {
			t.Errorf("metrics %d: eval %+v, want %d games against random", i, m.Eval, cfg.Eval.Games)
		}
		// The rating games: the anchor every time, and from the second
		// evaluation on the network of the first.
		r := m.Rating
		if r == nil || r.Anchor.Games != cfg.Eval.Games || !(r.EloLow <= r.Elo && r.Elo <= r.EloHigh) {
			t.Fatalf("metrics %d: rating %+v, want %d games against the anchor and an Elo in its interval", i, r, cfg.Eval.Games)
		}
		if wantSnapshots := min(i, cfg.Eval.Snapshots); len(r.Snapshots) != wantSnapshots || (i > 0 && r.Snapshots[1].Games != cfg.Eval.Games) {
			t.Errorf("metrics %d: snapshots played %+v, want %d", i, r.Snapshots, wantSnapshots)
		}
	}
	if !strings.Contains(log.String(), "(anchor 0)") {
		t.Errorf("log lacks the Elo on the run's scale:\n%s", log.String())
	}
	for _, name := range []string{runconfig.File, "loss.png", "selfplay.png", "eval.png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	ckpts, _ := checkpoint.List(dir)
	nets, _ := checkpoint.ListNets(dir)
	if len(ckpts) != min(cfg.Iterations, cfg.Output.KeepLast) || len(nets) != cfg.Iterations {
		t.Errorf("%d checkpoints and %d network snapshots", len(ckpts), len(nets))
	}
	if !strings.Contains(log.String(), "iteration 2 of 2:") {
		t.Errorf("log lacks the summary line of iteration 2:\n%s", log.String())
	}
}

func TestRunResumeContinues(t *testing.T) {
	dir := t.TempDir()
	cfg := plainSmokeConfig(t, dir)
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 1}); err != nil {
		t.Fatal(err)
	}
	first, err := checkpoint.Load(checkpoint.Path(dir, 1), cfg)
	if err != nil {
		t.Fatal(err)
	}

	_, err = Run(context.Background(), cfg, RunOptions{Iterations: 2})
	if err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("a new run over an old one: %v, want an error that suggests --resume", err)
	}

	sum, err := Run(context.Background(), cfg, RunOptions{Resume: true, Iterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Iteration != 3 {
		t.Fatalf("resumed run ended at iteration %d, want 3", sum.Iteration)
	}
	last, err := checkpoint.Load(checkpoint.Path(dir, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if last.State.Iteration != 3 || last.State.Games != 3*int64(cfg.SelfPlay.GamesPerIteration) {
		t.Errorf("state %+v: want iteration 3 and all games counted", last.State)
	}
	if last.Replay.Len() <= first.Replay.Len() {
		t.Errorf("replay buffer %d after resuming, %d before: it must keep growing", last.Replay.Len(), first.Replay.Len())
	}
	if got, want := last.Trainer.Network().Steps(), int64(3*cfg.Optim.StepsPerIteration); got != want {
		t.Errorf("%d training steps, want %d", got, want)
	}
	ms, err := metrics.Read(metricsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.Iteration != i+1 {
			t.Fatalf("metrics iterations %v: want 1, 2, 3", ms)
		}
		// The run's CPU time goes on from the checkpoint's across the
		// resume, as its wall time does.
		if m.CPUSec <= 0 || m.Cores < 1 || (i > 0 && m.CPUSec <= ms[i-1].CPUSec) {
			t.Errorf("iteration %d: cpu_sec %v after %v, cores %d: want a growing CPU time and the cores", m.Iteration, m.CPUSec, ms[max(i-1, 0)].CPUSec, m.Cores)
		}
	}
	if last.State.CPUSec != ms[2].CPUSec {
		t.Errorf("checkpoint's CPU time %v, the log's %v: want the same", last.State.CPUSec, ms[2].CPUSec)
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	cfg := smokeConfig(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := Run(ctx, cfg, RunOptions{})
	if err != nil || !sum.Stopped || sum.Iteration != 0 {
		t.Fatalf("Run with a cancelled context: %+v, %v: want stopped at 0", sum, err)
	}
}

// A run keeps the target it was given in its config.yaml: resumed
// without one, it goes on to it; resumed at it, nothing is left to do.
func TestRunKeepsItsTarget(t *testing.T) {
	dir := t.TempDir()
	cfg := plainSmokeConfig(t, dir)
	cfg.Iterations = 9
	var log strings.Builder
	sum, err := Run(context.Background(), cfg, RunOptions{Iterations: 1, Log: &log})
	if err != nil || sum.Iteration != 1 || sum.Target != 1 || sum.Session != 1 || sum.Stopped {
		t.Fatalf("Run to 1: %+v, %v", sum, err)
	}
	for _, tc := range []struct {
		name       string
		iterations int
		want       Summary
		says       string
	}{
		{"at its target", 0, Summary{Dir: dir, Iteration: 1, Target: 1, TimeLimit: cfg.TimeLimit}, "done: nothing left to do: 1 iteration in " + dir + ", the run's target\n"},
		{"to a larger target", 2, Summary{Dir: dir, Iteration: 2, Target: 2, TimeLimit: cfg.TimeLimit, Session: 1}, "done: 2 iterations in " + dir + ", the run's target\n"},
		{"at the larger target", 0, Summary{Dir: dir, Iteration: 2, Target: 2, TimeLimit: cfg.TimeLimit}, "done: nothing left to do: 2 iterations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resumed, err := runconfig.Resumed(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			log.Reset()
			sum, err := Run(context.Background(), resumed, RunOptions{Dir: dir, Resume: true, Iterations: tc.iterations, Log: &log})
			if err != nil || sum != tc.want || !strings.Contains(log.String(), tc.says) {
				t.Errorf("resumed: %+v, %v, log:\n%s\nwant %+v and %q", sum, err, log.String(), tc.want, tc.says)
			}
		})
	}
}

func TestResumeSkipsDamagedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := plainSmokeConfig(t, dir)
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 2}); err != nil {
		t.Fatal(err)
	}
	path := checkpoint.Path(dir, 2)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, info.Size()/2); err != nil {
		t.Fatal(err)
	}
	latest, skipped, err := checkpoint.Latest(dir)
	if err != nil || latest != checkpoint.Path(dir, 1) || len(skipped) != 1 {
		t.Fatalf("checkpoint.Latest = %q, %v, %v: want iteration 1 with one skipped", latest, skipped, err)
	}
	var log strings.Builder
	sum, err := Run(context.Background(), cfg, RunOptions{Resume: true, Iterations: 2, Log: &log})
	if err != nil || sum.Iteration != 2 {
		t.Fatalf("resume past a damaged checkpoint: %+v, %v", sum, err)
	}
	if !strings.Contains(log.String(), "skipping damaged checkpoint") {
		t.Errorf("no warning about the damaged checkpoint:\n%s", log.String())
	}
}

// The kill test runs training in a child process (this test binary, see
// TestMain) and kills it with SIGKILL at moments spread over an iteration.
const killChildEnv = "DEATHSTACKS_TRAIN_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		os.Exit(runKillChild(dir))
	}
	os.Exit(m.Run())
}

// runKillChild trains in dir until killed.
func runKillChild(dir string) int {
	cfg, err := runconfig.Parse(configs.Smoke)
	if err != nil {
		return 3
	}
	cfg.Output.Dir = dir
	cfg.Iterations = 1000
	cfg.Eval.Every = 0
	existing, err := checkpoint.List(dir)
	if err != nil {
		return 3
	}
	if _, err := Run(context.Background(), cfg, RunOptions{Resume: len(existing) > 0}); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills training processes")
	}
	dir := t.TempDir()
	for round, delay := range []time.Duration{0, 150 * time.Millisecond, 400 * time.Millisecond} {
		before, _ := checkpoint.List(dir)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for one more checkpoint, then kill somewhere in the next
		// iteration.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			now, _ := checkpoint.List(dir)
			if len(now) > 0 && (len(before) == 0 || now[len(now)-1].Iteration > before[len(before)-1].Iteration) {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("round %d: no new checkpoint in time; child said %s", round, stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(delay)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()

		latest, skipped, err := checkpoint.Latest(dir)
		if err != nil || len(skipped) != 0 {
			t.Fatalf("round %d: after SIGKILL: %q, skipped %v, %v", round, latest, skipped, err)
		}
		ms, err := metrics.Read(metricsPath(dir))
		if err != nil {
			t.Fatalf("round %d: metrics: %v", round, err)
		}
		for i, m := range ms[:len(ms)-1] {
			if ms[i+1].Iteration != m.Iteration+1 {
				t.Fatalf("round %d: metrics iterations not consecutive: %d then %d", round, m.Iteration, ms[i+1].Iteration)
			}
		}
	}
	// A normal resume finishes one more iteration from the last checkpoint.
	latest, _, _ := checkpoint.Latest(dir)
	st, _, err := checkpoint.ReadPlayer(latest)
	if err != nil {
		t.Fatal(err)
	}
	cfg := plainSmokeConfig(t, dir)
	sum, err := Run(context.Background(), cfg, RunOptions{Resume: true, Iterations: st.Iteration + 1})
	if err != nil || sum.Iteration != st.Iteration+1 {
		t.Fatalf("resume after kills: %+v, %v: want iteration %d", sum, err, st.Iteration+1)
	}
	ms, _ := metrics.Read(metricsPath(dir))
	if len(ms) == 0 || ms[len(ms)-1].Iteration != st.Iteration+1 || ms[0].Iteration != 1 {
		t.Errorf("metrics after resume run from %d to %d", ms[0].Iteration, ms[len(ms)-1].Iteration)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(leftovers) != 0 {
		t.Errorf("temporary files left after a clean resume: %v", leftovers)
	}
}

// TestRunFromInit starts a run from another run's network: the weights
// and their step count carry over, the optimiser starts afresh with its
// warm-up, and a network of another architecture or a missing file is a
// clear error before anything is written.
func TestRunFromInit(t *testing.T) {
	src := t.TempDir()
	cfg := plainSmokeConfig(t, src)
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 1}); err != nil {
		t.Fatal(err)
	}
	srcNet, err := LoadNetwork(src)
	if err != nil {
		t.Fatal(err)
	}
	srcMetrics, err := metrics.Read(metricsPath(src))
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	cfg.Output.Dir, cfg.Init = dir, src
	var log strings.Builder
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 1, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "from "+src) {
		t.Errorf("the log does not say where the network comes from:\n%s", log.String())
	}
	net, err := LoadNetwork(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps := int64(cfg.Optim.StepsPerIteration)
	if got := net.Steps(); got != srcNet.Steps()+steps {
		t.Errorf("%d training steps, want %d: the init network's and this run's", got, srcNet.Steps()+steps)
	}
	ms, err := metrics.Read(metricsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	// The same point of the schedule, warm-up included, as the first
	// run's first iteration.
	if got, want := ms[0].LR, srcMetrics[0].LR; math.Abs(got-want) > 0.02*want {
		t.Errorf("learning rate %v in the first iteration, want %v (warming up)", got, want)
	}

	t.Run("more blocks", func(t *testing.T) {
		c := cfg
		c.Output.Dir = t.TempDir()
		c.Model.Blocks = srcNet.Config().Blocks + 1
		var log strings.Builder
		if _, err := Run(context.Background(), c, RunOptions{Iterations: 1, Log: &log}); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("from %d to %d residual blocks", c.Model.Blocks-1, c.Model.Blocks); !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
		net, err := LoadNetwork(c.Output.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := net.CheckConfig(c.Model); err != nil {
			t.Error(err)
		}
	})

	for _, tc := range []struct {
		name string
		edit func(*runconfig.Config)
		want string
	}{
		{"other architecture", func(c *runconfig.Config) { c.Model.Channels++ }, "model.channels"},
		{"fewer blocks", func(c *runconfig.Config) { c.Model.Blocks = 0 }, "model.blocks"},
		{"missing file", func(c *runconfig.Config) { c.Init = filepath.Join(t.TempDir(), "none.dsnn") }, "none.dsnn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Output.Dir = t.TempDir()
			tc.edit(&c)
			_, err := Run(context.Background(), c, RunOptions{Iterations: 1})
			if err == nil || !strings.Contains(err.Error(), "init") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run: %v, want an error about init naming %q", err, tc.want)
			}
			if _, _, err := checkpoint.Latest(c.Output.Dir); !errors.Is(err, checkpoint.ErrNotFound) {
				t.Errorf("a checkpoint was written: %v", err)
			}
		})
	}
}

// Run refuses a run directory that does not fit the request before it
// writes anything, so that a typo in --out costs nothing.
func TestRunDirRefused(t *testing.T) {
	base := t.TempDir()
	run := filepath.Join(base, "run")
	cfg := plainSmokeConfig(t, run)
	if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 1}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Name = "other"
	for _, tc := range []struct {
		name   string
		dir    string
		cfg    runconfig.Config
		resume bool
		want   string
	}{
		{"resume a missing directory", filepath.Join(base, "typo"), cfg, true, "does not exist"},
		{"resume an empty directory", empty, cfg, true, "holds no checkpoint"},
		{"resume a file", file, cfg, true, "is a file"},
		{"new run in a file", file, cfg, false, "is a file"},
		{"new run over a run", run, cfg, false, "--resume"},
		{"resume another config's run", run, other, true, `config "smoke", not "other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			c.Output.Dir = tc.dir
			_, err := Run(context.Background(), c, RunOptions{Resume: tc.resume, Iterations: 1})
			var rde *RunDirError
			if !errors.As(err, &rde) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a *RunDirError saying %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(base, "typo")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the missing directory was created")
			}
			if entries, _ := os.ReadDir(empty); len(entries) != 0 {
				t.Errorf("the empty directory got %d entries", len(entries))
			}
		})
	}
	// A run another process trains in: the lock belongs to an open file, so
	// this process's own lock stands for the other's.
	unlock, err := checkpoint.LockRunDir(run)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	c := cfg
	c.Output.Dir = run
	_, err = Run(context.Background(), c, RunOptions{Resume: true, Iterations: 2})
	var rde *RunDirError
	if !errors.As(err, &rde) || !strings.Contains(err.Error(), "in use by another training process") {
		t.Fatalf("resuming a locked run: %v, want a *RunDirError saying it is in use", err)
	}
	if latest, _, _ := checkpoint.Latest(run); latest != checkpoint.Path(run, 1) {
		t.Errorf("the locked run's latest checkpoint is %s, want iteration 1's", latest)
	}
}

// TestRunAveragesThePlayer checks the run's player against the trained
// networks of its checkpoints: a blend of each into the one before
// (optim.average_iterations), carried over a resume, in the snapshots and
// in what the run plays as a model.
func TestRunAveragesThePlayer(t *testing.T) {
	for _, tc := range []struct {
		average int
		shares  []float32 // of iterations 1, 2, 3
	}{
		{1, []float32{1, 1, 1}},
		{3, []float32{1, 0.5, 0.5}},
		{5, []float32{1, 0.5, 1.0 / 3}},
	} {
		t.Run(fmt.Sprintf("average_iterations %d", tc.average), func(t *testing.T) {
			dir := t.TempDir()
			cfg := plainSmokeConfig(t, dir)
			cfg.Optim.AverageIterations = tc.average
			cfg.Output.KeepLast = 3
			if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 2}); err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), cfg, RunOptions{Resume: true, Iterations: 3}); err != nil {
				t.Fatal(err)
			}
			var want *model.Network
			for it := 1; it <= 3; it++ {
				ck, err := checkpoint.Load(checkpoint.Path(dir, it), cfg)
				if err != nil {
					t.Fatal(err)
				}
				trained := ck.Trainer.Network()
				if it == 1 {
					want = trained.Clone()
				} else if err := want.Blend(trained, tc.shares[it-1]); err != nil {
					t.Fatal(err)
				}
				snap, err := model.Load(checkpoint.NetPath(dir, it))
				if err != nil {
					t.Fatal(err)
				}
				if !sameWeights(ck.Player, want) || !sameWeights(snap, want) {
					t.Errorf("iteration %d: the player (checkpoint %v, snapshot %v) is not the blend of the trained networks", it,
						sameWeights(ck.Player, want), sameWeights(snap, want))
				}
				if averaged := !sameWeights(ck.Player, trained); averaged != (it > 1 && tc.average > 1) {
					t.Errorf("iteration %d: player differs from the trained network: %v", it, averaged)
				}
				if ck.Player.Steps() != trained.Steps() {
					t.Errorf("iteration %d: player after %d steps, trained network %d", it, ck.Player.Steps(), trained.Steps())
				}
			}
			played, err := LoadNetwork(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !sameWeights(played, want) {
				t.Error("the run directory plays another network than its player")
			}
		})
	}
}

// A run counted in iterations repeats itself from its seed: the same
// games in the same order in the replay buffer, the same network, however
// the games interleave.
func TestRunRepeatsItself(t *testing.T) {
	for _, late := range []float64{0, 0.5} {
		t.Run(fmt.Sprintf("late_start_share %g", late), func(t *testing.T) { testRunRepeatsItself(t, late) })
	}
}

// testRunRepeatsItself runs a smoke run three times, with late starts
// from the games of the iteration before in a share late of its games.
func testRunRepeatsItself(t *testing.T, late float64) {
	weights := func() []byte {
		dir := t.TempDir()
		cfg := plainSmokeConfig(t, dir)
		cfg.TimeLimit = 0
		cfg.SelfPlay.LateStartShare = late
		cfg.SelfPlay.GamesPerIteration, cfg.SelfPlay.ParallelGames = 8, 4
		if _, err := Run(context.Background(), cfg, RunOptions{Iterations: 3}); err != nil {
			t.Fatal(err)
		}
		ck, err := checkpoint.Load(checkpoint.Path(dir, 3), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := ck.Trainer.Network().WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	first := weights()
	for range 2 {
		if !bytes.Equal(weights(), first) {
			t.Fatal("the same run trained another network")
		}
	}
}

func TestInOrder(t *testing.T) {
	var got []int
	add := inOrder(func(g SelfPlayGame) error {
		got = append(got, len(g.Moves))
		return nil
	})
	for _, i := range []int{2, 0, 3, 1, 5, 4} {
		if err := add(i, SelfPlayGame{PlayedGame: PlayedGame{Moves: make([]env.Move, i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("handed on %v, want 0 to 5 in order", got)
	}
}

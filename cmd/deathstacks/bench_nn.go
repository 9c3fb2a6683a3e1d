package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/deathstacks/deathstacks/configs"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// runBench dispatches "bench <what>": mcts (bench_mcts.go) or nn.
func runBench(args []string, s stdio) error {
	switch {
	case len(args) > 0 && args[0] == "mcts":
		return runBenchMCTS(args[1:], s)
	case len(args) > 0 && args[0] == "nn":
		return runBenchNN(args[1:], s)
	}
	usage := fmt.Sprintf("usage: deathstacks bench mcts|nn [flags] (run '%s bench mcts --help' or '%[1]s bench nn --help' for the flags)", program)
	switch {
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprintln(s.err, usage)
		return flag.ErrHelp
	case len(args) > 0:
		return usageErr("unknown kind %s: want mcts or nn\n%s", args[0], usage)
	}
	return usageErr("%s", usage)
}

// benchNNSynopsis is bench nn's help: its synopsis and what it prints.
const benchNNSynopsis = `bench nn [--config FILE] [--seconds S] [--batches LIST] [--clients K] [--per-call N] [--train-batch B] [--compare]

Measures the configured network on positions from seeded random games:
  peak cores=<C> gflops=<G>         a pure FMA loop on all cores: the machine's peak
  raw batch=<B> evals/s=<N> gflops=<G> share=<P>%
                                    the compiled graph, one line per batch size
  server clients=<K> evals/s=<N> gflops=<G> share=<P>%
                                    the batching server driven by K goroutines
  train batch=<B> samples/s=<N> gflops=<G> share=<P>%
                                    training steps
gflops is evals/s times the network's FLOPs per position (samples/s times
those of a training sample: forward pass, weights' and inputs' gradients),
share its part of the peak. With --compare the raw, server and train lines follow again for
gorgonia's stock graph and gonum's Sgemm, each starting with "stock ".
Each line runs for --seconds after a warm-up. A description of the network
goes to standard error. Ctrl-C (or SIGTERM) stops it, dropping the line in
progress.`

func runBenchNN(args []string, s stdio) error {
	fs := newFlags("bench nn", benchNNSynopsis, s)
	configArg := fs.String("config", "default", "a training config (file or built-in name); its model and server sections are used")
	seconds := fs.Float64("seconds", 2, "measuring time per line")
	batches := fs.String("batches", "1,8,16,32,64", "comma-separated batch sizes of the raw graph")
	clients := fs.Int("clients", 64, "goroutines calling the server")
	perCall := fs.Int("per-call", 1, "positions per server call")
	trainBatch := fs.Int("train-batch", 64, "training batch size; 0 skips training")
	seed := fs.Uint64("seed", 1, "seed of the weights and positions")
	compare := fs.Bool("compare", false, "also measure the stock graph and gonum's Sgemm, side by side")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sizes, err := parseSizes(*batches)
	if err != nil {
		return usageErr("--batches: %v", err)
	}
	var ch configs.Checker
	ch.Check(*seconds > 0, "seconds", "is %v: want more than 0", *seconds)
	ch.AtLeast("clients", *clients, 1)
	ch.AtLeast("per-call", *perCall, 1)
	ch.AtLeast("train-batch", *trainBatch, 0)
	if err := flagErr(ch.Err(), map[string]string{"seconds": "seconds", "clients": "clients", "per-call": "per-call", "train-batch": "train-batch"}); err != nil {
		return err
	}
	run, err := trainConfig(*configArg, "", false)
	if err != nil {
		return usageErr("%v", err)
	}
	cfg, scfg := run.Model, run.Server
	rng := rand.New(rand.NewPCG(*seed, 0xbe7c))
	net, err := model.New(cfg, rng)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.err, "network %v (BLAS %s, kernels %s): %d parameters, %.2f MFLOP per position; server max_batch=%d workers=%d flush_delay=%v\n",
		cfg, model.BLAS, model.Kernels(), net.NumParams(), float64(cfg.FLOPs())/1e6, scfg.MaxBatch, scfg.Workers, scfg.FlushDelay)
	cores, peak := model.PeakGFLOPS(300 * time.Millisecond)
	fmt.Fprintf(s.out, "peak cores=%d gflops=%.1f\n", cores, peak)
	b := nnBench{
		net: net, scfg: scfg, pool: benchPositions(rng, 512), rng: rng,
		dur: time.Duration(*seconds * float64(time.Second)), peak: peak,
		sizes: sizes, clients: *clients, perCall: *perCall, trainBatch: *trainBatch, log: s.err,
	}
	ctx, release := onStop(s, "the line in progress is dropped")
	defer release()
	graphs := []nnGraph{fusedGraph}
	if *compare {
		graphs = append(graphs, stockGraph)
	}
	total, printed := 1+len(graphs)*b.lines(), 1
	for _, graph := range graphs {
		lines, err := b.run(ctx, graph)
		for _, l := range lines {
			if graph == stockGraph {
				l = "stock " + l
			}
			fmt.Fprintln(s.out, l)
		}
		printed += len(lines)
		if ctx.Err() != nil {
			return stoppedError(ctx, ofTotal(printed, total, "line", "lines"), "")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// nnGraph selects what "bench nn" measures: the fused graphs (inference
// and training) with the model's Sgemm, or gorgonia's stock graphs with
// gonum's.
type nnGraph int

const (
	fusedGraph nnGraph = iota
	stockGraph
)

// nnBench is one "bench nn" run's settings.
type nnBench struct {
	net                          *model.Network
	scfg                         model.ServerConfig
	pool                         positionPool
	rng                          *rand.Rand
	dur                          time.Duration
	peak                         float64
	sizes                        []int // of the raw lines
	clients, perCall, trainBatch int
	log                          io.Writer
}

// rate formats an evaluation rate with its GFLOP/s and share of the peak.
func (b *nnBench) rate(evals float64) string {
	return fmt.Sprintf("evals/s=%.0f %s", evals, b.share(evals, b.net.Config().FLOPs()))
}

// share formats the GFLOP/s of items per second of flops each and their
// share of the peak.
func (b *nnBench) share(items float64, flops int64) string {
	gflops := items * float64(flops) / 1e9
	return fmt.Sprintf("gflops=%.1f share=%.1f%%", gflops, 100*gflops/b.peak)
}

// lines is the number of lines [nnBench.run] measures.
func (b *nnBench) lines() int {
	n := len(b.sizes) + 1
	if b.trainBatch > 0 {
		n++
	}
	return n
}

// run measures the raw, server and train lines of one graph, until ctx
// ends: it returns the lines measured.
func (b *nnBench) run(ctx context.Context, graph nnGraph) ([]string, error) {
	evaluate, newServer, newTrainer := b.net.Evaluate, model.NewServer, model.NewTrainer
	if graph == stockGraph {
		evaluate, newServer, newTrainer = b.net.EvaluateStock, model.NewStockServer, model.NewStockTrainer
		// gorgonia's BLAS is process-wide: the stock lines run on
		// gonum's own Sgemm, then the package's comes back.
		defer G.Use(G.WhichBLAS())
		G.Use(gonum.Implementation{})
	}
	var lines []string
	for _, n := range b.sizes {
		args := b.pool.args(0, n)
		rate, err := measure(ctx, b.dur, func() (int, error) { return n, evaluate(args.obs, args.legal, args.priors, args.values) })
		if err != nil {
			return lines, err
		}
		lines = append(lines, fmt.Sprintf("raw batch=%d %s", n, b.rate(rate)))
	}
	srv, err := newServer(b.net, b.scfg)
	if err != nil {
		return lines, err
	}
	rate, err := benchServer(ctx, srv, b.scfg, b.pool, b.clients, b.perCall, b.dur, b.log)
	if err != nil {
		return lines, err
	}
	lines = append(lines, fmt.Sprintf("server clients=%d %s", b.clients, b.rate(rate)))
	if b.trainBatch == 0 {
		return lines, nil
	}
	tc := model.DefaultTrainConfig()
	tc.BatchSize = b.trainBatch
	// Training changes the weights: train a copy, so that both graphs
	// measure the same network.
	tr, err := newTrainer(b.net.Clone(), tc)
	if err != nil {
		return lines, err
	}
	samples := b.pool.samples(b.rng)
	off := 0
	rate, err = measure(ctx, b.dur, func() (int, error) {
		if off+tc.BatchSize > len(samples) {
			off = 0
		}
		_, err := tr.Step(samples[off : off+tc.BatchSize])
		off += tc.BatchSize
		return tc.BatchSize, err
	})
	if err != nil {
		return lines, err
	}
	return append(lines, fmt.Sprintf("train batch=%d samples/s=%.0f %s", tc.BatchSize, rate, b.share(rate, b.net.Config().TrainFLOPs()))), nil
}

func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(list, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b < 1 || b > 4096 {
			return nil, fmt.Errorf("%q is not a batch size in 1..4096", f)
		}
		sizes = append(sizes, b)
	}
	return sizes, nil
}

// measure calls run repeatedly for about dur after one warm-up call (which
// compiles the graphs) and returns the items per second; an end of ctx
// stops it with ctx's error.
func measure(ctx context.Context, dur time.Duration, run func() (int, error)) (float64, error) {
	if _, err := run(); err != nil {
		return 0, err
	}
	items := 0
	start := time.Now()
	for time.Since(start) < dur {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := run()
		if err != nil {
			return 0, err
		}
		items += n
	}
	return float64(items) / time.Since(start).Seconds(), nil
}

// benchServer drives srv (of settings cfg), which it closes, from clients goroutines, each evaluating
// perCall positions per call, and returns positions per second; an end
// of ctx stops it with ctx's error.
func benchServer(ctx context.Context, srv *model.Server, cfg model.ServerConfig, pool positionPool, clients, perCall int, dur time.Duration, log io.Writer) (float64, error) {
	// Warm up: compile the graph of every batch size the server may use.
	for b := 1; ; b = min(2*b, cfg.MaxBatch) {
		a := pool.args(0, b)
		if err := srv.Evaluate(a.obs, a.legal, a.priors, a.values); err != nil {
			srv.Close()
			return 0, err
		}
		if b == cfg.MaxBatch {
			break
		}
	}
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, clients)
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := pool.args(c*perCall, perCall)
			for time.Since(start) < dur && ctx.Err() == nil {
				if err := srv.Evaluate(a.obs, a.legal, a.priors, a.values); err != nil {
					errs[c] = err
					return
				}
				total.Add(int64(perCall))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := srv.Close(); err != nil {
		return 0, err
	}
	for _, err := range append(errs, ctx.Err()) {
		if err != nil {
			return 0, err
		}
	}
	st := srv.Stats()
	fmt.Fprintf(log, "server: mean batch %.1f over %d runs\n", float64(st.Positions)/float64(max(st.Batches, 1)), st.Batches)
	return float64(total.Load()) / elapsed.Seconds(), nil
}

// positionPool holds observations and legal actions of varied positions.
type positionPool struct {
	obs   [][]float32
	legal [][]env.Action
}

// evalCall is one Evaluate call's arguments.
type evalCall struct {
	obs    []float32
	legal  [][]env.Action
	priors [][]float32
	values []float32
}

// args returns the arguments for n positions starting at pool index from
// (wrapping around), with fresh output slices.
func (p positionPool) args(from, n int) evalCall {
	var a evalCall
	for i := range n {
		k := (from + i) % len(p.obs)
		a.obs = append(a.obs, p.obs[k]...)
		a.legal = append(a.legal, p.legal[k])
		a.priors = append(a.priors, make([]float32, len(p.legal[k])))
	}
	a.values = make([]float32, n)
	return a
}

// samples turns the pool into training samples with random one-hot
// targets and results.
func (p positionPool) samples(rng *rand.Rand) []model.Sample {
	out := make([]model.Sample, len(p.obs))
	for i := range out {
		pol := make([]float32, len(p.legal[i]))
		pol[rng.IntN(len(pol))] = 1
		out[i] = model.Sample{Obs: p.obs[i], Legal: p.legal[i], Policy: pol, Value: float32(rng.IntN(3) - 1)}
	}
	return out
}

// benchPositions collects n positions from seeded random games.
func benchPositions(rng *rand.Rand, n int) positionPool {
	var p positionPool
	rules := env.DefaultRules()
	for len(p.obs) < n {
		g := env.NewGame(rules)
		for !g.Status().Over() && len(p.obs) < n {
			pos := g.Position()
			obs := make([]float32, env.ObservationSize)
			env.EncodeObservation(obs, &pos, rules, g.Repetitions())
			p.obs = append(p.obs, obs)
			p.legal = append(p.legal, pos.LegalActions(nil, rules.TooTall))
			moves := g.LegalMoves(nil)
			if g.Play(moves[rng.IntN(len(moves))]) != nil {
				break // cannot happen for a generated move; start a new game
			}
		}
	}
	return p
}

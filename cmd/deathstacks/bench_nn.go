package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// runBench dispatches "bench <what>": mcts (bench_mcts.go) or nn.
func runBench(args []string, s stdio) error {
	switch {
	case len(args) > 0 && args[0] == "mcts":
		return runBenchMCTS(args[1:], s)
	case len(args) > 0 && args[0] == "nn":
		return runBenchNN(args[1:], s)
	}
	const usage = "usage: deathstacks bench mcts|nn [flags] (run 'deathstacks bench mcts --help' or 'deathstacks bench nn --help' for the flags)"
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintln(s.err, usage)
		return flag.ErrHelp
	}
	return usageErr(usage)
}

func runBenchNN(args []string, s stdio) error {
	fs := newFlags("bench nn", `bench nn [--config FILE] [--seconds S] [--batches LIST] [--clients K] [--per-call N] [--train-batch B]

Measures the configured network on positions from seeded random games:
  raw batch=<B> evals/s=<N>         the compiled graph, one line per batch size
  server clients=<K> evals/s=<N>    the batching server driven by K goroutines
  train batch=<B> samples/s=<N>     training steps
Each line runs for --seconds after a warm-up. A description of the network
goes to standard error.`, s)
	configArg := fs.String("config", "default", "a training config (file or built-in name); its model and server sections are used")
	seconds := fs.Float64("seconds", 2, "measuring time per line")
	batches := fs.String("batches", "1,8,16,32,64", "comma-separated batch sizes of the raw graph")
	clients := fs.Int("clients", 64, "goroutines calling the server")
	perCall := fs.Int("per-call", 1, "positions per server call")
	trainBatch := fs.Int("train-batch", 64, "training batch size; 0 skips training")
	seed := fs.Uint64("seed", 1, "seed of the weights and positions")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sizes, err := parseSizes(*batches)
	if err != nil {
		return usageErr("--batches: %v", err)
	}
	if *seconds <= 0 || *clients < 1 || *perCall < 1 || *trainBatch < 0 {
		return usageErr("--seconds, --clients and --per-call must be positive, --train-batch 0 or more")
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
	fmt.Fprintf(s.err, "network %v (BLAS %s): %d parameters, %.2f MFLOP per position; server max_batch=%d workers=%d flush_delay=%v\n",
		cfg, model.BLAS, net.NumParams(), float64(cfg.FLOPs())/1e6, scfg.MaxBatch, scfg.Workers, scfg.FlushDelay)
	pool := benchPositions(rng, 512)
	dur := time.Duration(*seconds * float64(time.Second))

	for _, b := range sizes {
		args := pool.args(0, b)
		rate, err := measure(dur, func() (int, error) { return b, net.Evaluate(args.obs, args.legal, args.priors, args.values) })
		if err != nil {
			return err
		}
		fmt.Fprintf(s.out, "raw batch=%d evals/s=%.0f\n", b, rate)
	}

	rate, err := benchServer(net, scfg, pool, *clients, *perCall, dur, s.err)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "server clients=%d evals/s=%.0f\n", *clients, rate)

	if *trainBatch > 0 {
		tc := model.DefaultTrainConfig()
		tc.BatchSize = *trainBatch
		tr, err := model.NewTrainer(net, tc)
		if err != nil {
			return err
		}
		samples := pool.samples(rng)
		off := 0
		rate, err := measure(dur, func() (int, error) {
			if off+tc.BatchSize > len(samples) {
				off = 0
			}
			_, err := tr.Step(samples[off : off+tc.BatchSize])
			off += tc.BatchSize
			return tc.BatchSize, err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(s.out, "train batch=%d samples/s=%.0f\n", tc.BatchSize, rate)
	}
	return nil
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
// compiles the graphs) and returns the items per second.
func measure(dur time.Duration, run func() (int, error)) (float64, error) {
	if _, err := run(); err != nil {
		return 0, err
	}
	items := 0
	start := time.Now()
	for time.Since(start) < dur {
		n, err := run()
		if err != nil {
			return 0, err
		}
		items += n
	}
	return float64(items) / time.Since(start).Seconds(), nil
}

// benchServer drives a server from clients goroutines, each evaluating
// perCall positions per call, and returns positions per second.
func benchServer(net *model.Network, cfg model.ServerConfig, pool positionPool, clients, perCall int, dur time.Duration, log io.Writer) (float64, error) {
	srv, err := model.NewServer(net, cfg)
	if err != nil {
		return 0, err
	}
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
			for time.Since(start) < dur {
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
	for _, err := range errs {
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

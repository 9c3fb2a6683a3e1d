package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/cmd/deathstacks/internal/bench"
	"github.com/deathstacks/deathstacks/configs"
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
	b := bench.NewNetwork(net, scfg, rng, peak, bench.NetworkSettings{
		Duration: time.Duration(*seconds * float64(time.Second)), Sizes: sizes,
		Clients: *clients, PerCall: *perCall, TrainBatch: *trainBatch,
	}, s.err)
	ctx, release := onStop(s, "the line in progress is dropped")
	defer release()
	graphs := []bench.Graph{bench.Fused}
	if *compare {
		graphs = append(graphs, bench.Stock)
	}
	written, err := b.Write(ctx, graphs, s.out)
	if ctx.Err() != nil {
		return stoppedError(ctx, ofTotal(1+written, 1+len(graphs)*b.Lines(), "line", "lines"), "")
	}
	return err
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

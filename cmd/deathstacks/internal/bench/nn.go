package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/model"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// Graph selects what a [Network] benchmark measures: the fused graphs
// (inference and training) with the model's Sgemm, or gorgonia's stock
// graphs with gonum's.
type Graph int

// The graphs of a [Network] benchmark.
const (
	Fused Graph = iota
	Stock
)

// NetworkSettings are what a [Network] benchmark measures, and how long.
type NetworkSettings struct {
	// Duration is the measuring time of a line, after a warm-up.
	Duration time.Duration
	// Sizes are the batch sizes of the raw graph's lines.
	Sizes []int
	// Clients goroutines call the server, PerCall positions a call.
	Clients, PerCall int
	// TrainBatch is the training batch size; 0 skips training.
	TrainBatch int
}

// Network is one benchmark of a network: its raw graph at batch sizes,
// its batching server and its training step, each a line with its rate,
// GFLOP/s and share of the machine's peak.
type Network struct {
	net  *model.Network
	scfg model.ServerConfig
	pool positionPool
	rng  *rand.Rand
	peak float64
	cfg  NetworkSettings
	log  io.Writer
}

// NewNetwork returns a benchmark of net and its server settings scfg,
// whose shares are of peak GFLOP/s; the positions and training targets
// are drawn from rng, and the server's mean batch goes to log.
func NewNetwork(net *model.Network, scfg model.ServerConfig, rng *rand.Rand, peak float64, s NetworkSettings, log io.Writer) *Network {
	return &Network{net: net, scfg: scfg, pool: newPositionPool(rng, 512), rng: rng, peak: peak, cfg: s, log: log}
}

// rate formats an evaluation rate with its GFLOP/s and share of the peak.
func (b *Network) rate(evals float64) string {
	return fmt.Sprintf("evals/s=%.0f %s", evals, b.share(evals, b.net.Config().FLOPs()))
}

// share formats the GFLOP/s of items per second of flops each and their
// share of the peak.
func (b *Network) share(items float64, flops int64) string {
	gflops := items * float64(flops) / 1e9
	return fmt.Sprintf("gflops=%.1f share=%.1f%%", gflops, 100*gflops/b.peak)
}

// Lines is the number of lines the benchmark measures for one graph.
func (b *Network) Lines() int {
	n := len(b.cfg.Sizes) + 1
	if b.cfg.TrainBatch > 0 {
		n++
	}
	return n
}

// Write measures the lines of each of graphs in turn and writes them to
// out, a line of the stock graph starting with "stock ", and returns the
// number of lines written. An end of ctx stops it after the line in
// progress, which it drops, with ctx's error.
func (b *Network) Write(ctx context.Context, graphs []Graph, out io.Writer) (int, error) {
	written := 0
	for _, graph := range graphs {
		lines, err := b.run(ctx, graph)
		for _, l := range lines {
			if graph == Stock {
				l = "stock " + l
			}
			fmt.Fprintln(out, l)
		}
		written += len(lines)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// run measures the raw, server and train lines of one graph, until ctx
// ends: it returns the lines measured.
func (b *Network) run(ctx context.Context, graph Graph) ([]string, error) {
	evaluate, newServer, newTrainer := b.net.Evaluate, model.NewServer, model.NewTrainer
	if graph == Stock {
		evaluate, newServer, newTrainer = b.net.EvaluateStock, model.NewStockServer, model.NewStockTrainer
		// gorgonia's BLAS is process-wide: the stock lines run on
		// gonum's own Sgemm, then the package's comes back.
		defer G.Use(G.WhichBLAS())
		G.Use(gonum.Implementation{})
	}
	var lines []string
	for _, n := range b.cfg.Sizes {
		args := b.pool.args(0, n)
		rate, err := Measure(ctx, b.cfg.Duration, func() (int, error) { return n, evaluate(args.obs, args.legal, args.priors, args.values) })
		if err != nil {
			return lines, err
		}
		lines = append(lines, fmt.Sprintf("raw batch=%d %s", n, b.rate(rate)))
	}
	srv, err := newServer(b.net, b.scfg)
	if err != nil {
		return lines, err
	}
	rate, err := b.server(ctx, srv)
	if err != nil {
		return lines, err
	}
	lines = append(lines, fmt.Sprintf("server clients=%d %s", b.cfg.Clients, b.rate(rate)))
	if b.cfg.TrainBatch == 0 {
		return lines, nil
	}
	tc := model.DefaultTrainConfig()
	tc.BatchSize = b.cfg.TrainBatch
	// Training changes the weights: train a copy, so that both graphs
	// measure the same network.
	tr, err := newTrainer(b.net.Clone(), tc)
	if err != nil {
		return lines, err
	}
	samples := b.pool.samples(b.rng)
	off := 0
	rate, err = Measure(ctx, b.cfg.Duration, func() (int, error) {
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

// server drives srv, which it closes, from b.cfg.Clients goroutines, each
// evaluating b.cfg.PerCall positions per call, and returns positions per
// second; an end of ctx stops it with ctx's error.
func (b *Network) server(ctx context.Context, srv *model.Server) (float64, error) {
	// Warm up: compile the graph of every batch size the server may use.
	for n := 1; ; n = min(2*n, b.scfg.MaxBatch) {
		a := b.pool.args(0, n)
		if err := srv.Evaluate(a.obs, a.legal, a.priors, a.values); err != nil {
			srv.Close()
			return 0, err
		}
		if n == b.scfg.MaxBatch {
			break
		}
	}
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, b.cfg.Clients)
	start := time.Now()
	for c := range b.cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := b.pool.args(c*b.cfg.PerCall, b.cfg.PerCall)
			for time.Since(start) < b.cfg.Duration && ctx.Err() == nil {
				if err := srv.Evaluate(a.obs, a.legal, a.priors, a.values); err != nil {
					errs[c] = err
					return
				}
				total.Add(int64(b.cfg.PerCall))
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
	fmt.Fprintf(b.log, "server: mean batch %.1f over %d runs\n", float64(st.Positions)/float64(max(st.Batches, 1)), st.Batches)
	return float64(total.Load()) / elapsed.Seconds(), nil
}

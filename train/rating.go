package train

import (
	"errors"
	"fmt"
	"io/fs"
	"math"

	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/metrics"
)

// An evaluation with eval.anchor set also plays rating games: against the
// anchor, the fixed 0 of the run's Elo scale, and against eval.snapshots
// earlier networks of the run, rated by earlier evaluations. One fit over
// all of the run's rating games (metrics.Ratings) puts every evaluated
// network on the anchor's scale, which keeps moving when the baselines
// are all won.

// ratingOpponents are an evaluation's rating opponents: the anchor first,
// then the snapshots, and the servers of the snapshots' networks.
type ratingOpponents struct {
	entrants []arena.Entrant
	// snapshots are the iterations of entrants[1:].
	snapshots []int
	servers   []*model.Server
	// earlier is the run's metrics log before the evaluation.
	earlier []metrics.Iteration
}

// close stops the snapshots' servers.
func (o *ratingOpponents) close() {
	for _, s := range o.servers {
		s.Close()
	}
}

// newRatingOpponents makes the rating opponents of iteration it's
// evaluation: the anchor (loaded by load) and the snapshots of
// ratingSnapshots, playing with search. Without eval.anchor it returns
// none.
func (r *runner) newRatingOpponents(it int, search mcts.Config, load players.AZLoader) (*ratingOpponents, error) {
	e := r.cfg.Eval
	o := &ratingOpponents{}
	if e.Anchor == "" {
		return o, nil
	}
	spec, err := players.ParseSpec(e.Anchor)
	if err != nil {
		return nil, err
	}
	anchor := arena.SpecContender(metrics.AnchorName, spec, load).Entrant
	o.entrants = append(o.entrants, anchor)
	if o.earlier, err = metrics.Read(metricsPath(r.dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, k := range ratingSnapshots(o.earlier, it, e.Snapshots) {
		net, err := model.Load(checkpoint.NetPath(r.dir, k))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by hand: the others still rate
		}
		if err != nil {
			o.close()
			return nil, fmt.Errorf("rating opponent: %w", err)
		}
		srv, err := model.NewServer(net, r.cfg.Server)
		if err != nil {
			o.close()
			return nil, err
		}
		o.servers = append(o.servers, srv)
		o.snapshots = append(o.snapshots, k)
		o.entrants = append(o.entrants, arena.Entrant{Name: metrics.NetworkName(k), New: func(seed uint64) (mcts.Player, error) {
			return mcts.NewPUCTPlayer(srv, search, seed)
		}})
	}
	return o, nil
}

// ratingSnapshots chooses the earlier networks iteration it's evaluation
// plays: n of the iterations rated before (those in ms with rating
// games), the ones nearest to it*j/(n+1) for j = 1..n, each once. With
// one, the network half way through the run so far: far enough behind to
// lose most games yet not all, and on the scale by its own games.
func ratingSnapshots(ms []metrics.Iteration, it, n int) []int {
	var rated []int
	for _, m := range ms {
		if m.Rating != nil && m.Iteration < it {
			rated = append(rated, m.Iteration)
		}
	}
	var out []int
	for j := 1; j <= n && len(rated) > 0; j++ {
		target := float64(it) * float64(j) / float64(n+1)
		best := 0
		for i, k := range rated {
			if math.Abs(float64(k)-target) < math.Abs(float64(rated[best])-target) {
				best = i
			}
		}
		out = append(out, rated[best])
		rated = append(rated[:best], rated[best+1:]...)
	}
	return out
}

// rateIteration assembles iteration it's rating from the results of its
// rating games (the anchor's first, then those of snapshots, in order) and
// rates it by one fit over them and the rating games of the earlier
// iterations in ms, the run's metrics log.
func rateIteration(ms []metrics.Iteration, it int, results []metrics.EvalResult, snapshots []int) (*metrics.Rating, error) {
	if len(results) != 1+len(snapshots) {
		return nil, fmt.Errorf("rating of iteration %d: %d results for the anchor and %d snapshots", it, len(results), len(snapshots))
	}
	rating := &metrics.Rating{Anchor: results[0]}
	for i, k := range snapshots {
		if rating.Snapshots == nil {
			rating.Snapshots = map[int]metrics.EvalResult{}
		}
		rating.Snapshots[k] = results[1+i]
	}
	rated, err := metrics.Ratings(append(ms, metrics.Iteration{Iteration: it, Rating: rating}))
	if err != nil {
		return nil, fmt.Errorf("rating of iteration %d: %w", it, err)
	}
	for _, x := range rated {
		if x.Iteration == it {
			rating.Elo, rating.EloLow, rating.EloHigh = x.Elo, x.Low, x.High
		}
	}
	return rating, nil
}

package train

import (
	"context"
	"fmt"
	"time"

	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/progress"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// networkName is the name of the trained network in evaluation records.
const networkName = "network"

// evaluate plays the run's player against each baseline and, with
// eval.anchor, the rating games (see ratingOpponents), and records the
// results.
func (r *runner) evaluate(ctx context.Context, it int, m *metrics.Iteration) error {
	start := time.Now()
	defer func() { m.EvalSec = time.Since(start).Seconds() }()
	e := r.cfg.Eval
	search := strongSearch(r.cfg.Search)
	search.Simulations = e.Simulations
	srv, err := model.NewServer(r.player, r.cfg.Server)
	if err != nil {
		return err
	}
	defer srv.Close()
	current := arena.Entrant{Name: networkName, New: func(seed uint64) (mcts.Player, error) {
		return mcts.NewPUCTPlayer(srv, search, seed)
	}}
	// az baselines load their networks as every command's do.
	models := NewModels(r.cfg.Server, r.log)
	defer models.Close()
	opponents := make([]arena.Entrant, 0, len(e.Baselines))
	for _, text := range e.Baselines {
		spec, err := players.ParseSpec(text)
		if err != nil {
			return err
		}
		opponents = append(opponents, arena.SpecContender(text, spec, models.Load).Entrant)
	}
	rating, err := r.newRatingOpponents(it, search, models.Load)
	if err != nil {
		return err
	}
	defer rating.close()
	opponents = append(opponents, rating.entrants...)
	baselines := len(e.Baselines)
	results := make([]metrics.EvalResult, len(opponents))
	m.Eval = map[string]metrics.EvalResult{}
	bar := progress.New(r.log, e.Games*len(opponents), stage(r.cfg, it, "evaluation", r.shownElapsed()), "games", r.opts.Quiet)
	for i, opp := range opponents {
		games := arenaConfig(r.cfg, iterationSeed(r.cfg.Seed, it)^uint64(i+1)<<32)
		games.OnGame = func(arena.GameRecord) { bar.Add(1) }
		records, err := arena.PlayMatch(ctx, current, opp, games)
		if err != nil {
			if ctx.Err() != nil {
				bar.Stop("interrupted")
			} else {
				bar.Stop("failed")
			}
			return err
		}
		if results[i], err = evalAgainst(records, networkName, opp.Name); err != nil {
			bar.Stop("failed")
			return err
		}
		if i < baselines {
			m.Eval[opp.Name] = results[i]
		}
	}
	bar.Finish()
	if len(rating.entrants) > 0 {
		if m.Rating, err = rateIteration(rating.earlier, it, results[baselines:], rating.snapshots); err != nil {
			return err
		}
	}
	return nil
}

// arenaConfig returns the arena settings of the evaluation section, with seed.
func arenaConfig(c runconfig.Config, seed uint64) arena.Config {
	return arena.Config{
		Rules:        c.Env.Rules,
		Games:        c.Eval.Games,
		Parallel:     c.Eval.ParallelGames,
		OpeningPlies: c.Eval.OpeningPlies,
		Seed:         seed,
	}
}

// evalAgainst sums up player's games against opponent in records: its
// score per game, its Elo relative to the opponent, and how the games
// ended (draws by kind and by the side ahead, length of the decided ones).
func evalAgainst(records []arena.GameRecord, player, opponent string) (metrics.EvalResult, error) {
	var games []arena.GameRecord
	for _, r := range records {
		if (r.Red == player && r.Blue == opponent) || (r.Red == opponent && r.Blue == player) {
			games = append(games, r)
		}
	}
	if len(games) == 0 {
		return metrics.EvalResult{}, fmt.Errorf("eval: %s played no game against %s", player, opponent)
	}
	ratings, err := elo.Fit(arena.Results(games), opponent)
	if err != nil {
		return metrics.EvalResult{}, err
	}
	points, n := arena.ScoreOf(games, player)
	conv := report.ConversionOf(games, player)
	res := metrics.EvalResult{Games: n, Score: points / float64(n), Conversion: &conv}
	for _, r := range ratings {
		if r.Player == player {
			res.Elo, res.EloLow, res.EloHigh = r.Elo, r.Low, r.High
		}
	}
	return res, nil
}

package train

import (
	"fmt"

	"github.com/deathstacks/deathstacks/train/eval"
	"github.com/deathstacks/deathstacks/train/metrics"
)

// arena returns the arena settings of the evaluation section, with seed.
func (c Config) arena(seed uint64) eval.ArenaConfig {
	return eval.ArenaConfig{
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
func evalAgainst(records []eval.GameRecord, player, opponent string) (metrics.EvalResult, error) {
	var games []eval.GameRecord
	for _, r := range records {
		if (r.Red == player && r.Blue == opponent) || (r.Red == opponent && r.Blue == player) {
			games = append(games, r)
		}
	}
	if len(games) == 0 {
		return metrics.EvalResult{}, fmt.Errorf("eval: %s played no game against %s", player, opponent)
	}
	ratings, err := eval.FitElo(eval.Results(games), opponent)
	if err != nil {
		return metrics.EvalResult{}, err
	}
	points, n := eval.ScoreOf(games, player)
	conv := eval.ConversionOf(games, player)
	res := metrics.EvalResult{Games: n, Score: points / float64(n), Conversion: &conv}
	for _, r := range ratings {
		if r.Player == player {
			res.Elo, res.EloLow, res.EloHigh = r.Elo, r.Low, r.High
		}
	}
	return res, nil
}

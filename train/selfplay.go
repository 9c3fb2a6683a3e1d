package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// selfPlayGame is one finished self-play game: its training samples (value
// targets filled in from the result), how it ended and what resignation
// did.
type selfPlayGame struct {
	Samples []Sample
	// SamplePlies holds, for each sample, the number of plies played
	// before its position (random opening plies included): every ply with
	// full searches, a share of them with playout cap randomization.
	SamplePlies []int
	// Moves are the moves played from the start position, random opening
	// plies included.
	Moves  []env.Move
	Plies  int
	Status env.Status
	// Resigned is set when a side resigned; Winner is then the other side.
	Resigned bool
	// Adjudicated is set when the game ended without a winner (move limit
	// or repetition) and the value targets come from the material count.
	Adjudicated bool
	// Winner is the winning side, valid when Won is set.
	Winner env.Color
	Won    bool
	// WouldResign is set in a game played out with resignation disabled
	// when a side's value fell below the threshold at some point;
	// ResignWrong says that side did not lose in the end.
	WouldResign, ResignWrong bool
}

// adjudicationScale is the material lead (in env.Position.Material points: 10
// per piece under control, 5 per stack) that a game cut off by the move
// limit scores as tanh(1), about 0.76, for the leading side.
const adjudicationScale = 60

// selfPlayer plays self-play games with one search per game, all games
// sharing one evaluator.
type selfPlayer struct {
	eval   mcts.Evaluator
	opts   env.Options
	search mcts.Config
	cfg    SelfPlayConfig
}

// play plays one game from the start position (plus the configured random
// opening plies, which never end the game) with the given seed.
func (sp *selfPlayer) play(ctx context.Context, seed uint64) (selfPlayGame, error) {
	rng := rand.New(rand.NewPCG(seed, 0x73656c66)) // "self"
	player, err := mcts.NewPUCTPlayer(sp.eval, sp.search, rng.Uint64())
	if err != nil {
		return selfPlayGame{}, err
	}
	game := env.NewGame(sp.opts.Rules)
	env.PlayOpening(game, sp.opts.OpeningPlies, rng) // as an environment reset starts
	opening := len(game.Moves())                     // seen starts after these plies
	canResign := sp.cfg.ResignThreshold > -1 && rng.Float64() >= sp.cfg.ResignPlayoutShare
	var (
		out     selfPlayGame
		seen    []env.Position // the position before each move, then the last one
		doubter = -1           // the side that would have resigned, in a played-out game
	)
	for !game.Status().Over() {
		if err := ctx.Err(); err != nil {
			return selfPlayGame{}, err
		}
		pos := game.Position()
		seen = append(seen, pos)
		d, recorded, err := sp.choose(player, game, rng)
		if err != nil {
			return selfPlayGame{}, fmt.Errorf("self-play ply %d: %w", pos.Ply(), err)
		}
		if recorded {
			out.Samples = append(out.Samples, searchSample(&pos, game, d))
			out.SamplePlies = append(out.SamplePlies, len(game.Moves()))
		}
		if sp.cfg.ResignThreshold > -1 && !math.IsNaN(d.Value) && d.Value < sp.cfg.ResignThreshold {
			if canResign {
				out.Resigned, out.Won, out.Winner = true, true, pos.SideToMove().Other()
				break
			}
			if doubter < 0 {
				doubter = int(pos.SideToMove())
			}
		}
		if err := game.Play(d.Move); err != nil {
			return selfPlayGame{}, fmt.Errorf("self-play: search chose an illegal move: %w", err)
		}
	}
	out.Moves = append([]env.Move(nil), game.Moves()...)
	out.Plies = len(game.Moves())
	out.Status = game.Status()
	if !out.Resigned {
		out.Winner, out.Won = out.Status.Winner()
		seen = append(seen, game.Position())
	}
	if doubter >= 0 {
		out.WouldResign = true
		out.ResignWrong = !out.Won || out.Winner == env.Color(doubter)
	}
	out.Adjudicated = sp.cfg.Adjudicate && !out.Won && (out.Status == env.MoveLimit || out.Status == env.DrawRepetition)
	for i, ply := range out.SamplePlies {
		// An adjudicated position is scored on the board the horizon later
		// (or the last one): close enough to be predictable from it, far
		// enough to see the exchanges under way.
		at, later := ply-opening, len(seen)-1
		if h := sp.cfg.AdjudicateHorizon; h > 0 {
			later = min(later, at+h)
		}
		out.Samples[i].Value = outcome(&out, &seen[later], seen[at].SideToMove(), sp.cfg.AdjudicateMax)
	}
	return out, nil
}

// outcome is the value target for the side that moved: +1 for a win, -1
// for a loss, and for an adjudicated game (one that ended without a
// winner) the material lead on the board judged, squashed into (-1, 1);
// 0 for a draw that is not adjudicated. An adjudicated value is at most
// limit in size, so that below 1 a won game is worth more than any lead. Early self-play games mostly reach
// the move limit, and a little later mostly repeat: scored as plain draws,
// they teach the value head that every position is worth 0, the search
// then sees no way to make progress, and self-play collapses into
// repetitions. The search itself still scores a repetition as exactly 0,
// so a side that is ahead keeps avoiding it.
func outcome(g *selfPlayGame, judged *env.Position, mover env.Color, limit float64) float32 {
	switch {
	case g.Resigned && g.Winner == mover:
		return 1
	case g.Resigned:
		return -1
	case g.Adjudicated:
		return float32(limit * math.Tanh(float64(judged.Material(mover))/adjudicationScale))
	}
	return g.Status.Reward(mover) // the environment's reward
}

// choose chooses the move of game's position: with playout cap
// randomization a full search (recorded as a training sample) with
// probability FullSearchShare and a fast one (not recorded) otherwise;
// without it, a full, recorded search every move.
func (sp *selfPlayer) choose(player *mcts.PUCTPlayer, game *env.Game, rng *rand.Rand) (d mcts.Decision, recorded bool, err error) {
	if sp.cfg.FastSimulations == 0 || rng.Float64() < sp.cfg.FullSearchShare {
		d, err = player.Choose(game)
		return d, true, err
	}
	d, err = player.ChooseSimulations(game, sp.cfg.FastSimulations)
	return d, false, err
}

// searchSample is the training sample of one searched position: its
// observation, every legal action and the search's policy target for it
// (the visit shares of a PUCT root, the improved policy of a Gumbel one).
func searchSample(pos *env.Position, game *env.Game, d mcts.Decision) Sample {
	rules := game.Rules()
	s := Sample{Obs: make([]float32, env.ObservationSize)}
	env.EncodeObservation(s.Obs, pos, rules, game.Repetitions())
	s.Legal = pos.LegalActions(nil, rules.TooTall)
	s.Policy = make([]float32, len(s.Legal))
	var total float32
	for j, a := range s.Legal {
		s.Policy[j] = d.Target[a]
		total += s.Policy[j]
	}
	if total == 0 {
		// A player without a search tree: the chosen move is the target.
		if a, err := env.ActionOf(d.Move); err == nil {
			for j := range s.Legal {
				if s.Legal[j] == a {
					s.Policy[j], total = 1, 1
				}
			}
		}
	}
	for j := range s.Policy {
		s.Policy[j] /= total
	}
	return s
}

// selfPlayStats sums up the games of one iteration.
type selfPlayStats struct {
	Games, Positions, Plies              int
	RedWins, BlueWins, Draws, MoveLimits int
	Resigned, Adjudicated                int
	Playouts, ResignWrong                int
	Seconds                              float64
}

func (s *selfPlayStats) add(g *selfPlayGame) {
	s.Games++
	s.Positions += len(g.Samples)
	s.Plies += g.Plies
	switch {
	case g.Won && g.Winner == env.Red:
		s.RedWins++
	case g.Won:
		s.BlueWins++
	case g.Status == env.MoveLimit:
		s.MoveLimits++
	default:
		s.Draws++
	}
	if g.Resigned {
		s.Resigned++
	}
	if g.Adjudicated {
		s.Adjudicated++
	}
	if g.WouldResign {
		s.Playouts++
		if g.ResignWrong {
			s.ResignWrong++
		}
	}
}

// runSelfPlay plays n games, parallel at a time, and hands each finished
// game to done in the order they finish. Game i uses seed seeds(i), so an
// iteration's games do not depend on how the goroutines interleave.
func (sp *selfPlayer) runSelfPlay(ctx context.Context, n, parallel int, seed uint64, done func(selfPlayGame)) (selfPlayStats, error) {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	results := make(chan selfPlayGame)
	errs := make(chan error, parallel)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				g, err := sp.play(ctx, gameSeed(seed, i))
				if err != nil {
					errs <- err
					cancel()
					return
				}
				select {
				case results <- g:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := 0; i < n; i++ {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var stats selfPlayStats
	for g := range results {
		stats.add(&g)
		done(g)
	}
	stats.Seconds = time.Since(start).Seconds()
	select {
	case err := <-errs:
		return stats, err
	default:
	}
	return stats, ctx.Err()
}

// gameSeed derives the seed of game i of an iteration.
func gameSeed(seed uint64, i int) uint64 {
	x := seed ^ uint64(i+1)*0x9E3779B97F4A7C15
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	return x ^ x>>29
}

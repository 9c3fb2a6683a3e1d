package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/stepped"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// Sample is one training position: an observation, its legal actions with
// the search's move distribution over them, and the game's result for the
// side to move. It is the network's training sample.
type Sample = model.Sample

// SelfPlayGame is one finished self-play game, as [SelfPlay] hands it out:
// the game as played, its training samples (built by
// [PlayedGame.Samples]), how it ended and what resignation did.
type SelfPlayGame struct {
	// PlayedGame is the game as played: its moves, whether it ended by
	// resignation (the last sample's position is then the one after all
	// the moves, where the side to move gave up; winner is the other
	// side) and what the search of each recorded position gave.
	PlayedGame
	// Samples are the recorded positions with their targets, in order.
	Samples []Sample
	// SamplePlies holds the number of moves played before each sample's
	// position (random opening plies included): every ply after the
	// opening, or a share of them with playout cap randomization
	// (selfplay.fast_simulations).
	SamplePlies []int
	// status is the status of the game's last position.
	status env.Status
	// adjudicated is set when the game ended without a winner (move limit
	// or repetition) and the value targets come from the material count.
	adjudicated bool
	// winner is the winning side, valid when won is set.
	winner env.Color
	won    bool
	// replayed counts the moves of an earlier game it started with (a
	// late start), which self-play did not search.
	replayed int
	// wouldResign is set in a game played out with resignation disabled
	// when a side's value fell below the threshold at some point;
	// resignWrong says that side did not lose in the end.
	wouldResign, resignWrong bool
}

// Winner returns the side that won the game, by the rules or by the
// other side's resignation, and true; false for a game without a winner.
func (g *SelfPlayGame) Winner() (env.Color, bool) { return g.winner, g.won }

// adjudicationScale is the material lead (in env.Position.Material points: 10
// per piece under control, 5 per stack) that a game cut off by the move
// limit scores as tanh(1), about 0.76, for the leading side.
const adjudicationScale = 60

// selfPlayer plays self-play games, one search per game.
type selfPlayer struct {
	opts   env.Options
	search mcts.Config
	cfg    runconfig.SelfPlayConfig
	// targets says which optional targets the samples get.
	targets targetSet
	// starts are the moves of earlier games, for selfplay.late_start_share.
	starts [][]env.Move
}

// targetSet is the optional targets (see model.Sample) self-play records:
// those the network's auxiliary heads and the replay's surprise weighting
// use.
type targetSet struct {
	reply, final, surprise bool
}

// newSelfPlayer returns the self-player of cfg at the run's progress (0 at its start, 1 at its end): the search's simulations
// follow selfplay.progressive_simulations, and the samples get the
// optional targets that cfg's network and replay use.
func newSelfPlayer(cfg runconfig.Config, progress float64) *selfPlayer {
	search := cfg.Search
	search.Simulations = simulations(cfg.SelfPlay, search.Simulations, progress)
	return &selfPlayer{
		opts: cfg.Env, search: search, cfg: cfg.SelfPlay, targets: targetsOf(cfg),
	}
}

// targetsOf is the optional targets cfg's network and replay use.
func targetsOf(cfg runconfig.Config) targetSet {
	return targetSet{
		reply:    cfg.Model.ReplyHead,
		final:    cfg.Model.OwnershipHead || cfg.Model.ScoreHead,
		surprise: cfg.Replay.SurpriseShare > 0,
	}
}

// simulations is MiniZero's progressive simulation: the full searches'
// simulations at the run's progress (0 to 1), rising linearly from
// ProgressiveSimulations to full. The start never lies below the fast
// searches nor above the full one, so a start at or above full (or a
// search without a simulation limit, full 0) leaves every full search
// at full; 0 is off.
func simulations(c runconfig.SelfPlayConfig, full int, progress float64) int {
	if c.ProgressiveSimulations == 0 || full == 0 {
		return full
	}
	start := min(max(c.ProgressiveSimulations, c.FastSimulations), full)
	progress = min(max(progress, 0), 1)
	return start + int(math.Round(progress*float64(full-start)))
}

// play plays one game on eval from the start position (plus the
// configured random opening plies, which never end the game, or a late
// start) with the given seed.
func (sp *selfPlayer) play(ctx context.Context, eval mcts.Evaluator, seed uint64) (SelfPlayGame, error) {
	rng := rand.New(rand.NewPCG(seed, 0x73656c66)) // "self"
	player, err := mcts.NewPUCTPlayer(eval, sp.search, rng.Uint64())
	if err != nil {
		return SelfPlayGame{}, err
	}
	game := env.NewGame(sp.opts.Rules)
	replayed, err := sp.lateStart(game, rng)
	if err != nil {
		return SelfPlayGame{}, err
	}
	if replayed == 0 {
		env.PlayOpening(game, sp.opts.OpeningPlies, rng) // as an environment reset starts
	}
	canResign := sp.cfg.ResignThreshold > -1 && rng.Float64() >= sp.cfg.ResignPlayoutShare
	var (
		played  PlayedGame
		doubter = -1 // the side that would have resigned, in a played-out game
		// recordedLast says the last searched position was recorded: the
		// next search is its reply target.
		recordedLast bool
	)
	for !game.Status().Over() {
		if err := ctx.Err(); err != nil {
			return SelfPlayGame{}, err
		}
		pos := game.Position()
		d, recorded, err := sp.choose(player, game, rng)
		if err != nil {
			return SelfPlayGame{}, fmt.Errorf("self-play ply %d: %w", pos.Ply(), err)
		}
		if sp.targets.reply && recordedLast {
			_, played.Positions[len(played.Positions)-1].Reply = compactTarget(&pos, game.Rules(), d.Target)
		}
		if recordedLast = recorded; recorded {
			p, err := sp.searched(eval, &pos, game, d)
			if err != nil {
				return SelfPlayGame{}, fmt.Errorf("self-play ply %d: %w", pos.Ply(), err)
			}
			played.Positions = append(played.Positions, p)
		}
		if sp.cfg.ResignThreshold > -1 && !math.IsNaN(d.Value) && d.Value < sp.cfg.ResignThreshold {
			if canResign {
				played.Resigned = true
				break
			}
			if doubter < 0 {
				doubter = int(pos.SideToMove())
			}
		}
		if err := game.Play(d.Move); err != nil {
			return SelfPlayGame{}, fmt.Errorf("self-play: search chose an illegal move: %w", err)
		}
	}
	played.Moves = append([]env.Move(nil), game.Moves()...)
	out, err := played.samples(sp.opts.Rules, sp.cfg, sp.targets, nil)
	if err != nil {
		return SelfPlayGame{}, fmt.Errorf("self-play: %w", err)
	}
	out.replayed = replayed
	if doubter >= 0 {
		out.wouldResign = true
		out.resignWrong = !out.won || out.winner == env.Color(doubter)
	}
	return out, nil
}

// lateStart plays into game, with probability selfplay.late_start_share
// when there are earlier games, the moves of one of them up to a ply
// drawn from its second half, and returns how many it played (0: none).
// It draws nothing from rng when the share is 0, so that the games are
// those of a run without the setting.
func (sp *selfPlayer) lateStart(game *env.Game, rng *rand.Rand) (int, error) {
	if sp.cfg.LateStartShare == 0 || len(sp.starts) == 0 || rng.Float64() >= sp.cfg.LateStartShare {
		return 0, nil
	}
	src := sp.starts[rng.IntN(len(sp.starts))]
	half := len(src) / 2
	moves := src[:half+rng.IntN(len(src)-half)]
	for _, m := range moves {
		if err := game.Play(m); err != nil {
			return 0, fmt.Errorf("self-play: a late start from an earlier game: %w", err)
		}
	}
	return len(moves), nil
}

// searched is what the search d of pos, a recorded position of game,
// gave: its policy target, root value and, when the replay weighs
// samples by it, its surprise on eval.
func (sp *selfPlayer) searched(eval mcts.Evaluator, pos *env.Position, game *env.Game, d mcts.Decision) (SearchedPosition, error) {
	s := searchSample(pos, game, d)
	p := SearchedPosition{Ply: len(game.Moves()), Policy: s.Policy, Value: d.Value}
	if sp.targets.surprise {
		var err error
		if p.Surprise, err = surprise(eval, s); err != nil {
			return SearchedPosition{}, err
		}
	}
	return p, nil
}

// ownership is the owner of each square of the judged board from mover's
// view: +1 mover's stack on top, -1 the opponent's, 0 empty.
func ownership(judged *env.Position, mover env.Color) []float32 {
	out := make([]float32, env.NumSquares)
	for q := range env.NumSquares {
		switch st := judged.At(env.Square(q)); {
		case st.Empty():
		case st.Top() == mover:
			out[q] = 1
		default:
			out[q] = -1
		}
	}
	return out
}

// materialScore is mover's material lead on the judged board as
// adjudication scales it, tanh(lead / 60).
func materialScore(judged *env.Position, mover env.Color) float32 {
	return float32(math.Tanh(float64(judged.Material(mover)) / adjudicationScale))
}

// compactTarget is a search target over the legal actions of pos,
// normalised; nil, nil when the target has no mass there (a player
// without a search tree).
func compactTarget(pos *env.Position, rules env.Rules, target map[env.Action]float32) ([]env.Action, []float32) {
	legal := pos.LegalActions(nil, rules.TooTall)
	p := make([]float32, len(legal))
	var total float32
	for j, a := range legal {
		p[j] = target[a]
		total += p[j]
	}
	if total == 0 {
		return nil, nil
	}
	for j := range p {
		p[j] /= total
	}
	return legal, p
}

// surprise is KL(s.Policy || prior) of the network's prior for s's
// position (on eval), in nats: how much the search changed the policy.
func surprise(eval mcts.Evaluator, s Sample) (float32, error) {
	prior := [][]float32{make([]float32, len(s.Legal))}
	value := []float32{0}
	if err := eval.Evaluate(s.Obs, [][]env.Action{s.Legal}, prior, value); err != nil {
		return 0, fmt.Errorf("prior for the surprise: %w", err)
	}
	var kl float64
	for j, t := range s.Policy {
		if t > 0 {
			kl += float64(t) * math.Log(float64(t)/max(float64(prior[0][j]), 1e-12))
		}
	}
	return float32(max(kl, 0)), nil
}

// outcome is the value target for the side that moved: +1 for a win, -1
// for a loss, and for an adjudicated game (one that ended without a
// winner) the material lead on the board judged, squashed into (-1, 1);
// 0 for a draw that is not adjudicated. An adjudicated value is at most
// cfg.AdjudicateMax in size, so that below 1 a won game is worth more
// than any lead, and counts at most cfg.AdjudicateStackCap pieces of a
// stack (0: all). Early self-play games mostly reach the move limit, and
// a little later mostly repeat: scored as plain draws, they teach the
// value head that every position is worth 0, the search then sees no way
// to make progress, and self-play collapses into repetitions. The search
// itself still scores a repetition as exactly 0, so a side that is ahead
// keeps avoiding it.
func outcome(g *SelfPlayGame, judged *env.Position, mover env.Color, cfg runconfig.SelfPlayConfig) float32 {
	switch {
	case g.Resigned && g.winner == mover:
		return 1
	case g.Resigned:
		return -1
	case g.adjudicated:
		var lead int
		if h := cfg.AdjudicateStackCap; h > 0 {
			lead = judged.MaterialUpTo(mover, h)
		} else {
			lead = judged.Material(mover)
		}
		return float32(cfg.AdjudicateMax * math.Tanh(float64(lead)/adjudicationScale))
	}
	return g.status.Reward(mover) // the environment's reward
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

// selfPlayStats sums up the games of one iteration. Plies counts the
// moves self-play played: a late start's replayed moves are not among
// them.
type selfPlayStats struct {
	Games, Positions, Plies              int
	RedWins, BlueWins, Draws, MoveLimits int
	Resigned, Adjudicated                int
	Playouts, ResignWrong                int
	// Evaluated counts the positions the network evaluated, in Batches
	// network runs.
	Evaluated, Batches int64
	Seconds            float64
}

func (s *selfPlayStats) add(g *SelfPlayGame) {
	s.Games++
	s.Positions += len(g.Samples)
	s.Plies += len(g.Moves) - g.replayed
	switch {
	case g.won && g.winner == env.Red:
		s.RedWins++
	case g.won:
		s.BlueWins++
	case g.status == env.MoveLimit:
		s.MoveLimits++
	default:
		s.Draws++
	}
	if g.Resigned {
		s.Resigned++
	}
	if g.adjudicated {
		s.Adjudicated++
	}
	if g.wouldResign {
		s.Playouts++
		if g.resignWrong {
			s.ResignWrong++
		}
	}
}

// runSelfPlay plays n games, atOnce at a time, each in a search slot of
// stepped.Drive on the lanes' evaluators (one lane a core, see lanes),
// and hands each finished game with its number to done in the order they
// finish, one call at a time; an error of done, or a game's, stops the
// games, as does the end of ctx. Game i uses seed env.GameSeed(seed, i),
// so an iteration's games do not depend on how the searches interleave.
func (sp *selfPlayer) runSelfPlay(ctx context.Context, lanes []mcts.Evaluator, n, atOnce int, seed uint64, done func(int, SelfPlayGame) error) (selfPlayStats, error) {
	start := time.Now()
	var (
		stats selfPlayStats
		mu    sync.Mutex // guards stats and the calls of done
		next  atomic.Int64
	)
	slot := func(eval mcts.Evaluator) error {
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			i := next.Add(1) - 1
			if i >= int64(n) {
				return nil
			}
			g, err := sp.play(ctx, eval, env.GameSeed(seed, int(i)))
			if err != nil {
				return err
			}
			mu.Lock()
			stats.add(&g)
			err = done(int(i), g)
			mu.Unlock()
			if err != nil {
				return err
			}
		}
	}
	works := make([]stepped.Work, min(max(atOnce, 1), n))
	for i := range works {
		works[i] = slot
	}
	evaluated, err := stepped.Drive(works, sp.search.BatchSize, lanes)
	stats.Evaluated, stats.Batches = evaluated.Positions, evaluated.Batches
	stats.Seconds = time.Since(start).Seconds()
	if ctxErr := context.Cause(ctx); ctxErr != nil && err != nil {
		err = ctxErr
	}
	return stats, err
}

// lanes is an evaluator for each of self-play's lanes (the network's
// goroutines, server.workers of them): eval itself in each, or, for a
// network, an engine of its own in each for batches of up to
// server.max_batch positions.
func lanes(eval mcts.Evaluator, c model.ServerConfig) ([]mcts.Evaluator, error) {
	out := make([]mcts.Evaluator, max(c.Workers, 1))
	for i := range out {
		out[i] = eval
		if net, ok := eval.(*model.Network); ok {
			e, err := net.NewEngine(c.MaxBatch)
			if err != nil {
				return nil, fmt.Errorf("self-play: %w", err)
			}
			out[i] = e
		}
	}
	return out, nil
}

// SelfPlay plays self-play games with cfg's rules, search and self-play
// settings on eval, cfg.SelfPlay.ParallelGames at a time, and hands each
// finished one to done, until ctx ends (its error is then returned, as is
// the first error of a game or of done). Game i is seeded from seed and i.
// The games' searches are batched in cfg.Server.Workers lanes: a
// *model.Network gets an engine of its own in each, and any other
// evaluator is called by all of them at once.
func SelfPlay(ctx context.Context, cfg runconfig.Config, eval mcts.Evaluator, seed uint64, done func(SelfPlayGame) error) error {
	return SelfPlayGames(ctx, cfg, eval, seed, math.MaxInt, func(_ int, g SelfPlayGame) error { return done(g) })
}

// SelfPlayGames plays games 0 to n-1 of [SelfPlay] (the same games for
// the same seed), cfg.SelfPlay.ParallelGames at a time, and hands each
// finished one with its number to done, in the order they finish. Its
// searches take search.simulations: a run's progress, which
// selfplay.progressive_simulations follows, is the run's to know. It
// returns nil once all n have finished, or the first error of a game or
// of done, or ctx's end.
func SelfPlayGames(ctx context.Context, cfg runconfig.Config, eval mcts.Evaluator, seed uint64, n int, done func(int, SelfPlayGame) error) error {
	evals, err := lanes(eval, cfg.Server)
	if err != nil {
		return err
	}
	_, err = newSelfPlayer(cfg, 1).runSelfPlay(ctx, evals, n, cfg.SelfPlay.ParallelGames, seed, done)
	return err
}

// PlaySelfPlayGame plays game i of [SelfPlayGames] with the same cfg and
// seed, on eval: the same game, whichever evaluator runs the network, for
// a caller that schedules the games itself.
func PlaySelfPlayGame(ctx context.Context, cfg runconfig.Config, eval mcts.Evaluator, seed uint64, i int) (SelfPlayGame, error) {
	return newSelfPlayer(cfg, 1).play(ctx, eval, env.GameSeed(seed, i))
}

package binding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/stepped"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// SelfPlay plays the Go trainer's self-play games (train.SelfPlayGames:
// its settings, targets and seeds) with the caller's evaluator, and keeps
// the finished games. selfplay.parallel_games slots of a stepped.Run
// the caller steps play them, each game after game.
type SelfPlay struct {
	cfg runconfig.Config
	// run is the run under way or the last one; games its games by
	// number, valid once it has ended without an error.
	run   *stepped.Run
	games []train.SelfPlayGame
}

// NewSelfPlay reads a JSON object of keyword settings over the trainer's
// defaults (SelfPlayConfig).
func NewSelfPlay(settings string) (*SelfPlay, error) {
	cfg, err := SelfPlayConfig(settings)
	if err != nil {
		return nil, err
	}
	return &SelfPlay{cfg: cfg}, nil
}

// Config returns the settings.
func (r *SelfPlay) Config() runconfig.Config { return r.cfg }

// Start begins n games, seeded from seed as the trainer seeds an
// iteration's games, and returns the run; the caller steps it to its end
// and then reads the games.
func (r *SelfPlay) Start(n int64, seed uint64) (*stepped.Run, error) {
	if underWay(r.run) {
		return nil, errors.New("self-play: games are under way: evaluate their leaves to the end, or abort them")
	}
	if n < 1 || n > 1<<24 {
		return nil, fmt.Errorf("self-play: %d games: want 1 to %d", n, 1<<24)
	}
	cfg, games := r.cfg, make([]train.SelfPlayGame, n)
	var claimed atomic.Int64
	works := make([]stepped.Work, min(int64(cfg.SelfPlay.ParallelGames), n))
	for k := range works {
		works[k] = func(eval mcts.Evaluator) error {
			for {
				i := claimed.Add(1) - 1
				if i >= n {
					return nil
				}
				g, err := train.PlaySelfPlayGame(context.Background(), cfg, eval, seed, int(i))
				if err != nil {
					return fmt.Errorf("game %d: %w", i, err)
				}
				games[i] = g
			}
		}
	}
	r.run, r.games = stepped.New(works, cfg.Search.BatchSize, model.LegalSoftmax), games
	return r.run, nil
}

// Games returns the games of the last run, which must have ended without
// an error.
func (r *SelfPlay) Games() ([]train.SelfPlayGame, error) {
	if err := outcome(r.run); err != nil {
		return nil, fmt.Errorf("self-play: %w", err)
	}
	return r.games, nil
}

// Size returns the number of training samples of the last run.
func (r *SelfPlay) Size() (int64, error) {
	games, err := r.Games()
	total := 0
	for _, g := range games {
		total += len(g.Samples)
	}
	return int64(total), err
}

// Samples writes the last run's n training samples, game by game, into
// the caller's arrays (nil to skip one): observations, legal masks,
// policy targets over every action, value targets, and each sample's game
// and the plies played before it (train.DenseSamples).
func (r *SelfPlay) Samples(n int, obs []float32, mask []bool, policy, value []float32, game, ply []int64) error {
	d := train.DenseSamples{Obs: obs, Mask: mask, Policy: policy, Value: value, Game: game, Ply: ply}
	return r.writeSamples("self-play samples", n, d)
}

// Targets writes the last run's n samples' targets for the trainer's
// auxiliary heads into the caller's arrays (nil to skip one): the
// opponent's reply over every action and whether there is one, the final
// owner of each square (n*36) and the material lead on the final board
// (train.DenseSamples).
func (r *SelfPlay) Targets(n int, reply []float32, hasReply []bool, ownership, score []float32) error {
	d := train.DenseSamples{Reply: reply, HasReply: hasReply, Ownership: ownership, Score: score}
	return r.writeSamples("self-play targets", n, d)
}

// writeSamples writes the last run's n samples into d's arrays; what
// names the call in errors.
func (r *SelfPlay) writeSamples(what string, n int, d train.DenseSamples) error {
	games, err := r.Games()
	if err != nil {
		return err
	}
	if total, _ := r.Size(); int64(n) != total {
		return fmt.Errorf("%s: arrays for %d samples, the games have %d", what, n, total)
	}
	if err := d.Write(games); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Results writes each game's length in plies, its winner (0 red, 1
// blue, -1 none) and whether it ended by resignation into the caller's
// arrays (nil to skip one), n games each.
func (r *SelfPlay) Results(n int, plies, winner []int64, resigned []bool) error {
	games, err := r.Games()
	if err != nil {
		return err
	}
	if n != len(games) {
		return fmt.Errorf("self-play games: arrays for %d games, played %d", n, len(games))
	}
	if err := errors.Join(checkLen("plies", plies, n), checkLen("winners", winner, n), checkLen("resigned", resigned, n)); err != nil {
		return fmt.Errorf("self-play games: %w", err)
	}
	for i, g := range games {
		if plies != nil {
			plies[i] = int64(len(g.Moves))
		}
		if winner != nil {
			winner[i] = -1
			if c, ok := g.Winner(); ok {
				winner[i] = int64(c) // as the environments' infos: 0 red, 1 blue
			}
		}
		if resigned != nil {
			resigned[i] = g.Resigned
		}
	}
	return nil
}

// Moves returns the moves of the last run's games as a JSON list of
// lists.
func (r *SelfPlay) Moves() (string, error) {
	games, err := r.Games()
	if err != nil {
		return "", err
	}
	out := make([][]string, len(games))
	for i, g := range games {
		out[i] = make([]string, len(g.Moves))
		for j, m := range g.Moves {
			out[i][j] = m.String()
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// Symmetries writes the eight symmetries of the board (env.Symmetry) as
// permutations, for augmenting samples as the trainer's replay window
// does: symmetry y sends square s to squares[y*36+s] and action a to
// actions[y*6912+a].
func Symmetries(squares, actions []int64) error {
	if err := errors.Join(checkLen("squares", squares, env.NumSymmetries*env.NumSquares),
		checkLen("actions", actions, env.NumSymmetries*env.NumActions)); err != nil || squares == nil || actions == nil {
		return fmt.Errorf("symmetries: want arrays of 8x36 and 8x6912: %w", err)
	}
	for y := range env.Symmetry(env.NumSymmetries) {
		for s := range env.NumSquares {
			squares[int(y)*env.NumSquares+s] = int64(y.Square(env.Square(s)))
		}
		for a := range env.NumActions {
			actions[int(y)*env.NumActions+a] = int64(y.Action(env.Action(a)))
		}
	}
	return nil
}

package train

import (
	"errors"
	"fmt"

	"github.com/deathstacks/deathstacks/env"
)

// DenseSamples are arrays of training samples with one row per sample,
// the samples of one game after another, for a learner outside Go
// (numpy, PyTorch): targets over every action rather than over the legal
// ones. A nil array is not written.
type DenseSamples struct {
	// Obs holds each sample's observation (env.ObservationSize values).
	Obs []float32
	// Mask holds each sample's legal actions (env.NumActions).
	Mask []bool
	// Policy holds each sample's policy target over every action
	// (env.NumActions), zero for an illegal one.
	Policy []float32
	// Value holds each sample's value target.
	Value []float32
	// Game holds each sample's game, by its index in the games written,
	// and Ply the plies played before the sample.
	Game, Ply []int64
	// Reply holds the opponent's reply target over every action
	// (env.NumActions): the next searched position's policy target,
	// zero where HasReply is false (no search followed).
	Reply    []float32
	HasReply []bool
	// Ownership holds the final owner of each square (env.NumSquares)
	// from the side to move's view, on the board the value target is
	// judged on.
	Ownership []float32
	// Score holds the material lead on the final board as tanh(lead / 60).
	Score []float32
}

// Write writes the samples of games into d's arrays, each of which (but
// a nil one) must have a row for every sample: an error names an array
// of another length.
func (d DenseSamples) Write(games []SelfPlayGame) error {
	n := 0
	for _, g := range games {
		n += len(g.Samples)
	}
	if err := errors.Join(rows("observations", d.Obs, n, env.ObservationSize), rows("masks", d.Mask, n, env.NumActions),
		rows("policy", d.Policy, n, env.NumActions), rows("values", d.Value, n, 1), rows("games", d.Game, n, 1),
		rows("plies", d.Ply, n, 1), rows("replies", d.Reply, n, env.NumActions), rows("has_reply", d.HasReply, n, 1),
		rows("ownership", d.Ownership, n, env.NumSquares), rows("score", d.Score, n, 1)); err != nil {
		return err
	}
	k := 0
	for i, g := range games {
		for j, s := range g.Samples {
			d.write(k, i, g.SamplePlies[j], &s)
			k++
		}
	}
	return nil
}

// write writes sample s, the k-th, of game i at ply into d's rows k.
func (d DenseSamples) write(k, i, ply int, s *Sample) {
	const a = env.NumActions
	if d.Obs != nil {
		copy(d.Obs[k*env.ObservationSize:(k+1)*env.ObservationSize], s.Obs)
	}
	if d.Mask != nil {
		m := d.Mask[k*a : (k+1)*a]
		clear(m)
		for _, act := range s.Legal {
			m[act] = true
		}
	}
	if d.Policy != nil {
		scatter(d.Policy[k*a:(k+1)*a], s.Legal, s.Policy)
	}
	if d.Value != nil {
		d.Value[k] = s.Value
	}
	if d.Game != nil {
		d.Game[k] = int64(i)
	}
	if d.Ply != nil {
		d.Ply[k] = int64(ply)
	}
	if d.Reply != nil {
		scatter(d.Reply[k*a:(k+1)*a], s.ReplyLegal, s.Reply)
	}
	if d.HasReply != nil {
		d.HasReply[k] = s.Reply != nil
	}
	if d.Ownership != nil {
		copy(d.Ownership[k*env.NumSquares:(k+1)*env.NumSquares], s.Ownership)
	}
	if d.Score != nil {
		d.Score[k] = s.Score
	}
}

// scatter writes weights over the actions into row, which holds every
// action: zero for the others.
func scatter(row []float32, actions []env.Action, weights []float32) {
	clear(row)
	for l, act := range actions {
		row[act] = weights[l]
	}
}

// rows reports an array (nil for none) that does not hold n rows of
// size entries.
func rows[T any](what string, buf []T, n, size int) error {
	if buf != nil && len(buf) != n*size {
		return fmt.Errorf("%s has %d entries, want %d", what, len(buf), n*size)
	}
	return nil
}

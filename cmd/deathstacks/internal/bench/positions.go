package bench

import (
	"math/rand/v2"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

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

// newPositionPool collects n positions from seeded random games.
func newPositionPool(rng *rand.Rand, n int) positionPool {
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

package model

import (
	"math"
	"math/rand/v2"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/graph"
)

// This file holds test helpers: a plain-Go forward pass and loss that the
// gorgonia graphs are checked against, and sample positions.

// refConv is a same-size convolution of in (cin planes of 36) with w
// (cout, cin, k, k), plus a per-output bias b (nil for none).
func refConv(in []float64, cin int, w []float32, cout, k int, b []float32) []float64 {
	out := make([]float64, cout*env.NumSquares)
	r := k / 2
	for o := range cout {
		for y := range graph.BoardSide {
			for x := range graph.BoardSide {
				var s float64
				if b != nil {
					s = float64(b[o])
				}
				for i := range cin {
					for dy := range k {
						for dx := range k {
							yy, xx := y+dy-r, x+dx-r
							if yy < 0 || yy >= graph.BoardSide || xx < 0 || xx >= graph.BoardSide {
								continue
							}
							s += float64(w[((o*cin+i)*k+dy)*k+dx]) * in[i*env.NumSquares+yy*graph.BoardSide+xx]
						}
					}
				}
				out[o*env.NumSquares+y*graph.BoardSide+x] = s
			}
		}
	}
	return out
}

func refRelu(v []float64) []float64 {
	for i, x := range v {
		v[i] = max(x, 0)
	}
	return v
}

// refForward is the network's forward pass for one observation, written
// directly from the architecture's description.
func refForward(cfg Config, w [][]float32, obs []float32) (logits []float64, value float64) {
	ch := cfg.Channels
	in := make([]float64, len(obs))
	for i, x := range obs {
		in[i] = float64(x)
	}
	h := refRelu(refConv(in, env.NumPlanes, w[0], ch, 3, w[1]))
	p := w[2:]
	for range cfg.Blocks {
		r := refRelu(refConv(h, ch, p[0], ch, 3, p[1]))
		r = refConv(r, ch, p[2], ch, 3, p[3])
		for i := range h {
			h[i] = max(h[i]+r[i], 0)
		}
		p = p[4:]
	}
	logits = refConv(h, ch, p[0], graph.PolicyPlanes, 1, nil)
	for a := range logits {
		logits[a] += float64(p[1][a])
	}
	v := refRelu(refConv(h, ch, p[2], cfg.ValuePlanes, 1, p[3]))
	hidden := make([]float64, cfg.ValueHidden)
	for j := range hidden {
		s := float64(p[5][j])
		for q, x := range v {
			s += x * float64(p[4][q*cfg.ValueHidden+j])
		}
		hidden[j] = max(s, 0)
	}
	s := float64(p[7][0])
	for j, x := range hidden {
		s += x * float64(p[6][j])
	}
	return logits, math.Tanh(s)
}

// refLosses is the policy cross-entropy and value squared error of one
// sample, computed in float64 from reference logits.
func refLosses(logits []float64, value float64, s Sample) (policy, valueLoss float64) {
	top := math.Inf(-1)
	for _, a := range s.Legal {
		top = max(top, logits[a])
	}
	var sum float64
	for _, a := range s.Legal {
		sum += math.Exp(logits[a] - top)
	}
	lse := top + math.Log(sum)
	for j, a := range s.Legal {
		policy -= float64(s.Policy[j]) * (logits[a] - lse)
	}
	d := value - float64(s.Value)
	return policy, d * d
}

// samplePositions plays seeded random games and returns n samples from
// them, with one-hot policy targets on a random legal action and random
// results.
func samplePositions(rng *rand.Rand, n int) []Sample {
	var out []Sample
	rules := env.DefaultRules()
	for len(out) < n {
		g := env.NewGame(rules)
		for ply := 0; ply < 60 && !g.Status().Over() && len(out) < n; ply++ {
			p := g.Position()
			obs := make([]float32, env.ObservationSize)
			env.EncodeObservation(obs, &p, rules, g.Repetitions())
			legal := p.LegalActions(nil, rules.TooTall)
			pol := make([]float32, len(legal))
			pol[rng.IntN(len(legal))] = 1
			out = append(out, Sample{Obs: obs, Legal: legal, Policy: pol, Value: float32(rng.IntN(3) - 1)})
			moves := g.LegalMoves(nil)
			if err := g.Play(moves[rng.IntN(len(moves))]); err != nil {
				panic(err) // a generated legal move; the engine is broken
			}
		}
	}
	return out
}

// evalArgs lays samples out as Evaluate's arguments.
func evalArgs(samples []Sample) (obs []float32, legal [][]env.Action, priors [][]float32, values []float32) {
	for _, s := range samples {
		obs = append(obs, s.Obs...)
		legal = append(legal, s.Legal)
		priors = append(priors, make([]float32, len(s.Legal)))
	}
	return obs, legal, priors, make([]float32, len(samples))
}

// tinyConfig keeps tests fast under -race.
var tinyConfig = Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 16}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

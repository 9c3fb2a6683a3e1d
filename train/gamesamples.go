package train

import (
	"fmt"
	"math"
	"slices"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// PlayedGame is a finished self-play game as its searches left it: the
// moves, whether it ended by resignation, and what the search of each
// recorded position gave. Its training samples, every target included,
// are built from it alone by [PlayedGame.Samples]: on the machine that
// played it, and on a learner that received it from an actor.
type PlayedGame struct {
	// Moves are all the moves played, random opening plies included.
	Moves []env.Move
	// Resigned says the side to move after all the moves gave up.
	Resigned bool
	// Positions are the recorded positions, in the order played.
	Positions []SearchedPosition
}

// SearchedPosition is what the search of one recorded position of a
// [PlayedGame] gave.
type SearchedPosition struct {
	// Ply is the number of moves played before the position.
	Ply int
	// Policy is the search's target over the position's legal actions
	// (env's order), summing to 1.
	Policy []float32
	// Value is the search's root value for the side to move, which
	// selfplay.search_value_share mixes into the value target; NaN for
	// none.
	Value float64
	// Reply is the next position's search target over that position's
	// legal actions, summing to 1; nil when no search followed or the
	// reply head is off.
	Reply []float32
	// Surprise is KL(Policy || the network's prior) in nats; 0 when not
	// recorded.
	Surprise float32
}

// SampleMemory holds the observations and legal actions of the samples
// [PlayedGame.Samples] builds, and the positions it replays, for a caller
// that builds many games' in turn: the next game's go where the last
// one's were.
type SampleMemory struct {
	obs       []float32
	legal     []env.Action
	positions []env.Position
}

// Samples replays g under cfg's rules and builds its training samples:
// each recorded position's observation and legal actions, its policy
// target, its value target from the game's end and cfg's self-play
// settings (adjudication, search_value_share), its reply target, and the
// final ownership and score when cfg's network has those heads. It is
// how self-play builds its games' samples. It fails
// for an illegal move, positions whose plies do not increase within the
// moves, a game that ends too early or not at all, or a target that is
// not one. The samples' observations and legal actions go to mem, grown
// as needed (nil: new memory), and share its memory.
func (g *PlayedGame) Samples(cfg runconfig.Config, mem *SampleMemory) (SelfPlayGame, error) {
	return g.samples(cfg.Env.Rules, cfg.SelfPlay, targetsOf(cfg), mem)
}

// samples is [PlayedGame.Samples] under rules and cfg, with the optional
// targets of targets that come from the game's end.
func (g *PlayedGame) samples(rules env.Rules, cfg runconfig.SelfPlayConfig, targets targetSet, mem *SampleMemory) (SelfPlayGame, error) {
	out := SelfPlayGame{PlayedGame: *g}
	last := len(g.Moves) - 1 // the last ply searched
	if g.Resigned {
		last++ // the position resigned in has no move
	}
	for i, p := range g.Positions {
		if p.Ply > last || (i > 0 && p.Ply <= g.Positions[i-1].Ply) {
			return out, fmt.Errorf("position %d at ply %d: want increasing plies up to %d (of %d moves, resigned: %v)", i, p.Ply, last, len(g.Moves), g.Resigned)
		}
		if p.Reply != nil && p.Ply >= last {
			return out, fmt.Errorf("position %d at ply %d: a reply target without a searched position after it", i, p.Ply)
		}
	}
	if mem == nil {
		mem = new(SampleMemory)
	}
	mem.obs = slices.Grow(mem.obs[:0], len(g.Positions)*env.ObservationSize)
	obs := mem.obs // within its capacity: the same array
	mem.legal = mem.legal[:0]
	// legal appends pos's legal actions to mem: a sample's actions keep
	// the array they were appended to, also when a later append moves
	// the rest.
	legal := func(pos *env.Position) []env.Action {
		at := len(mem.legal)
		mem.legal = pos.LegalActions(mem.legal, rules.TooTall)
		return mem.legal[at:len(mem.legal):len(mem.legal)]
	}
	game := env.NewGame(rules)
	mem.positions = slices.Grow(mem.positions[:0], len(g.Moves)+1)
	positions := mem.positions // within its capacity: the same array
	out.Samples = make([]Sample, 0, len(g.Positions))
	out.SamplePlies = make([]int, 0, len(g.Positions))
	for ply, next := 0, 0; ; ply++ {
		pos := game.Position()
		positions = append(positions, pos)
		if next > 0 && g.Positions[next-1].Reply != nil && g.Positions[next-1].Ply == ply-1 {
			s := &out.Samples[next-1]
			s.ReplyLegal, s.Reply = legal(&pos), g.Positions[next-1].Reply
		}
		if next < len(g.Positions) && g.Positions[next].Ply == ply {
			if game.Status().Over() {
				return out, fmt.Errorf("ply %d: a position after the end of the game (%v)", ply, game.Status())
			}
			p := g.Positions[next]
			at := len(obs)
			obs = obs[:at+env.ObservationSize]
			s := Sample{Obs: obs[at:len(obs):len(obs)], Legal: legal(&pos), Policy: p.Policy, Surprise: p.Surprise}
			env.EncodeObservation(s.Obs, &pos, rules, game.Repetitions())
			out.Samples = append(out.Samples, s)
			out.SamplePlies = append(out.SamplePlies, ply)
			next++
		}
		if ply == len(g.Moves) {
			break
		}
		if err := game.Play(g.Moves[ply]); err != nil {
			return out, fmt.Errorf("ply %d: %w", ply, err)
		}
	}
	out.status = game.Status()
	if g.Resigned {
		out.won, out.winner = true, positions[len(positions)-1].SideToMove().Other()
	} else if !out.status.Over() {
		return out, fmt.Errorf("the game goes on after its %d moves", len(g.Moves))
	} else {
		out.winner, out.won = out.status.Winner()
	}
	out.adjudicated = cfg.Adjudicate && !out.won && (out.status == env.MoveLimit || out.status == env.DrawRepetition)
	for i, p := range g.Positions {
		s := &out.Samples[i]
		setResultTargets(s, &out, positions, p, cfg, targets.final)
		if err := s.Validate(); err != nil {
			return out, fmt.Errorf("ply %d: %w", p.Ply, err)
		}
	}
	return out, nil
}

// setResultTargets sets the targets of s, the sample of the searched
// position p, that come from the game's end: its value and, with final,
// the final ownership and score. positions holds every position of the
// game, the one after all its moves last.
func setResultTargets(s *Sample, g *SelfPlayGame, positions []env.Position, p SearchedPosition, cfg runconfig.SelfPlayConfig, final bool) {
	// An adjudicated position is scored on the board the horizon later
	// (or the last one): close enough to be predictable from it, far
	// enough to see the exchanges under way.
	mover, last := positions[p.Ply].SideToMove(), &positions[len(positions)-1]
	later := len(positions) - 1
	if h := cfg.AdjudicateHorizon; h > 0 {
		later = min(later, p.Ply+h)
	}
	s.Value = outcome(g, &positions[later], mover, cfg)
	if w := cfg.SearchValueShare; w > 0 && !math.IsNaN(p.Value) {
		s.Value = float32((1-w)*float64(s.Value) + w*p.Value)
	}
	if final {
		// Ownership on the board the value is judged on (the final one,
		// or the horizon's of an adjudicated game); the score on the
		// final board, which an adjudicated value does not see.
		judged := last
		if g.adjudicated {
			judged = &positions[later]
		}
		s.Ownership, s.Score, s.Final = ownership(judged, mover), materialScore(last, mover), true
	}
}

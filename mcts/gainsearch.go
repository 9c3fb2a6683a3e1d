package mcts

import (
	"math/bits"

	"github.com/deathstacks/deathstacks/env"
)

// gainSearch looks, at the root of a won ending, for a forced gain of
// material that the tree search misses: an alpha-beta search of a few
// plies on the material count (env.Position.Material), full width, the
// captures first. Far ahead, the network values every quiet move near +1
// and the tree's material term sees a capture only when its visits reach
// it, so a capture that needs a threat first (the defender must answer,
// then the stack falls) goes unplayed for hundreds of plies; an exhaustive
// search of four plies finds it, as the alpha-beta baselines do. It is the
// MCTS-minimax hybrid of Baier and Winands ("MCTS-minimax hybrids", 2015)
// at the root only. A node budget bounds the work, so that it costs the
// same on any machine; a search cut short by it gains nothing.
type gainSearch struct {
	rules env.Rules
	moves [gainSearchMaxPlies + 1][]env.Move
	// nodes counts the positions searched, budget bounds them; stopped
	// says the budget ran out.
	nodes, budget int64
	stopped       bool
}

// gainSearchMaxPlies is the deepest gain search.
const gainSearchMaxPlies = 6

// gainMinLead is the material lead of the side to move from which it looks
// for a forced gain: some six pieces, where the value head has saturated
// (see Config.Contempt's tanh(lead/60)).
const gainMinLead = 60

// gainMinimum is the gain, in material, that the search must force to
// decide the move: one of the defender's stacks (a piece and a stack) net.
const gainMinimum = env.PieceMaterial + env.StackMaterial

// find returns the move of pos that forces the largest material gain
// within plies plies, if that gain is at least gainMinimum and the budget
// of positions sufficed, and the positions searched.
func (g *gainSearch) find(pos *env.Position, rules env.Rules, plies int, budget int64) (best env.Move, ok bool, nodes int64) {
	g.rules, g.nodes, g.budget, g.stopped = rules, 0, budget, false
	side := pos.SideToMove()
	now := pos.Material(side)
	alpha := now + gainMinimum - 1
	for _, m := range g.ordered(pos, 0) {
		child := *pos
		child.Apply(m)
		v := -g.negamax(&child, plies-1, -env.WinMaterial-1, -alpha, 1)
		if g.stopped {
			return env.Move{}, false, g.nodes
		}
		if v > alpha {
			alpha, best, ok = v, m, true
		}
	}
	return best, ok, g.nodes
}

// negamax returns the material score of pos for its side to move, searched
// depth plies, within (alpha, beta).
func (g *gainSearch) negamax(pos *env.Position, depth, alpha, beta, ply int) int {
	g.nodes++
	if g.nodes > g.budget {
		g.stopped = true
		return 0
	}
	if pos.Finished() || depth == 0 {
		// A won position scores WinMaterial: a shorter win is no better
		// here, where any forced win is a forced gain.
		return pos.Material(pos.SideToMove())
	}
	for _, m := range g.ordered(pos, ply) {
		child := *pos
		child.Apply(m)
		v := -g.negamax(&child, depth-1, -beta, -alpha, ply+1)
		if g.stopped {
			return 0
		}
		if v > alpha {
			alpha = v
			if alpha >= beta {
				break
			}
		}
	}
	return alpha
}

// ordered generates the legal moves of pos into the list of ply, the
// captures first.
func (g *gainSearch) ordered(pos *env.Position, ply int) []env.Move {
	moves := pos.LegalMoves(g.moves[ply][:0], g.rules.TooTall)
	g.moves[ply] = moves
	theirs := pos.Controlled(pos.SideToMove().Other())
	n := 0
	for i, m := range moves {
		if theirs&(1<<m.To) != 0 {
			moves[i], moves[n] = moves[n], moves[i]
			n++
		}
	}
	return moves
}

// forcedGain runs the gain search at the root when it is on and the side
// to move is far ahead of a defender of few stacks, and returns the
// decision to play the move of the largest forced gain it finds: the
// tree's root value, the move as the whole training target.
func (s *search) forcedGain() (Decision, bool) {
	plies := s.cfg.GainSearchPlies
	side := s.rootPos.SideToMove()
	theirs := bits.OnesCount64(s.rootPos.Controlled(side.Other()))
	if plies == 0 || theirs > pressureStacks || s.rootPos.Material(side) < gainMinLead {
		return Decision{}, false
	}
	m, ok, nodes := s.gain.find(&s.rootPos, s.rules, plies, int64(s.cfg.WinSearchNodes))
	s.known += nodes
	if !ok {
		return Decision{}, false
	}
	root := &s.nodes[0]
	for c := root.first; c < root.first+int32(root.count); c++ {
		if s.nodes[c].move == m {
			return s.decision(c, map[env.Action]float32{env.Action(s.nodes[c].action): 1}), true
		}
	}
	return Decision{}, false // not reached: the move is legal
}

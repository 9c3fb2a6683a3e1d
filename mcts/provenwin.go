package mcts

import (
	"math/bits"

	"github.com/deathstacks/deathstacks/env"
)

// provenWin runs the win search at the root when it is on and the
// opponent has few enough stacks for a win within its plies, and returns
// the decision to play a shortest win it proves: value 1, the win's line
// as the principal variation, its length in plies as Depth and Score
// env.WinMaterial minus that length (alpha-beta's score of the win), and
// the winning move as the whole training target. A timed search gives it a quarter of its time at most.
func (s *search) provenWin() (Decision, bool) {
	plies := s.cfg.WinSearchPlies
	theirs := bits.OnesCount64(s.rootPos.Controlled(s.rootPos.SideToMove().Other()))
	if plies == 0 || s.cfg.WinSearchNodes == 0 || theirs > (plies+1)/2 {
		return Decision{}, false
	}
	line, dist, nodes := s.win.Find(&s.rootPos, s.rules, s.history, plies, int64(s.cfg.WinSearchNodes), s.clock.Share(1, 4))
	s.known += nodes
	if dist == 0 {
		return Decision{}, false
	}
	root := s.nodes.At(0)
	for c := root.First; c < root.First+int32(root.Count); c++ {
		if s.nodes.At(c).Move == line[0] {
			d := s.decision(c, map[env.Action]float32{env.Action(s.nodes.At(c).Action): 1})
			d.Value, d.Depth, d.Score = 1, dist, env.WinMaterial-dist
			if d.Move == line[0] {
				d.PV = line
			}
			return d, true
		}
	}
	return Decision{}, false // not reached: the win's first move is legal
}

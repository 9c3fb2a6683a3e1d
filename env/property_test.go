package env

import (
	"math/rand/v2"
	"testing"
)

// propertySamples are the positions the property tests share: long random
// games (half of them with the too-tall rule off, so that tall stacks grow)
// and scattered random positions.
func propertySamples() []sample { return samples(8, 40, 300, 2000) }

func TestPropertiesPerPosition(t *testing.T) {
	mask := make([]bool, NumActions)
	var buf [256]Move
	for i, smp := range propertySamples() {
		p := smp.pos
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("sample %d %q (too-tall %v): "+format, append([]any{i, p.FEN(), smp.tooTall}, args...)...)
		}
		red, blue := p.Pieces(Red), p.Pieces(Blue)
		if p.Ply() > 0 && (red != piecesPerSide || blue != piecesPerSide) {
			fail("%d red and %d blue pieces after %d plies", red, blue, p.Ply())
		}
		if p.Hash() != p.computeHash() {
			fail("incremental hash %x, from scratch %x", p.Hash(), p.computeHash())
		}
		if p.control != p.computeControl() {
			fail("incremental control %x, from scratch %x", p.control, p.computeControl())
		}
		back, err := ParseFEN(p.FEN())
		if err != nil || !back.SameAs(&p) || back.Hash() != p.Hash() || back.SideToMove() != p.SideToMove() {
			fail("FEN round trip: %q, %v", back.FEN(), err)
		}

		moves := p.LegalMoves(buf[:0], smp.tooTall)
		if p.Finished() != (len(moves) == 0) {
			fail("finished %v with %d moves", p.Finished(), len(moves))
		}
		p.legalMask(mask, smp.tooTall)
		actions := p.LegalActions(nil, smp.tooTall)
		inMask := 0
		for _, legal := range mask {
			if legal {
				inMask++
			}
		}
		if inMask != len(moves) || len(actions) != len(moves) {
			fail("%d moves, %d actions, %d in the mask", len(moves), len(actions), inMask)
		}
		for j, m := range moves {
			if err := p.CheckMove(m, smp.tooTall); err != nil {
				fail("generated move rejected: %v", err)
			}
			a, err := ActionOf(m)
			if err != nil || a != actions[j] || !mask[a] {
				fail("move %v: action %d (%v), LegalActions has %d, mask %v", m, a, err, actions[j], mask[a])
			}
			if back, err := MoveOf(a); err != nil || back != m {
				fail("MoveOf(ActionOf(%v)) = %v, %v", m, back, err)
			}
			child := p
			child.Apply(m)
			if child.Pieces(Red) != red || child.Pieces(Blue) != blue {
				fail("%v changes the piece counts", m)
			}
			if child.Hash() != child.computeHash() || child.Hash() == p.Hash() {
				fail("after %v: hash %x, from scratch %x", m, child.Hash(), child.computeHash())
			}
			if child.control != child.computeControl() {
				fail("after %v: control %x, from scratch %x", m, child.control, child.computeControl())
			}
			if after := [2]uint64{p.ControlledAfter(m, Red), p.ControlledAfter(m, Blue)}; after != child.control {
				fail("ControlledAfter(%v) = %x, after playing it %x", m, after, child.control)
			}
			if child.SideToMove() == p.SideToMove() || child.Ply() != p.Ply()+1 {
				fail("after %v: side %v ply %d", m, child.SideToMove(), child.Ply())
			}
			child.undo(m)
			if child != p {
				fail("Apply then Undo of %v gives %q", m, child.FEN())
			}
		}
	}
}

func TestLegalMovesAreExactlyWhatCheckMoveAccepts(t *testing.T) {
	all := propertySamples()
	n := 300
	if raceEnabled {
		n = 40 // each position takes 36*24*36 CheckMove calls
	}
	for i := 0; i < n; i++ {
		smp := all[i*len(all)/n]
		p := smp.pos
		legal := moveSet(t, p.LegalMoves(nil, smp.tooTall))
		accepted := 0
		for from := Square(0); from < NumSquares; from++ {
			for k := 1; k <= maxHeight; k++ {
				for to := Square(0); to < NumSquares; to++ {
					m := Move{From: from, To: to, Count: uint8(k)}
					err := p.CheckMove(m, smp.tooTall)
					if (err == nil) != legal[m] {
						t.Fatalf("%q (too-tall %v): %v generated %v, CheckMove says %v", p.FEN(), smp.tooTall, m, legal[m], err)
					}
					if err == nil {
						accepted++
					}
				}
			}
		}
		if accepted != len(legal) {
			t.Fatalf("%q: CheckMove accepts %d moves, %d generated", p.FEN(), accepted, len(legal))
		}
	}
}

// greedyMove picks, among the moves, one that leaves the opponent the
// fewest stacks, breaking ties at random: a policy that ends games.
func greedyMove(rng *rand.Rand, p *Position, moves []Move) Move {
	best, bestN, ties := moves[0], NumSquares+1, 0
	for _, m := range moves {
		child := *p
		child.Apply(m)
		n := bitCount(child.Controlled(child.SideToMove()))
		switch {
		case n < bestN:
			best, bestN, ties = m, n, 1
		case n == bestN:
			ties++
			if rng.IntN(ties) == 0 {
				best = m
			}
		}
	}
	return best
}

func TestGamesEnd(t *testing.T) {
	// Through Game.Play every ending is one the rules name, with the right
	// winner; greedy play ends most games on the board.
	rng := newRNG(9)
	ends := map[Status]int{}
	var buf [256]Move
	for game := range 60 {
		g := NewGame(Rules{TooTall: game%2 == 0, MaxPlies: 300, RepetitionLimit: 3})
		for !g.Status().Over() {
			moves := g.LegalMoves(buf[:0])
			m := moves[rng.IntN(len(moves))]
			if game%3 != 0 {
				p := g.Position()
				m = greedyMove(rng, &p, moves)
			}
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		p := g.Position()
		switch st := g.Status(); st {
		case RedWins, BlueWins:
			if w, _ := st.Winner(); w != p.SideToMove().Other() || !p.Finished() {
				t.Errorf("game %d: %v with %v to move", game, st, p.SideToMove())
			}
		case DrawRepetition:
			if g.Repetitions() != 3 {
				t.Errorf("game %d: draw after %d occurrences", game, g.Repetitions())
			}
		case MoveLimit:
			if p.Ply() != 300 {
				t.Errorf("game %d: move limit at ply %d", game, p.Ply())
			}
		default:
			t.Errorf("game %d ended as %v", game, st)
		}
		ends[g.Status()]++
	}
	t.Logf("endings: %v", ends)
	if ends[RedWins] == 0 || ends[BlueWins] == 0 || ends[MoveLimit] == 0 {
		t.Errorf("endings %v: want wins for both sides and random games reaching the limit", ends)
	}
}

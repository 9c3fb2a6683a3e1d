package env

import (
	"math/rand/v2"
	"testing"
)

// newRNG returns a generator with a fixed seed, so that any failure replays.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// mustFEN parses a FEN fixture or stops the test.
func mustFEN(tb testing.TB, fen string) Position { tb.Helper(); return must(tb, ParseFEN, fen) }

// mustMove parses a move fixture or stops the test.
func mustMove(tb testing.TB, text string) Move { tb.Helper(); return must(tb, ParseMove, text) }

// mustAction returns the action of a move fixture or stops the test.
func mustAction(tb testing.TB, m Move) Action { tb.Helper(); return must(tb, ActionOf, m) }

// must converts a fixture with f or stops the test.
func must[In, Out any](tb testing.TB, f func(In) (Out, error), fixture In) Out {
	tb.Helper()
	v, err := f(fixture)
	if err != nil {
		tb.Fatalf("fixture %v: %v", fixture, err)
	}
	return v
}

// sample is a position for property tests with the too-tall setting it is
// played under.
type sample struct {
	pos     Position
	tooTall bool
}

// playout plays up to plies uniformly random legal moves from p under the
// given too-tall setting, calling visit (if not nil) before each move and
// once more at the end; it stops early on a finished position and returns
// the number of plies played.
func playout(rng *rand.Rand, p Position, plies int, tooTall bool, visit func(p Position)) int {
	var buf [256]Move
	for i := 0; ; i++ {
		if visit != nil {
			visit(p)
		}
		moves := p.LegalMoves(buf[:0], tooTall)
		if i == plies || len(moves) == 0 {
			return i
		}
		p.Apply(moves[rng.IntN(len(moves))])
	}
}

// randomPosition scatters a random number of red and blue pieces, shuffled,
// in stacks of random heights on random squares, with a random side to move.
// It reaches what random play seldom does: several stacks taller than 4 for
// both sides, very tall stacks, fewer than 12 pieces, finished positions.
func randomPosition(rng *rand.Rand) Position {
	pieces := make([]Color, 0, maxHeight)
	for range 1 + rng.IntN(piecesPerSide) {
		pieces = append(pieces, Red)
	}
	for range 1 + rng.IntN(piecesPerSide) {
		pieces = append(pieces, Blue)
	}
	rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
	tallest := []int{2, 8, maxHeight}[rng.IntN(3)]
	var stacks [NumSquares]Stack
	squares := rng.Perm(NumSquares)
	for i := 0; len(pieces) > 0; i++ {
		n := 1 + rng.IntN(min(len(pieces), tallest))
		stacks[squares[i]] = NewStack(pieces[:n]...)
		pieces = pieces[n:]
	}
	p, err := NewPosition(stacks, Color(rng.IntN(2)))
	if err != nil {
		panic(err) // at most 12 pieces a colour by construction
	}
	return p
}

// samples returns varied positions: every position of seeded random games
// from the start (half with the too-tall rule, half without, so that tall
// stacks grow) and scattered random positions under both settings.
func samples(seed uint64, games, plies, scattered int) []sample {
	rng := newRNG(seed)
	var out []sample
	for g := range games {
		tooTall := g%2 == 0
		playout(rng, StartPosition(), plies, tooTall, func(p Position) {
			out = append(out, sample{p, tooTall})
		})
	}
	for i := range scattered {
		out = append(out, sample{randomPosition(rng), i%2 == 0})
	}
	return out
}

// moveSet returns the moves as a set, reporting duplicates.
func moveSet(tb testing.TB, moves []Move) map[Move]bool {
	tb.Helper()
	set := make(map[Move]bool, len(moves))
	for _, m := range moves {
		if set[m] {
			tb.Errorf("move %v generated twice", m)
		}
		set[m] = true
	}
	return set
}

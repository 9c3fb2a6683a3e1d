package winsearch

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/clock"
	"github.com/deathstacks/deathstacks/mcts/internal/testgames"
)

// defaultBudget is the positions of the search's default configuration
// (mcts.DefaultConfig's WinSearchNodes).
const defaultBudget = 500_000

// bruteWins reports, by exhaustive search, whether the side to move of pos
// wins within d plies, a position already on line (or in it) ending a line
// as a failed attack: the rules of Search, without its table, move
// order or pruning.
func bruteWins(pos env.Position, d int, line []uint64) bool {
	for _, m := range pos.LegalMoves(nil, true) {
		child := pos
		child.Apply(m)
		if child.Finished() {
			return true
		}
		if d >= 3 && !slices.Contains(line, child.Hash()) && bruteLoses(child, d-1, append(line, child.Hash())) {
			return true
		}
	}
	return false
}

// bruteLoses reports whether every move of the side to move of pos loses
// within d plies.
func bruteLoses(pos env.Position, d int, line []uint64) bool {
	for _, m := range pos.LegalMoves(nil, true) {
		child := pos
		child.Apply(m)
		if child.Finished() || slices.Contains(line, child.Hash()) || !bruteWins(child, d-1, append(line, child.Hash())) {
			return false
		}
	}
	return true
}

// bruteShortestWin returns the plies of a shortest win of pos within
// maxPlies, or 0.
func bruteShortestWin(pos env.Position, maxPlies int) int {
	for d := 1; d <= maxPlies; d += 2 {
		if bruteWins(pos, d, []uint64{pos.Hash()}) {
			return d
		}
	}
	return 0
}

func TestWinSearchAgreesWithBruteForce(t *testing.T) {
	// Small random positions: the win search finds a win exactly when an
	// exhaustive search does, of the same shortest length, and its line
	// is a legal win.
	seed := uint64(11)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	var w Search
	found := map[int]int{}
	for try := 0; try < 150; try++ {
		pos, err := testgames.RandomSmallPosition(rng)
		if err != nil || pos.Finished() {
			continue
		}
		want := bruteShortestWin(pos, 5)
		line, got, _ := w.Find(&pos, env.DefaultRules(), []uint64{pos.Hash()}, 5, 1<<40, clock.Clock{})
		if got != want {
			t.Fatalf("%s: win search says %d plies (%v), brute force %d", pos.FEN(), got, line, want)
		}
		if got > 0 {
			if len(line) != got {
				t.Errorf("%s: a win of %d plies with the line %v", pos.FEN(), got, line)
			}
			testgames.CheckWin(t, pos, line)
		}
		found[want]++
	}
	if found[3] == 0 || found[5] == 0 {
		t.Fatalf("wins found by length: %v: want some of 3 and of 5 plies", found)
	}
	t.Logf("positions by shortest win (0 = none within 5 plies): %v", found)
}

func TestWinSearchReusedAgreesWithAFreshOne(t *testing.T) {
	// One search called more often than its table's generations wrap
	// (256) finds what a fresh search finds each time: no entry of an
	// earlier call is taken for this call's.
	rng := rand.New(rand.NewPCG(13, 5))
	var reused Search
	calls := 0
	for calls < 300 {
		pos, err := testgames.RandomSmallPosition(rng)
		if err != nil || pos.Finished() {
			continue
		}
		var fresh Search
		history := []uint64{pos.Hash()}
		_, want, _ := fresh.Find(&pos, env.DefaultRules(), history, 5, 1<<40, clock.Clock{})
		line, got, _ := reused.Find(&pos, env.DefaultRules(), history, 5, 1<<40, clock.Clock{})
		if got != want {
			t.Fatalf("call %d, %s: reused search says %d plies (%v), a fresh one %d", calls, pos.FEN(), got, line, want)
		}
		calls++
	}
}

func TestWinTTSize(t *testing.T) {
	for _, tc := range []struct {
		budget int64
		want   int
	}{
		{-1, 1 << winTTMinBits},
		{0, 1 << winTTMinBits},
		{5_000, 1 << winTTMinBits},
		{20_000, 1 << 12},
		{80_000, 1 << 14},
		{500_000, 1 << winTTMaxBits},
		{1 << 40, 1 << winTTMaxBits},
	} {
		t.Run(fmt.Sprint(tc.budget), func(t *testing.T) {
			if got := winTTSize(tc.budget); got != tc.want {
				t.Errorf("winTTSize(%d) = %d, want %d", tc.budget, got, tc.want)
			}
		})
	}
	// A reused search's table grows with a larger budget and keeps its
	// size for a smaller one.
	pos := testgames.Position(t, noWinFENs[0])
	var w Search
	for _, tc := range []struct {
		budget int64
		want   int
	}{{20_000, 1 << 12}, {500_000, 1 << 16}, {5_000, 1 << 16}} {
		w.Find(&pos, env.DefaultRules(), nil, 9, tc.budget, clock.Clock{})
		if len(w.tt) != tc.want {
			t.Errorf("after a search of %d positions: a table of %d entries, want %d", tc.budget, len(w.tt), tc.want)
		}
	}
}

func TestAttacksFilterAndOrderByRank(t *testing.T) {
	// Over random small positions (captures of stacks of every height),
	// with and without a best move, for every bound on the defender's
	// stacks: attacks returns exactly the legal moves that leave the
	// defender at most that many, by rank: best first, then captures by
	// the captured stack's height, then the rest in the order of
	// LegalMoves.
	rng := rand.New(rand.NewPCG(12, 5))
	w := Search{rules: env.DefaultRules()}
	checked := 0
	for try := 0; try < 300; try++ {
		pos, err := testgames.RandomSmallPosition(rng)
		if err != nil || pos.Finished() {
			continue
		}
		moves := pos.LegalMoves(nil, w.rules.TooTall)
		defender := pos.SideToMove().Other()
		for _, best := range []env.Move{{}, moves[rng.IntN(len(moves))]} {
			for left := range 6 {
				rank := func(m env.Move) int {
					switch to := pos.At(m.To); {
					case m == best && m.Count > 0:
						return 100
					case !to.Empty() && to.Top() == defender:
						return 1 + to.Height()
					}
					return 0
				}
				want := slices.DeleteFunc(slices.Clone(moves), func(m env.Move) bool {
					child := pos
					child.Apply(m)
					return bits.OnesCount64(child.Controlled(defender)) > left
				})
				got := slices.Clone(w.attacks(&pos, 0, best, left))
				if !sameMoves(got, want) {
					t.Fatalf("%s, best %v, at most %d stacks left: %v, want the moves %v", pos.FEN(), best, left, got, want)
				}
				for i := 1; i < len(got); i++ {
					if rank(got[i]) > rank(got[i-1]) {
						t.Fatalf("%s, best %v, at most %d stacks left: %v out of rank order at %d", pos.FEN(), best, left, got, i)
					}
				}
				rest := slices.DeleteFunc(slices.Clone(got), func(m env.Move) bool { return rank(m) > 0 })
				wantRest := slices.DeleteFunc(want, func(m env.Move) bool { return rank(m) > 0 })
				if !slices.Equal(rest, wantRest) {
					t.Fatalf("%s, best %v, at most %d stacks left: the rest %v, want %v", pos.FEN(), best, left, rest, wantRest)
				}
				if len(want) > 0 {
					checked++
				}
			}
		}
	}
	if checked < 300 {
		t.Fatalf("%d non-empty lists checked: want 300 or more", checked)
	}
}

// sameMoves reports whether a and b hold the same moves in any order.
func sameMoves(a, b []env.Move) bool {
	less := func(x, y env.Move) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), cmp.Compare(x.Count, y.Count))
	}
	return slices.Equal(slices.SortedFunc(slices.Values(a), less), slices.SortedFunc(slices.Values(b), less))
}

func TestWinSearchFindsTheDeepWin(t *testing.T) {
	pos := testgames.Position(t, testgames.DeepWinFEN)
	var w Search
	line, plies, nodes := w.Find(&pos, env.DefaultRules(), nil, 9, defaultBudget, clock.Clock{})
	if plies != 7 || len(line) != 7 {
		t.Fatalf("found %d plies (%v) in %d positions: want a win of 7 plies", plies, line, nodes)
	}
	testgames.CheckWin(t, pos, line)
	again, _, nodes2 := w.Find(&pos, env.DefaultRules(), nil, 9, defaultBudget, clock.Clock{})
	if !slices.Equal(line, again) || nodes != nodes2 {
		t.Errorf("second search: %v in %d positions, first %v in %d: want the same", again, nodes2, line, nodes)
	}
	// Only captures are tried where the defender has as many stacks as
	// the attacker has moves left: without that, 300,572 positions.
	if nodes > 100_000 {
		t.Errorf("the win took %d positions: want at most 100,000", nodes)
	}
}

// lostRootFEN is a position of a game against alphabeta:depth=4 where a
// nine-ply win takes nearly all of the budget: the table has lost the
// root's entry by then, and the line's own searches run out of positions.
const lostRootFEN = ",rbbb,,rb,,/,,brbb,rb,,/,r,br,,,/,,,,,/,,,rb,,/,rrbb,,rrr,, r"

func TestWinSearchKeepsTheMoveOfAWinAtTheEndOfItsBudget(t *testing.T) {
	pos := testgames.Position(t, lostRootFEN)
	var w Search
	line, plies, nodes := w.Find(&pos, env.DefaultRules(), nil, 9, defaultBudget, clock.Clock{})
	if plies != 9 || len(line) == 0 {
		t.Fatalf("found %d plies (%v) in %d positions: want a win of 9 plies and its first move", plies, line, nodes)
	}
	if !pos.IsLegal(line[0], true) {
		t.Fatalf("first move %v is illegal", line[0])
	}
}

func TestWinSearchLimits(t *testing.T) {
	pos := testgames.Position(t, testgames.DeepWinFEN)
	var children []uint64
	for _, m := range pos.LegalMoves(nil, true) {
		c := pos
		c.Apply(m)
		children = append(children, c.Hash())
	}
	cases := []struct {
		name    string
		rules   func(env.Rules) env.Rules
		ply     int
		history []uint64
		budget  int64
		want    bool
	}{
		{"found", nil, 0, nil, 1 << 30, true},
		{"budget too small", nil, 0, nil, 1000, false},
		{"move limit just far enough", func(r env.Rules) env.Rules { r.MaxPlies = 107; return r }, 100, nil, 1 << 30, true},
		{"move limit one ply short", func(r env.Rules) env.Rules { r.MaxPlies = 106; return r }, 100, nil, 1 << 30, false},
		{"every move repeats a position", nil, 0, children, 1 << 30, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rules := env.DefaultRules()
			if tc.rules != nil {
				rules = tc.rules(rules)
			}
			p := pos
			p.SetPly(tc.ply)
			var w Search
			line, plies, nodes := w.Find(&p, rules, tc.history, 9, tc.budget, clock.Clock{})
			if ok := plies > 0; ok != tc.want || !ok && nodes > tc.budget+1 {
				t.Errorf("found %d plies (%v) in %d positions: want a win %v within %d", plies, line, nodes, tc.want, tc.budget)
			}
		})
	}
}

func TestWinSearchStopsAtItsDeadline(t *testing.T) {
	pos := testgames.Position(t, testgames.DeepWinFEN)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := clock.Start(time.Second, func() time.Time { return now })
	now = now.Add(2 * time.Second)
	var w Search
	_, plies, nodes := w.Find(&pos, env.DefaultRules(), nil, 9, 1<<30, c)
	if plies > 0 || nodes > 1024 {
		t.Errorf("past its deadline: found %d plies in %d positions: want nothing within 1024", plies, nodes)
	}
}

// BenchmarkWinSearch proves the seven-ply win of testgames.DeepWinFEN, with a
// history of 200 plies as late in a game; it reports positions a second.
func BenchmarkWinSearch(b *testing.B) {
	pos, err := env.ParseFEN(testgames.DeepWinFEN)
	if err != nil {
		b.Fatal(err)
	}
	history := make([]uint64, 200)
	for i := range history {
		history[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	var w Search
	var nodes int64
	for b.Loop() {
		_, plies, n := w.Find(&pos, env.DefaultRules(), history, 9, 1<<30, clock.Clock{})
		if plies != 7 {
			b.Fatalf("found %d plies", plies)
		}
		nodes += n
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "positions/s")
}

// noWinFENs are positions of the built-in player at 50 simulations against
// a random player in which the defender is down to few enough stacks for
// the win search to run, but no win within nine plies exists: most of a
// player's win-search work is in such searches.
var noWinFENs = []string{
	"r,,,r,r,r/,,,,,/br,,,b,,/br,,brrr,bbb,bb,/,brrr,,,,/,,,bb,, b",
	"r,r,,r,,/,,,r,,/,,bbr,brr,brr,/,,bb,bbb,bb,/,brrr,,,,/,,,,, b",
	"rr,,,,,/,,,r,,/brr,,b,,br,/,bb,bb,,bbrrr,brrr/,,,,,/bb,,,,, b",
	"r,r,,,,/r,,,,,bbrr/,br,brr,,,/,br,b,bb,,/,,,brrr,,/b,,bb,,, b",
}

// BenchmarkWinSearchFails runs the win search of nine plies on each of
// noWinFENs to its end; a run is the four searches.
func BenchmarkWinSearchFails(b *testing.B) {
	positions := make([]env.Position, len(noWinFENs))
	for i, fen := range noWinFENs {
		var err error
		if positions[i], err = env.ParseFEN(fen); err != nil {
			b.Fatal(err)
		}
	}
	var w Search
	var nodes int64
	for b.Loop() {
		for i := range positions {
			_, plies, n := w.Find(&positions[i], env.DefaultRules(), nil, 9, 1<<30, clock.Clock{})
			if plies != 0 {
				b.Fatalf("%s: found a win of %d plies", noWinFENs[i], plies)
			}
			nodes += n
		}
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "positions/op")
}

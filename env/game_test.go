package env

import (
	"errors"
	"strings"
	"testing"
)

// playAll plays moves in notation, stopping the test on an illegal one.
func playAll(tb testing.TB, g *Game, moves ...string) {
	tb.Helper()
	for _, text := range moves {
		if err := g.Play(mustMove(tb, text)); err != nil {
			tb.Fatalf("play %s: %v", text, err)
		}
	}
}

func TestWin(t *testing.T) {
	tests := []struct {
		name, fen, move string
		want            Status
	}{
		{"red takes the last blue stack", "r,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r", "a6-1-a5", RedWins},
		{"blue takes the last red stack", "r,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b", "a5-1-a6", BlueWins},
		{"red covers a tall blue stack", "rr,,,,,/,,,,,/bbbb,,,,,/,,,,,/,,,,,/,,,,, r", "a6-2-a4", RedWins},
		{"blue stack left", "r,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r", "a6-1-a5", Ongoing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			g := NewGameFrom(p, DefaultRules())
			mover := p.SideToMove()
			playAll(t, g, tt.move)
			if g.Status() != tt.want {
				t.Fatalf("status %v, want %v", g.Status(), tt.want)
			}
			if tt.want == Ongoing {
				return
			}
			if w, ok := g.Status().Winner(); !ok || w != mover {
				t.Errorf("winner %v %v, want the mover %v", w, ok, mover)
			}
			if moves := g.LegalMoves(nil); len(moves) != 0 {
				t.Errorf("won game has moves %v", moves)
			}
			err := g.Play(Move{From: 0, To: 1, Count: 1})
			if !errors.Is(err, ErrGameOver) {
				t.Errorf("play after the end: %v, want ErrGameOver", err)
			}
		})
	}
}

func TestFinishedPositions(t *testing.T) {
	tests := []struct {
		name, fen string
		want      Status
		winner    Color
		won       bool
	}{
		{"blue to move, no blue stack", "rb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,r b", RedWins, Red, true},
		{"red to move, no red stack", "br,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,b r", BlueWins, Blue, true},
		{"red to move, no blue stack", "rbbbbb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r", RedWins, Red, true},
		{"blue to move, no red stack", ",,,,,/,,,,,/,,,,,/,,bbbrrr,,,/,,,,,/,,,,, b", BlueWins, Blue, true},
		{"empty board", ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r", NoStacks, Red, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustFEN(t, tt.fen)
			if !p.Finished() {
				t.Error("not finished")
			}
			for _, tooTall := range []bool{true, false} {
				if moves := p.LegalMoves(nil, tooTall); len(moves) != 0 || p.CountMoves(tooTall) != 0 {
					t.Errorf("too-tall %v: moves %v, count %d", tooTall, moves, p.CountMoves(tooTall))
				}
			}
			if w, ok := p.Winner(); w != tt.winner || ok != tt.won {
				t.Errorf("Winner() = %v %v, want %v %v", w, ok, tt.winner, tt.won)
			}
			g := NewGameFrom(p, DefaultRules())
			if g.Status() != tt.want {
				t.Errorf("status %v, want %v", g.Status(), tt.want)
			}
			if err := p.CheckMove(Move{From: 30, To: 24, Count: 1}, true); err == nil || !strings.Contains(err.Error(), "over") {
				t.Errorf("CheckMove in a finished position: %v", err)
			}
		})
	}
}

func TestOngoingPositionsHaveMoves(t *testing.T) {
	// RULES.md: a player who controls at least one stack always has a move.
	for i, smp := range samples(2, 10, 150, 2000) {
		p := smp.pos
		if !p.Finished() && p.CountMoves(smp.tooTall) == 0 {
			t.Fatalf("sample %d %q (too-tall %v): ongoing without a move", i, p.FEN(), smp.tooTall)
		}
	}
}

// shuffle is four moves that bring the start position back.
var shuffle = []string{"a6-1-a5", "a1-1-a2", "a5-1-a6", "a2-1-a1"}

func TestDrawByRepetition(t *testing.T) {
	g := NewGame(DefaultRules())
	if g.Repetitions() != 1 {
		t.Fatalf("start occurs %d times", g.Repetitions())
	}
	playAll(t, g, shuffle...)
	if g.Repetitions() != 2 || g.Status() != Ongoing {
		t.Fatalf("after one round: %d occurrences, %v", g.Repetitions(), g.Status())
	}
	playAll(t, g, shuffle[:3]...)
	if g.Status() != Ongoing {
		t.Fatalf("before the third occurrence: %v", g.Status())
	}
	playAll(t, g, shuffle[3])
	if g.Repetitions() != 3 || g.Status() != DrawRepetition {
		t.Fatalf("third occurrence: %d occurrences, %v", g.Repetitions(), g.Status())
	}
	if _, ok := g.Status().Winner(); ok || g.Status().Truncated() || g.Status().Reward(Red) != 0 {
		t.Errorf("draw: winner %v, truncated %v, reward %v", ok, g.Status().Truncated(), g.Status().Reward(Red))
	}
	if len(g.LegalMoves(nil)) != 0 {
		t.Error("drawn game has legal moves")
	}
	if err := g.Play(mustMove(t, shuffle[0])); !errors.Is(err, ErrGameOver) {
		t.Errorf("play after the draw: %v", err)
	}
	if err := g.Undo(); err != nil || g.Status() != Ongoing || g.Repetitions() != 2 {
		t.Errorf("undo the drawing move: %v, %v, %d occurrences", err, g.Status(), g.Repetitions())
	}

	t.Run("rule off", func(t *testing.T) {
		g := NewGame(Rules{TooTall: true})
		for range 5 {
			playAll(t, g, shuffle...)
		}
		if g.Status() != Ongoing || g.Repetitions() != 6 {
			t.Errorf("status %v after 6 occurrences", g.Status())
		}
	})
	t.Run("limit 2", func(t *testing.T) {
		g := NewGame(Rules{TooTall: true, RepetitionLimit: 2})
		playAll(t, g, shuffle...)
		if g.Status() != DrawRepetition {
			t.Errorf("status %v after 2 occurrences", g.Status())
		}
	})
}

func TestMoveLimit(t *testing.T) {
	rules := Rules{TooTall: true, MaxPlies: 6, RepetitionLimit: 3}
	g := NewGame(rules)
	moves := []string{"a6-1-a5", "a1-1-a2", "b6-1-b5", "b1-1-b2", "c6-1-c5", "c1-1-c2"}
	for i, m := range moves {
		if g.Status() != Ongoing {
			t.Fatalf("before ply %d: %v", i+1, g.Status())
		}
		playAll(t, g, m)
	}
	if g.Status() != MoveLimit || !g.Status().Truncated() || !g.Status().Over() {
		t.Fatalf("after %d plies: %v", len(moves), g.Status())
	}
	if _, ok := g.Status().Winner(); ok {
		t.Error("move limit has a winner")
	}

	t.Run("counts the start ply", func(t *testing.T) {
		p := StartPosition()
		p.SetPly(6)
		if g := NewGameFrom(p, rules); g.Status() != MoveLimit {
			t.Errorf("game from ply 6 of 6: %v", g.Status())
		}
	})
	t.Run("win beats limit", func(t *testing.T) {
		p := mustFEN(t, "r,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r")
		p.SetPly(5)
		g := NewGameFrom(p, rules)
		playAll(t, g, "a6-1-a5")
		if g.Status() != RedWins {
			t.Errorf("winning on the last ply: %v", g.Status())
		}
	})
}

func TestStatusOfOrder(t *testing.T) {
	won := mustFEN(t, "rb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b")
	won.SetPly(100)
	start := StartPosition()
	late := start
	late.SetPly(100)
	rules := Rules{TooTall: true, MaxPlies: 50, RepetitionLimit: 3}
	tests := []struct {
		name string
		p    Position
		reps int
		want Status
	}{
		{"win first", won, 3, RedWins},
		{"repetition before limit", late, 3, DrawRepetition},
		{"limit", late, 2, MoveLimit},
		{"ongoing", start, 2, Ongoing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StatusOf(&tt.p, rules, tt.reps); got != tt.want {
				t.Errorf("StatusOf = %v, want %v", got, tt.want)
			}
			if !tt.p.Finished() {
				if got := DrawStatusOf(&tt.p, rules, tt.reps); got != tt.want {
					t.Errorf("DrawStatusOf = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestStatusMethods(t *testing.T) {
	tests := []struct {
		s           Status
		name        string
		over, trunc bool
		red, blue   float32
		winner      Color
		won         bool
	}{
		{Ongoing, "ongoing", false, false, 0, 0, Red, false},
		{RedWins, "red wins", true, false, 1, -1, Red, true},
		{BlueWins, "blue wins", true, false, -1, 1, Blue, true},
		{NoStacks, "no stacks", true, false, 0, 0, Red, false},
		{DrawRepetition, "draw by repetition", true, false, 0, 0, Red, false},
		{MoveLimit, "move limit", true, true, 0, 0, Red, false},
		{Status(42), "Status(42)", true, false, 0, 0, Red, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := tt.s.Winner()
			if tt.s.String() != tt.name || tt.s.Over() != tt.over || tt.s.Truncated() != tt.trunc ||
				tt.s.Reward(Red) != tt.red || tt.s.Reward(Blue) != tt.blue || w != tt.winner || ok != tt.won {
				t.Errorf("%q: over %v truncated %v rewards %v/%v winner %v %v", tt.s, tt.s.Over(), tt.s.Truncated(),
					tt.s.Reward(Red), tt.s.Reward(Blue), w, ok)
			}
		})
	}
}

func TestRulesValidate(t *testing.T) {
	tests := []struct {
		name  string
		rules Rules
		ok    bool
	}{
		{"default", DefaultRules(), true},
		{"no limits", Rules{}, true},
		{"negative max plies", Rules{MaxPlies: -1}, false},
		{"repetitions 1", Rules{RepetitionLimit: 1}, false},
		{"negative repetitions", Rules{RepetitionLimit: -3}, false},
		{"repetitions 2", Rules{RepetitionLimit: 2}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.rules.Validate(); (err == nil) != tt.ok {
				t.Errorf("Validate() = %v, want ok %v", err, tt.ok)
			}
		})
	}
	if d := DefaultRules(); !d.TooTall || d.RepetitionLimit != 3 || d.MaxPlies <= 0 {
		t.Errorf("DefaultRules() = %+v: want too-tall on, draw on the 3rd occurrence, a move limit", d)
	}
}

func TestGamePlayRejectsIllegal(t *testing.T) {
	g := NewGame(DefaultRules())
	playAll(t, g, "a6-1-a5")
	before := g.Clone()
	for _, text := range []string{"a6-1-a5", "a1-3-a4", "c3-1-c4", "a1-2-a1", "b1-1-f6"} {
		if err := g.Play(mustMove(t, text)); err == nil {
			t.Errorf("Play(%s) accepted", text)
		}
	}
	if !sameGame(g, before) {
		t.Error("illegal moves changed the game")
	}
	if err := NewGame(DefaultRules()).Undo(); err == nil {
		t.Error("Undo at the start succeeded")
	}
}

// sameGame reports whether two games have the same position, history and
// status.
func sameGame(a, b *Game) bool {
	pa, pb := a.Position(), b.Position()
	return pa == pb && a.Status() == b.Status() && a.Rules() == b.Rules() &&
		equalSlices(a.Moves(), b.Moves()) && equalSlices(a.History(), b.History())
}

func equalSlices[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGameUndoRestores(t *testing.T) {
	rng := newRNG(3)
	for game := range 20 {
		g := NewGame(Rules{TooTall: game%2 == 0, MaxPlies: 200, RepetitionLimit: 3})
		var snapshots []*Game
		var buf [256]Move
		for !g.Status().Over() {
			snapshots = append(snapshots, g.Clone())
			moves := g.LegalMoves(buf[:0])
			if err := g.Play(moves[rng.IntN(len(moves))]); err != nil {
				t.Fatal(err)
			}
		}
		if end := g.Position(); g.Status() == Ongoing || len(g.Moves()) != len(snapshots) || end.Ply() != len(g.Moves()) {
			t.Fatalf("game %d: %v after %d moves", game, g.Status(), len(g.Moves()))
		}
		for i := len(snapshots) - 1; i >= 0; i-- {
			if err := g.Undo(); err != nil {
				t.Fatal(err)
			}
			if !sameGame(g, snapshots[i]) {
				t.Fatalf("game %d: undo to ply %d differs", game, i)
			}
		}
		if g.StartPosition() != StartPosition() {
			t.Fatalf("game %d: start position changed", game)
		}
	}
}

func TestGameCloneIndependent(t *testing.T) {
	g := NewGame(DefaultRules())
	playAll(t, g, "a6-1-a5", "a1-1-a2")
	c := g.Clone()
	playAll(t, c, "b6-2-b4")
	if p := g.Position(); len(g.Moves()) != 2 || len(g.History()) != 2 || p.SideToMove() != Red {
		t.Errorf("playing on the clone changed the original: %v", g.Moves())
	}
	playAll(t, g, "c6-1-c5")
	if c.Moves()[2] != mustMove(t, "b6-2-b4") {
		t.Errorf("playing on the original changed the clone: %v", c.Moves())
	}
	if err := c.Undo(); err != nil || len(g.Moves()) != 3 {
		t.Errorf("undo on the clone: %v, original has %d moves", err, len(g.Moves()))
	}
}

func TestCountRepetitions(t *testing.T) {
	tests := []struct {
		name    string
		hash    uint64
		history []uint64
		want    int
	}{
		{"empty", 7, nil, 1},
		{"absent", 7, []uint64{1, 2, 3}, 1},
		{"twice before", 7, []uint64{7, 2, 7}, 3},
		{"in a run of four", 7, []uint64{1, 2, 3, 7, 5}, 2},
		{"a run of four all alike", 7, []uint64{7, 7, 7, 7}, 5},
		{"in runs and in the tail", 7, []uint64{7, 1, 2, 3, 4, 5, 6, 7, 8, 7}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CountRepetitions(tt.hash, tt.history); got != tt.want {
				t.Errorf("CountRepetitions = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestPlayMoves(t *testing.T) {
	start := StartPosition()
	cases := []struct {
		name    string
		moves   []string
		plies   int
		index   int // of the bad move; -1 for none
		wantErr string
	}{
		{"none", nil, 0, -1, ""},
		{"two", []string{"a6-1-a5", "a1-1-a2"}, 2, -1, ""},
		{"unreadable", []string{"a6-1-a5", "zz"}, 0, 1, "move 2 (zz)"},
		{"illegal", []string{"a6-3-a3"}, 0, 0, "move 1 (a6-3-a3)"},
		{"wrong side", []string{"a1-1-a2"}, 0, 0, "move 1 (a1-1-a2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := PlayMoves(start, DefaultRules(), tc.moves)
			var bad *MoveError
			switch {
			case tc.index < 0 && err != nil:
				t.Fatalf("error %v", err)
			case tc.index < 0 && len(g.Moves()) != tc.plies:
				t.Fatalf("%d moves played: want %d", len(g.Moves()), tc.plies)
			case tc.index >= 0 && (!errors.As(err, &bad) || bad.Index != tc.index || bad.Text != tc.moves[tc.index] || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v: want a MoveError at %d saying %q", err, tc.index, tc.wantErr)
			}
		})
	}
}

package env

import (
	"slices"
	"strings"
	"testing"
)

func mustEnv(tb testing.TB, opts Options) *Env {
	tb.Helper()
	e, err := NewEnv(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// envFrom returns an environment whose game starts from a FEN.
func envFrom(tb testing.TB, opts Options, fen string) *Env {
	tb.Helper()
	e := mustEnv(tb, opts)
	e.game = NewGameFrom(mustFEN(tb, fen), opts.Rules)
	return e
}

// envState is everything a step may change.
type envState struct {
	fen      string
	ply      int
	moves    []Move
	history  []uint64
	status   Status
	obs      []float32
	mask     []bool
	rendered string
}

func stateOf(e *Env) envState {
	p := e.Game().Position()
	return envState{p.FEN(), p.Ply(), slices.Clone(e.Game().Moves()), slices.Clone(e.Game().History()),
		e.Game().Status(), e.Observation(), e.LegalMask(), e.Render()}
}

func (s envState) equal(o envState) bool {
	return s.fen == o.fen && s.ply == o.ply && slices.Equal(s.moves, o.moves) && slices.Equal(s.history, o.history) &&
		s.status == o.status && slices.Equal(s.obs, o.obs) && slices.Equal(s.mask, o.mask) && s.rendered == o.rendered
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"default", DefaultOptions(), ""},
		{"opening plies", Options{Rules: DefaultRules(), OpeningPlies: 8}, ""},
		{"negative opening plies", Options{Rules: DefaultRules(), OpeningPlies: -1}, "opening_plies"},
		{"bad rules", Options{Rules: Rules{RepetitionLimit: 1}}, "repetitions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewEnv(tt.opts)
			switch {
			case tt.want == "" && (err != nil || e.Options() != tt.opts):
				t.Errorf("NewEnv: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("NewEnv error %v, want one about %s", err, tt.want)
			}
		})
	}
}

func TestEnvReset(t *testing.T) {
	e := mustEnv(t, DefaultOptions())
	obs, info := e.Reset(1)
	start := StartPosition()
	want := make([]float32, ObservationSize)
	EncodeObservation(want, &start, DefaultRules(), 1)
	if !slices.Equal(obs, want) {
		t.Error("Reset observation is not the start position's")
	}
	if info.Status != Ongoing || info.Ply != 0 || info.Repetitions != 1 || info.Move != (Move{}) || len(info.Opening) != 0 {
		t.Errorf("Reset info %+v", info)
	}

	opts := Options{Rules: DefaultRules(), OpeningPlies: 6}
	a, b, c := mustEnv(t, opts), mustEnv(t, opts), mustEnv(t, opts)
	_, infoA := a.Reset(7)
	b.Reset(7)
	c.Reset(8)
	if len(a.Game().Moves()) != 6 || !slices.Equal(a.Game().Moves(), b.Game().Moves()) {
		t.Errorf("same seed, different openings: %v and %v", a.Game().Moves(), b.Game().Moves())
	}
	if !slices.Equal(infoA.Opening, a.Game().Moves()) || infoA.Ply != 6 {
		t.Errorf("info %+v does not tell the opening %v", infoA, a.Game().Moves())
	}
	if slices.Equal(a.Game().Moves(), c.Game().Moves()) {
		t.Errorf("seeds 7 and 8 give the same opening %v", a.Game().Moves())
	}
	_, _, err := b.ResetWith(7, ResetOptions{OpeningPlies: 6})
	if err != nil || !slices.Equal(a.Game().Moves(), b.Game().Moves()) {
		t.Errorf("Reset(7) and ResetWith(7, its options) differ: %v", err)
	}
	a.Reset(9)
	if len(a.Game().Moves()) != 6 || a.Game().StartPosition() != StartPosition() {
		t.Error("Reset does not start a new game from the start position")
	}
}

func TestEnvResetWith(t *testing.T) {
	const fen = "rrrrr,,,,,/,,,,,/,,,,,/,,r,,,/,,,,,/,,,,,bb b"
	noTooTall := Rules{MaxPlies: 10, RepetitionLimit: 2}
	tests := []struct {
		name  string
		opts  ResetOptions
		fen   string // the position after the reset, before its opening
		rules Rules
		plies int
		want  string // part of the error; "" for none
	}{
		{"zero options", ResetOptions{}, StartFEN, DefaultRules(), 0, ""},
		{"fen", ResetOptions{FEN: fen}, fen, DefaultRules(), 0, ""},
		{"fen with spaces", ResetOptions{FEN: "  " + fen + "\n"}, fen, DefaultRules(), 0, ""},
		{"fen and opening", ResetOptions{FEN: fen, OpeningPlies: 3}, fen, DefaultRules(), 3, ""},
		{"rules", ResetOptions{FEN: fen, Rules: &noTooTall}, fen, noTooTall, 0, ""},
		{"bad side", ResetOptions{FEN: ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,r, x"}, "", Rules{}, 0, `reset: fen ",,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,r, x": side to move "x"`},
		{"bad square", ResetOptions{FEN: "rq,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,b, r"}, "", Rules{}, 0, `square a6: character 2 is 'q'`},
		{"five ranks", ResetOptions{FEN: ",,,,,/,,,,,/,,,,,/,,,,,/,,,,, r"}, "", Rules{}, 0, "5 ranks"},
		{"finished", ResetOptions{FEN: "r,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b"}, "", Rules{}, 0, "the game is already over (red wins)"},
		{"negative plies", ResetOptions{OpeningPlies: -2}, "", Rules{}, 0, "reset: opening plies is -2"},
		{"bad rules", ResetOptions{Rules: &Rules{RepetitionLimit: 1}}, "", Rules{}, 0, "reset: rules: repetitions is 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustEnv(t, Options{Rules: DefaultRules(), OpeningPlies: 5})
			if _, _, _, _, _, err := e.Step(mustAction(t, mustMove(t, "a6-1-a5"))); err != nil {
				t.Fatal(err)
			}
			before := stateOf(e)
			obs, info, err := e.ResetWith(3, tt.opts)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %v, want one containing %q", err, tt.want)
				}
				if obs != nil || !stateOf(e).equal(before) {
					t.Error("a failed reset changed the environment")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := e.Game()
			if start := g.StartPosition(); start.FEN() != tt.fen || g.Rules() != tt.rules || len(g.Moves()) != tt.plies {
				t.Errorf("episode from %s under %+v with %d plies", start.FEN(), g.Rules(), len(g.Moves()))
			}
			if !slices.Equal(obs, e.Observation()) || !slices.Equal(info.Opening, g.Moves()) || info.Status != g.Status() {
				t.Errorf("reset returns obs or info %+v that are not the episode's", info)
			}
			if e.Options().OpeningPlies != 5 {
				t.Error("ResetWith changed the environment's options")
			}
		})
	}
}

func TestPlayOpening(t *testing.T) {
	t.Run("never ends the game", func(t *testing.T) {
		rng := newRNG(1)
		for i := 0; i < 200; i++ {
			p := randomPosition(rng)
			rules := Rules{TooTall: rng.IntN(2) == 0, MaxPlies: rng.IntN(12), RepetitionLimit: 2 + rng.IntN(2)}
			g := NewGameFrom(p, rules)
			if g.Status().Over() {
				continue
			}
			plies := rng.IntN(20)
			moves := PlayOpening(g, plies, rng)
			if !slices.Equal(moves, g.Moves()) || len(moves) > plies || g.Status().Over() {
				t.Fatalf("%s: %d plies played %v of %d, status %v", p.FEN(), plies, moves, len(g.Moves()), g.Status())
			}
			if len(moves) < plies && anyMoveContinues(g) {
				t.Fatalf("%s: stopped after %d of %d plies with a move that does not end the game", p.FEN(), len(moves), plies)
			}
		}
	})
	t.Run("stops before the move limit", func(t *testing.T) {
		g := NewGame(Rules{TooTall: true, MaxPlies: 4, RepetitionLimit: 3})
		if moves := PlayOpening(g, 10, newRNG(2)); len(moves) != 3 {
			t.Errorf("%d opening plies under a 4-ply limit: want 3", len(moves))
		}
	})
	t.Run("seeded", func(t *testing.T) {
		a := PlayOpening(NewGame(DefaultRules()), 8, newRNG(3))
		b := PlayOpening(NewGame(DefaultRules()), 8, newRNG(3))
		c := PlayOpening(NewGame(DefaultRules()), 8, newRNG(4))
		if !slices.Equal(a, b) || slices.Equal(a, c) {
			t.Errorf("openings %v, %v (same seed), %v (another)", a, b, c)
		}
	})
}

// anyMoveContinues reports whether g has a legal move after which the game
// goes on.
func anyMoveContinues(g *Game) bool {
	for _, m := range g.LegalMoves(nil) {
		c := g.Clone()
		if c.Play(m) == nil && !c.Status().Over() {
			return true
		}
	}
	return false
}

func TestStatusReward(t *testing.T) {
	tests := []struct {
		status    Status
		red, blue float32
	}{
		{Ongoing, 0, 0}, {RedWins, 1, -1}, {BlueWins, -1, 1}, {NoStacks, 0, 0}, {DrawRepetition, 0, 0}, {MoveLimit, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.status.String(), func(t *testing.T) {
			if r, b := tt.status.Reward(Red), tt.status.Reward(Blue); r != tt.red || b != tt.blue {
				t.Errorf("rewards red %v blue %v, want %v %v", r, b, tt.red, tt.blue)
			}
		})
	}
}

func TestEnvStep(t *testing.T) {
	e := mustEnv(t, DefaultOptions())
	e.Reset(0)
	actions := e.LegalActions()
	if len(actions) != 48 {
		t.Fatalf("%d legal actions at the start", len(actions))
	}
	mask := e.LegalMask()
	for a, legal := range mask {
		if legal != slices.Contains(actions, Action(a)) {
			t.Fatalf("mask and LegalActions disagree on %d", a)
		}
	}
	m := mustMove(t, "a6-2-a4")
	obs, reward, terminated, truncated, info, err := e.Step(mustAction(t, m))
	if err != nil || reward != 0 || terminated || truncated || info.Move != m || info.Status != Ongoing {
		t.Fatalf("Step(a6-2-a4) = reward %v terminated %v truncated %v info %+v err %v", reward, terminated, truncated, info, err)
	}
	if !slices.Equal(obs, e.Observation()) {
		t.Error("Step's observation is not Observation()")
	}
	if p := e.Game().Position(); p.FEN() != ",rr,rr,rr,rr,rr/,,,,,/rr,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb b" {
		t.Errorf("after a6-2-a4: %q", p.FEN())
	}
}

func TestEnvIllegalStepChangesNothing(t *testing.T) {
	won := envFrom(t, DefaultOptions(), "r,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r")
	if _, _, _, _, _, err := won.Step(mustAction(t, mustMove(t, "a6-1-a5"))); err != nil {
		t.Fatal(err)
	}
	a1, _ := ParseSquare("a1")
	tests := []struct {
		name string
		env  *Env
		a    Action
	}{
		{"out of range", mustEnv(t, DefaultOptions()), NumActions},
		{"negative", mustEnv(t, DefaultOptions()), -1},
		{"never a move", mustEnv(t, DefaultOptions()), newAction(a1, North, 10)},
		{"second direction", mustEnv(t, DefaultOptions()), newAction(a1, SouthEast, 2)},
		{"opponent's stack", mustEnv(t, DefaultOptions()), mustAction(t, mustMove(t, "a1-1-a2"))},
		{"empty square", mustEnv(t, DefaultOptions()), mustAction(t, mustMove(t, "c3-1-c4"))},
		{"too many pieces", mustEnv(t, DefaultOptions()), mustAction(t, mustMove(t, "a6-3-a3"))},
		{"too-tall rule", envFrom(t, DefaultOptions(), "rrrrr,,,,,/,,,,,/,,,,,/,,r,,,/,,,,,/,,,,,b r"), mustAction(t, mustMove(t, "c3-1-c4"))},
		{"after the end", won, mustAction(t, mustMove(t, "a5-1-a4"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := stateOf(tt.env)
			obs, reward, terminated, truncated, _, err := tt.env.Step(tt.a)
			if err == nil || !strings.HasPrefix(err.Error(), "step") {
				t.Errorf("Step(%d) error = %v", tt.a, err)
			}
			if obs != nil || reward != 0 || terminated || truncated {
				t.Errorf("failed step returns obs %v reward %v terminated %v truncated %v", obs != nil, reward, terminated, truncated)
			}
			if !stateOf(tt.env).equal(before) {
				t.Error("a failed step changed the environment")
			}
		})
	}
}

// episodeEnds are short episodes, one for each way an episode ends that
// play reaches.
var episodeEnds = []struct {
	name        string
	opts        Options
	fen         string
	moves       []string
	reward      float32 // for the last mover
	red, blue   float32
	terminated  bool
	truncated   bool
	finalStatus Status
}{
	{"red wins", DefaultOptions(), "r,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r", []string{"a6-1-a5"}, 1, 1, -1, true, false, RedWins},
	{"blue wins", DefaultOptions(), "r,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b", []string{"a5-1-a6"}, 1, -1, 1, true, false, BlueWins},
	{"repetition", DefaultOptions(), StartFEN, append(slices.Clone(shuffle), shuffle...), 0, 0, 0, true, false, DrawRepetition},
	{"move limit", Options{Rules: Rules{TooTall: true, MaxPlies: 3, RepetitionLimit: 3}}, StartFEN,
		[]string{"a6-1-a5", "a1-1-a2", "b6-1-b5"}, 0, 0, 0, false, true, MoveLimit},
}

func TestEnvEpisodeEnds(t *testing.T) {
	tests := episodeEnds
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := envFrom(t, tt.opts, tt.fen)
			for i, text := range tt.moves {
				_, reward, terminated, truncated, info, err := e.Step(mustAction(t, mustMove(t, text)))
				if err != nil {
					t.Fatalf("step %d %s: %v", i, text, err)
				}
				last := i == len(tt.moves)-1
				if !last && (reward != 0 || terminated || truncated) {
					t.Fatalf("step %d %s: reward %v terminated %v truncated %v", i, text, reward, terminated, truncated)
				}
				if last && (reward != tt.reward || terminated != tt.terminated || truncated != tt.truncated || info.Status != tt.finalStatus) {
					t.Errorf("last step: reward %v terminated %v truncated %v status %v", reward, terminated, truncated, info.Status)
				}
			}
			if len(e.LegalActions()) != 0 || slices.Contains(e.LegalMask(), true) {
				t.Error("a finished episode has legal actions")
			}
			if !strings.HasSuffix(e.Render(), "status: "+tt.finalStatus.String()+"\n") {
				t.Errorf("Render() does not end with the status:\n%s", e.Render())
			}
		})
	}
}

func TestEnvClone(t *testing.T) {
	e := mustEnv(t, DefaultOptions())
	e.Reset(0)
	c := e.Clone()
	before := stateOf(e)
	if _, _, _, _, _, err := c.Step(mustAction(t, mustMove(t, "a6-1-a5"))); err != nil {
		t.Fatal(err)
	}
	if !stateOf(e).equal(before) {
		t.Error("stepping the clone changed the original")
	}
	if c.Options() != e.Options() || len(c.Game().Moves()) != 1 {
		t.Error("clone lost its options or its move")
	}
}

// FuzzResetWith checks that any FEN and opening either resets the
// environment to an ongoing episode from that position or is refused with
// an error that leaves it unchanged.
func FuzzResetWith(f *testing.F) {
	for i, fen := range fuzzFENs {
		f.Add(fen, i, uint64(i))
	}
	space := ObservationSpace()
	f.Fuzz(func(t *testing.T, fen string, plies int, seed uint64) {
		plies %= 40 // longer openings test nothing more, only slower
		e := mustEnv(t, DefaultOptions())
		before := stateOf(e)
		obs, info, err := e.ResetWith(seed, ResetOptions{FEN: fen, OpeningPlies: plies})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "reset: ") || !stateOf(e).equal(before) {
				t.Fatalf("error %q, or the failed reset changed the environment", err)
			}
			if plies >= 0 && fen != "" && !strings.Contains(err.Error(), "fen") {
				t.Fatalf("error %q does not name the FEN", err)
			}
			return
		}
		g := e.Game()
		start := g.StartPosition()
		if fen != "" {
			if p, perr := ParseFEN(fen); perr != nil || p != start {
				t.Fatalf("reset from %q started from %s", fen, start.FEN())
			}
		}
		if !space.Contains(obs) || info.Status.Over() || len(info.Opening) > plies || !slices.Equal(info.Opening, g.Moves()) {
			t.Fatalf("reset from %q with %d plies: info %+v, observation in space %v", fen, plies, info, space.Contains(obs))
		}
	})
}

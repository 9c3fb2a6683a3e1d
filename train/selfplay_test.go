package train

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func TestOutcome(t *testing.T) {
	// Red controls 3 pieces in 2 stacks, Blue 1 piece in 1 stack: a lead
	// of 2 pieces and 1 stack, 25 heuristic points, for Red; with at most
	// one piece of a stack counted, 1 stack, 15 points.
	final, err := env.ParseFEN("r,,,,,/,,,,,/,,rr,,,/,,,,,/,,,,,/,,,,,b b")
	if err != nil {
		t.Fatal(err)
	}
	lead := float32(math.Tanh(25.0 / adjudicationScale))
	capped := float32(math.Tanh(15.0 / adjudicationScale))
	tests := []struct {
		name     string
		game     SelfPlayGame
		mover    env.Color
		limit    float64 // of adjudicated values; 0 means 1
		stackCap int
		want     float32
	}{
		{"winner", SelfPlayGame{won: true, winner: env.Red, status: env.RedWins}, env.Red, 0, 0, 1},
		{"loser", SelfPlayGame{won: true, winner: env.Red, status: env.RedWins}, env.Blue, 0, 0, -1},
		{"resigned", SelfPlayGame{PlayedGame: PlayedGame{Resigned: true}, won: true, winner: env.Blue}, env.Red, 0, 0, -1},
		{"resignation won", SelfPlayGame{PlayedGame: PlayedGame{Resigned: true}, won: true, winner: env.Blue}, env.Blue, 0, 0, 1},
		{"repetition", SelfPlayGame{status: env.DrawRepetition}, env.Red, 0, 0, 0},
		{"repetition, adjudicated", SelfPlayGame{status: env.DrawRepetition, adjudicated: true}, env.Red, 0, 0, lead},
		{"move limit, leader", SelfPlayGame{status: env.MoveLimit, adjudicated: true}, env.Red, 0, 0, lead},
		{"move limit, trailer", SelfPlayGame{status: env.MoveLimit, adjudicated: true}, env.Blue, 0, 0, -lead},
		{"move limit, no adjudication", SelfPlayGame{status: env.MoveLimit}, env.Red, 0, 0, 0},
		{"move limit, leader, limit 0.5", SelfPlayGame{status: env.MoveLimit, adjudicated: true}, env.Red, 0.5, 0, lead / 2},
		{"move limit, trailer, limit 0.5", SelfPlayGame{status: env.MoveLimit, adjudicated: true}, env.Blue, 0.5, 0, -lead / 2},
		{"winner, limit 0.5", SelfPlayGame{won: true, winner: env.Red, status: env.RedWins}, env.Red, 0.5, 0, 1},
		{"move limit, leader, stacks capped at 1", SelfPlayGame{status: env.MoveLimit, adjudicated: true}, env.Red, 0, 1, capped},
		{"move limit, trailer, stacks capped at 1", SelfPlayGame{status: env.MoveLimit, adjudicated: true}, env.Blue, 0, 1, -capped},
		{"move limit, stacks capped at 2", SelfPlayGame{status: env.MoveLimit, adjudicated: true}, env.Red, 0, 2, lead},
		{"winner, stacks capped", SelfPlayGame{won: true, winner: env.Red, status: env.RedWins}, env.Red, 0, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			limit := tc.limit
			if limit == 0 {
				limit = 1
			}
			cfg := runconfig.SelfPlayConfig{AdjudicateMax: limit, AdjudicateStackCap: tc.stackCap}
			if got := outcome(&tc.game, &final, tc.mover, cfg); math.Abs(float64(got-tc.want)) > 1e-6 {
				t.Errorf("outcome = %v, want %v", got, tc.want)
			}
		})
	}
}

// tinyNetwork is a small network with seeded weights.
func tinyNetwork(t testing.TB) *model.Network {
	t.Helper()
	net, err := model.New(model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 8}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return net
}

func TestSelfPlayGames(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.SelfPlay.ResignThreshold = -1
	eval := tinyNetwork(t)
	sp := &selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
	var games []SelfPlayGame
	stats, err := sp.runSelfPlay(context.Background(), []mcts.Evaluator{eval}, 3, 2, 42, func(_ int, g SelfPlayGame) error { games = append(games, g); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if stats.Games != 3 || len(games) != 3 {
		t.Fatalf("%d games reported, %d handed over: want 3", stats.Games, len(games))
	}
	positions := 0
	for _, g := range games {
		positions += len(g.Samples)
		if len(g.Moves) != len(g.Samples) || !g.status.Over() {
			t.Errorf("game of %d plies with %d samples, status %v", len(g.Moves), len(g.Samples), g.status)
		}
		for i, s := range g.Samples {
			if err := s.Validate(); err != nil {
				t.Fatalf("sample %d: %v", i, err)
			}
		}
	}
	if positions != stats.Positions {
		t.Errorf("stats count %d positions, the games hold %d", stats.Positions, positions)
	}
}

func TestSelfPlayReproducible(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	eval := tinyNetwork(t)
	sp := &selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
	a, err := sp.play(context.Background(), eval, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sp.play(context.Background(), eval, 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Moves) != len(b.Moves) || len(a.Samples) != len(b.Samples) {
		t.Fatalf("same seed, different games: %d and %d plies", len(a.Moves), len(b.Moves))
	}
	for i := range a.Samples {
		if a.Samples[i].Value != b.Samples[i].Value || len(a.Samples[i].Legal) != len(b.Samples[i].Legal) {
			t.Fatalf("sample %d differs", i)
		}
	}
}

func TestSearchSampleCoversAllLegalMoves(t *testing.T) {
	puct := mcts.Config{Simulations: 20, CPuct: 1.25, BatchSize: 1, DirichletAlpha: 0.3}
	gumbel := puct
	gumbel.Gumbel, gumbel.GumbelConsidered, gumbel.GumbelCVisit, gumbel.GumbelCScale = true, 8, 50, 0.1
	for _, tc := range []struct {
		name   string
		cfg    mcts.Config
		target func(d mcts.Decision, a env.Action) float32
	}{
		{"puct: visit shares", puct, func(d mcts.Decision, a env.Action) float32 {
			return float32(d.Visits[a]) / float32(d.Simulations)
		}},
		{"gumbel: improved policy", gumbel, func(d mcts.Decision, a env.Action) float32 { return d.Target[a] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			game := env.NewGame(env.DefaultRules())
			pos := game.Position()
			p, err := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, tc.cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			d, err := p.Choose(game)
			if err != nil {
				t.Fatal(err)
			}
			s := searchSample(&pos, game, d)
			if len(s.Legal) != 48 {
				t.Fatalf("%d legal actions, want all 48 of the start", len(s.Legal))
			}
			var sum float32
			for j, a := range s.Legal {
				sum += s.Policy[j]
				if want := tc.target(d, a); math.Abs(float64(s.Policy[j]-want)) > 1e-6 {
					t.Errorf("action %d: policy %v, want %v", a, s.Policy[j], want)
				}
			}
			if math.Abs(float64(sum-1)) > 1e-5 {
				t.Errorf("policy sums to %v", sum)
			}
		})
	}
}

func TestAdjudicationHorizon(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.Env.Rules.MaxPlies = 30
	cfg.SelfPlay.ResignThreshold = -1
	cfg.SelfPlay.Adjudicate = true
	cfg.SelfPlay.SearchValueShare = 0 // the value target the adjudication alone
	for _, tc := range []struct{ horizon, stackCap int }{{0, 0}, {1, 0}, {6, 0}, {0, 2}, {6, 2}} {
		horizon := tc.horizon
		t.Run(fmt.Sprintf("horizon %d stack cap %d", horizon, tc.stackCap), func(t *testing.T) {
			cfg.SelfPlay.AdjudicateHorizon, cfg.SelfPlay.AdjudicateStackCap = horizon, tc.stackCap
			eval := tinyNetwork(t)
			sp := &selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
			g, err := sp.play(context.Background(), eval, 3)
			if err != nil {
				t.Fatal(err)
			}
			if g.status != env.MoveLimit || !g.adjudicated {
				t.Skipf("game ended %v: this seed needs an adjudicated game", g.status)
			}
			positions := []env.Position{env.StartPosition()}
			for _, m := range g.Moves {
				p := positions[len(positions)-1]
				p.Apply(m)
				positions = append(positions, p)
			}
			cappedSamples := 0
			for i, s := range g.Samples {
				later := len(positions) - 1
				if horizon > 0 {
					later = min(later, i+horizon)
				}
				lead := positions[later].Material(positions[i].SideToMove())
				if tc.stackCap > 0 {
					capped := positions[later].MaterialUpTo(positions[i].SideToMove(), tc.stackCap)
					if capped != lead {
						cappedSamples++
					}
					lead = capped
				}
				if want := float32(cfg.SelfPlay.AdjudicateMax * math.Tanh(float64(lead)/adjudicationScale)); math.Abs(float64(s.Value-want)) > 1e-6 {
					t.Fatalf("sample %d: value %v, want %v (lead %d at ply %d)", i, s.Value, want, lead, later)
				}
			}
			if tc.stackCap > 0 && cappedSamples == 0 {
				t.Errorf("no sample's lead changed with stacks capped at %d: the game tests nothing", tc.stackCap)
			}
		})
	}
}

// TestSearchValueShare checks selfplay.search_value_share: the games are
// the same whatever the share (it changes targets, not play), and each
// value target is the share's mix of the result's (share 0) and the
// search's (share 1).
func TestSearchValueShare(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.SelfPlay.ResignThreshold = -1
	net := tinyNetwork(t)
	play := func(share float64) SelfPlayGame {
		t.Helper()
		c := cfg.SelfPlay
		c.SearchValueShare = share
		g, err := (&selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: c}).play(context.Background(), net, 5)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	result, searched := play(0), play(1)
	if len(searched.Samples) != len(result.Samples) || !slices.Equal(searched.Moves, result.Moves) {
		t.Fatalf("share 1 played another game than share 0 (%d and %d plies)", len(searched.Moves), len(result.Moves))
	}
	differ := 0
	for i, s := range searched.Samples {
		if s.Value < -1 || s.Value > 1 {
			t.Fatalf("sample %d: searched value %v outside [-1, 1]", i, s.Value)
		}
		if s.Value != result.Samples[i].Value {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("share 1: every value target is the result's")
	}
	for _, share := range []float64{0.25, 0.5} {
		t.Run(fmt.Sprintf("share %g", share), func(t *testing.T) {
			g := play(share)
			for i, s := range g.Samples {
				want := (1-share)*float64(result.Samples[i].Value) + share*float64(searched.Samples[i].Value)
				if math.Abs(float64(s.Value)-want) > 1e-6 {
					t.Fatalf("sample %d: value %v, want %v", i, s.Value, want)
				}
			}
		})
	}
}

// TestPlayoutCapRandomization checks that with fast searches only a share
// of the plies becomes samples, that each sample is the position of its
// ply, and that its policy target comes from a full search.
func TestPlayoutCapRandomization(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.SelfPlay.ResignThreshold = -1
	cfg.Search.Simulations = 16
	cfg.SelfPlay.FastSimulations, cfg.SelfPlay.FullSearchShare = 4, 0.25
	cfg.Env.OpeningPlies = 2 // sample plies count them
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	eval := tinyNetwork(t)
	sp := &selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
	plies, samples := 0, 0
	for seed := uint64(1); seed <= 4; seed++ {
		g, err := sp.play(context.Background(), eval, seed)
		if err != nil {
			t.Fatal(err)
		}
		plies, samples = plies+len(g.Moves), samples+len(g.Samples)
		if len(g.SamplePlies) != len(g.Samples) {
			t.Fatalf("%d sample plies for %d samples", len(g.SamplePlies), len(g.Samples))
		}
		game := env.NewGame(cfg.Env.Rules)
		next := 0
		for ply := 0; ply <= len(g.Moves) && next < len(g.Samples); ply++ {
			if g.SamplePlies[next] == ply {
				pos := game.Position()
				want := make([]float32, env.ObservationSize)
				env.EncodeObservation(want, &pos, cfg.Env.Rules, game.Repetitions())
				if !slices.Equal(want, g.Samples[next].Obs) {
					t.Fatalf("game %d: sample %d is not the position of ply %d", seed, next, ply)
				}
				if err := g.Samples[next].Validate(); err != nil {
					t.Fatalf("game %d: sample %d: %v", seed, next, err)
				}
				next++
			}
			if ply < len(g.Moves) {
				if err := game.Play(g.Moves[ply]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if next != len(g.Samples) {
			t.Fatalf("game %d: sample plies %v do not increase within the game's %d plies", seed, g.SamplePlies, len(g.Moves))
		}
	}
	if share := float64(samples) / float64(plies); share < 0.15 || share > 0.35 {
		t.Errorf("%d samples of %d plies (%.2f): want about the full-search share 0.25", samples, plies, share)
	}
}

// The games of an iteration are the same however many run at once, and an
// error of done stops them and comes back.
func TestRunSelfPlayParallel(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.SelfPlay.ResignThreshold = -1
	eval := tinyNetwork(t)
	sp := &selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
	games := func(parallel int) []string {
		var out []string
		if _, err := sp.runSelfPlay(context.Background(), []mcts.Evaluator{eval}, 3, parallel, 7, func(_ int, g SelfPlayGame) error {
			out = append(out, fmt.Sprint(g.Moves))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	want := games(1)
	for _, parallel := range []int{3} {
		t.Run(fmt.Sprintf("%d at once", parallel), func(t *testing.T) {
			if got := games(parallel); !slices.Equal(got, want) {
				t.Errorf("games %v, want those of one at a time %v", got, want)
			}
		})
	}
	t.Run("done fails", func(t *testing.T) {
		errFull := errors.New("full")
		stats, err := sp.runSelfPlay(context.Background(), []mcts.Evaluator{eval}, 50, 2, 7, func(int, SelfPlayGame) error { return errFull })
		if !errors.Is(err, errFull) || stats.Games >= 50 {
			t.Errorf("error %v after %d games: want %v, early", err, stats.Games, errFull)
		}
	})
}

// SelfPlayGames plays games 0 to n-1, the games SelfPlay plays first with
// the same seed, and Winner says who won each.
func TestSelfPlayGamesNumbered(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.SelfPlay.ParallelGames = 2
	eval := tinyNetwork(t)
	got := map[int]SelfPlayGame{}
	if err := SelfPlayGames(context.Background(), cfg, eval, 5, 3, func(i int, g SelfPlayGame) error {
		got[i] = g
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("games %v: want 0, 1 and 2", slices.Sorted(maps.Keys(got)))
	}
	sp := &selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
	for i, g := range got {
		want, err := sp.play(context.Background(), eval, env.GameSeed(5, i))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(g.Moves) != fmt.Sprint(want.Moves) {
			t.Errorf("game %d: moves %v, want SelfPlay's game %d, %v", i, g.Moves, i, want.Moves)
		}
		winner, won := g.Winner()
		if won != g.won || (won && winner != g.winner) || (!g.Resigned && won != (g.status == env.RedWins || g.status == env.BlueWins)) {
			t.Errorf("game %d (%v, resigned %v): Winner() = %v, %v", i, g.status, g.Resigned, winner, won)
		}
	}
}

// With selfplay.late_start_share, a game starts from the moves of an
// earlier game up to a ply of its second half, and records only what it
// plays itself; with the share at 0 the earlier games change nothing.
func TestSelfPlayLateStarts(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.SelfPlay.ResignThreshold = -1
	eval := tinyNetwork(t)
	sp := &selfPlayer{opts: cfg.Env, search: cfg.Search, cfg: cfg.SelfPlay}
	var starts [][]env.Move
	plain := map[uint64][]env.Move{}
	for seed := range uint64(6) {
		g, err := sp.play(context.Background(), eval, seed)
		if err != nil {
			t.Fatal(err)
		}
		plain[seed] = g.Moves
		if len(g.Moves) >= 2 {
			starts = append(starts, g.Moves)
		}
	}

	off := *sp
	off.starts = starts
	late := off
	late.cfg.LateStartShare = 1
	lateGames := 0
	for seed := uint64(10); seed < 22; seed++ {
		g, err := off.play(context.Background(), eval, seed)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sp.play(context.Background(), eval, seed)
		if err != nil {
			t.Fatal(err)
		}
		if plain[seed] = want.Moves; !slices.Equal(g.Moves, want.Moves) {
			t.Errorf("seed %d: share 0 with earlier games played %v, without %v", seed, g.Moves, want.Moves)
		}
		if g, err = late.play(context.Background(), eval, seed); err != nil {
			t.Fatal(err)
		}
		// The moves replayed are the first of a source, at least half of
		// them and not all; only later positions are recorded.
		k := g.replayed
		from := slices.IndexFunc(starts, func(src []env.Move) bool {
			return k >= len(src)/2 && k < len(src) && k <= len(g.Moves) && slices.Equal(src[:k], g.Moves[:k])
		})
		if k == 0 || from < 0 {
			t.Fatalf("seed %d: %d moves replayed of the game %v: want the first half or more of an earlier game's", seed, k, g.Moves)
		}
		if !slices.Equal(g.Moves, plain[seed]) {
			lateGames++
		}
		for _, ply := range g.SamplePlies {
			if ply < k {
				t.Errorf("seed %d: a sample at ply %d, before the late start at ply %d", seed, ply, k)
			}
		}
	}
	if lateGames == 0 {
		t.Fatal("every game with late starts played as without them")
	}
}

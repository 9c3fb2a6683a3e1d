package arena

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/elo"
)

// The players of these tests: package players has the real ones, but the arena
// must not depend on how good they are.

// randomPlayer plays a uniformly random legal move.
type randomPlayer struct{ rng *rand.Rand }

func (p *randomPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	moves := g.LegalMoves(nil)
	return mcts.Decision{Move: moves[p.rng.IntN(len(moves))]}, nil
}

// greedyPlayer plays a move that leaves it the most stacks more than the
// opponent, breaking ties at random.
type greedyPlayer struct{ rng *rand.Rand }

func (p *greedyPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	pos := g.Position()
	me := pos.SideToMove()
	var best []env.Move
	bestScore := -1 << 30
	for _, m := range g.LegalMoves(nil) {
		q := pos
		q.Apply(m)
		score := countBits(q.Controlled(me)) - countBits(q.Controlled(me.Other()))
		if score > bestScore {
			best, bestScore = best[:0], score
		}
		if score == bestScore {
			best = append(best, m)
		}
	}
	return mcts.Decision{Move: best[p.rng.IntN(len(best))]}, nil
}

func countBits(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// cheatPlayer moves a stack of the opponent's.
type cheatPlayer struct{}

func (cheatPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	pos := g.Position()
	for s := env.Square(0); s < env.NumSquares; s++ {
		if st := pos.At(s); st.Height() > 0 && st.Top() != pos.SideToMove() {
			return mcts.Decision{Move: env.Move{From: s, To: env.Destination(s, env.North, 1), Count: 1}}, nil
		}
	}
	return mcts.Decision{}, errors.New("no opponent stack")
}

type panicPlayer struct{}

func (panicPlayer) Choose(*env.Game) (mcts.Decision, error) { panic("out of cheese") }

type errorPlayer struct{}

func (errorPlayer) Choose(*env.Game) (mcts.Decision, error) {
	return mcts.Decision{}, errors.New("evaluator closed")
}

// vandalPlayer chooses a random move, then plays moves on the game it was
// given, against the Player contract, before returning its choice.
type vandalPlayer struct{ randomPlayer }

func (p *vandalPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	d, err := p.randomPlayer.Choose(g)
	for range 3 {
		if g.Status().Over() {
			break
		}
		other, _ := p.randomPlayer.Choose(g)
		_ = g.Play(other.Move)
	}
	return d, err
}

func entrant(name string, newPlayer func(rng *rand.Rand) mcts.Player) Entrant {
	return Entrant{Name: name, New: func(seed uint64) (mcts.Player, error) {
		return newPlayer(rand.New(rand.NewPCG(seed, 0))), nil
	}}
}

var (
	randomEntrant = entrant("random", func(r *rand.Rand) mcts.Player { return &randomPlayer{r} })
	greedyEntrant = entrant("greedy", func(r *rand.Rand) mcts.Player { return &greedyPlayer{r} })
)

func arenaConfig() Config {
	rules := env.DefaultRules()
	rules.MaxPlies = 120
	return Config{Rules: rules, Games: 8, Parallel: 3, OpeningPlies: 4, Seed: 42}
}

func TestMatchColoursAndOpenings(t *testing.T) {
	recs, err := PlayMatch(context.Background(), greedyEntrant, randomEntrant, arenaConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	openings := map[string]bool{}
	for i, r := range recs {
		wantRed := "greedy"
		if i%2 == 1 {
			wantRed = "random"
		}
		if r.Game != i || r.Red != wantRed {
			t.Errorf("game %d: number %d, red %s: want red %s", i, r.Game, r.Red, wantRed)
		}
		if len(r.Opening) != 4 || r.StartPly != 4 {
			t.Errorf("game %d: opening %v at ply %d: want 4 plies", i, r.Opening, r.StartPly)
		}
		if i%2 == 1 && (!reflect.DeepEqual(r.Opening, recs[i-1].Opening) || r.StartFEN != recs[i-1].StartFEN) {
			t.Errorf("games %d and %d start differently: a pair must share its opening", i-1, i)
		}
		openings[r.StartFEN] = true
		checkReplay(t, r, arenaConfig().Rules)
	}
	if len(openings) < 3 {
		t.Errorf("4 pairs used %d distinct openings", len(openings))
	}
}

// checkReplay plays a record's opening and moves again and checks its
// start and end positions and result.
func checkReplay(t *testing.T, r GameRecord, rules env.Rules) {
	t.Helper()
	g := env.NewGame(rules)
	play := func(moves []string) {
		for _, text := range moves {
			m, err := env.ParseMove(text)
			if err == nil {
				err = g.Play(m)
			}
			if err != nil {
				t.Fatalf("game %d: replaying %s: %v", r.Game, text, err)
			}
		}
	}
	play(r.Opening)
	if p := g.Position(); p.FEN() != r.StartFEN || p.Ply() != r.StartPly {
		t.Errorf("game %d: starts at %s ply %d, the opening gives %s ply %d", r.Game, r.StartFEN, r.StartPly, p.FEN(), p.Ply())
	}
	play(r.Moves)
	if end := g.Position(); end.FEN() != r.EndFEN {
		t.Errorf("game %d: ends at %s, the replay at %s", r.Game, r.EndFEN, end.FEN())
	}
	if slices.Contains(ForfeitReasons(), r.Reason) {
		return
	}
	st := g.Status()
	want := map[env.Status]string{env.RedWins: ResultRedWins, env.BlueWins: ResultBlueWins,
		env.DrawRepetition: ResultDraw, env.MoveLimit: ResultDraw}[st]
	if r.Result != want {
		t.Errorf("game %d: result %s, the replay ends %v", r.Game, r.Result, st)
	}
}

// untimed checks that records time each move and returns them with the
// times cleared, as the times are all that differs between two plays of a
// match.
func untimed(t *testing.T, recs []GameRecord) []GameRecord {
	t.Helper()
	for i := range recs {
		r := &recs[i]
		if len(r.MoveMS) != len(r.Moves) {
			t.Fatalf("game %d: %d move times for %d moves", r.Game, len(r.MoveMS), len(r.Moves))
		}
		for _, ms := range r.MoveMS {
			if !(ms >= 0) {
				t.Fatalf("game %d: move time %v ms", r.Game, ms)
			}
		}
		r.MoveMS = nil
	}
	return recs
}

func TestMatchReproducible(t *testing.T) {
	cfg := arenaConfig()
	first, err := PlayMatch(context.Background(), greedyEntrant, randomEntrant, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Parallel = 1
	serial, err := PlayMatch(context.Background(), greedyEntrant, randomEntrant, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(untimed(t, first), untimed(t, serial)) {
		t.Error("the same seed played different games with 3 games at once and with 1")
	}
	cfg.Seed++
	other, err := PlayMatch(context.Background(), greedyEntrant, randomEntrant, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(first, untimed(t, other)) {
		t.Error("another seed played the same games")
	}
}

func TestMisbehavingPlayersLose(t *testing.T) {
	tests := []struct {
		name   string
		player mcts.Player
		reason string
		detail string
	}{
		{"illegal move", cheatPlayer{}, ReasonIllegalMove, "controlled by"},
		{"panic", panicPlayer{}, ReasonPlayerError, "panic: out of cheese"},
		{"error", errorPlayer{}, ReasonPlayerError, "evaluator closed"},
		{"timeout", failPlayer{players.ErrMoveTimeout}, ReasonTimeout, "no move within the time limit"},
		{"exited", failPlayer{players.ErrProgramExited}, ReasonExited, "the program exited"},
		{"malformed", failPlayer{players.ErrMalformedAnswer}, ReasonMalformedMove, "malformed answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := Entrant{Name: "bad", New: func(uint64) (mcts.Player, error) { return tc.player, nil }}
			cfg := arenaConfig()
			cfg.Games = 4
			recs, err := PlayMatch(context.Background(), bad, randomEntrant, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if r.Reason != tc.reason || !strings.Contains(r.Detail, tc.detail) {
					t.Errorf("game %d: reason %q, detail %q: want %q, %q", r.Game, r.Reason, r.Detail, tc.reason, tc.detail)
				}
				checkReplay(t, r, cfg.Rules)
			}
			if points, games := ScoreOf(recs, "bad"); points != 0 || games != 4 {
				t.Errorf("bad scored %v in %d games, want 0 in 4", points, games)
			}
		})
	}
}

func TestPlayerCannotChangeTheGame(t *testing.T) {
	vandal := entrant("vandal", func(r *rand.Rand) mcts.Player { return &vandalPlayer{randomPlayer{r}} })
	recs, err := PlayMatch(context.Background(), vandal, randomEntrant, arenaConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Reason == ReasonIllegalMove || r.Reason == ReasonPlayerError {
			t.Errorf("game %d: %s (%s): the vandal's moves reached the arena's game", r.Game, r.Reason, r.Detail)
		}
		checkReplay(t, r, arenaConfig().Rules)
	}
}

func TestRoundRobinRatesPlayers(t *testing.T) {
	cheat := Entrant{Name: "cheat", New: func(uint64) (mcts.Player, error) { return cheatPlayer{}, nil }}
	var finished atomic.Int32
	cfg := arenaConfig()
	cfg.Games = 10
	cfg.OnGame = func(GameRecord) { finished.Add(1) }
	recs, err := RoundRobin(context.Background(), []Entrant{randomEntrant, greedyEntrant, cheat}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 30 || finished.Load() != 30 {
		t.Fatalf("%d records, %d OnGame calls: want 30", len(recs), finished.Load())
	}
	pairs := map[[2]string]int{}
	for _, r := range recs {
		pairs[[2]string{min(r.Red, r.Blue), max(r.Red, r.Blue)}]++
	}
	if len(pairs) != 3 {
		t.Errorf("pairings played: %v", pairs)
	}
	ratings, err := elo.Fit(Results(recs), "random")
	if err != nil {
		t.Fatal(err)
	}
	if ratings[0].Player != "greedy" || ratings[2].Player != "cheat" {
		t.Errorf("ratings %+v: want greedy, random, cheat", ratings)
	}
}

func TestArenaFactoryFailureStops(t *testing.T) {
	for _, tc := range []struct {
		name    string
		factory PlayerFactory
		want    string
	}{
		{"error", func(uint64) (mcts.Player, error) { return nil, errors.New("no such model") }, "no such model"},
		{"panic", func(uint64) (mcts.Player, error) { panic("bad spec") }, "panic: bad spec"},
		{"nil player", func(uint64) (mcts.Player, error) { return nil, nil }, "no player"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PlayMatch(context.Background(), Entrant{Name: "broken", New: tc.factory}, randomEntrant, arenaConfig())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "broken") {
				t.Errorf("err = %v, want one naming broken and %q", err, tc.want)
			}
		})
	}
}

func TestArenaCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := arenaConfig()
	cfg.Games, cfg.Parallel = 40, 1
	cfg.OnGame = func(r GameRecord) {
		if r.Game == 2 {
			cancel()
		}
	}
	recs, err := PlayMatch(ctx, randomEntrant, greedyEntrant, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(recs) < 3 || len(recs) >= 40 {
		t.Errorf("%d finished records returned, want the few played", len(recs))
	}
}

func TestArenaBadSetup(t *testing.T) {
	ok := arenaConfig()
	tests := []struct {
		name     string
		entrants []Entrant
		cfg      func(c *Config)
		want     string
	}{
		{"no games", []Entrant{randomEntrant, greedyEntrant}, func(c *Config) { c.Games = 0 }, "arena: games is 0: want 1 or more"},
		{"negative openings", []Entrant{randomEntrant, greedyEntrant}, func(c *Config) { c.OpeningPlies = -1 }, "opening_plies is -1"},
		{"openings past the limit", []Entrant{randomEntrant, greedyEntrant}, func(c *Config) { c.OpeningPlies, c.Rules.MaxPlies = 10, 10 }, "want fewer than the move limit"},
		{"no workers", []Entrant{randomEntrant, greedyEntrant}, func(c *Config) { c.Parallel = 0 }, "parallel"},
		{"bad rules", []Entrant{randomEntrant, greedyEntrant}, func(c *Config) { c.Rules.RepetitionLimit = 1 }, "repetitions"},
		{"one entrant", []Entrant{randomEntrant}, func(*Config) {}, "1 entrants"},
		{"same name", []Entrant{randomEntrant, randomEntrant}, func(*Config) {}, "two entrants are called random"},
		{"no factory", []Entrant{randomEntrant, {Name: "x"}}, func(*Config) {}, "no player factory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.cfg(&cfg)
			_, err := RoundRobin(context.Background(), tc.entrants, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestGameRecordJSON(t *testing.T) {
	recs, err := PlayMatch(context.Background(), greedyEntrant, Entrant{Name: "bad", New: func(uint64) (mcts.Player, error) { return panicPlayer{}, nil }}, arenaConfig())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	var back []GameRecord
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, recs) {
		t.Error("records change in a JSON round trip")
	}
	if !strings.Contains(string(data), `"reason":"player error"`) || !strings.Contains(string(data), `"start_fen":"`) {
		t.Errorf("JSON lacks the expected keys: %.300s", data)
	}
}

func ExamplePlayMatch() {
	greedy := Entrant{Name: "greedy", New: func(seed uint64) (mcts.Player, error) { return players.NewGreedyPlayer(seed), nil }}
	random := Entrant{Name: "random", New: func(seed uint64) (mcts.Player, error) { return players.NewRandomPlayer(seed), nil }}
	cfg := Config{Rules: env.DefaultRules(), Games: 10, Parallel: 2, OpeningPlies: 2, Seed: 1}
	records, err := PlayMatch(context.Background(), greedy, random, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	greedyRed := 0
	for _, r := range records {
		if r.Red == "greedy" {
			greedyRed++
		}
	}
	points, games := ScoreOf(records, "greedy")
	fmt.Printf("%d games, greedy Red in %d, greedy scored %.0f%% of %d\n", len(records), greedyRed, 100*points/float64(games), games)
	// Output: 10 games, greedy Red in 5, greedy scored 100% of 10
}

// A tournament given the games played before (as a journal keeps them,
// in the order they finished) plays only the others and returns the same
// games as one played in one go, whatever the cut and the parallelism.
func TestRoundRobinPlayed(t *testing.T) {
	cfg := arenaConfig()
	cfg.Games = 4
	entrants := []Entrant{randomEntrant, greedyEntrant, entrant("greedy#2", func(r *rand.Rand) mcts.Player { return &greedyPlayer{r} })}
	full, err := RoundRobin(context.Background(), entrants, cfg)
	if err != nil {
		t.Fatal(err)
	}
	pick := func(keep func(i int) bool) []GameRecord {
		var out []GameRecord
		for i := len(full) - 1; i >= 0; i-- { // not in game order
			if keep(i) {
				out = append(out, full[i])
			}
		}
		return out
	}
	cuts := []struct {
		name   string
		played []GameRecord
	}{
		{"none", nil},
		{"the first", pick(func(i int) bool { return i == 0 })},
		{"the first half", pick(func(i int) bool { return i < len(full)/2 })},
		{"every other", pick(func(i int) bool { return i%2 == 1 })},
		{"all but the last", pick(func(i int) bool { return i < len(full)-1 })},
		{"all", pick(func(int) bool { return true })},
		{"the first half, kept by an earlier version", func() []GameRecord {
			old := pick(func(i int) bool { return i < len(full)/2 })
			for i := range old {
				old[i].EndFEN = "" // records lacked it; the arena replays them
			}
			return old
		}()},
	}
	want := untimed(t, slices.Clone(full))
	for _, cut := range cuts {
		for _, parallel := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s, parallel %d", cut.name, parallel), func(t *testing.T) {
				c := cfg
				c.Parallel, c.Played = parallel, slices.Clone(cut.played)
				var played atomic.Int32
				c.OnGame = func(GameRecord) { played.Add(1) }
				got, err := RoundRobin(context.Background(), entrants, c)
				if err != nil {
					t.Fatal(err)
				}
				if n := int(played.Load()); n != len(full)-len(cut.played) {
					t.Errorf("%d games played for %d missing", n, len(full)-len(cut.played))
				}
				if !reflect.DeepEqual(untimed(t, got), want) {
					t.Error("the resumed tournament's games differ from the one played in one go")
				}
			})
		}
	}
}

// A game given as played that is not the one its number stands for is
// refused before any game is played, and CheckPlayed says the same.
func TestRoundRobinRefusesForeignPlayed(t *testing.T) {
	cfg := arenaConfig()
	cfg.Games = 4
	full, err := PlayMatch(context.Background(), randomEntrant, greedyEntrant, cfg)
	if err != nil {
		t.Fatal(err)
	}
	changed := func(i int, change func(r *GameRecord)) []GameRecord {
		r := full[i]
		r.Opening = slices.Clone(r.Opening)
		change(&r)
		return []GameRecord{full[0], r}
	}
	for _, tc := range []struct {
		name   string
		played []GameRecord
		want   string
	}{
		{"colours swapped", changed(1, func(r *GameRecord) { r.Red, r.Blue = r.Blue, r.Red }), "game 1: it is random against greedy, the tournament's greedy against random"},
		{"another player", changed(1, func(r *GameRecord) { r.Blue = "alphabeta" }), "the tournament's greedy against random"},
		{"another seed", changed(1, func(r *GameRecord) { r.BlueSeed++ }), "game 1: its seeds are"},
		{"another opening", changed(2, func(r *GameRecord) { r.Opening[0] = "a1-1-a2" }), "game 2: its opening is"},
		{"a shorter opening", changed(2, func(r *GameRecord) { r.Opening = r.Opening[:1] }), "game 2: its opening is"},
		{"no result", changed(1, func(r *GameRecord) { r.Result = "" }), `game 1: its result "" is none of`},
		{"moves that do not replay", changed(1, func(r *GameRecord) { r.EndFEN, r.Moves = "", []string{"zz"} }), "game 1: its ply 5, zz, does not replay"},
		{"a number too high", changed(1, func(r *GameRecord) { r.Game = 4 }), "game 4: the tournament has games 0 to 3"},
		{"a negative number", changed(1, func(r *GameRecord) { r.Game = -1 }), "game -1: the tournament has games 0 to 3"},
		{"given twice", []GameRecord{full[1], full[1]}, "game 1 is given twice"},
		{"another game's number", changed(1, func(r *GameRecord) { r.Game = 2 }), "game 2: it is greedy against random"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Played = tc.played
			c.OnGame = func(r GameRecord) { t.Errorf("game %d played", r.Game) }
			_, err := PlayMatch(context.Background(), randomEntrant, greedyEntrant, c)
			if !errors.Is(err, ErrPlayedGame) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrPlayedGame and %q", err, tc.want)
			}
			if err := CheckPlayed(c, randomEntrant.Name, greedyEntrant.Name); !errors.Is(err, ErrPlayedGame) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckPlayed: %v, want ErrPlayedGame and %q", err, tc.want)
			}
		})
	}
	c := cfg
	c.Played = full
	if err := CheckPlayed(c, randomEntrant.Name, greedyEntrant.Name); err != nil {
		t.Errorf("CheckPlayed of the match's own games: %v", err)
	}
}

// A stop drops the games in progress at once, rather than playing them
// out: the arena returns while a slow game is still far from its end.
func TestArenaCancelDropsGamesInProgress(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	moves := 0
	slow := Entrant{Name: "slow", New: func(seed uint64) (mcts.Player, error) {
		return playerFunc(func(g *env.Game) (mcts.Decision, error) {
			if moves++; moves == 3 {
				cancel()
			}
			return (&randomPlayer{rand.New(rand.NewPCG(seed, 0))}).Choose(g)
		}), nil
	}}
	cfg := arenaConfig()
	cfg.Games, cfg.Parallel, cfg.Rules.MaxPlies = 2, 1, 0
	recs, err := PlayMatch(ctx, slow, randomEntrant, cfg)
	if !errors.Is(err, context.Canceled) || len(recs) != 0 {
		t.Fatalf("%d records, err %v: want none and context.Canceled", len(recs), err)
	}
	if moves != 3 {
		t.Errorf("the slow player chose %d moves: want the game dropped after the third", moves)
	}
}

// failPlayer fails every move with an external program's error.
type failPlayer struct{ err error }

func (p failPlayer) Choose(*env.Game) (mcts.Decision, error) {
	return mcts.Decision{}, fmt.Errorf("program x: %w", p.err)
}

// closingPlayer is a random player that counts its Close calls; with a
// cancel, its first move cancels the arena's context and waits until the
// player is closed.
type closingPlayer struct {
	randomPlayer
	closes *atomic.Int32
	cancel func()
	closed chan struct{}
	once   sync.Once
}

func (p *closingPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	if p.cancel != nil {
		p.cancel()
		<-p.closed
		return mcts.Decision{}, errors.New("closed")
	}
	return p.randomPlayer.Choose(g)
}

func (p *closingPlayer) Close() error {
	p.closes.Add(1)
	p.once.Do(func() { close(p.closed) })
	return nil
}

// The arena closes a player that is an io.Closer when its game ends, and
// at once when the context ends, dropping the game.
func TestArenaClosesPlayers(t *testing.T) {
	for _, block := range []bool{false, true} {
		t.Run(fmt.Sprintf("block=%v", block), func(t *testing.T) {
			var closes atomic.Int32
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			closing := Entrant{Name: "closing", New: func(seed uint64) (mcts.Player, error) {
				p := &closingPlayer{randomPlayer: randomPlayer{rand.New(rand.NewPCG(seed, 0))}, closes: &closes, closed: make(chan struct{})}
				if block {
					p.cancel = cancel
				}
				return p, nil
			}}
			cfg := arenaConfig()
			cfg.Games, cfg.Parallel = 4, 1
			recs, err := PlayMatch(ctx, closing, randomEntrant, cfg)
			switch {
			case !block && (err != nil || len(recs) != 4 || closes.Load() != 4):
				t.Errorf("%d records, %d closes, err %v: want 4 games, each player closed once", len(recs), closes.Load(), err)
			case block && (!errors.Is(err, context.Canceled) || len(recs) != 0 || closes.Load() != 2):
				t.Errorf("%d records, %d closes, err %v: want the game dropped, context.Canceled, and the player closed at the cancel and at the game's end", len(recs), closes.Load(), err)
			}
		})
	}
}

// playerFunc is a player made of its Choose.
type playerFunc func(g *env.Game) (mcts.Decision, error)

func (f playerFunc) Choose(g *env.Game) (mcts.Decision, error) { return f(g) }

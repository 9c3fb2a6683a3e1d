package arena_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
)

// lastMove is a deterministic policy: the last of the legal moves.
func lastMove(g *env.Game) env.Move {
	legal := g.LegalMoves(nil)
	return legal[len(legal)-1]
}

// lastMovePlayer plays lastMove in Go.
type lastMovePlayer struct{}

func (lastMovePlayer) Choose(g *env.Game) (mcts.Decision, error) {
	return mcts.Decision{Move: lastMove(g), Value: math.NaN()}, nil
}

// callerFuncs are Go functions standing in for the caller's (Python's)
// callables: evaluate writes the logits and values of batch number batch
// of n leaves, or fails; policy answers a question.
type callerFuncs struct {
	evaluate func(batch, n int, logits, values []float32) error
	policy   func(t *testing.T, q arena.PolicyQuestion) string
}

// uniform is a caller's evaluator: zero logits (a uniform policy) and
// zero values, as mcts.UniformEvaluator gives.
func uniform(_, n int, logits, values []float32) error {
	clear(logits[:n*env.NumActions])
	clear(values[:n])
	return nil
}

// lastMovePolicy answers lastMove in the game of a question.
func lastMovePolicy(t *testing.T, q arena.PolicyQuestion) string {
	g := env.NewGame(env.DefaultRules())
	if start := g.Position(); q.FEN != start.FEN() {
		t.Errorf("question %d starts at %s, want the start position", q.ID, q.FEN)
	}
	for _, text := range q.Moves {
		m, err := env.ParseMove(text)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			t.Fatalf("question %d: move %s: %v", q.ID, text, err)
		}
	}
	return lastMove(g).String()
}

// play plays an evaluation of e's contenders with the caller's loop
// served by c, with room for capacity leaves a batch, and returns its
// records, the sizes of the batches and the cause of its stop (a bad
// result, the caller's own failure), or else the error of the games.
func (c callerFuncs) play(t *testing.T, e callerEvaluation, cfg arena.Config, capacity int) ([]arena.GameRecord, []int, error) {
	t.Helper()
	s := e.players
	var records []arena.GameRecord
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		records, _, err = arena.PlayEvaluation(e.ctx, e.contenders, cfg, nil, nil)
		if cause := s.Failure(); cause != nil {
			err = cause
		}
	}()
	obs := make([]float32, capacity*env.ObservationSize)
	mask := make([]bool, capacity*env.NumActions)
	logits := make([]float32, capacity*env.NumActions)
	values := make([]float32, capacity)
	var batches []int
	defer s.Close()
	for {
		k, ended := s.Wait(done, time.After(time.Second))
		switch {
		case ended:
			return records, batches, err
		case k < 0:
			continue
		}
		if _, evaluator := s.EvaluatorConfig(k); !evaluator {
			text, err := s.Question(int64(k))
			if err != nil {
				t.Fatal(err)
			}
			var q arena.PolicyQuestion
			if err := json.Unmarshal([]byte(text), &q); err != nil {
				t.Fatal(err)
			}
			if err := s.Answer(q.ID, c.policy(t, q)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		n, err := s.Leaves(int64(k), obs, mask, capacity)
		if err != nil {
			<-done
			return records, batches, err
		}
		if n == 0 {
			continue
		}
		if err := c.evaluate(len(batches), n, logits, values); err != nil {
			s.Stop(err)
			<-done
			return records, batches, err
		}
		batches = append(batches, n)
		if err := s.Feed(int64(k), logits[:n*env.NumActions], values[:n], n); err != nil {
			t.Fatal(err)
		}
	}
}

// callerEvaluation is an evaluation among an evaluator (net) searching
// with cfg, a policy (pol) and a random player, the first two the
// caller's: their contenders, and the context of the games, which a stop
// ends.
type callerEvaluation struct {
	players    *arena.CallerPlayers
	contenders []arena.Contender
	ctx        context.Context
}

func newCallerEvaluation(cfg mcts.Config) callerEvaluation {
	ctx, cancel := context.WithCancel(context.Background())
	s := arena.NewCallerPlayers(3, model.LegalSoftmax, cancel)
	return callerEvaluation{players: s, ctx: ctx, contenders: []arena.Contender{
		s.Evaluator(0, "net", "python evaluator sims=16", cfg),
		s.Policy(1, "pol"),
		arena.SpecContender("r", players.Spec{Kind: players.KindRandom}, nil),
	}}
}

func testConfig(parallel int) arena.Config {
	rules := env.DefaultRules()
	rules.MaxPlies = 60
	return arena.Config{Rules: rules, Games: 4, Parallel: parallel, OpeningPlies: 2, Seed: 3}
}

// The caller's players play the games their Go twins play: an evaluator
// whose caller evaluates uniformly searches as a search with
// mcts.UniformEvaluator does, and a policy answers as the Go player of
// the same policy, whatever the number of games at once; the leaves of
// several games go in one batch.
func TestCallerPlayersPlayAsGo(t *testing.T) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 16
	want, err := arena.RoundRobin(context.Background(), []arena.Entrant{
		{Name: "net", New: func(seed uint64) (mcts.Player, error) { return mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, cfg, seed) }},
		{Name: "pol", New: func(uint64) (mcts.Player, error) { return lastMovePlayer{}, nil }},
		{Name: "r", New: func(seed uint64) (mcts.Player, error) { return players.NewRandomPlayer(seed), nil }},
	}, testConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, parallel := range []int{1, 4} {
		got, batches, err := callerFuncs{evaluate: uniform, policy: lastMovePolicy}.play(t, newCallerEvaluation(cfg), testConfig(parallel), 4*cfg.BatchSize)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("parallel %d: %d games, want %d", parallel, len(got), len(want))
		}
		for i := range got {
			got[i].MoveMS, want[i].MoveMS = nil, nil
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("parallel %d: game %d:\n%+v\nwant the Go players'\n%+v", parallel, i, got[i], want[i])
			}
		}
		if parallel > 1 && (len(batches) == 0 || slices.Max(batches) <= cfg.BatchSize || slices.Max(batches) > 4*cfg.BatchSize) {
			t.Errorf("parallel %d: batches %v: want some of more than one search's %d leaves, none above the capacity, %d", parallel, batches, cfg.BatchSize, 4*cfg.BatchSize)
		}
	}
}

// A bad result of the caller's evaluator, or its own failure, stops the
// evaluation with that error; a policy's malformed move loses its game.
func TestCallerPlayersFailures(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name    string
		funcs   callerFuncs
		want    string
		forfeit int
	}{
		{"NaN value", callerFuncs{evaluate: func(batch, n int, logits, values []float32) error {
			_ = uniform(batch, n, logits, values)
			if batch == 3 {
				values[n-1] = float32(math.NaN())
			}
			return nil
		}, policy: lastMovePolicy}, "evaluate: player net: the evaluator returned NaN for the value of position ", 0},
		{"infinite logit", callerFuncs{evaluate: func(batch, n int, logits, values []float32) error {
			_ = uniform(batch, n, logits, values)
			for i := range logits[:n*env.NumActions] {
				logits[i] = float32(math.Inf(1))
			}
			return nil
		}, policy: lastMovePolicy}, "the evaluator returned +Inf for the logit of legal action", 0},
		{"the caller fails", callerFuncs{evaluate: func(batch, n int, logits, values []float32) error {
			if batch == 2 {
				return boom
			}
			return uniform(batch, n, logits, values)
		}, policy: lastMovePolicy}, "boom", 0},
		{"malformed move", callerFuncs{evaluate: uniform, policy: func(*testing.T, arena.PolicyQuestion) string { return "a1-9-z9" }}, "", 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mcts.DefaultConfig()
			cfg.Simulations = 16
			records, _, err := tc.funcs.play(t, newCallerEvaluation(cfg), testConfig(3), 3*cfg.BatchSize)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			lost := 0
			for _, r := range records {
				if r.Reason == arena.ReasonMalformedMove {
					lost++
				}
			}
			if lost != tc.forfeit {
				t.Errorf("%d games lost by a malformed move, want %d", lost, tc.forfeit)
			}
		})
	}
}

// The caller's calls for a player of the wrong kind, or an answer to no
// question, are errors.
func TestCallerPlayersCallErrors(t *testing.T) {
	s := newCallerEvaluation(mcts.DefaultConfig()).players
	buf := make([]float32, 8*env.ObservationSize)
	mask := make([]bool, 8*env.NumActions)
	second := func(_ any, err error) error { return err }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"leaves of a policy", second(s.Leaves(1, buf, mask, 8)), "player 1 is not a Python evaluator"},
		{"leaves of another player", second(s.Leaves(2, buf, mask, 8)), "player 2 is not a Python evaluator"},
		{"leaves of no player", second(s.Leaves(7, buf, mask, 8)), "player 7 is not a Python evaluator"},
		{"feed of a policy", s.Feed(1, nil, nil, 0), "player 1 is not a Python evaluator"},
		{"question of an evaluator", second(s.Question(0)), "player 0 is not a Python policy"},
		{"answer to no question", s.Answer(99, "a1-1-a2"), "question 99: no such question"},
		{"feed before leaves", s.Feed(0, nil, nil, 0), "feed: no batch to feed"},
		{"leaves into ragged arrays", second(s.Leaves(0, buf, mask[:5], 8)), "player net: next batch: 5 mask entries"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	if err := s.Failure(); err != nil {
		t.Errorf("the caller's bad calls stopped the evaluation: %v", err)
	}
}

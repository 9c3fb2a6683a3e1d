package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/arena"
)

// The Python players of an evaluation (see arena.go): an evaluator's
// searches and a policy's moves, served from the thread that called
// evaluate. As with Search and SelfPlay (see steps.go), the library
// never calls into the caller. The games play on the arena's goroutines;
// a Python player's search queues its leaves in its player's leafQueue,
// one for all the games of that player, and a policy player queues its
// position and waits. The caller's loop asks ds_arena_wait which player
// has work, then takes it: a batch of leaves with ds_arena_leaves (the
// leaves of every game of that player, once every search of it in
// progress waits), fed back with ds_arena_feed; or a position with
// ds_arena_question, answered with ds_arena_answer.

// pythonSide holds the Python players of one evaluation and their work.
type pythonSide struct {
	mu sync.Mutex
	// wake is signalled, without blocking, whenever work may have come.
	wake chan struct{}
	// players are by the request's player index, nil for those of Go.
	players []*pythonPlayer
	// from is where the next look for work starts, so that no player
	// waits behind another forever.
	from int
	// stopped is closed when the evaluation stops before its end, cause
	// why; cancel ends its games.
	stopped chan struct{}
	cause   error
	cancel  context.CancelFunc
	// lastID is the last question's id.
	lastID int64
}

// pythonPlayer is one Python player: an evaluator (q is not nil) or a
// policy.
type pythonPlayer struct {
	name string
	// An evaluator's queue and search settings; active counts its
	// searches in progress, waiting those of them waiting for leaves to
	// be evaluated, and pending the leaves queued and not yet taken by
	// the caller.
	q                        *leafQueue
	cfg                      mcts.Config
	active, waiting, pending int
	// A policy's questions not yet answered, oldest first.
	questions []*question
}

// question is a policy player's position waiting for its move.
type question struct {
	id int64
	// game is the game's start position and moves, as JSON.
	game   string
	answer chan string
}

// errClosed is the cause of an evaluation whose handle was closed.
var errClosed = errors.New("evaluate: the evaluation was closed")

func newPythonSide(players int, cancel context.CancelFunc) *pythonSide {
	return &pythonSide{wake: make(chan struct{}, 1), players: make([]*pythonPlayer, players), stopped: make(chan struct{}), cancel: cancel}
}

// signal wakes the caller's wait.
func (s *pythonSide) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// evaluatorContender adds player i, a Python evaluator searching with
// settings (a JSON object of search settings, as Search takes them).
func (s *pythonSide) evaluatorContender(i int, name, settings string, rules env.Rules) (arena.Contender, error) {
	searcher, err := newSearcher(settings, 0, rules)
	if err != nil {
		return arena.Contender{}, err
	}
	p := &pythonPlayer{name: name, cfg: searcher.cfg}
	// One batch as soon as a search waits; work says when all wait.
	p.q = newLeafQueue(p.cfg.BatchSize)
	s.players[i] = p
	// Named in results.json as "python evaluator sims=100,c_puct=2".
	about, sep := "python evaluator", " "
	params, _ := searchSettings(settings)
	for _, pm := range params {
		about += sep + pm.Key + "=" + pm.Value
		sep = ","
	}
	return arena.Contender{Spec: about, Entrant: arena.Entrant{Name: name, New: func(seed uint64) (mcts.Player, error) {
		search, err := mcts.NewPUCTPlayer(evaluatorOf{s, p}, p.cfg, seed)
		if err != nil {
			return nil, err
		}
		return countedSearch{search, s, p}, nil
	}}}, nil
}

// policyContender adds player i, a Python policy.
func (s *pythonSide) policyContender(i int, name string) arena.Contender {
	p := &pythonPlayer{name: name}
	s.players[i] = p
	return arena.Contender{Spec: "python policy", Entrant: arena.Entrant{Name: name, New: func(uint64) (mcts.Player, error) {
		return &policyPlayer{s: s, p: p, closed: make(chan struct{})}, nil
	}}}
}

// evaluatorOf is the evaluator of a Python evaluator player's searches:
// it counts the searches waiting and the leaves queued for the caller.
type evaluatorOf struct {
	s *pythonSide
	p *pythonPlayer
}

// Evaluate implements mcts.Evaluator. An error (a bad result of the
// caller's, or the evaluation stopping) stops the evaluation.
func (e evaluatorOf) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	s, p := e.s, e.p
	s.mu.Lock()
	p.waiting++
	p.pending += len(values)
	s.mu.Unlock()
	s.signal()
	err := p.q.Evaluate(obs, legal, priors, values)
	s.mu.Lock()
	p.waiting--
	s.mu.Unlock()
	if err != nil {
		s.stop(fmt.Errorf("evaluate: player %s: %w", p.name, err))
	}
	return err
}

// countedSearch is a search of a Python evaluator player, counted while
// it chooses.
type countedSearch struct {
	*mcts.PUCTPlayer
	s *pythonSide
	p *pythonPlayer
}

func (c countedSearch) Choose(g *env.Game) (mcts.Decision, error) {
	c.s.mu.Lock()
	c.p.active++
	c.s.mu.Unlock()
	defer func() {
		c.s.mu.Lock()
		c.p.active--
		c.s.mu.Unlock()
		c.s.signal()
	}()
	return c.PUCTPlayer.Choose(g)
}

// policyPlayer is a Python policy's player in one game.
type policyPlayer struct {
	s      *pythonSide
	p      *pythonPlayer
	closed chan struct{}
	once   sync.Once
}

// policyGame is what a policy is asked: the game's start position and
// its moves since, as Player.choose takes them.
type policyGame struct {
	ID    int64    `json:"id"`
	FEN   string   `json:"fen"`
	Moves []string `json:"moves"`
}

// Choose implements mcts.Player: it queues the game for the caller and
// waits for the move, which it returns as answered (an illegal one is
// for the arena to refuse).
func (pp *policyPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	s := pp.s
	s.mu.Lock()
	s.lastID++
	start := g.StartPosition()
	ask := policyGame{ID: s.lastID, FEN: start.FEN(), Moves: []string{}}
	for _, m := range g.Moves() {
		ask.Moves = append(ask.Moves, m.String())
	}
	b, err := json.Marshal(ask)
	if err != nil {
		s.mu.Unlock()
		return mcts.Decision{}, err
	}
	q := &question{id: ask.ID, game: string(b), answer: make(chan string, 1)}
	pp.p.questions = append(pp.p.questions, q)
	s.mu.Unlock()
	s.signal()
	select {
	case text := <-q.answer:
		m, err := env.ParseMove(text)
		if err != nil {
			return mcts.Decision{}, fmt.Errorf("policy %s: %w: %q: %v", pp.p.name, players.ErrMalformedAnswer, text, err)
		}
		return mcts.Decision{Move: m, Value: math.NaN()}, nil
	case <-pp.closed:
		s.withdraw(pp.p, q)
		return mcts.Decision{}, fmt.Errorf("policy %s: the game was stopped", pp.p.name)
	case <-s.stopped:
		s.withdraw(pp.p, q)
		return mcts.Decision{}, s.failure()
	}
}

// Close stops a Choose waiting for the caller: the arena closes a player
// when its game ends or is dropped.
func (pp *policyPlayer) Close() error {
	pp.once.Do(func() { close(pp.closed) })
	return nil
}

// withdraw forgets a question no one waits for any more.
func (s *pythonSide) withdraw(p *pythonPlayer, q *question) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range p.questions {
		if x == q {
			p.questions = append(p.questions[:i], p.questions[i+1:]...)
			return
		}
	}
}

// work returns the index of a player with work for the caller, or -1:
// an evaluator whose searches in progress all wait, some leaves not yet
// taken; a policy with a question.
func (s *pythonSide) work() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cause != nil {
		return -1
	}
	n := len(s.players)
	for j := range n {
		i := (s.from + j) % n
		p := s.players[i]
		if p != nil && (p.q != nil && p.pending > 0 && p.waiting >= p.active || len(p.questions) > 0) {
			s.from = i + 1
			return i
		}
	}
	return -1
}

// player returns Python player k, an evaluator when leaves is true, else
// a policy.
func (s *pythonSide) player(k int64, leaves bool) (*pythonPlayer, error) {
	if k < 0 || k >= int64(len(s.players)) || s.players[k] == nil || (s.players[k].q != nil) != leaves {
		what := "a Python policy"
		if leaves {
			what = "a Python evaluator"
		}
		return nil, fmt.Errorf("evaluate: player %d is not %s", k, what)
	}
	return s.players[k], nil
}

// leaves writes the next batch of evaluator k's leaves into the caller's
// arrays (room for capacity positions) and returns its size (see
// leafQueue.next).
func (s *pythonSide) leaves(k int64, obs []float32, mask []bool, capacity int) (int, error) {
	p, err := s.player(k, true)
	if err != nil {
		return 0, err
	}
	n, err := p.q.next(obs, mask, capacity)
	s.mu.Lock()
	p.pending -= n
	s.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("evaluate: player %s: %w", p.name, err)
	}
	return n, nil
}

// feed hands the caller's evaluation of evaluator k's batch to its
// searches (see leafQueue.feed).
func (s *pythonSide) feed(k int64, logits, values []float32, n int) error {
	p, err := s.player(k, true)
	if err != nil {
		return err
	}
	if err := p.q.feed(logits, values, n); err != nil {
		return fmt.Errorf("evaluate: player %s: %w", p.name, err)
	}
	return nil
}

// question returns policy k's oldest question: its game as JSON, with
// the id its answer gives. It stays policy k's question until answered.
func (s *pythonSide) question(k int64) (string, error) {
	p, err := s.player(k, false)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(p.questions) == 0 {
		return "", fmt.Errorf("evaluate: player %s has no position waiting for a move", p.name)
	}
	return p.questions[0].game, nil
}

// answer gives the move of question id. A question whose game has been
// dropped meanwhile takes no answer, and that is no error.
func (s *pythonSide) answer(id int64, move string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id < 1 || id > s.lastID {
		return fmt.Errorf("evaluate: answer to question %d: no such question", id)
	}
	for _, p := range s.players {
		if p == nil {
			continue
		}
		for i, q := range p.questions {
			if q.id == id {
				p.questions = append(p.questions[:i], p.questions[i+1:]...)
				q.answer <- move
				return nil
			}
		}
	}
	return nil
}

// stop stops the evaluation before its end for cause (the first cause
// given stays): its games end, and the searches and policies waiting for
// the caller fail at once.
func (s *pythonSide) stop(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cause != nil {
		return
	}
	s.cause = cause
	close(s.stopped)
	s.cancel()
	for _, p := range s.players {
		if p != nil && p.q != nil {
			// fail waits for the run's end, which end gives.
			go p.q.fail(cause)
		}
	}
	s.signal()
}

// failure returns the cause of a stop, or nil.
func (s *pythonSide) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
}

// end records the end of the games, with their error, in every queue.
func (s *pythonSide) end(err error) {
	for _, p := range s.players {
		if p != nil && p.q != nil {
			p.q.end(err)
		}
	}
}

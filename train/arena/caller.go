package arena

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

// CallerPlayers are the players of an evaluation whose moves or leaf
// evaluations come from its caller (the C library's Python players): an
// evaluator's searches, and a policy's moves. The games play on the
// arena's goroutines and never call into the caller: an evaluator
// player's search queues its leaves in its player's queue, one for all
// the games of that player, and a policy player queues its position and
// waits. The caller's loop asks [CallerPlayers.Wait] which player has
// work, then takes it: a batch of leaves with [CallerPlayers.Leaves] (the
// leaves of every game of that player, once every search of it in
// progress waits), fed back with [CallerPlayers.Feed]; or a position with
// [CallerPlayers.Question], answered with [CallerPlayers.Answer].
type CallerPlayers struct {
	mu sync.Mutex
	// wake is signalled, without blocking, whenever work may have come.
	wake chan struct{}
	// players are by the evaluation's player index, nil for the others.
	players []*callerPlayer
	// priors makes the priors of an evaluator's logits.
	priors mcts.PriorsFunc
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

// callerPlayer is one of the caller's players: an evaluator (q is not
// nil) or a policy.
type callerPlayer struct {
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

// NewCallerPlayers returns the caller's players of an evaluation of n
// players, none added yet. An evaluator's searches make the priors of the
// caller's logits with priors (model.LegalSoftmax, as the network's own
// evaluator does); a stop calls cancel, which must end the evaluation's
// games.
func NewCallerPlayers(n int, priors mcts.PriorsFunc, cancel context.CancelFunc) *CallerPlayers {
	return &CallerPlayers{wake: make(chan struct{}, 1), players: make([]*callerPlayer, n), priors: priors, stopped: make(chan struct{}), cancel: cancel}
}

// signal wakes the caller's wait.
func (s *CallerPlayers) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Evaluator adds player i, called name, whose searches (with settings
// cfg) have their leaves evaluated by the caller, and returns its
// contender, described by spec.
func (s *CallerPlayers) Evaluator(i int, name, spec string, cfg mcts.Config) Contender {
	// One batch as soon as a search waits; Wait says when all wait.
	p := &callerPlayer{name: name, cfg: cfg, q: newLeafQueue(cfg.BatchSize, s.priors)}
	s.players[i] = p
	return Contender{Spec: spec, Entrant: Entrant{Name: name, New: func(seed uint64) (mcts.Player, error) {
		search, err := mcts.NewPUCTPlayer(evaluatorOf{s, p}, p.cfg, seed)
		if err != nil {
			return nil, err
		}
		return countedSearch{search, s, p}, nil
	}}}
}

// Policy adds player i, called name, whose moves the caller answers, and
// returns its contender.
func (s *CallerPlayers) Policy(i int, name string) Contender {
	p := &callerPlayer{name: name}
	s.players[i] = p
	return Contender{Spec: "python policy", Entrant: Entrant{Name: name, New: func(uint64) (mcts.Player, error) {
		return &policyPlayer{s: s, p: p, closed: make(chan struct{})}, nil
	}}}
}

// EvaluatorConfig returns the search settings of evaluator k, and whether
// player k is one.
func (s *CallerPlayers) EvaluatorConfig(k int) (mcts.Config, bool) {
	if k < 0 || k >= len(s.players) || s.players[k] == nil || s.players[k].q == nil {
		return mcts.Config{}, false
	}
	return s.players[k].cfg, true
}

// evaluatorOf is the evaluator of an evaluator player's searches: it
// counts the searches waiting and the leaves queued for the caller.
type evaluatorOf struct {
	s *CallerPlayers
	p *callerPlayer
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
		s.Stop(fmt.Errorf("evaluate: player %s: %w", p.name, err))
	}
	return err
}

// countedSearch is a search of an evaluator player, counted while it
// chooses.
type countedSearch struct {
	*mcts.PUCTPlayer
	s *CallerPlayers
	p *callerPlayer
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

// policyPlayer is a policy's player in one game.
type policyPlayer struct {
	s      *CallerPlayers
	p      *callerPlayer
	closed chan struct{}
	once   sync.Once
}

// PolicyQuestion is what a policy is asked, as JSON: the game's start
// position and its moves since, with the id its answer gives.
type PolicyQuestion struct {
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
	ask := PolicyQuestion{ID: s.lastID, FEN: start.FEN(), Moves: []string{}}
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
		return mcts.Decision{}, s.Failure()
	}
}

// Close stops a Choose waiting for the caller: the arena closes a player
// when its game ends or is dropped.
func (pp *policyPlayer) Close() error {
	pp.once.Do(func() { close(pp.closed) })
	return nil
}

// withdraw forgets a question no one waits for any more.
func (s *CallerPlayers) withdraw(p *callerPlayer, q *question) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range p.questions {
		if x == q {
			p.questions = append(p.questions[:i], p.questions[i+1:]...)
			return
		}
	}
}

// Wait waits until done is closed (it returns ended), a player has work
// for the caller (it returns its index) or timeout fires (it returns -1):
// an evaluator whose searches in progress all wait, some leaves not yet
// taken; a policy with a question. A closed done comes first.
func (s *CallerPlayers) Wait(done <-chan struct{}, timeout <-chan time.Time) (k int, ended bool) {
	for {
		select {
		case <-done:
			return -1, true
		default:
		}
		if k := s.work(); k >= 0 {
			return k, false
		}
		select {
		case <-done:
		case <-s.wake:
		case <-timeout:
			return -1, false
		}
	}
}

// work returns the index of a player with work for the caller, or -1.
func (s *CallerPlayers) work() int {
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

// player returns player k, an evaluator when leaves is true, else a
// policy.
func (s *CallerPlayers) player(k int64, leaves bool) (*callerPlayer, error) {
	if k < 0 || k >= int64(len(s.players)) || s.players[k] == nil || (s.players[k].q != nil) != leaves {
		what := "a Python policy"
		if leaves {
			what = "a Python evaluator"
		}
		return nil, fmt.Errorf("evaluate: player %d is not %s", k, what)
	}
	return s.players[k], nil
}

// Leaves writes the next batch of evaluator k's leaves into the caller's
// arrays, observations and legal masks with room for capacity positions,
// and returns its size: every leaf queued that fits, once some are; 0
// when the games have ended well, or their error.
func (s *CallerPlayers) Leaves(k int64, obs []float32, mask []bool, capacity int) (int, error) {
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

// Feed hands the caller's evaluation of evaluator k's batch of n leaves
// (env.NumActions logits a leaf, in action order, and a value) to its
// searches. It returns at once: the caller keeps the arrays unchanged
// until its next call of Leaves, which waits until the searches have read
// them. A value out of [-1, 1] or a legal logit that is not finite stops
// the evaluation, with that error.
func (s *CallerPlayers) Feed(k int64, logits, values []float32, n int) error {
	p, err := s.player(k, true)
	if err != nil {
		return err
	}
	if err := p.q.feed(logits, values, n); err != nil {
		return fmt.Errorf("evaluate: player %s: %w", p.name, err)
	}
	return nil
}

// Question returns policy k's oldest question, a [PolicyQuestion] as
// JSON. It stays policy k's question until answered.
func (s *CallerPlayers) Question(k int64) (string, error) {
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

// Answer gives the move of question id. A question whose game has been
// dropped meanwhile takes no answer, and that is no error.
func (s *CallerPlayers) Answer(id int64, move string) error {
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

// Stop stops the evaluation before its end for cause (the first cause
// given stays): its games end, and the searches and policies waiting for
// the caller fail at once.
func (s *CallerPlayers) Stop(cause error) {
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
			// fail waits for the games' end, which End gives.
			go p.q.fail(cause)
		}
	}
	s.signal()
}

// Failure returns the cause of a stop, or nil.
func (s *CallerPlayers) Failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
}

// End records the end of the games, with their error: Leaves then returns
// it. Call it once, when the evaluation's games have returned.
func (s *CallerPlayers) End(err error) {
	for _, p := range s.players {
		if p != nil && p.q != nil {
			p.q.end(err)
		}
	}
}

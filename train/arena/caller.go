package arena

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/mcts/stepped"
)

// CallerPlayers are the players of an evaluation whose moves or leaf
// evaluations come from its caller (the C library's Python players): an
// evaluator's searches, and a policy's moves. The games play on the
// arena's goroutines and never call into the caller: an evaluator
// player's search is a work of its player's open [stepped.Run], one for
// all the games of that player, which the caller's rounds step; a policy
// player queues its position and waits. The caller's loop asks
// [CallerPlayers.Wait] which player has work, then takes it: a batch of
// leaves with [CallerPlayers.Leaves] (a round of that player's run: the
// leaves of every search of it in progress), fed back with
// [CallerPlayers.Feed]; or a position with [CallerPlayers.Question],
// answered with [CallerPlayers.Answer]. The loop makes its calls from one
// goroutine, whose rounds the searches belong to (see [stepped.Run]);
// once the games have returned, [CallerPlayers.Close] ends the runs.
type CallerPlayers struct {
	mu sync.Mutex
	// wake is signalled, without blocking, whenever work may have come.
	wake chan struct{}
	// players are by the evaluation's player index, nil for the others.
	players []*callerPlayer
	// priors makes the priors of an evaluator's logits.
	priors stepped.PriorsFunc
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

// callerPlayer is one of the caller's players: an evaluator (run is not
// nil) or a policy.
type callerPlayer struct {
	name string
	// An evaluator's run of searches and search settings.
	run *stepped.Run
	cfg mcts.Config
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
func NewCallerPlayers(n int, priors stepped.PriorsFunc, cancel context.CancelFunc) *CallerPlayers {
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
	p := &callerPlayer{name: name, cfg: cfg, run: stepped.NewOpen(cfg.BatchSize, s.priors)}
	s.players[i] = p
	return Contender{Spec: spec, Entrant: Entrant{Name: name, New: func(seed uint64) (mcts.Player, error) {
		eval := &slotEvaluator{}
		search, err := mcts.NewPUCTPlayer(eval, p.cfg, seed)
		if err != nil {
			return nil, err
		}
		return callerSearch{search, eval, s, p}, nil
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
	if k < 0 || k >= len(s.players) || s.players[k] == nil || s.players[k].run == nil {
		return mcts.Config{}, false
	}
	return s.players[k].cfg, true
}

// slotEvaluator is the evaluator of an evaluator player's search: the
// slot of its player's run that runs the search under way.
type slotEvaluator struct{ mcts.Evaluator }

// callerSearch is the search of an evaluator player in one game.
type callerSearch struct {
	*mcts.PUCTPlayer
	eval *slotEvaluator
	s    *CallerPlayers
	p    *callerPlayer
}

// choice is the outcome of a search.
type choice struct {
	d   mcts.Decision
	err error
}

// Choose implements mcts.Player: it hands the search to its player's
// run and waits for its decision. A search that the run's end aborts
// gives none: the evaluation has been stopped.
func (c callerSearch) Choose(g *env.Game) (mcts.Decision, error) {
	s := c.s
	reply := make(chan choice, 1)
	added := c.p.run.Add(func(eval mcts.Evaluator) error {
		c.eval.Evaluator = eval
		d, err := c.PUCTPlayer.Choose(g)
		if !errors.Is(err, stepped.ErrAborted) {
			reply <- choice{d, err}
		}
		return nil
	})
	if added {
		s.signal()
	}
	select {
	case r := <-reply:
		return r.d, r.err
	case <-s.stopped:
		return mcts.Decision{}, s.Failure()
	}
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
		if p != nil && (p.run != nil && p.run.Ready() || len(p.questions) > 0) {
			s.from = i + 1
			return i
		}
	}
	return -1
}

// player returns player k, an evaluator when leaves is true, else a
// policy.
func (s *CallerPlayers) player(k int64, leaves bool) (*callerPlayer, error) {
	if k < 0 || k >= int64(len(s.players)) || s.players[k] == nil || (s.players[k].run != nil) != leaves {
		what := "a Python policy"
		if leaves {
			what = "a Python evaluator"
		}
		return nil, fmt.Errorf("evaluate: player %d is not %s", k, what)
	}
	return s.players[k], nil
}

// Leaves runs a round of evaluator k's searches (see [stepped.Run.Next])
// into the caller's arrays, observations and legal masks with room for
// capacity positions, and returns the size of the batch: the leaves the
// searches in progress ask for, as many as fit; 0 when none asks for
// any. An error that ends the run (a bad result fed last, a search that
// failed) stops the evaluation; after a stop, Leaves returns its cause.
func (s *CallerPlayers) Leaves(k int64, obs []float32, mask []bool, capacity int) (int, error) {
	p, err := s.player(k, true)
	if err != nil {
		return 0, err
	}
	if len(mask) != capacity*env.NumActions {
		return 0, fmt.Errorf("evaluate: player %s: next batch: %d mask entries: want %d, for %d positions", p.name, len(mask), capacity*env.NumActions, capacity)
	}
	if cause := s.Failure(); cause != nil {
		return 0, fmt.Errorf("evaluate: player %s: %w", p.name, cause)
	}
	n, err := p.run.Next(obs, mask)
	if err != nil {
		err = fmt.Errorf("evaluate: player %s: %w", p.name, err)
		if p.run.Over() {
			s.Stop(err)
		}
	}
	return n, err
}

// Feed hands the caller's evaluation of evaluator k's batch of n leaves
// (env.NumActions logits a leaf, in action order, and a value) to its
// searches (see [stepped.Run.Feed]): the caller keeps the arrays
// unchanged until its next call of Leaves, whose round reads them. A
// value out of [-1, 1] or a legal logit that is not finite makes that
// round fail, which stops the evaluation with that error.
func (s *CallerPlayers) Feed(k int64, logits, values []float32, n int) error {
	p, err := s.player(k, true)
	if err != nil {
		return err
	}
	if len(values) != n {
		err = fmt.Errorf("feed: %d values for %d positions", len(values), n)
	} else {
		err = p.run.Feed(logits, values)
	}
	if err != nil {
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
// given stays), from any goroutine: its games end, and the players
// waiting for the caller's searches and answers fail at once. The
// searches stay suspended in their runs until Close.
func (s *CallerPlayers) Stop(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cause != nil {
		return
	}
	s.cause = cause
	close(s.stopped)
	s.cancel()
	s.signal()
}

// Failure returns the cause of a stop, or nil.
func (s *CallerPlayers) Failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
}

// Close ends the evaluators' runs once the evaluation's games have
// returned, aborting the searches a stop left suspended: from the
// goroutine of the caller's loop, whose rounds they belong to. From
// another goroutine, Abandon.
func (s *CallerPlayers) Close() {
	for _, p := range s.players {
		if p != nil && p.run != nil {
			p.run.Abort()
		}
	}
}

// Abandon ends the evaluators' runs as Close does, from a goroutine other
// than the caller's loop's: the searches suspended on the loop's side are
// left so (see [stepped.Run.Abandon]).
func (s *CallerPlayers) Abandon() {
	for _, p := range s.players {
		if p != nil && p.run != nil {
			p.run.Abandon()
		}
	}
}

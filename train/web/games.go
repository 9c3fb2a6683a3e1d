package web

import (
	"container/list"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/arena"
)

// game is one game between a person and a player. Its lock serialises the
// requests on it; an engine reply holds it while the player thinks.
type game struct {
	mu       sync.Mutex
	id       string
	spec     string
	human    env.Color
	g        *env.Game
	player   mcts.Player
	resigned bool
	// reply is the engine's last move and what it thought, nil before
	// its first and after an undo.
	reply *engineReply
}

// engineReply is what the engine said with its last move.
type engineReply struct {
	Move string `json:"move"`
	// Value is the engine's expected outcome for itself, null when it has
	// none.
	Value       *float64 `json:"value"`
	Simulations int      `json:"simulations,omitempty"`
	Depth       int      `json:"depth,omitempty"`
	Millis      float64  `json:"ms"`
}

// gameStore holds the games, dropping the least recently used one when a
// new game would pass the bound.
type gameStore struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*list.Element
	order *list.List // of *game, most recently used first
}

func newGameStore(max int) *gameStore {
	return &gameStore{max: max, byID: map[string]*list.Element{}, order: list.New()}
}

func (st *gameStore) add(g *game) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for st.order.Len() >= st.max {
		oldest := st.order.Back()
		delete(st.byID, oldest.Value.(*game).id)
		st.order.Remove(oldest)
	}
	st.byID[g.id] = st.order.PushFront(g)
}

func (st *gameStore) get(id string) (*game, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e, ok := st.byID[id]
	if !ok {
		return nil, false
	}
	st.order.MoveToFront(e)
	return e.Value.(*game), true
}

func (st *gameStore) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.order.Len()
}

// newID returns a random game id that a client cannot guess.
func newID() string {
	b := make([]byte, 8)
	rand.Read(b) // never fails (crypto/rand's contract)
	return hex.EncodeToString(b)
}

// newGameRequest is the body of POST /api/games.
type newGameRequest struct {
	// Player is one of the configured specs; "" means the first.
	Player string `json:"player"`
	// Human is the colour the person plays, "red" (the default) or "blue".
	Human string `json:"human"`
	// FEN is the start position; "" means the start of the game.
	FEN string `json:"fen"`
}

func (s *Server) newGame(r *http.Request) (any, error) {
	req, err := decodeBody[newGameRequest](r)
	if err != nil {
		return nil, err
	}
	spec, err := s.findPlayer(req.Player)
	if err != nil {
		return nil, err
	}
	human, err := parseColor(req.Human)
	if err != nil {
		return nil, err
	}
	g, err := s.startGame(req.FEN, 0, nil)
	if err != nil {
		return nil, err
	}
	if g.Status().Over() {
		return nil, badRequest("fen: the game is already over there (%v)", g.Status())
	}
	player, err := players.NewPlayer(spec, s.opts.Seed+s.started.Add(1)-1, s.models.Load)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", spec, err)
	}
	gm := &game{id: newID(), spec: spec.String(), human: human, g: g, player: player}
	s.games.add(gm)
	gm.mu.Lock()
	defer gm.mu.Unlock()
	return gm.state(), nil
}

func (s *Server) findPlayer(text string) (players.Spec, error) {
	if text == "" {
		return s.specs[0], nil
	}
	for _, sp := range s.specs {
		if sp.String() == text {
			return sp, nil
		}
	}
	names := make([]string, len(s.specs))
	for i, sp := range s.specs {
		names[i] = sp.String()
	}
	return players.Spec{}, badRequest("player %q: not one of this server's players (%s)", text, strings.Join(names, ", "))
}

func parseColor(text string) (env.Color, error) {
	switch text {
	case "", "red":
		return env.Red, nil
	case "blue":
		return env.Blue, nil
	}
	return 0, badRequest("human %q: want red or blue", text)
}

// lookup finds the game of the request's {id} and locks it; the caller
// unlocks it.
func (s *Server) lookup(r *http.Request) (*game, error) {
	id := r.PathValue("id")
	gm, ok := s.games.get(id)
	if !ok {
		return nil, notFound("game %q: no such game (it may have been dropped: the server keeps the %d most recently used)", id, s.opts.MaxGames)
	}
	gm.mu.Lock()
	return gm, nil
}

// withGame runs act on the request's game under the game's lock and
// answers with the game's state after it. Every game endpoint but the one
// that creates a game goes through it, so a finished game is refused the
// same way by each endpoint that needs one in play (ongoing).
func (s *Server) withGame(r *http.Request, ongoing bool, act func(gm *game) error) (any, error) {
	gm, err := s.lookup(r)
	if err != nil {
		return nil, err
	}
	defer gm.mu.Unlock()
	if ongoing {
		if err := gm.ongoing(); err != nil {
			return nil, err
		}
	}
	if err := act(gm); err != nil {
		return nil, err
	}
	return gm.state(), nil
}

func (s *Server) getGame(r *http.Request) (any, error) {
	return s.withGame(r, false, func(*game) error { return nil })
}

// moveRequest is the body of POST /api/games/{id}/move.
type moveRequest struct {
	Move string `json:"move"`
}

func (s *Server) move(r *http.Request) (any, error) {
	req, err := decodeBody[moveRequest](r)
	if err != nil {
		return nil, err
	}
	m, err := env.ParseMove(req.Move)
	if err != nil {
		return nil, badRequest("move: %v", err)
	}
	return s.withGame(r, true, func(gm *game) error {
		if side := gm.toMove(); side != gm.human {
			return conflict("move: it is the engine's turn (%v), not yours", side)
		}
		if err := gm.g.Play(m); err != nil {
			return badRequest("move %s: %v", m, err)
		}
		return nil
	})
}

// reply has the engine play its move.
func (s *Server) reply(r *http.Request) (any, error) {
	return s.withGame(r, true, (*game).engineMove)
}

func (gm *game) engineMove() error {
	if side := gm.toMove(); side == gm.human {
		return conflict("reply: it is your turn (%v), not the engine's", side)
	}
	start := time.Now()
	d, err := gm.player.Choose(gm.g.Clone())
	if err != nil {
		return fmt.Errorf("engine %s: %w", gm.spec, err)
	}
	if err := gm.g.Play(d.Move); err != nil {
		return fmt.Errorf("engine %s chose %v: %w", gm.spec, d.Move, err)
	}
	gm.reply = &engineReply{
		Move:        d.Move.String(),
		Value:       finiteOrNil(d.Value),
		Simulations: d.Simulations,
		Depth:       d.Depth,
		Millis:      float64(time.Since(start).Microseconds()) / 1000,
	}
	return nil
}

// undo takes back the person's last move and the engine's reply to it,
// back to the person's turn; a game that was resigned is taken back to
// before the resignation only.
func (s *Server) undo(r *http.Request) (any, error) {
	return s.withGame(r, false, (*game).takeBack)
}

func (gm *game) takeBack() error {
	if gm.resigned {
		gm.resigned = false
		return nil
	}
	moves := gm.g.Moves()
	last := len(moves) - 1
	for last >= 0 && gm.sideOf(last) != gm.human {
		last--
	}
	if last < 0 {
		return conflict("undo: you have made no move to take back")
	}
	for range len(moves) - last {
		if err := gm.g.Undo(); err != nil {
			return err
		}
	}
	gm.reply = nil
	return nil
}

// toMove returns the side to move.
func (gm *game) toMove() env.Color {
	p := gm.g.Position()
	return p.SideToMove()
}

// sideOf returns the side that played the game's i-th move.
func (gm *game) sideOf(i int) env.Color {
	start := gm.g.StartPosition()
	side := start.SideToMove()
	if i%2 == 1 {
		side = side.Other()
	}
	return side
}

func (s *Server) resign(r *http.Request) (any, error) {
	return s.withGame(r, true, func(gm *game) error {
		gm.resigned = true
		return nil
	})
}

// ongoing returns a conflict error for a finished game.
func (gm *game) ongoing() error {
	if gm.resigned {
		return conflict("the game is over: you resigned")
	}
	if st := gm.g.Status(); st.Over() {
		return conflict("the game is over: %v", st)
	}
	return nil
}

// gameState is the answer of every game endpoint.
type gameState struct {
	ID     string `json:"id"`
	Player string `json:"player"`
	Human  string `json:"human"`
	position
	Over bool `json:"over"`
	// Result is "1-0", "0-1" or "1/2-1/2" once the game is over; Reason
	// says why (win, no stacks, repetition, move limit, resignation).
	Result string       `json:"result,omitempty"`
	Reason string       `json:"reason,omitempty"`
	Winner string       `json:"winner,omitempty"`
	Engine *engineReply `json:"engine"`
}

func (gm *game) state() gameState {
	st := gameState{ID: gm.id, Player: gm.spec, Human: gm.human.String(), position: describe(gm.g), Engine: gm.reply}
	status := gm.g.Status()
	switch {
	case gm.resigned:
		st.Over, st.Reason, st.Winner = true, "resignation", gm.human.Other().String()
		st.Result = arena.ResultRedWins
		if gm.human == env.Red {
			st.Result = arena.ResultBlueWins
		}
		st.Legal = []legalMove{}
	case status.Over():
		st.Over, st.Result, st.Reason = true, resultOf(status), reasonOf(status)
		if w, ok := status.Winner(); ok {
			st.Winner = w.String()
		}
	}
	return st
}

func resultOf(st env.Status) string {
	switch st {
	case env.RedWins:
		return arena.ResultRedWins
	case env.BlueWins:
		return arena.ResultBlueWins
	}
	return arena.ResultDraw
}

func reasonOf(st env.Status) string {
	switch st {
	case env.RedWins, env.BlueWins:
		return arena.ReasonWin
	case env.NoStacks:
		return arena.ReasonNoStacks
	case env.DrawRepetition:
		return arena.ReasonRepetition
	case env.MoveLimit:
		return arena.ReasonMoveLimit
	}
	return ""
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

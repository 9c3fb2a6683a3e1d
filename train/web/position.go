package web

import (
	"errors"
	"net/http"

	"github.com/deathstacks/deathstacks/env"
)

// maxPlies bounds the moves of a position request whatever the rules say,
// so that a request without a move limit stays small.
const maxPlies = 1000

// position describes a game's current position for the page.
type position struct {
	FEN      string   `json:"fen"`
	StartFEN string   `json:"start_fen"`
	Moves    []string `json:"moves,omitempty"`
	ToMove   string   `json:"to_move"`
	Ply      int      `json:"ply"`
	// Board lists the stacks from a1 to f6 (a1, b1, ..., f1, a2, ...),
	// each from the top down as in FEN ("brr"), "" for an empty square.
	Board [env.NumSquares]string `json:"board"`
	// MustMove names the squares the too-tall rule forces a move from.
	MustMove []string `json:"must_move"`
	// Status is the game's status, such as "ongoing" or "red wins".
	Status string      `json:"status"`
	Legal  []legalMove `json:"legal,omitempty"`
}

// legalMove is one legal move, spelled out for the page.
type legalMove struct {
	Move  string `json:"move"`
	From  string `json:"from"`
	Count int    `json:"count"`
	To    string `json:"to"`
}

func describe(g *env.Game) position {
	p := g.Position()
	start := g.StartPosition()
	d := position{
		FEN:      p.FEN(),
		StartFEN: start.FEN(),
		Moves:    []string{},
		ToMove:   p.SideToMove().String(),
		Ply:      p.Ply(),
		MustMove: []string{},
		Status:   g.Status().String(),
		Legal:    []legalMove{},
	}
	for sq := range env.Square(env.NumSquares) {
		d.Board[sq] = p.At(sq).String()
		if p.MustMove()&(1<<sq) != 0 && g.Rules().TooTall {
			d.MustMove = append(d.MustMove, sq.String())
		}
	}
	for _, m := range g.Moves() {
		d.Moves = append(d.Moves, m.String())
	}
	for _, m := range g.LegalMoves(nil) {
		d.Legal = append(d.Legal, legalMove{Move: m.String(), From: m.From.String(), Count: int(m.Count), To: m.To.String()})
	}
	return d
}

// positionRequest names a position as a game: a start FEN (the start
// position when empty), its ply count and the moves played from it, so
// that repetitions and the move limit count as in the game.
type positionRequest struct {
	FEN      string   `json:"fen"`
	StartPly int      `json:"start_ply"`
	Moves    []string `json:"moves"`
}

// startGame builds the game of a position request under the server's
// rules, checking every move.
func (s *Server) startGame(fen string, startPly int, moves []string) (*env.Game, error) {
	start := env.StartPosition()
	if fen != "" {
		p, err := env.ParseFEN(fen)
		if err != nil {
			return nil, badRequest("fen: %v", err)
		}
		start = p
	}
	if startPly < 0 || startPly > maxPlies {
		return nil, badRequest("start_ply %d: want 0 to %d", startPly, maxPlies)
	}
	if len(moves) > maxPlies {
		return nil, badRequest("moves: %d of them, want at most %d", len(moves), maxPlies)
	}
	start.SetPly(startPly)
	g, err := env.PlayMoves(start, s.rules, moves)
	var bad *env.MoveError
	if errors.As(err, &bad) {
		return nil, badRequest("moves[%d] %s: %v", bad.Index, bad.Text, bad.Err)
	}
	return g, err
}

// over returns a 400 for a finished game, which has nothing to analyse.
func over(g *env.Game) error {
	if st := g.Status(); st.Over() {
		return badRequest("the game is over there (%v): nothing to analyse", st)
	}
	return nil
}

// gameOf reads the position request in the body of r and builds its game.
func (s *Server) gameOf(r *http.Request) (*env.Game, error) {
	req, err := decodeBody[positionRequest](r)
	if err != nil {
		return nil, err
	}
	return s.startGame(req.FEN, req.StartPly, req.Moves)
}

// legal answers POST /api/legal: the position of a request with its legal
// moves, for exploring from a pasted FEN.
func (s *Server) legal(r *http.Request) (any, error) {
	g, err := s.gameOf(r)
	if err != nil {
		return nil, err
	}
	return describe(g), nil
}

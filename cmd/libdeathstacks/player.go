package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

// models are the az players' and the networks' networks, each loaded once
// and served by one batching server for every handle of the process.
var models = sync.OnceValue(func() *train.Models {
	return train.NewModels(model.DefaultServerConfig(), os.Stderr)
})

// newPlayerOf builds the player a spec names, the project's one way from a
// spec to a player.
func newPlayerOf(spec string, seed uint64) (mcts.Player, players.Spec, error) {
	s, err := players.ParseSpec(spec)
	if err != nil {
		return nil, players.Spec{}, err
	}
	p, err := players.NewPlayer(s, seed, models().Load)
	return p, s, err
}

// waitsOnServer reports whether the searches of a player of spec s wait on
// a network server, an az player's several times a move: they run off
// the caller's thread (see offThread).
func waitsOnServer(s players.Spec) bool { return s.Kind == players.KindAZ }

// player is a player of any spec.
type player struct {
	p mcts.Player
	// blocks says that its searches wait on a network server (see
	// waitsOnServer).
	blocks bool
	// last is the last decision, as JSON, for a caller whose buffer was
	// too short for it.
	last string
}

// close stops what the player holds: an external program is killed and
// reaped.
func (p *player) close() error { return closePlayer(p.p) }

// closePlayer closes a player that holds a resource (an external
// program, an io.Closer).
func closePlayer(p mcts.Player) error {
	if c, ok := p.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func newPlayer(spec string, seed uint64) (*player, error) {
	p, s, err := newPlayerOf(spec, seed)
	if err != nil {
		return nil, err
	}
	return &player{p: p, blocks: waitsOnServer(s)}, nil
}

// decision is what choose returns, as JSON.
type decision struct {
	Move        string         `json:"move"`
	Action      int            `json:"action"`
	Value       *float64       `json:"value"`
	Visits      map[string]int `json:"visits"`
	PV          []string       `json:"pv"`
	Simulations int            `json:"simulations"`
	Depth       int            `json:"depth"`
	Score       int            `json:"score"`
	Nodes       int64          `json:"nodes"`
}

// choose returns the player's decision in the game of a FEN and the moves
// since, as JSON.
func (p *player) choose(fen, moves string, rules env.Rules) (string, error) {
	g, err := gameOf(fen, moves, rules)
	if err != nil {
		return "", err
	}
	if st := g.Status(); st.Over() {
		return "", fmt.Errorf("choose: the game is over (%v)", st)
	}
	var d mcts.Decision
	choose := func() (err error) {
		d, err = p.p.Choose(g)
		return err
	}
	if p.blocks {
		// 104 moves a second at 200 simulations from Python, 78 on the
		// caller's thread.
		err = offThread(choose)
	} else {
		err = choose()
	}
	if err != nil {
		return "", fmt.Errorf("choose: %w", err)
	}
	a, err := env.ActionOf(d.Move)
	if err != nil {
		return "", fmt.Errorf("choose: %w", err)
	}
	out := decision{Move: d.Move.String(), Action: int(a), Simulations: d.Simulations, Depth: d.Depth, Score: d.Score, Nodes: d.Nodes}
	if !math.IsNaN(d.Value) && !math.IsInf(d.Value, 0) {
		out.Value = &d.Value
	}
	for _, m := range d.PV {
		out.PV = append(out.PV, m.String())
	}
	if len(d.Visits) > 0 {
		out.Visits = map[string]int{}
		for a, n := range d.Visits {
			if m, err := env.MoveOf(a); err == nil {
				out.Visits[m.String()] = n
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	p.last = string(b)
	return p.last, nil
}

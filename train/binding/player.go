package binding

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

// Player is a player of any spec.
type Player struct {
	p mcts.Player
	// waits says that its searches wait on a network server.
	waits bool
}

// NewPlayer builds the player a spec names, az players' networks loaded
// by load.
func NewPlayer(spec string, seed uint64, load players.AZLoader) (*Player, error) {
	p, s, err := newPlayerOf(spec, seed, load)
	if err != nil {
		return nil, err
	}
	return &Player{p: p, waits: waitsOnServer(s)}, nil
}

// newPlayerOf builds the player a spec names, the project's one way from
// a spec to a player.
func newPlayerOf(spec string, seed uint64, load players.AZLoader) (mcts.Player, players.Spec, error) {
	s, err := players.ParseSpec(spec)
	if err != nil {
		return nil, players.Spec{}, err
	}
	p, err := players.NewPlayer(s, seed, load)
	return p, s, err
}

// waitsOnServer reports whether the searches of a player of spec s wait on
// a network server, an az player's several times a move.
func waitsOnServer(s players.Spec) bool { return s.Kind == players.KindAZ }

// WaitsOnServer reports whether the player's searches wait on a network
// server, an az player's several times a move.
func (p *Player) WaitsOnServer() bool { return p.waits }

// Close stops what the player holds: an external program is killed and
// reaped.
func (p *Player) Close() error { return ClosePlayer(p.p) }

// ClosePlayer closes a player that holds a resource (an external
// program, an io.Closer).
func ClosePlayer(p mcts.Player) error {
	if c, ok := p.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// decision is what Choose returns, as JSON.
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

// Choose returns the player's decision in the game of pos under rules, as
// JSON. run runs the search: the caller may run it elsewhere, such as on
// a goroutine of its own.
func (p *Player) Choose(pos Position, rules env.Rules, run func(search func() error) error) (string, error) {
	g, err := pos.Game(rules)
	if err != nil {
		return "", err
	}
	if err := gameOver(g); err != nil {
		return "", fmt.Errorf("choose: %w", err)
	}
	var d mcts.Decision
	if err := run(func() (err error) {
		d, err = p.p.Choose(g)
		return err
	}); err != nil {
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
	return string(b), err
}

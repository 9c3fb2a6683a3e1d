package vector_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/env/vector"
)

// firstMove is an opponent that always plays the first legal move.
type firstMove struct{}

func (firstMove) Reset() {}

func (firstMove) Move(g *env.Game) (env.Move, error) { return g.LegalMoves(nil)[0], nil }

func ExampleVector() {
	const n = 2
	v, err := vector.New(n, vector.Options{
		Env:         env.DefaultOptions(),
		NewOpponent: func(uint64) (vector.Opponent, error) { return firstMove{}, nil },
		Agent:       vector.AgentBlue,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Close()
	b := &vector.Buffers{
		Observations: make([]float32, n*env.ObservationSize),
		Masks:        make([]bool, n*env.NumActions),
		Rewards:      make([]float32, n),
		Terminations: make([]bool, n),
		Truncations:  make([]bool, n),
		Infos:        make([]int64, n*vector.InfoColumns),
	}
	if err := v.Reset(7, b); err != nil {
		fmt.Println(err)
		return
	}
	actions := make([]env.Action, n)
	for range 3 {
		if err := v.Sample(actions); err != nil {
			fmt.Println(err)
			return
		}
		if err := v.Step(actions, b); err != nil {
			fmt.Println(err)
			return
		}
	}
	info := b.Infos[:vector.InfoColumns]
	p := v.Game(0).Position()
	fmt.Println("ply", info[vector.InfoPly], "to move", env.Color(info[vector.InfoToMove]), "reward", b.Rewards[0])
	fmt.Println(p.SideToMove() == env.Blue, info[vector.InfoOpponentAction] >= 0)
	// Output:
	// ply 7 to move blue reward 0
	// true true
}

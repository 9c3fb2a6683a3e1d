package env_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
)

// firstMove is an opponent that always plays the first legal move.
type firstMove struct{}

func (firstMove) Reset() {}

func (firstMove) Move(g *env.Game) (env.Move, error) { return g.LegalMoves(nil)[0], nil }

func ExampleVector() {
	const n = 2
	v, err := env.NewVector(n, env.VectorOptions{
		Env:         env.DefaultOptions(),
		NewOpponent: func(uint64) (env.Opponent, error) { return firstMove{}, nil },
		Agent:       env.AgentBlue,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Close()
	b := &env.VectorBuffers{
		Observations: make([]float32, n*env.ObservationSize),
		Masks:        make([]bool, n*env.NumActions),
		Rewards:      make([]float32, n),
		Terminations: make([]bool, n),
		Truncations:  make([]bool, n),
		Infos:        make([]int64, n*env.VectorInfoColumns),
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
	info := b.Infos[:env.VectorInfoColumns]
	p := v.Game(0).Position()
	fmt.Println("ply", info[env.VectorInfoPly], "to move", env.Color(info[env.VectorInfoToMove]), "reward", b.Rewards[0])
	fmt.Println(p.SideToMove() == env.Blue, info[env.VectorInfoOpponentAction] >= 0)
	// Output:
	// ply 7 to move blue reward 0
	// true true
}

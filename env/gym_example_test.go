package env_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
)

func ExampleEnv_ResetWith() {
	e, err := env.NewEnv(env.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	obs, info, err := e.ResetWith(7, env.ResetOptions{
		FEN:          "rrrrr,,,,,/,,,,,/,,,,,/,,r,,,/,,,,,/,,,,,bb r",
		OpeningPlies: 2,
	})
	fmt.Println(len(obs), info.Ply, len(info.Opening), info.Status, err)

	_, _, err = e.ResetWith(7, env.ResetOptions{FEN: "rrrrr,,,,,/,,,,,/,,,,,/,,q,,,/,,,,,/,,,,,bb r"})
	fmt.Println(err)
	// Output:
	// 756 2 2 ongoing <nil>
	// reset: fen "rrrrr,,,,,/,,,,,/,,,,,/,,q,,,/,,,,,/,,,,,bb r": square c3: character 1 is 'q': want 'r' or 'b'
}

func ExampleObservationSpace() {
	obs := env.ObservationSpace()
	fmt.Println(obs.Shape, obs.DType, obs.Low[0], obs.High[0], "height plane up to", obs.High[14])
	fmt.Println(env.ActionSpace().N, "actions")
	// Output:
	// [21 6 6] float32 0 1 height plane up to 2
	// 6912 actions
}

func ExampleAEC() {
	a, err := env.NewAEC(env.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	a.Reset(1)
	for step := 0; ; step++ {
		obs, reward, terminated, truncated, _ := a.Last()
		if terminated || truncated {
			fmt.Println(a.AgentSelection(), "to move, reward", reward, "after", step, "steps")
			break
		}
		// Play the first allowed action; a policy would choose from obs.Planes.
		for action, ok := range obs.Mask {
			if ok {
				if err := a.Step(env.Action(action)); err != nil {
					fmt.Println(err)
					return
				}
				break
			}
		}
	}
	for _, agent := range a.Agents() {
		fmt.Println(agent, a.Reward(agent), a.Terminated(agent), a.Truncated(agent))
	}
	// Output:
	// red to move, reward -1 after 96 steps
	// red -1 true false
	// blue 1 true false
}

package env_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/env"
)

func ExampleParseFEN() {
	// Red has a stack of five on a6: the too-tall rule makes it move.
	p, err := env.ParseFEN("rrrrr,,,,,/,,,,,/,,,,,/,,r,,,/,,,,,/,,,,,b r")
	if err != nil {
		fmt.Println(err)
		return
	}
	moves := p.LegalMoves(nil, true)
	fmt.Println(len(moves), "moves, the first:", moves[:4])
	fmt.Println("without the rule:", p.CountMoves(false))

	_, err = env.ParseFEN("rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,rx,,,/,,,,,/bb,bb,bb,bb,bb,bb r")
	fmt.Println(err)
	// Output:
	// 15 moves, the first: [a6-1-a5 a6-1-b5 a6-1-b6 a6-2-a4]
	// without the rule: 23
	// fen "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,rx,,,/,,,,,/bb,bb,bb,bb,bb,bb r": square c3: character 2 is 'x': want 'r' or 'b'
}

func ExampleDestination() {
	c3, _ := env.ParseSquare("c3")
	a1, _ := env.ParseSquare("a1")
	d5, _ := env.ParseSquare("d5")
	fmt.Println(env.Destination(c3, env.North, 5), env.Destination(c3, env.West, 4),
		env.Destination(a1, env.SouthWest, 3), env.Destination(d5, env.NorthEast, 4))
	// Output: c4 c3 d4 d3
}

func ExampleGame_Play() {
	g := env.NewGame(env.DefaultRules())
	for round := 1; round <= 2; round++ {
		for _, text := range []string{"a6-1-a5", "a1-1-a2", "a5-1-a6", "a2-1-a1"} {
			m, _ := env.ParseMove(text)
			if err := g.Play(m); err != nil {
				fmt.Println(err)
				return
			}
		}
		fmt.Printf("round %d: start position seen %d times, %v\n", round, g.Repetitions(), g.Status())
	}
	m, _ := env.ParseMove("b6-1-b5")
	fmt.Println(g.Play(m))
	// Output:
	// round 1: start position seen 2 times, ongoing
	// round 2: start position seen 3 times, draw by repetition
	// move b6-1-b5: the game is over (draw by repetition)
}

func ExampleEnv() {
	e, err := env.NewEnv(env.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	obs, _ := e.Reset(1)
	actions := e.LegalActions()
	fmt.Println(len(obs), "observation values,", len(actions), "legal actions")

	obs, reward, terminated, truncated, info, err := e.Step(actions[0])
	fmt.Println(info.Move, reward, terminated, truncated, err, len(obs))

	_, _, _, _, _, err = e.Step(actions[0]) // now Blue's turn: a Red move is illegal
	fmt.Println(err)
	// Output:
	// 756 observation values, 48 legal actions
	// a6-1-a5 0 false false <nil> 756
	// step: action 30: move a6-1-a5: a6 is controlled by red, and blue is to move
}

func ExamplePerft() {
	start := env.StartPosition()
	for depth := 1; depth <= 4; depth++ {
		fmt.Println(depth, env.Perft(start, depth, true))
	}
	// Output:
	// 1 48
	// 2 2304
	// 3 116928
	// 4 5930128
}

func ExampleSymmetry() {
	p, _ := env.ParseFEN("rr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,bb r")
	m, _ := env.ParseMove("a6-2-a4")
	for _, y := range []env.Symmetry{env.Identity, 1, 5} {
		q := y.Position(p)
		a, _ := env.ActionOf(m)
		fmt.Printf("%-12s %s  %v  action %d -> %d\n", y, q.FEN(), y.Move(m), a, y.Action(a))
	}
	// Output:
	// identity     rr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,,bb r  a6-2-a4  action 66 -> 66
	// mirror-files ,,,,,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,,,,, r  f6-2-f4  action 66 -> 71
	// rotate-90    ,,,,,bb/,,,,,/,,,,,/,,,,,/,,,,,/rr,,,,, r  a1-2-c1  action 66 -> 1764
}

func ExamplePosition_Render() {
	p := env.StartPosition()
	m, _ := env.ParseMove("c6-2-c4")
	p.Apply(m)
	fmt.Print(p.Render())
	// Output:
	// 6  rr rr .  rr rr rr
	// 5  .  .  .  .  .  .
	// 4  .  .  rr .  .  .
	// 3  .  .  .  .  .  .
	// 2  .  .  .  .  .  .
	// 1  bb bb bb bb bb bb
	//    a  b  c  d  e  f
	// blue to move, ply 1
}

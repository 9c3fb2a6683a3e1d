package table_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/train/table"
)

func ExampleTable_Text() {
	t := table.Table{
		Head:  []string{"player", "score"},
		Right: []bool{false, true},
		Rows:  [][]string{{"az", "0.75"}, {"alphabeta:depth=4", "0.25"}},
	}
	fmt.Print(t.Text())
	// Output:
	// player             score
	// az                  0.75
	// alphabeta:depth=4   0.25
}

func ExampleCount() {
	fmt.Println(table.Count(1, "ply", "plies"))
	fmt.Println(table.Count(2, "ply", "plies"))
	fmt.Println(table.Count(0, "game", "games"))
	// Output:
	// 1 ply
	// 2 plies
	// 0 games
}

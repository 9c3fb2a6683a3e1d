package configs_test

import (
	"fmt"

	"github.com/deathstacks/deathstacks/configs"
)

// playerSettings is a settings struct of one's own: its yaml tags name the
// keys of config files, player specs and command lines.
type playerSettings struct {
	Simulations int     `yaml:"simulations"`
	CPuct       float64 `yaml:"c_puct"`
}

// playerTable names and bounds each setting once; Set, Get and Check
// read it.
var playerTable = configs.NewTable("player setting", []configs.Field[playerSettings]{
	{Setting: configs.Setting{Aliases: []string{"sims"}, Help: "simulations a move"},
		Ptr: func(c *playerSettings) any { return &c.Simulations }, Lo: 1, Hi: 100000, Want: "1 to 100000"},
	{Setting: configs.Setting{Help: "exploration weight of the prior"},
		Ptr: func(c *playerSettings) any { return &c.CPuct }, Lo: 0, Above: true, Hi: 100, Want: "above 0, at most 100"},
})

// A Table reads a setting by its key or an alias, in the form a spec or
// a command line gives it, and says what is wrong with a bad one.
func ExampleTable() {
	var s playerSettings
	if err := playerTable.Set(&s, "sims", "200"); err != nil {
		fmt.Println(err)
	}
	fmt.Println(playerTable.Get(s, "simulations"))
	fmt.Println(playerTable.Set(&s, "c_puct", "0"))
	fmt.Println(playerTable.Set(&s, "temperature", "1"))

	// Check finds every setting out of range, as a config's Validate does.
	var ch configs.Checker
	playerTable.Check(&ch, playerSettings{Simulations: 0, CPuct: 1.5})
	fmt.Println(ch.Err())
	// Output:
	// 200
	// c_puct is "0": want a number, above 0, at most 100
	// temperature is no player setting: want one of simulations, c_puct
	// simulations is 0: want 1 to 100000
}

// The built-in configurations are YAML a run can name instead of a file.
func ExampleLookup() {
	fmt.Println(configs.Names())
	_, ok := configs.Lookup("smoke")
	fmt.Println(ok)
	_, ok = configs.Lookup("nightly")
	fmt.Println(ok)
	// Output:
	// [default long smoke]
	// true
	// false
}

package mcts

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/mcts/internal/winsearch"
)

// Setting describes one field of [Config]. Its Key is the field's YAML key
// in config files and also its key in player specs
// ("az:model=...,c_puct=2"); Aliases are the shorter spec names of earlier
// versions ("cpuct"), still accepted. It is the [configs.Setting] of the
// search's table, which the baselines' tables share (see [UCTConfig]).
type Setting = configs.Setting

// setting is a Setting with its field and range: the one place where a
// search setting is named and checked.
type setting struct {
	Setting
	field func(*Config) any // a pointer to the field: *int, *float64, *bool or *time.Duration
	// lo and hi bound a number, or a duration in seconds (above: lo
	// itself is out); want says the range in words.
	lo, hi float64
	above  bool
	want   string
	// gumbel settings are checked only with a Gumbel root.
	gumbel bool
}

// settings lists every field of Config once; each key comes from the
// field's yaml tag.
var settings = withKeys([]setting{
	{Setting: Setting{Aliases: []string{"sims"}, Help: "simulations per move; 0 for no limit (with a time)"},
		field: func(c *Config) any { return &c.Simulations }, hi: math.MaxInt32, want: "0 (no limit, with a time) or more"},
	{Setting: Setting{Help: "search time per move, such as 500ms; 0s for none (without simulations: no simulation limit)"},
		field: func(c *Config) any { return &c.Time }, hi: math.Inf(1), want: "a duration of 0s (none) or more, such as 500ms"},
	{Setting: Setting{Aliases: []string{"cpuct"}, Help: "exploration weight of the prior (c_init of the schedule)"},
		field: func(c *Config) any { return &c.CPuct }, above: true, hi: math.Inf(1), want: "a number above 0"},
	{Setting: Setting{Aliases: []string{"cpuct_base"}, Help: "c_base of the c_puct schedule, 0 for a constant c_puct"},
		field: func(c *Config) any { return &c.CPuctBase }, hi: math.Inf(1), want: "0 (constant c_puct) or more"},
	{Setting: Setting{Aliases: []string{"fpu"}, Help: "first-play urgency reduction"},
		field: func(c *Config) any { return &c.FPUReduction }, hi: math.Inf(1), want: "0 or more"},
	{Setting: Setting{Aliases: []string{"alpha"}, Help: "Dirichlet noise concentration"},
		field: func(c *Config) any { return &c.DirichletAlpha }, above: true, hi: math.Inf(1), want: "a number above 0"},
	{Setting: Setting{Aliases: []string{"eps"}, Help: "Dirichlet noise weight, 0 for none"},
		field: func(c *Config) any { return &c.DirichletEpsilon }, hi: 1, want: "0 (off) to 1"},
	{Setting: Setting{Aliases: []string{"temp"}, Help: "temperature of the opening plies"},
		field: func(c *Config) any { return &c.Temperature }, hi: math.Inf(1), want: "0 (most visited) or more"},
	{Setting: Setting{Aliases: []string{"temp_plies"}, Help: "plies played at temperature"},
		field: func(c *Config) any { return &c.TemperaturePlies }, hi: math.MaxInt32, want: "0 or more"},
	{Setting: Setting{Aliases: []string{"final_temp"}, Help: "temperature after them"},
		field: func(c *Config) any { return &c.FinalTemperature }, hi: math.Inf(1), want: "0 (most visited) or more"},
	{Setting: Setting{Aliases: []string{"late_temp_ply"}, Help: "ply from which the opening temperature applies again, 0 for never"},
		field: func(c *Config) any { return &c.LateTemperaturePly }, hi: math.MaxInt32, want: "0 (never) or more"},
	{Setting: Setting{Aliases: []string{"batch"}, Help: "leaves per evaluator call"},
		field: func(c *Config) any { return &c.BatchSize }, lo: 1, hi: 1 << 16, want: "1 to 65536"},
	{Setting: Setting{Aliases: []string{"vloss"}, Help: "virtual loss"},
		field: func(c *Config) any { return &c.VirtualLoss }, hi: math.Inf(1), want: "0 or more"},
	{Setting: Setting{Aliases: []string{"reuse"}, Help: "keep the tree between moves"},
		field: func(c *Config) any { return &c.ReuseTree }},
	{Setting: Setting{Help: "what a draw costs the side ahead in material, 0 to 1"},
		field: func(c *Config) any { return &c.Contempt }, hi: 1, want: "0 (draws are 0) to 1"},
	{Setting: Setting{Help: "what any draw costs the side to move at the root, 0 to 1"},
		field: func(c *Config) any { return &c.DrawCost }, hi: 1, want: "0 (off) to 1"},
	{Setting: Setting{Help: "Gumbel root instead of PUCT (dirichlet_epsilon must be 0)"},
		field: func(c *Config) any { return &c.Gumbel }},
	{Setting: Setting{Aliases: []string{"considered"}, Help: "moves a Gumbel root considers"},
		field: func(c *Config) any { return &c.GumbelConsidered }, lo: 1, hi: math.MaxInt32, want: "1 or more", gumbel: true},
	{Setting: Setting{Aliases: []string{"c_visit"}, Help: "Gumbel sigma's c_visit"},
		field: func(c *Config) any { return &c.GumbelCVisit }, hi: math.Inf(1), want: "0 or more", gumbel: true},
	{Setting: Setting{Aliases: []string{"c_scale"}, Help: "Gumbel sigma's c_scale"},
		field: func(c *Config) any { return &c.GumbelCScale }, above: true, hi: math.Inf(1), want: "a number above 0", gumbel: true},
	{Setting: Setting{Help: "longest forced win in plies an exact search looks for at the root, 0 for off"},
		field: func(c *Config) any { return &c.WinSearchPlies }, hi: winsearch.MaxPlies, want: "0 (off) to " + strconv.Itoa(winsearch.MaxPlies)},
	{Setting: Setting{Help: "positions that win search may visit for one move"},
		field: func(c *Config) any { return &c.WinSearchNodes }, hi: math.MaxInt32, want: "0 or more"},
	{Setting: Setting{Help: "share of a leaf's value given to the material lead, 0 to 1"},
		field: func(c *Config) any { return &c.MaterialUtility }, hi: 1, want: "0 (off) to 1"},
	{Setting: Setting{Help: "while a stack at the root is taller than this, the material term counts every stack as at most this many pieces, 0 for off"},
		field: func(c *Config) any { return &c.TowerCap }, hi: 24, want: "0 (off) to 24"},
})

// withKeys makes the table of the settings, each key from the yaml tag
// of its field: the machinery (parsing, printing, range checks) is
// [configs.Table]'s, shared with the baselines' settings.
func withKeys(list []setting) configs.Table[Config] {
	fields := make([]configs.Field[Config], len(list))
	for i, s := range list {
		fields[i] = configs.Field[Config]{Setting: s.Setting, Ptr: s.field, Lo: s.lo, Hi: s.hi, Above: s.above, Want: s.want}
		if s.gumbel {
			fields[i].When = func(c *Config) bool { return c.Gumbel }
		}
	}
	return configs.NewTable("search setting", fields)
}

// Settings lists the search settings in the order of [Config]'s fields.
func Settings() []Setting { return settings.Settings() }

// CanonicalKey returns the key of the setting called key or one of its
// aliases, and false for no setting.
func CanonicalKey(key string) (string, bool) { return settings.Canonical(key) }

// Set parses text as the value of the setting called key (or an alias)
// and sets it, checking its range: the error, a [*configs.FieldError] of
// key, says what was wanted.
func (c *Config) Set(key, text string) error { return settings.Set(c, key, text) }

// Get returns the value of the setting called key (or an alias) in the
// form Set reads, or "" for no setting.
func (c Config) Get(key string) string { return settings.Get(c, key) }

// Validate reports every setting out of range, each as a
// [*configs.FieldError] naming its key.
func (c Config) Validate() error {
	var ch configs.Checker
	settings.Check(&ch, c)
	ch.Check(c.Simulations != 0 || c.Time != 0, "simulations", "is 0 without a time: want 1 or more, or a time per move")
	ch.Check(!c.Gumbel || c.DirichletEpsilon == 0, "dirichlet_epsilon", "is %v: want 0 with gumbel, whose own noise explores", c.DirichletEpsilon)
	return ch.Err()
}

// Given is a search setting as its user wrote it: a key of the table or
// one of its aliases ("sims"), and the value's text ("200").
type Given struct{ Key, Value string }

// winNodesPerSimulation bounds the win search of settings that give
// simulations and no win_search_nodes: positions per simulation. A
// simulation's network evaluation costs about as much as 650 positions
// of the win search (3x32 network, 2-core x86-64), so the win search
// costs at most about 15% of the tree search. Most of its positions go
// to searches that run out of budget without a proof, and the wins it
// finds only within a larger budget are nine-ply wins, most of them
// proven two plies later: at 50 simulations, 100 a simulation against
// 400 searched 39% of the positions, found 94% of the wins, and played
// even (-4 +-15 Elo over 2,000 games;
// train/EXPERIMENTS.md#player-win-search).
const winNodesPerSimulation = 100

// Resolve returns c with the settings given applied over it, each value
// read and checked on its own by the table, and with the settings they
// imply without giving them:
//   - a time without simulations searches for that time with timed
//     simulations rather than c's: 0 (no simulation limit) for a player,
//     or the most a caller that needs a count allows;
//   - simulations without win_search_nodes give the win search at most
//     winNodesPerSimulation positions a simulation, rather than c's
//     budget, which was sized for c's own search (the built-in player's
//     is for a second a move): az:sims=50 stays a cheap player.
//
// An error names the setting as written: "sims=-1: want ...". Settings
// are not checked against each other: [Config.Validate] does that.
func (c Config) Resolve(given []Given, timed int) (Config, error) {
	c, set, err := c.apply(given)
	if err != nil {
		return Config{}, err
	}
	_, hasSims := set["simulations"]
	if _, hasTime := set["time"]; hasTime && !hasSims {
		c.Simulations = timed
	}
	if _, hasNodes := set["win_search_nodes"]; hasSims && !hasNodes && c.Simulations > 0 {
		c.WinSearchNodes = min(c.WinSearchNodes, c.Simulations*winNodesPerSimulation)
	}
	return c, nil
}

// Apply returns c with the settings given applied over it, each value
// read and checked on its own by the table, and nothing else: each
// setting means what it says, as in a config file's search section
// (self-play's settings). Its errors are [Config.Resolve]'s.
func (c Config) Apply(given []Given) (Config, error) {
	c, _, err := c.apply(given)
	return c, err
}

// apply is [Config.Apply], which also returns the key as given of each
// setting set, by its canonical key.
func (c Config) apply(given []Given) (Config, map[string]string, error) {
	set := map[string]string{} // canonical key -> the key as given
	for _, g := range given {
		key, ok := CanonicalKey(g.Key)
		if !ok {
			return Config{}, nil, fmt.Errorf("%s=%s: no search setting: want one of %s", g.Key, g.Value, strings.Join(SettingKeys(), ", "))
		}
		if err := c.Set(g.Key, g.Value); err != nil {
			return Config{}, nil, givenError(g, err)
		}
		if other, twice := set[key]; twice {
			return Config{}, nil, fmt.Errorf("%s and %s: both set %s: give one", other, g.Key, key)
		}
		set[key] = g.Key
	}
	return c, set, nil
}

// ResolveKeywords returns the search of settings given as keyword
// arguments (a key of the table or one of its aliases, and the value's
// text), such as the Python Search's: resolved over c in the table's
// order ([Keywords], [Config.Resolve] with timed) and checked
// ([Config.Validate]).
func (c Config) ResolveKeywords(kw map[string]string, timed int) (Config, error) {
	c, err := c.Resolve(Keywords(kw), timed)
	if err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Keywords returns settings given as keyword arguments (a key of the
// table or one of its aliases, and the value's text) in the table's
// order, keys of no setting last by name, for errors that do not depend
// on the order of a map.
func Keywords(kw map[string]string) []Given {
	rank := map[string]int{}
	for i, key := range SettingKeys() {
		rank[key] = i
	}
	order := func(key string) int {
		if k, ok := CanonicalKey(key); ok {
			return rank[k]
		}
		return len(rank)
	}
	given := make([]Given, 0, len(kw))
	for key, value := range kw {
		given = append(given, Given{Key: key, Value: value})
	}
	slices.SortFunc(given, func(a, b Given) int {
		return cmp.Or(order(a.Key)-order(b.Key), strings.Compare(a.Key, b.Key))
	})
	return given
}

// givenError says what is wrong with the value of the setting g, named
// as written: "simulations=-1: want a whole number, 0 (no limit, with a
// time) or more".
func givenError(g Given, err error) error {
	var fe *configs.FieldError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%s=%s: %w", g.Key, g.Value, err)
	}
	// fe.Msg is `is "-1": want ...`: the value is in the name already.
	if _, want, ok := strings.Cut(fe.Msg, ": "); ok {
		return fmt.Errorf("%s=%s: %s", g.Key, g.Value, want)
	}
	return fmt.Errorf("%s=%s: %s", g.Key, g.Value, fe.Msg)
}

// SettingKeys lists the keys of the settings in the table's order.
func SettingKeys() []string {
	var keys []string
	for _, st := range Settings() {
		keys = append(keys, st.Key)
	}
	return keys
}

package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// changedSettings writes the settings of c that differ from base, as
// key=value in the table's order.
func changedSettings(c, base mcts.Config) string {
	var out []string
	for _, st := range mcts.Settings() {
		if v := c.Get(st.Key); v != base.Get(st.Key) {
			out = append(out, st.Key+"="+v)
		}
	}
	return strings.Join(out, ",")
}

// TestSearchSettings pins what the keyword arguments of Search (and of
// Player and evaluate with an evaluator) resolve to over
// mcts.DefaultConfig, or the error they give.
func TestSearchSettings(t *testing.T) {
	cases := []struct{ settings, want string }{
		{`{}`, ""},
		{`{"sims":50}`, "simulations=50,win_search_nodes=5000"},
		{`{"simulations":200}`, "simulations=200,win_search_nodes=20000"},
		{`{"time":"500ms"}`, "simulations=0,time=500ms"},
		{`{"time":"0s"}`, "error: simulations is 0 without a time: want 1 or more, or a time per move"},
		{`{"sims":100,"time":"1s"}`, "simulations=100,time=1s,win_search_nodes=10000"},
		{`{"time":"1s","sims":100}`, "simulations=100,time=1s,win_search_nodes=10000"},
		{`{"time":"2s","win_search_nodes":1000}`, "simulations=0,time=2s,win_search_nodes=1000"},
		{`{"sims":50,"win_search_nodes":100000}`, "simulations=50,win_search_nodes=100000"},
		{`{"sims":100000}`, "simulations=100000"},
		{`{"sims":0,"time":"1s"}`, "simulations=0,time=1s"},
		{`{"sims":0}`, "error: simulations is 0 without a time: want 1 or more, or a time per move"},
		{`{"time":"0s","sims":50}`, "simulations=50,win_search_nodes=5000"},
		{`{"sims":10,"win_search_nodes":0}`, "simulations=10,win_search_nodes=0"},
		{`{"win_search_nodes":5000}`, "win_search_nodes=5000"},
		{`{"cpuct":2,"temp":1,"eps":0.25}`, "c_puct=2,dirichlet_epsilon=0.25,temperature=1"},
		{`{"gumbel":true,"considered":8,"sims":16}`, "simulations=16,gumbel=true,gumbel_considered=8,win_search_nodes=1600"},
		{`{"c_puct":"2"}`, "c_puct=2"},
		{`{"reuse":false}`, "reuse_tree=false"},
		{`{"batch":16,"vloss":2}`, "batch_size=16,virtual_loss=2"},
		{`{"time":"250ms","win_search_plies":0}`, "simulations=0,time=250ms,win_search_plies=0"},
		{`{"sims":1}`, "simulations=1,win_search_nodes=100"},
		{`{"material_utility":0,"contempt":0,"draw_cost":0.1}`, "contempt=0,draw_cost=0.1,material_utility=0"},
		{`{"simulations":-1}`, "error: simulations=-1: want a whole number, 0 (no limit, with a time) or more"},
		{`{"sims":-1}`, "error: sims=-1: want a whole number, 0 (no limit, with a time) or more"},
		{`{"c_puct":0}`, "error: c_puct=0: want a number, a number above 0"},
		{`{"time":"soon"}`, "error: time=soon: want a duration of 0s (none) or more, such as 500ms"},
		{`{"time":0.5}`, "error: time=0.5: want a duration of 0s (none) or more, such as 500ms"},
		{`{"sims":1.5}`, "error: sims=1.5: want a whole number, 0 (no limit, with a time) or more"},
		{`{"sims":10,"simulations":20}`, "error: sims and simulations: both set simulations: give one"},
		{`{"model":"x"}`, "error: model: no search setting: the caller's evaluator is the network"},
		{`{"sims":"1,c_puct=2"}`, "error: sims=1,c_puct=2: want a whole number, 0 (no limit, with a time) or more"},
		{`{"gumbel":true,"dirichlet_epsilon":0.25}`, "error: dirichlet_epsilon is 0.25: want 0 with gumbel, whose own noise explores"},
		{`{"simz":3}`, "error: simz=3: no search setting: want one of simulations, time, c_puct, c_puct_base, fpu_reduction, dirichlet_alpha, dirichlet_epsilon, temperature, temperature_plies, final_temperature, late_temperature_ply, batch_size, virtual_loss, reuse_tree, contempt, draw_cost, gumbel, gumbel_considered, gumbel_c_visit, gumbel_c_scale, win_search_plies, win_search_nodes, material_utility, tower_cap"},
		{`[]`, "error: settings: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
		{`{"sims":null}`, "error: sims=: want a whole number, 0 (no limit, with a time) or more"},
		{`{"reuse":"yes"}`, "error: reuse=yes: want true or false"},
	}
	for _, tc := range cases {
		got := ""
		if s, err := newSearcher(tc.settings, 0, env.DefaultRules()); err != nil {
			got = "error: " + err.Error()
		} else {
			got = changedSettings(s.cfg, mcts.DefaultConfig())
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.settings, got, tc.want)
		}
	}
}

// TestSelfPlaySettings pins what the keyword arguments of SelfPlay
// resolve to: the search settings over configs/default.yaml's, and the
// self-play settings, or the error they give.
func TestSelfPlaySettings(t *testing.T) {
	base, err := newSelfPlayRun("{}")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ settings, want string }{
		{`{}`, ""},
		{`{"simulations":32}`, "simulations=32"},
		{`{"sims":32}`, "simulations=32"},
		{`{"time":"100ms"}`, "time=100ms"},
		{`{"time":"1s","sims":0}`, "simulations=0,time=1s"},
		{`{"win_search_nodes":1000}`, "win_search_nodes=1000"},
		{`{"fast_simulations":8}`, " {GamesPerIteration:96 ParallelGames:4096 ResignThreshold:-0.95 ResignPlayoutShare:0.2 Adjudicate:true AdjudicateHorizon:12 AdjudicateMax:1 AdjudicateStackCap:0 FastSimulations:8 FullSearchShare:0.25 ProgressiveSimulations:32 SearchValueShare:0.2 LateStartShare:0} {Rules:{TooTall:true MaxPlies:200 RepetitionLimit:3} OpeningPlies:0}"},
		{`{"sims":32,"win_search_nodes":500}`, "simulations=32,win_search_nodes=500"},
		{`{"gumbel":false,"dirichlet_epsilon":0.25,"temperature":1}`, "dirichlet_epsilon=0.25,gumbel=false"},
		{`{"parallel_games":4}`, " {GamesPerIteration:96 ParallelGames:4 ResignThreshold:-0.95 ResignPlayoutShare:0.2 Adjudicate:true AdjudicateHorizon:12 AdjudicateMax:1 AdjudicateStackCap:0 FastSimulations:16 FullSearchShare:0.25 ProgressiveSimulations:32 SearchValueShare:0.2 LateStartShare:0} {Rules:{TooTall:true MaxPlies:200 RepetitionLimit:3} OpeningPlies:0}"},
		{`{"cpuct":2,"temp_plies":4}`, "c_puct=2,temperature_plies=4"},
		{`{"opening_plies":2,"max_plies":100}`, " {GamesPerIteration:96 ParallelGames:4096 ResignThreshold:-0.95 ResignPlayoutShare:0.2 Adjudicate:true AdjudicateHorizon:12 AdjudicateMax:1 AdjudicateStackCap:0 FastSimulations:16 FullSearchShare:0.25 ProgressiveSimulations:32 SearchValueShare:0.2 LateStartShare:0} {Rules:{TooTall:true MaxPlies:100 RepetitionLimit:3} OpeningPlies:2}"},
		{`{"sims":-1}`, "error: sims=-1: want a whole number, 0 (no limit, with a time) or more"},
		{`{"simulations":0}`, "error: simulations is 0 without a time: want 1 or more, or a time per move"},
		{`{"sims":8,"simulations":8}`, "error: sims and simulations: both set simulations: give one"},
		{`{"nope":1}`, "error: nope=1: no self-play setting: want a search setting (simulations, time, c_puct, c_puct_base, fpu_reduction, dirichlet_alpha, dirichlet_epsilon, temperature, temperature_plies, final_temperature, late_temperature_ply, batch_size, virtual_loss, reuse_tree, contempt, draw_cost, gumbel, gumbel_considered, gumbel_c_visit, gumbel_c_scale, win_search_plies, win_search_nodes, material_utility, tower_cap) or one of adjudicate, adjudicate_horizon, adjudicate_max, adjudicate_stack_cap, fast_simulations, full_search_share, max_plies, opening_plies, parallel_games, repetitions, resign_playout_share, resign_threshold, search_value_share, too_tall"},
		{`{"games_per_iteration":5}`, "error: games_per_iteration=5: no self-play setting: want a search setting (simulations, time, c_puct, c_puct_base, fpu_reduction, dirichlet_alpha, dirichlet_epsilon, temperature, temperature_plies, final_temperature, late_temperature_ply, batch_size, virtual_loss, reuse_tree, contempt, draw_cost, gumbel, gumbel_considered, gumbel_c_visit, gumbel_c_scale, win_search_plies, win_search_nodes, material_utility, tower_cap) or one of adjudicate, adjudicate_horizon, adjudicate_max, adjudicate_stack_cap, fast_simulations, full_search_share, max_plies, opening_plies, parallel_games, repetitions, resign_playout_share, resign_threshold, search_value_share, too_tall"},
		{`{"time":"soon"}`, "error: time=soon: want a duration of 0s (none) or more, such as 500ms"},
		{`{"fast_simulations":64}`, "error: fast_simulations=64: want fewer than search.simulations (64)"},
	}
	for _, tc := range cases {
		got := ""
		if r, err := newSelfPlayRun(tc.settings); err != nil {
			got = "error: " + err.Error()
		} else {
			got = changedSettings(r.cfg.Search, base.cfg.Search)
			if r.cfg.SelfPlay != base.cfg.SelfPlay || r.cfg.Env != base.cfg.Env {
				got += fmt.Sprintf(" %+v %+v", r.cfg.SelfPlay, r.cfg.Env)
			}
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.settings, got, tc.want)
		}
	}
}

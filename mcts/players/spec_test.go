package players

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		text string
		want Spec
		str  string
	}{
		{"random", Spec{Kind: "random"}, "random"},
		{" greedy ", Spec{Kind: "greedy"}, "greedy"},
		{"alphabeta:depth=4", Spec{Kind: "alphabeta", Params: []Param{{"depth", "4"}}}, "alphabeta:depth=4"},
		{"alphabeta:time=500ms", Spec{Kind: "alphabeta", Params: []Param{{"time", "500ms"}}}, "alphabeta:time=500ms"},
		{"alphabeta:time=0.5s,depth=06", Spec{Kind: "alphabeta", Params: []Param{{"time", "500ms"}, {"depth", "6"}}}, "alphabeta:time=500ms,depth=6"},
		{"mcts:sims=1000", Spec{Kind: "mcts", Params: []Param{{"sims", "1000"}}}, "mcts:sims=1000"},
		{"mcts:sims=10,c=1.4,depth=0", Spec{Kind: "mcts", Params: []Param{{"sims", "10"}, {"c", "1.4"}, {"depth", "0"}}}, "mcts:sims=10,c=1.4,depth=0"},
		{"mcts:simulations=10,exploration=1.40,rollout_depth=3", Spec{Kind: "mcts", Params: []Param{{"simulations", "10"}, {"exploration", "1.4"}, {"rollout_depth", "3"}}}, "mcts:simulations=10,exploration=1.4,rollout_depth=3"},
		{"alphabeta:depth=0,time=1s", Spec{Kind: "alphabeta", Params: []Param{{"depth", "0"}, {"time", "1s"}}}, "alphabeta:depth=0,time=1s"},
		{"az:model=PATH,sims=200", Spec{Kind: "az", Params: []Param{{"model", "PATH"}, {"sims", "200"}}}, "az:model=PATH,sims=200"},
		{"az", Spec{Kind: "az"}, "az"},
		{"az:sims=100", Spec{Kind: "az", Params: []Param{{"sims", "100"}}}, "az:sims=100"},
		{"az:model=PATH,time=0.5s,contempt=0.50", Spec{Kind: "az", Params: []Param{{"model", "PATH"}, {"time", "500ms"}, {"contempt", "0.5"}}}, "az:model=PATH,time=500ms,contempt=0.5"},
		{"cmd:./engine --player az:model=x,sims=200", Spec{Kind: "cmd", Command: "./engine --player az:model=x,sims=200"}, "cmd:./engine --player az:model=x,sims=200"},
		{"cmd:  prog 'a b' ", Spec{Kind: "cmd", Command: "prog 'a b'"}, "cmd:prog 'a b'"},
		{"cmd(timeout=1500ms):prog a=b,c", Spec{Kind: "cmd", Params: []Param{{"timeout", "1.5s"}}, Command: "prog a=b,c"}, "cmd(timeout=1.5s):prog a=b,c"},
		{"az:model=a/b=c.model,cpuct=2.50,temp=1,eps=0.25,reuse=0", Spec{Kind: "az", Params: []Param{{"model", "a/b=c.model"}, {"cpuct", "2.5"}, {"temp", "1"}, {"eps", "0.25"}, {"reuse", "false"}}}, "az:model=a/b=c.model,cpuct=2.5,temp=1,eps=0.25,reuse=false"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			s, err := ParseSpec(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s, tc.want) {
				t.Errorf("got %#v, want %#v", s, tc.want)
			}
			if s.String() != tc.str {
				t.Errorf("String() = %q, want %q", s.String(), tc.str)
			}
			if err := s.validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	cases := []struct {
		text string
		want []string // parts of the message
	}{
		{"", []string{"unknown kind", "random, greedy, alphabeta, mcts, az"}},
		{"minimax", []string{`unknown kind "minimax"`, "random, greedy, alphabeta, mcts, az"}},
		{"Random", []string{"unknown kind"}},
		{"random:", []string{`""`, "want key=value", "keys of random: none"}},
		{"greedy:depth=2", []string{`greedy has no key "depth"`, "valid keys are none"}},
		{"alphabeta:depth", []string{`"depth"`, "want key=value", "depth, time"}},
		{"alphabeta:nodes=5", []string{`alphabeta has no key "nodes"`, "valid keys are depth, time"}},
		{"alphabeta:depth=0", []string{"depth is 0 without a time"}},
		{"alphabeta:time=0s", []string{"depth is 0 without a time"}},
		{"alphabeta:depth=65", []string{"key depth", "0 (time limit only) to 64"}},
		{"alphabeta:depth=four", []string{"whole number"}},
		{"alphabeta:time=5", []string{"key time", "duration"}},
		{"alphabeta:time=-1s", []string{"key time", "0s (depth limit only) or more"}},
		{"alphabeta:depth=3,depth=4", []string{"depth given twice"}},
		{"alphabeta:depth=3,", []string{"want key=value"}},
		{"mcts:sims=0", []string{"key sims", "1 or more"}},
		{"mcts:simulations=5,sims=6", []string{"key simulations given twice"}},
		{"mcts:rollout_depth=10001", []string{"key rollout_depth", "0 (material count only) to 10000"}},
		{"mcts:c=nan", []string{"key c", "want a number"}},
		{"mcts:c=-1", []string{"key c", "want a number, 0 or more"}},
		{"mcts:model=x", []string{`mcts has no key "model"`, "simulations, exploration, rollout_depth"}},
		{"az:model=", []string{"key model", "file path"}},
		{"az:model=x,eps=2", []string{"key eps", "0 (off) to 1"}},
		{"az:model=x,sims=5,simulations=6", []string{"key simulations given twice"}},
		{"az:model=x,reuse=maybe", []string{"true or false"}},
		{"az:model=x,cpuct=0", []string{"above 0"}},
		{"az:model=x,bogus=1", []string{"valid keys are model, simulations, time, c_puct, c_puct_base, fpu_reduction, dirichlet_alpha, dirichlet_epsilon, temperature"}},
		{"az:model=x,time=5", []string{"key time", "duration", "500ms"}},
		{"az:model=x,time=-1s", []string{"key time", "0s (none) or more"}},
		{"az:model=x,sims=-1", []string{"key sims", "0 (no limit, with a time) or more"}},
		{"az:model=x,contempt=1.5", []string{"key contempt", "0 (draws are 0) to 1"}},
		{"az:model=x,contempt=-0.1", []string{"key contempt"}},
		{"az:win_search_plies=16", []string{"key win_search_plies", "0 (off) to 15"}},
		{"az:win_search_nodes=-1", []string{"key win_search_nodes", "0 or more"}},
		{"cmd:", []string{"cmd wants a command line after the colon"}},
		{"cmd", []string{"cmd wants a command line after the colon"}},
		{"cmd(timeout=2s)prog", []string{"want cmd(KEY=VALUE,...):COMMAND LINE"}},
		{"cmd(timeout=0s):prog", []string{"key timeout", "above 0s"}},
		{"cmd(timeout=1s,timeout=2s):prog", []string{"timeout given twice"}},
		{"cmd(depth=2):prog", []string{`cmd has no key "depth"`, "valid keys are timeout"}},
		{"cmd:prog 'open", []string{"not closed"}},
		{"cmd:prog | tee log", []string{"shell syntax"}},
		{"az:material_utility=1.5", []string{"key material_utility", "0 (off) to 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			_, err := ParseSpec(tc.text)
			if err == nil {
				t.Fatal("no error")
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not contain %q", err, part)
				}
			}
		})
	}
}

func TestSpecConfigs(t *testing.T) {
	if c := mustSpec(t, "alphabeta").alphaBetaConfig(); c != (AlphaBetaConfig{Depth: 4}) {
		t.Errorf("alphabeta: %+v, want depth 4", c)
	}
	if c := mustSpec(t, "alphabeta:time=2s").alphaBetaConfig(); c != (AlphaBetaConfig{Time: 2 * time.Second}) {
		t.Errorf("alphabeta:time=2s: %+v, want no depth limit", c)
	}
	for _, text := range []string{"mcts:depth=7", "mcts:rollout_depth=7"} {
		if c := mustSpec(t, text).uctConfig(); c != (mcts.UCTConfig{Simulations: 1000, Exploration: 1, RolloutDepth: 7}) {
			t.Errorf("%s: %+v", text, c)
		}
	}
	s := mustSpec(t, "az:model=m,sims=50,cpuct=2,cpuct_base=0,fpu=0.1,temp=1,temp_plies=8,final_temp=0.1,alpha=0.2,eps=0.3,batch=16,vloss=3,reuse=false,contempt=0.3,gumbel=true,considered=8,c_visit=40,c_scale=0.2,win_search_plies=5,win_search_nodes=1000,material_utility=0.1")
	want := mcts.Config{Simulations: 50, CPuct: 2, CPuctBase: 0, FPUReduction: 0.1, Temperature: 1, TemperaturePlies: 8,
		FinalTemperature: 0.1, DirichletAlpha: 0.2, DirichletEpsilon: 0.3, BatchSize: 16, VirtualLoss: 3, ReuseTree: false,
		Contempt: 0.3, Gumbel: true, GumbelConsidered: 8, GumbelCVisit: 40, GumbelCScale: 0.2,
		WinSearchPlies: 5, WinSearchNodes: 1000, MaterialUtility: 0.1}
	if c := s.SearchConfig(mcts.DefaultConfig()); c != want {
		t.Errorf("az: %+v, want %+v", c, want)
	}
	if s.Model() != "m" {
		t.Errorf("model %q", s.Model())
	}
	// The config keys set the same fields as the old spec names.
	long := mustSpec(t, "az:model=m,simulations=50,c_puct=2,c_puct_base=0,fpu_reduction=0.1,temperature=1,temperature_plies=8,final_temperature=0.1,dirichlet_alpha=0.2,dirichlet_epsilon=0.3,batch_size=16,virtual_loss=3,reuse_tree=false,contempt=0.3,gumbel=true,gumbel_considered=8,gumbel_c_visit=40,gumbel_c_scale=0.2,win_search_plies=5,win_search_nodes=1000,material_utility=0.1")
	if c := long.SearchConfig(mcts.DefaultConfig()); c != want {
		t.Errorf("az with config keys: %+v, want %+v", c, want)
	}
	// SearchParams spells out a config that reads back the same.
	back := Spec{Kind: KindAZ, Params: append([]Param{{Key: "model", Value: "m"}}, SearchParams(want)...)}
	if err := back.validate(); err != nil {
		t.Fatal(err)
	}
	if c := back.SearchConfig(mcts.Config{}); c != want {
		t.Errorf("SearchParams(%+v) reads back as %+v", want, c)
	}
	if c := mustSpec(t, "az:model=m").SearchConfig(mcts.DefaultConfig()); c != mcts.DefaultConfig() {
		t.Errorf("az without keys changed the base config: %+v", c)
	}
}

// errLoad is the failure of a model loader.
var errLoad = errors.New("load failure")

func TestNewPlayer(t *testing.T) {
	for _, text := range []string{"random", "greedy", "alphabeta:depth=2", "mcts:sims=10"} {
		if _, err := NewPlayer(mustSpec(t, text), 1, nil); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
	az := mustSpec(t, "az:model=best.model,sims=30")
	if _, err := NewPlayer(az, 1, nil); err == nil || !strings.Contains(err.Error(), "model loader") {
		t.Errorf("az without a loader: error %v", err)
	}
	var loaded string
	loader := func(path string) (mcts.Evaluator, mcts.Config, error) {
		loaded = path
		return mcts.UniformEvaluator{}, mcts.DefaultConfig(), nil
	}
	p, err := NewPlayer(az, 1, loader)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Choose(env.NewGame(env.DefaultRules()))
	if err != nil || loaded != "best.model" || d.Simulations != 30 {
		t.Errorf("loaded %q, %d simulations, error %v", loaded, d.Simulations, err)
	}
	if _, err := NewPlayer(mustSpec(t, "az"), 1, loader); err != nil || loaded != "" {
		t.Errorf("az without a model: loaded %q, error %v: want the built-in player, named \"\"", loaded, err)
	}
	failing := func(string) (mcts.Evaluator, mcts.Config, error) { return nil, mcts.Config{}, errLoad }
	if _, err := NewPlayer(az, 1, failing); !errors.Is(err, errLoad) {
		t.Errorf("failing loader: error %v", err)
	}
	if _, err := NewPlayer(Spec{Kind: "alphabeta", Params: []Param{{"depth", "x"}}}, 1, nil); err == nil {
		t.Error("a hand-made bad spec was accepted")
	}
	if _, err := NewPlayer(Spec{Kind: "nobody"}, 1, nil); err == nil {
		t.Error("an unknown kind was accepted")
	}
}

func TestSpecHelpNamesEveryKey(t *testing.T) {
	help := SpecHelp()
	for _, k := range playerKinds {
		if !strings.Contains(help, k.name) {
			t.Errorf("help lacks kind %s", k.name)
		}
		for _, kd := range k.keys {
			if !strings.Contains(help, "      "+kd.name+" ") {
				t.Errorf("help lacks key %s of %s", kd.name, k.name)
			}
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"random", "greedy", "alphabeta:depth=4", "alphabeta:time=500ms", "mcts:sims=1000",
		"az:model=PATH,sims=200", "az:model=x=y,temp=0.5", "alphabeta:depth=3,depth=4", "mcts:", ":", "az:model=a,,",
		"cmd:prog a=b,c", "cmd(timeout=2s):prog 'x y'", "cmd(timeout=2s", "cmd:prog):x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil {
			return
		}
		again, err := ParseSpec(s.String())
		if err != nil {
			t.Fatalf("%q parsed to %q, which does not parse: %v", text, s.String(), err)
		}
		if !reflect.DeepEqual(s, again) || again.String() != s.String() {
			t.Fatalf("%q: round trip %#v -> %q -> %#v", text, s, s.String(), again)
		}
		if err := s.validate(); err != nil {
			t.Fatalf("%q parsed but does not validate: %v", text, err)
		}
	})
}

// TestBaselineRangesAreOne: a spec and a config's Validate refuse the same
// values in the same words, as they check one table.
func TestBaselineRangesAreOne(t *testing.T) {
	cases := []struct {
		name string
		spec string
		err  error
		want string
	}{
		{"alphabeta depth", "alphabeta:depth=65", AlphaBetaConfig{Depth: 65}.validate(), "depth is 65: want 0 (time limit only) to 64"},
		{"alphabeta time", "alphabeta:time=-1s", AlphaBetaConfig{Time: -time.Second}.validate(), "time is -1s: want a duration of 0s (depth limit only) or more"},
		{"uct simulations", "mcts:simulations=0", mcts.UCTConfig{}.Validate(), "simulations is 0: want 1 or more"},
		{"uct rollout depth", "mcts:rollout_depth=-1", mcts.UCTConfig{Simulations: 1, RolloutDepth: -1}.Validate(), "rollout_depth is -1: want 0 (material count only) to 10000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("Validate: %v, want %q", tc.err, tc.want)
			}
			var fe *configs.FieldError
			if !errors.As(tc.err, &fe) {
				t.Errorf("Validate: %T, want a *configs.FieldError", tc.err)
			}
			if _, err := ParseSpec(tc.spec); err == nil {
				t.Errorf("ParseSpec(%q) succeeded", tc.spec)
			}
		})
	}
}

// Only a cmd spec has a command line.
func TestSpecCommandOnlyForCmd(t *testing.T) {
	err := Spec{Kind: KindRandom, Command: "prog"}.validate()
	if err == nil || !strings.Contains(err.Error(), "random players take no command line") {
		t.Errorf("error %v: want one saying random takes no command line", err)
	}
	if err := (Spec{Kind: KindCommand, Command: "prog x"}).validate(); err != nil {
		t.Errorf("cmd:prog x: %v", err)
	}
}

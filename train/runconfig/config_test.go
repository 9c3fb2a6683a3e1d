package runconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/train/internal/yamlstrict"
)

// flatten lists a config's settings as key path -> YAML value, so two
// configs can be compared key by key.
func flatten(t *testing.T, c Config) map[string]string {
	t.Helper()
	data, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			walk(n.Content[0], path)
		case yaml.MappingNode:
			for i := 0; i < len(n.Content); i += 2 {
				p := n.Content[i].Value
				if path != "" {
					p = path + "." + p
				}
				walk(n.Content[i+1], p)
			}
		case yaml.SequenceNode:
			out[path] = fmt.Sprintf("list of %d", len(n.Content))
			for i, item := range n.Content {
				walk(item, fmt.Sprintf("%s[%d]", path, i))
			}
		default:
			out[path] = n.Value
		}
	}
	walk(&root, "")
	return out
}

// diffKeys names the settings where two configs differ.
func diffKeys(t *testing.T, got, want Config) []string {
	g, w := flatten(t, got), flatten(t, want)
	var diff []string
	for k, v := range w {
		if g[k] != v {
			diff = append(diff, fmt.Sprintf("%s: got %q, want %q", k, g[k], v))
		}
	}
	for k, v := range g {
		if _, ok := w[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: got %q, want nothing", k, v))
		}
	}
	sort.Strings(diff)
	return diff
}

// TestDefaultYAMLIsComplete keeps configs/default.yaml, the defaults,
// complete and valid: it is decoded over a zero Config, so a key the file
// left out would be zero.
func TestDefaultYAMLIsComplete(t *testing.T) {
	var got Config
	lines, err := yamlstrict.Decode(configs.Default, &got)
	if err != nil {
		t.Fatalf("default.yaml: %v", err)
	}
	for path := range flatten(t, got) {
		if _, ok := lines[path]; !ok {
			t.Errorf("default.yaml does not set %s", path)
		}
	}
	if err := Defaults().Validate(); err != nil {
		t.Errorf("Defaults() is invalid: %v", err)
	}
	if _, err := parseDefaults(); err != nil {
		t.Error(err)
	}
}

func TestBuiltinConfigsParse(t *testing.T) {
	for _, name := range configs.Names() {
		t.Run(name, func(t *testing.T) {
			data, ok := configs.Lookup(name)
			if !ok {
				t.Fatalf("Lookup(%q) failed", name)
			}
			cfg, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Name != name {
				t.Errorf("name = %q, want %q", cfg.Name, name)
			}
		})
	}
	if _, ok := configs.Lookup("nonesuch"); ok {
		t.Error("Lookup(nonesuch) succeeded")
	}
}

func TestParseOverridesOnlyWhatItSets(t *testing.T) {
	cfg, err := Parse([]byte("name: mine\nselfplay:\n  games_per_iteration: 7\neval:\n  baselines: [greedy]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Name = "mine"
	want.SelfPlay.GamesPerIteration = 7
	want.Eval.Baselines = []string{"greedy"}
	if diff := diffKeys(t, cfg, want); len(diff) > 0 {
		t.Errorf("differences:\n%s", strings.Join(diff, "\n"))
	}
}

func TestParseEmptyKeepsDefaults(t *testing.T) {
	for _, text := range []string{"", "# only a comment\n", "model:\n"} {
		cfg, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if !reflect.DeepEqual(cfg, Defaults()) {
			t.Errorf("%q: differs from the defaults: %v", text, diffKeys(t, cfg, Defaults()))
		}
	}
}

// A bad value is reported once, at its own key and line: the checks that
// compare another key with it stay silent.
func TestParseReportsOnlyTheBadKey(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"optim:\n  lr: -0.01\n", "line 2: optim.lr is -0.01: want more than 0"},
		{"optim:\n  lr: .nan\n", `line 2: optim.lr is ".nan": want a finite number`},
		{"optim:\n  total_steps: -1\n", "line 2: optim.total_steps is -1: want 0 or more"},
		{"iterations: 0\ntime_limit: 0\n", "line 1: iterations and time_limit are both 0: the run would never stop"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if _, err := Parse([]byte(tc.text)); err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want exactly %q", err, tc.want)
			}
		})
	}
}

// Every duration key documented with "0 = none" takes a plain 0.
func TestParseZeroDurations(t *testing.T) {
	for _, text := range []string{"iterations: 3\ntime_limit: 0\n", "server:\n  flush_delay: 0\n", "search:\n  time: 0\n"} {
		cfg, err := Parse([]byte(text))
		if err != nil || cfg.Server.FlushDelay != 0 || cfg.Search.Time != 0 || strings.HasPrefix(text, "iter") && cfg.TimeLimit != 0 {
			t.Errorf("%q: %v, time_limit %v, flush_delay %v, time %v: want them 0", text, err, cfg.TimeLimit, cfg.Server.FlushDelay, cfg.Search.Time)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // every one must appear in the error
	}{
		{"unknown top key", "name: x\nnonsense: 3\n", []string{"line 2: nonsense is not a known key", "selfplay"}},
		{"unknown nested key", "selfplay:\n  games_per_iter: 4\n", []string{"line 2: selfplay.games_per_iter is not a known key", "games_per_iteration"}},
		{"unknown rules key", "env:\n  rules:\n    too_tal: false\n", []string{"line 3: env.rules.too_tal is not a known key"}},
		{"out of range", "selfplay:\n  games_per_iteration: 0\n", []string{"line 2: selfplay.games_per_iteration is 0: want 1 or more"}},
		{"out of range float", "optim:\n  lr: -1\n", []string{"line 2: optim.lr is -1"}},
		{"share above one", "selfplay:\n  resign_playout_share: 1.5\n", []string{"line 2: selfplay.resign_playout_share is 1.5"}},
		{"negative search value share", "selfplay:\n  search_value_share: -0.5\n", []string{"line 2: selfplay.search_value_share is -0.5"}},
		{"late start share above 1", "selfplay:\n  late_start_share: 1.5\n", []string{"line 2: selfplay.late_start_share is 1.5"}},
		{"negative stack cap", "selfplay:\n  adjudicate_stack_cap: -1\n", []string{"line 2: selfplay.adjudicate_stack_cap is -1: want 0 or more"}},
		{"model section", "model:\n  blocks: -1\n", []string{"line 2: model.blocks is -1"}},
		{"server section", "server:\n  flush_delay: 2s\n", []string{"line 2: server.flush_delay is 2s"}},
		{"inline optim key", "optim:\n  beta2: 1\n", []string{"line 2: optim.beta2 is 1"}},
		{"negative total steps", "optim:\n  total_steps: -1\n", []string{"line 2: optim.total_steps is -1: want 0 or more"}},
		{"no iteration averaged", "optim:\n  average_iterations: 0\n", []string{"line 2: optim.average_iterations is 0: want 1 or more"}},
		{"bad anchor", "eval:\n  anchor: az:sims=x\n", []string{"line 2: eval.anchor is \"az:sims=x\""}},
		{"negative snapshots", "eval:\n  snapshots: -1\n", []string{"line 2: eval.snapshots is -1"}},
		{"snapshots without anchor", "eval:\n  anchor: \"\"\n  snapshots: 2\n", []string{"line 3: eval.snapshots is 2 without eval.anchor"}},
		{"batch above window", "replay:\n  window: 100\n", []string{"optim.batch_size is 128: want at most replay.window (100)"}},
		{"stream below an iteration", "distributed:\n  stream_max_games: 31\n", []string{"line 2: distributed.stream_max_games is 31: want selfplay.games_per_iteration (96) or more"}},
		{"search section", "search:\n  c_puct: 0\n", []string{"line 2: search.c_puct is 0"}},
		{"env rule", "env:\n  rules:\n    repetitions: 1\n", []string{"line 3: env.rules.repetitions is 1"}},
		{"no move limit", "env:\n  rules:\n    max_plies: 0\n", []string{"line 3: env.rules.max_plies is 0"}},
		{"bad enum", "optim:\n  optimizer: rmsprop\n", []string{"line 2: optim.optimizer is \"rmsprop\": want \"adam\", \"adamw\" or \"sgd\""}},
		{"bad spec", "eval:\n  baselines: [random, \"alpha beta\"]\n", []string{"line 2: eval.baselines[1] is \"alpha beta\""}},
		{"bad name", "name: ../up\n", []string{"line 1: name is \"../up\""}},
		{"wrong type int", "selfplay:\n  parallel_games: many\n", []string{"line 2: selfplay.parallel_games is \"many\": want a whole number"}},
		{"float for int", "optim:\n  batch_size: 1.5\n", []string{"line 2: optim.batch_size is \"1.5\": want a whole number"}},
		{"string for int", "optim:\n  batch_size: \"16\"\n", []string{"line 2: optim.batch_size is \"16\": want a whole number"}},
		{"yes for bool", "replay:\n  augment: yes\n", []string{"line 2: replay.augment is \"yes\": want true or false"}},
		{"wrong type bool", "replay:\n  augment: maybe\n", []string{"line 2: replay.augment is \"maybe\": want true or false"}},
		{"negative seed", "seed: -4\n", []string{"line 1: seed is \"-4\": want a whole number, 0 or more"}},
		{"bad duration", "time_limit: 3000\n", []string{"line 1: time_limit is \"3000\": want a duration"}},
		{"NaN", "optim:\n  lr: .nan\n", []string{"line 2: optim.lr is \".nan\": want a finite number"}},
		{"no value", "optim:\n  lr:\n", []string{"line 2: optim.lr has no value"}},
		{"section is scalar", "optim: fast\n", []string{"line 1: optim is \"fast\": want a mapping"}},
		{"list for scalar", "optim:\n  lr: [1, 2]\n", []string{"line 2: optim.lr is a list: want a number"}},
		{"scalar for list", "eval:\n  baselines: random\n", []string{"line 2: eval.baselines is \"random\": want a list"}},
		{"root is a list", "- a\n- b\n", []string{"line 1: the document is a list: want a mapping"}},
		{"key twice", "seed: 1\nseed: 2\n", []string{"line 2: seed is set twice (first on line 1)"}},
		{"two documents", "seed: 1\n---\nseed: 2\n", []string{"line 2: a second YAML document"}},
		{"syntax", "seed: [1,\n", []string{"line"}},
		{"never stops", "iterations: 0\ntime_limit: 0s\n", []string{"iterations and time_limit are both 0"}},
		{"several at once", "seed: 1\noptim:\n  lr: 0\nselfplay:\n  games_per_iteration: 0\n", []string{"line 3: optim.lr is 0", "line 5: selfplay.games_per_iteration is 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if err == nil {
				t.Fatalf("Parse succeeded on %q", tc.text)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestValidateNamesPathWithoutLine(t *testing.T) {
	cfg := Defaults()
	cfg.Replay.Window = 0
	err := cfg.Validate()
	var fe *configs.FieldError
	if !errors.As(err, &fe) || fe.Key != "replay.window" || fe.Line != 0 {
		t.Fatalf("Validate() = %v, want a FieldError for replay.window without a line", err)
	}
	if !strings.HasPrefix(err.Error(), "replay.window is 0") {
		t.Errorf("message %q", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("name: from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(good)
	if err != nil || cfg.Name != "from-file" {
		t.Fatalf("Load = %v, %v", cfg.Name, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nreplay:\n  window: -3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "config "+bad+": line 3: replay.window") {
		t.Errorf("Load(bad) = %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want ErrNotExist", err)
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	for _, name := range configs.Names() {
		data, _ := configs.Lookup(name)
		cfg, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		text, err := cfg.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", name, err, text)
		}
		if !reflect.DeepEqual(back, cfg) {
			t.Errorf("%s: round trip differs: %v", name, diffKeys(t, back, cfg))
		}
	}
}

func TestRunDir(t *testing.T) {
	cfg := Defaults()
	if got := cfg.RunDir(); got != filepath.Join("checkpoints", "default") {
		t.Errorf("RunDir() = %q", got)
	}
	cfg.Output.Dir = "/tmp/elsewhere"
	if got := cfg.RunDir(); got != "/tmp/elsewhere" {
		t.Errorf("RunDir() = %q", got)
	}
}

// FuzzParse checks that no input panics, and that what Parse accepts is
// valid and survives a round trip.
func FuzzParse(f *testing.F) {
	f.Add(configs.Default)
	f.Add(configs.Smoke)
	f.Add([]byte("optim:\n  lr: 1e-3\neval:\n  baselines: [a, b]\n"))
	f.Add([]byte("seed: &a 3\niterations: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid config: %v", err)
		}
		text, err := cfg.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(text)
		if err != nil || !reflect.DeepEqual(back, cfg) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func ExampleParse() {
	cfg, err := Parse([]byte("name: quick\nsearch:\n  simulations: 32\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Name, cfg.Search.Simulations, cfg.RunDir(), cfg.TimeLimit)

	_, err = Parse([]byte("name: quick\nselfplay:\n  games_per_iteration: 0\n"))
	fmt.Println(err)
	// Output:
	// quick 32 checkpoints/quick 55m0s
	// line 3: selfplay.games_per_iteration is 0: want 1 or more
}

// The default run must fit its time budget on paper at least: the limit
// is what stops it if the iterations do not.
func TestDefaultsStopInTime(t *testing.T) {
	if d := Defaults().TimeLimit; d <= 0 || d > time.Hour {
		t.Errorf("default time_limit %v: want at most an hour", d)
	}
}

// TestSavedConfigsKeepTheirSearch reads a run's config saved before the
// Gumbel keys existed: it searched with PUCT and Dirichlet noise, and must
// load that way (over the current defaults it would be an invalid mix), with
// none of the later search features on.
func TestSavedConfigsKeepTheirSearch(t *testing.T) {
	old := []byte("search:\n  simulations: 64\n  dirichlet_epsilon: 0.25\n  temperature_plies: 16\n  final_temperature: 0\n")
	cfg, err := ParseSaved(old)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Search.Gumbel || cfg.Search.DirichletEpsilon != 0.25 {
		t.Errorf("saved config: gumbel %v, dirichlet_epsilon %v: want PUCT with noise 0.25", cfg.Search.Gumbel, cfg.Search.DirichletEpsilon)
	}
	if s := cfg.Search; s.WinSearchPlies != 0 || s.MaterialUtility != 0 || s.Contempt != 0 || s.Time != 0 || cfg.SelfPlay.FastSimulations != 0 {
		t.Errorf("saved config: win search %d plies, material %v, contempt %v, time %v, fast simulations %d: want each off, as before they existed",
			s.WinSearchPlies, s.MaterialUtility, s.Contempt, s.Time, cfg.SelfPlay.FastSimulations)
	}
	if cfg.Optim.AverageIterations != 1 {
		t.Errorf("saved config: average_iterations %d: want 1, the trained network as the player, as before it existed", cfg.Optim.AverageIterations)
	}
	if _, err := Parse(old); err == nil || !strings.Contains(err.Error(), "dirichlet_epsilon") {
		t.Errorf("as a new config: error %v, want one about dirichlet_epsilon with gumbel", err)
	}
	saved, err := Defaults().YAML()
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := ParseSaved(saved); err != nil || !reflect.DeepEqual(cfg, Defaults()) {
		t.Errorf("today's defaults saved and read back: %+v, %v", cfg.Search, err)
	}
}

// Gating was removed: a run's saved config that has its keys still loads,
// a new config may still say it is off, but not turn it on.
func TestGatingKeysOfOldRuns(t *testing.T) {
	old := []byte("eval:\n  gating: true\n  gate_threshold: 0.6\n")
	cfg, err := ParseSaved(old)
	if err != nil {
		t.Fatalf("saved config with gating: %v", err)
	}
	if cfg.Eval.Gating {
		t.Error("gating came back on")
	}
	if _, err := Parse([]byte("eval:\n  gating: false\n  gate_threshold: 0.55\n")); err != nil {
		t.Errorf("gating off: %v", err)
	}
	if _, err := Parse(old); err == nil || !strings.Contains(err.Error(), "line 2: eval.gating is true: gating was removed") {
		t.Errorf("gating on in a new config: %v", err)
	}
	text, err := Defaults().YAML()
	if err != nil || strings.Contains(string(text), "gat") {
		t.Errorf("a new run's config names gating: %v\n%s", err, text)
	}
}

// On resume a given config changes only the keys it sets, over the run's
// own saved config, not over the built-in default.
func TestResumeConfigLaysOverTheRunsConfig(t *testing.T) {
	dir := t.TempDir()
	saved, err := Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	text, err := saved.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, File), text, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Resumed(dir, []byte("iterations: 5\nsearch:\n  simulations: 12\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := saved
	want.Iterations, want.Search.Simulations = 5, 12
	if diff := diffKeys(t, cfg, want); len(diff) > 0 {
		t.Errorf("resumed config differs from the run's with the two keys changed:\n%s", strings.Join(diff, "\n"))
	}
	if cfg.Model.Blocks != saved.Model.Blocks || cfg.Model.Blocks == Defaults().Model.Blocks {
		t.Errorf("model.blocks %d: want the run's %d", cfg.Model.Blocks, saved.Model.Blocks)
	}
	if same, err := Resumed(dir, nil); err != nil || len(diffKeys(t, same, saved)) > 0 {
		t.Errorf("without an overlay: %v, %v", err, diffKeys(t, same, saved))
	}
	if _, err := Resumed(dir, []byte("search:\n  simulations: 0\n")); err == nil || !strings.Contains(err.Error(), "line 2: search.simulations") {
		t.Errorf("a bad overlay: %v, want its key and line", err)
	}
}

// Where there is nothing to resume, Resumed gives the config a new
// run would have, for Run to refuse the directory with its own error.
func TestResumeConfigNothingToResume(t *testing.T) {
	smoke, err := Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir string
		overlay   []byte
		want      Config
	}{
		{"empty directory", base, nil, Defaults()},
		{"missing directory", filepath.Join(base, "typo"), configs.Smoke, smoke},
		{"a file", file, configs.Smoke, smoke},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Resumed(tc.dir, tc.overlay)
			if err != nil || len(diffKeys(t, cfg, tc.want)) > 0 {
				t.Errorf("%v, differs in %v", err, diffKeys(t, cfg, tc.want))
			}
		})
	}
	if _, err := Resumed(base, []byte("iterations: -1\n")); err == nil || !strings.Contains(err.Error(), "line 1: iterations") {
		t.Errorf("a bad config with nothing to resume: %v, want its key and line", err)
	}
}

package runconfig

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/train/internal/yamlstrict"
)

// selfPlayKeywords maps the keywords of [SelfPlaySettings] that are not
// search settings to their key paths in a [Config]: every selfplay
// setting but a run's own (games_per_iteration: the caller says how many
// games; progressive_simulations: a schedule over a run's iterations;
// late_start_share: starts from the games of a run's iteration before),
// the rules and env's opening_plies.
var selfPlayKeywords = sync.OnceValue(func() map[string]string {
	keys := map[string]string{"opening_plies": "env.opening_plies"}
	for _, k := range yamlKeys(reflect.TypeFor[SelfPlayConfig]()) {
		if k != "games_per_iteration" && k != "progressive_simulations" && k != "late_start_share" {
			keys[k] = "selfplay." + k
		}
	}
	for _, k := range yamlKeys(reflect.TypeFor[env.Rules]()) {
		keys[k] = "env.rules." + k
	}
	return keys
})

// yamlKeys lists the yaml keys of a struct's fields.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// SelfPlaySettings returns the config of self-play games whose leaves an
// outside evaluator evaluates (train.PlaySelfPlayGame), from settings given as
// keyword arguments (a key and its value's text) over [Defaults]: search
// settings by their keys or aliases, applied as a config file's search
// section applies them ([mcts.Config.Apply]: nothing derived), the
// selfplay settings but games_per_iteration, progressive_simulations and
// late_start_share, the rules (too_tall, max_plies, repetitions) and
// opening_plies. The result is checked as [Parse] checks a config file. Without
// parallel_games, all the games of a run are played at once (at most
// 4096), for the largest batches.
//
// An error names the setting as given, once: "sims=-1: want ...",
// "fast_simulations=64: want fewer than search.simulations (64)".
func SelfPlaySettings(kw map[string]string) (Config, error) {
	cfg := Defaults()
	cfg.SelfPlay.ParallelGames = 4096
	var search []mcts.Given
	names := map[string]string{} // key path -> the keyword as given
	for path, k := range keywordPaths() {
		names[path] = k
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	for _, g := range mcts.Keywords(kw) {
		if key, ok := mcts.CanonicalKey(g.Key); ok {
			search, names["search."+key] = append(search, g), g.Key
			continue
		}
		path, ok := selfPlayKeywords()[g.Key]
		if !ok {
			return Config{}, fmt.Errorf("%s=%s: no self-play setting: want a search setting (%s) or one of %s",
				g.Key, g.Value, strings.Join(mcts.SettingKeys(), ", "), strings.Join(otherKeywords(), ", "))
		}
		setPath(doc, strings.Split(path, "."), g.Value)
	}
	var err error
	if cfg.Search, err = cfg.Search.Apply(search); err != nil {
		return Config{}, err
	}
	text, err := yaml.Marshal(doc)
	if err != nil {
		return Config{}, err
	}
	if _, err := yamlstrict.Decode(text, &cfg); err != nil {
		return Config{}, asGiven(err, names, kw)
	}
	if err := configs.Join(cfg.problems()); err != nil {
		return Config{}, asGiven(err, names, kw)
	}
	// The games record every target of the auxiliary heads that a game
	// gives (the reply, the final ownership and score). The surprise is
	// not: it would cost the evaluator a call per sample.
	cfg.Model.ReplyHead, cfg.Model.OwnershipHead, cfg.Model.ScoreHead = true, true, true
	return cfg, nil
}

// keywordPaths maps the key path of every keyword to the keyword: the
// search settings' keys and the others of selfPlayKeywords.
func keywordPaths() map[string]string {
	paths := map[string]string{}
	for _, k := range mcts.SettingKeys() {
		paths["search."+k] = k
	}
	for k, path := range selfPlayKeywords() {
		paths[path] = k
	}
	return paths
}

// otherKeywords lists the keywords besides the search settings by name.
func otherKeywords() []string {
	var names []string
	for k := range selfPlayKeywords() {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// setPath sets the key path in a YAML mapping to a plain scalar of text,
// which the YAML reader resolves to a number, a boolean or a string as it
// would in a config file.
func setPath(m *yaml.Node, path []string, text string) {
	for _, key := range path[:len(path)-1] {
		var next *yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				next = m.Content[i+1]
			}
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, next)
		}
		m = next
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: path[len(path)-1]},
		&yaml.Node{Kind: yaml.ScalarNode, Value: text})
}

// asGiven renames the problems of a config, named by key path and line,
// by the keywords the caller gave (names: key path -> keyword, kw: the
// values as given), without lines: "selfplay.resign_threshold is 2:
// want ..." is "resign_threshold=2: want ...". Where a setting given has
// a problem, the problems it causes in others (a fast_simulations that
// is no longer fewer than simulations) are left out.
func asGiven(err error, names, kw map[string]string) error {
	var givenProblems, others []error
	for _, e := range unjoin(err) {
		var fe *configs.FieldError
		key, ok := "", false
		if errors.As(e, &fe) {
			key, ok = names[fe.Key]
		}
		v, given := kw[key]
		switch {
		case !ok:
			if fe != nil {
				e = &configs.FieldError{Key: fe.Key, Msg: fe.Msg}
			}
			others = append(others, e)
		case !given:
			others = append(others, &configs.FieldError{Key: key, Msg: fe.Msg})
		default:
			givenProblems = append(givenProblems, givenProblem(key, v, fe.Msg))
		}
	}
	if len(givenProblems) > 0 {
		return errors.Join(givenProblems...)
	}
	return errors.Join(others...)
}

// givenProblem says what is wrong with the keyword key given the value
// v: "key=v: want ..." where msg is "is v: want ...", else "key msg".
func givenProblem(key, v, msg string) error {
	for _, shown := range []string{v, strconv.Quote(v)} {
		if want, ok := strings.CutPrefix(msg, "is "+shown+": "); ok {
			return fmt.Errorf("%s=%s: %s", key, v, want)
		}
	}
	return &configs.FieldError{Key: key, Msg: msg}
}

// unjoin returns the errors joined in err, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

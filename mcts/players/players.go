package players

import (
	"errors"
	"fmt"

	"github.com/deathstacks/deathstacks/mcts"
)

// AZLoader builds what an az player needs from its model file ("" for an
// az spec without one: the built-in player): the evaluator (safe for
// concurrent use if players share it) and the search settings that go
// with the model, such as those of its training config.
// The keys of the spec override those settings. Package train provides one;
// package mcts cannot, as it does not import the model.
type AZLoader func(modelPath string) (mcts.Evaluator, mcts.Config, error)

// NewPlayer builds the player a spec names, with its own seed. An az spec
// needs loadAZ to turn its model path into an evaluator; with a nil loadAZ
// it returns an error.
func NewPlayer(spec Spec, seed uint64, loadAZ AZLoader) (mcts.Player, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	switch spec.Kind {
	case KindRandom:
		return NewRandomPlayer(seed), nil
	case KindGreedy:
		return NewGreedyPlayer(seed), nil
	case KindAlphaBeta:
		return NewAlphaBetaPlayer(spec.alphaBetaConfig(), seed)
	case KindMCTS:
		return mcts.NewUCTPlayer(spec.uctConfig(), seed)
	case KindCommand:
		argv, _ := spec.commandWords() // validate has checked them
		p, err := NewExternalPlayer(argv, spec.externalConfig())
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", spec, err)
		}
		return p, nil
	}
	model, _ := spec.lookup("model")
	if loadAZ == nil {
		return nil, fmt.Errorf("player %s: az players need a model loader, which package train provides", spec)
	}
	eval, base, err := loadAZ(model)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", spec, err)
	}
	cfg := spec.SearchConfig(base)
	p, err := mcts.NewPUCTPlayer(eval, cfg, seed)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", spec, err)
	}
	return p, nil
}

// alphaBetaConfig returns the settings of an alphabeta spec: depth 4 when
// neither depth nor time is given, and no depth limit when only time is.
func (s Spec) alphaBetaConfig() AlphaBetaConfig {
	cfg := AlphaBetaConfig{Depth: 4}
	_, depth := s.lookup("depth")
	if _, time := s.lookup("time"); time && !depth {
		cfg.Depth = 0
	}
	for _, p := range s.Params {
		_ = alphaBetaSettings.Set(&cfg, p.Key, p.Value) // ParseSpec or validate has checked the value
	}
	return cfg
}

// externalConfig returns the settings of a cmd spec: a timeout of
// defaultExternalTimeout unless it gives one.
func (s Spec) externalConfig() ExternalConfig {
	cfg := ExternalConfig{Timeout: defaultExternalTimeout}
	for _, p := range s.Params {
		_ = externalSettings.Set(&cfg, p.Key, p.Value) // ParseSpec or validate has checked the value
	}
	return cfg
}

// commandWords returns the words of a cmd spec's command line, refusing
// an empty one.
func (s Spec) commandWords() ([]string, error) {
	words, err := splitCommandLine(s.Command)
	if err == nil && len(words) == 0 {
		err = errors.New("cmd wants a command line after the colon, such as cmd:./engine --depth 3")
	}
	return words, err
}

// uctConfig returns the settings of an mcts spec over [mcts.DefaultUCTConfig].
func (s Spec) uctConfig() mcts.UCTConfig {
	cfg := mcts.DefaultUCTConfig()
	for _, p := range s.Params {
		_ = cfg.Set(p.Key, p.Value) // ParseSpec or validate has checked the value
	}
	return cfg
}

// SearchConfig returns base with the search keys of an az spec applied,
// and the settings they imply (see [mcts.Config.Resolve]): a time alone
// searches without a simulation limit, and simulations alone bound the
// win search by their number.
func (s Spec) SearchConfig(base mcts.Config) mcts.Config {
	var given []mcts.Given
	for _, p := range s.Params {
		if _, ok := mcts.CanonicalKey(p.Key); ok {
			given = append(given, mcts.Given{Key: p.Key, Value: p.Value})
		}
	}
	c, _ := base.Resolve(given, 0) // ParseSpec or validate has checked every key and value
	return c
}

// SearchParams returns the keys of an az spec that set every search
// setting to its value in c.
func SearchParams(c mcts.Config) []Param {
	var out []Param
	for _, st := range mcts.Settings() {
		out = append(out, Param{Key: st.Key, Value: c.Get(st.Key)})
	}
	return out
}

// Model returns the model path of an az spec, or "" for none: the
// built-in player.
func (s Spec) Model() string {
	m, _ := s.lookup("model")
	return m
}

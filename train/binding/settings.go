package binding

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// Keywords reads a JSON object of keyword settings into each key's value
// as text: a string as it is, a number or a boolean as written.
func Keywords(text string) (map[string]string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	kw := make(map[string]string, len(raw))
	for key, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			s = string(v) // a number or a boolean, as written
		}
		kw[key] = s
	}
	return kw, nil
}

// SearchSettings reads a JSON object of search settings (keys of the
// search settings table or their aliases, values numbers, booleans or
// strings such as "500ms") in the order of the table (mcts.Keywords).
func SearchSettings(text string) ([]mcts.Given, error) {
	kw, err := Keywords(text)
	if err != nil {
		return nil, err
	}
	return mcts.Keywords(kw), nil
}

// SearchConfig resolves a JSON object of search settings over
// mcts.DefaultConfig, as an az player's spec with the same keys resolves
// them, and checks them. A model is refused: the caller's evaluator is
// the network.
func SearchConfig(text string) (mcts.Config, error) {
	kw, err := Keywords(text)
	if err != nil {
		return mcts.Config{}, err
	}
	if _, ok := kw["model"]; ok {
		return mcts.Config{}, errors.New("model: no search setting: the caller's evaluator is the network")
	}
	return mcts.DefaultConfig().ResolveKeywords(kw, 0)
}

// SelfPlayConfig reads a JSON object of keyword settings over the
// trainer's defaults (runconfig.SelfPlaySettings).
func SelfPlayConfig(text string) (runconfig.Config, error) {
	kw, err := Keywords(text)
	if err != nil {
		return runconfig.Config{}, err
	}
	return runconfig.SelfPlaySettings(kw)
}

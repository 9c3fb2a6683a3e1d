package players

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/mcts"
)

// The kinds of player a [Spec] can name.
const (
	KindRandom    = "random"
	KindGreedy    = "greedy"
	KindAlphaBeta = "alphabeta"
	KindMCTS      = "mcts"
	KindAZ        = "az"
	KindCommand   = "cmd"
)

// Spec names a kind of player and its settings, written as the kind alone
// ("greedy") or the kind, a colon and comma-separated key=value pairs
// ("alphabeta:depth=4", "az:model=checkpoints/default,sims=200").
// A cmd spec is written apart: its settings in parentheses and its
// command line after the colon, verbatim ("cmd:prog --flag a=b,c",
// "cmd(timeout=2s):prog"), so that the command line may hold any
// character. [ParseSpec] reads one and [Spec.String] writes it back;
// [NewPlayer] builds the player.
type Spec struct {
	Kind   string
	Params []Param
	// Command is the command line of a cmd spec, "" for other kinds.
	Command string
}

// Param is one key=value setting of a Spec.
type Param struct {
	Key, Value string
}

// String writes the spec in the form ParseSpec reads.
func (s Spec) String() string {
	parts := make([]string, len(s.Params))
	for i, p := range s.Params {
		parts[i] = p.Key + "=" + p.Value
	}
	switch {
	case s.Kind == KindCommand && len(s.Params) == 0:
		return s.Kind + ":" + s.Command
	case s.Kind == KindCommand:
		return s.Kind + "(" + strings.Join(parts, ",") + "):" + s.Command
	case len(s.Params) == 0:
		return s.Kind
	}
	return s.Kind + ":" + strings.Join(parts, ",")
}

// keyDef is a setting a kind of player accepts.
type keyDef struct {
	name, help string
	// aliases are other names of the key.
	aliases []string
	// check reads a value and returns it in canonical form.
	check func(text string) (string, error)
}

// kindDef is a kind of player with its settings.
type kindDef struct {
	name, help string
	keys       []keyDef
}

// tableKeys are the keys of a kind whose settings come from a table:
// each under its YAML key or an older alias, its value checked by set,
// which parses it into a config and returns the value's canonical text.
func tableKeys(settings []mcts.Setting, set func(key, text string) (string, error)) []keyDef {
	keys := make([]keyDef, len(settings))
	for i, st := range settings {
		key := st.Key
		keys[i] = keyDef{name: key, help: st.Help, aliases: st.Aliases, check: func(text string) (string, error) { return set(key, text) }}
	}
	return keys
}

// playerKinds lists every kind of player with its keys; it is never
// written. The keys of alphabeta, mcts and az come from the tables of
// AlphaBetaConfig, mcts.UCTConfig and mcts.Config.
var playerKinds = []kindDef{
	{name: KindRandom, help: "a uniformly random legal move"},
	{name: KindGreedy, help: "an immediate win, else the best material count after one ply"},
	{name: KindAlphaBeta, help: "alpha-beta search (default depth=4)", keys: tableKeys(alphaBetaSettings.Settings(), func(key, text string) (string, error) {
		var c AlphaBetaConfig
		if err := alphaBetaSettings.Set(&c, key, text); err != nil {
			return "", err
		}
		return alphaBetaSettings.Get(c, key), nil
	})},
	{name: KindMCTS, help: "UCT with random rollouts", keys: tableKeys(mcts.UCTSettings(), func(key, text string) (string, error) {
		var c mcts.UCTConfig
		if err := c.Set(key, text); err != nil {
			return "", err
		}
		return c.Get(key), nil
	})},
	{name: KindAZ, help: "tree search guided by a trained network (PUCT, or a Gumbel root)", keys: append([]keyDef{
		{name: "model", help: "path of the model file (default: the built-in player)", check: checkPath},
	}, tableKeys(mcts.Settings(), func(key, text string) (string, error) {
		var c mcts.Config
		if err := c.Set(key, text); err != nil {
			return "", err
		}
		return c.Get(key), nil
	})...)},
	{name: KindCommand, help: "another program speaking the protocol of deathstacks bot: cmd:COMMAND LINE, or cmd(timeout=D):COMMAND LINE; the command line is the rest of the spec, split into words as a shell would, without one", keys: tableKeys(externalSettings.Settings(), func(key, text string) (string, error) {
		var c ExternalConfig
		if err := externalSettings.Set(&c, key, text); err != nil {
			return "", err
		}
		return externalSettings.Get(c, key), nil
	})},
}

// kindNames lists the kinds for error messages.
func kindNames() string {
	names := make([]string, len(playerKinds))
	for i, k := range playerKinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// keyNames lists a kind's keys for error messages.
func (k *kindDef) keyNames() string {
	if len(k.keys) == 0 {
		return "none"
	}
	names := make([]string, len(k.keys))
	for i, kd := range k.keys {
		names[i] = kd.name
	}
	return strings.Join(names, ", ")
}

func findKind(name string) *kindDef {
	for i := range playerKinds {
		if playerKinds[i].name == name {
			return &playerKinds[i]
		}
	}
	return nil
}

func (k *kindDef) findKey(name string) *keyDef {
	for i := range k.keys {
		if k.keys[i].name == name || slices.Contains(k.keys[i].aliases, name) {
			return &k.keys[i]
		}
	}
	return nil
}

// SpecHelp describes every kind of player, one a line, each followed by
// its keys, one a line, for command help texts.
func SpecHelp() string {
	var b strings.Builder
	for _, k := range playerKinds {
		fmt.Fprintf(&b, "  %-10s %s\n", k.name, k.help)
		for _, kd := range k.keys {
			help := kd.help
			if len(kd.aliases) > 0 {
				help += " (also " + strings.Join(kd.aliases, ", ") + ")"
			}
			fmt.Fprintf(&b, "      %-17s %s\n", kd.name, help)
		}
	}
	return b.String()
}

// ParseSpec reads a player spec such as "random", "alphabeta:depth=4",
// "alphabeta:time=500ms", "mcts:sims=1000", "az:model=PATH,sims=200" or
// "cmd(timeout=2s):prog --flag". Keys may come in any order, each at
// most once; values are checked and kept in canonical form ("0500ms"
// becomes "500ms"). An error names the valid kinds, or the valid keys of
// the kind.
func ParseSpec(text string) (Spec, error) {
	text = strings.TrimSpace(text)
	kind, rest, hasParams := strings.Cut(text, ":")
	var command string
	if settings, ok := strings.CutPrefix(text, KindCommand+"("); ok {
		// cmd(KEY=VALUE,...):COMMAND LINE
		var found bool
		rest, command, found = strings.Cut(settings, "):")
		if !found {
			return Spec{}, fmt.Errorf("player spec %q: want cmd(KEY=VALUE,...):COMMAND LINE", text)
		}
		kind, hasParams = KindCommand, true
	} else if kind == KindCommand {
		command, hasParams = rest, false
	}
	k := findKind(kind)
	if k == nil {
		return Spec{}, fmt.Errorf("player spec %q: unknown kind %q: want one of %s", text, kind, kindNames())
	}
	spec := Spec{Kind: kind, Command: strings.TrimSpace(command)}
	if hasParams {
		for _, part := range strings.Split(rest, ",") {
			key, value, ok := strings.Cut(part, "=")
			if !ok {
				return Spec{}, fmt.Errorf("player spec %q: %q: want key=value (keys of %s: %s)", text, part, kind, k.keyNames())
			}
			spec.Params = append(spec.Params, Param{Key: key, Value: value})
		}
	}
	canon, err := spec.check(k)
	if err != nil {
		return Spec{}, fmt.Errorf("player spec %q: %w", text, err)
	}
	return canon, nil
}

// validate reports whether the spec names a kind of player with valid
// settings, as ParseSpec would accept.
func (s Spec) validate() error {
	k := findKind(s.Kind)
	if k == nil {
		return fmt.Errorf("player spec %q: unknown kind %q: want one of %s", s.String(), s.Kind, kindNames())
	}
	if _, err := s.check(k); err != nil {
		return fmt.Errorf("player spec %q: %w", s.String(), err)
	}
	return nil
}

// check validates the params against kind k and returns the spec with
// canonical values.
func (s Spec) check(k *kindDef) (Spec, error) {
	out := Spec{Kind: s.Kind, Params: make([]Param, 0, len(s.Params)), Command: s.Command}
	if len(s.Params) == 0 {
		out.Params = nil
	}
	for i, p := range s.Params {
		kd := k.findKey(p.Key)
		if kd == nil {
			return Spec{}, fmt.Errorf("%s has no key %q: valid keys are %s", k.name, p.Key, k.keyNames())
		}
		for _, q := range s.Params[:i] {
			if k.findKey(q.Key) == kd {
				return Spec{}, fmt.Errorf("key %s given twice", kd.name)
			}
		}
		v, err := kd.check(p.Value)
		if fe := (*configs.FieldError)(nil); errors.As(err, &fe) {
			return Spec{}, fmt.Errorf("key %s (%s) %s", p.Key, kd.help, fe.Msg)
		} else if err != nil {
			return Spec{}, fmt.Errorf("key %s (%s): %w", p.Key, kd.help, err)
		}
		out.Params = append(out.Params, Param{Key: p.Key, Value: v})
	}
	// The settings together: an alpha-beta search needs a limit.
	var err error
	switch s.Kind {
	case KindAlphaBeta:
		err = out.alphaBetaConfig().validate()
	case KindMCTS:
		err = out.uctConfig().Validate()
	case KindCommand:
		_, err = out.commandWords()
	default:
		if s.Command != "" {
			err = fmt.Errorf("%s players take no command line: only cmd players do", s.Kind)
		}
	}
	if err != nil {
		return Spec{}, err
	}
	return out, nil
}

// lookup returns the value of a key.
func (s Spec) lookup(key string) (string, bool) {
	for _, p := range s.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// The value checks. Each returns the canonical text of a good value.

func checkPath(text string) (string, error) {
	if text == "" || strings.TrimSpace(text) != text {
		return "", errors.New("want a file path without surrounding spaces")
	}
	return text, nil
}

package arena

import (
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

// Contender is a player of a rated tournament: the entrant and the player
// spec it was built from, such as "alphabeta:depth=3". Names are unique;
// specs need not be.
type Contender struct {
	Entrant
	Spec string
}

// SpecContender returns the contender called name that spec builds, each
// game's player afresh with players.NewPlayer (load serves az specs; nil
// when there are none).
func SpecContender(name string, spec players.Spec, load players.AZLoader) Contender {
	return Contender{Spec: spec.String(), Entrant: Entrant{Name: name, New: func(seed uint64) (mcts.Player, error) {
		return players.NewPlayer(spec, seed, load)
	}}}
}

// Entrants returns the entrants of contenders, for [RoundRobin].
func Entrants(contenders []Contender) []Entrant {
	out := make([]Entrant, len(contenders))
	for i, c := range contenders {
		out[i] = c.Entrant
	}
	return out
}

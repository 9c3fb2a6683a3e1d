// Package bot reads the lines of "deathstacks bot"'s input: a FEN, or a
// FEN followed by the moves played since it, and the games they spell
// out or continue.
package bot

import (
	"fmt"
	"strings"

	"github.com/deathstacks/deathstacks/env"
)

// movesWord separates a FEN from the moves played since it in a line of the
// bot's input.
const movesWord = "moves"

// continuationPlies is how far past the last position it was given the bot
// looks for a FEN given alone: its own move and the reply.
const continuationPlies = 2

// Games is what the bot knows of the game it plays: the game of the last
// line, from which a FEN alone may continue unless it is over.
type Games struct {
	rules env.Rules
	last  *env.Game // nil before the first line, and after a bad one
}

// NewGames returns the games of a bot that plays by rules, before its
// first line.
func NewGames(rules env.Rules) *Games { return &Games{rules: rules} }

// Next returns the game of one input line, refusing a finished one: the
// game the line spells out (FEN moves ...), or for a FEN alone the last
// game continued to it if it follows within continuationPlies, else a new
// game from it.
func (b *Games) Next(line string) (*env.Game, error) {
	told, moves, err := parseGameLine(line)
	b.last, err = b.game(told, moves, err)
	if err != nil {
		return nil, err
	}
	if st := b.last.Status(); st.Over() {
		return nil, fmt.Errorf("no move: the game is over (%v)", st)
	}
	return b.last, nil
}

// game returns the game of a line told pos and moves (nil for a FEN
// alone), or err, the line's parse error.
func (b *Games) game(pos env.Position, moves []string, err error) (*env.Game, error) {
	switch {
	case err != nil:
		return nil, err
	case moves != nil:
		return env.PlayMoves(pos, b.rules, moves)
	case b.last != nil && !b.last.Status().Over():
		if path, ok := b.last.Continuation(&pos, continuationPlies); ok {
			g := b.last.Clone()
			for _, m := range path {
				if err := g.Play(m); err != nil {
					return nil, err // cannot happen: Continuation's moves are legal
				}
			}
			return g, nil
		}
	}
	return env.NewGameFrom(pos, b.rules), nil
}

// parseGameLine reads "FEN" or "FEN moves M1 M2 ...": the position and
// the texts of the moves, nil for a FEN alone (empty, not nil, for "FEN
// moves").
func parseGameLine(line string) (env.Position, []string, error) {
	fields := strings.Fields(line)
	if len(fields) <= 2 {
		pos, err := env.ParseFEN(line)
		return pos, nil, err
	}
	if fields[2] != movesWord {
		return env.Position{}, nil, fmt.Errorf("%q: want a FEN (board and side to move), optionally followed by %q and moves", line, movesWord)
	}
	pos, err := env.ParseFEN(fields[0] + " " + fields[1])
	return pos, append([]string{}, fields[3:]...), err
}

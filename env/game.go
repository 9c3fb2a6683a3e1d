package env

import (
	"errors"
	"fmt"
)

// Rules holds the options that change how a game is played and when it
// ends. The zero value is not useful: start from [DefaultRules].
type Rules struct {
	// TooTall turns on the too-tall rule: a player with a stack taller than
	// 4 must move from such a stack, leaving at most 4 pieces behind.
	TooTall bool `yaml:"too_tall"`
	// MaxPlies ends the game without a winner once this many plies have been
	// played; 0 means no limit.
	MaxPlies int `yaml:"max_plies"`
	// RepetitionLimit ends the game in a draw when a position (stacks and
	// side to move) occurs for this many times; 0 turns the rule off.
	RepetitionLimit int `yaml:"repetitions"`
}

// DefaultRules returns the rules of RULES.md: too-tall rule on, draw on the
// third occurrence of a position, and a move limit of 300 plies.
func DefaultRules() Rules {
	return Rules{TooTall: true, MaxPlies: 300, RepetitionLimit: 3}
}

// Validate reports every setting out of range, each as a [*SettingError]
// keyed by its YAML key (max_plies, repetitions), joined into one error.
func (r Rules) Validate() error { return errors.Join(r.problems("")...) }

// problems lists the settings out of range, each key after prefix.
func (r Rules) problems(prefix string) []error {
	var problems []error
	if r.MaxPlies < 0 {
		problems = append(problems, &SettingError{prefix + "max_plies", fmt.Sprintf("is %d: want 0 (no limit) or more", r.MaxPlies)})
	}
	if r.RepetitionLimit < 0 || r.RepetitionLimit == 1 {
		problems = append(problems, &SettingError{prefix + "repetitions", fmt.Sprintf("is %d: want 0 (off) or 2 or more", r.RepetitionLimit)})
	}
	return problems
}

// Status says whether a game goes on and, if not, how it ended.
type Status uint8

// The states of a game.
const (
	Ongoing        Status = iota
	RedWins               // Blue controls no stack.
	BlueWins              // Red controls no stack.
	NoStacks              // an empty board: finished, nobody wins
	DrawRepetition        // a position occurred RepetitionLimit times
	MoveLimit             // MaxPlies plies were played
)

var statusNames = [...]string{"ongoing", "red wins", "blue wins", "no stacks", "draw by repetition", "move limit"}

// String describes the status, such as "red wins".
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Over reports whether the game has ended.
func (s Status) Over() bool { return s != Ongoing }

// Winner returns the winning colour, with ok false for a game that is not
// won (ongoing or drawn).
func (s Status) Winner() (c Color, ok bool) {
	switch s {
	case RedWins:
		return Red, true
	case BlueWins:
		return Blue, true
	}
	return Red, false
}

// Truncated reports whether the game was cut off by the move limit rather
// than ended by the rules, as reinforcement-learning environments tell apart.
func (s Status) Truncated() bool { return s == MoveLimit }

// Terminated reports whether the game ended by the rules rather than being
// cut off: Gymnasium's terminated, the counterpart of [Status.Truncated].
func (s Status) Terminated() bool { return s.Over() && !s.Truncated() }

// Reward returns the reward of player c in a game with this status: +1 for
// a win, -1 for a loss and 0 for a draw or an ongoing game. It is the
// reward of [Env.Step] and [AEC] and the value target of a game played out.
func (s Status) Reward(c Color) float32 {
	if w, ok := s.Winner(); ok {
		if w == c {
			return 1
		}
		return -1
	}
	return 0
}

// ErrGameOver is returned when a move is played in a finished game.
var ErrGameOver = errors.New("the game is over")

// Game is a position with its history: it knows the rules in force, detects
// draws by repetition and the move limit, and can take moves back.
type Game struct {
	rules  Rules
	start  Position
	pos    Position
	moves  []Move
	hashes []uint64 // hashes[i] is the hash before moves[i]; the current one is pos.Hash()
	status Status
	// repeats is how many entries of hashes equal pos.Hash(): the earlier
	// occurrences of the current position.
	repeats int
}

// NewGame starts a game from the start position.
func NewGame(rules Rules) *Game { return NewGameFrom(StartPosition(), rules) }

// NewGameFrom starts a game from any position. Its ply count counts toward
// the move limit.
func NewGameFrom(p Position, rules Rules) *Game {
	g := &Game{rules: rules, start: p, pos: p}
	g.update()
	return g
}

// Rules returns the rules of the game.
func (g *Game) Rules() Rules { return g.rules }

// Position returns the current position.
func (g *Game) Position() Position { return g.pos }

// StartPosition returns the position the game started from.
func (g *Game) StartPosition() Position { return g.start }

// Moves returns the moves played so far; the caller must not change it.
func (g *Game) Moves() []Move { return g.moves }

// Status returns whether the game goes on and how it ended.
func (g *Game) Status() Status { return g.status }

// LegalMoves appends the legal moves to dst; none once the game is over.
func (g *Game) LegalMoves(dst []Move) []Move {
	if g.status.Over() {
		return dst
	}
	return g.pos.LegalMoves(dst, g.rules.TooTall)
}

// Repetitions returns how many times the current position has occurred in
// the game, counting now (1 for a new position).
func (g *Game) Repetitions() int { return g.repeats + 1 }

// CountRepetitions returns 1 plus the number of entries of history equal to
// hash: how many times a position with that hash has occurred.
func CountRepetitions(hash uint64, history []uint64) int {
	n := 1
	// Four at a time: most runs of four hold no match.
	for ; len(history) >= 4; history = history[4:] {
		if history[0] == hash || history[1] == hash || history[2] == hash || history[3] == hash {
			n += countEqual(hash, history[:4])
		}
	}
	return n + countEqual(hash, history)
}

// countEqual returns the number of entries of history equal to hash.
func countEqual(hash uint64, history []uint64) int {
	n := 0
	for _, h := range history {
		if h == hash {
			n++
		}
	}
	return n
}

// Play checks m and plays it. A move in a finished game or an illegal move
// returns an error and leaves the game unchanged.
func (g *Game) Play(m Move) error {
	if g.status.Over() {
		return fmt.Errorf("move %v: %w (%v)", m, ErrGameOver, g.status)
	}
	if err := g.pos.CheckMove(m, g.rules.TooTall); err != nil {
		return err
	}
	g.play(m)
	return nil
}

// play plays m, which must be legal in an ongoing game, without checking it.
func (g *Game) play(m Move) {
	g.hashes = append(g.hashes, g.pos.Hash())
	g.moves = append(g.moves, m)
	g.pos.Apply(m)
	g.update()
}

// Undo takes back the last move. It reports an error at the start.
func (g *Game) Undo() error {
	n := len(g.moves)
	if n == 0 {
		return errors.New("undo: no move to take back")
	}
	g.pos.undo(g.moves[n-1])
	g.moves = g.moves[:n-1]
	g.hashes = g.hashes[:n-1]
	g.update()
	return nil
}

// Clone returns an independent copy of the game.
func (g *Game) Clone() *Game {
	c := *g
	c.moves = append([]Move(nil), g.moves...)
	c.hashes = append([]uint64(nil), g.hashes...)
	return &c
}

// Continuation returns moves, at most plies of them, that lead from the
// current position to one with p's stacks and side to move (the ply count
// aside), the fewest first, and false if none do: for a caller told only
// positions, to tell the next position of this game from a position of
// another game. Of several sequences of the same length it returns the
// first in move order.
func (g *Game) Continuation(p *Position, plies int) ([]Move, bool) {
	for n := 0; n <= plies; n++ {
		if moves, ok := continuation(g.pos, p, n, g.rules.TooTall, nil); ok {
			return moves, true
		}
	}
	return nil, false
}

// continuation looks for exactly n moves from q, none finishing the game
// before the last, that reach p's position, with path the moves so far.
func continuation(q Position, p *Position, n int, tooTall bool, path []Move) ([]Move, bool) {
	if n == 0 {
		return path, q.SameAs(p)
	}
	if q.Finished() {
		return nil, false
	}
	for _, m := range q.LegalMoves(nil, tooTall) {
		next := q
		next.Apply(m)
		if moves, ok := continuation(next, p, n-1, tooTall, append(path, m)); ok {
			return moves, true
		}
	}
	return nil, false
}

// MoveError is the error of [PlayMoves] for a move that does not read or
// is not legal where it is played: its index among the moves (from 0), its
// text and why.
type MoveError struct {
	Index int
	Text  string
	Err   error
}

func (e *MoveError) Error() string { return fmt.Sprintf("move %d (%s): %v", e.Index+1, e.Text, e.Err) }

func (e *MoveError) Unwrap() error { return e.Err }

// PlayMoves starts a game at start under rules and plays moves, each in
// notation (see [ParseMove]): the one way from a position and the moves
// played since to a game, for every caller that reads them. The first
// move that does not read or is not legal stops it with a [*MoveError].
func PlayMoves(start Position, rules Rules, moves []string) (*Game, error) {
	g := NewGameFrom(start, rules)
	for i, text := range moves {
		m, err := ParseMove(text)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			return nil, &MoveError{Index: i, Text: text, Err: err}
		}
	}
	return g, nil
}

// History returns the hashes of the positions before the current one, oldest
// first; the caller must not change it.
func (g *Game) History() []uint64 { return g.hashes }

// update counts the occurrences of the current position and decides its
// status; every change of the position or the history ends with it.
func (g *Game) update() {
	g.repeats = CountRepetitions(g.pos.Hash(), g.hashes) - 1
	g.status = StatusOf(&g.pos, g.rules, g.Repetitions())
}

// StatusOf decides the status of position p under rules, given how many
// times p has occurred (see [Game.Repetitions]). A win on the board comes
// first, then the repetition draw, then the move limit.
func StatusOf(p *Position, rules Rules, repetitions int) Status {
	if p.Finished() {
		if w, ok := p.Winner(); ok {
			if w == Red {
				return RedWins
			}
			return BlueWins
		}
		return NoStacks
	}
	return DrawStatusOf(p, rules, repetitions)
}

// DrawStatusOf is [StatusOf] for a position known not to be finished on
// the board (see [Position.Finished]), which a search often knows without
// looking: the repetition draw, then the move limit, else Ongoing.
func DrawStatusOf(p *Position, rules Rules, repetitions int) Status {
	if rules.RepetitionLimit > 0 && repetitions >= rules.RepetitionLimit {
		return DrawRepetition
	}
	if rules.MaxPlies > 0 && p.Ply() >= rules.MaxPlies {
		return MoveLimit
	}
	return Ongoing
}

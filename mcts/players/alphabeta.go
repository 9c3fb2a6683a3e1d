package players

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// maxSearchPly bounds the depth of an alpha-beta search.
const maxSearchPly = 64

// maxMoves bounds the legal moves of a position: at most 8 targets for
// each of the 24 pieces a side can have on top of its stacks.
const maxMoves = 256

// winThreshold separates won and lost scores, env.WinMaterial minus the distance,
// from heuristic ones.
const winThreshold = env.WinMaterial - 1000

// AlphaBetaConfig limits an alpha-beta search by depth, time or both.
type AlphaBetaConfig struct {
	// Depth is the deepest iteration in plies (1 to 64); 0 means no depth
	// limit, for a time-limited search.
	Depth int `yaml:"depth"`
	// Time stops the search once spent, keeping the last completed
	// iteration (depth 1 always completes); 0 means no time limit.
	Time time.Duration `yaml:"time"`
}

// alphaBetaSettings lists every field of AlphaBetaConfig once, as
// mcts.Config's table does the search's: its YAML key is its key in
// "alphabeta:" player specs.
var alphaBetaSettings = configs.NewTable("alpha-beta setting", []configs.Field[AlphaBetaConfig]{
	{Setting: mcts.Setting{Help: "deepest iteration in plies (default 4; 0 for none, with a time)"},
		Ptr: func(c *AlphaBetaConfig) any { return &c.Depth }, Hi: maxSearchPly, Want: fmt.Sprintf("0 (time limit only) to %d", maxSearchPly)},
	{Setting: mcts.Setting{Help: "time limit per move, such as 500ms (alone: no depth limit)"},
		Ptr: func(c *AlphaBetaConfig) any { return &c.Time }, Hi: math.Inf(1), Want: "a duration of 0s (depth limit only) or more, such as 500ms"},
})

// validate reports every setting out of range, each as a
// [*configs.FieldError] naming its YAML key.
func (c AlphaBetaConfig) validate() error {
	var ch configs.Checker
	alphaBetaSettings.Check(&ch, c)
	ch.Check(c.Depth != 0 || c.Time != 0, "depth", "is 0 without a time: want 1 or more, or a time per move")
	return ch.Err()
}

// ttBits sets the transposition table to 2^18 entries (6 MiB).
const ttBits = 18

// Bounds of a transposition-table score.
const (
	boundExact uint8 = iota + 1
	boundLower
	boundUpper
)

// ttEntry is one transposition-table slot, keyed by the Zobrist hash.
type ttEntry struct {
	key   uint64
	score int32
	move  env.Move
	depth int8
	bound uint8
}

// AlphaBetaPlayer searches by negamax with alpha-beta pruning and iterative
// deepening, a transposition table keyed by the position hash, and move
// ordering (the table's move first, then captures of the tallest opponent
// stacks). Leaves are scored by [env.Position.Material]; a won position scores
// env.WinMaterial minus its distance in plies, so faster wins and slower losses
// are preferred. A position that already occurred in the game or on the
// search path scores as a draw (0): one repetition, not the two that the
// rules need, which keeps the search out of cycles. Equal moves at the root
// are tried in an order shuffled by the player's seed.
type AlphaBetaPlayer struct {
	cfg      AlphaBetaConfig
	rng      *rand.Rand
	tt       []ttEntry
	rules    env.Rules
	history  []uint64
	nodes    int64
	deadline time.Time
	stopped  bool
	// now is the clock the time limit reads: time.Now, or a test's.
	now   func() time.Time
	moves [maxSearchPly][maxMoves]env.Move
	order [maxSearchPly][maxMoves]int32
	pv    [maxSearchPly + 1][maxSearchPly]env.Move
	pvLen [maxSearchPly + 1]int
}

// NewAlphaBetaPlayer returns an alpha-beta player with its own seed.
func NewAlphaBetaPlayer(cfg AlphaBetaConfig, seed uint64) (*AlphaBetaPlayer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &AlphaBetaPlayer{cfg: cfg, rng: newRand(seed), tt: make([]ttEntry, 1<<ttBits), now: time.Now}, nil
}

// Choose implements [mcts.Player]. The decision has the score for the mover
// (Score, and Value squashed to (-1, 1) by tanh(score/50), +-1 for a won or
// lost game), the last completed depth, the principal variation and the
// number of positions searched. The transposition table is kept between
// calls.
func (p *AlphaBetaPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	if err := finished(g); err != nil {
		return mcts.Decision{}, err
	}
	start := p.now()
	p.rules = g.Rules()
	p.history = append(p.history[:0], g.History()...)
	p.nodes, p.stopped = 0, false
	maxDepth := p.cfg.Depth
	if maxDepth == 0 {
		maxDepth = maxSearchPly
	}
	pos := g.Position()
	var d mcts.Decision
	for depth := 1; depth <= maxDepth; depth++ {
		p.deadline = time.Time{} // depth 1 always completes
		if p.cfg.Time > 0 && depth > 1 {
			p.deadline = start.Add(p.cfg.Time)
		}
		score := p.negamax(&pos, depth, -env.WinMaterial-1, env.WinMaterial+1, 0)
		if p.stopped {
			break
		}
		d = mcts.Decision{Move: p.pv[0][0], PV: append([]env.Move(nil), p.pv[0][:p.pvLen[0]]...), Depth: depth, Score: score}
		if score >= winThreshold || score <= -winThreshold {
			break // a forced result within depth plies: deeper finds no faster one
		}
	}
	d.Nodes = p.nodes
	d.Value = math.Max(-1, math.Min(1, env.MaterialValue(d.Score)))
	return d, nil
}

// negamax returns the score of pos for its side to move, searched depth
// plies deep within the window (alpha, beta); ply is the distance from the
// root. It fills p.pv[ply] with the principal variation from pos.
func (p *AlphaBetaPlayer) negamax(pos *env.Position, depth, alpha, beta, ply int) int {
	p.nodes++
	p.pvLen[ply] = 0
	if ply > 0 && p.timeUp() {
		return 0
	}
	side := pos.SideToMove()
	if pos.Finished() {
		if w, ok := pos.Winner(); ok {
			if w == side {
				return env.WinMaterial - ply
			}
			return -(env.WinMaterial - ply)
		}
		return 0
	}
	hash := pos.Hash()
	if ply > 0 && (env.CountRepetitions(hash, p.history) > 1 || p.rules.MaxPlies > 0 && pos.Ply() >= p.rules.MaxPlies) {
		return 0
	}
	if depth == 0 || ply == maxSearchPly {
		return pos.Material(side)
	}
	e := &p.tt[hash&(1<<ttBits-1)]
	var ttMove env.Move
	if e.key == hash {
		ttMove = e.move
		if ply > 0 && int(e.depth) >= depth {
			s := scoreFromTT(int(e.score), ply)
			if e.bound == boundExact || e.bound == boundLower && s >= beta || e.bound == boundUpper && s <= alpha {
				return s
			}
		}
	}
	moves := pos.LegalMoves(p.moves[ply][:0], p.rules.TooTall)
	if ply == 0 {
		p.rng.Shuffle(len(moves), func(i, j int) { moves[i], moves[j] = moves[j], moves[i] })
	}
	order := p.order[ply][:len(moves)]
	for i, m := range moves {
		order[i] = moveOrderScore(pos, m, ttMove)
	}
	origAlpha := alpha
	best, bestMove := -env.WinMaterial-1, moves[0]
	p.history = append(p.history, hash)
	for i := range moves {
		pickBest(moves[i:], order[i:])
		child := *pos
		child.Apply(moves[i])
		score := -p.negamax(&child, depth-1, -beta, -alpha, ply+1)
		if p.stopped {
			p.history = p.history[:len(p.history)-1]
			return 0
		}
		if score > best {
			best, bestMove = score, moves[i]
			if score > alpha {
				alpha = score
				p.pv[ply][0] = bestMove
				n := copy(p.pv[ply][1:], p.pv[ply+1][:p.pvLen[ply+1]])
				p.pvLen[ply] = n + 1
			}
			if alpha >= beta {
				break
			}
		}
	}
	p.history = p.history[:len(p.history)-1]
	bound := boundExact
	switch {
	case best <= origAlpha:
		bound = boundUpper
	case best >= beta:
		bound = boundLower
	}
	*e = ttEntry{key: hash, score: int32(scoreToTT(best, ply)), move: bestMove, depth: int8(depth), bound: bound}
	return best
}

// timeUp reports, checking the clock every 1024 positions, whether the time
// limit has passed.
func (p *AlphaBetaPlayer) timeUp() bool {
	if !p.stopped && !p.deadline.IsZero() && p.nodes&1023 == 0 && p.now().After(p.deadline) {
		p.stopped = true
	}
	return p.stopped
}

// moveOrderScore ranks a move for search order: the table's move first,
// then captures by the height of the captured stack, then the rest.
func moveOrderScore(pos *env.Position, m, ttMove env.Move) int32 {
	if m == ttMove && m.Count > 0 {
		return math.MaxInt32
	}
	target := pos.At(m.To)
	if !target.Empty() && target.Top() != pos.SideToMove() {
		return 100 + int32(target.Height())
	}
	return 0
}

// pickBest swaps the move with the highest order score to the front.
func pickBest(moves []env.Move, order []int32) {
	b := 0
	for i := 1; i < len(order); i++ {
		if order[i] > order[b] {
			b = i
		}
	}
	moves[0], moves[b] = moves[b], moves[0]
	order[0], order[b] = order[b], order[0]
}

// scoreToTT stores a won or lost score as its distance from this node, so
// that it reads back right at any ply; scoreFromTT undoes it.
func scoreToTT(score, ply int) int {
	switch {
	case score >= winThreshold:
		return score + ply
	case score <= -winThreshold:
		return score - ply
	}
	return score
}

func scoreFromTT(score, ply int) int {
	switch {
	case score >= winThreshold:
		return score - ply
	case score <= -winThreshold:
		return score + ply
	}
	return score
}

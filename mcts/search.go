package mcts

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/arena"
	"github.com/deathstacks/deathstacks/mcts/internal/clock"
	"github.com/deathstacks/deathstacks/mcts/internal/dirichlet"
	"github.com/deathstacks/deathstacks/mcts/internal/gumbel"
	"github.com/deathstacks/deathstacks/mcts/internal/winsearch"
)

// search is the tree search behind the PUCT and UCT players: one tree in an
// arena of nodes, grown by simulations that select a path with virtual
// loss, gather leaves into a batch, have them evaluated together and back
// the values up. Values are always for the side to move at a node; the
// statistics a node keeps are for the player who moved into it, so each
// step of a backup flips the sign.
//
// Game ends are exact: a win, a draw by repetition (counted over the game's
// history and the path from the root) or the move limit makes a terminal
// node with result +1, -1 or 0, and so does a position whose side to move
// can win at once (a decisive move). Proven results travel up the tree
// (see prove), and the player always takes an immediate or proven win.
//
// A search is used by one goroutine at a time. Its randomness (root noise,
// move choice, rollouts) comes from its own generator, so a search with a
// fixed seed and a deterministic evaluator repeats itself exactly.
type search struct {
	// cfg holds the settings of the search under way, which run takes
	// as its argument (newSearch gives the first); vl is its VirtualLoss.
	cfg Config
	vl  float32
	// leaves evaluates the leaves of a batch; rng draws the root noise,
	// the move choice and the rollouts.
	leaves leafEvaluator
	rng    *rand.Rand
	// ucb selects children by UCB1 without priors (the UCT baseline)
	// instead of PUCT; ucbC is its exploration constant.
	ucb  bool
	ucbC float64

	tree     // the nodes and their arena
	rootGame // the game at the root: rules, moves, history, draw value
	descent  // the path of the descent under way
	timing   // the clock and simulation count of the search under way

	// pend is the batch of leaves being gathered, batch the same leaves
	// as the evaluator takes them (see flush).
	pend  pendingLeaves
	batch leafBatch

	// gumbel is the Gumbel root's state during a search (see
	// gumbelSearch).
	gumbel gumbel.Root
	// win proves forced wins at the root (see Config.WinSearchPlies).
	win winsearch.Search
}

// tree is a search's tree: its nodes and the arena it is rebuilt in. Every
// step of a search reads and grows it; prepare keeps what the moves played
// since the last search leave of it.
type tree struct {
	// nodes is the tree, root at index 0; spare is the arena the next
	// re-rooting copies the kept subtree into.
	nodes, spare arena.Arena
	// known counts the nodes evaluated or found terminal.
	known int64
}

// rootGame is the game whose position is the root: the rules, moves and
// history that decide repetitions and the move limit below it, and what
// the root adds to its priors and draws. prepare sets it for each search.
type rootGame struct {
	// hasRoot says whether nodes[0] is the root of the game recorded in
	// rules, start, played and history.
	hasRoot bool
	rules   env.Rules
	start   env.Position
	rootPos env.Position
	played  []env.Move
	history []uint64
	// inHistory has bit h%historyBits set for the hash h of every
	// position of history: most positions of a search were never played,
	// and the bit rules them out without a scan.
	inHistory [historyBits / 64]uint64
	// noised says whether the root priors already hold this root's
	// noise; noise is the scratch of its Dirichlet draw (see addNoise).
	noised bool
	noise  []float64
	// draw is what a drawn end is worth for the root's side to move (see
	// Config.Contempt); the other side counts it as -draw.
	draw float32
	// materialCap is the pieces a stack counts at most in the material
	// term of this search (Config.TowerCap), 0 for all of them.
	materialCap int
}

// descent is the scratch of the descent under way, reused to avoid
// garbage: descend fills path and pathHashes, visitLeaf the moves of the
// leaf in moveBuf.
type descent struct {
	path       []int32
	pathHashes []uint64
	moveBuf    []env.Move
}

// timing is the clock and count of one search (see timed.go): ran counts
// its simulations, clock times it, and rate is the simulations per second
// of the last search, which sizes a timed search's Gumbel root. now is the
// time the clock reads: time.Now, or a test's clock, which drives timed
// searches without the wall clock.
type timing struct {
	ran   int
	clock clock.Clock
	rate  float64
	now   func() time.Time
}

// pendingLeaves are the leaves of the batch being gathered: their nodes,
// positions and repetition counts, their paths from the root one after
// another (pathEnd[i] ends leaf i's) and their legal actions likewise
// (legalEnd).
type pendingLeaves struct {
	nodes []int32
	pos   []env.Position
	reps  []int
	// canDraw says the side to move at the leaf can draw at once, with
	// contempt (see newChildren).
	canDraw  []bool
	paths    []int32
	pathEnd  []int
	actions  []env.Action
	legalEnd []int
	priors   []float32
}

func (p *pendingLeaves) reset() {
	p.nodes, p.pos, p.reps, p.canDraw = p.nodes[:0], p.pos[:0], p.reps[:0], p.canDraw[:0]
	p.paths, p.pathEnd = p.paths[:0], p.pathEnd[:0]
	p.actions, p.legalEnd = p.actions[:0], p.legalEnd[:0]
}

// span returns the bounds of entry i in a list of ends.
func span(ends []int, i int) (lo, hi int) {
	if i > 0 {
		lo = ends[i-1]
	}
	return lo, ends[i]
}

// leafBatch is what a search hands to its leaf evaluator.
type leafBatch struct {
	rules  env.Rules
	pos    []env.Position
	reps   []int
	legal  [][]env.Action
	priors [][]float32
	values []float32
}

// leafEvaluator fills the priors and values of a batch of leaves.
type leafEvaluator interface {
	evaluate(b *leafBatch) error
}

// networkLeaves evaluates leaves with an [Evaluator], from their
// observations.
type networkLeaves struct {
	eval Evaluator
	obs  []float32
}

func (e *networkLeaves) evaluate(b *leafBatch) error {
	size := env.ObservationSize
	e.obs = slices.Grow(e.obs[:0], len(b.pos)*size)[:len(b.pos)*size]
	for i := range b.pos {
		env.EncodeObservation(e.obs[i*size:(i+1)*size], &b.pos[i], b.rules, b.reps[i])
	}
	return e.eval.Evaluate(e.obs, b.legal, b.priors, b.values)
}

// newSearch returns a search with a validated config.
func newSearch(cfg Config, leaves leafEvaluator, rng *rand.Rand) *search {
	return &search{cfg: cfg, leaves: leaves, vl: float32(cfg.VirtualLoss), rng: rng, timing: timing{now: time.Now}}
}

// reset drops the tree.
func (s *search) reset() { s.hasRoot = false }

// run searches the current position of g with the settings cfg (their
// Simulations simulations, or for their Time) and returns the decision,
// with the move chosen at temperature temp.
func (s *search) run(g *env.Game, cfg Config, temp float64) (Decision, error) {
	s.cfg, s.vl = cfg, float32(cfg.VirtualLoss)
	s.clock = clock.Start(s.cfg.Time, s.now)
	if err := s.prepare(g); err != nil {
		return Decision{}, err
	}
	if s.nodes.At(0).State == arena.Unexplored {
		// The root's own evaluation is not one of the simulations, so the
		// root's visit counts add up to the simulations run.
		if err := s.simulate(1, nil); err != nil {
			return Decision{}, err
		}
	}
	s.ran = 0
	if d, ok := s.provenWin(); ok {
		return d, nil
	}
	if s.cfg.Gumbel {
		chosen, err := s.gumbelSearch(temp)
		if err != nil {
			return Decision{}, err
		}
		s.measureRate()
		return s.decision(chosen, s.gumbel.ImprovedPolicy(s.nodes.At(0), s.rootChildren(), s.sigma())), nil
	}
	if s.cfg.DirichletEpsilon > 0 && !s.noised {
		s.addNoise()
	}
	s.noised = true
	if err := s.simulate(s.simulationLimit(), s.puctStop(temp)); err != nil {
		return Decision{}, err
	}
	s.measureRate()
	return s.decide(temp), nil
}

// prepare makes nodes[0] the node of g's current position: the node of the
// previous search's tree that the moves played since lead to, when the tree
// can be reused, or else a fresh root.
func (s *search) prepare(g *env.Game) error {
	if st := g.Status(); st.Over() {
		return fmt.Errorf("search: the game is over (%v)", st)
	}
	moves, start := g.Moves(), g.StartPosition()
	root := int32(-1)
	if s.hasRoot && s.cfg.ReuseTree && g.Rules() == s.rules && start == s.start &&
		len(moves) >= len(s.played) && slices.Equal(moves[:len(s.played)], s.played) {
		root = s.walk(moves[len(s.played):])
	}
	if root > 0 && !hasChildren(s.nodes.At(root)) {
		// A decisive move or a node never evaluated: start afresh, as a
		// root must be expanded.
		root = -1
	}
	switch {
	case root < 0:
		s.nodes.Restart(arena.Node{})
		s.known = 0
		s.noised = false
	case root > 0:
		s.reroot(root)
		s.noised = false
		// A proven node keeps the children that prove it: as the root
		// it is searched again, and its proven win is played at once.
		s.nodes.At(0).State = arena.Expanded
	}
	s.rules, s.start, s.rootPos = g.Rules(), start, g.Position()
	s.draw = drawValue(s.cfg.Contempt, s.cfg.DrawCost, s.rootPos.Material(s.rootPos.SideToMove()))
	s.materialCap = 0
	if c := s.cfg.TowerCap; c > 0 && tallest(&s.rootPos) > c {
		s.materialCap = c
	}
	s.played = append(s.played[:0], moves...)
	s.history = append(s.history[:0], g.History()...)
	clear(s.inHistory[:])
	for _, h := range s.history {
		s.inHistory[h%historyBits/64] |= 1 << (h % 64)
	}
	s.hasRoot = true
	return nil
}

// walk follows moves down from the root and returns the node reached, or -1
// when a move leaves the explored tree.
func (s *search) walk(moves []env.Move) int32 {
	i := int32(0)
	for _, m := range moves {
		nd := s.nodes.At(i)
		if !hasChildren(nd) {
			return -1
		}
		next := int32(-1)
		for c := nd.First; c < nd.First+int32(nd.Count); c++ {
			if s.nodes.At(c).Move == m {
				next = c
				break
			}
		}
		if next < 0 {
			return -1
		}
		i = next
	}
	return i
}

// reroot copies the subtree of node r into the spare arena, r becoming the
// root, and swaps the arenas.
func (s *search) reroot(r int32) {
	s.spare.Restart(*s.nodes.At(r))
	s.known = 0
	s.copySubtree(0)
	s.nodes, s.spare = s.spare, s.nodes
}

// copySubtree copies the descendants of node i of the spare arena, whose
// first field still holds the index of its children in s.nodes.
func (s *search) copySubtree(i int32) {
	nd := s.spare.At(i)
	if nd.State == arena.Terminal || nd.State == arena.Expanded {
		s.known++
	}
	if !hasChildren(nd) {
		return
	}
	src := s.nodes.Children(nd)
	first := s.spare.Alloc(len(src))
	nd.First = first
	copy(s.spare.Children(nd), src)
	for c := range int32(len(src)) {
		s.copySubtree(first + c)
	}
}

// hasChildren reports whether nd has children with priors: it is expanded,
// or it was and has since been proven (see prove).
func hasChildren(nd *arena.Node) bool {
	return nd.State == arena.Expanded || nd.State == arena.Terminal && nd.Count > 0
}

// simulate runs n simulations in batches, or fewer if stop, when not nil,
// says so after a batch. s.ran counts them.
func (s *search) simulate(n int, stop func() bool) error {
	ran := s.ran
	for done := 0; done < n; {
		s.pend.reset()
		// Simulations that end without the evaluator (terminal or proven
		// nodes) count towards the batch too: once the tree is all
		// proven, a search without a simulation limit must still come
		// back to check its clock.
		collisions, settled := 0, 0
		for len(s.pend.nodes)+settled < s.cfg.BatchSize && done+len(s.pend.nodes) < n && collisions <= s.cfg.BatchSize {
			leaf, pos := s.descend()
			switch nd := s.nodes.At(leaf); nd.State {
			case arena.Terminal:
				s.backup(s.path, s.endValue(nd.Result))
				done++
				settled++
			case arena.Pending:
				// Another leaf of this batch is already waiting here.
				s.undoVirtualLoss(s.path)
				s.unassign(s.path)
				collisions++
			default:
				queued, err := s.visitLeaf(leaf, &pos)
				if err != nil {
					s.reset()
					return err
				}
				if !queued {
					done++
					settled++
				}
			}
		}
		if len(s.pend.nodes) > 0 {
			if err := s.flush(); err != nil {
				s.reset()
				return err
			}
			done += len(s.pend.nodes)
		}
		s.ran = ran + done
		if stop != nil && stop() {
			break
		}
	}
	return nil
}

// descend walks from the root to a node that is not expanded, adding a
// virtual loss to every node on the way, and returns it with its position.
// s.path holds the nodes, s.pathHashes the hashes of the positions before
// the leaf.
func (s *search) descend() (int32, env.Position) {
	s.path, s.pathHashes = s.path[:0], s.pathHashes[:0]
	pos := s.rootPos
	i := int32(0)
	for {
		nd := s.nodes.At(i)
		nd.Inflight++
		s.path = append(s.path, i)
		if nd.State != arena.Expanded {
			return i, pos
		}
		s.pathHashes = append(s.pathHashes, pos.Hash())
		switch {
		case i == 0 && s.gumbel.Forced:
			i = s.nodes.At(0).First + s.gumbel.Select()
		case s.ucb:
			i = s.selectUCB(i)
		default:
			i = s.selectPUCT(i)
		}
		pos.Apply(s.nodes.At(i).Move)
	}
}

// visitLeaf settles a node reached for the first time: a decisive
// position becomes a terminal node and is backed up at once (queued
// false); otherwise its children are created and it joins the batch.
// A node whose game is over is terminal from its creation (see
// newChildren), so a leaf here is a game that goes on.
func (s *search) visitLeaf(leaf int32, pos *env.Position) (queued bool, err error) {
	_, canWin := winsearch.WinningMove(pos, s.rules.TooTall)
	if canWin && leaf != 0 {
		// A decisive move: the side to move wins at once, so the node's
		// value is exact without expanding it. (The root is always
		// expanded, to have moves to choose from.)
		s.settle(leaf, 1)
		return false, nil
	}
	s.moveBuf = pos.LegalMoves(s.moveBuf[:0], s.rules.TooTall)
	reps, _ := s.repetitions(pos.Hash())
	s.pathHashes = append(s.pathHashes, pos.Hash())
	canDraw, err := s.newChildren(leaf, pos, canWin)
	if err != nil {
		return false, err
	}
	p := &s.pend
	p.nodes = append(p.nodes, leaf)
	p.paths = append(p.paths, s.path...)
	p.pathEnd = append(p.pathEnd, len(p.paths))
	p.legalEnd = append(p.legalEnd, len(p.actions))
	p.pos = append(p.pos, *pos)
	p.reps = append(p.reps, reps)
	p.canDraw = append(p.canDraw, canDraw)
	return true, nil
}

// newChildren creates the children of leaf, one for each move of
// s.moveBuf, and queues their actions for the evaluator's priors. A child
// whose game is over (won, drawn by repetition, at the move limit) is
// terminal from the start, with its exact result: selection then counts it
// at its true value even before its first visit, so a drawing reply with a
// tiny prior is not overlooked behind the first-play value. With contempt
// a child that repeats a position on the path is the draw its cycle leads
// to (whoever came back can come back again). s.pathHashes must end with
// the leaf's own position; canWin says whether the side to move has a
// winning move (see winsearch.WinningMove), without which no child is finished on
// the board. canDraw reports, with contempt, whether the side to move at
// the leaf has a drawing move.
func (s *search) newChildren(leaf int32, pos *env.Position, canWin bool) (canDraw bool, err error) {
	n := len(s.moveBuf)
	if n > arena.BlockSize {
		return false, fmt.Errorf("search: %d legal moves: more than a node's %d children", n, arena.BlockSize)
	}
	first := s.nodes.Alloc(n)
	nd := s.nodes.At(leaf)
	nd.First, nd.Count = first, uint16(n)
	children := s.nodes.Children(nd)
	for i, m := range s.moveBuf {
		a, err := env.ActionOf(m)
		if err != nil {
			return false, fmt.Errorf("search: legal move without an action: %w", err)
		}
		children[i] = arena.Node{Move: m, Action: int32(a)}
		s.pend.actions = append(s.pend.actions, a)
		next := *pos
		next.Apply(m)
		if result, over := s.outcome(&next, canWin); over {
			children[i].State, children[i].Result = arena.Terminal, result
			s.known++
			canDraw = canDraw || result == 0
		}
	}
	nd.State = arena.Pending
	return canDraw && s.scoresDraws(), nil
}

// outcome returns the exact result of pos for its side to move when the
// search ends there: the game is over by the rules (counting the game's
// history and the path, s.pathHashes, before pos), or, with contempt, pos
// repeats a position of the path. Unless mayBeWon, pos is known not to be
// finished on the board.
func (s *search) outcome(pos *env.Position, mayBeWon bool) (result int8, over bool) {
	reps, onPath := s.repetitions(pos.Hash())
	st := env.DrawStatusOf(pos, s.rules, reps)
	if mayBeWon {
		st = env.StatusOf(pos, s.rules, reps)
	}
	if st.Over() {
		return terminalValue(st, pos.SideToMove()), true
	}
	if onPath > 0 && s.scoresDraws() && s.rules.RepetitionLimit > 0 {
		return 0, true
	}
	return 0, false
}

// repetitions returns how many times the position with hash h occurs in
// the game's history and on the path (s.pathHashes), counting itself, and
// how many of those are on the path.
func (s *search) repetitions(h uint64) (reps, onPath int) {
	onPath = env.CountRepetitions(h, s.pathHashes) - 1
	if s.inHistory[h%historyBits/64]&(1<<(h%64)) == 0 {
		return 1 + onPath, onPath
	}
	return env.CountRepetitions(h, s.history) + onPath, onPath
}

// historyBits is the size of the history's bit filter (see
// search.inHistory): a few hundred plies of a game leave most bits clear.
const historyBits = 4096

// settle makes leaf a terminal node with the exact result v (-1, 0 or 1)
// for its side to move and backs its value up the current path.
func (s *search) settle(leaf int32, v int8) {
	nd := s.nodes.At(leaf)
	nd.State, nd.Result = arena.Terminal, v
	s.known++
	s.prove(s.path)
	s.backup(s.path, s.endValue(v))
}

// endValue is the value of a terminal node with result v, at the end of
// the current path, for its side to move: v for a win or a loss; for a
// draw, the root side's draw value when that side is to move there (an
// even number of plies below the root), else its opposite.
func (s *search) endValue(v int8) float32 { return s.resultValue(v, len(s.path)) }

// resultValue is what the exact result v of a node at the end of a path of
// n nodes from the root is worth to its side to move: v for a win or a
// loss, the draw's value for that side for a draw.
func (s *search) resultValue(v int8, n int) float32 {
	if v != 0 {
		return float32(v)
	}
	return s.drawAt(n)
}

// drawAt is what a draw is worth to the side to move at the end of a path
// of n nodes from the root: the root side's draw value when that side is
// to move there (n odd), else its opposite.
func (s *search) drawAt(n int) float32 {
	if n%2 == 1 {
		return s.draw
	}
	return -s.draw
}

// contemptScale is the material lead at which a draw costs the side ahead
// tanh(1), about 0.76, of Contempt: six pieces more under control.
const contemptScale = 60

// drawValue is what a draw is worth to a side whose material lead is lead,
// with contempt k and draw cost c: -(c + k*tanh(lead/60)) when it is
// ahead, -c when it is not, within [-1, 0]. A side behind in material
// gains nothing by a draw: material is not the outcome, and a player
// whose search sees it winning from behind must not trade that for a
// repetition.
func drawValue(k, c float64, lead int) float32 {
	return float32(max(-1, -(c + k*math.Tanh(float64(max(0, lead))/contemptScale))))
}

// scoresDraws reports whether the search scores draws other than 0 (and
// so cycles on its path and immediate drawing moves as draws).
func (s *search) scoresDraws() bool { return s.cfg.Contempt > 0 || s.cfg.DrawCost > 0 }

// prove carries a new exact result at the end of path up the tree, as an
// MCTS solver does for wins and losses: a node with a child lost for that
// child's mover is won for its own mover, and a node whose children are
// all won for their movers is lost. Such a node becomes terminal, so later
// simulations stop there and back up the exact result. The root stays
// expanded, as it must offer moves; see winningChild.
func (s *search) prove(path []int32) {
	for j := len(path) - 1; j >= 2; j-- {
		child, p := s.nodes.At(path[j]), s.nodes.At(path[j-1])
		switch {
		case child.Result == -1:
			p.Result = 1
		case child.Result == 1 && s.allChildrenWon(p):
			p.Result = -1
		default:
			return
		}
		p.State = arena.Terminal
	}
}

// allChildrenWon reports whether every child of p is terminal and won for
// its side to move.
func (s *search) allChildrenWon(p *arena.Node) bool {
	for _, ch := range s.nodes.Children(p) {
		if ch.State != arena.Terminal || ch.Result != 1 {
			return false
		}
	}
	return true
}

// terminalValue is the exact outcome of a finished game for the side to
// move.
func terminalValue(st env.Status, side env.Color) int8 {
	if w, ok := st.Winner(); ok {
		if w == side {
			return 1
		}
		return -1
	}
	return 0
}

// flush evaluates the pending leaves, gives their children priors and backs
// their values up.
func (s *search) flush() error {
	p, b := &s.pend, &s.batch
	n := len(p.nodes)
	p.priors = slices.Grow(p.priors[:0], len(p.actions))[:len(p.actions)]
	b.rules, b.pos, b.reps = s.rules, p.pos, p.reps
	b.legal, b.priors = b.legal[:0], b.priors[:0]
	for i := 0; i < n; i++ {
		lo, hi := span(p.legalEnd, i)
		b.legal = append(b.legal, p.actions[lo:hi:hi])
		b.priors = append(b.priors, p.priors[lo:hi:hi])
	}
	b.values = slices.Grow(b.values[:0], n)[:n]
	if err := s.leaves.evaluate(b); err != nil {
		return fmt.Errorf("search: evaluate %d positions: %w", n, err)
	}
	for i, leaf := range p.nodes {
		v := b.values[i]
		if !ValidValue(v) {
			return fmt.Errorf("search: evaluator value %v: want a number in [-1, 1]", v)
		}
		nd := s.nodes.At(leaf)
		if err := setPriors(s.nodes.Children(nd), b.priors[i]); err != nil {
			return err
		}
		nd.State = arena.Expanded
		s.known++
		lo, hi := span(p.pathEnd, i)
		if m := float32(s.cfg.MaterialUtility); m > 0 {
			v = (1-m)*v + m*materialShare(&p.pos[i], s.materialCap)
		}
		if p.canDraw[i] {
			v = max(v, s.drawAt(hi-lo))
		}
		s.backup(p.paths[lo:hi], v)
	}
	return nil
}

// materialShare is the side to move's material lead in pos over all the
// material on the board (see env.Position.Material), in (-1, 1) for a game
// that goes on: the material term of Config.MaterialUtility. With
// maxPieces above 0 each stack counts at most that many pieces, in the
// lead and the total alike (env.Position.MaterialUpTo).
func materialShare(pos *env.Position, maxPieces int) float32 {
	if maxPieces > 0 {
		total := 0
		for sq := range env.Square(env.NumSquares) {
			if h := pos.At(sq).Height(); h > 0 {
				total += env.PieceMaterial*min(h, maxPieces) + env.StackMaterial
			}
		}
		return float32(pos.MaterialUpTo(pos.SideToMove(), maxPieces)) / float32(total)
	}
	red, blue := pos.Controlled(env.Red), pos.Controlled(env.Blue)
	total := env.PieceMaterial*(pos.Pieces(env.Red)+pos.Pieces(env.Blue)) +
		env.StackMaterial*bits.OnesCount64(red|blue)
	return float32(pos.Material(pos.SideToMove())) / float32(total)
}

// tallest returns the height of the tallest stack of pos.
func tallest(pos *env.Position) int {
	h := 0
	for sq := range env.Square(env.NumSquares) {
		h = max(h, pos.At(sq).Height())
	}
	return h
}

// setPriors copies an evaluator's priors into children, normalised so that
// they sum to 1.
func setPriors(children []arena.Node, priors []float32) error {
	if len(priors) != len(children) {
		return fmt.Errorf("search: evaluator gave %d priors for %d legal moves", len(priors), len(children))
	}
	var sum float32
	for _, pr := range priors {
		if !(pr >= 0 && pr <= math.MaxFloat32) {
			return fmt.Errorf("search: evaluator prior %v: want a finite number >= 0", pr)
		}
		sum += pr
	}
	if !(sum > 0) || math.IsInf(float64(sum), 0) {
		return fmt.Errorf("search: evaluator priors sum to %v: want a positive sum", sum)
	}
	for i := range children {
		children[i].Prior = priors[i] / sum
	}
	return nil
}

// backup adds the outcome v, for the side to move at the last node of
// path, to every node of the path and removes the path's virtual loss.
func (s *search) backup(path []int32, v float32) {
	for j := len(path) - 1; j >= 0; j-- {
		nd := s.nodes.At(path[j])
		nd.N++
		nd.W -= v // for the player who moved into the node
		nd.Inflight--
		v = -v
	}
}

// undoVirtualLoss removes a path's virtual loss without a visit.
func (s *search) undoVirtualLoss(path []int32) {
	for _, i := range path {
		s.nodes.At(i).Inflight--
	}
}

// selectPUCT returns the child of node pi with the highest
// Q + c * P * sqrt(N) / (1 + n), counting each simulation in flight as
// VirtualLoss lost visits. Unvisited children share the first-play value,
// so the best of them is the one with the highest prior; one pass finds it
// and the best visited child together.
func (s *search) selectPUCT(pi int32) int32 {
	p := s.nodes.At(pi)
	vl := s.vl
	parentN := float64(p.N) + float64(vl)*float64(p.Inflight-1)
	c := s.cfg.CPuct
	if s.cfg.CPuctBase > 0 {
		c += math.Log((1 + parentN + s.cfg.CPuctBase) / s.cfg.CPuctBase)
	}
	factor := float32(c * math.Sqrt(parentN))
	children := s.nodes.Children(p)
	best, bestScore := -1, float32(math.Inf(-1))
	unvisited, unvisitedPrior := -1, float32(-1)
	var visitedMass float32
	for i := range children {
		ch := &children[i]
		virtual := vl * float32(ch.Inflight)
		nEff := float32(ch.N) + virtual
		if nEff == 0 && ch.State == arena.Terminal {
			// Known without a visit: its exact value, not the first-play
			// value. The child ends a path one node longer than the
			// parent's.
			if score := -s.resultValue(ch.Result, len(s.path)+1) + factor*ch.Prior; score > bestScore {
				best, bestScore = i, score
			}
			continue
		}
		if nEff == 0 {
			if ch.Prior > unvisitedPrior {
				unvisited, unvisitedPrior = i, ch.Prior
			}
			continue
		}
		visitedMass += ch.Prior
		score := (ch.W-virtual)/nEff + factor*ch.Prior/(1+nEff)
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if unvisited >= 0 {
		var parentQ float32
		if p.N > 0 {
			parentQ = -p.W / float32(p.N)
		}
		fpu := parentQ - float32(s.cfg.FPUReduction)*float32(math.Sqrt(float64(visitedMass)))
		if fpu+factor*unvisitedPrior > bestScore {
			best = unvisited
		}
	}
	return p.First + int32(best)
}

// selectUCB returns the first unvisited child of node pi or else the child
// with the highest UCB1 score Q + c * sqrt(ln N / n).
func (s *search) selectUCB(pi int32) int32 {
	p := s.nodes.At(pi)
	vl := s.vl
	logN := math.Log(float64(p.N) + float64(vl)*float64(p.Inflight-1))
	children := s.nodes.Children(p)
	best, bestScore := 0, math.Inf(-1)
	for i := range children {
		ch := &children[i]
		virtual := vl * float32(ch.Inflight)
		nEff := float64(float32(ch.N) + virtual)
		if nEff == 0 {
			return p.First + int32(i)
		}
		score := float64(ch.W-virtual)/nEff + s.ucbC*math.Sqrt(logN/nEff)
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return p.First + int32(best)
}

// addNoise mixes Dirichlet noise into the priors of the root's children.
func (s *search) addNoise() {
	root := s.nodes.At(0)
	children := s.nodes.Children(root)
	s.noise = dirichlet.Sample(s.rng, s.cfg.DirichletAlpha, s.noise[:0], len(children))
	eps := s.cfg.DirichletEpsilon
	for i := range children {
		children[i].Prior = float32((1-eps)*float64(children[i].Prior) + eps*s.noise[i])
	}
}

// rootChildren returns the children of the root.
func (s *search) rootChildren() []arena.Node {
	root := s.nodes.At(0)
	return s.nodes.Children(root)
}

// decide builds the decision of a PUCT root: the move drawn at
// temperature temp from the root visits (the most visited for 0), with the
// visit shares as the training target.
func (s *search) decide(temp float64) Decision {
	children := s.rootChildren()
	chosen := s.mostVisited(0)
	if temp > 0 {
		chosen = s.nodes.At(0).First + int32(s.sample(children, temp))
	}
	var total float32
	for _, ch := range children {
		total += float32(ch.N)
	}
	target := make(map[env.Action]float32, len(children))
	for _, ch := range children {
		target[env.Action(ch.Action)] = float32(ch.N) / total
	}
	return s.decision(chosen, target)
}

// decision reports a search: the chosen root child (or a winning one: an
// immediate or proven win is always taken, faster than any other, whatever
// the search says), the root value, the visits, the training target and
// the principal variation.
func (s *search) decision(chosen int32, target map[env.Action]float32) Decision {
	root := s.nodes.At(0)
	children := s.rootChildren()
	if win := s.winningChild(); win >= 0 {
		chosen = win
	}
	d := Decision{
		Move:        s.nodes.At(chosen).Move,
		Value:       float64(-root.W / float32(root.N)),
		Simulations: s.ran,
		Visits:      make(map[env.Action]int, len(children)),
		Target:      target,
		Nodes:       s.known,
	}
	for _, ch := range children {
		d.Visits[env.Action(ch.Action)] = int(ch.N)
	}
	d.PV = s.line(chosen)
	return d
}

// line returns the principal variation from node i: its move, then the
// most visited child's while the node is expanded and visited more than
// once.
func (s *search) line(i int32) []env.Move {
	var pv []env.Move
	for ; ; i = s.mostVisited(i) {
		pv = append(pv, s.nodes.At(i).Move)
		if nd := s.nodes.At(i); nd.State != arena.Expanded || nd.N < 2 {
			return pv
		}
	}
}

// winningChild returns a child of the root that wins the game at once or
// is proven won (see prove), or -1: the player always takes an immediate
// win, searched or not, and a proven one.
func (s *search) winningChild() int32 {
	root := s.nodes.At(0)
	win, canWin := winsearch.WinningMove(&s.rootPos, s.rules.TooTall)
	proven := int32(-1)
	for c := root.First; c < root.First+int32(root.Count); c++ {
		switch nd := s.nodes.At(c); {
		case canWin && nd.Move == win:
			return c
		case proven < 0 && nd.State == arena.Terminal && nd.Result == -1:
			proven = c
		}
	}
	return proven
}

// mostVisited returns the child of expanded node pi with the most visits,
// ties going to the higher value and then to the first.
func (s *search) mostVisited(pi int32) int32 {
	p := s.nodes.At(pi)
	best := p.First
	for c := p.First + 1; c < p.First+int32(p.Count); c++ {
		a, b := s.nodes.At(c), s.nodes.At(best)
		if a.N > b.N || (a.N == b.N && a.N > 0 && a.W/float32(a.N) > b.W/float32(b.N)) {
			best = c
		}
	}
	return best
}

// sample draws a child index with probability proportional to
// visits^(1/temp).
func (s *search) sample(children []arena.Node, temp float64) int {
	var maxN int32
	for _, ch := range children {
		maxN = max(maxN, ch.N)
	}
	weight := func(n int32) float64 {
		if n == 0 {
			return 0
		}
		return math.Pow(float64(n)/float64(maxN), 1/temp)
	}
	var total float64
	for _, ch := range children {
		total += weight(ch.N)
	}
	x := s.rng.Float64() * total
	last := 0
	for i, ch := range children {
		w := weight(ch.N)
		if w == 0 {
			continue
		}
		last = i
		if x < w {
			return i
		}
		x -= w
	}
	return last // rounding left x just above the total
}

// ValidValue is the one rule for a leaf's value: finite, in [-1, 1], the
// range of the network's value head and what every [Evaluator] promises.
// A value out of range is its evaluator's error, never clamped.
func ValidValue(v float32) bool { return v >= -1 && v <= 1 }

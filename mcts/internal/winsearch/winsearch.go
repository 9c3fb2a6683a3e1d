// Package winsearch proves forced wins of the side to move by an exact
// AND/OR search (a [Search]) and finds a move that wins at once
// ([WinningMove]). Package mcts runs it at the root of a search: the
// network's value is near +1 in every won endgame, so the tree alone
// shuffles there.
package winsearch

import (
	"math/bits"
	"slices"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/internal/clock"
)

// Search proves forced wins of the side to move (the attacker) by an
// exact depth-first AND/OR search: at the attacker's nodes one move must
// win, at the defender's every reply must lose. Iterative deepening over
// 1, 3, 5, ... plies finds a shortest win first. It is what the tree
// search lacks in a won endgame: the network's value is near +1 for every
// move there, so visits alone do not tell the move that wins in seven
// plies from one that shuffles, and the tree's own solver proves only
// what its visits reach.
//
// The search is cheap where it matters: a move captures at most one of
// the defender's stacks, so a defender with more stacks than the
// attacker's moves left is not searched, nor an attacking move that
// leaves it more than the moves after that can take; a defender's reply
// that escapes so, with one stack too many, is looked for before any
// reply is searched; a defender's refutation of one attacking move
// usually refutes the next (tried first, as a killer move); and a
// transposition table keeps what is proven or refuted within one call.
// A position that occurred before, in the game or on the line searched,
// ends the line as a failed attack (the defender may take the
// repetition), and a line may not cross the move limit, so a win it
// reports is a win by the rules. A node budget bounds the work, so the
// search costs the same on any machine; a search cut short by it proves
// nothing.
type Search struct {
	rules env.Rules
	// line holds the hashes of the game's history and of the positions
	// of the line searched; seen counts them by their hash modulo
	// seenSlots, which rules most positions out without a scan.
	line []uint64
	seen [seenSlots]uint16
	// nodes counts the positions searched in this call, budget bounds
	// them; stopped says the budget ran out.
	nodes, budget int64
	stopped       bool
	// clock, when timed, stops the search too: a timed tree search gives
	// it a share of its time.
	clock clock.Clock
	tt    []winEntry
	gen   uint8 // this call's winEntry.gen
	// moves is the move list of each ply; killer the defender's last
	// refutation at each ply.
	moves  [MaxPlies + 1][]env.Move
	killer [MaxPlies + 1]env.Move
	// captureBuf is attacks' scratch list.
	captureBuf []env.Move
	// first is the winning move at ply 0 of the last attack that won: the
	// table may have lost the root's entry to another position by then.
	first env.Move
}

// seenSlots is the size of Search.seen: a game's history and a line of a
// few hundred positions leave most slots at 0.
const seenSlots = 4096

// MaxPlies is the deepest win a search looks for.
const MaxPlies = 15

// The win search's table has 2^winTTMinBits to 2^winTTMaxBits entries
// (16 KiB to 1 MiB), sized by winTTSize.
const (
	winTTMinBits = 10
	winTTMaxBits = 16
)

// winTTSize returns the entries of a table for a search of budget
// positions: about one position in eight is stored (the nodes one or two
// plies from a line's end, most of them, are not), so that a small
// budget's entries fill a small table. Many searches run at once, each
// with its own table (a vector environment's opponents, self-play's
// games): a table much larger than a search's entries spreads its probes
// over as many cache lines, which miss the cache.
func winTTSize(budget int64) int {
	b := bits.Len64(uint64(max(budget, 0) / 8))
	return 1 << min(max(b, winTTMinBits), winTTMaxBits)
}

// winEntry is what one call of a win search knows of a position: the
// attacker wins within win plies (0: not known), or does not within fail
// plies; move is the attacker's winning move or the defender's refutation.
type winEntry struct {
	key       uint64
	move      env.Move
	win, fail int8
	// gen is the call that wrote the entry: those of earlier calls are
	// stale, so the table need not be cleared for each call.
	gen uint8
}

// Find returns a shortest forced win of the side to move of pos within
// maxPlies plies: its length in plies and its line of moves (the
// attacker's moves and the defender's longest resistance; shorter than
// the win only if the budget ran out while it was drawn). It returns 0
// plies when there is no such win or the budget of positions ran out
// first (or the time of c, when timed, ran out). history holds the
// hashes of the positions played before pos. It returns the positions
// searched too.
func (w *Search) Find(pos *env.Position, rules env.Rules, history []uint64, maxPlies int, budget int64, c clock.Clock) (line []env.Move, plies int, nodes int64) {
	if w.moves[0] == nil {
		for i := range w.moves {
			w.moves[i] = make([]env.Move, 0, 256)
		}
	}
	if n := winTTSize(budget); len(w.tt) < n {
		w.tt = make([]winEntry, n) // its entries' gen 0 is no call's
	}
	if w.gen++; w.gen == 0 { // wrapped: stale entries could pass as new
		clear(w.tt)
		w.gen = 1
	}
	w.rules, w.nodes, w.budget, w.stopped, w.clock = rules, 0, budget, false, c
	w.line = w.line[:0]
	clear(w.seen[:])
	clear(w.killer[:])
	for _, h := range history {
		w.push(h)
	}
	maxPlies = min(maxPlies, MaxPlies)
	if rules.MaxPlies > 0 {
		maxPlies = min(maxPlies, rules.MaxPlies-pos.Ply())
	}
	if d := w.shortest(pos, maxPlies); d > 0 {
		first := w.first
		w.budget += budget // the line's own searches
		line := w.principal(pos, d)
		if len(line) == 0 {
			// The line's searches ran out of positions: the proven move
			// is still known.
			line = []env.Move{first}
		}
		return line, d, w.nodes
	}
	return nil, 0, w.nodes
}

// repeated reports whether the position with hash h occurred before, in
// the game or on the line.
func (w *Search) repeated(h uint64) bool {
	return w.seen[h%seenSlots] != 0 && slices.Contains(w.line, h)
}

// push adds a position to the line; pop takes the last one off again.
func (w *Search) push(h uint64) {
	w.line = append(w.line, h)
	w.seen[h%seenSlots]++
}

func (w *Search) pop() {
	h := w.line[len(w.line)-1]
	w.line = w.line[:len(w.line)-1]
	w.seen[h%seenSlots]--
}

// spend counts a position and reports whether the budget allows it.
func (w *Search) spend() bool {
	w.nodes++
	if w.nodes > w.budget || w.nodes&1023 == 0 && w.clock.Expired() {
		w.stopped = true
	}
	return !w.stopped
}

func (w *Search) entry(h uint64) *winEntry { return &w.tt[h&uint64(len(w.tt)-1)] }

// holds reports whether e is this call's entry of the position with hash h.
func (w *Search) holds(e *winEntry, h uint64) bool { return e.key == h && e.gen == w.gen }

// probe looks the position with hash h up for a search of d plies: known
// says the table decides it, won whether the attacker wins within d
// plies; move is the entry's move (a win's, or a refutation), to try
// first.
func (w *Search) probe(h uint64, d int) (known, won bool, move env.Move) {
	e := w.entry(h)
	if !w.holds(e, h) {
		return false, false, env.Move{}
	}
	switch {
	case e.win > 0 && int(e.win) <= d:
		return true, true, e.move
	case int(e.fail) >= d:
		return true, false, e.move
	}
	return false, false, e.move
}

// legal generates the legal moves of pos into the list of ply.
func (w *Search) legal(pos *env.Position, ply int) []env.Move {
	w.moves[ply] = pos.LegalMoves(w.moves[ply][:0], w.rules.TooTall)
	return w.moves[ply]
}

// store records what was found of the position with hash h, unless the
// budget cut the search short.
func (w *Search) store(h uint64, m env.Move, win, fail int) {
	if w.stopped {
		return
	}
	e := w.entry(h)
	if !w.holds(e, h) {
		*e = winEntry{key: h, gen: w.gen}
	}
	switch {
	case win > 0 && (e.win == 0 || int8(win) < e.win):
		e.win, e.move = int8(win), m
	case win == 0:
		e.fail = max(e.fail, int8(fail))
		if e.win == 0 {
			e.move = m // a defender's refutation
		}
	}
}

// attack reports whether the side to move of pos wins within d plies (d
// odd); ply is the distance from the root.
func (w *Search) attack(pos *env.Position, d, ply int) bool {
	if !w.spend() {
		return false
	}
	defender := pos.SideToMove().Other()
	theirs := bits.OnesCount64(pos.Controlled(defender))
	// Each move takes at most one stack from the defender: (d+1)/2 moves
	// cannot take more.
	if theirs > (d+1)/2 {
		return false
	}
	if d == 1 {
		// The most numerous nodes: a direct test, without the table.
		m, ok := WinningMove(pos, w.rules.TooTall)
		if ok {
			w.won(m, ply)
		}
		return ok
	}
	h := pos.Hash()
	known, won, best := w.probe(h, d)
	if known {
		if won {
			w.won(best, ply)
		}
		return won
	}
	if m, ok := WinningMove(pos, w.rules.TooTall); ok {
		w.store(h, m, 1, 0)
		w.won(m, ply)
		return true
	}
	for _, m := range w.attacks(pos, ply, best, (d-1)/2) {
		child := *pos
		child.Apply(m)
		if w.repeated(child.Hash()) {
			continue
		}
		w.push(child.Hash())
		won := w.defend(&child, d-1, ply+1)
		w.pop()
		if won {
			w.store(h, m, d, 0)
			w.won(m, ply)
			return true
		}
		if w.stopped {
			return false
		}
	}
	w.store(h, env.Move{}, 0, d)
	return false
}

// won records m as the first move when it wins at ply 0.
func (w *Search) won(m env.Move, ply int) {
	if ply == 0 {
		w.first = m
	}
}

// defend reports whether every move of the side to move of pos loses
// within d plies (d even).
func (w *Search) defend(pos *env.Position, d, ply int) bool {
	if !w.spend() {
		return false
	}
	if d == 2 {
		// The most numerous defender's nodes: the table would cost more
		// than it saves (a probe misses the cache; winningMove settles
		// each reply).
		lost, _ := w.replies(pos, d, ply, env.Move{})
		return lost
	}
	h := pos.Hash()
	known, lost, refutation := w.probe(h, d)
	if known {
		return lost
	}
	lost, m := w.replies(pos, d, ply, refutation)
	if lost {
		w.store(h, env.Move{}, d, 0)
	} else {
		w.store(h, m, 0, d)
	}
	return lost
}

// replies searches the defender's moves in pos, refutation (the
// table's) first and the killer next, and reports whether all lose within
// d plies, or else returns a move that does not.
func (w *Search) replies(pos *env.Position, d, ply int, refutation env.Move) (lost bool, escape env.Move) {
	moves := w.legal(pos, ply)
	if m, ok := w.escape(pos, moves, d); ok {
		w.killer[ply] = m
		return false, m
	}
	front(moves, w.killer[ply])
	front(moves, refutation)
	for _, m := range moves {
		child := *pos
		child.Apply(m)
		// The defender escapes by a repetition too.
		escaped := w.repeated(child.Hash())
		if !escaped {
			w.push(child.Hash())
			escaped = !w.attack(&child, d-1, ply+1)
			w.pop()
		}
		if w.stopped {
			return false, env.Move{}
		}
		if escaped {
			w.killer[ply] = m
			return false, m
		}
	}
	return true, env.Move{}
}

// escape looks for a reply among moves, the defender's in pos, that
// refutes an attack of d-1 more plies at once: one that takes the
// attacker's last stack, or keeps more stacks than the attacker's moves
// left can take. Most failing attacks end at a defender's node with such
// a reply, and searching the replies in order could first prove several
// others lost; the test needs no move played.
func (w *Search) escape(pos *env.Position, moves []env.Move, d int) (env.Move, bool) {
	defender := pos.SideToMove()
	attacker := defender.Other()
	// A move gains the defender one stack at most, and takes the
	// attacker's last only when there is one.
	if bits.OnesCount64(pos.Controlled(defender)) < d/2 && bits.OnesCount64(pos.Controlled(attacker)) > 1 {
		return env.Move{}, false
	}
	for _, m := range moves {
		if bits.OnesCount64(pos.ControlledAfter(m, defender)) > d/2 || pos.ControlledAfter(m, attacker) == 0 {
			return m, true
		}
	}
	return env.Move{}, false
}

// attacks returns the attacker's moves in pos that leave the defender at
// most left stacks, in the order to try them: best first, then the
// captures of the defender's stacks, tallest first, then the rest. A move
// that leaves more could win only if the defender gave up stacks of its
// own accord later (the attacker's moves after it take one each at most),
// which it never must but when all its moves land on its own stacks:
// such wins are not looked for. With one stack too many, only captures
// can leave few enough, and only they are generated. It runs at every
// attacking node, so it filters and partitions the moves in one pass (the
// captures are few) instead of sorting them; the list is ply's.
func (w *Search) attacks(pos *env.Position, ply int, best env.Move, left int) []env.Move {
	defender := pos.SideToMove().Other()
	theirs := pos.Controlled(defender)
	moves := w.moves[ply][:0]
	if bits.OnesCount64(theirs) > left {
		for t := theirs; t != 0; t &= t - 1 {
			moves = pos.MovesTo(moves, env.Square(bits.TrailingZeros64(t)), w.rules.TooTall)
		}
	} else {
		moves = pos.LegalMoves(moves, w.rules.TooTall)
	}
	w.moves[ply] = moves
	caps, rest := w.captureBuf[:0], 0
	for _, m := range moves {
		switch {
		case bits.OnesCount64(pos.ControlledAfter(m, defender)) > left:
		case theirs&(1<<m.To) != 0:
			caps = append(caps, m)
		default:
			moves[rest] = m // rest <= the index read: nothing unread is lost
			rest++
		}
	}
	for i := 1; i < len(caps); i++ { // a stable insertion sort
		for j := i; j > 0 && pos.At(caps[j].To).Height() > pos.At(caps[j-1].To).Height(); j-- {
			caps[j], caps[j-1] = caps[j-1], caps[j]
		}
	}
	moves = moves[:len(caps)+rest]
	copy(moves[len(caps):], moves[:rest])
	copy(moves, caps)
	w.captureBuf = caps
	if best.Count > 0 {
		front(moves, best)
	}
	return moves
}

// front moves m to the front of moves when it is one of them.
func front(moves []env.Move, m env.Move) {
	if i := slices.Index(moves, m); i > 0 {
		copy(moves[1:i+1], moves[:i])
		moves[0] = m
	}
}

// principal returns the line of a win within d plies from pos just
// proven: a shortest win's move at the attacker's turns and the reply that
// resists longest at the defender's, each found by searching again (the
// table keeps most of it), so that the line has the win's length.
func (w *Search) principal(pos *env.Position, d int) []env.Move {
	var line []env.Move
	p := *pos
	for len(line) < d {
		k := w.shortest(&p, d-len(line))
		e := w.entry(p.Hash())
		if k == 0 || !w.holds(e, p.Hash()) || e.win == 0 {
			return line
		}
		line = append(line, e.move)
		p.Apply(e.move)
		if p.Finished() {
			return line
		}
		reply, longest := env.Move{}, -1
		for _, r := range p.LegalMoves(nil, w.rules.TooTall) {
			next := p
			next.Apply(r)
			if k := w.shortest(&next, d-len(line)-1); k > longest {
				reply, longest = r, k
			}
		}
		if longest <= 0 {
			return line
		}
		line = append(line, reply)
		p.Apply(reply)
	}
	return line
}

// shortest returns the plies of a shortest win of the side to move of pos
// within d plies, or 0, and leaves its first move in the table.
func (w *Search) shortest(pos *env.Position, d int) int {
	for k := 1; k <= d && !w.stopped; k += 2 {
		if w.attack(pos, k, 0) {
			e := w.entry(pos.Hash())
			*e = winEntry{key: pos.Hash(), move: w.first, win: int8(k), gen: w.gen}
			return k
		}
	}
	return 0
}

// WinningMove returns a legal move of p (tooTall: the too-tall rule in
// force) after which the opponent controls no stack. Only a side whose
// opponent controls a single stack can have one: a move captures at most
// its target and uncovers at most what it leaves behind, so this is quick
// to rule out, and only the moves onto that stack are generated.
func WinningMove(p *env.Position, tooTall bool) (env.Move, bool) {
	opp := p.SideToMove().Other()
	theirs := p.Controlled(opp)
	if bits.OnesCount64(theirs) != 1 {
		return env.Move{}, false
	}
	var buf [64]env.Move
	for _, m := range p.MovesTo(buf[:0], env.Square(bits.TrailingZeros64(theirs)), tooTall) {
		if p.ControlledAfter(m, opp) == 0 {
			return m, true
		}
	}
	return env.Move{}, false
}

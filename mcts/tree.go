package mcts

import "github.com/deathstacks/deathstacks/env"

// nodeState is where a node stands in the search.
type nodeState uint8

const (
	// unexplored: never reached, not evaluated; its game goes on (a node
	// whose game is over is terminal from its creation).
	unexplored nodeState = iota
	// pending: waiting in a batch for the evaluator; its children exist
	// but have no priors yet.
	pending
	// expanded: evaluated, with children and their priors.
	expanded
	// terminal: the game is over here (or decided: see visitLeaf); its
	// result is exact.
	terminal
)

// node is one position of the tree, reached from its parent by move. The
// children of a node are a contiguous block of the arena starting at first,
// so selection scans one array and nodes hold indices, not pointers: the
// garbage collector has nothing to trace and the arena is reused between
// searches.
type node struct {
	// w is the sum of the outcomes backed up through this node, for the
	// player who moved into it (the parent's side to move), so that the
	// parent maximises w/n over its children.
	w float32
	// prior is the evaluator's probability of move at the parent (with the
	// root noise mixed in, for root children).
	prior float32
	// n is the number of completed visits.
	n int32
	// inflight is the number of simulations under way through this node,
	// each worth VirtualLoss lost visits until it is backed up.
	inflight int32
	// first is the index of the first child.
	first  int32
	action int32 // env.Action of move, narrowed to keep the node small
	// count is the number of children.
	count uint16
	move  env.Move
	state nodeState
	// result is the exact outcome of a terminal node for its side to move:
	// -1, 0 or 1. With it a node takes 32 bytes, two to a cache line.
	result int8
}

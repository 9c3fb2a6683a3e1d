// Package arena holds a search tree's nodes: each node's statistics and
// exact result, in blocks that never move, a node's children contiguous
// in one block, so that a search scans one array and nodes hold indices,
// not pointers.
package arena

import "github.com/deathstacks/deathstacks/env"

// State is where a node stands in the search.
type State uint8

const (
	// Unexplored: never reached, not evaluated; its game goes on (a node
	// whose game is over is terminal from its creation).
	Unexplored State = iota
	// Pending: waiting in a batch for the evaluator; its children exist
	// but have no priors yet.
	Pending
	// Expanded: evaluated, with children and their priors.
	Expanded
	// Terminal: the game is over here, or decided (its side to move
	// wins at once); its result is exact.
	Terminal
)

// Node is one position of the tree, reached from its parent by Move. The
// children of a node are a contiguous block of the arena starting at First,
// so selection scans one array and nodes hold indices, not pointers: the
// garbage collector has nothing to trace and the arena is reused between
// searches.
type Node struct {
	// W is the sum of the outcomes backed up through this node, for the
	// player who moved into it (the parent's side to move), so that the
	// parent maximises W/N over its children.
	W float32
	// Prior is the evaluator's probability of move at the parent (with the
	// root noise mixed in, for root children).
	Prior float32
	// N is the number of completed visits.
	N int32
	// Inflight is the number of simulations under way through this node,
	// each worth VirtualLoss lost visits until it is backed up.
	Inflight int32
	// First is the index of the first child.
	First  int32
	Action int32 // env.Action of Move, narrowed to keep the node small
	// Count is the number of children.
	Count uint16
	Move  env.Move
	State State
	// Result is the exact outcome of a terminal node for its side to move:
	// -1, 0 or 1. With it a node takes 32 bytes, two to a cache line.
	Result int8
}

// Arena holds a tree's nodes in fixed-size blocks that never move: growing
// the tree adds a block instead of copying the nodes into a larger array.
// A copy costs time in proportion to the tree, all in one descent that the
// search's clock cannot interrupt, and fresh memory is slow to touch on
// some machines (a timed search overran its time by most of a second when
// a single array doubled); a block costs the same small time at every
// size. The blocks are kept by Reset, so a tree reuses the memory of the
// last. A node's index names its block and its place there, and the
// children of a node are contiguous within one block.
type Arena struct {
	blocks []*nodeBlock
	// next is the index the next node takes.
	next int32
}

const (
	blockShift = 14
	// BlockSize is the nodes of a block, 512 KB: far more than the
	// children of one node (at most a few hundred legal moves).
	BlockSize = 1 << blockShift
	blockMask = BlockSize - 1
)

type nodeBlock [BlockSize]Node

// Reset empties the arena, keeping its blocks.
func (a *Arena) Reset() { a.next = 0 }

// Restart empties the arena and makes root node 0.
func (a *Arena) Restart(root Node) {
	a.Reset()
	*a.At(a.Alloc(1)) = root
}

// At returns node i, which stays where it is as the arena grows.
func (a *Arena) At(i int32) *Node { return &a.blocks[i>>blockShift][i&blockMask] }

// Children returns the children of nd.
func (a *Arena) Children(nd *Node) []Node {
	b, lo := a.blocks[nd.First>>blockShift], nd.First&blockMask
	return b[lo : lo+int32(nd.Count)]
}

// Alloc takes n contiguous nodes (1 <= n <= BlockSize), leaving their old
// contents, and returns the index of the first. When the current block
// has no room for n, the rest of it is left unused.
func (a *Arena) Alloc(n int) int32 {
	first := a.next
	if int(first&blockMask)+n > BlockSize {
		first = (first>>blockShift + 1) << blockShift
	}
	if b := int(first >> blockShift); b == len(a.blocks) {
		a.blocks = append(a.blocks, new(nodeBlock))
	}
	a.next = first + int32(n)
	return first
}

// Len returns the number of node indices taken since the last Reset,
// the blocks' unused ends included: 0 for an empty arena.
func (a *Arena) Len() int32 { return a.next }

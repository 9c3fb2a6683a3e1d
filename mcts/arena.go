package mcts

// arena holds a tree's nodes in fixed-size blocks that never move: growing
// the tree adds a block instead of copying the nodes into a larger array.
// A copy costs time in proportion to the tree, all in one descent that the
// search's clock cannot interrupt, and fresh memory is slow to touch on
// some machines (a timed search overran its time by most of a second when
// a single array doubled); a block costs the same small time at every
// size. The blocks are kept by reset, so a tree reuses the memory of the
// last. A node's index names its block and its place there, and the
// children of a node are contiguous within one block.
type arena struct {
	blocks []*nodeBlock
	// next is the index the next node takes.
	next int32
}

const (
	blockShift = 14
	// blockSize is the nodes of a block, 512 KB: far more than the
	// children of one node (at most a few hundred legal moves).
	blockSize = 1 << blockShift
	blockMask = blockSize - 1
)

type nodeBlock [blockSize]node

// reset empties the arena, keeping its blocks.
func (a *arena) reset() { a.next = 0 }

// restart empties the arena and makes root node 0.
func (a *arena) restart(root node) {
	a.reset()
	*a.at(a.alloc(1)) = root
}

// at returns node i, which stays where it is as the arena grows.
func (a *arena) at(i int32) *node { return &a.blocks[i>>blockShift][i&blockMask] }

// children returns the children of nd.
func (a *arena) children(nd *node) []node {
	b, lo := a.blocks[nd.first>>blockShift], nd.first&blockMask
	return b[lo : lo+int32(nd.count)]
}

// alloc takes n contiguous nodes (1 <= n <= blockSize), leaving their old
// contents, and returns the index of the first. When the current block
// has no room for n, the rest of it is left unused.
func (a *arena) alloc(n int) int32 {
	first := a.next
	if int(first&blockMask)+n > blockSize {
		first = (first>>blockShift + 1) << blockShift
	}
	if b := int(first >> blockShift); b == len(a.blocks) {
		a.blocks = append(a.blocks, new(nodeBlock))
	}
	a.next = first + int32(n)
	return first
}

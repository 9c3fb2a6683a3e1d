package mcts

import "testing"

func TestArenaAlloc(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
		want  []int32 // the first index of each allocation
	}{
		{"one node", []int{1}, []int32{0}},
		{"contiguous", []int{1, 30, 5}, []int32{0, 1, 31}},
		{"fills a block exactly", []int{blockSize - 10, 10, 1}, []int32{0, blockSize - 10, blockSize}},
		{"skips to the next block", []int{blockSize - 10, 11, 3}, []int32{0, blockSize, blockSize + 11}},
		{"a whole block", []int{5, blockSize, 1}, []int32{0, blockSize, 2 * blockSize}},
		{"no children", []int{1, 0, 2}, []int32{0, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a arena
			for k, n := range tt.sizes {
				if got := a.alloc(n); got != tt.want[k] {
					t.Fatalf("alloc %d (%d nodes) = %d, want %d", k, n, got, tt.want[k])
				}
			}
		})
	}
}

// TestArenaNodesStay checks that growing the arena moves no node, that a
// node's children are the nodes their indices name, and that reset reuses
// the blocks.
func TestArenaNodesStay(t *testing.T) {
	var a arena
	root := a.alloc(1)
	held := a.at(root)
	held.count = 7
	parents := []int32{root}
	for len(a.blocks) < 4 {
		p := a.at(parents[len(parents)-1])
		n := 1 + int(len(parents)*37%200)
		p.first, p.count = a.alloc(n), uint16(n)
		kids := a.children(p)
		for c := range kids {
			kids[c].action = p.first + int32(c)
		}
		parents = append(parents, p.first+int32(n-1))
	}
	if a.at(root) != held {
		t.Fatal("the root moved as the arena grew")
	}
	for _, i := range parents[:len(parents)-1] {
		p := a.at(i)
		for c := p.first; c < p.first+int32(p.count); c++ {
			if got := a.at(c).action; got != c {
				t.Fatalf("node %d holds the mark of node %d", c, got)
			}
		}
	}
	blocks := len(a.blocks)
	a.reset()
	if got := a.alloc(blockSize); got != 0 || len(a.blocks) != blocks {
		t.Fatalf("after reset: alloc = %d with %d blocks, want 0 with %d", got, len(a.blocks), blocks)
	}
}

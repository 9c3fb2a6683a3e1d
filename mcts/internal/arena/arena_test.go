package arena

import (
	"testing"
	"unsafe"
)

func TestArenaAlloc(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
		want  []int32 // the first index of each allocation
	}{
		{"one node", []int{1}, []int32{0}},
		{"contiguous", []int{1, 30, 5}, []int32{0, 1, 31}},
		{"fills a block exactly", []int{BlockSize - 10, 10, 1}, []int32{0, BlockSize - 10, BlockSize}},
		{"skips to the next block", []int{BlockSize - 10, 11, 3}, []int32{0, BlockSize, BlockSize + 11}},
		{"a whole block", []int{5, BlockSize, 1}, []int32{0, BlockSize, 2 * BlockSize}},
		{"no children", []int{1, 0, 2}, []int32{0, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Arena
			for k, n := range tt.sizes {
				if got := a.Alloc(n); got != tt.want[k] {
					t.Fatalf("Alloc %d (%d nodes) = %d, want %d", k, n, got, tt.want[k])
				}
			}
		})
	}
}

// TestArenaNodesStay checks that growing the arena moves no node, that a
// node's children are the nodes their indices name, and that Reset reuses
// the blocks.
func TestArenaNodesStay(t *testing.T) {
	var a Arena
	root := a.Alloc(1)
	held := a.At(root)
	held.Count = 7
	parents := []int32{root}
	for len(a.blocks) < 4 {
		p := a.At(parents[len(parents)-1])
		n := 1 + int(len(parents)*37%200)
		p.First, p.Count = a.Alloc(n), uint16(n)
		kids := a.Children(p)
		for c := range kids {
			kids[c].Action = p.First + int32(c)
		}
		parents = append(parents, p.First+int32(n-1))
	}
	if a.At(root) != held {
		t.Fatal("the root moved as the arena grew")
	}
	for _, i := range parents[:len(parents)-1] {
		p := a.At(i)
		for c := p.First; c < p.First+int32(p.Count); c++ {
			if got := a.At(c).Action; got != c {
				t.Fatalf("node %d holds the mark of node %d", c, got)
			}
		}
	}
	blocks := len(a.blocks)
	a.Reset()
	if got := a.Alloc(BlockSize); got != 0 || len(a.blocks) != blocks {
		t.Fatalf("after Reset: Alloc = %d with %d blocks, want 0 with %d", got, len(a.blocks), blocks)
	}
}

func TestNodeFitsHalfACacheLine(t *testing.T) {
	if size := unsafe.Sizeof(Node{}); size != 32 {
		t.Errorf("a node takes %d bytes, want 32", size)
	}
}

package replay

import "math/rand/v2"

// pickBySurprise chooses n distinct slots: round(n*SurpriseShare) of them
// with probabilities proportional to their surprise, the rest uniformly
// (KataGo's policy-surprise weighting). A slot already chosen is drawn
// again; when the surprise is spread over too few slots for that (a
// hundred tries per slot), the remaining weighted picks are uniform.
func (b *Batch) pickBySurprise(r *Buffer, n int, rng *rand.Rand) {
	if b.picked == nil {
		b.picked = make(map[int]struct{}, n)
	}
	clear(b.picked)
	b.idx = b.idx[:0]
	m := len(r.slots)
	take := func(draw func() int) bool {
		t := draw()
		if _, dup := b.picked[t]; dup {
			return false
		}
		b.picked[t] = struct{}{}
		b.idx = append(b.idx, t)
		return true
	}
	uniform := func() int { return rng.IntN(m) }
	weighted := func() int { return min(r.surprise.find(rng.Float64()*r.surprise.total()), m-1) }
	byWeight := int(float64(n)*r.surpriseShare + 0.5)
	for tries := 0; len(b.idx) < byWeight && tries < 100*n; tries++ {
		take(weighted)
	}
	// Uniform draws until n are chosen: rejection while most slots are
	// free, then the free slots in order from a random start.
	for tries := 0; len(b.idx) < n && tries < 4*n; tries++ {
		take(uniform)
	}
	for start, j := rng.IntN(m), 0; len(b.idx) < n; j++ {
		take(func() int { return (start + j) % m })
	}
}

// fenwick is a binary indexed tree of non-negative weights: adding to
// one and finding where a cumulative sum falls take log(n) steps.
type fenwick struct {
	tree []float64 // 1-based
	sum  float64
}

func newFenwick(n int) fenwick { return fenwick{tree: make([]float64, n+1)} }

// add adds delta to weight i.
func (f *fenwick) add(i int, delta float64) {
	f.sum += delta
	for i++; i < len(f.tree); i += i & -i {
		f.tree[i] += delta
	}
}

// total is the sum of the weights (0 for an empty tree).
func (f *fenwick) total() float64 { return max(f.sum, 0) }

// find returns the smallest i whose cumulative weight (through i) exceeds
// u, for 0 <= u < total.
func (f *fenwick) find(u float64) int {
	pos, step := 0, 1
	for step*2 < len(f.tree) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if next := pos + step; next < len(f.tree) && f.tree[next] <= u {
			pos = next
			u -= f.tree[next]
		}
	}
	return pos
}

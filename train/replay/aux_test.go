package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// withTargets gives every position but each fourth the optional targets:
// the next position's policy as the reply, a random ownership, a score
// and a surprise.
func withTargets(ps []position) []position {
	for i := range ps {
		s := &ps[i].s
		s.Surprise = float32(i%5) / 2
		if i%4 == 3 || i+1 == len(ps) {
			continue
		}
		s.ReplyLegal, s.Reply = slices.Clone(ps[i+1].s.Legal), slices.Clone(ps[i+1].s.Policy)
		s.Ownership = make([]float32, env.NumSquares)
		for q := range s.Ownership {
			s.Ownership[q] = float32((i*7+q*5)%3 - 1)
		}
		s.Score, s.Final = float32(i%7)/7-0.5, true
	}
	return ps
}

// TestTargetsKeptAndEncoded checks that the optional targets come back
// as added, from At and after an Encode/Decode round trip.
func TestTargetsKeptAndEncoded(t *testing.T) {
	ps := withTargets(randomPositions(t, 30, 21))
	r := fill(t, Config{Window: 25}, ps)
	for i := range r.Len() {
		got, _ := r.At(i)
		if want := ps[len(ps)-r.Len()+i].s; !reflect.DeepEqual(got, want) {
			t.Fatalf("sample %d: got %+v, want %+v", i, got, want)
		}
	}
	var buf bytes.Buffer
	if err := r.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf, Config{Window: 25})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Len() {
		a, _ := back.At(i)
		b, _ := r.At(i)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("sample %d differs after the round trip", i)
		}
	}
}

// TestAugmentMapsTargets checks that augmentation carries the reply to
// the image of the next position and each square's ownership to its
// image, by a symmetry the observation shows (a symmetric position shows
// several: one of them must fit).
func TestAugmentMapsTargets(t *testing.T) {
	ps := withTargets(randomPositions(t, 24, 22))
	r := fill(t, Config{Window: 24, Augment: true}, ps)
	rules := env.DefaultRules()
	rng := rand.New(rand.NewPCG(23, 24))
	var b Batch
	for range 10 {
		if err := r.Sample(&b, 24, rng); err != nil {
			t.Fatal(err)
		}
		for k, got := range b.Samples {
			ims := imagesOf(ps, got.Obs, rules)
			if len(ims) == 0 {
				t.Fatalf("sample %d of the batch is no image of a stored position", k)
			}
			var why []string
			for _, im := range ims {
				if err := mapsTargets(ps, im.i, im.y, got, rules); err != "" {
					why = append(why, err)
					continue
				}
				why = nil
				break
			}
			if why != nil {
				t.Fatalf("sample %d of the batch: %v", k, why)
			}
		}
	}
}

// mapsTargets says what is wrong, if anything, with got as the image of
// stored position i under y.
func mapsTargets(ps []position, i int, y env.Symmetry, got model.Sample, rules env.Rules) string {
	p := ps[i]
	if (got.Reply == nil) != (p.s.Reply == nil) || (got.Ownership == nil) != (p.s.Ownership == nil) {
		return fmt.Sprintf("position %d: optional targets gained or lost", i)
	}
	if got.Reply != nil {
		next := y.Position(ps[i+1].pos)
		legal := next.LegalActions(nil, rules.TooTall)
		slices.Sort(legal)
		if !slices.Equal(slices.Sorted(slices.Values(got.ReplyLegal)), legal) {
			return fmt.Sprintf("position %d under %v: reply actions are not the image's legal actions", i, y)
		}
	}
	for q, o := range p.s.Ownership {
		if img := y.Square(env.Square(q)); got.Ownership[img] != o {
			return fmt.Sprintf("position %d under %v: ownership %v of square %d's image, want %v", i, y, got.Ownership[img], q, o)
		}
	}
	return ""
}

// image is a stored position and a symmetry.
type image struct {
	i int
	y env.Symmetry
}

// imagesOf lists the stored positions and symmetries whose image obs is.
func imagesOf(ps []position, obs []float32, rules env.Rules) []image {
	var out []image
	img := make([]float32, env.ObservationSize)
	for i, p := range ps {
		for y := env.Symmetry(0); y < env.NumSymmetries; y++ {
			q := y.Position(p.pos)
			env.EncodeObservation(img, &q, rules, p.reps)
			if slices.Equal(img, obs) {
				out = append(out, image{i, y})
			}
		}
	}
	return out
}

// TestSurpriseWeighting draws from a buffer where one sample in ten is
// surprising: with a share of 0.5, about half of each batch must be
// those, against a tenth uniformly; every batch stays distinct.
func TestSurpriseWeighting(t *testing.T) {
	ps := randomPositions(t, 200, 25)
	for i := range ps {
		ps[i].s.Surprise = 0
		if i%10 == 0 {
			ps[i].s.Surprise = 2
		}
	}
	tests := []struct {
		name     string
		share    float64
		min, max float64 // of the surprising share of all draws
	}{
		{"uniform", 0, 0.05, 0.15},
		{"half by surprise", 0.5, 0.5, 0.62},
		{"all by surprise", 1, 0.99, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, Config{Window: 150, SurpriseShare: tc.share}, ps)
			rng := rand.New(rand.NewPCG(26, 27))
			var b Batch
			surprising, total := 0, 0
			for range 200 {
				if err := r.Sample(&b, 8, rng); err != nil {
					t.Fatal(err)
				}
				seen := map[int]bool{}
				for _, k := range b.idx {
					if seen[k] {
						t.Fatalf("slot %d drawn twice in one batch", k)
					}
					seen[k] = true
				}
				for _, s := range b.Samples {
					total++
					if s.Surprise > 0 {
						surprising++
					}
				}
			}
			if f := float64(surprising) / float64(total); f < tc.min || f > tc.max {
				t.Errorf("%.3f of the draws were surprising: want %.2f to %.2f", f, tc.min, tc.max)
			}
		})
	}
}

// TestSurpriseWeightingFewSlots: when fewer slots are surprising than a
// batch draws by surprise, the batch is still n distinct samples.
func TestSurpriseWeightingFewSlots(t *testing.T) {
	ps := randomPositions(t, 20, 28)
	for i := range ps {
		ps[i].s.Surprise = 0
	}
	ps[3].s.Surprise = 1
	r := fill(t, Config{Window: 20, SurpriseShare: 1}, ps)
	var b Batch
	if err := r.Sample(&b, 20, rand.New(rand.NewPCG(29, 30))); err != nil {
		t.Fatal(err)
	}
	if got := len(slices.Compact(slices.Sorted(slices.Values(b.idx)))); got != 20 {
		t.Errorf("%d distinct slots in a batch of 20 from 20", got)
	}
}

// TestSurpriseFollowsTheWindow: a surprising sample that drops out of the
// window is no longer drawn.
func TestSurpriseFollowsTheWindow(t *testing.T) {
	ps := randomPositions(t, 30, 31)
	for i := range ps {
		ps[i].s.Surprise = 0
	}
	ps[0].s.Surprise = 5
	r := fill(t, Config{Window: 10, SurpriseShare: 1}, ps)
	if got := r.surprise.total(); got > 1e-9 {
		t.Errorf("total surprise %v after the surprising sample left the window, want 0", got)
	}
	var b Batch
	if err := r.Sample(&b, 5, rand.New(rand.NewPCG(32, 33))); err != nil {
		t.Fatal(err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Window: 0}, {Window: 5, SurpriseShare: -0.1}, {Window: 5, SurpriseShare: 1.5}} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
}

// encodedWithTargets is a buffer of n samples with optional targets,
// encoded (format version 2).
func encodedWithTargets(t testing.TB, n int) []byte {
	t.Helper()
	r := fill(t, Config{Window: n}, withTargets(randomPositions(t, n, 15)))
	var buf bytes.Buffer
	if err := r.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDecodeTargetsRejectsTruncation: every truncation of a version-2
// file is an error.
func TestDecodeTargetsRejectsTruncation(t *testing.T) {
	data := encodedWithTargets(t, 5)
	if v := data[len(replayMagic)]; v != 2 {
		t.Fatalf("format version %d, want 2", v)
	}
	for n := 0; n < len(data); n++ {
		if _, err := Decode(bytes.NewReader(data[:n]), Config{Window: 10}); err == nil {
			t.Fatalf("%d of %d bytes decoded without an error", n, len(data))
		}
	}
}

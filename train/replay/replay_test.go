package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// position is a sample together with the position it encodes.
type position struct {
	pos  env.Position
	reps int
	s    model.Sample
}

// randomPositions plays seeded random games and returns n of their
// positions as samples with random policies and values.
func randomPositions(t testing.TB, n int, seed uint64) []position {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	rules := env.DefaultRules()
	var out []position
	for len(out) < n {
		g := env.NewGame(rules)
		for !g.Status().Over() && len(out) < n {
			p := g.Position()
			legal := p.LegalActions(nil, rules.TooTall)
			policy := make([]float32, len(legal))
			var sum float32
			for j := range policy {
				policy[j] = rng.Float32()
				sum += policy[j]
			}
			for j := range policy {
				policy[j] /= sum
			}
			obs := make([]float32, env.ObservationSize)
			env.EncodeObservation(obs, &p, rules, g.Repetitions())
			s := model.Sample{Obs: obs, Legal: legal, Policy: policy, Value: float32(rng.IntN(3) - 1)}
			out = append(out, position{pos: p, reps: g.Repetitions(), s: s})
			m, err := env.MoveOf(legal[rng.IntN(len(legal))])
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func fill(t testing.TB, cfg Config, ps []position) *Buffer {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if err := r.Add(p.s); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestWindowSlides: the buffer holds the newest Window samples, oldest
// first, as they were added, also once they span blocks of observations
// and the oldest are overwritten across a block's end.
func TestWindowSlides(t *testing.T) {
	tests := []struct {
		name          string
		window, added int
	}{
		{"one block", 10, 25},
		{"blocks, the last one short", 2*obsBlock + 100, 5*obsBlock + 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps := randomPositions(t, tc.added, 1)
			r := fill(t, Config{Window: tc.window}, ps)
			if r.Len() != tc.window || r.capacity != tc.window || r.added != uint64(tc.added) {
				t.Fatalf("Len, Cap, Added = %d, %d, %d; want %d, %d, %d", r.Len(), r.capacity, r.added, tc.window, tc.window, tc.added)
			}
			for i := 0; i < tc.window; i++ {
				got, err := r.At(i)
				if err != nil {
					t.Fatal(err)
				}
				if old := tc.added - tc.window; !reflect.DeepEqual(got, ps[old+i].s) {
					t.Fatalf("At(%d) is not the sample added %d-th", i, old+i)
				}
			}
			if _, err := r.At(tc.window); err == nil {
				t.Errorf("At(%d) of %d succeeded", tc.window, tc.window)
			}
		})
	}
}

// TestReserve: a buffer whose window's memory was reserved, empty, part
// full or full, holds, draws and encodes what one that grew by its Adds
// does, the window's blocks all in place and of the window's size.
func TestReserve(t *testing.T) {
	const window, added = 2*obsBlock + 100, 4*obsBlock + 7
	ps := randomPositions(t, added, 21)
	tests := []struct {
		name   string
		before int // Adds before Reserve
	}{
		{"empty", 0},
		{"within the first block", 5},
		{"at a block's end", obsBlock},
		{"in the last, short block", 2*obsBlock + 50},
		{"full", window},
		{"wrapped", 3 * obsBlock},
	}
	plain := fill(t, Config{Window: window, Augment: true}, ps)
	var want bytes.Buffer
	if err := plain.Encode(&want); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, Config{Window: window, Augment: true}, ps[:tc.before])
			r.Reserve()
			if len(r.obs) != 3 || len(r.obs[2]) != 100*env.ObservationSize || cap(r.slots) < window {
				t.Fatalf("%d blocks (the last of %d values), room for %d slots; want 3 (%d), %d",
					len(r.obs), len(r.obs[len(r.obs)-1]), cap(r.slots), 100*env.ObservationSize, window)
			}
			r.Reserve() // a second time: nothing more
			if len(r.obs) != 3 {
				t.Fatalf("%d blocks after a second Reserve", len(r.obs))
			}
			for _, p := range ps[tc.before:] {
				if err := r.Add(p.s); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < window; i++ {
				got, _ := r.At(i)
				if w, _ := plain.At(i); !reflect.DeepEqual(got, w) {
					t.Fatalf("At(%d) differs from the buffer without Reserve", i)
				}
			}
			var b1, b2 Batch
			if err := r.Sample(&b1, 64, rand.New(rand.NewPCG(3, 4))); err != nil {
				t.Fatal(err)
			}
			if err := plain.Sample(&b2, 64, rand.New(rand.NewPCG(3, 4))); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(b1.Samples, b2.Samples) {
				t.Error("the same seed drew other batches")
			}
			var got bytes.Buffer
			if err := r.Encode(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Error("Encode wrote other bytes")
			}
		})
	}
}

func TestAddCopies(t *testing.T) {
	ps := randomPositions(t, 1, 2)
	s := ps[0].s
	want := model.Sample{Obs: slices.Clone(s.Obs), Legal: slices.Clone(s.Legal), Policy: slices.Clone(s.Policy), Value: s.Value}
	r := fill(t, Config{Window: 4}, ps)
	s.Obs[0], s.Legal[0], s.Policy[0] = 9, 9, 9
	if got, _ := r.At(0); !reflect.DeepEqual(got, want) {
		t.Error("changing the caller's slices changed the stored sample")
	}
}

func TestAddRejects(t *testing.T) {
	good := randomPositions(t, 1, 3)[0].s
	edit := func(f func(s *model.Sample)) model.Sample {
		s := model.Sample{Obs: slices.Clone(good.Obs), Legal: slices.Clone(good.Legal), Policy: slices.Clone(good.Policy), Value: good.Value}
		f(&s)
		return s
	}
	tests := []struct {
		name string
		s    model.Sample
		want string
	}{
		{"short observation", edit(func(s *model.Sample) { s.Obs = s.Obs[:10] }), "10 observation values"},
		{"no actions", edit(func(s *model.Sample) { s.Legal, s.Policy = nil, nil }), "no legal actions"},
		{"policy length", edit(func(s *model.Sample) { s.Policy = s.Policy[1:] }), "policy values for"},
		{"value", edit(func(s *model.Sample) { s.Value = 2 }), "value 2"},
		{"action out of range", edit(func(s *model.Sample) { s.Legal[0] = env.NumActions }), "out of range"},
		{"action twice", edit(func(s *model.Sample) { s.Legal[1] = s.Legal[0] }), "listed twice"},
		{"negative probability", edit(func(s *model.Sample) { s.Policy[0] = -0.5 }), "want 0 to 1"},
		{"not a distribution", edit(func(s *model.Sample) { s.Policy[0] += 0.1 }), "policy sums to"},
	}
	r, _ := New(Config{Window: 4})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := r.Add(tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Add = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if r.Len() != 0 {
		t.Errorf("rejected samples were stored: Len = %d", r.Len())
	}
	if _, err := New(Config{Window: 0}); err == nil {
		t.Error("New with window 0 succeeded")
	}
}

func TestSampleDistinctAndCovering(t *testing.T) {
	ps := randomPositions(t, 50, 4)
	r := fill(t, Config{Window: 50}, ps)
	rng := rand.New(rand.NewPCG(5, 6))
	var b Batch
	seen := map[float32]int{}
	for range 200 {
		if err := r.Sample(&b, 20, rng); err != nil {
			t.Fatal(err)
		}
		inBatch := map[*float32]bool{}
		for _, s := range b.Samples {
			// the policies are random floats: their first entry tells samples apart
			key := &s.Obs[0]
			if inBatch[key] {
				t.Fatal("a batch shares memory between samples")
			}
			inBatch[key] = true
			seen[s.Policy[0]]++
		}
		firsts := map[float32]bool{}
		for _, s := range b.Samples {
			if firsts[s.Policy[0]] {
				t.Fatal("a batch drew one sample twice")
			}
			firsts[s.Policy[0]] = true
		}
	}
	if len(seen) != 50 {
		t.Fatalf("200 batches of 20 drew %d of the 50 samples", len(seen))
	}
	// 4000 draws of 50: each about 80 times; uniform draws stay far inside 40..120.
	for p, n := range seen {
		if n < 40 || n > 120 {
			t.Errorf("sample with policy[0] %v drawn %d times, want about 80", p, n)
		}
	}
	if err := r.Sample(&b, 51, rng); err == nil {
		t.Error("drawing 51 of 50 succeeded")
	}
	if err := r.Sample(&b, 0, rng); err == nil {
		t.Error("drawing 0 succeeded")
	}
}

func TestSampleReproducible(t *testing.T) {
	r := fill(t, Config{Window: 100, Augment: true}, randomPositions(t, 100, 7))
	draw := func() []model.Sample {
		var b Batch
		if err := r.Sample(&b, 16, rand.New(rand.NewPCG(8, 9))); err != nil {
			t.Fatal(err)
		}
		return b.Samples
	}
	if !reflect.DeepEqual(draw(), draw()) {
		t.Error("the same seed drew different batches")
	}
}

// TestAugmentIsASymmetry checks every augmented sample against the
// position it came from: it must be the exact sample of one of the eight
// images of that position, its policy carried to the mapped actions.
func TestAugmentIsASymmetry(t *testing.T) {
	ps := randomPositions(t, 40, 10)
	r := fill(t, Config{Window: 40, Augment: true}, ps)
	rules := env.DefaultRules()
	rng := rand.New(rand.NewPCG(11, 12))
	var b Batch
	used := map[env.Symmetry]bool{}
	for range 20 {
		if err := r.Sample(&b, 40, rng); err != nil {
			t.Fatal(err)
		}
		for _, got := range b.Samples {
			found := false
			for _, p := range ps {
				for y := env.Symmetry(0); y < env.NumSymmetries && !found; y++ {
					q := y.Position(p.pos)
					obs := make([]float32, env.ObservationSize)
					env.EncodeObservation(obs, &q, rules, p.reps)
					if !slices.Equal(obs, got.Obs) || got.Value != p.s.Value {
						continue
					}
					want := map[env.Action]float32{}
					for j, a := range p.s.Legal {
						want[y.Action(a)] = p.s.Policy[j]
					}
					gotPolicy := map[env.Action]float32{}
					for j, a := range got.Legal {
						gotPolicy[a] = got.Policy[j]
					}
					legal := q.LegalActions(nil, rules.TooTall)
					slices.Sort(legal)
					gotLegal := slices.Sorted(slices.Values(got.Legal))
					if reflect.DeepEqual(want, gotPolicy) && slices.Equal(legal, gotLegal) {
						found = true
						used[y] = true
					}
				}
			}
			if !found {
				t.Fatal("an augmented sample is no symmetric image of a stored position")
			}
		}
	}
	if len(used) != env.NumSymmetries {
		t.Errorf("800 draws used %d of the 8 symmetries", len(used))
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	ps := randomPositions(t, 3*obsBlock, 13)
	tests := []struct {
		name                    string
		positions, window, keep int
	}{
		{"partly full", 30, 50, 50},
		{"wrapped", 30, 20, 20},
		{"into a smaller window", 30, 20, 8},
		{"blocks, wrapped", 3 * obsBlock, obsBlock + 7, obsBlock + 7},
		{"blocks, into a smaller window", 3 * obsBlock, 2*obsBlock + 1, obsBlock - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, Config{Window: tc.window}, ps[:tc.positions])
			var buf bytes.Buffer
			if err := r.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := Decode(bytes.NewReader(buf.Bytes()), Config{Window: tc.keep})
			if err != nil {
				t.Fatal(err)
			}
			want := min(r.Len(), tc.keep)
			if back.Len() != want || back.added != r.added {
				t.Fatalf("Len, Added = %d, %d; want %d, %d", back.Len(), back.added, want, r.added)
			}
			for i := 0; i < want; i++ {
				a, _ := back.At(i)
				b, _ := r.At(r.Len() - want + i)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("sample %d differs after the round trip", i)
				}
			}
		})
	}
}

func TestEncodeEmpty(t *testing.T) {
	r, _ := New(Config{Window: 5})
	var buf bytes.Buffer
	if err := r.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf, Config{Window: 5})
	if err != nil || back.Len() != 0 {
		t.Fatalf("Decode = %v, %v", back, err)
	}
}

func encoded(t testing.TB, n int) []byte {
	t.Helper()
	r := fill(t, Config{Window: n}, randomPositions(t, n, 14))
	var buf bytes.Buffer
	if err := r.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeRejectsDamage(t *testing.T) {
	data := encoded(t, 6)
	cfg := Config{Window: 10}
	t.Run("every truncation", func(t *testing.T) {
		for n := 0; n < len(data); n++ {
			if _, err := Decode(bytes.NewReader(data[:n]), cfg); err == nil {
				t.Fatalf("a file cut to %d of %d bytes decoded", n, len(data))
			}
		}
	})
	t.Run("truncation says so", func(t *testing.T) {
		_, err := Decode(bytes.NewReader(data[:len(data)/2]), cfg)
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("flipped bytes", func(t *testing.T) {
		// From the end of the gzip header (12 + 10 bytes) to the end: the
		// compressed data and the CRC and length; the last byte of the
		// compressed data is skipped, as its padding bits carry nothing.
		body := len(replayMagic) + 4 + 10
		lastCompressed := len(data) - 8 - 1
		for i := body; i < len(data); i += 7 {
			if i == lastCompressed {
				continue
			}
			bad := slices.Clone(data)
			bad[i] ^= 0xff
			if _, err := Decode(bytes.NewReader(bad), cfg); err == nil {
				t.Errorf("a file with byte %d of %d flipped decoded", i, len(data))
			}
		}
	})
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"not a replay", []byte("PK\x03\x04 something else entirely"), "not a replay buffer file"},
		{"newer version", append([]byte(replayMagic), 3, 0, 0, 0), "format version 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(tc.data), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// FuzzDecode checks that no input panics and that whatever decodes
// encodes back to something that decodes to the same samples.
func FuzzDecode(f *testing.F) {
	f.Add(encoded(f, 2))
	f.Add(encodedWithTargets(f, 3))
	f.Add([]byte(replayMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(bytes.NewReader(data), Config{Window: 4})
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := r.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(&buf, Config{Window: 4})
		if err != nil || back.Len() != r.Len() {
			t.Fatalf("re-decoding: %v", err)
		}
	})
}

func ExampleBuffer() {
	r, _ := New(Config{Window: 1000, Augment: true})
	// One position of a game: the start, with a uniform policy and a win.
	rules := env.DefaultRules()
	p := env.StartPosition()
	obs := make([]float32, env.ObservationSize)
	env.EncodeObservation(obs, &p, rules, 1)
	legal := p.LegalActions(nil, rules.TooTall)
	policy := slices.Repeat([]float32{1 / float32(len(legal))}, len(legal))
	if err := r.Add(model.Sample{Obs: obs, Legal: legal, Policy: policy, Value: 1}); err != nil {
		fmt.Println(err)
		return
	}
	var b Batch
	if err := r.Sample(&b, 1, rand.New(rand.NewPCG(1, 2))); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Len(), len(b.Samples), len(b.Samples[0].Legal), b.Samples[0].Value)
	// Output: 1 1 48 1
}

// gatedWriter closes started at its first write, and holds that write
// until open is closed.
type gatedWriter struct {
	bytes.Buffer
	started chan<- struct{}
	open    <-chan struct{}
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	if w.started != nil {
		close(w.started)
		w.started = nil
		<-w.open
	}
	return w.Buffer.Write(p)
}

// TestEncodeWhileAdding checks that an Encode writes the samples held when
// it began while Adds go on, also those that overwrite them.
func TestEncodeWhileAdding(t *testing.T) {
	ps := randomPositions(t, 5400, 15)
	tests := []struct {
		name           string
		window, before int
		// appended is how many Adds append (the window not yet full)
		// before Encode writes anything; 0 for none.
		appended int
	}{
		{"partly full, filled while encoding", 3*encodeChunk + 100, 2 * encodeChunk, encodeChunk + 100},
		{"full", 3*encodeChunk + 100, 4 * encodeChunk, 0},
		{"smaller than a chunk", 100, 300, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, Config{Window: tc.window}, ps[:tc.before])
			want := make([]model.Sample, r.Len())
			for i := range want {
				want[i], _ = r.At(i)
			}
			open := make(chan struct{})
			if tc.appended == 0 {
				close(open)
			}
			during := ps[tc.before : tc.before+2*tc.window]
			added := make(chan error, 1)
			started := make(chan struct{}) // Encode has begun
			go func() {
				<-started
				for i, p := range during {
					if err := r.Add(p.s); err != nil {
						added <- err
						return
					}
					if i+1 == tc.appended {
						close(open)
					}
				}
				added <- nil
			}()
			w := &gatedWriter{started: started, open: open}
			if err := r.Encode(w); err != nil {
				t.Fatal(err)
			}
			if err := <-added; err != nil {
				t.Fatal(err)
			}
			back, err := Decode(bytes.NewReader(w.Bytes()), Config{Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			if back.Len() != len(want) || back.added != uint64(tc.before) {
				t.Fatalf("decoded Len, added = %d, %d; want %d, %d", back.Len(), back.added, len(want), tc.before)
			}
			for i := range want {
				if got, _ := back.At(i); !reflect.DeepEqual(got, want[i]) {
					t.Fatalf("sample %d of %d is not the one held when Encode began", i, len(want))
				}
			}
			for i := range r.Len() {
				got, _ := r.At(i)
				if !reflect.DeepEqual(got, during[len(during)-r.Len()+i].s) {
					t.Fatalf("after the Adds, sample %d is not the one added", i)
				}
			}
		})
	}
}

// TestSnapshot checks that a snapshot writes the samples held when it was
// taken, not those added after it but before its Encode (also when they
// overwrite its samples: they wait for it), that a released snapshot
// lets Adds go on, and that a snapshot is written once.
func TestSnapshot(t *testing.T) {
	const window = 100
	ps := randomPositions(t, 3*window, 16)
	for _, tc := range []struct {
		name   string
		before int
		after  int // Adds between the snapshot and its Encode
	}{
		{"appended after", 40, 30},
		{"overwriting after", window + 10, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, Config{Window: window}, ps[:tc.before])
			want := make([]model.Sample, r.Len())
			for i := range want {
				want[i], _ = r.At(i)
			}
			snap := r.Snapshot()
			added := make(chan error, 1)
			go func() {
				for _, p := range ps[tc.before : tc.before+tc.after] {
					if err := r.Add(p.s); err != nil {
						added <- err
						return
					}
				}
				added <- nil
			}()
			if tc.before < window {
				// Appends do not wait for the snapshot: let them all in
				// before it is written.
				if err := <-added; err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			if err := snap.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			if tc.before >= window {
				if err := <-added; err != nil {
					t.Fatal(err)
				}
			}
			back, err := Decode(&buf, Config{Window: window})
			if err != nil {
				t.Fatal(err)
			}
			if back.Len() != len(want) {
				t.Fatalf("decoded %d samples, want the %d held at the snapshot", back.Len(), len(want))
			}
			for i := range want {
				if got, _ := back.At(i); !reflect.DeepEqual(got, want[i]) {
					t.Fatalf("sample %d is not the one held at the snapshot", i)
				}
			}
			if err := snap.Encode(io.Discard); err == nil {
				t.Error("a snapshot written twice")
			}
		})
	}
	t.Run("released", func(t *testing.T) {
		r := fill(t, Config{Window: window}, ps[:window])
		snap := r.Snapshot()
		snap.Release()
		snap.Release()
		for _, p := range ps[window : 2*window] { // each overwrites a sample of the snapshot
			if err := r.Add(p.s); err != nil {
				t.Fatal(err)
			}
		}
		if err := snap.Encode(io.Discard); err == nil {
			t.Error("a released snapshot written")
		}
		if err := r.Encode(io.Discard); err != nil { // the next snapshot is not held up
			t.Fatal(err)
		}
	})
}

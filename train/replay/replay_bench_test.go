package replay

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// BenchmarkAdd adds to a full window, the steady state of a run.
func BenchmarkAdd(b *testing.B) {
	ps := randomPositions(b, 512, 20)
	r := fill(b, Config{Window: 256}, ps)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := r.Add(ps[i%len(ps)].s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	for _, augment := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "augmented"}[augment]
		b.Run(name, func(b *testing.B) {
			r := fill(b, Config{Window: 4096, Augment: augment}, randomPositions(b, 4096, 21))
			rng := rand.New(rand.NewPCG(1, 2))
			var batch Batch
			b.ReportAllocs()
			for b.Loop() {
				if err := r.Sample(&batch, 128, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*128)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	r := fill(b, Config{Window: 1024}, randomPositions(b, 1024, 22))
	var buf bytes.Buffer
	if err := r.Encode(&buf); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if err := r.Encode(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/1024, "bytes/sample")
}

func BenchmarkDecode(b *testing.B) {
	data := encoded(b, 1024)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(data), Config{Window: 1024}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFill adds a window's worth of positions (the default window,
// 80,000) to an empty buffer, as a run's first iteration does, to an empty
// one whose memory is reserved, as a learner's is, and to a full one, as
// every later iteration does.
func BenchmarkFill(b *testing.B) {
	const window = 80000
	ps := randomPositions(b, 512, 23)
	add := func(r *Buffer) {
		for i := range window {
			if err := r.Add(ps[i%len(ps)].s); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, start := range []string{"empty", "reserved", "full"} {
		b.Run(start, func(b *testing.B) {
			r, err := New(Config{Window: window})
			if err != nil {
				b.Fatal(err)
			}
			if start == "full" {
				add(r)
			}
			b.ReportAllocs()
			for b.Loop() {
				if start != "full" {
					b.StopTimer()
					r = nil // the last buffer's memory may go first
					if r, err = New(Config{Window: window}); err != nil {
						b.Fatal(err)
					}
					if start == "reserved" {
						r.Reserve()
					}
					b.StartTimer()
				}
				add(r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*window), "ns/position")
		})
	}
}

package env

import (
	"testing"
	"time"
)

// benchSize is how many positions the move-generation benchmarks cycle
// through.
const benchSize = 1000

// benchCorpus returns benchSize varied positions, every few plies of seeded
// random games (too-tall on and off), so that the benchmarks see openings,
// middle games, tall stacks and crowded boards rather than one position.
func benchCorpus() []sample {
	all := samples(12, 60, 250, 0)
	out := make([]sample, benchSize)
	for i := range out {
		out[i] = all[i*len(all)/benchSize]
	}
	return out
}

// benchMoves returns the corpus positions that have a legal move, each with
// one of its moves.
func benchMoves(corpus []sample) ([]sample, []Move) {
	rng := newRNG(13)
	var positions []sample
	var moves []Move
	for _, smp := range corpus {
		if legal := smp.pos.LegalMoves(nil, smp.tooTall); len(legal) > 0 {
			positions = append(positions, smp)
			moves = append(moves, legal[rng.IntN(len(legal))])
		}
	}
	return positions, moves
}

// perPosition reports a metric per position when each benchmark op is one
// pass over n positions.
func perPosition(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/position")
}

func BenchmarkLegalMoves(b *testing.B) {
	corpus := benchCorpus()
	var buf [256]Move
	moves := 0
	for b.Loop() {
		moves = 0
		for i := range corpus {
			moves += len(corpus[i].pos.LegalMoves(buf[:0], corpus[i].tooTall))
		}
	}
	perPosition(b, benchSize)
	b.ReportMetric(float64(moves)/benchSize, "moves/position")
}

// BenchmarkMovesTo asks, as the win search does, for the moves that
// land on each stack of the opponent's.
func BenchmarkMovesTo(b *testing.B) {
	corpus := benchCorpus()
	var buf [256]Move
	for b.Loop() {
		for i := range corpus {
			p := &corpus[i].pos
			for t := p.Controlled(p.SideToMove().Other()); t != 0; t &= t - 1 {
				p.MovesTo(buf[:0], Square(trailingZeros(t)), corpus[i].tooTall)
			}
		}
	}
	perPosition(b, benchSize)
}

func BenchmarkCountMoves(b *testing.B) {
	corpus := benchCorpus()
	for b.Loop() {
		for i := range corpus {
			corpus[i].pos.CountMoves(corpus[i].tooTall)
		}
	}
	perPosition(b, benchSize)
}

func BenchmarkApply(b *testing.B) {
	positions, moves := benchMoves(benchCorpus())
	for b.Loop() {
		for i := range positions {
			child := positions[i].pos
			child.Apply(moves[i])
		}
	}
	perPosition(b, len(positions))
}

func BenchmarkApplyUndo(b *testing.B) {
	positions, moves := benchMoves(benchCorpus())
	for b.Loop() {
		for i := range positions {
			positions[i].pos.Apply(moves[i])
			positions[i].pos.undo(moves[i])
		}
	}
	perPosition(b, len(positions))
}

func BenchmarkCheckMove(b *testing.B) {
	positions, moves := benchMoves(benchCorpus())
	for b.Loop() {
		for i := range positions {
			if positions[i].pos.CheckMove(moves[i], positions[i].tooTall) != nil {
				b.Fatal("legal move rejected")
			}
		}
	}
	perPosition(b, len(positions))
}

func BenchmarkEncodeObservation(b *testing.B) {
	corpus := benchCorpus()
	obs := make([]float32, ObservationSize)
	rules := DefaultRules()
	for b.Loop() {
		for i := range corpus {
			EncodeObservation(obs, &corpus[i].pos, rules, 1)
		}
	}
	perPosition(b, benchSize)
}

func BenchmarkLegalMask(b *testing.B) {
	corpus := benchCorpus()
	mask := make([]bool, NumActions)
	for b.Loop() {
		for i := range corpus {
			corpus[i].pos.legalMask(mask, corpus[i].tooTall)
		}
	}
	perPosition(b, benchSize)
}

func BenchmarkParseFEN(b *testing.B) {
	corpus := benchCorpus()
	fens := make([]string, len(corpus))
	for i := range corpus {
		fens[i] = corpus[i].pos.FEN()
	}
	for b.Loop() {
		for _, fen := range fens {
			if _, err := ParseFEN(fen); err != nil {
				b.Fatal(err)
			}
		}
	}
	perPosition(b, benchSize)
}

func BenchmarkPlayout(b *testing.B) {
	rng := newRNG(14)
	plies := 0
	for b.Loop() {
		plies += playout(rng, StartPosition(), 300, true, nil)
	}
	b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "plies/s")
}

func benchmarkPerft(b *testing.B, depth int, want uint64) {
	var nodes uint64
	start := time.Now()
	for b.Loop() {
		if n := Perft(StartPosition(), depth, true); n != want {
			b.Fatalf("perft(%d) = %d, want %d", depth, n, want)
		}
		nodes += want
	}
	b.ReportMetric(float64(nodes)/time.Since(start).Seconds(), "nodes/s")
}

func BenchmarkPerft4(b *testing.B) { benchmarkPerft(b, 4, perftStart[4]) }

func BenchmarkPerft5(b *testing.B) { benchmarkPerft(b, 5, perft5Start) }

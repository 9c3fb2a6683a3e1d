package distributed

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// allTargets sets cfg up to record every target self-play can: the
// auxiliary heads' and the surprise, with playout cap randomization,
// resignation, random opening plies and the search's values mixed in.
func allTargets(cfg *runconfig.Config) {
	cfg.Model.ReplyHead, cfg.Model.OwnershipHead, cfg.Model.ScoreHead = true, true, true
	cfg.Replay.SurpriseShare = 0.5
	cfg.SelfPlay.FastSimulations, cfg.SelfPlay.FullSearchShare = 2, 0.5
	cfg.SelfPlay.ResignThreshold, cfg.SelfPlay.ResignPlayoutShare = -0.1, 0.3 // some games resign: their last position has no move
	cfg.SelfPlay.SearchValueShare = 0.3
	cfg.Env.OpeningPlies = 3
}

// TestRecordCarriesEveryTarget: a game encoded into its record and
// decoded as the learner does gives the samples the actor's self-play
// built, every field of every target.
func TestRecordCarriesEveryTarget(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*runconfig.Config)
	}{
		{"smoke", func(*runconfig.Config) {}},
		{"every target", allTargets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, t.TempDir())
			tc.set(&cfg)
			mem := new(train.SampleMemory) // reused, as the learner does
			var resigned, replies, finals, surprises int
			for i, g := range selfPlayGames(t, cfg, 8) {
				if len(g.Samples) == 0 {
					continue // an actor sends none such
				}
				data, err := newRecord(g, "run", "actor", uint64(i+1), 2).encode()
				if err != nil {
					t.Fatal(err)
				}
				back, err := decodeRecord(data)
				if err != nil {
					t.Fatalf("game %d: decode: %v", i, err)
				}
				if back.id() != fmt.Sprintf("actor-%d", i+1) || back.Version != 2 {
					t.Errorf("game %d: decoded id %s, version %d", i, back.id(), back.Version)
				}
				got, decided, err := back.samples(cfg, mem)
				if err != nil {
					t.Fatalf("game %d: samples: %v", i, err)
				}
				if _, want := g.Winner(); decided != want {
					t.Errorf("game %d: decided %v, want %v (resigned %v)", i, decided, want, g.Resigned)
				}
				if j, diff := firstDifference(got, g.Samples); diff != "" {
					t.Fatalf("game %d, sample %d: %s differs from the one played", i, j, diff)
				}
				if g.Resigned {
					resigned++
				}
				for _, s := range got {
					replies += len(s.Reply)
					surprises += int(s.Surprise * 1000)
					if s.Final {
						finals++
					}
				}
			}
			if every := replies > 0 && finals > 0 && surprises > 0 && resigned > 0; every != (tc.name == "every target") {
				t.Errorf("%d resigned games; %d reply probabilities, %d final targets, %d thousandths of surprise", resigned, replies, finals, surprises)
			}
		})
	}
}

// firstDifference returns the first sample of got that differs from
// want's, and the field that differs; "" when they are equal.
func firstDifference(got, want []model.Sample) (int, string) {
	if len(got) != len(want) {
		return len(want), fmt.Sprintf("the count (%d samples, want %d)", len(got), len(want))
	}
	for j := range want {
		g, w := reflect.ValueOf(got[j]), reflect.ValueOf(want[j])
		for f := range g.NumField() {
			if !reflect.DeepEqual(g.Field(f).Interface(), w.Field(f).Interface()) {
				return j, g.Type().Field(f).Name
			}
		}
	}
	return 0, ""
}

func TestRecordRefusesBadGames(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	cfg.Model.ReplyHead, cfg.SelfPlay.SearchValueShare = true, 0.5
	g := selfPlayGames(t, cfg, 1)[0]
	if g.Resigned {
		t.Skip("the game resigned: the cases below assume one played to its end")
	}
	base := newRecord(g, "run", "actor", 1, 0)
	n := len(base.Game.Positions)
	// bad returns a copy of base that change makes bad.
	bad := func(change func(g *train.PlayedGame)) *record {
		r := *base
		r.Game.Moves = slices.Clone(base.Game.Moves)
		r.Game.Positions = slices.Clone(base.Game.Positions)
		change(&r.Game)
		return &r
	}
	for _, tc := range []struct {
		name string
		r    *record
	}{
		{"illegal move", bad(func(g *train.PlayedGame) {
			pos := env.StartPosition()
			for a := env.Action(0); a < env.NumActions; a++ {
				if m, err := env.MoveOf(a); err == nil && !slices.Contains(pos.LegalActions(nil, cfg.Env.Rules.TooTall), a) {
					g.Moves[0] = m
					break
				}
			}
		})},
		{"game not over", bad(func(g *train.PlayedGame) {
			g.Moves, g.Positions = g.Moves[:len(g.Moves)-1], g.Positions[:n-1]
			g.Positions[n-2].Reply = nil
		})},
		{"plies not increasing", bad(func(g *train.PlayedGame) { g.Positions[1].Ply = g.Positions[0].Ply })},
		{"a position after the last move", bad(func(g *train.PlayedGame) { g.Positions[n-1].Ply = len(g.Moves) })},
		{"no positions", bad(func(g *train.PlayedGame) { g.Positions = nil })},
		{"root value out of range", bad(func(g *train.PlayedGame) { g.Positions[0].Value = 5 })},
		{"policy not a distribution", bad(func(g *train.PlayedGame) {
			g.Positions[0].Policy = make([]float32, len(g.Positions[0].Policy))
		})},
		{"policy longer than the legal moves", bad(func(g *train.PlayedGame) {
			g.Positions[0].Policy = append(slices.Clone(g.Positions[0].Policy), 0)
		})},
		{"reply longer than the next legal moves", bad(func(g *train.PlayedGame) {
			g.Positions[0].Reply = append(slices.Clone(g.Positions[0].Reply), 0)
		})},
		{"reply to the last position", bad(func(g *train.PlayedGame) { g.Positions[n-1].Reply = []float32{1} })},
		{"negative surprise", bad(func(g *train.PlayedGame) { g.Positions[0].Surprise = -1 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := tc.r.encode()
			if err != nil {
				t.Fatal(err)
			}
			r, err := decodeRecord(data)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := r.samples(cfg, nil); err == nil {
				t.Error("samples: no error")
			}
		})
	}
	data, err := base.encode()
	if err != nil {
		t.Fatal(err)
	}
	version := func(v uint32) []byte {
		out := slices.Clone(data)
		binary.LittleEndian.PutUint32(out[len(recordMagic):], v)
		binary.LittleEndian.PutUint32(out[len(out)-4:], codec.Checksum(out[:len(out)-4]))
		return out
	}
	var newer *codec.VersionError
	for _, tc := range []struct {
		name string
		data []byte
		want any // an error for errors.Is, or a pointer for errors.As
	}{
		{"truncated", data[:len(data)-5], errTruncated},
		{"flipped byte", flip(data, 20), errCorrupt},
		{"trailing byte", append(slices.Clone(data), 0), errCorrupt},
		{"a newer version", version(recordVersion + 1), &newer},
		{"version 1", version(1), &newer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeRecord(tc.data)
			ok := false
			switch want := tc.want.(type) {
			case error:
				ok = errors.Is(err, want)
			default:
				ok = errors.As(err, want)
			}
			if !ok {
				t.Errorf("decode: %v, want %v", err, tc.want)
			}
			if newer != nil && !strings.Contains(err.Error(), fmt.Sprintf("format version %d: this learner reads versions 2 to %d", newer.Got, recordVersion)) {
				t.Errorf("decode: %q does not name the versions", err)
			}
		})
	}
}

// TestRecordVersion2 reads a game as an actor of an earlier release sent
// it (testdata/game-v2.bin, a smoke game with 12 plies at most): its
// samples are those that release's learner built (their digest), with
// the value targets the record carries, plus the final ownership and
// score that the moves give.
func TestRecordVersion2(t *testing.T) {
	data, err := os.ReadFile("testdata/game-v2.bin")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, t.TempDir())
	cfg.Env.Rules.MaxPlies = 12
	cfg.Model.OwnershipHead = true
	r, err := decodeRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.format != 2 || r.id() != "actor-7" || r.Version != 3 {
		t.Fatalf("decoded version %d, id %s, network %d: want version 2, actor-7, network 3", r.format, r.id(), r.Version)
	}
	got, decided, err := r.samples(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, s := range got {
		legal := make([]int32, len(s.Legal))
		for i, a := range s.Legal {
			legal[i] = int32(a)
		}
		for _, v := range []any{s.Obs, legal, s.Policy, s.Value} {
			if err := binary.Write(h, binary.LittleEndian, v); err != nil {
				t.Fatal(err)
			}
		}
		if s.Ownership == nil || !s.Final || s.Reply != nil || s.Surprise != 0 {
			t.Errorf("sample: ownership %v, final %v, reply %v, surprise %v: want the final targets only", s.Ownership, s.Final, s.Reply, s.Surprise)
		}
	}
	if sum := fmt.Sprintf("%x", h.Sum(nil)); sum != "1eebb79bb2aa68c5f2046da86e3fcc83d8233bc9f83c90f390ee7cf412feb827" || decided || len(got) != 4 {
		t.Errorf("%d samples, decided %v, digest %s: want the 4 samples version 2 gave, undecided", len(got), decided, sum)
	}
	if _, err := r.encode(); err == nil {
		t.Error("a version 2 record encoded: only the current version is written")
	}
}

func flip(data []byte, i int) []byte {
	out := slices.Clone(data)
	out[i] ^= 0x40
	return out
}

// FuzzDecodeRecord: any bytes decode to an error or to a record that
// (of the current version) encodes back to the same bytes, and building
// its samples never panics.
func FuzzDecodeRecord(f *testing.F) {
	cfg := testConfig(f, f.TempDir())
	allTargets(&cfg)
	for i, g := range selfPlayGames(f, cfg, 2) {
		data, err := newRecord(g, "run", "actor", uint64(i), 1).encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if data, err := os.ReadFile("testdata/game-v2.bin"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(recordMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeRecord(data)
		if err != nil {
			return
		}
		if r.format == recordVersion {
			again, err := r.encode()
			if err != nil || !bytes.Equal(again, data) {
				t.Fatalf("decoded record encodes to other bytes (%v)", err)
			}
		}
		_, _, _ = r.samples(cfg, nil)
	})
}

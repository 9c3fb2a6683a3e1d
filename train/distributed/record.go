package distributed

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// A game record, as an actor sends it, is binary, little-endian:
//
//	magic "DSGAME", format version (uint32)
//	run id, actor id (strings: uint32 length, bytes)
//	counter (uint64), network version (uint32)
//	resigned (uint8, 0 or 1)
//	moves: count (uint16), then each as an env.Action (uint16)
//	positions: count (uint16), then each as its ply (uint16: the moves
//	played before it, increasing), its policy (count uint16, float32s,
//	over the position's legal actions in env's order), the search's root
//	value (float64), the surprise (float32) and the reply target (count
//	uint16, float32s over the next position's legal actions; count 0:
//	none)
//	CRC-32C (uint32) of all the bytes before it
//
// That is a [train.PlayedGame]: the learner builds the samples, every
// target included, as the actor's self-play does ([train.PlayedGame.Samples]),
// replaying the moves, which also checks that every move is legal.
// Version 2, which actors of earlier releases send and a stream may still
// hold, has each position's value target (float32) in place of its root
// value, surprise and reply: its games train the heads those feed on
// their other targets only.
const (
	recordMagic   = "DSGAME"
	recordVersion = 3
	// oldestRecordVersion is the oldest version a learner reads.
	oldestRecordVersion = 2
	maxIDLen            = 64
)

var (
	errCorrupt   = errors.New("corrupt game record")
	errTruncated = errors.New("truncated game record")
)

// record is one finished self-play game.
type record struct {
	RunID   string
	Actor   string
	Counter uint64
	Version int
	Game    train.PlayedGame
	// format is the record's format version: recordVersion, or the one
	// it was read in.
	format uint32
	// values are the value targets of a version 2 record.
	values []float32
}

// id is the game's unique id, its message id in the stream.
func (r *record) id() string { return fmt.Sprintf("%s-%d", r.Actor, r.Counter) }

// newRecord turns a finished game into a record.
func newRecord(g train.SelfPlayGame, runID, actor string, counter uint64, version int) *record {
	return &record{RunID: runID, Actor: actor, Counter: counter, Version: version, Game: g.PlayedGame, format: recordVersion}
}

// encode returns the bytes of a record of the current version.
func (r *record) encode() ([]byte, error) {
	g := &r.Game
	if r.format != recordVersion {
		return nil, fmt.Errorf("game record: version %d: only version %d is written", r.format, recordVersion)
	}
	if len(g.Moves) > math.MaxUint16 || len(g.Positions) > math.MaxUint16 {
		return nil, fmt.Errorf("game record: %d moves: too long", len(g.Moves))
	}
	var buf bytes.Buffer
	w := codec.NewWriter(&buf)
	w.Header(recordMagic, recordVersion)
	w.String(r.RunID)
	w.String(r.Actor)
	w.U64(r.Counter)
	w.U32(uint32(r.Version))
	resigned := byte(0)
	if g.Resigned {
		resigned = 1
	}
	w.Bytes([]byte{resigned})
	w.U16(uint16(len(g.Moves)))
	for _, m := range g.Moves {
		a, err := env.ActionOf(m)
		if err != nil {
			return nil, fmt.Errorf("game record: move %v: %w", m, err)
		}
		w.U16(uint16(a))
	}
	w.U16(uint16(len(g.Positions)))
	for _, p := range g.Positions {
		w.U16(uint16(p.Ply))
		w.U16(uint16(len(p.Policy)))
		w.Float32s(p.Policy)
		w.U64(math.Float64bits(p.Value))
		w.F32(p.Surprise)
		w.U16(uint16(len(p.Reply)))
		w.Float32s(p.Reply)
	}
	w.Sum()
	return buf.Bytes(), w.Err()
}

// decodeRecord reads a record's bytes, of any version from
// oldestRecordVersion to recordVersion. It checks the format only;
// whether the game is one of the run's, and legal, is [record.samples]'
// job.
func decodeRecord(data []byte) (*record, error) {
	d := codec.NewReader(bytes.NewReader(data), errCorrupt, errTruncated)
	format, err := d.HeaderVersions(recordMagic, oldestRecordVersion, recordVersion)
	if ve := (*codec.VersionError)(nil); errors.As(err, &ve) {
		return nil, recordVersionError{ve}
	}
	if err != nil {
		return nil, fmt.Errorf("game record: %w", err)
	}
	r := &record{format: format}
	g := &r.Game
	r.RunID = d.String(maxIDLen, "run id")
	r.Actor = d.String(maxIDLen, "actor id")
	r.Counter = d.U64()
	r.Version = int(d.U32())
	switch b := d.Bytes(1); {
	case b == nil:
	case b[0] > 1:
		d.Fail(fmt.Errorf("%w: resigned flag %d", errCorrupt, b[0]))
	default:
		g.Resigned = b[0] == 1
	}
	// The counts come from the data: room for as many as its bytes can
	// hold (a move takes 2, a position at least 8), not more.
	n := int(d.U16())
	g.Moves = make([]env.Move, 0, min(n, len(data)/2))
	for i := 0; i < n && d.Err() == nil; i++ {
		m, err := env.MoveOf(env.Action(d.U16()))
		if d.Err() == nil && err != nil {
			d.Fail(fmt.Errorf("%w: move %d: %v", errCorrupt, i, err))
		}
		g.Moves = append(g.Moves, m)
	}
	n = int(d.U16())
	g.Positions = make([]train.SearchedPosition, 0, min(n, len(data)/8))
	for i := 0; i < n && d.Err() == nil; i++ {
		p := train.SearchedPosition{Ply: int(d.U16()), Value: math.NaN()}
		p.Policy = readPolicy(d, "position %d", i)
		if format == 2 {
			r.values = append(r.values, d.F32())
		} else {
			p.Value = math.Float64frombits(d.U64())
			p.Surprise = d.F32()
			if p.Reply = readPolicy(d, "position %d's reply", i); len(p.Reply) == 0 {
				p.Reply = nil
			}
		}
		g.Positions = append(g.Positions, p)
	}
	if err := d.Sum(); err != nil {
		return nil, fmt.Errorf("game record: %w", err)
	}
	if d.Bytes(1) != nil {
		return nil, fmt.Errorf("game record: %w: bytes after the checksum", errCorrupt)
	}
	return r, nil
}

// recordVersionError is a record of a format version the learner does
// not read.
type recordVersionError struct{ *codec.VersionError }

func (e recordVersionError) Error() string {
	return fmt.Sprintf("game record of format version %d: this learner reads versions %d to %d", e.Got, oldestRecordVersion, recordVersion)
}

func (e recordVersionError) Unwrap() error { return e.VersionError }

// readPolicy reads a count and as many probabilities, at most one for
// each action; what, with the position's index i, names them in an
// error.
func readPolicy(d *codec.Reader, what string, i int) []float32 {
	k := int(d.U16())
	if d.Err() != nil {
		return nil
	}
	if k > env.NumActions {
		d.Fail(fmt.Errorf("%w: "+what+" has %d policy values", errCorrupt, i, k))
		return nil
	}
	p := make([]float32, k)
	d.Float32s(p)
	return p
}

// samples builds the game's training samples under cfg, as the actor's
// self-play built them ([train.PlayedGame.Samples]), and reports whether
// it was decided (won, or resigned): an error for a game without
// positions or one whose samples cannot be built. The samples'
// observations and legal actions go to mem (nil: new memory) and share
// its memory.
func (r *record) samples(cfg runconfig.Config, mem *train.SampleMemory) ([]model.Sample, bool, error) {
	if len(r.Game.Positions) < 1 {
		return nil, false, fmt.Errorf("a game of %d moves without positions", len(r.Game.Moves))
	}
	g, err := r.Game.Samples(cfg, mem)
	if err != nil {
		return nil, false, err
	}
	if r.format == 2 {
		// A version 2 record carries the actor's value targets.
		for i := range g.Samples {
			g.Samples[i].Value = r.values[i]
			if err := g.Samples[i].Validate(); err != nil {
				return nil, false, fmt.Errorf("ply %d: %w", g.SamplePlies[i], err)
			}
		}
	}
	_, decided := g.Winner()
	return g.Samples, decided, nil
}

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
)

// A game record, as an actor sends it, is binary, little-endian:
//
//	magic "DSGAME", format version (uint32)
//	run id, actor id (strings: uint32 length, bytes)
//	counter (uint64), network version (uint32)
//	first (uint16): plies played before the first searched position
//	resigned (uint8, 0 or 1)
//	moves: count (uint16), then each as an env.Action (uint16)
//	positions: count (uint16), then each as its policy (count uint16,
//	float32s, over the position's legal actions in env's order) and value
//	(float32)
//	CRC-32C (uint32) of all the bytes before it
//
// Observations and legal actions are not sent: the learner rebuilds them by
// replaying the moves, which also checks that every move is legal.
const (
	recordMagic   = "DSGAME"
	recordVersion = 1
	maxIDLen      = 64
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
	// First is the number of plies (random opening ones) before the first
	// searched position.
	First    int
	Resigned bool
	Moves    []env.Action
	Policies [][]float32
	Values   []float32
}

// id is the game's unique id, its message id in the stream.
func (r *record) id() string { return fmt.Sprintf("%s-%d", r.Actor, r.Counter) }

// newRecord turns a finished game into a record.
func newRecord(g train.SelfPlayGame, runID, actor string, counter uint64, version int) (*record, error) {
	r := &record{RunID: runID, Actor: actor, Counter: counter, Version: version, Resigned: g.Resigned}
	r.First = len(g.Moves) - len(g.Samples)
	if g.Resigned {
		r.First++
	}
	if r.First < 0 {
		return nil, fmt.Errorf("game of %d moves with %d positions", len(g.Moves), len(g.Samples))
	}
	for _, m := range g.Moves {
		a, err := env.ActionOf(m)
		if err != nil {
			return nil, fmt.Errorf("game record: move %v: %w", m, err)
		}
		r.Moves = append(r.Moves, a)
	}
	for _, s := range g.Samples {
		r.Policies = append(r.Policies, s.Policy)
		r.Values = append(r.Values, s.Value)
	}
	return r, nil
}

// encode returns the record's bytes.
func (r *record) encode() ([]byte, error) {
	if len(r.Moves) > math.MaxUint16 || len(r.Policies) > math.MaxUint16 || r.First > math.MaxUint16 {
		return nil, fmt.Errorf("game record: %d moves: too long", len(r.Moves))
	}
	var buf bytes.Buffer
	w := codec.NewWriter(&buf)
	w.Header(recordMagic, recordVersion)
	w.String(r.RunID)
	w.String(r.Actor)
	w.U64(r.Counter)
	w.U32(uint32(r.Version))
	w.U16(uint16(r.First))
	resigned := byte(0)
	if r.Resigned {
		resigned = 1
	}
	w.Bytes([]byte{resigned})
	w.U16(uint16(len(r.Moves)))
	for _, a := range r.Moves {
		w.U16(uint16(a))
	}
	w.U16(uint16(len(r.Policies)))
	for i, p := range r.Policies {
		w.U16(uint16(len(p)))
		w.Float32s(p)
		w.F32(r.Values[i])
	}
	w.Sum()
	return buf.Bytes(), w.Err()
}

// decodeRecord reads a record's bytes. It checks the format only; whether
// the game is one of the run's, and legal, is [record.samples]' job.
func decodeRecord(data []byte) (*record, error) {
	d := codec.NewReader(bytes.NewReader(data), errCorrupt, errTruncated)
	if err := d.Header(recordMagic, recordVersion); err != nil {
		return nil, fmt.Errorf("game record: %w", err)
	}
	r := &record{}
	r.RunID = d.String(maxIDLen, "run id")
	r.Actor = d.String(maxIDLen, "actor id")
	r.Counter = d.U64()
	r.Version = int(d.U32())
	r.First = int(d.U16())
	switch b := d.Bytes(1); {
	case b == nil:
	case b[0] > 1:
		d.Fail(fmt.Errorf("%w: resigned flag %d", errCorrupt, b[0]))
	default:
		r.Resigned = b[0] == 1
	}
	n := int(d.U16())
	for i := 0; i < n && d.Err() == nil; i++ {
		r.Moves = append(r.Moves, env.Action(d.U16()))
	}
	n = int(d.U16())
	for i := 0; i < n && d.Err() == nil; i++ {
		k := int(d.U16())
		if k > env.NumActions {
			d.Fail(fmt.Errorf("%w: position %d has %d policy values", errCorrupt, i, k))
			break
		}
		p := make([]float32, k)
		d.Float32s(p)
		r.Policies = append(r.Policies, p)
		r.Values = append(r.Values, d.F32())
	}
	if err := d.Sum(); err != nil {
		return nil, fmt.Errorf("game record: %w", err)
	}
	if d.Bytes(1) != nil {
		return nil, fmt.Errorf("game record: %w: bytes after the checksum", errCorrupt)
	}
	return r, nil
}

// samples replays the game under rules and returns its training samples
// and whether it was decided (won, or resigned): an error for an illegal
// move, a position count that does not fit the moves, a game that ends too
// early or not at all, or a policy or value that is not a training target.
func (r *record) samples(rules env.Rules) ([]model.Sample, bool, error) {
	want := len(r.Moves) - r.First
	if r.Resigned {
		want++
	}
	if r.First > len(r.Moves) || len(r.Policies) != want || want < 1 {
		return nil, false, fmt.Errorf("%d positions after %d opening plies of %d moves (resigned: %v)", len(r.Policies), r.First, len(r.Moves), r.Resigned)
	}
	game := env.NewGame(rules)
	out := make([]model.Sample, 0, len(r.Policies))
	for ply := 0; ply <= len(r.Moves); ply++ {
		if ply >= r.First && ply-r.First < len(r.Policies) {
			if game.Status().Over() {
				return nil, false, fmt.Errorf("ply %d: a position after the end of the game (%v)", ply, game.Status())
			}
			pos := game.Position()
			i := ply - r.First
			s := model.Sample{Obs: make([]float32, env.ObservationSize), Policy: r.Policies[i], Value: r.Values[i]}
			env.EncodeObservation(s.Obs, &pos, rules, game.Repetitions())
			s.Legal = pos.LegalActions(nil, rules.TooTall)
			if err := s.Validate(); err != nil {
				return nil, false, fmt.Errorf("ply %d: %w", ply, err)
			}
			out = append(out, s)
		}
		if ply == len(r.Moves) {
			break
		}
		m, err := env.MoveOf(r.Moves[ply])
		if err == nil {
			err = game.Play(m)
		}
		if err != nil {
			return nil, false, fmt.Errorf("ply %d: %w", ply, err)
		}
	}
	if !r.Resigned && !game.Status().Over() {
		return nil, false, fmt.Errorf("the game goes on after its %d moves", len(r.Moves))
	}
	_, won := game.Status().Winner()
	return out, won || r.Resigned, nil
}

package distributed

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"

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
//	resigned (uint8, 0 or 1)
//	moves: count (uint16), then each as an env.Action (uint16)
//	positions: count (uint16), then each as its ply (uint16: the moves
//	played before it, increasing), its policy (count uint16, float32s,
//	over the position's legal actions in env's order) and value (float32)
//	CRC-32C (uint32) of all the bytes before it
//
// Observations and legal actions are not sent: the learner rebuilds them by
// replaying the moves, which also checks that every move is legal. Version
// 2 gives each position its ply, as playout cap randomization trains on a
// share of the plies only; version 1 had one "first ply" instead.
const (
	recordMagic   = "DSGAME"
	recordVersion = 2
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
	// Plies holds the number of moves played before each position.
	Plies    []int
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
	if len(g.SamplePlies) != len(g.Samples) {
		return nil, fmt.Errorf("game of %d positions with %d plies", len(g.Samples), len(g.SamplePlies))
	}
	r.Plies = slices.Clone(g.SamplePlies)
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
	if len(r.Moves) > math.MaxUint16 || len(r.Policies) > math.MaxUint16 {
		return nil, fmt.Errorf("game record: %d moves: too long", len(r.Moves))
	}
	var buf bytes.Buffer
	w := codec.NewWriter(&buf)
	w.Header(recordMagic, recordVersion)
	w.String(r.RunID)
	w.String(r.Actor)
	w.U64(r.Counter)
	w.U32(uint32(r.Version))
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
		w.U16(uint16(r.Plies[i]))
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
		r.Plies = append(r.Plies, int(d.U16()))
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

// sampleMemory is where a game's samples are rebuilt: their observations
// and legal actions.
type sampleMemory struct {
	obs   []float32
	legal []env.Action
}

// samples replays the game under rules and returns its training samples
// and whether it was decided (won, or resigned): an error for an illegal
// move, no positions or plies that do not increase within the moves, a
// game that ends too early or not at all, or a policy or value that is not
// a training target. The samples' observations and legal actions go to
// mem, grown as needed (nil: new memory), and share its memory.
func (r *record) samples(rules env.Rules, mem *sampleMemory) ([]model.Sample, bool, error) {
	if len(r.Policies) < 1 {
		return nil, false, fmt.Errorf("a game of %d moves without positions", len(r.Moves))
	}
	last := len(r.Moves) - 1
	if r.Resigned {
		last++ // the position resigned in has no move
	}
	for i, ply := range r.Plies {
		if ply > last || (i > 0 && ply <= r.Plies[i-1]) {
			return nil, false, fmt.Errorf("position %d at ply %d: want increasing plies up to %d (of %d moves, resigned: %v)", i, ply, last, len(r.Moves), r.Resigned)
		}
	}
	if mem == nil {
		mem = new(sampleMemory)
	}
	mem.obs = slices.Grow(mem.obs[:0], len(r.Policies)*env.ObservationSize)
	obs := mem.obs // within its capacity: the same array
	mem.legal = mem.legal[:0]
	game := env.NewGame(rules)
	out := make([]model.Sample, 0, len(r.Policies))
	for ply, next := 0, 0; ply <= len(r.Moves); ply++ {
		if next < len(r.Plies) && r.Plies[next] == ply {
			if game.Status().Over() {
				return nil, false, fmt.Errorf("ply %d: a position after the end of the game (%v)", ply, game.Status())
			}
			pos := game.Position()
			at := len(obs)
			obs = obs[:at+env.ObservationSize]
			s := model.Sample{Obs: obs[at:len(obs):len(obs)], Policy: r.Policies[next], Value: r.Values[next]}
			next++
			env.EncodeObservation(s.Obs, &pos, rules, game.Repetitions())
			// Appended in place: a sample's actions keep the array they
			// were appended to, also when a later append moves the rest.
			at = len(mem.legal)
			mem.legal = pos.LegalActions(mem.legal, rules.TooTall)
			s.Legal = mem.legal[at:len(mem.legal):len(mem.legal)]
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

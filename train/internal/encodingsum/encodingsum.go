// Package encodingsum records what the version fixtures and the built-in
// player were made for: the observation encoding, the action encoding and
// the network file format. A change of any of them breaks those files
// (networks of another encoding are refused, or worse, read the wrong
// planes), so a test of package train compares the record of
// train/testdata/encoding.txt with [Current] and names the procedure when
// they differ: see train/internal/fixtures, which rewrites the record
// with the fixtures.
package encodingsum

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
)

// Record is what the files were made for.
type Record struct {
	// The versions files carry in their headers, and the shapes.
	EncodingVersion, FormatVersion, Planes, Actions int
	// Observations is the SHA-256 of the observations of fixed positions
	// (every plane: stacks, depths, the too-tall rule, repetitions, the
	// move limit), Moves that of every action's move: a change of either
	// without a new EncodingVersion is the trap this record catches.
	Observations, Moves string
}

// positions are games that reach every plane of the observation: deep and
// tall stacks, both sides to move, the too-tall rule on and off, a
// repetition and the move limit near.
var positions = []struct {
	fen   string
	moves []string
	rules env.Rules
}{
	{fen: env.StartFEN, rules: env.DefaultRules()},
	{fen: env.StartFEN, moves: []string{"a6-2-a4", "a1-2-a3", "a4-1-a5", "a3-1-a2", "a5-1-a4", "a2-1-a3"}, rules: env.DefaultRules()},
	{fen: "rrrrrbbbb,,,,,/,,,,,/,,bb,,,/,,r,,,/,,,,,/,,,,,b b", rules: env.DefaultRules()},
	{fen: "rbrbrbrbrb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/bbbb,rr,,,,b r", rules: env.Rules{TooTall: true, MaxPlies: 40, RepetitionLimit: 2}},
	{fen: "rrrrrr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/bbbbbbb,,,,,r r", rules: env.Rules{TooTall: false, MaxPlies: 0, RepetitionLimit: 0}},
}

// Current returns the record of this build's encoding and file format.
func Current() (Record, error) {
	r := Record{EncodingVersion: env.EncodingVersion, FormatVersion: model.FormatVersion, Planes: env.NumPlanes, Actions: env.NumActions}
	all, err := observations()
	if err != nil {
		return Record{}, err
	}
	obs := sha256.New()
	for _, planes := range all {
		for _, v := range planes {
			binary.Write(obs, binary.LittleEndian, math.Float32bits(v)) // a hash never fails
		}
	}
	moves := sha256.New()
	for a := range env.NumActions {
		m, err := env.MoveOf(env.Action(a))
		text := "-"
		if err == nil {
			text = m.String()
		}
		fmt.Fprintln(moves, text)
	}
	r.Observations, r.Moves = hex.EncodeToString(obs.Sum(nil)), hex.EncodeToString(moves.Sum(nil))
	return r, nil
}

// observations returns the observation of each of the positions.
func observations() ([][]float32, error) {
	var all [][]float32
	for i, tc := range positions {
		p, err := env.ParseFEN(tc.fen)
		if err != nil {
			return nil, fmt.Errorf("position %d: %w", i, err)
		}
		g := env.NewGameFrom(p, tc.rules)
		for _, text := range tc.moves {
			m, err := env.ParseMove(text)
			if err == nil {
				err = g.Play(m)
			}
			if err != nil {
				return nil, fmt.Errorf("position %d: %w", i, err)
			}
		}
		pos := g.Position()
		planes := make([]float32, env.ObservationSize)
		env.EncodeObservation(planes, &pos, g.Rules(), g.Repetitions())
		all = append(all, planes)
	}
	return all, nil
}

// header is the first line of a record file.
const header = "# the encoding the version fixtures and the built-in player were made for; written by go run ./train/internal/fixtures -write"

// Text returns the record as the file holds it.
func (r Record) Text() []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, header)
	fmt.Fprintf(&b, "encoding_version %d\nformat_version %d\nplanes %d\nactions %d\nobservations %s\nmoves %s\n",
		r.EncodingVersion, r.FormatVersion, r.Planes, r.Actions, r.Observations, r.Moves)
	return b.Bytes()
}

// Read reads a record file.
func Read(path string) (Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Record{}, err
	}
	var r Record
	ints := map[string]*int{"encoding_version": &r.EncodingVersion, "format_version": &r.FormatVersion, "planes": &r.Planes, "actions": &r.Actions}
	texts := map[string]*string{"observations": &r.Observations, "moves": &r.Moves}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, value, _ := strings.Cut(text, " ")
		switch {
		case ints[key] != nil:
			n, err := strconv.Atoi(value)
			if err != nil {
				return Record{}, fmt.Errorf("%s: line %d: %s is %q: want a whole number", path, line, key, value)
			}
			*ints[key] = n
		case texts[key] != nil:
			*texts[key] = value
		default:
			return Record{}, fmt.Errorf("%s: line %d: unknown key %q", path, line, key)
		}
	}
	return r, nil
}

package model

import (
	"bytes"
	"os"
	"testing"
)

// TestReadsFilesOfFormatVersion1 loads a player file written by the
// release that introduced format version 1 and writes it again: the bytes
// must be the same, so that every network file already on disk stays
// readable and a rewrite changes nothing.
func TestReadsFilesOfFormatVersion1(t *testing.T) {
	const path = "testdata/player-v1.dsnn"
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	net, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := net.Config(); got != (Config{Blocks: 0, Channels: 2, ValuePlanes: 1, ValueHidden: 2}) {
		t.Errorf("architecture %v: want 0x2 (value 1/2)", got)
	}
	for key, value := range map[string]string{"kind": "player", "iterations": "1", "run": "fixture"} {
		if net.Meta[key] != value {
			t.Errorf("meta %s = %q: want %q", key, net.Meta[key], value)
		}
	}
	var buf bytes.Buffer
	if _, err := net.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("rewritten file differs from the version-1 file (%d bytes, want %d)", buf.Len(), len(want))
	}
}

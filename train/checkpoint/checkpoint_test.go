package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/runconfig"
)

// fixtureRun is the version fixture of this format: a run directory.
var fixtureRun = fmt.Sprintf("../testdata/run-v%d", Version)

func TestErrors(t *testing.T) {
	cfg, err := runconfig.LoadSaved(filepath.Join(fixtureRun, runconfig.File))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(Path(fixtureRun, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(Path(fixtureRun, 1), cfg); err != nil {
		t.Fatalf("the fixture: %v", err)
	}
	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 0x40
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"foreign", []byte("PK\x03\x04 this is a zip file, not ours"), "bad magic"},
		{"truncated", good[:len(good)-100], "checksum"},
		{"flipped bit", flip, "checksum"},
		{"header only", good[:16], "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ckpt-000001.dsck")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path, cfg); !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load: %v, want an ErrUnreadable naming the file and %q", err, tc.want)
			}
			if _, _, err := ReadPlayer(path); err == nil {
				t.Error("ReadPlayer accepted it")
			}
		})
	}
	if _, _, err := Latest(t.TempDir()); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty directory: %v, want ErrNotFound", err)
	}
}

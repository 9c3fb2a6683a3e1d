package encodingsum

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deathstacks/deathstacks/env"
)

func TestRecordRoundTrip(t *testing.T) {
	r, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Observations) != 64 || len(r.Moves) != 64 || r.Planes == 0 {
		t.Fatalf("record %+v", r)
	}
	again, err := Current()
	if err != nil || again != r {
		t.Errorf("a second Current() = %+v, %v: want the same record", again, err)
	}
	path := filepath.Join(t.TempDir(), "encoding.txt")
	if err := os.WriteFile(path, r.Text(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil || back != r {
		t.Errorf("Read = %+v, %v: want %+v", back, err, r)
	}
}

// TestPositionsReachEveryPlane: a change of any plane shows in the record.
func TestPositionsReachEveryPlane(t *testing.T) {
	all, err := observations()
	if err != nil {
		t.Fatal(err)
	}
	for plane := range env.NumPlanes {
		reached := false
		for _, obs := range all {
			for _, v := range obs[plane*env.NumSquares : (plane+1)*env.NumSquares] {
				reached = reached || v != 0
			}
		}
		if !reached {
			t.Errorf("plane %d is 0 in every position", plane)
		}
	}
}

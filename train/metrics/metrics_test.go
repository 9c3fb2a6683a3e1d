package metrics

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleMetrics(iteration int) Iteration {
	m := Iteration{
		Iteration: iteration, PolicyLoss: 3.5 - 0.1*float64(iteration), ValueLoss: 0.9, TotalLoss: 4.4,
		SelfPlayGames: 32, SelfPlayPositions: 3000, MeanGameLength: 93.75, RedWinShare: 0.5,
		BlueWinShare: 0.4, DrawShare: 0.1, ElapsedSec: float64(60 * iteration),
	}
	if iteration%2 == 0 {
		m.Eval = map[string]EvalResult{"random": {Games: 20, Score: 0.9, Elo: 380, EloLow: 250, EloHigh: 510}}
	}
	return m
}

// writeLog appends iterations 1 to n to a new log and returns its path
// and what it holds.
func writeLog(t *testing.T, n int) (path string, want []Iteration) {
	t.Helper()
	path = filepath.Join(t.TempDir(), File)
	for i := 1; i <= n; i++ {
		m := sampleMetrics(i)
		want = append(want, m)
		if err := Append(path, m); err != nil {
			t.Fatal(err)
		}
	}
	return path, want
}

func TestMetricsAppendRead(t *testing.T) {
	path, want := writeLog(t, 4)
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v\nwant %+v", got, want)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 4 || !strings.Contains(string(data), `"policy_loss":3.4`) {
		t.Errorf("file has %d lines:\n%s", n, data)
	}
}

func TestMetricsNonFinite(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	m := sampleMetrics(1)
	m.PolicyLoss, m.TotalLoss, m.SamplesPerSec = math.NaN(), math.Inf(1), 0
	if err := Append(path, m); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"policy_loss":null`) || !strings.Contains(string(data), `"total_loss":null`) {
		t.Errorf("non-finite values not written as null: %s", data)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	g := got[0]
	if !math.IsNaN(g.PolicyLoss) || !math.IsNaN(g.TotalLoss) || g.SamplesPerSec != 0 || g.ValueLoss != m.ValueLoss {
		t.Errorf("read back %+v", g)
	}
}

func TestMetricsTornLine(t *testing.T) {
	path, _ := writeLog(t, 2)
	// A crash in the middle of the third append.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"iteration":3,"policy_lo`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, err := Read(path)
	if err != nil || len(got) != 2 {
		t.Fatalf("Read with a torn last line = %d lines, %v; want 2, nil", len(got), err)
	}
	if err := Append(path, sampleMetrics(3)); err != nil {
		t.Fatal(err)
	}
	got, err = Read(path)
	if err != nil || len(got) != 3 || got[2].Iteration != 3 {
		t.Fatalf("after the next append: %d lines, %v", len(got), err)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"iteration\":1}\nnot json\n{\"iteration\":3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad middle line: err = %v, want one naming line 2", err)
	}
	if _, err := Read(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestTruncate(t *testing.T) {
	path, want := writeLog(t, 5)
	if err := Truncate(path, 3); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want[:3]) {
		t.Errorf("after truncating to 3: %+v", got)
	}
	if err := Truncate(filepath.Join(t.TempDir(), "none.jsonl"), 1); err != nil {
		t.Errorf("truncating a missing log: %v", err)
	}
}

// FuzzRead checks that no log panics the reader, and that what it
// reads survives a truncation that keeps every line.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"iteration\":1,\"policy_loss\":2.5}\n{\"iteration\":2,\"eval\":{\"random\":{\"games\":2}}}\n"))
	f.Add([]byte("{\"iteration\":1}\n{\"itera"))
	f.Add([]byte("\n\n[1,2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), File)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ms, err := Read(path)
		if err != nil {
			return
		}
		last := 0
		for _, m := range ms {
			last = max(last, m.Iteration)
		}
		if err := Truncate(path, last); err != nil {
			t.Fatal(err)
		}
		back, err := Read(path)
		if err != nil || len(back) != len(ms) {
			t.Fatalf("after rewriting: %d of %d lines, %v", len(back), len(ms), err)
		}
	})
}

// TestReadsLogOfFormatVersion1 reads the log of the oldest run format kept
// as a fixture: every key it holds must come back with its value, so that
// moving or renaming the Go types never changes the JSON.
func TestReadsLogOfFormatVersion1(t *testing.T) {
	path := filepath.Join("..", "testdata", "run-v1", File)
	ms, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(ms) != len(lines) || len(ms) == 0 {
		t.Fatalf("read %d lines of %d", len(ms), len(lines))
	}
	for i, m := range ms {
		var want, got map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(again, &got); err != nil {
			t.Fatal(err)
		}
		for key, v := range want {
			if !reflect.DeepEqual(got[key], v) {
				t.Errorf("line %d: %s = %v after a round trip, want %v", i+1, key, got[key], v)
			}
		}
	}
}

func TestTrainingTime(t *testing.T) {
	path, _ := writeLog(t, 3)
	again := sampleMetrics(2) // iteration 2 again, after a resume
	again.ElapsedSec = 500
	if err := Append(path, again); err != nil {
		t.Fatal(err)
	}
	timed := sampleMetrics(4) // a log that records CPU time: it wins
	timed.ElapsedSec, timed.CPUSec, timed.Cores = 900, 1000, 2
	if err := Append(path, timed); err != nil {
		t.Fatal(err)
	}
	got, err := TrainingTime(path)
	if want := map[int]float64{1: 60, 2: 500, 3: 180, 4: 500}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("TrainingTime = %v, %v; want %v", got, err, want)
	}
	if got, err := TrainingTime(filepath.Join(t.TempDir(), File)); err != nil || len(got) != 0 {
		t.Errorf("a run without a log: %v, %v; want none", got, err)
	}
}

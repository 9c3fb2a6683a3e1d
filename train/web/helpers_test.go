package web

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/report"
)

// testNetwork saves a small network with seeded random weights and
// returns its path: analysis is tested with a real network.
func testNetwork(t testing.TB) string {
	t.Helper()
	net, err := model.New(model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 8}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "random.model")
	if err := net.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// testRun makes a run directory with n iterations of metrics, an
// evaluation against random and greedy every other one, and a ladder.
func testRun(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := 1; i <= n; i++ {
		m := metrics.Iteration{
			Iteration: i, PolicyLoss: 4 - 0.2*float64(i), ValueLoss: 0.9 - 0.05*float64(i), TotalLoss: 5 - 0.25*float64(i),
			PositionsPerSec: 300 + 10*float64(i%3), MeanGameLength: 60 + float64(i), ElapsedSec: 60 * float64(i),
		}
		if i%2 == 0 {
			m.Eval = map[string]metrics.EvalResult{
				"random": {Games: 20, Score: 0.6, Elo: 40 * float64(i), EloLow: 40*float64(i) - 60, EloHigh: 40*float64(i) + 60},
				"greedy": {Games: 20, Score: 0.4, Elo: 25*float64(i) - 150, EloLow: 25*float64(i) - 220, EloHigh: 25*float64(i) - 80},
			}
		}
		if err := metrics.Append(filepath.Join(dir, metrics.File), m); err != nil {
			t.Fatal(err)
		}
	}
	ladder := report.LadderReport{Run: dir, TimeAxis: "iteration"}
	for i := 2; i <= n; i += 2 {
		ladder.Snapshots = append(ladder.Snapshots, report.LadderPoint{Iteration: i, Name: "net", Elo: 30 * float64(i), CI95: [2]float64{30*float64(i) - 50, 30*float64(i) + 50}})
	}
	data, err := json.Marshal(ladder)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, report.LadderResultsFile), data)
	return dir
}

// testGames makes an evaluation folder whose games.jsonl holds n games
// of random moves, the first from a random opening.
func testGames(t testing.TB, n int) (string, []arena.GameRecord) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	var recs []arena.GameRecord
	for i := range n {
		g := env.NewGame(env.DefaultRules())
		rec := arena.GameRecord{Game: i, Red: "random", Blue: "greedy"}
		if i == 0 {
			for _, m := range env.PlayOpening(g, 4, rng) {
				rec.Opening = append(rec.Opening, m.String())
			}
		}
		p := g.Position()
		rec.StartFEN, rec.StartPly = p.FEN(), p.Ply()
		start := p
		g = env.NewGameFrom(start, env.DefaultRules())
		for !g.Status().Over() && len(rec.Moves) < 80 {
			moves := g.LegalMoves(nil)
			m := moves[rng.IntN(len(moves))]
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
			rec.Moves = append(rec.Moves, m.String())
		}
		rec.Result, rec.Reason = resultOf(g.Status()), reasonOf(g.Status())
		if !g.Status().Over() {
			rec.Result, rec.Reason = arena.ResultDraw, arena.ReasonMoveLimit
		}
		recs = append(recs, rec)
	}
	dir := t.TempDir()
	var lines bytes.Buffer
	enc := json.NewEncoder(&lines)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, report.GamesFile), lines.Bytes())
	return dir, recs
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// startServer builds a server and serves it on a loopback port.
func startServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, ts
}

// call sends a request and returns the status and the body.
func call(t testing.TB, ts *httptest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// callJSON sends a request that must succeed and decodes its answer.
func callJSON[T any](t testing.TB, ts *httptest.Server, method, path, body string) T {
	t.Helper()
	status, data := call(t, ts, method, path, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s %s: status %d: %s", method, path, body, status, data)
	}
	var v T
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&v); err != nil {
		t.Fatalf("%s %s: %v in %s", method, path, err, data)
	}
	return v
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

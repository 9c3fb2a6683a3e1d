package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// checkPosition compares what the API says of a game with the engine's
// own game.
func checkPosition(t *testing.T, got position, want *env.Game) {
	t.Helper()
	p := want.Position()
	if got.FEN != p.FEN() || got.ToMove != p.SideToMove().String() || got.Ply != p.Ply() || got.Status != want.Status().String() {
		t.Fatalf("position %s %s ply %d %s, want %s %s ply %d %s", got.FEN, got.ToMove, got.Ply, got.Status, p.FEN(), p.SideToMove(), p.Ply(), want.Status())
	}
	for sq := range env.Square(env.NumSquares) {
		if got.Board[sq] != p.At(sq).String() {
			t.Fatalf("%v holds %q, want %q", sq, got.Board[sq], p.At(sq))
		}
	}
	legal := want.LegalMoves(nil)
	if len(got.Legal) != len(legal) {
		t.Fatalf("%d legal moves, want %d", len(got.Legal), len(legal))
	}
	for i, m := range legal {
		if lm := got.Legal[i]; lm.Move != m.String() || lm.From != m.From.String() || lm.To != m.To.String() || lm.Count != int(m.Count) {
			t.Fatalf("legal move %d: %+v, want %v", i, lm, m)
		}
	}
}

func TestPlayAGame(t *testing.T) {
	_, ts := startServer(t, Options{Players: []string{"random", "greedy"}})
	for _, human := range []env.Color{env.Red, env.Blue} {
		t.Run(human.String(), func(t *testing.T) {
			st := callJSON[gameState](t, ts, "POST", "/api/games", mustJSON(newGameRequest{Player: "greedy", Human: human.String()}))
			ref := env.NewGame(env.DefaultRules())
			checkPosition(t, st.position, ref)
			path := "/api/games/" + st.ID
			for ply := 0; !st.Over; ply++ {
				if ply > 400 {
					t.Fatal("the game did not end")
				}
				if st.ToMove == human.String() {
					m := st.Legal[ply*7%len(st.Legal)].Move
					st = callJSON[gameState](t, ts, "POST", path+"/move", mustJSON(moveRequest{Move: m}))
				} else {
					st = callJSON[gameState](t, ts, "POST", path+"/reply", "")
					if st.Engine == nil || st.Engine.Move != st.Moves[len(st.Moves)-1] {
						t.Fatalf("engine reply %+v, last move %v", st.Engine, st.Moves)
					}
				}
				mv, err := env.ParseMove(st.Moves[len(st.Moves)-1])
				if err != nil {
					t.Fatal(err)
				}
				if err := ref.Play(mv); err != nil {
					t.Fatal(err)
				}
				checkPosition(t, st.position, ref)
			}
			if st.Result != resultOf(ref.Status()) || st.Reason != reasonOf(ref.Status()) || st.Reason == "" {
				t.Errorf("over: result %q reason %q, engine says %v", st.Result, st.Reason, ref.Status())
			}
			again := callJSON[gameState](t, ts, "GET", path, "")
			if again.FEN != st.FEN || len(again.Moves) != len(st.Moves) {
				t.Errorf("GET gives %s after %d moves, want %s after %d", again.FEN, len(again.Moves), st.FEN, len(st.Moves))
			}
		})
	}
}

func TestUndoAndResign(t *testing.T) {
	_, ts := startServer(t, Options{Players: []string{"random"}})
	st := callJSON[gameState](t, ts, "POST", "/api/games", `{"human":"blue"}`)
	path := "/api/games/" + st.ID
	st = callJSON[gameState](t, ts, "POST", path+"/reply", "")
	afterReply := st.FEN
	st = callJSON[gameState](t, ts, "POST", path+"/move", mustJSON(moveRequest{Move: st.Legal[0].Move}))
	t.Run("undo before the reply takes back one move", func(t *testing.T) {
		st = callJSON[gameState](t, ts, "POST", path+"/undo", "")
		if st.FEN != afterReply || len(st.Moves) != 1 {
			t.Fatalf("after undo %s with %v, want %s after one move", st.FEN, st.Moves, afterReply)
		}
	})
	st = callJSON[gameState](t, ts, "POST", path+"/move", mustJSON(moveRequest{Move: st.Legal[0].Move}))
	st = callJSON[gameState](t, ts, "POST", path+"/reply", "")
	t.Run("undo after the reply takes back both", func(t *testing.T) {
		st = callJSON[gameState](t, ts, "POST", path+"/undo", "")
		if st.FEN != afterReply || len(st.Moves) != 1 || st.Engine != nil {
			t.Fatalf("after undo %s with %v, engine %+v", st.FEN, st.Moves, st.Engine)
		}
	})
	t.Run("resign", func(t *testing.T) {
		st = callJSON[gameState](t, ts, "POST", path+"/resign", "")
		if !st.Over || st.Reason != "resignation" || st.Winner != "red" || st.Result != arena.ResultRedWins || len(st.Legal) != 0 {
			t.Fatalf("after resigning as blue: %+v", st)
		}
	})
	t.Run("undo a resignation", func(t *testing.T) {
		st = callJSON[gameState](t, ts, "POST", path+"/undo", "")
		if st.Over || st.FEN != afterReply {
			t.Fatalf("after undoing the resignation: over %v at %s", st.Over, st.FEN)
		}
	})
}

// TestAPIErrors sends bad requests: each gets its status and a message
// saying what is wrong, and the game stays as it was.
func TestAPIErrors(t *testing.T) {
	runDir := testRun(t, 2)
	gamesDir, _ := testGames(t, 2)
	_, ts := startServer(t, Options{Players: []string{"random"}, Runs: []string{runDir}, Games: []string{gamesDir}, MaxSimulations: 1000})
	st := callJSON[gameState](t, ts, "POST", "/api/games", `{}`)
	g := "/api/games/" + st.ID
	won := "r,r,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b"
	resigned := callJSON[gameState](t, ts, "POST", "/api/games", `{}`)
	callJSON[gameState](t, ts, "POST", "/api/games/"+resigned.ID+"/resign", "")
	type apiCase struct {
		name, method, path, body string
		status                   int
		says                     string
	}
	cases := []apiCase{
		{"bad FEN", "POST", "/api/games", `{"fen":"rr,rr/xx b"}`, 400, "fen"},
		{"finished FEN", "POST", "/api/games", mustJSON(newGameRequest{FEN: won}), 400, "over"},
		{"unknown player", "POST", "/api/games", `{"player":"alphabeta:depth=9"}`, 400, "not one of this server's players"},
		{"bad colour", "POST", "/api/games", `{"human":"green"}`, 400, "want red or blue"},
		{"unknown field", "POST", "/api/games", `{"colour":"red"}`, 400, "unknown field"},
		{"not JSON", "POST", "/api/games", `red`, 400, "request body"},
		{"empty body", "POST", "/api/games", ``, 400, "empty"},
		{"two values", "POST", "/api/games", `{}{}`, 400, "more than one"},
		{"wrong type", "POST", "/api/games", `{"human":1}`, 400, "human"},
		{"body too large", "POST", "/api/games", `{"fen":"` + strings.Repeat("r", maxBody) + `"}`, 413, "over"},
		{"unknown game", "GET", "/api/games/nosuchgame", "", 404, "no such game"},
		{"move in an unknown game", "POST", "/api/games/nosuchgame/move", `{"move":"a6-1-a5"}`, 404, "no such game"},
		{"bad notation", "POST", g + "/move", `{"move":"a6-a5"}`, 400, "move"},
		{"illegal move", "POST", g + "/move", `{"move":"a6-3-a3"}`, 400, "a6-3-a3"},
		{"opponent's stack", "POST", g + "/move", `{"move":"a1-1-a2"}`, 400, "a1-1-a2"},
		{"reply on your turn", "POST", g + "/reply", "", 409, "your turn"},
		{"undo with no move", "POST", g + "/undo", "", 409, "no move"},
		{"move after resigning", "POST", "/api/games/" + resigned.ID + "/move", `{"move":"a6-1-a5"}`, 409, "resigned"},
		{"resign twice", "POST", "/api/games/" + resigned.ID + "/resign", "", 409, "resigned"},
		{"legal: bad move list", "POST", "/api/legal", `{"moves":["a6-1-a5","a6-1-a5"]}`, 400, "moves[1]"},
		{"legal: negative ply", "POST", "/api/legal", `{"start_ply":-1}`, 400, "start_ply"},
		{"legal: too many moves", "POST", "/api/legal", mustJSON(positionRequest{Moves: make([]string, maxPlies+1)}), 400, "at most"},
		{"analyse a finished game", "POST", "/api/analyse", mustJSON(positionRequest{FEN: won}), 400, "over"},
		{"unknown run", "GET", "/api/runs/1/metrics", "", 404, "no such run"},
		{"run not a number", "GET", "/api/runs/x/metrics", "", 404, "no such run"},
		{"unknown replay source", "GET", "/api/replays/7", "", 404, "no such src"},
		{"unknown replay game", "GET", "/api/replays/1/2", "", 404, "no such game"},
		{"unknown endpoint", "GET", "/api/nothing", "", 404, "no API endpoint"},
		{"wrong method", "GET", "/api/games", "", 404, "no API endpoint"},
		{"post to the page", "POST", "/", "{}", 405, "GET only"},
	}
	// The search stream takes its request as query parameters: each bad
	// query, {query, what the 400 says}, names itself.
	for _, q := range [][2]string{
		{"sims=0", "sims"},
		{"sims=1001", "1 to 1000"},
		{"sims=many", "sims"},
		{"seconds=1", "unknown parameter"},
		{"root=gumbel", "unknown parameter"},
		{"simulations=0", "simulations"},
		{"simulations=5&sims=6", "both set simulations"},
		{"time=11s", "at most 10s"},
		{"time=soon", "time"},
		{"gumbel=maybe", "true or false"},
		{"c_puct=2", "unknown parameter"},
		{"depth=3", "unknown parameter"},
		{"fen=" + url.QueryEscape("r/r b"), "fen"},
		{"moves=a1-1-a2", "moves[0]"},
		{"fen=" + url.QueryEscape(won), "over"},
	} {
		cases = append(cases, apiCase{"search: " + q[0], "GET", "/api/search?" + q[0], "", 400, q[1]})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, data := call(t, ts, c.method, c.path, c.body)
			var e struct{ Error string }
			if err := json.Unmarshal(data, &e); err != nil {
				t.Fatalf("answer %s: %v", data, err)
			}
			if status != c.status || !strings.Contains(e.Error, c.says) {
				t.Errorf("status %d %q, want %d saying %q", status, e.Error, c.status, c.says)
			}
			after := callJSON[gameState](t, ts, "GET", g, "")
			if after.FEN != st.FEN || len(after.Moves) != 0 {
				t.Errorf("the game changed: %s after %v", after.FEN, after.Moves)
			}
		})
	}
}

func TestGamesAreBounded(t *testing.T) {
	s, ts := startServer(t, Options{Players: []string{"random"}, MaxGames: 3})
	var ids []string
	for range 5 {
		ids = append(ids, callJSON[gameState](t, ts, "POST", "/api/games", `{}`).ID)
		callJSON[gameState](t, ts, "GET", "/api/games/"+ids[0], "") // keep the first in use
	}
	if n := s.games.len(); n != 3 {
		t.Errorf("%d games held, want 3", n)
	}
	for i, id := range ids {
		status, _ := call(t, ts, "GET", "/api/games/"+id, "")
		if want := map[bool]int{true: 200, false: 404}[i == 0 || i >= 3]; status != want {
			t.Errorf("game %d: status %d, want %d", i, status, want)
		}
	}
}

func TestAnalyseWithANetwork(t *testing.T) {
	path := testNetwork(t)
	_, ts := startServer(t, Options{Players: []string{"az:model=" + path + ",sims=16", "random"}})
	net, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	req := positionRequest{Moves: []string{"a6-2-a4", "b1-1-b2"}}
	a := callJSON[analysis](t, ts, "POST", "/api/analyse", mustJSON(req))
	g := env.NewGame(env.DefaultRules())
	for _, m := range req.Moves {
		mv, _ := env.ParseMove(m)
		g.Play(mv)
	}
	p := g.Position()
	obs := make([]float32, env.ObservationSize)
	env.EncodeObservation(obs, &p, g.Rules(), g.Repetitions())
	legal := p.LegalActions(nil, true)
	priors, values := [][]float32{make([]float32, len(legal))}, make([]float32, 1)
	if err := net.Evaluate(obs, [][]env.Action{legal}, priors, values); err != nil {
		t.Fatal(err)
	}
	if a.Network == "" || a.Value == nil || math.Abs(*a.Value-float64(values[0])) > 1e-5 || *a.RedValue != *a.Value {
		t.Fatalf("value %v (red %v) from %q, the network says %v for red", a.Value, a.RedValue, a.Network, values[0])
	}
	if len(a.Policy) != len(legal) {
		t.Fatalf("%d priors, want %d", len(a.Policy), len(legal))
	}
	want := map[string]float64{}
	for i, act := range legal {
		m, _ := env.MoveOf(act)
		want[m.String()] = float64(priors[0][i])
	}
	var sum, heat float64
	for i, mp := range a.Policy {
		if math.Abs(mp.Prior-want[mp.Move]) > 1e-5 {
			t.Errorf("%s: prior %v, network %v", mp.Move, mp.Prior, want[mp.Move])
		}
		if i > 0 && mp.Prior > a.Policy[i-1].Prior {
			t.Errorf("policy not sorted at %d", i)
		}
		sum += mp.Prior
	}
	for _, v := range a.Targets {
		heat += v
	}
	if math.Abs(sum-1) > 1e-4 || math.Abs(heat-1) > 1e-4 {
		t.Errorf("priors sum to %v, heat map to %v", sum, heat)
	}
}

func TestAnalyseWithoutANetwork(t *testing.T) {
	_, ts := startServer(t, Options{Players: []string{"random"}})
	a := callJSON[analysis](t, ts, "POST", "/api/analyse", `{}`)
	if a.Network != "" || a.Value != nil || len(a.Policy) != 0 || !strings.Contains(a.Note, "uniform") {
		t.Errorf("without a network: %+v", a)
	}
}

// readStream reads a search stream's updates.
func readStream(t *testing.T, ts interface{ Client() *http.Client }, url string) []searchUpdate {
	t.Helper()
	res, err := ts.Client().Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var ups []searchUpdate
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "event: failure") {
			t.Fatalf("failure event")
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var u searchUpdate
			if err := json.Unmarshal([]byte(data), &u); err != nil {
				t.Fatal(err)
			}
			ups = append(ups, u)
		}
	}
	return ups
}

func TestSearchStream(t *testing.T) {
	netPath := testNetwork(t)
	_, withNet := startServer(t, Options{Players: []string{"az:model=" + netPath}})
	_, uniform := startServer(t, Options{Players: []string{"random"}})
	for _, c := range []struct {
		name, query string
		ts          interface{ Client() *http.Client }
		url         string
		evaluator   string
		sims        int
	}{
		{"network puct", "sims=200", withNet, withNet.URL, "network", 200},
		{"network gumbel", "sims=97&gumbel=true", withNet, withNet.URL, "network", 97},
		{"network gumbel, today's names", "simulations=97&gumbel=true", withNet, withNet.URL, "network", 97},
		{"uniform after moves", "sims=300&moves=a6-2-a4,b1-1-b2", uniform, uniform.URL, "uniform", 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			ups := readStream(t, c.ts, c.url+"/api/search?"+c.query)
			last := ups[len(ups)-1]
			if !last.Done || last.Simulations != c.sims || last.Evaluator != c.evaluator {
				t.Fatalf("last update: done %v, %d simulations by %s; want %d by %s", last.Done, last.Simulations, last.Evaluator, c.sims, c.evaluator)
			}
			if c.evaluator == "uniform" && !strings.Contains(last.Note, "uniform") {
				t.Errorf("a uniform search does not say so: %q", last.Note)
			}
			for i, u := range ups[:len(ups)-1] {
				if u.Done || u.Simulations > last.Simulations || (i > 0 && u.Simulations <= ups[i-1].Simulations) {
					t.Errorf("update %d: done %v at %d simulations", i, u.Done, u.Simulations)
				}
			}
			if len(last.Moves) == 0 || len(last.Moves) > 10 || last.Value == nil {
				t.Fatalf("%d moves, value %v", len(last.Moves), last.Value)
			}
			for i, m := range last.Moves {
				if i > 0 && m.Visits > last.Moves[i-1].Visits {
					t.Errorf("moves not by visits at %d", i)
				}
				if len(m.PV) == 0 || m.PV[0] != m.Move || (m.Visits > 0) != (m.Q != nil) {
					t.Errorf("move %+v", m)
				}
			}
		})
	}
	t.Run("time", func(t *testing.T) {
		start := time.Now()
		ups := readStream(t, uniform, uniform.URL+"/api/search?time=500ms")
		// Load makes a search slower, never shorter: only the lower
		// bound is safe (the test's timeout catches a search that never
		// ends).
		if el := time.Since(start); el < 400*time.Millisecond {
			t.Errorf("a half-second search took %v", el)
		}
		if len(ups) < 2 || !ups[len(ups)-1].Done {
			t.Errorf("%d updates, want several and the last done", len(ups))
		}
	})
}

// A search holds one of the server's places while it runs and frees it
// when its client leaves.
func TestSearchesAreBounded(t *testing.T) {
	// A search of an hour and a billion simulations: it cannot end by
	// itself within the test, only by its client leaving.
	s, err := New(Options{Players: []string{"random"}, Searches: 1, MaxSearchTime: time.Hour, MaxSimulations: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	gate := &gatedEvaluator{release: make(chan struct{})}
	s.network = &analysisNetwork{spec: "gated", eval: gate, config: mcts.DefaultConfig()}
	handler := s.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("time") != "" {
			gate.left.Store(r.Context().Done()) // the search's request
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(gate.release)
		ts.Close()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/search?time=1h", nil)
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(res.Body).ReadString('\n') // the search runs
	status, data := call(t, ts, "GET", "/api/search?sims=10", "")
	if status != http.StatusServiceUnavailable || !bytes.Contains(data, []byte("try again")) {
		t.Errorf("a second search: %d %s, want 503", status, data)
	}
	// The client leaves: the search must stop after the step it is in and
	// free its place. One that goes on blocks in the evaluator and fails
	// the test when the test's time runs out.
	cancel()
	res.Body.Close()
	testctx.WaitUntil(t, "the search to free its place after its client left", func() bool { return len(s.search) == 0 })
}

// gatedEvaluator is the uniform evaluator until the search's request ends
// (left, once the handler has stored it); then it evaluates two search
// steps' positions more (the step the search is in, with its root) and
// blocks the next until release is closed.
type gatedEvaluator struct {
	mcts.UniformEvaluator
	left    atomic.Value // of <-chan struct{}
	release chan struct{}
	after   atomic.Int64 // positions asked for since the request ended
}

func (g *gatedEvaluator) Evaluate(obs []float32, legal [][]env.Action, priors [][]float32, values []float32) error {
	if left, ok := g.left.Load().(<-chan struct{}); ok {
		select {
		case <-left:
			if g.after.Add(int64(len(values))) > 2*searchStep {
				<-g.release
			}
		default:
		}
	}
	return g.UniformEvaluator.Evaluate(obs, legal, priors, values)
}

func TestRunsAndReplays(t *testing.T) {
	runDir := testRun(t, 6)
	gamesDir, recs := testGames(t, 3)
	_, ts := startServer(t, Options{Players: []string{"random"}, Runs: []string{runDir}, Games: []string{gamesDir}})
	t.Run("metrics", func(t *testing.T) {
		r := callJSON[struct {
			Metrics []map[string]any     `json:"metrics"`
			Ladder  *report.LadderReport `json:"ladder"`
		}](t, ts, "GET", "/api/runs/0/metrics", "")
		if len(r.Metrics) != 6 || r.Metrics[5]["iteration"] != 6.0 || r.Ladder == nil || len(r.Ladder.Snapshots) != 3 {
			t.Errorf("%d metrics, ladder %+v", len(r.Metrics), r.Ladder)
		}
	})
	t.Run("replays", func(t *testing.T) {
		srcs := callJSON[[]replayInfo](t, ts, "GET", "/api/replays", "")
		if len(srcs) != 1 || srcs[0].ID != 1 {
			t.Fatalf("sources %+v: want the games folder only (the run has no ladder games)", srcs)
		}
		list := callJSON[[]gameSummary](t, ts, "GET", "/api/replays/1", "")
		if len(list) != len(recs) {
			t.Fatalf("%d games, want %d", len(list), len(recs))
		}
		for i, rec := range recs {
			rp := callJSON[replay](t, ts, "GET", fmt.Sprintf("/api/replays/1/%d", i), "")
			if len(rp.Positions) != len(rec.Moves)+1 || list[i].Plies != len(rec.Moves) {
				t.Fatalf("game %d: %d positions for %d moves", i, len(rp.Positions), len(rec.Moves))
			}
			start, _ := env.ParseFEN(rec.StartFEN)
			start.SetPly(rec.StartPly)
			g := env.NewGameFrom(start, env.DefaultRules())
			for j, m := range rec.Moves {
				mv, _ := env.ParseMove(m)
				g.Play(mv)
				p := g.Position()
				if got := rp.Positions[j+1]; got.FEN != p.FEN() || got.Ply != p.Ply() {
					t.Fatalf("game %d ply %d: %s, want %s", i, j+1, got.FEN, p.FEN())
				}
			}
		}
	})
	t.Run("ladder games appear", func(t *testing.T) {
		data, _ := json.Marshal(recs[0])
		writeFile(t, filepath.Join(runDir, report.LadderGamesFile), append(data, '\n'))
		if srcs := callJSON[[]replayInfo](t, ts, "GET", "/api/replays", ""); len(srcs) != 2 {
			t.Errorf("sources %+v, want the run's ladder games too", srcs)
		}
	})
	t.Run("a torn games file", func(t *testing.T) {
		writeFile(t, filepath.Join(runDir, report.LadderGamesFile), []byte("{\"game\":0}\n{\"game\""))
		status, data := call(t, ts, "GET", "/api/replays/0", "")
		if status != 500 || !bytes.Contains(data, []byte(":2:")) {
			t.Errorf("status %d %s, want a 500 naming line 2", status, data)
		}
	})
}

func TestNewChecksOptions(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		opts Options
		says string
	}{
		{"bad spec", Options{Players: []string{"minimax"}}, "minimax"},
		{"same player twice", Options{Players: []string{"random", "random"}}, "twice"},
		{"missing network", Options{Players: []string{"az:model=" + filepath.Join(dir, "none.model")}}, "none.model"},
		{"missing run", Options{Runs: []string{filepath.Join(dir, "norun")}}, "norun"},
		{"run not a folder", Options{Runs: []string{testNetwork(t)}}, "not a directory"},
		{"folder without games", Options{Games: []string{dir}}, "neither"},
		{"bad rules", Options{Rules: env.Rules{MaxPlies: -1}}, "max_plies"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(c.opts)
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q does not say %q", err, c.says)
			}
		})
	}
}

func TestRecoverer(t *testing.T) {
	var log bytes.Buffer
	s, err := New(Options{Players: []string{"random"}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := s.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/x", nil))
	if w.Code != 500 || !strings.Contains(w.Body.String(), "the server goes on") || !strings.Contains(log.String(), "boom") {
		t.Errorf("status %d %s, log %q", w.Code, w.Body.String(), log.String())
	}
}

// TestConcurrentClients has many clients play, analyse and search at once;
// run it with -race.
func TestConcurrentClients(t *testing.T) {
	_, ts := startServer(t, Options{Players: []string{"az:model=" + testNetwork(t) + ",sims=8", "random"}, MaxGames: 8, Searches: 4})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for c := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st gameState
			if err := getJSON(ts.Client(), "POST", ts.URL+"/api/games", `{"human":"blue"}`, &st); err != nil {
				errs <- err
				return
			}
			for ply := 0; ply < 6 && !st.Over; ply++ {
				path := ts.URL + "/api/games/" + st.ID
				var err error
				if st.ToMove == st.Human {
					err = getJSON(ts.Client(), "POST", path+"/move", mustJSON(moveRequest{Move: st.Legal[c%len(st.Legal)].Move}), &st)
				} else {
					err = getJSON(ts.Client(), "POST", path+"/reply", "", &st)
				}
				if err != nil && !strings.Contains(err.Error(), "404") { // a game may be dropped: 12 clients, 8 games
					errs <- err
				}
				if err != nil {
					return
				}
				var a analysis
				if err := getJSON(ts.Client(), "POST", ts.URL+"/api/analyse", mustJSON(positionRequest{Moves: st.Moves}), &a); err != nil && !st.Over {
					errs <- err
				}
			}
			res, err := ts.Client().Get(ts.URL + "/api/search?sims=50")
			if err == nil {
				res.Body.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func getJSON(c *http.Client, method, url, body string, v any) error {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("%s %s: status %d", method, url, res.StatusCode)
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// FuzzPositionRequest sends arbitrary bodies to the endpoints that read a
// position: each answer is 200 or a 4xx, never a 500 or a panic.
func FuzzPositionRequest(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"fen":"rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb b","start_ply":3}`,
		`{"moves":["a6-2-a4","b1-1-b2"]}`, `{"moves":["a6-9-a4"]}`, `{"fen":"r,b/"}`, `[1,2]`, `{"start_ply":1e9}`,
	} {
		f.Add(seed)
	}
	s, err := New(Options{Players: []string{"random"}})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/api/legal", "/api/analyse", "/api/games"} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(body)))
			if w.Code != http.StatusOK && (w.Code < 400 || w.Code >= 500) {
				t.Fatalf("POST %s %q: status %d %s", path, body, w.Code, w.Body.String())
			}
		}
	})
}

// TestDefaultsOfferTheBuiltInPlayer: a server started without players
// offers the built-in player first and analyses with its network, as a
// new user's `deathstacks serve` does.
func TestDefaultsOfferTheBuiltInPlayer(t *testing.T) {
	_, ts := startServer(t, Options{})
	c := callJSON[configInfo](t, ts, "GET", "/api/config", "")
	if len(c.Players) != len(DefaultPlayers) || c.Players[0] != "az" || c.Network != "az" {
		t.Errorf("players %q, analysis network %q: want the built-in player (az) first and its network", c.Players, c.Network)
	}
}

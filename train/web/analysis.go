package web

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// analysis is the answer of POST /api/analyse: the network's own view of a
// position, without search.
type analysis struct {
	// Network is the spec of the network, "" when the server has none;
	// Note then says that only a search (with a uniform evaluator) is
	// available.
	Network string `json:"network"`
	Note    string `json:"note,omitempty"`
	ToMove  string `json:"to_move"`
	// Value is the network's expected outcome for the side to move, and
	// RedValue the same for Red, both in [-1, 1].
	Value    *float64 `json:"value"`
	RedValue *float64 `json:"red_value"`
	// Policy is the prior of every legal move, highest first; Targets sums
	// it by target square, the heat map.
	Policy  []movePrior        `json:"policy"`
	Targets map[string]float64 `json:"targets"`
}

type movePrior struct {
	Move  string  `json:"move"`
	Prior float64 `json:"prior"`
}

const noNetworkNote = "no network: start the server with --player az:model=FILE for a value and policy; searches use a uniform evaluator"

func (s *Server) analyse(r *http.Request) (any, error) {
	g, err := s.gameOf(r)
	if err != nil {
		return nil, err
	}
	if err := over(g); err != nil {
		return nil, err
	}
	p := g.Position()
	a := analysis{ToMove: p.SideToMove().String(), Policy: []movePrior{}, Targets: map[string]float64{}}
	if s.network == nil {
		a.Note = noNetworkNote
		return a, nil
	}
	a.Network = s.network.spec
	obs := make([]float32, env.ObservationSize)
	env.EncodeObservation(obs, &p, g.Rules(), g.Repetitions())
	moves := g.LegalMoves(nil)
	legal := make([]env.Action, len(moves))
	for i, m := range moves {
		if legal[i], err = env.ActionOf(m); err != nil {
			return nil, fmt.Errorf("analyse: %w", err)
		}
	}
	priors := [][]float32{make([]float32, len(legal))}
	values := make([]float32, 1)
	if err := s.network.eval.Evaluate(obs, [][]env.Action{legal}, priors, values); err != nil {
		return nil, fmt.Errorf("analyse: network: %w", err)
	}
	v := float64(values[0])
	red := v
	if p.SideToMove() == env.Blue {
		red = -v
	}
	a.Value, a.RedValue = &v, &red
	for i, m := range moves {
		pr := float64(priors[0][i])
		a.Policy = append(a.Policy, movePrior{Move: m.String(), Prior: pr})
		a.Targets[m.To.String()] += pr
	}
	sortByPrior(a.Policy)
	return a, nil
}

func sortByPrior(ps []movePrior) {
	// Insertion sort: a position has at most a few hundred moves, and
	// equal priors keep the engine's move order.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Prior > ps[j-1].Prior; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// searchParams are the query parameters of GET /api/search.
type searchParams struct {
	game    *env.Game
	sims    int
	limit   time.Duration
	gumbel  bool
	topMove int
}

// parseSearch reads and checks the query: fen, start_ply and moves (comma
// separated) name the position; the search settings simulations (default
// 800, at most the server's most), time (a duration, default and most the
// server's bound) and gumbel (true for a Gumbel root) the search, under
// their keys of the search's table or its aliases (mcts.Settings); top the
// number of moves to report (default 10). A time without simulations
// searches for that time, within the server's most simulations.
func (s *Server) parseSearch(r *http.Request) (searchParams, error) {
	q := r.URL.Query()
	var given []mcts.Given
	named := map[string]string{} // search setting key -> its name in the query
	for _, key := range slices.Sorted(maps.Keys(q)) {
		switch canon, _ := mcts.CanonicalKey(key); {
		case key == "fen" || key == "start_ply" || key == "moves" || key == "top":
		case canon == "simulations" || canon == "time" || canon == "gumbel":
			given, named[canon] = append(given, mcts.Given{Key: key, Value: q.Get(key)}), key
		default:
			return searchParams{}, badRequest("query: unknown parameter %q (want fen, start_ply, moves, simulations, time, gumbel, top)", key)
		}
	}
	base := mcts.Config{Simulations: min(800, s.opts.MaxSimulations), Time: s.opts.MaxSearchTime}
	cfg, err := base.Resolve(given, s.opts.MaxSimulations)
	if err != nil {
		return searchParams{}, badRequest("query: %v", err)
	}
	if _, ok := named["simulations"]; ok && !(cfg.Simulations >= 1 && cfg.Simulations <= s.opts.MaxSimulations) {
		return searchParams{}, badRequest("%s %q: want a whole number from 1 to %d", named["simulations"], strconv.Itoa(cfg.Simulations), s.opts.MaxSimulations)
	}
	if _, ok := named["time"]; ok && !(cfg.Time > 0 && cfg.Time <= s.opts.MaxSearchTime) {
		return searchParams{}, badRequest("%s %v: want a duration above 0 and at most %v", named["time"], cfg.Time, s.opts.MaxSearchTime)
	}
	atoi := func(key string, def, lo, hi int) (int, error) {
		text := q.Get(key)
		if text == "" {
			return def, nil
		}
		n, err := strconv.Atoi(text)
		if err != nil || n < lo || n > hi {
			return 0, badRequest("%s %q: want a whole number from %d to %d", key, text, lo, hi)
		}
		return n, nil
	}
	p := searchParams{sims: cfg.Simulations, limit: cfg.Time, gumbel: cfg.Gumbel}
	startPly, err := atoi("start_ply", 0, 0, maxPlies)
	if err != nil {
		return p, err
	}
	var moves []string
	if text := q.Get("moves"); text != "" {
		moves = strings.Split(text, ",")
	}
	if p.game, err = s.startGame(q.Get("fen"), startPly, moves); err != nil {
		return p, err
	}
	if err := over(p.game); err != nil {
		return p, err
	}
	if p.topMove, err = atoi("top", 10, 1, 50); err != nil {
		return p, err
	}
	return p, nil
}

// searchUpdate is one event of a search stream.
type searchUpdate struct {
	Evaluator   string  `json:"evaluator"` // "network" or "uniform"
	Note        string  `json:"note,omitempty"`
	Root        string  `json:"root"`
	Simulations int     `json:"simulations"`
	Millis      float64 `json:"ms"`
	// Value is the root's value for the side to move.
	Value *float64    `json:"value"`
	Moves []moveStats `json:"moves"`
	Done  bool        `json:"done"`
}

type moveStats struct {
	Move   string   `json:"move"`
	Visits int      `json:"visits"`
	Prior  float64  `json:"prior"`
	Q      *float64 `json:"q"`
	PV     []string `json:"pv"`
}

// searchStep bounds the simulations between two looks at the clock and
// the client, small enough that the page sees the search grow and large
// enough that the bookkeeping of a step stays a small part of the time.
const searchStep = 64

// stepFor returns the largest divisor of sims up to searchStep: the tree
// grows by one player's searches, each of the same size, and they must
// add up to sims exactly.
func stepFor(sims int) int {
	for step := min(searchStep, sims); ; step-- {
		if sims%step == 0 {
			return step
		}
	}
}

// updateEvery is the least time between two updates of a stream.
const updateEvery = 200 * time.Millisecond

// searchStream answers GET /api/search with server-sent events: an update
// every updateEvery while the search grows, the last with done set. The
// search stops at its simulations, its time or when the client leaves.
func (s *Server) searchStream(w http.ResponseWriter, r *http.Request) {
	p, err := s.parseSearch(r)
	if err != nil {
		writeError(w, err)
		return
	}
	select {
	case s.search <- struct{}{}:
		defer func() { <-s.search }()
	default:
		writeError(w, &apiError{http.StatusServiceUnavailable, fmt.Sprintf("search: %d searches are running, the most at once; try again soon", cap(s.search))})
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, fmt.Errorf("search: the connection cannot stream"))
		return
	}
	var ev mcts.Evaluator = mcts.UniformEvaluator{}
	cfg := mcts.DefaultConfig()
	up := searchUpdate{Evaluator: "uniform", Note: noNetworkNote, Root: "puct"}
	if s.network != nil {
		ev, cfg = s.network.eval, s.network.config
		up = searchUpdate{Evaluator: "network", Root: "puct"}
	}
	cfg.ReuseTree, cfg.DirichletEpsilon = true, 0
	cfg.Temperature, cfg.TemperaturePlies, cfg.FinalTemperature = 0, 0, 0
	cfg.Gumbel = p.gumbel
	if p.gumbel {
		up.Root = "gumbel"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func(u searchUpdate) bool {
		data, err := json.Marshal(u)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		flusher.Flush()
		return true
	}
	fail := func(err error) {
		data, _ := json.Marshal(map[string]string{"error": err.Error()})
		fmt.Fprintf(w, "event: failure\ndata: %s\n\n", data)
		flusher.Flush()
	}
	cfg.Simulations = stepFor(p.sims)
	player, err := mcts.NewPUCTPlayer(ev, cfg, 1)
	if err != nil {
		fail(err)
		return
	}
	start := time.Now()
	lastSent := start
	for done := 0; done < p.sims; {
		d, err := player.Choose(p.game)
		if err != nil {
			fail(err)
			return
		}
		done += cfg.Simulations
		up.Simulations, up.Value = done, finiteOrNil(d.Value)
		up.Millis = float64(time.Since(start).Microseconds()) / 1000
		up.Done = done >= p.sims || time.Since(start) >= p.limit || r.Context().Err() != nil
		if up.Done || time.Since(lastSent) >= updateEvery {
			up.Moves = topMoves(player.RootMoves(), p.topMove)
			if !send(up) || up.Done {
				return
			}
			lastSent = time.Now()
		}
	}
}

func topMoves(ms []mcts.MoveStats, n int) []moveStats {
	out := make([]moveStats, 0, min(n, len(ms)))
	for _, m := range ms[:min(n, len(ms))] {
		st := moveStats{Move: m.Move.String(), Visits: m.Visits, Prior: float64(m.Prior), PV: make([]string, len(m.PV))}
		if !math.IsNaN(m.Q) {
			q := m.Q
			st.Q = &q
		}
		for i, pm := range m.PV {
			st.PV[i] = pm.String()
		}
		out = append(out, st)
	}
	return out
}

package web

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
)

//go:embed assets
var assets embed.FS

// The bounds a server applies when Options leaves them zero.
const (
	defaultMaxGames       = 64
	defaultMaxSearchTime  = 10 * time.Second
	defaultMaxSimulations = 100_000
	// defaultSearches is how many analysis searches run at once.
	defaultSearches = 2
)

// DefaultPlayers are the players offered when Options names none: the
// built-in player first (its network also serves analysis), then the
// baselines.
var DefaultPlayers = []string{"az", "alphabeta:depth=3", "greedy", "random", "mcts:simulations=1000"}

// Options configure a Server.
type Options struct {
	// Players are the player specs a game can be played against (see
	// players.ParseSpec); the first is the default. An az spec's network
	// also serves analysis (the first such spec's).
	Players []string
	// Runs are training run directories to watch; their ladder games can
	// be replayed.
	Runs []string
	// Games are evaluation or ladder folders (their games.jsonl or
	// ladder-games.jsonl) or game files to replay.
	Games []string
	// Rules are the rules games are played and analysed by; the zero
	// value means env.DefaultRules.
	Rules env.Rules
	// The bounds; zero means the default of each.
	MaxGames       int
	MaxSearchTime  time.Duration
	MaxSimulations int
	Searches       int
	// Seed seeds the players of new games, each game its own seed.
	Seed uint64
	// Log receives a line for each request that failed with a panic, and
	// a warning for each damaged checkpoint skipped when loading a model;
	// nil discards them.
	Log io.Writer
}

// Server is the web application: create it with New, serve its Handler,
// Close it when done. It is safe for concurrent use.
type Server struct {
	opts    Options
	rules   env.Rules
	specs   []players.Spec
	models  *train.Models
	network *analysisNetwork
	games   *gameStore
	search  chan struct{}
	// started counts the games begun: each player's seed is Seed plus
	// its game's number.
	started atomic.Uint64
	runs    []string
	sources []replaySource
	log     *log.Logger
	mux     *http.ServeMux
}

// analysisNetwork is the network that analysis evaluates positions with.
type analysisNetwork struct {
	spec   string
	eval   mcts.Evaluator
	config mcts.Config
}

// New checks the options and builds a server: every player spec must
// parse and every az network load, every run and games path exist.
func New(opts Options) (*Server, error) {
	if len(opts.Players) == 0 {
		opts.Players = DefaultPlayers
	}
	if opts.Rules == (env.Rules{}) {
		opts.Rules = env.DefaultRules()
	}
	if err := opts.Rules.Validate(); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&opts.MaxGames, defaultMaxGames)
	def(&opts.MaxSimulations, defaultMaxSimulations)
	def(&opts.Searches, defaultSearches)
	if opts.MaxSearchTime <= 0 {
		opts.MaxSearchTime = defaultMaxSearchTime
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	s := &Server{
		opts:   opts,
		rules:  opts.Rules,
		models: train.NewModels(model.DefaultServerConfig(), logw),
		games:  newGameStore(opts.MaxGames),
		search: make(chan struct{}, opts.Searches),
		log:    log.New(logw, "serve: ", log.LstdFlags),
	}
	if err := s.loadPlayers(); err != nil {
		s.models.Close()
		return nil, err
	}
	if err := s.loadSources(); err != nil {
		s.models.Close()
		return nil, err
	}
	s.routes()
	return s, nil
}

// loadPlayers parses the specs and builds each once, so that a bad spec
// or network fails at start rather than in a game.
func (s *Server) loadPlayers() error {
	seen := map[string]bool{}
	for _, text := range s.opts.Players {
		spec, err := players.ParseSpec(text)
		if err != nil {
			return fmt.Errorf("web: player %q: %w", text, err)
		}
		if seen[spec.String()] {
			return fmt.Errorf("web: player %q given twice", text)
		}
		seen[spec.String()] = true
		if _, err := players.NewPlayer(spec, 0, s.models.Load); err != nil {
			return fmt.Errorf("web: player %q: %w", text, err)
		}
		s.specs = append(s.specs, spec)
		if spec.Kind == players.KindAZ && s.network == nil {
			eval, cfg, err := s.models.Load(spec.Model())
			if err != nil {
				return fmt.Errorf("web: player %q: %w", text, err)
			}
			s.network = &analysisNetwork{spec: spec.String(), eval: eval, config: spec.SearchConfig(cfg)}
		}
	}
	return nil
}

// Handler returns the server's HTTP handler: the page at /, its assets,
// and the API under /api/.
func (s *Server) Handler() http.Handler { return s.recoverer(s.limitBody(s.mux)) }

// Close stops the networks' batching servers.
func (s *Server) Close() error { return s.models.Close() }

func (s *Server) routes() {
	m := http.NewServeMux()
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree has the folder: a build fault
	}
	files := http.FileServerFS(static)
	m.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, &apiError{http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: the page answers GET only", r.Method, r.URL.Path)})
			return
		}
		files.ServeHTTP(w, r)
	}))
	m.Handle("GET /api/config", serveJSON(s.config))
	m.Handle("POST /api/games", serveJSON(s.newGame))
	m.Handle("GET /api/games/{id}", serveJSON(s.getGame))
	m.Handle("POST /api/games/{id}/move", serveJSON(s.move))
	m.Handle("POST /api/games/{id}/reply", serveJSON(s.reply))
	m.Handle("POST /api/games/{id}/undo", serveJSON(s.undo))
	m.Handle("POST /api/games/{id}/resign", serveJSON(s.resign))
	m.Handle("POST /api/legal", serveJSON(s.legal))
	m.Handle("POST /api/analyse", serveJSON(s.analyse))
	m.Handle("GET /api/search", http.HandlerFunc(s.searchStream))
	m.Handle("GET /api/runs", serveJSON(s.listRuns))
	m.Handle("GET /api/runs/{run}/metrics", serveJSON(s.runMetrics))
	m.Handle("GET /api/replays", serveJSON(s.listReplays))
	m.Handle("GET /api/replays/{src}", serveJSON(s.replayGames))
	m.Handle("GET /api/replays/{src}/{game}", serveJSON(s.replayGame))
	m.Handle("/api/", serveJSON(func(r *http.Request) (any, error) {
		return nil, notFound("no API endpoint %s %s", r.Method, r.URL.Path)
	}))
	s.mux = m
}

// recoverer answers a request whose handler panicked with a 500, so that
// one bad request never takes the server down, and logs the stack.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Printf("%s %s: panic: %v\n%s", r.Method, r.URL.Path, v, debug.Stack())
				writeError(w, errors.New("internal error: the request failed; the server goes on"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps every request body at maxBody bytes.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next.ServeHTTP(w, r)
	})
}

// configInfo is the answer of GET /api/config: what the page offers.
type configInfo struct {
	Players []string `json:"players"`
	// Network is the spec whose network analysis uses, "" for none.
	Network        string    `json:"network"`
	Runs           []runInfo `json:"runs"`
	MaxSimulations int       `json:"max_simulations"`
	MaxSearchSec   float64   `json:"max_search_sec"`
	StartFEN       string    `json:"start_fen"`
	Rules          env.Rules `json:"rules"`
}

func (s *Server) config(*http.Request) (any, error) {
	c := configInfo{
		MaxSimulations: s.opts.MaxSimulations,
		MaxSearchSec:   s.opts.MaxSearchTime.Seconds(),
		StartFEN:       env.StartFEN,
		Rules:          s.rules,
		Runs:           s.runInfos(),
	}
	for _, sp := range s.specs {
		c.Players = append(c.Players, sp.String())
	}
	if s.network != nil {
		c.Network = s.network.spec
	}
	return c, nil
}

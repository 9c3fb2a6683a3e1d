package web

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/report"
)

// maxGamesFile bounds the size of a games file the server reads.
const maxGamesFile = 64 << 20

// replaySource is a file of game records: an evaluation's or a ladder's.
type replaySource struct {
	label string
	path  string
	// run is the run directory whose rules the games were played by, or
	// "" for the server's rules.
	run string
}

// loadSources checks the runs and games paths and lists the game files:
// the games of each --games folder or file, and each run's ladder games
// (which may appear while the server runs).
func (s *Server) loadSources() error {
	for _, dir := range s.opts.Runs {
		info, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("web: run %w", err)
		}
		if !info.IsDir() {
			return fmt.Errorf("web: run %s: not a directory", dir)
		}
		s.runs = append(s.runs, dir)
		s.sources = append(s.sources, replaySource{
			label: filepath.Base(filepath.Clean(dir)) + " ladder", path: filepath.Join(dir, report.LadderGamesFile), run: dir,
		})
	}
	for _, path := range s.opts.Games {
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("web: games %w", err)
		}
		if !info.IsDir() {
			s.sources = append(s.sources, replaySource{label: filepath.Base(path), path: path})
			continue
		}
		found := false
		for _, name := range []string{report.GamesFile, report.LadderGamesFile} {
			file := filepath.Join(path, name)
			if _, err := os.Stat(file); err == nil {
				found = true
				s.sources = append(s.sources, replaySource{label: filepath.Base(filepath.Clean(path)) + "/" + name, path: file})
			}
		}
		if !found {
			return fmt.Errorf("web: games %s: holds neither %s nor %s", path, report.GamesFile, report.LadderGamesFile)
		}
	}
	return nil
}

// runInfo describes a watched run.
type runInfo struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	Dir  string `json:"dir"`
}

func (s *Server) runInfos() []runInfo {
	out := []runInfo{}
	for i, dir := range s.runs {
		out = append(out, runInfo{ID: i, Name: filepath.Base(filepath.Clean(dir)), Dir: dir})
	}
	return out
}

func (s *Server) listRuns(*http.Request) (any, error) { return s.runInfos(), nil }

// runMetrics is the answer of GET /api/runs/{run}/metrics.
type runMetrics struct {
	runInfo
	Metrics []metrics.Iteration `json:"metrics"`
	// Ladder is the run's ladder.json, null when it has none yet.
	Ladder *report.LadderReport `json:"ladder"`
}

func (s *Server) runMetrics(r *http.Request) (any, error) {
	i, err := index(r, "run", len(s.runs))
	if err != nil {
		return nil, err
	}
	dir := s.runs[i]
	out := runMetrics{runInfo: s.runInfos()[i], Metrics: []metrics.Iteration{}}
	ms, err := metrics.Read(filepath.Join(dir, metrics.File))
	switch {
	case errors.Is(err, fs.ErrNotExist): // a run that has not finished an iteration yet
	case err != nil:
		return nil, fmt.Errorf("run %s: %w", dir, err)
	default:
		out.Metrics = ms
	}
	data, err := os.ReadFile(filepath.Join(dir, report.LadderResultsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("run %s: %w", dir, err)
	default:
		var l report.LadderReport
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, fmt.Errorf("run %s: %s: %w", dir, report.LadderResultsFile, err)
		}
		out.Ladder = &l
	}
	return out, nil
}

// index reads the path value key as an index below n.
func index(r *http.Request, key string, n int) (int, error) {
	text := r.PathValue(key)
	i, err := strconv.Atoi(text)
	if err != nil || i < 0 || i >= n {
		return 0, notFound("%s %q: no such %s (there are %d)", key, text, key, n)
	}
	return i, nil
}

// replayInfo describes a source of games.
type replayInfo struct {
	ID    int    `json:"id"`
	Label string `json:"label"`
	Path  string `json:"path"`
}

func (s *Server) listReplays(*http.Request) (any, error) {
	out := []replayInfo{}
	for i, src := range s.sources {
		if _, err := os.Stat(src.path); err != nil {
			continue // a run's ladder that has not been played yet
		}
		out = append(out, replayInfo{ID: i, Label: src.label, Path: src.path})
	}
	return out, nil
}

// gameSummary is one line of a source's list of games.
type gameSummary struct {
	Index  int    `json:"index"`
	Red    string `json:"red"`
	Blue   string `json:"blue"`
	Result string `json:"result"`
	Reason string `json:"reason"`
	Plies  int    `json:"plies"`
}

// readSource reads the records of the request's {src}.
func (s *Server) readSource(r *http.Request) (replaySource, []arena.GameRecord, error) {
	i, err := index(r, "src", len(s.sources))
	if err != nil {
		return replaySource{}, nil, err
	}
	src := s.sources[i]
	recs, err := readRecords(src.path)
	if errors.Is(err, fs.ErrNotExist) {
		return src, nil, notFound("replay %d: %s does not exist (yet)", i, src.path)
	}
	return src, recs, err
}

// readRecords reads a games file of one JSON game record a line.
func readRecords(path string) ([]arena.GameRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxGamesFile)
	var recs []arena.GameRecord
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var rec arena.GameRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

func (s *Server) replayGames(r *http.Request) (any, error) {
	_, recs, err := s.readSource(r)
	if err != nil {
		return nil, err
	}
	out := make([]gameSummary, len(recs))
	for i, rec := range recs {
		out[i] = gameSummary{Index: i, Red: rec.Red, Blue: rec.Blue, Result: rec.Result, Reason: rec.Reason, Plies: len(rec.Moves)}
	}
	return out, nil
}

// replay is the answer of GET /api/replays/{src}/{game}: the record and
// the position after every ply, the start first.
type replay struct {
	Record    arena.GameRecord `json:"record"`
	Positions []position       `json:"positions"`
}

func (s *Server) replayGame(r *http.Request) (any, error) {
	src, recs, err := s.readSource(r)
	if err != nil {
		return nil, err
	}
	i, err := index(r, "game", len(recs))
	if err != nil {
		return nil, err
	}
	rec := recs[i]
	rules := s.rules
	if src.run != "" {
		if lr, err := train.LadderRun(src.run); err == nil {
			rules = lr.Rules
		}
	}
	start, err := env.ParseFEN(rec.StartFEN)
	if err != nil {
		return nil, fmt.Errorf("%s game %d: start_fen: %w", src.path, i, err)
	}
	start.SetPly(rec.StartPly)
	g := env.NewGameFrom(start, rules)
	out := replay{Record: rec, Positions: []position{replayed(g)}}
	for j, text := range rec.Moves {
		m, err := env.ParseMove(text)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			return nil, fmt.Errorf("%s game %d: move %d %q: %w", src.path, i, j+1, text, err)
		}
		out.Positions = append(out.Positions, replayed(g))
	}
	return out, nil
}

// replayed describes a position of a replay without its moves and legal
// moves, which the page does not need there: a long game's replay stays a
// few hundred kilobytes rather than megabytes.
func replayed(g *env.Game) position {
	p := describe(g)
	p.Moves, p.Legal = nil, nil
	return p
}

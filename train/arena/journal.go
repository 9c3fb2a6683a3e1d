package arena

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train/elo"
)

// The kinds of games a journal keeps, in [JournalHeader.Journal].
const (
	JournalEval   = "eval"
	JournalLadder = "ladder"
)

// JournalHeader is the first line of a [Journal]: the settings that decide
// which games an evaluation or a ladder plays, so that a process that
// continues the journal can check it plays the same ones. How many games
// run at once is not among them: it changes no game.
type JournalHeader struct {
	// Journal is JournalEval or JournalLadder.
	Journal string `json:"journal"`
	// Command is the command line that started the games, in the
	// language CommandLanguage names: "python" for a call of
	// deathstacks.evaluate, "" for a shell's.
	Command         string `json:"command"`
	CommandLanguage string `json:"command_language,omitempty"`
	// Total is the number of games of the whole evaluation or ladder.
	Total int `json:"total"`
	// Players are the players in order: an evaluation's, or a ladder's
	// baselines.
	Players []JournalPlayer `json:"players"`
	// GamesPerPair, Seed, OpeningPlies and Rules are the settings of the
	// arena (see [Config]).
	GamesPerPair int         `json:"games_per_pair"`
	Seed         uint64      `json:"seed"`
	OpeningPlies int         `json:"opening_plies"`
	Rules        RulesRecord `json:"rules"`
	// Ladder holds what a ladder adds; nil for an evaluation.
	Ladder *JournalLadderSettings `json:"ladder,omitempty"`
	// SPRT is the test of an evaluation played by [PlaySPRT]; nil for
	// any other.
	SPRT *elo.SPRT `json:"sprt,omitempty"`
}

// JournalPlayer is a player of a [JournalHeader].
type JournalPlayer struct {
	Name string `json:"name"`
	Spec string `json:"spec"`
}

// JournalLadderSettings are what decides the games of a ladder beyond
// its arena settings and baselines: the runs and their snapshots rated
// (absolute paths, so that a relative path from elsewhere still matches),
// and the network players' search.
//
// A ladder of one run has it in Run, Search and Snapshots; one of several
// has each run in Runs instead. Left out are only the fields never set
// (omitzero, not omitempty: an empty list read from a journal writes back
// as it was).
type JournalLadderSettings struct {
	Run         string            `json:"run,omitzero"`
	Every       int               `json:"every"`
	Simulations int               `json:"simulations"`
	TimeMS      float64           `json:"time_ms"`
	Search      string            `json:"search,omitzero"`
	Snapshots   []JournalSnapshot `json:"snapshots,omitzero"`
	Runs        []JournalRun      `json:"runs,omitzero"`
}

// JournalRun is a run of a ladder of several in a [JournalHeader]: its
// name, its directory, its players' search and the snapshots rated.
type JournalRun struct {
	Name      string            `json:"name"`
	Dir       string            `json:"dir"`
	Search    string            `json:"search"`
	Snapshots []JournalSnapshot `json:"snapshots"`
}

// runs returns the ladder's runs, the one of a ladder of one run too.
func (l *JournalLadderSettings) runs() []JournalRun {
	if len(l.Runs) > 0 {
		return l.Runs
	}
	return []JournalRun{{Dir: l.Run, Search: l.Search, Snapshots: l.Snapshots}}
}

// JournalSnapshot is a network snapshot a ladder rates.
type JournalSnapshot struct {
	Iteration int    `json:"iteration"`
	Path      string `json:"path"`
}

// NewJournalHeader returns the header of the journal of an evaluation:
// a round robin among contenders with the arena settings cfg, started by
// the command line command.
func NewJournalHeader(contenders []Contender, cfg Config, command string) JournalHeader {
	h := JournalHeader{
		Journal: JournalEval, Command: command,
		Total:        len(contenders) * (len(contenders) - 1) / 2 * cfg.Games,
		GamesPerPair: cfg.Games, Seed: cfg.Seed, OpeningPlies: cfg.OpeningPlies,
		Rules: RulesRecord{TooTall: cfg.Rules.TooTall, MaxPlies: cfg.Rules.MaxPlies, RepetitionLimit: cfg.Rules.RepetitionLimit},
	}
	for _, c := range contenders {
		h.Players = append(h.Players, JournalPlayer{Name: c.Name, Spec: c.Spec})
	}
	return h
}

// setting is one setting of a header, for comparing two.
type setting struct{ key, value string }

// settings lists the header's settings in order, each count before the
// items it counts, so that the first difference between two headers is
// the one to name.
func (h JournalHeader) settings() []setting {
	player := "player"
	if h.Journal == JournalLadder {
		player = "baseline"
	}
	out := []setting{{"journal", h.Journal}, {player + "s", strconv.Itoa(len(h.Players))}}
	for i, p := range h.Players {
		out = append(out, setting{fmt.Sprintf("%s %d name", player, i+1), p.Name}, setting{fmt.Sprintf("%s %d spec", player, i+1), p.Spec})
	}
	out = append(out,
		setting{"games_per_pair", strconv.Itoa(h.GamesPerPair)},
		setting{"seed", strconv.FormatUint(h.Seed, 10)},
		setting{"opening_plies", strconv.Itoa(h.OpeningPlies)},
		setting{"rules.too_tall", strconv.FormatBool(h.Rules.TooTall)},
		setting{"rules.max_plies", strconv.Itoa(h.Rules.MaxPlies)},
		setting{"rules.repetition_limit", strconv.Itoa(h.Rules.RepetitionLimit)},
	)
	if h.Journal == JournalEval {
		test := "none"
		if h.SPRT != nil {
			test = h.SPRT.String()
		}
		out = append(out, setting{"sprt", test})
	}
	if l := h.Ladder; l != nil {
		runs := l.runs()
		out = append(out,
			setting{"every", strconv.Itoa(l.Every)},
			setting{"simulations", strconv.Itoa(l.Simulations)},
			setting{"time_ms", strconv.FormatFloat(l.TimeMS, 'g', -1, 64)},
			setting{"runs", strconv.Itoa(len(runs))},
		)
		for i, r := range runs {
			// One run keeps the keys of the ladders before several runs.
			dirKey, prefix := "run", ""
			if len(runs) > 1 {
				prefix = fmt.Sprintf("run %d ", i+1)
				dirKey = prefix + "dir"
				out = append(out, setting{prefix + "name", r.Name})
			}
			out = append(out, setting{dirKey, r.Dir}, setting{prefix + "search", r.Search}, setting{prefix + "snapshots", strconv.Itoa(len(r.Snapshots))})
			for j, s := range r.Snapshots {
				out = append(out, setting{fmt.Sprintf("%ssnapshot %d", prefix, j+1), fmt.Sprintf("iteration %d (%s)", s.Iteration, s.Path)})
			}
		}
	}
	return out
}

// Mismatch returns nil if now, the header of the games a process is about
// to play, has the same settings as h, the header of a journal; else an
// error naming the first setting that differs, with both values, and the
// journal's command line.
func (h JournalHeader) Mismatch(now JournalHeader) error {
	was, is := h.settings(), now.settings()
	for i := range min(len(was), len(is)) {
		if was[i] != is[i] {
			return fmt.Errorf("%s is %q here but %q in the games played so far, which this command started: %s", is[i].key, is[i].value, was[i].value, h.Command)
		}
	}
	if len(was) != len(is) { // cannot happen: the counts come first
		return fmt.Errorf("the settings differ from those of the games played so far, which this command started: %s", h.Command)
	}
	return nil
}

// Journal is the file of the finished games of an evaluation or ladder in
// progress: a [JournalHeader] on its first line, then one [GameRecord] a
// line, each written and synced as its game ends, so that a process killed
// at any moment loses only the games in progress. A kill during a write
// leaves a torn last line, which reading ignores and continuing cuts off.
type Journal struct {
	path string
	f    *os.File
}

// CreateJournal starts a journal at path with its header, written
// atomically; a file already there is left alone and is an error
// (fs.ErrExist): it may hold a user's games.
func CreateJournal(path string, h JournalHeader) (*Journal, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("create journal %s: %w", path, fs.ErrExist)
	}
	line, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("create journal %s: %w", path, err)
	}
	if err := codec.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(line, '\n'))
		return err
	}); err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	return &Journal{path: path, f: f}, nil
}

// ReadJournal reads the journal at path: its header and its games in file
// order. A torn last line (no newline at its end) is left out; any other
// line that is not a header or a game is an error naming the file and
// line.
func ReadJournal(path string) (JournalHeader, []GameRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return JournalHeader{}, nil, fmt.Errorf("read journal: %w", err)
	}
	h, records, _, err := parseJournal(path, data)
	return h, records, err
}

// ContinueJournal reads the journal at path as [ReadJournal] does and
// opens it to append more games, after cutting off a torn last line.
func ContinueJournal(path string) (*Journal, JournalHeader, []GameRecord, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, JournalHeader{}, nil, fmt.Errorf("continue journal: %w", err)
	}
	h, records, err := continueJournal(f)
	if err != nil {
		f.Close()
		return nil, JournalHeader{}, nil, err
	}
	return &Journal{path: path, f: f}, h, records, nil
}

// continueJournal reads the open journal f and cuts off its torn last line.
func continueJournal(f *os.File) (JournalHeader, []GameRecord, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return JournalHeader{}, nil, fmt.Errorf("continue journal %s: %w", f.Name(), err)
	}
	h, records, good, err := parseJournal(f.Name(), data)
	if err != nil {
		return JournalHeader{}, nil, err
	}
	if good < len(data) {
		if err := f.Truncate(int64(good)); err != nil {
			return JournalHeader{}, nil, fmt.Errorf("continue journal %s: cut off its torn last line: %w", f.Name(), err)
		}
		if err := f.Sync(); err != nil {
			return JournalHeader{}, nil, fmt.Errorf("continue journal %s: %w", f.Name(), err)
		}
	}
	return h, records, nil
}

// parseJournal reads the text of the journal at path; good is the length
// of its whole lines, after which comes nothing or a torn line.
func parseJournal(path string, data []byte) (h JournalHeader, records []GameRecord, good int, err error) {
	good = bytes.LastIndexByte(data, '\n') + 1
	if good == 0 {
		return h, nil, 0, fmt.Errorf("journal %s: no header line", path)
	}
	lines := bytes.Split(data[:good-1], []byte{'\n'})
	if err := decodeLine(lines[0], &h); err != nil {
		return h, nil, 0, fmt.Errorf("journal %s:1: not a journal header: %w", path, err)
	}
	if h.Journal != JournalEval && h.Journal != JournalLadder {
		return h, nil, 0, fmt.Errorf("journal %s:1: not a journal header: journal is %q, want %s or %s", path, h.Journal, JournalEval, JournalLadder)
	}
	for i, line := range lines[1:] {
		var r GameRecord
		err := decodeLine(line, &r)
		if err == nil && (r.Red == "" || r.Blue == "") {
			err = errors.New("it names no players")
		}
		if err != nil {
			return h, nil, 0, fmt.Errorf("journal %s:%d: not a game record: %w", path, i+2, err)
		}
		records = append(records, r)
	}
	return h, records, good, nil
}

// decodeLine decodes one line of JSON into v, strictly: a key v lacks,
// or anything after the value, is an error.
func decodeLine(line []byte, v any) error {
	if !json.Valid(line) {
		return json.Unmarshal(line, v) // for its error, which says what is wrong where
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Append adds a finished game at the end of the journal, in one write
// followed by a sync.
func (j *Journal) Append(r GameRecord) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("journal %s: game %d: %w", j.path, r.Game, err)
	}
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("journal %s: game %d: %w", j.path, r.Game, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: game %d: %w", j.path, r.Game, err)
	}
	return nil
}

// Close closes the journal, leaving it for a later process to continue.
// Closing a journal closed or removed before does nothing.
func (j *Journal) Close() error {
	if err := j.f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("close journal %s: %w", j.path, err)
	}
	return nil
}

// Remove closes the journal and deletes it: for when its games are saved
// in the finished files.
func (j *Journal) Remove() error {
	j.f.Close() // the games are saved elsewhere; only the removal matters
	if err := os.Remove(j.path); err != nil {
		return fmt.Errorf("remove journal: %w", err)
	}
	return nil
}

package arena

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// journalFixture returns the header of an evaluation of random against
// greedy under arenaConfig, and the records of its games.
func journalFixture(t *testing.T) (JournalHeader, []GameRecord) {
	t.Helper()
	cfg := arenaConfig()
	cfg.Games = 4
	records, err := PlayMatch(context.Background(), randomEntrant, greedyEntrant, cfg)
	if err != nil {
		t.Fatal(err)
	}
	contenders := []Contender{{Entrant: randomEntrant, Spec: "random"}, {Entrant: greedyEntrant, Spec: "greedy"}}
	return NewJournalHeader(contenders, cfg, "deathstacks eval --player random --player greedy --games 4"), records
}

// writeJournal writes a journal of the header and records at a new path,
// with extra appended as it is, and returns the path.
func writeJournal(t *testing.T, h JournalHeader, records []GameRecord, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "games.partial.jsonl")
	j, err := CreateJournal(path, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	appendText(t, path, extra)
	return path
}

func appendText(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestJournalRoundTrip(t *testing.T) {
	h, records := journalFixture(t)
	path := writeJournal(t, h, records[:2], "")
	gotH, got, err := ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotH, h) || !reflect.DeepEqual(got, records[:2]) {
		t.Fatalf("read back header %+v and %d records: want %+v and the 2 written", gotH, len(got), h)
	}
	// Continuing appends after the games there.
	j, gotH, got, err := ContinueJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotH, h) || !reflect.DeepEqual(got, records[:2]) {
		t.Fatalf("continue: header %+v and %d records", gotH, len(got))
	}
	for _, r := range records[2:] {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, got, err = ReadJournal(path); err != nil || !reflect.DeepEqual(got, records) {
		t.Fatalf("after continuing: %d records (%v), want all %d", len(got), err, len(records))
	}
	// A journal there is never replaced.
	if _, err := CreateJournal(path, h); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateJournal over a journal: %v, want fs.ErrExist", err)
	}
	if _, got, _ = ReadJournal(path); len(got) != len(records) {
		t.Errorf("CreateJournal over a journal changed it: %d records", len(got))
	}
	j, _, _, err = ContinueJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Remove: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Errorf("Close after Remove: %v", err)
	}
}

// A kill during a write leaves a torn last line: reading leaves it out,
// and continuing cuts it off so that the next game gets a line of its own.
func TestJournalTornLastLine(t *testing.T) {
	h, records := journalFixture(t)
	line, err := json.Marshal(records[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		torn string
	}{
		{"one byte", string(line[:1])},
		{"half a line", string(line[:len(line)/2])},
		{"all but the newline", string(line)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeJournal(t, h, records[:2], tc.torn)
			if _, got, err := ReadJournal(path); err != nil || !reflect.DeepEqual(got, records[:2]) {
				t.Fatalf("read: %d records (%v), want the 2 whole ones", len(got), err)
			}
			j, _, got, err := ContinueJournal(path)
			if err != nil || len(got) != 2 {
				t.Fatalf("continue: %d records (%v)", len(got), err)
			}
			if err := j.Append(records[3]); err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			_, got, err = ReadJournal(path)
			if want := []GameRecord{records[0], records[1], records[3]}; err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("after appending: %d records (%v), want games 0, 1 and 3", len(got), err)
			}
		})
	}
}

// Any bad line but a torn last one is an error naming the file and line.
func TestJournalBadLines(t *testing.T) {
	h, records := journalFixture(t)
	header, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	game, err := json.Marshal(records[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "no header line"},
		{"torn header", string(header[:10]), "no header line"},
		{"header not JSON", "nonsense\n" + string(game) + "\n", ":1: not a journal header"},
		{"games only", string(game) + "\n", ":1: not a journal header"},
		{"header of nothing", `{"journal":"tournament"}` + "\n", `:1: not a journal header: journal is "tournament"`},
		{"corrupt middle line", string(header) + "\n" + string(game) + "\n" + `{"game":1,` + "\n" + string(game) + "\n", ":3: not a game record"},
		{"blank line", string(header) + "\n\n" + string(game) + "\n", ":2: not a game record"},
		{"unknown key", string(header) + "\n" + `{"game":0,"red":"a","blue":"b","colour":"red"}` + "\n", `:2: not a game record: json: unknown field "colour"`},
		{"no players", string(header) + "\n" + `{"game":0}` + "\n", ":2: not a game record: it names no players"},
		{"two values", string(header) + "\n" + string(game) + string(game) + "\n", ":2: not a game record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "games.partial.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := ReadJournal(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadJournal: %v, want an error naming %s and %q", err, path, tc.want)
			}
			if _, _, _, err := ContinueJournal(path); err == nil {
				t.Error("ContinueJournal took it")
			}
			if data, _ := os.ReadFile(path); string(data) != tc.text {
				t.Error("a journal that does not read was changed")
			}
		})
	}
}

// The header of a journal matches that of the same evaluation or ladder,
// whatever its command line, and names the first setting that differs
// from another.
func TestJournalHeaderMismatch(t *testing.T) {
	h, _ := journalFixture(t)
	lh := h
	lh.Journal, lh.Command, lh.Players = JournalLadder, "deathstacks ladder --run /runs/a", h.Players[:1]
	lh.Ladder = &JournalLadderSettings{Run: "/runs/a", Every: 1, Simulations: 4, Search: "simulations=4",
		Snapshots: []JournalSnapshot{{1, "/runs/a/nets/net-000001.dsnn"}, {2, "/runs/a/nets/net-000002.dsnn"}}}
	ladder := func(change func(l *JournalLadderSettings)) JournalHeader {
		c, l := lh, *lh.Ladder
		l.Snapshots = slices.Clone(l.Snapshots)
		change(&l)
		c.Ladder = &l
		return c
	}
	cases := []struct {
		name     string
		was, now JournalHeader
		want     string // "" for no mismatch
	}{
		{"the same", h, h, ""},
		{"another command line", h, func() JournalHeader { c := h; c.Command = "deathstacks eval --parallel 9"; return c }(), ""},
		{"another seed", h, func() JournalHeader { c := h; c.Seed = 7; return c }(), `seed is "7" here but "42"`},
		{"more games", h, func() JournalHeader { c := h; c.GamesPerPair = 6; return c }(), `games_per_pair is "6" here but "4"`},
		{"another move limit", h, func() JournalHeader { c := h; c.Rules.MaxPlies = 0; return c }(), `rules.max_plies is "0" here but "120"`},
		{"another opening", h, func() JournalHeader { c := h; c.OpeningPlies = 2; return c }(), `opening_plies is "2" here but "4"`},
		{"a player more", h, func() JournalHeader {
			c := h
			c.Players = append(append([]JournalPlayer(nil), h.Players...), JournalPlayer{"x", "alphabeta:depth=1"})
			return c
		}(), `players is "3" here but "2"`},
		{"another spec", h, func() JournalHeader {
			c := h
			c.Players = []JournalPlayer{h.Players[0], {Name: "greedy", Spec: "alphabeta:depth=1"}}
			return c
		}(), `player 2 spec is "alphabeta:depth=1" here but "greedy"`},
		{"a ladder", h, lh, `journal is "ladder" here but "eval"`},
		{"a ladder, other simulations", lh, ladder(func(l *JournalLadderSettings) { l.Simulations = 5 }), `simulations is "5" here but "4"`},
		{"a ladder, other snapshots", lh, ladder(func(l *JournalLadderSettings) { l.Every = 2 }), `every is "2" here but "1"`},
		{"a ladder, a time", lh, ladder(func(l *JournalLadderSettings) { l.TimeMS = 1.5 }), `time_ms is "1.5" here but "0"`},
		{"a ladder of another run", lh, ladder(func(l *JournalLadderSettings) { l.Snapshots[1].Path = "/elsewhere/net-000002.dsnn" }),
			`snapshot 2 is "iteration 2 (/elsewhere/net-000002.dsnn)" here`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.was.Mismatch(tc.now)
			if tc.want == "" {
				if err != nil {
					t.Errorf("Mismatch: %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), ": "+tc.was.Command) {
				t.Errorf("Mismatch: %v, want %q and the journal's command %q", err, tc.want, tc.was.Command)
			}
		})
	}
}

// readHeader writes a journal of the header alone and reads it back.
func readHeader(t *testing.T, h JournalHeader) (JournalHeader, error) {
	t.Helper()
	back, _, err := ReadJournal(writeJournal(t, h, nil, ""))
	return back, err
}

// FuzzParseJournal reads any text as a journal: it never panics, and what
// it accepts is whole lines that write back to the same header and games.
func FuzzParseJournal(f *testing.F) {
	header := `{"journal":"eval","command":"deathstacks eval","total":2,"players":[{"name":"random","spec":"random"},{"name":"greedy","spec":"greedy"}],"games_per_pair":2,"seed":1,"opening_plies":4,"rules":{"too_tall":true,"max_plies":120,"repetition_limit":3}}`
	game := `{"game":0,"red":"random","blue":"greedy","red_seed":1,"blue_seed":2,"opening":["a6-2-a4"],"start_fen":"x","start_ply":1,"moves":["b1-1-b2"],"move_ms":[0.5],"result":"0-1","reason":"win"}`
	for _, seed := range []string{
		header + "\n", header + "\n" + game + "\n", header + "\n" + game + "\n" + game[:20],
		header + "\n" + game + "\n{\n" + game + "\n", header, "", "\n", header + "\n\n",
		`{"journal":"ladder","ladder":{"run":"r","snapshots":[{"iteration":1,"path":"p"}]}}` + "\n",
		`{"journal":"ladder","ladder":{"runs":[{"name":"a","dir":"r","search":"s","snapshots":[{"iteration":1,"path":"p"}]},{"name":"b","dir":"q","snapshots":[]}]}}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, records, good, err := parseJournal("fuzz", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "journal fuzz") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if good <= 0 || good > len(data) || data[good-1] != '\n' {
			t.Fatalf("good %d of %d bytes: want whole lines", good, len(data))
		}
		var again []byte
		for _, v := range append([]any{h}, anySlice(records)...) {
			line, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			again = append(append(again, line...), '\n')
		}
		h2, records2, good2, err := parseJournal("fuzz", again)
		if err != nil || good2 != len(again) || !reflect.DeepEqual(h2, h) || !reflect.DeepEqual(records2, records) {
			t.Errorf("written back, the journal reads differently (%v):\n%s", err, again)
		}
	})
}

func anySlice(records []GameRecord) []any {
	out := make([]any, len(records))
	for i, r := range records {
		out[i] = r
	}
	return out
}

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/internal/chart"
	"github.com/deathstacks/deathstacks/train/table"
)

// The files an evaluation writes into its directory (see [Report.Save]).
const (
	ResultsFile = "results.json" // the Report as JSON
	ReportFile  = "report.md"    // the tables, settings and how to reproduce
	GamesFile   = "games.jsonl"  // one arena.GameRecord a line
	EloChart    = "elo.png"      // each player's Elo with its interval
	// GamesJournal is the [arena.Journal] of the games finished while an
	// evaluation plays; it is removed once the files above are written.
	GamesJournal = "games.partial.jsonl"
)

// Standing is one player's result in a [Report].
type Standing struct {
	Name string `json:"name"`
	Spec string `json:"spec"`
	// Elo is relative to the report's anchor, which has 0; CI95 is its 95%
	// confidence interval as [low, high] ([0, 0] for the anchor).
	Elo  float64    `json:"elo"`
	CI95 [2]float64 `json:"ci95"`
	// Games, wins, draws and losses, and Score, the points per game.
	Games  int     `json:"games"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Score  float64 `json:"score"`
	// MeanMoveMS is the mean time the player took per move, in
	// milliseconds, over the games whose records time their moves (0 if
	// none do).
	MeanMoveMS float64 `json:"mean_move_ms"`
}

// PairResult sums up the games between two players, from A's side: A's
// wins, draws and losses, A's points per game, and how the games ended.
type PairResult struct {
	A      string  `json:"a"`
	B      string  `json:"b"`
	Games  int     `json:"games"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Score  float64 `json:"score"`
	Conversion
	// ForfeitsA counts the games A lost by misbehaving, by reason ("illegal
	// move", "player error", "timeout", "program exited", "malformed
	// move"); ForfeitsB counts B's. Both are left out of results.json
	// when empty.
	ForfeitsA map[string]int `json:"forfeits_a,omitempty"`
	ForfeitsB map[string]int `json:"forfeits_b,omitempty"`
}

// forfeitsOf counts the games of records that player lost by
// misbehaving, by reason; nil for none.
func forfeitsOf(records []arena.GameRecord, player string) map[string]int {
	var out map[string]int
	for _, r := range records {
		if slices.Contains(arena.ForfeitReasons(), r.Reason) && (player == r.Red) == (r.Result == arena.ResultBlueWins) {
			if out == nil {
				out = map[string]int{}
			}
			out[r.Reason]++
		}
	}
	return out
}

// Settings say how the games of a report were played, and how to
// play them again.
type Settings struct {
	// Date is when the games were played; DurationSec how long they took.
	Date        time.Time `json:"date"`
	DurationSec float64   `json:"duration_sec"`
	// Command is the command line that plays the same games again (with
	// players that are deterministic given their seeds), in the language
	// CommandLanguage names: "python" for a call of deathstacks.evaluate,
	// "" for a shell's command line.
	Command         string            `json:"command,omitempty"`
	CommandLanguage string            `json:"command_language,omitempty"`
	Seed            uint64            `json:"seed"`
	GamesPerPair    int               `json:"games_per_pair"`
	OpeningPlies    int               `json:"opening_plies"`
	Rules           arena.RulesRecord `json:"rules"`
	// Networks maps each network file the players played (a checkpoint or
	// a network file) to the SHA-256 of its bytes, in hex.
	Networks map[string]string `json:"networks,omitempty"`
}

// Report is the outcome of a tournament: ratings fitted by [elo.Fit] with
// one player anchored at 0, and the results of every pair that met. It
// marshals to the JSON of results.json.
type Report struct {
	Settings
	// Anchor is the player whose Elo is 0.
	Anchor string `json:"anchor"`
	// Games is the number of games in all.
	Games int `json:"games"`
	// Players are sorted from the best rating down.
	Players []Standing `json:"players"`
	// Pairs come in the order of their first game, with A the player who
	// was Red in it: for [arena.RoundRobin], the order of the entrants.
	Pairs []PairResult `json:"pairs"`
	// SPRT is the outcome of the test of an evaluation played by
	// [arena.PlaySPRT], whose games are those of the pairs it counted; nil for
	// any other.
	SPRT *elo.SPRTResult `json:"sprt,omitempty"`
}

// New rates the players of records, the games of a tournament played
// with arena settings cfg, with anchor's Elo fixed at 0. Every contender
// must have played and every game must be between contenders. The date,
// duration and command of the settings are left for the caller to fill.
func New(records []arena.GameRecord, contenders []arena.Contender, anchor string, cfg arena.Config) (*Report, error) {
	specs := map[string]string{}
	for _, c := range contenders {
		specs[c.Name] = c.Spec
	}
	if _, ok := specs[anchor]; !ok {
		return nil, fmt.Errorf("report: the anchor %q is not a player", anchor)
	}
	for _, r := range records {
		for _, name := range []string{r.Red, r.Blue} {
			if _, ok := specs[name]; !ok {
				return nil, fmt.Errorf("report: game %d: %q is not a player", r.Game, name)
			}
		}
	}
	ratings, err := elo.Fit(arena.Results(records), anchor)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	rep := &Report{
		Settings: Settings{
			Seed:         cfg.Seed,
			GamesPerPair: cfg.Games,
			OpeningPlies: cfg.OpeningPlies,
			Rules:        arena.RulesRecord{TooTall: cfg.Rules.TooTall, MaxPlies: cfg.Rules.MaxPlies, RepetitionLimit: cfg.Rules.RepetitionLimit},
		},
		Anchor: anchor,
		Games:  len(records),
		Pairs:  pairResults(records),
	}
	rated := map[string]bool{}
	for _, r := range ratings {
		s := Standing{Name: r.Player, Spec: specs[r.Player], Elo: r.Elo, CI95: [2]float64{r.Low, r.High}}
		s.Wins, s.Draws, s.Losses = wdl(records, r.Player)
		s.Games = s.Wins + s.Draws + s.Losses
		s.Score = (float64(s.Wins) + float64(s.Draws)/2) / float64(s.Games)
		s.MeanMoveMS = meanMoveMS(records, r.Player)
		rep.Players = append(rep.Players, s)
		rated[r.Player] = true
	}
	for _, c := range contenders {
		if !rated[c.Name] {
			return nil, fmt.Errorf("report: %s played no game", c.Name)
		}
	}
	return rep, nil
}

// wdl counts player's wins, draws and losses in records.
func wdl(records []arena.GameRecord, player string) (wins, draws, losses int) {
	for _, r := range records {
		if player != r.Red && player != r.Blue {
			continue
		}
		switch r.Score(player) {
		case 1:
			wins++
		case 0:
			losses++
		default:
			draws++
		}
	}
	return wins, draws, losses
}

// meanMoveMS returns the mean time player took per move in records, in
// milliseconds, or 0 if no record times its moves. Red makes the first
// move after the opening when StartFEN has Red to move.
func meanMoveMS(records []arena.GameRecord, player string) float64 {
	var sum float64
	var n int
	for _, r := range records {
		if len(r.MoveMS) != len(r.Moves) || (r.Red != player && r.Blue != player) {
			continue
		}
		// The player's moves are every other one, from the first if it was
		// to move at the start.
		first := 0
		if redFirst := !strings.HasSuffix(r.StartFEN, " b"); (r.Red == player) != redFirst {
			first = 1
		}
		for i := first; i < len(r.MoveMS); i += 2 {
			sum += r.MoveMS[i]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// pairResults sums up records by pair, in the order of each pair's first
// game, from the side of its Red player.
func pairResults(records []arena.GameRecord) []PairResult {
	var out []PairResult
	var games [][]arena.GameRecord
	index := map[[2]string]int{}
	for _, r := range records {
		i, ok := index[[2]string{r.Red, r.Blue}]
		if !ok {
			i, ok = index[[2]string{r.Blue, r.Red}]
		}
		if !ok {
			i = len(out)
			index[[2]string{r.Red, r.Blue}] = i
			out = append(out, PairResult{A: r.Red, B: r.Blue})
			games = append(games, nil)
		}
		games[i] = append(games[i], r)
	}
	for i := range out {
		p := &out[i]
		p.Wins, p.Draws, p.Losses = wdl(games[i], p.A)
		p.Games = len(games[i])
		p.Score = (float64(p.Wins) + float64(p.Draws)/2) / float64(p.Games)
		p.Conversion = ConversionOf(games[i], p.A)
		p.ForfeitsA, p.ForfeitsB = forfeitsOf(games[i], p.A), forfeitsOf(games[i], p.B)
	}
	return out
}

// Player returns the standing of the named player.
func (r *Report) Player(name string) (Standing, bool) {
	i := slices.IndexFunc(r.Players, func(s Standing) bool { return s.Name == name })
	if i < 0 {
		return Standing{}, false
	}
	return r.Players[i], true
}

// specColumn returns the spec column of the players table: the specs, if
// some player's name differs from its spec, else nil for no column.
func (r *Report) specColumn() func(Standing) string {
	if !slices.ContainsFunc(r.Players, func(s Standing) bool { return s.Name != s.Spec }) {
		return nil
	}
	return func(s Standing) string { return s.Spec }
}

// playerTable lists the players from the best down, with a column of
// specs unless spec is nil.
func (r *Report) playerTable(spec func(Standing) string) table.Table {
	t := table.Table{Head: []string{"#", "player"}, Right: []bool{true, false}}
	if spec != nil {
		t.Head, t.Right = append(t.Head, "spec"), append(t.Right, false)
	}
	t.Head = append(t.Head, "Elo", "±95%", "games", "W", "D", "L", "score", "ms/move")
	t.Right = append(t.Right, true, true, true, true, true, true, true, true)
	for i, s := range r.Players {
		row := []string{fmt.Sprint(i + 1), s.Name}
		if spec != nil {
			row = append(row, spec(s))
		}
		half := "anchor"
		if s.Name != r.Anchor {
			half = formatHalf(s.CI95)
		}
		ms := "-"
		switch {
		case s.MeanMoveMS >= 1:
			ms = fmt.Sprintf("%.1f", s.MeanMoveMS)
		case s.MeanMoveMS > 0: // a baseline's microseconds
			ms = fmt.Sprintf("%.3f", s.MeanMoveMS)
		}
		row = append(row, formatElo(s.Elo), half, fmt.Sprint(s.Games),
			fmt.Sprint(s.Wins), fmt.Sprint(s.Draws), fmt.Sprint(s.Losses), fmt.Sprintf("%.3f", s.Score), ms)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// formatElo writes a rating with its sign, and 0 without one.
func formatElo(elo float64) string {
	if math.Round(elo) == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.0f", elo)
}

// formatHalf writes the half-width of a symmetric interval, such as ±45.
func formatHalf(ci [2]float64) string { return fmt.Sprintf("±%.0f", (ci[1]-ci[0])/2) }

// pairTable lists the pairs with A's results.
func (r *Report) pairTable() table.Table {
	t := table.Table{
		Head:  []string{"A", "B", "games", "W", "D", "L", "score"},
		Right: []bool{false, false, true, true, true, true, true},
	}
	for _, p := range r.Pairs {
		t.Rows = append(t.Rows, []string{p.A, p.B, fmt.Sprint(p.Games),
			fmt.Sprint(p.Wins), fmt.Sprint(p.Draws), fmt.Sprint(p.Losses), fmt.Sprintf("%.3f", p.Score)})
	}
	return t
}

// conversionTable lists, for each pair, the draws by kind, the draws each
// side ended ahead in, and the length of the decided games.
func (r *Report) conversionTable() table.Table {
	t := table.Table{
		Head:  []string{"A", "B", "draws", "repetition", "move limit", "100+ ahead", "A ahead", "B ahead", "decided", "plies/decided"},
		Right: []bool{false, false, true, true, true, true, true, true, true, true},
	}
	ahead := func(n int, lead float64) string {
		if n == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (mean lead %.0f)", n, lead)
	}
	for _, p := range r.Pairs {
		plies := "-"
		if p.Decided > 0 {
			plies = fmt.Sprintf("%.1f", p.MeanDecidedPlies)
		}
		t.Rows = append(t.Rows, []string{p.A, p.B, fmt.Sprint(p.Draws), fmt.Sprint(p.DrawsRepetition), fmt.Sprint(p.DrawsMoveLimit), fmt.Sprint(p.DrawsMoveLimitFarAhead),
			ahead(p.DrawsAAhead, p.MeanLeadA), ahead(p.DrawsBAhead, p.MeanLeadB), fmt.Sprint(p.Decided), plies})
	}
	return t
}

// forfeitTable lists the games each player lost by misbehaving, by
// opponent and reason; false when there are none.
func (r *Report) forfeitTable() (table.Table, bool) {
	t := table.Table{Head: []string{"player", "against", "reason", "games"}, Right: []bool{false, false, false, true}}
	add := func(player, against string, forfeits map[string]int) {
		for _, reason := range arena.ForfeitReasons() {
			if n := forfeits[reason]; n > 0 {
				t.Rows = append(t.Rows, []string{player, against, reason, fmt.Sprint(n)})
			}
		}
	}
	for _, p := range r.Pairs {
		add(p.A, p.B, p.ForfeitsA)
		add(p.B, p.A, p.ForfeitsB)
	}
	return t, len(t.Rows) > 0
}

// Captions of the tables, shared by the text and Markdown forms.
const (
	forfeitsCaption   = "games lost by misbehaving: an illegal move, a player's error, or an external program's timeout, exit or malformed answer (games.jsonl has each one's detail)."
	conversionCaption = "repetition and move limit count the draws of each kind; 100+ ahead counts the draws at the move limit that ended with either side 100 or more ahead in material, won games not finished; A ahead and B ahead count the draws that ended with that side ahead in material (10 a piece and 5 a stack it controls, less the opponent's), with its mean lead; plies/decided is the mean length of the games won by either side."
	pairsCaption      = "W/D/L and score (points per game) are A's against B."
	eloCaption        = "Elo (Bradley-Terry fit of all games, with a prior of one virtual draw between each player and the anchor, so that a perfect score stays finite) is relative to %s = 0; ±95%% is the half-width of the 95%% interval; score is points per game; ms/move is the mean time the player took per move." // one draw: elo.PriorDraws
)

// WriteText writes the tables of pairs and of players as aligned text,
// for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Pairs: %s\n%s\n", pairsCaption, r.pairTable().Text())
	fmt.Fprintf(&b, "Draws: %s\n%s\n", conversionCaption, r.conversionTable().Text())
	if t, ok := r.forfeitTable(); ok {
		fmt.Fprintf(&b, "Forfeits: %s\n%s\n", forfeitsCaption, t.Text())
	}
	fmt.Fprintf(&b, "Players: %s\n%s", fmt.Sprintf(eloCaption, r.Anchor), r.playerTable(r.specColumn()).Text())
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownTables writes the players, pairs and draws tables in Markdown, under
// headings of the given level, with spec as the players' spec column.
func (r *Report) markdownTables(b *strings.Builder, level string, spec func(Standing) string) {
	fmt.Fprintf(b, "%s Players\n\n%s\n\n%s\n", level, fmt.Sprintf(eloCaption, "`"+r.Anchor+"`"), r.playerTable(spec).Markdown())
	fmt.Fprintf(b, "%s Pairs\n\n%s\n\n%s\n", level, pairsCaption, r.pairTable().Markdown())
	fmt.Fprintf(b, "%s Draws and decided games\n\nBy pair: %s\n\n%s\n", level, conversionCaption, r.conversionTable().Markdown())
	if t, ok := r.forfeitTable(); ok {
		fmt.Fprintf(b, "%s Forfeits\n\n%s\n\n%s\n", level, forfeitsCaption, t.Markdown())
	}
}

// markdownSettings writes the settings as a Markdown list, with extra
// lines after the common ones.
func (r *Report) markdownSettings(b *strings.Builder, extra ...string) {
	lines := []string{
		fmt.Sprintf("date: %s, %s of play", r.Date.UTC().Format("2006-01-02 15:04 UTC"), time.Duration(r.DurationSec*float64(time.Second)).Round(time.Second)),
		fmt.Sprintf("%s, %d per pair with colours alternating; each pair of games starts from the same %s", table.Count(r.Games, "game", "games"), r.GamesPerPair, table.Count(r.OpeningPlies, "random ply", "random plies")),
		fmt.Sprintf("rules: too-tall rule %s, draw on the %s occurrence of a position, move limit %s",
			onOff(r.Rules.TooTall), ordinal(r.Rules.RepetitionLimit), limit(r.Rules.MaxPlies)),
		fmt.Sprintf("seed: %d", r.Seed),
	}
	for _, file := range slices.Sorted(maps.Keys(r.Networks)) {
		lines = append(lines, fmt.Sprintf("network `%s`: sha256 %s", file, r.Networks[file]))
	}
	for _, l := range append(lines, extra...) {
		fmt.Fprintf(b, "- %s\n", l)
	}
	b.WriteString("\n")
}

// markdownReproduce writes how to play the games again.
func (r *Report) markdownReproduce(b *strings.Builder) {
	if r.Command == "" {
		return
	}
	lang := r.CommandLanguage
	if lang == "" {
		lang = "sh"
	}
	fmt.Fprintf(b, "## Reproduce\n\n```%s\n%s\n```\n\nThe same seed replays the same games for players that are deterministic given their seeds (every kind but alphabeta with a time limit).\n", lang, r.Command)
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func ordinal(n int) string {
	switch n {
	case 0:
		return "never (off)"
	case 1:
		return "first"
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return fmt.Sprintf("%dth", n)
}

func limit(plies int) string {
	if plies == 0 {
		return "none"
	}
	return table.Count(plies, "ply", "plies")
}

// Markdown returns the report of an evaluation: settings, the chart (the
// file [EloChart] beside it), the tables of players and pairs, and how to
// reproduce it.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Evaluation\n\n")
	r.markdownSettings(&b)
	fmt.Fprintf(&b, "![Elo of each player with its 95%% interval](%s)\n\n", EloChart)
	r.markdownTables(&b, "##", r.specColumn())
	if t := r.SPRT; t != nil {
		fmt.Fprintf(&b, "## SPRT\n\n%s: %s is %g Elo stronger than %s (H0) or %g (H1), alpha %g, beta %g; the test counted the pairs of games in order and decided after %s: llr %.2f, bounds %.2f and %.2f.\n\n",
			t.Decision, r.Pairs[0].A, t.Elo0, r.Pairs[0].B, t.Elo1, t.Alpha, t.Beta, table.Count(t.Pairs, "pair", "pairs"), t.LLR, t.Lower, t.Upper)
	}
	r.markdownReproduce(&b)
	return b.String()
}

// Save writes the evaluation's files into dir, each atomically:
// [ResultsFile], [ReportFile], [GamesFile] with records, and [EloChart].
func (r *Report) Save(dir string, records []arena.GameRecord) error {
	return saveReportFiles(dir, [4]string{ResultsFile, ReportFile, GamesFile, EloChart}, r, r.Markdown(), records, r.plotElo)
}

// saveReportFiles writes the four files of a report into dir, each
// atomically: the JSON of results, the Markdown text, the game records and
// the chart that plot draws; names gives them in that order.
func saveReportFiles(dir string, names [4]string, results any, markdown string, records []arena.GameRecord, plot func(path string) error) error {
	if err := writeJSONFile(filepath.Join(dir, names[0]), results); err != nil {
		return err
	}
	if err := writeTextFile(filepath.Join(dir, names[1]), markdown); err != nil {
		return err
	}
	if err := writeGameRecords(filepath.Join(dir, names[2]), records); err != nil {
		return err
	}
	return plot(filepath.Join(dir, names[3]))
}

// writeJSONFile writes v as indented JSON, atomically.
func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeTextFile(path, string(data)+"\n")
}

// writeTextFile writes text atomically.
func writeTextFile(path, text string) error {
	if err := codec.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeGameRecords writes records as JSON lines, one game a line,
// atomically.
func writeGameRecords(path string, records []arena.GameRecord) error {
	if err := codec.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range records {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("write games %s: %w", path, err)
	}
	return nil
}

// ratingBars are the players' ratings with their intervals, drawn across:
// the best at the top.
type ratingBars []Standing

func (s ratingBars) Len() int                { return len(s) }
func (s ratingBars) XY(i int) (x, y float64) { return s[i].Elo, float64(len(s) - 1 - i) }
func (s ratingBars) XError(i int) (low, high float64) {
	return s[i].Elo - s[i].CI95[0], s[i].CI95[1] - s[i].Elo
}

// plotElo draws each player's Elo with its 95% interval into a PNG at
// path, written atomically: one row per player, the best at the top.
func (r *Report) plotElo(path string) error {
	if len(r.Players) == 0 {
		return fmt.Errorf("plot %s: no players", path)
	}
	p := chart.New("Elo with 95% interval", "")
	p.X.Label.Text = fmt.Sprintf("Elo (%s = 0)", r.Anchor)
	p.Legend.Top = false
	pts := ratingBars(r.Players)
	bars, err := plotter.NewXErrorBars(pts)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	bars.Color, bars.Width = plotutil.Color(0), vg.Points(1.5)
	dots, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	dots.Color, dots.Shape, dots.Radius = plotutil.Color(0), plotutil.Shape(0), vg.Points(4)
	xys, err := plotter.CopyXYs(pts)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	names, values := make([]string, len(r.Players)), make([]string, len(r.Players))
	for i, s := range r.Players {
		names[len(names)-1-i] = s.Name
		values[i] = formatElo(s.Elo)
		if s.Name != r.Anchor {
			values[i] += " " + formatHalf(s.CI95)
		}
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: values})
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font.Size = vg.Points(12)
		labels.TextStyle[i].XAlign = draw.XCenter
	}
	labels.Offset = vg.Point{Y: vg.Points(6)}
	p.Add(bars, dots, labels)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(names))-0.5
	// A margin keeps the outermost bars and labels off the frame.
	lo, hi := 0.0, 0.0
	for _, s := range r.Players {
		lo, hi = min(lo, s.CI95[0]), max(hi, s.CI95[1])
	}
	margin := max(hi-lo, 100) * 0.06
	p.X.Min, p.X.Max = lo-margin, hi+margin
	p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		ticks := plot.DefaultTicks{}.Ticks(min, max)
		for i := range ticks {
			if ticks[i].Label != "" { // Elo in whole points, not "250.00"
				ticks[i].Label = fmt.Sprintf("%.0f", ticks[i].Value)
			}
		}
		return ticks
	})
	return chart.Save(path, [][]*plot.Plot{{p}}, 1000, vg.Length(max(400, 140+40*len(names))))
}

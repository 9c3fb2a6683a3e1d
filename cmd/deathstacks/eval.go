package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/progress"
	"github.com/deathstacks/deathstacks/train/report"
	"github.com/deathstacks/deathstacks/train/table"
)

// playerListHelp explains the repeated player flags of eval and ladder.
var playerListHelp = `SPEC or NAME=SPEC, repeated. NAME (no ":", "(" or "=" in it) names the player in
tables and results; by default the name is the spec, and a spec given twice
becomes SPEC#2, SPEC#3... Specs are KIND or KIND:KEY=VALUE,KEY=VALUE...:
` + players.SpecHelp()

// stringList is a flag that may be given several times.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(v string) error {
	if v == "" {
		return fmt.Errorf("empty: give a value or leave the flag out")
	}
	*l = append(*l, v)
	return nil
}

// evalSynopsis is eval's help: its synopsis and what it does.
const evalSynopsis = `eval --player SPEC --player SPEC [...] --games N [--sprt elo0=E0,elo1=E1[,alpha=A,beta=B]] [--parallel P] [--seed S] [--out DIR] [--opening-plies K] [--max-plies M] [--resume] [--quiet]

Plays a round robin among the players: N games for every pair, colours
alternating, each two games from the same K random opening plies (shared by
all pairs). Prints the results of every pair (A's wins, draws, losses and
points per game; its draws by repetition and at the move limit, those at
the move limit with either side 100 or more ahead, those with A or B ahead
in material and the mean lead, the mean plies of decided
games) and every player's Elo with its 95% interval, fitted over
all games with the anchor (az:model=anchor, the fixed point of the
project's scale) at 0 when it plays, else random (or, without a random
player, the first player; the output names the anchor) and mean time per move. Writes into DIR:
  results.json  {"anchor", "players": [{"name", "spec", "elo", "ci95": [low, high],
                "games", "wins", "draws", "losses", "score", "mean_move_ms"}],
                "pairs": [{"a", "b", "games", "wins", "draws", "losses", "score",
                "draws_repetition", "draws_move_limit", "draws_move_limit_far_ahead",
                "draws_a_ahead", "mean_lead_a", "draws_b_ahead", "mean_lead_b",
                "decided", "mean_decided_plies"}],
                settings...} (pairs from A's side; ci95 is the interval's ends;
                draws_move_limit_far_ahead counts the draws at the move
                limit with either side 100 or more ahead in material,
                draws_a_ahead counts the draws A ended ahead in material,
                mean_lead_a is its mean lead in them, and so for B;
                mean_decided_plies is the mean length of the won games;
                "forfeits_a" and "forfeits_b", when not empty, count each
                side's games lost by misbehaving by reason: illegal move,
                player error, timeout, program exited, malformed move)
  report.md     the same tables, the settings and the command that replays it
  games.jsonl   every game (players, seeds, opening, moves, move_ms: each
                move's time in milliseconds, result, reason, detail), one a line
  elo.png       each player's Elo with its interval
az players sharing a model share one network server, batched across the
games at once.

With --sprt and exactly two players A and B, it plays pairs of games (one
opening, colours swapped) until a sequential probability ratio test
accepts H0 (A is E0 Elo stronger than B) or H1 (E1 stronger), pentanomial
over the pairs, with error rates alpha and beta (default 0.05), or until N
games (even) are played: inconclusive. The progress shows the LLR and its
bounds, ln(beta/(1-alpha)) and ln((1-beta)/alpha); the last line is
  sprt: H1 accepted|H0 accepted|inconclusive (llr L, bounds LO HI, P pairs, elo0 E0 elo1 E1)
and results.json gets "sprt": {"elo0", "elo1", "alpha", "beta", "llr",
"lower", "upper", "decision", "pairs"}. The test counts the pairs in order,
so a resumed or parallel run decides on the same games as a serial one.

While it plays, DIR/games.partial.jsonl keeps every finished game, and goes
once the files above are written. Ctrl-C (or SIGTERM) stops it, dropping the
games in progress (status 130 after Ctrl-C, 143 after SIGTERM); the same
command with --resume (--parallel and --quiet may differ) plays only the
games missing. Without --resume, a DIR holding unfinished games or a
finished eval is refused (status 2).`

// evalFlags are eval's flags, read and checked.
type evalFlags struct {
	players  stringList
	cfg      arena.Config
	test     *elo.SPRT // nil without --sprt
	dir      string    // --out, or the default directory
	outGiven bool      // --out was given
	resume   bool
	quiet    bool
}

func runEval(args []string, s stdio) error {
	f, err := parseEvalFlags(args, s)
	if err != nil {
		return err
	}
	res := resumable{what: "eval", out: report.EvaluationFolder(f.dir), resume: f.resume}
	if err := res.check(); err != nil {
		return err
	}
	models := newModels(s.err)
	defer models.Close()
	contenders, resolved, networks, err := buildContenders(models, "--player", f.players)
	if err != nil {
		return err
	}
	// The record and the continue command name the networks played.
	args = withPlayers(args, "player", resolved)
	cfg := f.cfg
	header := arena.NewJournalHeader(contenders, cfg, commandLine("eval", args))
	header.SPRT = f.test
	journal, played, command, err := res.open(header)
	if err != nil {
		return err
	}
	defer journal.Close()
	cfg.Played = played
	total := announceEval(s, len(contenders), cfg, f.test, len(played))
	start := time.Now()
	var (
		records []arena.GameRecord
		outcome *elo.SPRTResult
	)
	err = res.play(s, journal, len(played), total, f.quiet, resumeCommand("eval", args, f.resume, f.outGiven, f.dir),
		func(ctx context.Context, onGame func(arena.GameRecord), bar *progress.Bar) (err error) {
			cfg.OnGame = onGame
			records, outcome, err = arena.PlayEvaluation(ctx, contenders, cfg, f.test,
				func(r elo.SPRTResult) { bar.Describe("eval, " + r.Progress()) })
			return err
		})
	if err != nil {
		return err
	}
	rep, err := report.New(records, contenders, report.DefaultAnchor(contenders), cfg)
	if err != nil {
		return err
	}
	rep.SPRT = outcome
	rep.Networks = networks
	if err := publish(s, rep, &rep.Settings, command, start, f.dir, records,
		report.ResultsFile, report.ReportFile, report.GamesFile, report.EloChart); err != nil {
		return err
	}
	if rep.SPRT != nil {
		fmt.Fprintln(s.out, rep.SPRT.Line())
	}
	return journal.Remove()
}

// parseEvalFlags reads eval's flags and checks them; every problem is a
// usage error naming its flag.
func parseEvalFlags(args []string, s stdio) (evalFlags, error) {
	fs := newFlags("eval", evalSynopsis, s)
	var f evalFlags
	fs.Var(&f.players, "player", "a player: "+playerListHelp)
	games := fs.Int("games", 20, "games per pair of players")
	parallel := fs.Int("parallel", runtime.NumCPU(), "games played at once")
	seed := fs.Uint64("seed", 1, "seed of the openings and players: the same seed replays the same games")
	out := fs.String("out", "", "the directory to write (default checkpoints/eval-<UTC time>)")
	openingPlies := fs.Int("opening-plies", 4, "random plies that start each pair of games")
	maxPlies := fs.Int("max-plies", env.DefaultRules().MaxPlies, "move limit: a game this long is a draw; 0 for none")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&f.resume, "resume", false, "continue the unfinished eval in --out: play the games it lacks")
	sprt := fs.String("sprt", "", "elo0=E0,elo1=E1[,alpha=A,beta=B]: play pairs of games between the two players until this SPRT decides, or --games are played")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	rules := env.DefaultRules()
	rules.MaxPlies = *maxPlies
	f.cfg = arena.Config{Rules: rules, Games: *games, Parallel: *parallel, OpeningPlies: *openingPlies, Seed: *seed}
	if err := f.cfg.Validate(); err != nil {
		return f, flagErr(err, map[string]string{"games": "games", "parallel": "parallel", "opening_plies": "opening-plies", "rules": "max-plies"})
	}
	if len(f.players) < 2 {
		return f, usageErr("--player: %d given: want 2 or more", len(f.players))
	}
	var err error
	if f.test, err = parseSPRTFlag(fs, *sprt, len(f.players), f.cfg.Games); err != nil {
		return f, err
	}
	f.dir, f.outGiven = *out, *out != ""
	if !f.outGiven {
		if f.resume {
			return f, usageErr("--resume: give the --out DIR of the eval to continue")
		}
		f.dir = filepath.Join("checkpoints", "eval-"+time.Now().UTC().Format("20060102-150405"))
	}
	return f, nil
}

// announceEval says what the eval of n players plays, and returns how
// many games that is in all.
func announceEval(s stdio, n int, cfg arena.Config, test *elo.SPRT, played int) (total int) {
	pairs := n * (n - 1) / 2
	total = pairs * cfg.Games
	until := ""
	if test != nil {
		until = ", until the sprt " + test.String() + " decides"
	}
	fmt.Fprintf(s.out, "eval: %d players, %s, %s each: %s, %d at once%s%s\n", n, table.Count(pairs, "pair", "pairs"),
		table.Count(cfg.Games, "game", "games"), table.Count(total, "game", "games"), cfg.Parallel, until, resumed(played))
	return total
}

// parseSPRTFlag reads --sprt, if given, and checks that the eval can run
// the test: two players and an even number of games. Every problem is a
// usage error naming its flag.
func parseSPRTFlag(fs *flag.FlagSet, text string, players, games int) (*elo.SPRT, error) {
	if !flagGiven(fs, "sprt") {
		return nil, nil
	}
	test, err := elo.ParseSPRT(text)
	if err != nil {
		problems, _ := fieldErrors(err) // ParseSPRT's problems are all FieldErrors
		lines := make([]string, len(problems))
		for i, p := range problems {
			lines[i] = "--sprt " + p.Error()
		}
		return nil, usageErr("%s", strings.Join(lines, "\n"))
	}
	var ch configs.Checker
	ch.Check(players == 2, "player", "is given %d times: want exactly 2 with --sprt", players)
	ch.Check(games%2 == 0, "games", "is %d: want an even number with --sprt, which plays pairs of games", games)
	if err := flagErr(ch.Err(), map[string]string{"player": "player", "games": "games"}); err != nil {
		return nil, err
	}
	return &test, nil
}

// resumed says, after the first line of eval or ladder, how many games a
// resumed one has played before: nothing when it starts afresh.
func resumed(played int) string {
	if played == 0 {
		return ""
	}
	return fmt.Sprintf(", %s played before", table.Count(played, "game", "games"))
}

// savable is a finished report: [report.Report] or [report.LadderReport].
type savable interface {
	WriteText(w io.Writer) error
	Save(dir string, records []arena.GameRecord) error
}

// publish stamps a report's settings with the start, duration and command
// of the games, prints it, saves it into dir and says which files it wrote.
func publish(s stdio, rep savable, settings *report.Settings, command string, start time.Time, dir string, records []arena.GameRecord, files ...string) error {
	settings.Date, settings.DurationSec, settings.Command = start, time.Since(start).Seconds(), command
	if err := rep.WriteText(s.out); err != nil {
		return err
	}
	if err := rep.Save(dir, records); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "\n%s in %v; wrote %s and %s in %s\n", table.Count(len(records), "game", "games"), time.Since(start).Round(time.Second),
		strings.Join(files[:len(files)-1], ", "), files[len(files)-1], dir)
	return nil
}

// buildContenders reads player arguments (SPEC or NAME=SPEC), names them
// uniquely and builds each player once, so that a bad spec or model stops
// the command before any game: a usage error naming the flag. An az
// player's model is the file it resolved to (a run directory's latest
// checkpoint), so that the record names the network the games played;
// played holds the arguments so rewritten, and networks each file's
// SHA-256.
func buildContenders(models *train.Models, flagName string, args []string) (out []arena.Contender, played []string, networks map[string]string, err error) {
	taken := map[string]bool{}
	for _, arg := range args {
		name, spec, err := parsePlayerArg(flagName, arg)
		if err != nil {
			return nil, nil, nil, err
		}
		if _, err := players.NewPlayer(spec, 0, models.Load); err != nil {
			return nil, nil, nil, usageErr("%s: %v", flagName, err)
		}
		if m := spec.Model(); m != "" {
			file, sum, ok, err := models.File(m)
			if err != nil {
				return nil, nil, nil, err
			}
			if ok && networks == nil {
				networks = map[string]string{}
			}
			if ok {
				networks[file] = sum
			}
			if ok && file != m {
				spec = withModel(spec, file)
				arg = spec.String()
				if name != "" {
					arg = name + "=" + arg
				}
			}
		}
		played = append(played, arg)
		if name == "" {
			name = spec.String()
		}
		for k := 2; taken[name]; k++ {
			if !taken[fmt.Sprintf("%s#%d", name, k)] {
				name = fmt.Sprintf("%s#%d", name, k)
			}
		}
		taken[name] = true
		out = append(out, arena.Contender{Spec: spec.String(), Entrant: arena.Entrant{Name: name, New: func(seed uint64) (mcts.Player, error) {
			return players.NewPlayer(spec, seed, models.Load)
		}}})
	}
	return out, played, networks, nil
}

// withModel returns spec with its model key set to file.
func withModel(spec players.Spec, file string) players.Spec {
	params := slices.Clone(spec.Params)
	for i := range params {
		if params[i].Key == "model" {
			params[i].Value = file
		}
	}
	spec.Params = params
	return spec
}

// withPlayers returns args with the values of flag (such as --player),
// given as "--flag V", "--flag=V" or with one dash, replaced in order by
// values.
func withPlayers(args []string, flag string, values []string) []string {
	out := slices.Clone(args)
	k := 0
	for i := 0; i < len(out) && k < len(values); i++ {
		name, _, inline := strings.Cut(out[i], "=")
		if out[i] == "--" {
			break
		}
		if strings.TrimLeft(name, "-") != flag || !strings.HasPrefix(name, "-") {
			continue
		}
		if inline {
			out[i] = name + "=" + values[k]
		} else if i+1 < len(out) {
			i++
			out[i] = values[k]
		}
		k++
	}
	return out
}

// parsePlayerArg reads SPEC or NAME=SPEC: the text before the first "="
// is a name when it holds no ":" or "(", since in a spec a key=value comes
// after the kind's colon, or within a cmd spec's parentheses. The name is
// empty when none is given.
func parsePlayerArg(flagName, arg string) (name string, spec players.Spec, err error) {
	text := arg
	if before, after, ok := strings.Cut(arg, "="); ok && !strings.ContainsAny(before, ":(") {
		if before == "" {
			return "", players.Spec{}, usageErr("%s %q: empty name before =", flagName, arg)
		}
		name, text = before, after
	}
	spec, err = players.ParseSpec(text)
	if err != nil {
		return "", players.Spec{}, usageErr("%s: %v", flagName, err)
	}
	return name, spec, nil
}

// commandLine writes the command name run with args as a shell would read
// it back, the program named as the user invoked it ([program]).
func commandLine(name string, args []string) string {
	words := []string{program, shellWord(name)}
	for _, a := range args {
		words = append(words, shellWord(a))
	}
	return strings.Join(words, " ")
}

// shellWord is w as a POSIX shell reads it back as one word: as it is when
// it holds only characters no shell treats specially, else in single quotes.
func shellWord(w string) string {
	plain := w != "" && !strings.ContainsFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	})
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

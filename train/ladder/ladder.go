package ladder

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/report"
)

// Options set up a [Ladder] over the network snapshots of one or
// more training runs.
type Options struct {
	// Runs are what the ladder needs of each training run: package
	// train's LadderRun reads it from a run directory. Several runs need
	// a Name each, all different, and the same rules and evaluation
	// openings.
	Runs []Run
	// Every rates the snapshots whose iteration is a multiple of Every,
	// and the latest one, of each run; 1 rates them all.
	Every int
	// Simulations is the network players' search budget per move, and
	// Time their time per move (0 for none; with both, whichever ends
	// first, and with Time, Simulations may be 0 for no limit); the other
	// search settings are each snapshot's (Snapshot.Search).
	Simulations int
	Time        time.Duration
	// Games is the number of games each pair plays; Parallel how many run
	// at once; Seed drives openings and players.
	Games, Parallel int
	Seed            uint64
	// Networks serves the snapshots' networks, for [Ladder.Play].
	Networks Networks
}

// Networks serves the networks of a ladder's snapshots, each from its
// first match to its last: package train's Models, which serves every
// command's az players. Load returns a network's evaluator, safe for
// concurrent use (its search settings are not used: the ladder's are
// Snapshot.Search); Release stops serving it.
type Networks interface {
	Load(path string) (mcts.Evaluator, mcts.Config, error)
	Release(path string) error
}

// Run is a training run as a ladder sees it.
type Run struct {
	// Name names the run in a ladder of several: its snapshots' players
	// are NAME/iter-000010. A ladder of one run does not use it.
	Name string
	// Dir is the run directory, for the report.
	Dir string
	// Rules and OpeningPlies are the run's rules and the random plies of
	// its evaluation openings.
	Rules        env.Rules
	OpeningPlies int
	// Snapshots are the run's network snapshots, oldest first.
	Snapshots []Snapshot
}

// Snapshot is a network snapshot a ladder rates.
type Snapshot struct {
	Iteration int
	Path      string
	// Search is the snapshot's search for strong play (no noise, no
	// temperature, the win search given a player's node budget at least),
	// as every command that plays it finds it: package train's LadderRun
	// reads it. The ladder's players search with it,
	// their budget set by the ladder; the report and journal name the
	// latest snapshot's as their run's.
	Search mcts.Config
	// ElapsedSec is the run's training time through the iteration, from
	// metrics.jsonl; HasElapsed is false when the log does not have it.
	ElapsedSec float64
	HasElapsed bool
}

// Ladder rates the network snapshots of training runs against baseline
// players and against each other. To keep the cost linear in the number
// of snapshots, the pairs that play are: every snapshot against every
// baseline, every snapshot against the next one rated of its run, the
// baselines against each other, and the latest snapshot of each run
// against the latest of every other run, which compares the runs' final
// networks directly. The Elo fit over all these games puts every snapshot
// of every run on one scale, anchored at a baseline.
type Ladder struct {
	opts Options
	// runs are the runs with the snapshots rated and the search of their
	// players; rungs are all those snapshots, run by run, oldest first.
	runs  []ratedRun
	rungs []rung
}

// ratedRun is a run of a ladder: its Snapshots are those the ladder
// rates, and search is how the player of its latest one searches.
type ratedRun struct {
	Run
	search mcts.Config
}

// rung is a snapshot a ladder rates: the index of its run in
// [Ladder.runs], the snapshot, its player's name and search.
type rung struct {
	run    int
	snap   Snapshot
	name   string
	search mcts.Config
}

// Validate reports every option out of range, each as a
// [*configs.FieldError] keyed by its field's snake-case name (every,
// simulations, time, games, parallel), joined into one error.
func (o Options) Validate() error {
	var ch configs.Checker
	ch.AtLeast("every", o.Every, 1)
	ch.AtLeast("simulations", o.Simulations, 0)
	ch.Check(o.Time >= 0, "time", "is %v: want 0 (none) or more", o.Time)
	ch.Check(o.Simulations > 0 || o.Time != 0, "simulations", "is 0 without a time: want 1 or more")
	ch.AtLeast("games", o.Games, 1)
	ch.AtLeast("parallel", o.Parallel, 1)
	return ch.Err()
}

// New picks the snapshots to rate and checks the options and the
// runs: each has snapshots, and with several, each has a name of its own
// and they share rules and evaluation openings, without which their games
// would not rate on one scale.
func New(opts Options) (*Ladder, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	if len(opts.Runs) == 0 {
		return nil, errors.New("ladder: no runs")
	}
	if err := checkRuns(opts.Runs); err != nil {
		return nil, fmt.Errorf("ladder: %w", err)
	}
	l := &Ladder{opts: opts}
	for i, run := range opts.Runs {
		r := ratedRun{Run: run}
		r.Snapshots = nil
		all := run.Snapshots
		for j, s := range all {
			if s.Iteration%opts.Every != 0 && j != len(all)-1 {
				continue
			}
			r.Snapshots = append(r.Snapshots, s)
			name := fmt.Sprintf("iter-%06d", s.Iteration)
			if len(opts.Runs) > 1 {
				name = run.Name + "/" + name
			}
			g := rung{run: i, snap: s, name: name, search: s.Search}
			g.search.Simulations, g.search.Time = opts.Simulations, opts.Time
			l.rungs = append(l.rungs, g)
			r.search = g.search
		}
		l.runs = append(l.runs, r)
	}
	return l, nil
}

// checkRuns checks that every run has snapshots and that several runs
// have names, all different, and the same rules and openings as the first.
func checkRuns(runs []Run) error {
	first := runs[0]
	for i, r := range runs {
		if len(r.Snapshots) == 0 {
			return fmt.Errorf("run %s has no network snapshots", r.Dir)
		}
		if len(runs) == 1 {
			break
		}
		if r.Name == "" {
			return fmt.Errorf("run %s has no name: a ladder of several runs names each", r.Dir)
		}
		for _, o := range runs[:i] {
			if o.Name == r.Name {
				return fmt.Errorf("runs %s and %s are both called %s", o.Dir, r.Dir, r.Name)
			}
		}
		for _, d := range []struct {
			key       string
			was, this any
		}{
			{"env.rules.too_tall", first.Rules.TooTall, r.Rules.TooTall},
			{"env.rules.max_plies", first.Rules.MaxPlies, r.Rules.MaxPlies},
			{"env.rules.repetitions", first.Rules.RepetitionLimit, r.Rules.RepetitionLimit},
			{"eval.opening_plies", first.OpeningPlies, r.OpeningPlies},
		} {
			if d.was != d.this {
				return fmt.Errorf("runs %s (%s) and %s (%s) differ in %s: %v and %v; a ladder's games share rules and openings",
					first.Name, first.Dir, r.Name, r.Dir, d.key, d.was, d.this)
			}
		}
	}
	return nil
}

// Runs returns the ladder's runs, each with the snapshots the ladder
// rates, oldest first.
func (l *Ladder) Runs() []Run {
	out := make([]Run, len(l.runs))
	for i, r := range l.runs {
		out[i] = r.Run
		out[i].Snapshots = slices.Clone(r.Snapshots)
	}
	return out
}

// Games returns the number of games the ladder plays with the given
// number of baselines.
func (l *Ladder) Games(baselines int) int {
	return len(l.schedule(baselines)) * l.opts.Games
}

// schedule returns the ladder's matches in the order [Ladder.Play] plays
// them, each as the indices of its two players: 0 to baselines-1 are the
// baselines, and baselines+k is the k-th rung. The order of the pairs of
// one run is that of the ladders before several runs, whose journals
// number their games so.
func (l *Ladder) schedule(baselines int) [][2]int {
	var out [][2]int
	for i := range baselines {
		for j := i + 1; j < baselines; j++ {
			out = append(out, [2]int{i, j})
		}
	}
	var latest []int
	for k, g := range l.rungs {
		for i := range baselines {
			out = append(out, [2]int{baselines + k, i})
		}
		if k > 0 && l.rungs[k-1].run == g.run {
			out = append(out, [2]int{baselines + k - 1, baselines + k})
		}
		if k == len(l.rungs)-1 || l.rungs[k+1].run != g.run {
			latest = append(latest, baselines+k)
		}
	}
	for i := range latest {
		for j := i + 1; j < len(latest); j++ {
			out = append(out, [2]int{latest[i], latest[j]})
		}
	}
	return out
}

// config returns the arena settings of the ladder's games: the runs' rules and
// evaluation openings, the options' games, parallelism and seed.
func (l *Ladder) config() arena.Config {
	return arena.Config{
		Rules:        l.runs[0].Rules,
		Games:        l.opts.Games,
		Parallel:     l.opts.Parallel,
		OpeningPlies: l.runs[0].OpeningPlies,
		Seed:         l.opts.Seed,
	}
}

// spec returns the az player spec that plays like the ladder's player of
// a rung, every search setting of its snapshot spelled out, so that the
// eval command can rate it again.
func (l *Ladder) spec(g rung) string {
	params := append([]players.Param{{Key: "model", Value: g.snap.Path}}, players.SearchParams(g.search)...)
	return players.Spec{Kind: players.KindAZ, Params: params}.String()
}

// Play plays the ladder's games (see [Ladder]) and rates everyone with
// the anchor's Elo at 0 (see [report.DefaultAnchor]); baselines need at least
// one player. The games are numbered across the ladder's pairs, in the
// order they play. played are games finished before (from a [arena.Journal]),
// which are not played again: see [arena.Config.Played]. onGame, if not
// nil, is called with each game finished now, one call at a time. Each
// snapshot's network is served, batched across the games at once, only
// from its first pair to its last. It returns the report and the records
// of every game, in game order.
func (l *Ladder) Play(ctx context.Context, baselines []arena.Contender, played []arena.GameRecord, onGame func(arena.GameRecord)) (*report.LadderReport, []arena.GameRecord, error) {
	if err := l.checkBaselines(baselines); err != nil {
		return nil, nil, err
	}
	schedule := l.schedule(len(baselines))
	byMatch, err := l.playedByMatch(played, baselines, schedule)
	if err != nil {
		return nil, nil, fmt.Errorf("ladder: %w", err)
	}
	sv := l.serve(baselines, schedule)
	defer sv.close()
	cfg := l.config()
	var records []arena.GameRecord
	for m, pair := range schedule {
		a, b, err := sv.entrants(pair)
		if err != nil {
			return nil, records, err
		}
		offset := m * cfg.Games
		cfg.Played = byMatch[m]
		cfg.OnGame = func(r arena.GameRecord) {
			if onGame != nil {
				r.Game += offset
				onGame(r)
			}
		}
		recs, err := arena.PlayMatch(ctx, a, b, cfg)
		for _, r := range recs {
			r.Game += offset
			records = append(records, r)
		}
		if err != nil {
			return nil, records, fmt.Errorf("ladder: %w", err)
		}
		if err := sv.played(m, pair); err != nil {
			return nil, records, fmt.Errorf("ladder: %w", err)
		}
	}
	contenders := slices.Clone(baselines)
	for _, g := range l.rungs {
		contenders = append(contenders, arena.Contender{Entrant: arena.Entrant{Name: g.name}, Spec: l.spec(g)})
	}
	rep, err := report.New(records, contenders, report.DefaultAnchor(baselines), cfg)
	if err != nil {
		return nil, records, fmt.Errorf("ladder: %w", err)
	}
	return l.report(rep), records, nil
}

// checkBaselines checks that the ladder can play against baselines: one
// at least, none called like a snapshot, and Networks to serve the
// snapshots.
func (l *Ladder) checkBaselines(baselines []arena.Contender) error {
	if len(baselines) == 0 {
		return errors.New("ladder: no baseline players")
	}
	if l.opts.Networks == nil {
		return errors.New("ladder: no Networks to serve the snapshots")
	}
	for _, b := range baselines {
		for _, g := range l.rungs {
			if b.Name == g.name {
				return fmt.Errorf("ladder: a baseline is called %s like a snapshot", b.Name)
			}
		}
	}
	return nil
}

// serving holds the players of a schedule's matches: the baselines, and
// each snapshot's player, whose server starts at its first match and
// stops after its last, so that few networks are in memory at once.
type serving struct {
	l         *Ladder
	baselines []arena.Contender
	last      []int            // each rung's last match
	open      []*arena.Entrant // each rung's player while its server runs
}

// serve returns the players of the matches of schedule, none started yet.
func (l *Ladder) serve(baselines []arena.Contender, schedule [][2]int) *serving {
	nb := len(baselines)
	last := make([]int, len(l.rungs))
	for m, pair := range schedule {
		for _, i := range pair {
			if i >= nb {
				last[i-nb] = m
			}
		}
	}
	return &serving{l: l, baselines: baselines, last: last, open: make([]*arena.Entrant, len(l.rungs))}
}

// entrants returns the two players of a match, starting the servers of
// the snapshots that play their first.
func (s *serving) entrants(pair [2]int) (a, b arena.Entrant, err error) {
	if a, err = s.entrant(pair[0]); err != nil {
		return a, b, err
	}
	b, err = s.entrant(pair[1])
	return a, b, err
}

// entrant returns player i of the schedule: a baseline, or past them a
// snapshot's player.
func (s *serving) entrant(i int) (arena.Entrant, error) {
	nb := len(s.baselines)
	if i < nb {
		return s.baselines[i].Entrant, nil
	}
	if s.open[i-nb] == nil {
		e, err := s.l.player(s.l.rungs[i-nb])
		if err != nil {
			return arena.Entrant{}, err
		}
		s.open[i-nb] = &e
	}
	return *s.open[i-nb], nil
}

// played stops the servers of the snapshots whose last match, m, has
// been played.
func (s *serving) played(m int, pair [2]int) error {
	nb := len(s.baselines)
	for _, i := range pair {
		if i >= nb && s.last[i-nb] == m {
			s.open[i-nb] = nil
			if err := s.l.opts.Networks.Release(s.l.rungs[i-nb].snap.Path); err != nil {
				return err
			}
		}
	}
	return nil
}

// close stops the servers still running.
func (s *serving) close() {
	for k, p := range s.open {
		if p != nil {
			s.l.opts.Networks.Release(s.l.rungs[k].snap.Path)
		}
	}
}

// pairs returns the names of the players of each match of a schedule.
func (l *Ladder) pairs(baselines []arena.Contender, schedule [][2]int) [][2]string {
	name := func(i int) string {
		if i < len(baselines) {
			return baselines[i].Name
		}
		return l.rungs[i-len(baselines)].name
	}
	out := make([][2]string, len(schedule))
	for m, p := range schedule {
		out[m] = [2]string{name(p[0]), name(p[1])}
	}
	return out
}

// playedByMatch splits the ladder's games played before by the match of
// the schedule they belong to, each numbered within its match as
// [arena.PlayMatch] numbers it, and checks them all against their matches'
// games before any game is played.
func (l *Ladder) playedByMatch(played []arena.GameRecord, baselines []arena.Contender, schedule [][2]int) ([][]arena.GameRecord, error) {
	games := l.opts.Games
	pairs := l.pairs(baselines, schedule)
	out := make([][]arena.GameRecord, len(pairs))
	for _, r := range played {
		if r.Game < 0 || r.Game >= len(pairs)*games {
			return nil, fmt.Errorf("%w: game %d: the ladder has games 0 to %d", arena.ErrPlayedGame, r.Game, len(pairs)*games-1)
		}
		m := r.Game / games
		r.Game -= m * games
		out[m] = append(out[m], r)
	}
	for m, recs := range out {
		if len(recs) == 0 {
			continue
		}
		p := pairs[m]
		cfg := l.config()
		cfg.Played = recs
		if err := arena.CheckPlayed(cfg, p[0], p[1]); err != nil {
			return nil, fmt.Errorf("games %d to %d, %s against %s: %w", m*games, (m+1)*games-1, p[0], p[1], err)
		}
	}
	return out, nil
}

// player loads a rung's network from the ladder's Networks and returns
// its entrant.
func (l *Ladder) player(g rung) (arena.Entrant, error) {
	eval, _, err := l.opts.Networks.Load(g.snap.Path)
	if err != nil {
		return arena.Entrant{}, fmt.Errorf("ladder: %w", err)
	}
	return arena.Entrant{Name: g.name, New: func(seed uint64) (mcts.Player, error) {
		return mcts.NewPUCTPlayer(eval, g.search, seed)
	}}, nil
}

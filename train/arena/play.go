package arena

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/internal/parallel"
)

// PlayerFactory builds a fresh player for one game from that game's seed.
// The arena calls factories from several goroutines at once.
type PlayerFactory func(seed uint64) (mcts.Player, error)

// Entrant is a named player of a match or tournament.
type Entrant struct {
	// Name identifies the player in records and ratings, such as its spec.
	Name string
	New  PlayerFactory
}

// Config sets up the games of [PlayMatch] and [RoundRobin].
type Config struct {
	// Rules are the rules of every game.
	Rules env.Rules
	// Games is the number of games each pair of entrants plays; each
	// opening is played twice, once with each entrant as Red (an odd count
	// leaves the last opening played once).
	Games int
	// Parallel is the number of games played at once.
	Parallel int
	// OpeningPlies is the number of uniformly random plies that start each
	// pair of games (never ending the game), so that deterministic players
	// do not play the same game over and over.
	OpeningPlies int
	// Seed drives the openings and the players' seeds: the same seed, with
	// players that are deterministic given theirs, replays a match exactly,
	// whatever Parallel is.
	Seed uint64
	// OnGame, if not nil, is called with each finished game, one call at a
	// time, in the order the games finish: for a progress bar, say. It is
	// not called for the games of Played.
	OnGame func(GameRecord)
	// Played are games of this tournament finished before, by an earlier
	// process whose journal kept them (see [Journal]), in any order: their
	// games are not played again, and they are returned among the others
	// as if played now. Each must be the game of its number, the same
	// players and seeds and opening, with a result: one that is not makes
	// the tournament fail with [ErrPlayedGame] before any game.
	Played []GameRecord
}

// Validate reports every setting out of range, each as a
// [*configs.FieldError] keyed by its field's snake-case name (games,
// parallel, opening_plies; rules for what env's own check refuses),
// joined into one error.
func (c Config) Validate() error {
	var ch configs.Checker
	ch.AtLeast("games", c.Games, 1)
	ch.AtLeast("parallel", c.Parallel, 1)
	ch.AtLeast("opening_plies", c.OpeningPlies, 0)
	if err := c.Rules.Validate(); err != nil {
		ch.Section("rules", err)
	} else {
		ch.Check(c.Rules.MaxPlies == 0 || c.OpeningPlies < c.Rules.MaxPlies, "opening_plies",
			"is %d: want fewer than the move limit (max_plies %d), which would end the game first", c.OpeningPlies, c.Rules.MaxPlies)
	}
	return ch.Err()
}

// ErrPlayedGame marks a record of [Config.Played] that is not the
// game its number stands for in the tournament.
var ErrPlayedGame = errors.New("a game given as played is not this tournament's")

// PlayMatch plays cfg.Games games between a and b, alternating colours
// (a is Red in the even-numbered games), and returns their records in game
// order. See [RoundRobin].
func PlayMatch(ctx context.Context, a, b Entrant, cfg Config) ([]GameRecord, error) {
	return RoundRobin(ctx, []Entrant{a, b}, cfg)
}

// RoundRobin plays cfg.Games games between every two entrants (the first
// against the second, the first against the third, and so on), cfg.Parallel
// at a time, and returns their records in that order.
//
// Opening k of every pairing is the same, and both games of an opening
// start from it with the colours swapped, so no pairing draws easier
// openings than another. Every game gets fresh players from the factories.
// A player that returns an error, panics or chooses an illegal move loses
// that game, recorded with the reason (an external program's failure,
// players.ErrMoveTimeout and the others, with its own); the tournament
// goes on. A player that is an io.Closer (an external program) is closed
// when its game ends, or at once when ctx ends. A factory
// that fails stops the tournament with its error, as does ctx: the records
// of the games finished by then (with those of cfg.Played) are returned
// with the error, and a game in progress is dropped after the move being
// chosen.
func RoundRobin(ctx context.Context, entrants []Entrant, cfg Config) ([]GameRecord, error) {
	jobs, records, done, err := prepare(entrants, cfg)
	if err != nil {
		return nil, err
	}
	return runGames(ctx, jobs, records, done, cfg, nil)
}

// prepare checks the settings and the entrants of a round robin and
// returns its games, with the records of those played before in their
// places, marked done.
func prepare(entrants []Entrant, cfg Config) (jobs []gameJob, records []GameRecord, done []bool, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, nil, fmt.Errorf("arena: %w", err)
	}
	if len(entrants) < 2 {
		return nil, nil, nil, fmt.Errorf("arena: %d entrants: want 2 or more", len(entrants))
	}
	names := map[string]bool{}
	for i, e := range entrants {
		switch {
		case e.Name == "":
			return nil, nil, nil, fmt.Errorf("arena: entrant %d has no name", i)
		case names[e.Name]:
			return nil, nil, nil, fmt.Errorf("arena: two entrants are called %s", e.Name)
		case e.New == nil:
			return nil, nil, nil, fmt.Errorf("arena: entrant %s has no player factory", e.Name)
		}
		names[e.Name] = true
	}
	jobs = roundRobinJobs(entrants, cfg)
	records, done, err = placePlayed(jobs, cfg.Played, cfg.Rules)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("arena: %w", err)
	}
	return jobs, records, done, nil
}

// roundRobinJobs returns the games of a round robin in order.
func roundRobinJobs(entrants []Entrant, cfg Config) []gameJob {
	openings := make([][]env.Move, (cfg.Games+1)/2)
	for k := range openings {
		openings[k] = randomOpening(cfg.Rules, cfg.OpeningPlies, env.MixSeed(cfg.Seed, 0x6f70656e, uint64(k)))
	}
	var jobs []gameJob
	for i := range entrants {
		for j := i + 1; j < len(entrants); j++ {
			for k := 0; k < cfg.Games; k++ {
				red, blue := entrants[i], entrants[j]
				if k%2 == 1 {
					red, blue = blue, red
				}
				n := uint64(len(jobs))
				jobs = append(jobs, gameJob{
					index: len(jobs), red: red, blue: blue, opening: openings[k/2],
					redSeed: env.MixSeed(cfg.Seed, n, 0), blueSeed: env.MixSeed(cfg.Seed, n, 1),
				})
			}
		}
	}
	return jobs
}

// gameJob is one game to play.
type gameJob struct {
	index             int
	red, blue         Entrant
	redSeed, blueSeed uint64
	opening           []env.Move
}

// mismatch says how r differs from the game of the job, or returns "" when
// r is that game, finished.
func (job gameJob) mismatch(r GameRecord) string {
	opening := make([]string, len(job.opening))
	for i, m := range job.opening {
		opening[i] = m.String()
	}
	switch {
	case r.Red != job.red.Name || r.Blue != job.blue.Name:
		return fmt.Sprintf("it is %s against %s, the tournament's %s against %s", r.Red, r.Blue, job.red.Name, job.blue.Name)
	case r.RedSeed != job.redSeed || r.BlueSeed != job.blueSeed:
		return fmt.Sprintf("its seeds are %d and %d, the tournament's %d and %d", r.RedSeed, r.BlueSeed, job.redSeed, job.blueSeed)
	case !slices.Equal(r.Opening, opening):
		return fmt.Sprintf("its opening is %q, the tournament's %q", r.Opening, opening)
	case r.Result != ResultRedWins && r.Result != ResultBlueWins && r.Result != ResultDraw:
		return fmt.Sprintf("its result %q is none of %s, %s, %s", r.Result, ResultRedWins, ResultBlueWins, ResultDraw)
	}
	return ""
}

// placePlayed puts the records of games already played under rules in
// their jobs' places, marked done, after checking that each is its job's
// game; a record without its final position gets it.
func placePlayed(jobs []gameJob, played []GameRecord, rules env.Rules) (records []GameRecord, done []bool, err error) {
	records, done = make([]GameRecord, len(jobs)), make([]bool, len(jobs))
	for _, r := range played {
		switch {
		case r.Game < 0 || r.Game >= len(jobs):
			return nil, nil, fmt.Errorf("%w: game %d: the tournament has games 0 to %d", ErrPlayedGame, r.Game, len(jobs)-1)
		case done[r.Game]:
			return nil, nil, fmt.Errorf("%w: game %d is given twice", ErrPlayedGame, r.Game)
		}
		if why := jobs[r.Game].mismatch(r); why != "" {
			return nil, nil, fmt.Errorf("%w: game %d: %s", ErrPlayedGame, r.Game, why)
		}
		if r.EndFEN == "" {
			if r.EndFEN, err = replayEnd(r, rules); err != nil {
				return nil, nil, fmt.Errorf("%w: game %d: %w", ErrPlayedGame, r.Game, err)
			}
		}
		records[r.Game], done[r.Game] = r, true
	}
	return records, done, nil
}

// runGames plays the jobs not done, cfg.Parallel at a time (see
// parallel.Run), filling records. stop, if not nil, is asked before the
// first game and after each game ends whether enough games are done: once
// it says so, no game starts and those in progress are dropped, and
// runGames returns the games finished without an error.
func runGames(ctx context.Context, jobs []gameJob, records []GameRecord, done []bool, cfg Config, stop func(records []GameRecord, done []bool) bool) ([]GameRecord, error) {
	var todo []int
	if stop == nil || !stop(records, done) {
		for i, ok := range done {
			if !ok {
				todo = append(todo, i)
			}
		}
	}
	stopped := false
	err := parallel.Run(ctx, len(todo), cfg.Parallel, func(ctx context.Context, k int) (GameRecord, error) {
		return playGame(ctx, jobs[todo[k]], cfg.Rules)
	}, func(k int, rec GameRecord) error {
		i := todo[k]
		records[i], done[i] = rec, true
		if cfg.OnGame != nil {
			cfg.OnGame(rec)
		}
		if !stopped && stop != nil && stop(records, done) {
			stopped = true
			return errStopped
		}
		return nil
	})
	var finished []GameRecord
	for i, ok := range done {
		if ok {
			finished = append(finished, records[i])
		}
	}
	if stopped || len(finished) == len(jobs) { // a stop after the last game ended changes nothing
		return finished, nil
	}
	return finished, err
}

// errStopped is how runGames stops its games once stop says enough are
// done.
var errStopped = errors.New("enough games")

// playGame plays one game. Only a failing factory is an error, or ctx
// ending, which drops the game after the move being chosen: whatever a
// player does is part of the record.
func playGame(ctx context.Context, job gameJob, rules env.Rules) (GameRecord, error) {
	rec := GameRecord{Game: job.index, Red: job.red.Name, Blue: job.blue.Name, RedSeed: job.redSeed, BlueSeed: job.blueSeed}
	g := env.NewGame(rules)
	for _, m := range job.opening {
		rec.Opening = append(rec.Opening, m.String())
		if err := g.Play(m); err != nil {
			return rec, fmt.Errorf("arena: game %d: opening: %w", job.index, err) // cannot happen: openings are played legally
		}
	}
	start := g.Position()
	rec.StartFEN, rec.StartPly = start.FEN(), start.Ply()
	var players [2]mcts.Player
	// A player holding a resource (an external program) is closed at the
	// game's end, or at once when ctx ends.
	defer closePlayers(&players)
	for c, e := range [2]Entrant{env.Red: job.red, env.Blue: job.blue} {
		seed := [2]uint64{env.Red: job.redSeed, env.Blue: job.blueSeed}[c]
		p, err := build(e.New, seed)
		if err != nil {
			return rec, fmt.Errorf("arena: game %d: player %s: %w", job.index, e.Name, err)
		}
		players[c] = p
	}
	defer context.AfterFunc(ctx, func() { closePlayers(&players) })()
	for !g.Status().Over() {
		if err := ctx.Err(); err != nil {
			return rec, err
		}
		pos := g.Position()
		side := pos.SideToMove()
		// The player gets a copy, so that one which changes the game it was
		// given (against the Player contract) cannot corrupt the match.
		clone := g.Clone()
		started := time.Now()
		d, err := choose(players[side], clone)
		took := time.Since(started)
		if err != nil && ctx.Err() != nil {
			return rec, ctx.Err() // the player was stopped with the game
		}
		if err != nil {
			forfeit(&rec, side, errorReason(err), err.Error())
			rec.EndFEN = pos.FEN()
			return rec, nil
		}
		if err := g.Play(d.Move); err != nil {
			forfeit(&rec, side, ReasonIllegalMove, err.Error())
			rec.EndFEN = pos.FEN()
			return rec, nil
		}
		rec.Moves = append(rec.Moves, d.Move.String())
		rec.MoveMS = append(rec.MoveMS, float64(took.Microseconds())/1000)
	}
	end := g.Position()
	rec.EndFEN = end.FEN()
	switch g.Status() {
	case env.RedWins:
		rec.Result, rec.Reason = ResultRedWins, ReasonWin
	case env.BlueWins:
		rec.Result, rec.Reason = ResultBlueWins, ReasonWin
	case env.DrawRepetition:
		rec.Result, rec.Reason = ResultDraw, ReasonRepetition
	case env.MoveLimit:
		rec.Result, rec.Reason = ResultDraw, ReasonMoveLimit
	default:
		rec.Result, rec.Reason = ResultDraw, ReasonNoStacks
	}
	return rec, nil
}

// replayEnd plays the opening and the moves of r under rules and returns
// the position they end in: the final position of a record that lacks it.
func replayEnd(r GameRecord, rules env.Rules) (string, error) {
	g := env.NewGame(rules)
	for i, text := range slices.Concat(r.Opening, r.Moves) {
		m, err := env.ParseMove(text)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			return "", fmt.Errorf("its ply %d, %s, does not replay: %w", i+1, text, err)
		}
	}
	end := g.Position()
	return end.FEN(), nil
}

// forfeit ends the game as a loss of side.
func forfeit(rec *GameRecord, side env.Color, reason, detail string) {
	rec.Result = ResultBlueWins
	if side == env.Blue {
		rec.Result = ResultRedWins
	}
	rec.Reason, rec.Detail = reason, detail
}

// errorReason returns the reason of a game lost by a player's error: that
// of an external program's failure, or ReasonPlayerError.
func errorReason(err error) string {
	switch {
	case errors.Is(err, players.ErrMoveTimeout):
		return ReasonTimeout
	case errors.Is(err, players.ErrProgramExited):
		return ReasonExited
	case errors.Is(err, players.ErrMalformedAnswer):
		return ReasonMalformedMove
	}
	return ReasonPlayerError
}

// closePlayers closes the players that hold resources (io.Closer).
func closePlayers(ps *[2]mcts.Player) {
	for _, p := range ps {
		if c, ok := p.(io.Closer); ok {
			_ = c.Close()
		}
	}
}

// errPanic marks a panic turned into an error.
var errPanic = errors.New("panic")

// build calls a factory, turning a panic into an error.
func build(f PlayerFactory, seed uint64) (p mcts.Player, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	p, err = f(seed)
	if err == nil && p == nil {
		err = errors.New("the factory returned no player")
	}
	return p, err
}

// choose asks a player for a move, turning a panic into an error.
func choose(p mcts.Player, g *env.Game) (d mcts.Decision, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	return p.Choose(g)
}

// randomOpening plays plies uniformly random moves from the start position,
// passing over moves that would end the game, and returns them: the
// opening of an environment reset (see [env.PlayOpening]).
func randomOpening(rules env.Rules, plies int, seed uint64) []env.Move {
	return env.PlayOpening(env.NewGame(rules), plies, rand.New(rand.NewPCG(seed, 0x61726e61)))
}

// CheckPlayed checks the games of cfg.Played as [RoundRobin] of players
// of these names would before its first game: each must be the game its
// number stands for, else the error wraps [ErrPlayedGame]. It lets a
// caller that plays several tournaments check the games of all before
// playing any.
func CheckPlayed(cfg Config, names ...string) error {
	entrants := make([]Entrant, len(names))
	for i, name := range names {
		entrants[i].Name = name
	}
	_, _, err := placePlayed(roundRobinJobs(entrants, cfg), cfg.Played, cfg.Rules)
	return err
}

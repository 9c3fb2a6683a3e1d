package arena

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/train/elo"
)

// sprtState runs a test over the pairs of a match in order: pair k is
// games 2k (A Red) and 2k+1 (A Blue).
type sprtState struct {
	test   elo.SPRT
	a      string // player A's name
	counts elo.Pentanomial
	result elo.SPRTResult
}

func newSPRTState(test elo.SPRT, a string) *sprtState {
	return &sprtState{test: test, a: a, result: test.Result(elo.Pentanomial{})}
}

// decided reports whether the test has accepted a hypothesis.
func (s *sprtState) decided() bool { return s.result.Decision != elo.SPRTInconclusive }

// advance counts the pairs after those counted whose games are both done,
// in order, until one is missing or the test decides; it reports whether
// it counted any.
func (s *sprtState) advance(records []GameRecord, done []bool) bool {
	counted := false
	for k := s.result.Pairs; !s.decided() && 2*k+1 < len(done) && done[2*k] && done[2*k+1]; k++ {
		points := 0.0
		for _, r := range records[2*k : 2*k+2] {
			points += r.Score(s.a)
		}
		s.counts[int(math.Round(2*points))]++
		s.result = s.test.Result(s.counts)
		counted = true
	}
	return counted
}

// PlaySPRT plays game pairs between a and b, each pair from one opening
// with a as Red in its first game (the games of [PlayMatch]), until test
// accepts a hypothesis about how much stronger a is, or cfg.Games (an even
// number) are played. The test counts the pairs in order of their number,
// so that however many games run at once and whatever cfg.Played holds,
// it decides on the same pairs as one game at a time would; games of later
// pairs are dropped once it has decided. onTest, if not nil, is called
// with the test's state each time it counts pairs, one call at a time.
// PlaySPRT returns the records of the pairs counted, in game order, and
// the test's outcome; on an error (see [RoundRobin]) the records are those
// of every game finished.
func PlaySPRT(ctx context.Context, a, b Entrant, cfg Config, test elo.SPRT, onTest func(elo.SPRTResult)) ([]GameRecord, elo.SPRTResult, error) {
	if err := checkSPRT(cfg, test); err != nil {
		return nil, elo.SPRTResult{}, err
	}
	jobs, records, done, err := prepare([]Entrant{a, b}, cfg)
	if err != nil {
		return nil, elo.SPRTResult{}, err
	}
	state := newSPRTState(test, a.Name)
	stop := func(records []GameRecord, done []bool) bool {
		if state.advance(records, done) && onTest != nil {
			onTest(state.result)
		}
		return state.decided()
	}
	finished, err := runGames(ctx, jobs, records, done, cfg, stop)
	if err != nil {
		return finished, state.result, err
	}
	counted := slices.DeleteFunc(finished, func(r GameRecord) bool { return r.Game >= 2*state.result.Pairs })
	return counted, state.result, nil
}

// checkSPRT reports a test that cannot run with the settings cfg: one out
// of range, or an odd number of games, which pairs of games cannot make.
func checkSPRT(cfg Config, test elo.SPRT) error {
	if err := test.Validate(); err != nil {
		return fmt.Errorf("sprt: %w", err)
	}
	if cfg.Games%2 != 0 {
		return fmt.Errorf("sprt: %w", configs.Errorf("games", "is %d: want an even number, for pairs of games", cfg.Games))
	}
	return nil
}

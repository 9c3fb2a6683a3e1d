package arena

import (
	"context"
	"fmt"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/train/elo"
)

// PlayEvaluation plays the games of an evaluation, as the eval command and
// the C library's arena do: a round robin among the contenders
// ([RoundRobin]), or with a test, pairs of games between the two
// contenders until it decides ([PlaySPRT], onTest as there). The test's
// outcome is nil without a test.
func PlayEvaluation(ctx context.Context, contenders []Contender, cfg Config, test *elo.SPRT, onTest func(elo.SPRTResult)) ([]GameRecord, *elo.SPRTResult, error) {
	if test == nil {
		records, err := RoundRobin(ctx, Entrants(contenders), cfg)
		return records, nil, err
	}
	if err := checkPair(contenders); err != nil {
		return nil, nil, err
	}
	records, outcome, err := PlaySPRT(ctx, contenders[0].Entrant, contenders[1].Entrant, cfg, *test, onTest)
	return records, &outcome, err
}

// CheckEvaluation returns the error with which [PlayEvaluation] would stop
// before any game (settings out of range, contenders too few or misnamed,
// a test that cannot run), playing none: for a caller that keeps a
// [Journal], so that it starts one only for games that can play.
func CheckEvaluation(contenders []Contender, cfg Config, test *elo.SPRT) error {
	if test != nil {
		if err := checkPair(contenders); err != nil {
			return err
		}
		if err := checkSPRT(cfg, *test); err != nil {
			return err
		}
	}
	_, _, _, err := prepare(Entrants(contenders), cfg)
	return err
}

// checkPair reports contenders that are not the two of a test.
func checkPair(contenders []Contender) error {
	if len(contenders) != 2 {
		return fmt.Errorf("sprt: %w", configs.Errorf("players", "are %d: want exactly 2, A and B", len(contenders)))
	}
	return nil
}

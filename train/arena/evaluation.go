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
	if len(contenders) != 2 {
		return nil, nil, fmt.Errorf("sprt: %w", configs.Errorf("players", "are %d: want exactly 2, A and B", len(contenders)))
	}
	records, outcome, err := PlaySPRT(ctx, contenders[0].Entrant, contenders[1].Entrant, cfg, *test, onTest)
	return records, &outcome, err
}

package arena

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/train/elo"
)

// An evaluation is the round robin without a test, and the SPRT's games
// between two contenders with one: the same games as RoundRobin and
// PlaySPRT play.
func TestPlayEvaluation(t *testing.T) {
	contender := func(e Entrant) Contender { return Contender{Entrant: e, Spec: e.Name} }
	two := []Contender{contender(greedyEntrant), contender(randomEntrant)}
	test := elo.SPRT{Elo0: 0, Elo1: 200, Alpha: 0.05, Beta: 0.05}
	cfg := arenaConfig()
	cfg.Games = 8
	cases := []struct {
		name       string
		contenders []Contender
		test       *elo.SPRT
		want       func() ([]GameRecord, *elo.SPRTResult, error)
	}{
		{"round robin", two, nil, func() ([]GameRecord, *elo.SPRTResult, error) {
			recs, err := RoundRobin(context.Background(), Entrants(two), cfg)
			return recs, nil, err
		}},
		{"sprt", two, &test, func() ([]GameRecord, *elo.SPRTResult, error) {
			recs, outcome, err := PlaySPRT(context.Background(), greedyEntrant, randomEntrant, cfg, test, nil)
			return recs, &outcome, err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs, outcome, err := PlayEvaluation(context.Background(), tc.contenders, cfg, tc.test, nil)
			wantRecs, wantOutcome, wantErr := tc.want()
			if err != nil || wantErr != nil {
				t.Fatal(err, wantErr)
			}
			if !reflect.DeepEqual(untimed(t, recs), untimed(t, wantRecs)) || !reflect.DeepEqual(outcome, wantOutcome) {
				t.Errorf("games or outcome differ: %v, want %v", outcome, wantOutcome)
			}
		})
	}
	three := append(two, contender(entrant("other", nil)))
	if _, _, err := PlayEvaluation(context.Background(), three, cfg, &test, nil); err == nil || !strings.Contains(err.Error(), "players are 3: want exactly 2") {
		t.Errorf("an SPRT among 3: error %v", err)
	}
}

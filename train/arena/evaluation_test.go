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

// CheckEvaluation returns nil for an evaluation that can play, else the
// error PlayEvaluation stops at before any game.
func TestCheckEvaluation(t *testing.T) {
	contender := func(e Entrant) Contender { return Contender{Entrant: e, Spec: e.Name} }
	two := []Contender{contender(greedyEntrant), contender(randomEntrant)}
	test := elo.SPRT{Elo0: 0, Elo1: 200, Alpha: 0.05, Beta: 0.05}
	backwards := elo.SPRT{Elo0: 200, Elo1: 0, Alpha: 0.05, Beta: 0.05}
	cfg := arenaConfig()
	odd, none := cfg, cfg
	odd.Games, none.Games = 3, 0
	cases := []struct {
		name       string
		contenders []Contender
		cfg        Config
		test       *elo.SPRT
		want       string // in the error; "" for none
	}{
		{"round robin", two, cfg, nil, ""},
		{"sprt", two, cfg, &test, ""},
		{"no games", two, none, nil, "games is 0: want 1 or more"},
		{"one contender", two[:1], cfg, nil, "1 entrants: want 2 or more"},
		{"same names", []Contender{two[0], two[0]}, cfg, nil, "two entrants are called"},
		{"sprt of three", append(two[:2:2], contender(entrant("other", nil))), cfg, &test, "players are 3: want exactly 2"},
		{"sprt of odd games", two, odd, &test, "want an even number"},
		{"bad sprt", two, cfg, &backwards, "sprt: elo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckEvaluation(tc.contenders, tc.cfg, tc.test)
			if tc.want == "" {
				if err != nil {
					t.Errorf("CheckEvaluation: %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckEvaluation: %v, want %q", err, tc.want)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, _, played := PlayEvaluation(ctx, tc.contenders, tc.cfg, tc.test, nil); played == nil || played.Error() != err.Error() {
				t.Errorf("PlayEvaluation: %v, want CheckEvaluation's %v", played, err)
			}
		})
	}
}

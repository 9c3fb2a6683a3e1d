package train

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// playGames plays n self-play games of cfg on the tiny network.
func playGames(t *testing.T, cfg runconfig.Config, n int) []SelfPlayGame {
	t.Helper()
	var games []SelfPlayGame
	err := SelfPlayGames(context.Background(), cfg, tinyNetwork(t), 5, n, func(_ int, g SelfPlayGame) error {
		games = append(games, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return games
}

// TestSelfPlayRecordsOptionalTargets checks the targets of the auxiliary
// heads and of surprise weighting against the games themselves: the
// reply is the next sample's policy target (every ply is a sample here),
// ownership that of the board the value is judged on (the horizon's in
// an adjudicated game), the score that of the final board.
func TestSelfPlayRecordsOptionalTargets(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.SelfPlay.ResignThreshold = -1
	cfg.SelfPlay.AdjudicateHorizon = 6
	cfg.Model.ReplyHead, cfg.Model.OwnershipHead, cfg.Model.ScoreHead = true, true, true
	cfg.Replay.SurpriseShare = 0.5
	surprising, adjudicated := 0, 0
	for gi, g := range playGames(t, cfg, 3) {
		game := env.NewGame(cfg.Env.Rules)
		boards := []env.Position{game.Position()}
		for _, m := range g.Moves {
			if err := game.Play(m); err != nil {
				t.Fatal(err)
			}
			boards = append(boards, game.Position())
		}
		last := &boards[len(boards)-1]
		if g.adjudicated {
			adjudicated++
		}
		for i, s := range g.Samples {
			if err := s.Validate(); err != nil {
				t.Fatalf("game %d sample %d: %v", gi, i, err)
			}
			ply := g.SamplePlies[i]
			mover := boards[ply].SideToMove()
			judged := last
			if g.adjudicated {
				judged = &boards[min(ply+6, len(boards)-1)]
			}
			if want := ownership(judged, mover); !s.Final || !slices.Equal(s.Ownership, want) {
				t.Fatalf("game %d sample %d: ownership %v (final %v), the judged board gives %v", gi, i, s.Ownership, s.Final, want)
			}
			if want := materialScore(last, mover); s.Score != want {
				t.Errorf("game %d sample %d: score %v, the final board gives %v", gi, i, s.Score, want)
			}
			if i+1 < len(g.Samples) {
				next := g.Samples[i+1]
				if !slices.Equal(s.ReplyLegal, next.Legal) || !slices.Equal(s.Reply, next.Policy) {
					t.Fatalf("game %d sample %d: the reply is not the next sample's policy target", gi, i)
				}
			} else if s.Reply != nil {
				t.Errorf("game %d: the last sample has a reply", gi)
			}
			if s.Surprise > 0 {
				surprising++
			}
		}
	}
	if surprising == 0 || adjudicated == 0 {
		t.Errorf("%d samples with a surprise, %d games adjudicated: want some of each", surprising, adjudicated)
	}
}

// TestSelfPlayOmitsTargetsNotAskedFor: by default, no optional target.
func TestSelfPlayOmitsTargetsNotAskedFor(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	for _, g := range playGames(t, cfg, 2) {
		for i, s := range g.Samples {
			if s.Reply != nil || s.Ownership != nil || s.Final || s.Surprise != 0 {
				t.Fatalf("sample %d has optional targets: %+v", i, s)
			}
		}
	}
}

// TestOwnership reads a board from both sides.
func TestOwnership(t *testing.T) {
	board, err := env.ParseFEN("r,,,,,/,,,,,/,,rb,,,/,,,,,/,,,,,/,,,,,b b")
	if err != nil {
		t.Fatal(err)
	}
	red, blue := ownership(&board, env.Red), ownership(&board, env.Blue)
	var owned []int
	for q := range env.NumSquares {
		if red[q] != -blue[q] {
			t.Errorf("square %d: red sees %v, blue %v", q, red[q], blue[q])
		}
		if red[q] != 0 {
			owned = append(owned, q)
		}
	}
	if len(owned) != 3 {
		t.Errorf("%d squares owned, want 3 (two red stacks, one blue)", len(owned))
	}
}

func TestProgressiveSimulations(t *testing.T) {
	tests := []struct {
		name        string
		start, fast int
		full        int
		progress    float64
		want        int
	}{
		{"off", 0, 0, 64, 0.3, 64},
		{"start", 16, 0, 64, 0, 16},
		{"half way", 16, 0, 64, 0.5, 40},
		{"end", 16, 0, 64, 1, 64},
		{"past the end", 16, 0, 64, 1.5, 64},
		{"before the start", 16, 0, 64, -1, 16},
		{"start below the fast searches", 8, 16, 64, 0, 16},
		{"half way from the fast searches", 8, 16, 64, 0.5, 40},
		{"start at the full search", 64, 16, 64, 0, 64},
		{"start above the full search", 32, 0, 8, 0, 8},
		{"no simulation limit", 32, 16, 0, 0.5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := runconfig.SelfPlayConfig{ProgressiveSimulations: tc.start, FastSimulations: tc.fast}
			if got := simulations(c, tc.full, tc.progress); got != tc.want {
				t.Errorf("simulations = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestNewSelfPlayerFollowsProgress: the self-player's searches take the
// progressive count, and SelfPlayGames the full one.
func TestNewSelfPlayerFollowsProgress(t *testing.T) {
	cfg := smokeConfig(t, t.TempDir())
	cfg.Search.Simulations, cfg.SelfPlay.ProgressiveSimulations = 32, 8
	if got := newSelfPlayer(cfg, 0.5).search.Simulations; got != 20 {
		t.Errorf("half way: %d simulations, want 20", got)
	}
	if got := newSelfPlayer(cfg, 1).search.Simulations; got != 32 {
		t.Errorf("at the end: %d simulations, want 32", got)
	}
	var _ mcts.Evaluator = tinyNetwork(t)
}

func TestCandidateConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml, key string
	}{
		{"negative progressive simulations", "selfplay: {progressive_simulations: -1}", "selfplay.progressive_simulations"},
		{"surprise share above 1", "replay: {surprise_share: 2}", "replay.surprise_share"},
		{"negative reply weight", "optim: {reply_weight: -1}", "optim.reply_weight"},
		{"soft temperature below 1", "optim: {soft_policy_temperature: 0.5}", "optim.soft_policy_temperature"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runconfig.Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.key) {
				t.Errorf("Parse = %v, want an error naming %s", err, tc.key)
			}
		})
	}
	if _, err := runconfig.Parse([]byte("model: {reply_head: true, ownership_head: true, score_head: true}\nselfplay: {progressive_simulations: 32}\nreplay: {surprise_share: 0.5}\noptim: {soft_policy_weight: 8}")); err != nil {
		t.Errorf("every candidate on: %v", err)
	}
}

// TestRunWithEveryCandidate runs the smoke run with every option on: the
// optional losses appear in the metrics, and the run resumes.
func TestRunWithEveryCandidate(t *testing.T) {
	dir := t.TempDir()
	cfg := plainSmokeConfig(t, dir)
	cfg.Model.ReplyHead, cfg.Model.OwnershipHead, cfg.Model.ScoreHead = true, true, true
	cfg.SelfPlay.ProgressiveSimulations = 4
	cfg.Replay.SurpriseShare = 0.5
	cfg.Optim.SoftPolicyWeight = 1
	if _, err := Run(context.Background(), cfg, RunOptions{Log: &strings.Builder{}, Quiet: true}); err != nil {
		t.Fatal(err)
	}
	ms, err := metrics.Read(metricsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d iterations in the metrics, want 2", len(ms))
	}
	for _, m := range ms {
		if m.ReplyLoss <= 0 || m.OwnershipLoss <= 0 || m.ScoreLoss <= 0 || m.SoftPolicyLoss <= 0 {
			t.Errorf("iteration %d: optional losses %v %v %v %v: want each above 0", m.Iteration, m.ReplyLoss, m.OwnershipLoss, m.ScoreLoss, m.SoftPolicyLoss)
		}
	}
	if ms[0].SelfPlaySimulations != 4 || ms[1].SelfPlaySimulations != 6 {
		t.Errorf("self-play simulations %d, %d: want 4 then 6", ms[0].SelfPlaySimulations, ms[1].SelfPlaySimulations)
	}
	cfg.Iterations = 3
	if _, err := Run(context.Background(), cfg, RunOptions{Log: &strings.Builder{}, Quiet: true, Resume: true}); err != nil {
		t.Fatalf("resume: %v", err)
	}
}

// TestExportDropsAuxHeads: a player file holds no auxiliary heads.
func TestExportDropsAuxHeads(t *testing.T) {
	cfg := model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 8, ReplyHead: true, ScoreHead: true}
	net, err := model.New(cfg, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "player.dsnn")
	if err := ExportNetwork(net, out, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	back, err := model.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Config().HasAux() || back.NumParams() != net.WithoutAux().NumParams() {
		t.Errorf("exported %v with %d values, want %v with %d", back.Config(), back.NumParams(), net.WithoutAux().Config(), net.WithoutAux().NumParams())
	}
}

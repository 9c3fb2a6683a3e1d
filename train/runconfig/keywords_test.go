package runconfig

import (
	"strings"
	"testing"
)

// SelfPlaySettings applies search settings as written, without the
// settings Resolve derives, and the self-play keywords at their paths.
func TestSelfPlaySettings(t *testing.T) {
	def := Defaults()
	cfg, err := SelfPlaySettings(map[string]string{"sims": "32", "time": "100ms", "max_plies": "100", "opening_plies": "2",
		"resign_threshold": "-0.5", "adjudicate": "false"})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Search
	if s.Simulations != 32 || s.Time.String() != "100ms" || s.WinSearchNodes != def.Search.WinSearchNodes {
		t.Errorf("search: %d simulations, %v, %d positions: want 32, 100ms and the default %d", s.Simulations, s.Time, s.WinSearchNodes, def.Search.WinSearchNodes)
	}
	if cfg.Env.Rules.MaxPlies != 100 || cfg.Env.OpeningPlies != 2 || cfg.SelfPlay.ResignThreshold != -0.5 || cfg.SelfPlay.Adjudicate {
		t.Errorf("env %+v, selfplay %+v", cfg.Env, cfg.SelfPlay)
	}
	if cfg.SelfPlay.ParallelGames != 4096 || !cfg.Model.ReplyHead || !cfg.Model.OwnershipHead || !cfg.Model.ScoreHead {
		t.Errorf("parallel games %d, model %+v: want 4096 and the heads a game gives", cfg.SelfPlay.ParallelGames, cfg.Model)
	}
	if cfg, err := SelfPlaySettings(map[string]string{"parallel_games": "4"}); err != nil || cfg.SelfPlay.ParallelGames != 4 {
		t.Errorf("parallel_games=4: %d (%v)", cfg.SelfPlay.ParallelGames, err)
	}
}

// Each bad setting is named once as given, with what is wanted and no
// line of a file.
func TestSelfPlaySettingsErrors(t *testing.T) {
	cases := []struct {
		kw   map[string]string
		want string
	}{
		{map[string]string{"sims": "-1"}, "sims=-1: want a whole number, 0 (no limit, with a time) or more"},
		{map[string]string{"simulations": "-1"}, "simulations=-1: want a whole number, 0 (no limit, with a time) or more"},
		{map[string]string{"sims": "0"}, "sims is 0 without a time: want 1 or more, or a time per move"},
		{map[string]string{"sims": "8", "simulations": "8"}, "sims and simulations: both set simulations: give one"},
		{map[string]string{"sims": "8"}, "fast_simulations is 16: want fewer than search.simulations (8)"},
		{map[string]string{"simulations": "8", "fast_simulations": "8"}, "fast_simulations=8: want fewer than search.simulations (8)"},
		{map[string]string{"resign_threshold": "2"}, "resign_threshold=2: want -1 to 0"},
		{map[string]string{"max_plies": "0"}, "max_plies=0: self-play needs a move limit of 1 or more"},
		{map[string]string{"max_plies": "3"}, "eval.opening_plies is 4: want 0 to 2"},
		{map[string]string{"adjudicate": "maybe"}, "adjudicate=maybe: want true or false"},
		{map[string]string{"gumbel": "maybe"}, "gumbel=maybe: want true or false"},
		{map[string]string{"games_per_iteration": "3"}, "games_per_iteration=3: no self-play setting: want a search setting (simulations, time, "},
		{map[string]string{"late_start_share": "0.5"}, "late_start_share=0.5: no self-play setting: "},
		{map[string]string{"nope": "1", "sims": "-1"}, "nope=1: no self-play setting: "},
	}
	for _, tc := range cases {
		_, err := SelfPlaySettings(tc.kw)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "line ") {
			t.Errorf("%v: error %v, want one line starting %q", tc.kw, err, tc.want)
		}
	}
}

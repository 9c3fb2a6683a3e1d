package players

import (
	"strings"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/mcts"
)

// changedSettings writes the settings of c that differ from
// mcts.DefaultConfig, as key=value in the table's order.
func changedSettings(c mcts.Config) string {
	var out []string
	for _, st := range mcts.Settings() {
		if v := c.Get(st.Key); v != mcts.DefaultConfig().Get(st.Key) {
			out = append(out, st.Key+"="+v)
		}
	}
	return strings.Join(out, ",")
}

// TestSpecSearchSettings pins the effective search settings of az specs
// over the bases a loader gives (the built-in player's, self-play's and
// a timed one): the settings given, and those derived from them.
func TestSpecSearchSettings(t *testing.T) {
	selfPlay := mcts.DefaultConfig()
	selfPlay.Simulations, selfPlay.Gumbel, selfPlay.Temperature, selfPlay.TemperaturePlies, selfPlay.WinSearchNodes = 64, true, 1, 15, 20_000
	timed := mcts.DefaultConfig()
	timed.Simulations, timed.Time = 0, time.Second
	bases := []struct {
		name string
		cfg  mcts.Config
	}{{"default", mcts.DefaultConfig()}, {"selfplay", selfPlay}, {"timed", timed}}
	specs := []string{
		"az", "az:model=m", "az:sims=50", "az:simulations=200", "az:time=500ms", "az:time=0s",
		"az:sims=100,time=1s", "az:time=1s,sims=100", "az:time=2s,win_search_nodes=1000",
		"az:sims=50,win_search_nodes=100000", "az:win_search_nodes=7,sims=50", "az:sims=100000",
		"az:sims=0,time=1s", "az:time=0s,sims=50", "az:sims=10,win_search_nodes=0", "az:sims=0",
		"az:cpuct=2,temp=1,eps=0.25", "az:gumbel=true,considered=8,sims=16", "az:model=m,sims=8,reuse=false",
		"az:win_search_nodes=5000", "az:time=250ms,win_search_plies=0", "az:sims=1",
	}
	want := map[string]string{
		"default az:sims=50":                           "simulations=50,win_search_nodes=5000",
		"default az:simulations=200":                   "simulations=200,win_search_nodes=20000",
		"default az:time=500ms":                        "simulations=0,time=500ms",
		"default az:time=0s":                           "simulations=0",
		"default az:sims=100,time=1s":                  "simulations=100,time=1s,win_search_nodes=10000",
		"default az:time=1s,sims=100":                  "simulations=100,time=1s,win_search_nodes=10000",
		"default az:time=2s,win_search_nodes=1000":     "simulations=0,time=2s,win_search_nodes=1000",
		"default az:sims=50,win_search_nodes=100000":   "simulations=50,win_search_nodes=100000",
		"default az:win_search_nodes=7,sims=50":        "simulations=50,win_search_nodes=7",
		"default az:sims=100000":                       "simulations=100000",
		"default az:sims=0,time=1s":                    "simulations=0,time=1s",
		"default az:time=0s,sims=50":                   "simulations=50,win_search_nodes=5000",
		"default az:sims=10,win_search_nodes=0":        "simulations=10,win_search_nodes=0",
		"default az:sims=0":                            "simulations=0",
		"default az:cpuct=2,temp=1,eps=0.25":           "c_puct=2,dirichlet_epsilon=0.25,temperature=1",
		"default az:gumbel=true,considered=8,sims=16":  "simulations=16,gumbel=true,gumbel_considered=8,win_search_nodes=1600",
		"default az:model=m,sims=8,reuse=false":        "simulations=8,reuse_tree=false,win_search_nodes=800",
		"default az:win_search_nodes=5000":             "win_search_nodes=5000",
		"default az:time=250ms,win_search_plies=0":     "simulations=0,time=250ms,win_search_plies=0",
		"default az:sims=1":                            "simulations=1,win_search_nodes=100",
		"selfplay az":                                  "simulations=64,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:model=m":                          "simulations=64,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:sims=50":                          "simulations=50,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=5000",
		"selfplay az:simulations=200":                  "simulations=200,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:time=500ms":                       "simulations=0,time=500ms,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:time=0s":                          "simulations=0,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:sims=100,time=1s":                 "simulations=100,time=1s,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=10000",
		"selfplay az:time=1s,sims=100":                 "simulations=100,time=1s,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=10000",
		"selfplay az:time=2s,win_search_nodes=1000":    "simulations=0,time=2s,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=1000",
		"selfplay az:sims=50,win_search_nodes=100000":  "simulations=50,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=100000",
		"selfplay az:win_search_nodes=7,sims=50":       "simulations=50,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=7",
		"selfplay az:sims=100000":                      "simulations=100000,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:sims=0,time=1s":                   "simulations=0,time=1s,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:time=0s,sims=50":                  "simulations=50,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=5000",
		"selfplay az:sims=10,win_search_nodes=0":       "simulations=10,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=0",
		"selfplay az:sims=0":                           "simulations=0,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:cpuct=2,temp=1,eps=0.25":          "simulations=64,c_puct=2,dirichlet_epsilon=0.25,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=20000",
		"selfplay az:gumbel=true,considered=8,sims=16": "simulations=16,temperature=1,temperature_plies=15,gumbel=true,gumbel_considered=8,win_search_nodes=1600",
		"selfplay az:model=m,sims=8,reuse=false":       "simulations=8,temperature=1,temperature_plies=15,reuse_tree=false,gumbel=true,win_search_nodes=800",
		"selfplay az:win_search_nodes=5000":            "simulations=64,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=5000",
		"selfplay az:time=250ms,win_search_plies=0":    "simulations=0,time=250ms,temperature=1,temperature_plies=15,gumbel=true,win_search_plies=0,win_search_nodes=20000",
		"selfplay az:sims=1":                           "simulations=1,temperature=1,temperature_plies=15,gumbel=true,win_search_nodes=100",
		"timed az":                                     "simulations=0,time=1s",
		"timed az:model=m":                             "simulations=0,time=1s",
		"timed az:sims=50":                             "simulations=50,time=1s,win_search_nodes=5000",
		"timed az:simulations=200":                     "simulations=200,time=1s,win_search_nodes=20000",
		"timed az:time=500ms":                          "simulations=0,time=500ms",
		"timed az:time=0s":                             "simulations=0",
		"timed az:sims=100,time=1s":                    "simulations=100,time=1s,win_search_nodes=10000",
		"timed az:time=1s,sims=100":                    "simulations=100,time=1s,win_search_nodes=10000",
		"timed az:time=2s,win_search_nodes=1000":       "simulations=0,time=2s,win_search_nodes=1000",
		"timed az:sims=50,win_search_nodes=100000":     "simulations=50,time=1s,win_search_nodes=100000",
		"timed az:win_search_nodes=7,sims=50":          "simulations=50,time=1s,win_search_nodes=7",
		"timed az:sims=100000":                         "simulations=100000,time=1s",
		"timed az:sims=0,time=1s":                      "simulations=0,time=1s",
		"timed az:time=0s,sims=50":                     "simulations=50,win_search_nodes=5000",
		"timed az:sims=10,win_search_nodes=0":          "simulations=10,time=1s,win_search_nodes=0",
		"timed az:sims=0":                              "simulations=0,time=1s",
		"timed az:cpuct=2,temp=1,eps=0.25":             "simulations=0,time=1s,c_puct=2,dirichlet_epsilon=0.25,temperature=1",
		"timed az:gumbel=true,considered=8,sims=16":    "simulations=16,time=1s,gumbel=true,gumbel_considered=8,win_search_nodes=1600",
		"timed az:model=m,sims=8,reuse=false":          "simulations=8,time=1s,reuse_tree=false,win_search_nodes=800",
		"timed az:win_search_nodes=5000":               "simulations=0,time=1s,win_search_nodes=5000",
		"timed az:time=250ms,win_search_plies=0":       "simulations=0,time=250ms,win_search_plies=0",
		"timed az:sims=1":                              "simulations=1,time=1s,win_search_nodes=100",
	}
	for _, b := range bases {
		for _, text := range specs {
			got := changedSettings(mustSpec(t, text).SearchConfig(b.cfg))
			if w := want[b.name+" "+text]; got != w {
				t.Errorf("%s over %s: %q, want %q", text, b.name, got, w)
			}
		}
	}
}

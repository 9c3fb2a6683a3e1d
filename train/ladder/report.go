package ladder

import (
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/train/report"
)

// searchKeys returns search settings as a player spec's keys:
// "simulations=100,c_puct=...".
func searchKeys(search mcts.Config) string {
	params := players.SearchParams(search)
	keys := make([]string, len(params))
	for i, p := range params {
		keys[i] = p.Key + "=" + p.Value
	}
	return strings.Join(keys, ",")
}

// timeMS returns the options' time per move in milliseconds.
func (o Options) timeMS() float64 { return float64(o.Time) / float64(time.Millisecond) }

// report turns the report of the ladder's games into the ladder's.
func (l *Ladder) report(rep *report.Report) *report.LadderReport {
	lr := &report.LadderReport{Report: *rep, Run: l.runs[0].Dir, Simulations: l.opts.Simulations,
		TimeMS: l.opts.timeMS(), Search: searchKeys(l.runs[0].search), TimeAxis: "training time"}
	several := len(l.runs) > 1
	if several {
		for _, r := range l.runs {
			lr.Runs = append(lr.Runs, report.LadderReportRun{Name: r.Name, Dir: r.Dir, Search: searchKeys(r.search)})
		}
	}
	for _, g := range l.rungs {
		st, _ := rep.Player(g.name)
		p := report.LadderPoint{Iteration: g.snap.Iteration, Name: st.Name, ElapsedSec: g.snap.ElapsedSec, Elo: st.Elo, CI95: st.CI95}
		if several {
			p.Run = l.runs[g.run].Name
		}
		lr.Snapshots = append(lr.Snapshots, p)
		if !g.snap.HasElapsed {
			lr.TimeAxis = "iteration"
		}
	}
	return lr
}

package report

import (
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train/arena"
)

// Conversion says how the games between two players A and B ended beyond
// the score: whether a player ahead turned its lead into a win. Its
// fields sit among a pair's in results.json and ladder.json.
type Conversion struct {
	// DrawsRepetition and DrawsMoveLimit count the draws by repetition
	// and at the move limit.
	DrawsRepetition int `json:"draws_repetition"`
	DrawsMoveLimit  int `json:"draws_move_limit"`
	// DrawsMoveLimitFarAhead counts the draws at the move limit that
	// ended with either side [FarAhead] or more ahead in material: won
	// games that the leader failed to finish.
	DrawsMoveLimitFarAhead int `json:"draws_move_limit_far_ahead"`
	// DrawsAAhead counts the draws that ended with A ahead in material
	// (env.Position.Material: 10 a piece and 5 a stack it controls, less
	// the opponent's), MeanLeadA is A's mean lead in them (0 without
	// any); DrawsBAhead and MeanLeadB are B's.
	DrawsAAhead int     `json:"draws_a_ahead"`
	MeanLeadA   float64 `json:"mean_lead_a"`
	DrawsBAhead int     `json:"draws_b_ahead"`
	MeanLeadB   float64 `json:"mean_lead_b"`
	// Decided counts the games won by either player; MeanDecidedPlies is
	// their mean length in plies, the opening's included (0 without any).
	Decided          int     `json:"decided"`
	MeanDecidedPlies float64 `json:"mean_decided_plies"`
}

// FarAhead is the material lead (env.Position.Material: ten pieces' worth)
// from which a draw at the move limit counts as a won game not finished.
const FarAhead = 100

// ConversionOf sums up how the games of records between a and another
// player ended, from a's side (a is A). A game whose record lacks its
// final position counts in no lead.
func ConversionOf(records []arena.GameRecord, a string) Conversion {
	var c Conversion
	var leadA, leadB, plies float64
	for _, r := range records {
		if r.Result != arena.ResultDraw {
			c.Decided++
			plies += float64(r.StartPly + len(r.Moves))
			continue
		}
		switch r.Reason {
		case arena.ReasonRepetition:
			c.DrawsRepetition++
		case arena.ReasonMoveLimit:
			c.DrawsMoveLimit++
		}
		end, err := env.ParseFEN(r.EndFEN)
		if err != nil {
			continue
		}
		lead := float64(end.Material(env.Red))
		if r.Red != a {
			lead = -lead
		}
		if r.Reason == arena.ReasonMoveLimit && (lead >= FarAhead || lead <= -FarAhead) {
			c.DrawsMoveLimitFarAhead++
		}
		switch {
		case lead > 0:
			c.DrawsAAhead++
			leadA += lead
		case lead < 0:
			c.DrawsBAhead++
			leadB -= lead
		}
	}
	c.MeanLeadA, c.MeanLeadB, c.MeanDecidedPlies = mean(leadA, c.DrawsAAhead), mean(leadB, c.DrawsBAhead), mean(plies, c.Decided)
	return c
}

// mean returns sum/n, or 0 for n = 0.
func mean(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

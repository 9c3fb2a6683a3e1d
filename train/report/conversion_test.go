package report

import (
	"testing"

	"github.com/deathstacks/deathstacks/train/arena"
)

// Positions at the end of the draws of TestConversionOf, with Red's
// material lead.
const (
	redAhead25   = "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb, r"   // 10·2 + 5·1
	blueAhead50  = "rr,rr,rr,rr,rr,brr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,b r" // 10·(10-14) + 5·(5-7)
	evenStart    = "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r"
	redAhead125  = "rr,rr,rr,rr,rr,rbbbbbb/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,,, r" // 10·(17-6) + 5·(6-3)
	blueAhead125 = "rr,rr,rr,,,/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,brrrrrr r" // the same, colours swapped
	redAhead100  = "rr,rr,rr,rr,rr,rbbbbb/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,b,, r" // 10·(16-7) + 5·(6-4)
)

func TestConversionOf(t *testing.T) {
	draw := func(red, blue, reason, end string) arena.GameRecord {
		return arena.GameRecord{Red: red, Blue: blue, Result: arena.ResultDraw, Reason: reason, EndFEN: end}
	}
	win := func(red, blue, result string, plies int) arena.GameRecord {
		return arena.GameRecord{Red: red, Blue: blue, Result: result, Reason: arena.ReasonWin, StartPly: 4, Moves: make([]string, plies-4)}
	}
	sample := []arena.GameRecord{
		draw("a", "b", arena.ReasonMoveLimit, redAhead25),   // a ahead by 25
		draw("b", "a", arena.ReasonMoveLimit, redAhead25),   // b ahead by 25
		draw("b", "a", arena.ReasonRepetition, blueAhead50), // a ahead by 50
		draw("a", "b", arena.ReasonRepetition, evenStart),   // nobody ahead
		draw("a", "b", arena.ReasonMoveLimit, ""),           // no final position: no lead
		win("a", "b", arena.ResultRedWins, 40),
		win("a", "b", arena.ResultBlueWins, 60),
	}
	farAhead := []arena.GameRecord{
		draw("a", "b", arena.ReasonMoveLimit, redAhead125),  // a 125 ahead: counted
		draw("b", "a", arena.ReasonMoveLimit, blueAhead125), // a 125 ahead: counted
		draw("b", "a", arena.ReasonMoveLimit, redAhead100),  // b 100 ahead: counted
		draw("a", "b", arena.ReasonRepetition, redAhead125), // not at the move limit
		draw("a", "b", arena.ReasonMoveLimit, redAhead25),   // too close
	}
	for _, tc := range []struct {
		name    string
		records []arena.GameRecord
		a       string
		want    Conversion
	}{
		{"no games", nil, "a", Conversion{}},
		{"decided games only", sample[5:], "a", Conversion{Decided: 2, MeanDecidedPlies: 50}},
		{"from A's side", sample, "a", Conversion{DrawsRepetition: 2, DrawsMoveLimit: 3, DrawsAAhead: 2, MeanLeadA: 37.5,
			DrawsBAhead: 1, MeanLeadB: 25, Decided: 2, MeanDecidedPlies: 50}},
		{"from B's side", sample, "b", Conversion{DrawsRepetition: 2, DrawsMoveLimit: 3, DrawsAAhead: 1, MeanLeadA: 25,
			DrawsBAhead: 2, MeanLeadB: 37.5, Decided: 2, MeanDecidedPlies: 50}},
		{"far ahead at the move limit", farAhead, "a", Conversion{DrawsRepetition: 1, DrawsMoveLimit: 4, DrawsMoveLimitFarAhead: 3,
			DrawsAAhead: 4, MeanLeadA: 100, DrawsBAhead: 1, MeanLeadB: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ConversionOf(tc.records, tc.a); got != tc.want {
				t.Errorf("ConversionOf = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The text and Markdown reports show each pair's draws by kind and by
// the side ahead, and the length of its decided games.

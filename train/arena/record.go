package arena

import "github.com/deathstacks/deathstacks/train/elo"

// How a game ended, in [GameRecord.Reason].
const (
	ReasonWin         = "win"          // one side controls every stack
	ReasonNoStacks    = "no stacks"    // nobody controls a stack: a draw
	ReasonRepetition  = "repetition"   // a draw by repetition
	ReasonMoveLimit   = "move limit"   // a draw at the move limit
	ReasonIllegalMove = "illegal move" // the player to move chose an illegal move and lost
	ReasonPlayerError = "player error" // the player to move failed or panicked and lost
	// An external program (a cmd player) to move lost:
	ReasonTimeout       = "timeout"        // it did not answer within its time limit
	ReasonExited        = "program exited" // it exited, crashed or could not be started
	ReasonMalformedMove = "malformed move" // it answered a line that is no move
)

// ForfeitReasons lists the reasons of games a player lost by misbehaving,
// in the order reports list them.
func ForfeitReasons() []string {
	return []string{ReasonIllegalMove, ReasonPlayerError, ReasonTimeout, ReasonExited, ReasonMalformedMove}
}

// The results of a game, in [GameRecord.Result], as Red-Blue points.
const (
	ResultRedWins  = "1-0"
	ResultBlueWins = "0-1"
	ResultDraw     = "1/2-1/2"
)

// GameRecord is one game of a match: enough to replay it and to rate the
// players. It marshals to JSON.
type GameRecord struct {
	// Game is the game's number in its match or tournament, from 0.
	Game int `json:"game"`
	// Red and Blue are the entrants' names; the seeds are those their
	// factories got.
	Red      string `json:"red"`
	Blue     string `json:"blue"`
	RedSeed  uint64 `json:"red_seed"`
	BlueSeed uint64 `json:"blue_seed"`
	// Opening lists the random plies played from the start position before
	// the players took over at StartFEN (after StartPly plies).
	Opening  []string `json:"opening"`
	StartFEN string   `json:"start_fen"`
	StartPly int      `json:"start_ply"`
	// Moves lists the players' moves in the shared notation, such as
	// "a6-2-a4"; an illegal move that lost the game is not among them.
	Moves []string `json:"moves"`
	// MoveMS is the time each player took to choose each of Moves, in
	// milliseconds (one entry per move; a move that lost the game
	// illegally is not timed). Records of earlier versions lack it.
	MoveMS []float64 `json:"move_ms,omitempty"`
	// Result is "1-0", "0-1" or "1/2-1/2"; Reason says why (see the Reason
	// constants), and Detail gives the error, panic or illegal move of a
	// player who lost by misbehaving.
	Result string `json:"result"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	// EndFEN is the position the game ended in (before an illegal move
	// that lost it). Records of earlier versions lack it: an arena given
	// one as played ([Config.Played]) fills it in by replaying the
	// game.
	EndFEN string `json:"end_fen,omitempty"`
}

// redScore returns Red's points: 1, 0.5 or 0.
func (r GameRecord) redScore() float64 {
	switch r.Result {
	case ResultRedWins:
		return 1
	case ResultBlueWins:
		return 0
	}
	return 0.5
}

// Score returns the points player scored in the game: as Red, Red's,
// else Blue's.
func (r GameRecord) Score(player string) float64 {
	if player == r.Red {
		return r.redScore()
	}
	return 1 - r.redScore()
}

// ScoreOf returns the points player scored in records and the number of
// games it played.
func ScoreOf(records []GameRecord, player string) (points float64, games int) {
	for _, r := range records {
		if player == r.Red || player == r.Blue {
			points += r.Score(player)
			games++
		}
	}
	return points, games
}

// Results turns game records into results for [elo.Fit].
func Results(records []GameRecord) []elo.GameResult {
	out := make([]elo.GameResult, len(records))
	for i, r := range records {
		out[i] = elo.GameResult{A: r.Red, B: r.Blue, Score: r.redScore()}
	}
	return out
}

// RulesRecord is the rules of a tournament's games as its journal and
// its report record them.
type RulesRecord struct {
	TooTall         bool `json:"too_tall"`
	MaxPlies        int  `json:"max_plies"`
	RepetitionLimit int  `json:"repetition_limit"`
}

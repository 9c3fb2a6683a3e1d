package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"strings"

	"github.com/deathstacks/deathstacks/model/codec"
	"github.com/deathstacks/deathstacks/train/report"
)

// File is the name of the metrics log in a run directory.
const File = "metrics.jsonl"

// Iteration is what one iteration measured: a line of metrics.jsonl. Rates
// are per wall-clock second of the phase they belong to; shares are
// fractions of the iteration's self-play games.
type Iteration struct {
	// Iteration counts from 1.
	Iteration int `json:"iteration"`

	// Training: the mean losses over the iteration's steps (see
	// model.Losses), the policy's mean entropy and the last learning rate.
	PolicyLoss    float64 `json:"policy_loss"`
	ValueLoss     float64 `json:"value_loss"`
	L2Loss        float64 `json:"l2_loss"`
	TotalLoss     float64 `json:"total_loss"`
	PolicyEntropy float64 `json:"policy_entropy"`
	LR            float64 `json:"lr"`
	TrainSteps    int     `json:"train_steps"`
	SamplesPerSec float64 `json:"samples_per_sec"`
	BufferSize    int     `json:"buffer_size"`

	// The optional losses (model.Losses), absent when off.
	ReplyLoss      float64 `json:"reply_loss,omitempty"`
	OwnershipLoss  float64 `json:"ownership_loss,omitempty"`
	ScoreLoss      float64 `json:"score_loss,omitempty"`
	SoftPolicyLoss float64 `json:"soft_policy_loss,omitempty"`

	// Self-play. MeanGameLength is the plies a game played (a late
	// start's replayed moves not counted).
	SelfPlayGames     int     `json:"selfplay_games"`
	SelfPlayPositions int     `json:"selfplay_positions"`
	MeanGameLength    float64 `json:"mean_game_length"`
	PositionsPerSec   float64 `json:"positions_per_sec"`
	EvalsPerSec       float64 `json:"evals_per_sec"`

	// SelfPlaySimulations is the full searches' simulations, when
	// selfplay.progressive_simulations changes them over the run.
	SelfPlaySimulations int `json:"selfplay_simulations,omitempty"`

	// How the self-play games ended. Resigned games count as wins of the
	// other side; ResignedShare says how many there were, and
	// ResignFalseShare is the share of played-out games in which the side
	// that would have resigned did not lose.
	RedWinShare      float64 `json:"red_win_share"`
	BlueWinShare     float64 `json:"blue_win_share"`
	DrawShare        float64 `json:"draw_share"`
	MoveLimitShare   float64 `json:"move_limit_share"`
	ResignedShare    float64 `json:"resigned_share"`
	ResignFalseShare float64 `json:"resign_false_share"`

	// Other machines (see package train/distributed): actors sending games
	// now, the games and positions taken from them in this iteration (their
	// mean length in plies and the share of them won), the
	// games dropped (network too old, malformed, already taken), the
	// actors' positions per second (their sum, and the slowest, median
	// and fastest actor's: a line of the same size for any number of
	// actors), the mean network version lag, and
	// the milliseconds from the iteration's network being published to the
	// last actor that switched to it playing with it.
	Actors                  int     `json:"actors"`
	RemoteGames             int     `json:"remote_games"`
	RemotePositions         int     `json:"remote_positions"`
	RemoteMeanGameLength    float64 `json:"remote_mean_game_length"`
	RemoteDecidedShare      float64 `json:"remote_decided_share"`
	RemoteStale             int     `json:"remote_stale"`
	RemoteInvalid           int     `json:"remote_invalid"`
	RemoteDuplicate         int     `json:"remote_duplicate"`
	ActorPositionsPerSec    float64 `json:"actor_positions_per_sec_total"`
	ActorPositionsPerSecMin float64 `json:"actor_positions_per_sec_min"`
	ActorPositionsPerSecP50 float64 `json:"actor_positions_per_sec_p50"`
	ActorPositionsPerSecMax float64 `json:"actor_positions_per_sec_max"`
	VersionLag              float64 `json:"version_lag"`
	NetworkSwitchMs         float64 `json:"network_switch_ms"`
	// Ingest of the actors' games: the actors held back (the server
	// refusing their games, or their queue full), the games taken per
	// second of the iteration, the games left in the stream after it, and
	// the milliseconds from an actor queueing a game to its positions
	// entering the replay buffer (50th and 99th percentile, max), and the
	// 99th percentiles of the stages on the way: to the server storing it
	// (on the server's clock), to the learner having read it and having
	// checked and replayed it.
	ActorsHeldBack        int     `json:"actors_held_back"`
	IngestGamesPerSec     float64 `json:"ingest_games_per_sec"`
	IngestBacklog         int     `json:"ingest_backlog"`
	PublishToWindowP50Ms  float64 `json:"publish_to_window_ms_p50"`
	PublishToWindowP99Ms  float64 `json:"publish_to_window_ms_p99"`
	PublishToWindowMaxMs  float64 `json:"publish_to_window_ms_max"`
	PublishToStoredP99Ms  float64 `json:"publish_to_stored_ms_p99"`
	PublishToFetchedP99Ms float64 `json:"publish_to_fetched_ms_p99"`
	PublishToCheckedP99Ms float64 `json:"publish_to_checked_ms_p99"`

	// Time: the seconds each phase took in this iteration, and the run's
	// wall-clock time so far. CPUSec is the CPU time the run has used so
	// far and Cores the cores it ran on (GOMAXPROCS), absent in logs of
	// earlier versions: wall time counts a stopped or crowded-out process
	// as training, CPU time does not (see [TrainingTime]).
	SelfPlaySec float64 `json:"selfplay_sec"`
	TrainSec    float64 `json:"train_sec"`
	EvalSec     float64 `json:"eval_sec"`
	ElapsedSec  float64 `json:"elapsed_sec"`
	CPUSec      float64 `json:"cpu_sec,omitempty"`
	Cores       int     `json:"cores,omitempty"`

	// Eval holds the evaluation results of iterations that ran one, by
	// opponent: a baseline's player spec (in logs of earlier versions'
	// runs with gating also "best", the network that passed the gate).
	Eval map[string]EvalResult `json:"eval,omitempty"`
	// Rating holds the evaluation's games against the anchor and the
	// run's earlier snapshots, and the network's Elo on the run's scale
	// (eval.anchor); nil in iterations without, and in logs of earlier
	// versions.
	Rating *Rating `json:"rating,omitempty"`
}

// EvalResult is the network's result against one opponent.
type EvalResult struct {
	// Games is the number of games played.
	Games int `json:"games"`
	// Score is the network's points per game: wins plus half the draws.
	Score float64 `json:"score"`
	// Elo is the network's rating minus the opponent's, with its 95%
	// confidence interval [EloLow, EloHigh] (see [elo.Fit]).
	Elo     float64 `json:"elo"`
	EloLow  float64 `json:"elo_low"`
	EloHigh float64 `json:"elo_high"`
	// Conversion says how the games ended beyond the score, with the
	// network as A and the opponent as B: the draws by kind and by the
	// side ahead in material, and the mean length of the decided games.
	// Logs of earlier versions lack it (nil).
	Conversion *report.Conversion `json:"conversion,omitempty"`
}

// MarshalJSON writes m as JSON, with a number that is NaN or infinite (a
// loss that diverged, say) as null, since JSON has no such numbers.
func (m Iteration) MarshalJSON() ([]byte, error) {
	type plain Iteration // the same fields without these methods
	var null []string
	v := reflect.ValueOf(&m).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Float64 && !finite(f.Float()) {
			f.SetFloat(0)
			null = append(null, jsonKey(v.Type().Field(i)))
		}
	}
	data, err := json.Marshal(plain(m))
	for _, key := range null {
		// Top-level keys come first and once: the first match is the field.
		data = bytes.Replace(data, []byte(`"`+key+`":0`), []byte(`"`+key+`":null`), 1)
	}
	return data, err
}

// UnmarshalJSON reads what MarshalJSON writes, null as NaN.
func (m *Iteration) UnmarshalJSON(data []byte) error {
	type plain Iteration
	if err := json.Unmarshal(data, (*plain)(m)); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Float64 && string(raw[jsonKey(v.Type().Field(i))]) == "null" {
			f.SetFloat(math.NaN())
		}
	}
	return nil
}

// jsonKey returns the JSON key of a struct field with a json tag.
func jsonKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return key
}

// Append adds m as one line at the end of the metrics log at path,
// creating it if needed. The line goes out in a single write followed by
// fsync; appending, unlike a temporary file and a rename, keeps the cost
// independent of the log's length and lets "tail -f" follow it. A crash can
// at worst leave a torn last line: [Read] ignores it, and the next
// Append cuts it off first.
func Append(path string, m Iteration) (err error) {
	line, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("append metrics to %s: %w", path, err)
	}
	line = append(line, '\n')
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("append metrics: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("append metrics to %s: %w", path, cerr)
		}
	}()
	if err := cutTornLine(f); err != nil {
		return fmt.Errorf("append metrics to %s: %w", path, err)
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("append metrics to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("append metrics to %s: %w", path, err)
	}
	return nil
}

// cutTornLine truncates f after its last newline if it does not end with
// one, so that the next line starts on a line of its own.
func cutTornLine(f *os.File) error {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], info.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, info.Size()))
	if err != nil {
		return err
	}
	return f.Truncate(int64(bytes.LastIndexByte(data, '\n') + 1))
}

// Read reads the metrics log at path, in file order. A last line
// without its newline (torn by a crash during an append) is ignored if it
// does not parse; a bad line anywhere else is an error naming its line.
func Read(path string) ([]Iteration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read metrics: %w", err)
	}
	// After the last newline comes either nothing or a torn line.
	lines := bytes.Split(data, []byte{'\n'})
	var out []Iteration
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m Iteration
		if err := json.Unmarshal(line, &m); err != nil {
			if i == len(lines)-1 {
				break
			}
			return nil, fmt.Errorf("read metrics %s: line %d: %w", path, i+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Truncate drops the lines of iterations after lastIteration, as a
// run resumed from the checkpoint of lastIteration must: those iterations
// will be run again. It rewrites the log atomically; a missing log is left
// missing.
func Truncate(path string, lastIteration int) error {
	ms, err := Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return codec.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, m := range ms {
			if m.Iteration <= lastIteration {
				if err := enc.Encode(m); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// TrainingSec is the run's training time through the iteration: its CPU
// time over its cores where the log has them, so that a process stopped
// or crowded out by other work does not count as training (on an
// otherwise idle machine this is within a tenth of the wall time, which
// counts the moments a core stands idle), else its wall time.
func (m Iteration) TrainingSec() float64 {
	if m.CPUSec > 0 && m.Cores > 0 {
		return m.CPUSec / float64(m.Cores)
	}
	return m.ElapsedSec
}

// TrainingTime reads the training time through each iteration
// ([Iteration.TrainingSec]) from the log at path; a run without a log has
// none. A later line of an iteration, written after a resume, wins.
func TrainingTime(path string) (map[int]float64, error) {
	out := map[int]float64{}
	ms, err := Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if sec := m.TrainingSec(); sec > 0 && !math.IsInf(sec, 0) {
			out[m.Iteration] = sec
		}
	}
	return out, nil
}

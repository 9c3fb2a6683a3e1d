// Package runconfig is a training run's configuration: the [Config] of
// every setting, its YAML form (configs/default.yaml is the defaults),
// strict reading with errors that name the key path and line, the copy a
// run keeps in its directory, the keyword settings of self-play driven from
// outside ([SelfPlaySettings]) and the learning-rate schedule that follows a
// run ([SchedulePlan]).
package runconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/internal/yamlstrict"
	"github.com/deathstacks/deathstacks/train/replay"
)

// File is the name of the copy of the config a run keeps in its
// directory.
const File = "config.yaml"

// Config is a complete training run: what to play, how to search, learn,
// evaluate and where to write. Its YAML form is configs/default.yaml; every
// key of that file is a field here, named by its yaml tag.
type Config struct {
	// Name names the run; the output goes to checkpoints/<name> by default.
	Name string `yaml:"name"`
	// Seed drives every random choice of the run, so a run can be replayed.
	Seed uint64 `yaml:"seed"`
	// Iterations is the number of self-play + training iterations; 0 runs
	// until TimeLimit or until stopped.
	Iterations int `yaml:"iterations"`
	// TimeLimit stops the run after the iteration that crosses it; 0 means
	// no limit.
	TimeLimit time.Duration `yaml:"time_limit"`
	// Init is the network a new run starts from instead of random
	// weights: a model as az:model= names it (a network file, checkpoint,
	// network snapshot or run directory, or "anchor"); "" starts from
	// random weights. Its architecture must be Model's but for fewer
	// residual blocks: a deeper Model grows it, the added blocks starting
	// as the identity (model.Network.Deepen). The optimiser
	// starts fresh, with its warm-up; a resumed run's weights are its
	// checkpoint's.
	Init string `yaml:"init"`

	Env      env.Options        `yaml:"env"`
	Model    model.Config       `yaml:"model"`
	Server   model.ServerConfig `yaml:"server"`
	Search   mcts.Config        `yaml:"search"`
	SelfPlay SelfPlayConfig     `yaml:"selfplay"`
	Replay   replay.Config      `yaml:"replay"`
	Optim    OptimConfig        `yaml:"optim"`
	Eval     EvalConfig         `yaml:"eval"`
	Output   OutputConfig       `yaml:"output"`

	Distributed DistributedConfig `yaml:"distributed"`
}

// SelfPlayConfig says how many games each iteration generates and when a
// losing side may resign.
type SelfPlayConfig struct {
	// GamesPerIteration is the number of self-play games per iteration.
	GamesPerIteration int `yaml:"games_per_iteration"`
	// ParallelGames is how many games run at once; their searches are
	// batched together in the network's lanes (server.workers), so more
	// games mean fuller batches.
	ParallelGames int `yaml:"parallel_games"`
	// ResignThreshold lets the side to move resign when the search's value
	// for it falls below this; -1 turns resignation off.
	ResignThreshold float64 `yaml:"resign_threshold"`
	// ResignPlayoutShare is the fraction of games in which resignation is
	// disabled, played out to measure how often resigning would have been
	// wrong.
	ResignPlayoutShare float64 `yaml:"resign_playout_share"`
	// Adjudicate scores the positions of games that end without a winner
	// (move limit or repetition) by the material each side controls (the
	// greedy player's count), instead of as draws, so that self-play whose
	// games mostly reach the limit or repeat still has a value to learn.
	Adjudicate bool `yaml:"adjudicate"`
	// AdjudicateHorizon scores each position of an adjudicated game by the
	// material on the board this many plies later (or at the end, if
	// sooner) rather than on the final board, whose material lead 150
	// plies on no position can foresee; 0 uses the final board.
	AdjudicateHorizon int `yaml:"adjudicate_horizon"`
	// AdjudicateMax is the largest value an adjudicated position gets:
	// tanh(lead / 60) times this. Below 1, a won game is worth more than
	// any lead at the move limit, which gives the search a reason to
	// finish a won game rather than keep a lead.
	AdjudicateMax float64 `yaml:"adjudicate_max"`
	// AdjudicateStackCap counts at most this many pieces of each stack in
	// an adjudicated lead (env.Position.MaterialUpTo); 0 counts every
	// piece. The draws of long runs at the move limit are mostly towers:
	// the side ahead holds one stack of 12 or more, which the too-tall
	// rule makes its only mobile piece, and which material counts as a
	// lead worth a win; 4 counts it as a stack of 4.
	AdjudicateStackCap int `yaml:"adjudicate_stack_cap"`
	// FastSimulations turns on playout cap randomization (Wu, "Accelerating
	// Self-Play Learning in Go", 2019): a move searched fully (with
	// search.simulations) only with probability FullSearchShare, and
	// otherwise with this many simulations and not trained on. Games get
	// cheaper, so more of them (more value targets) fit an hour, while
	// every policy target still comes from a full search. 0 = every move
	// is searched fully and recorded.
	FastSimulations int `yaml:"fast_simulations"`
	// FullSearchShare is the probability of a full, recorded search per
	// move when FastSimulations is set.
	FullSearchShare float64 `yaml:"full_search_share"`
	// ProgressiveSimulations is MiniZero's progressive simulation: the
	// full searches start the run with this many simulations, rising
	// linearly to search.simulations by the run's end (its iterations or
	// time limit, whichever comes first). The start is taken as
	// FastSimulations if below it; at or above search.simulations it
	// leaves every full search at search.simulations. 0 is off.
	ProgressiveSimulations int `yaml:"progressive_simulations"`
	// SearchValueShare mixes the full search's value of each recorded
	// position into its value target: this share of the root's value
	// (for the side to move, as the search left it), the rest the game's
	// result (or adjudication). The result is unbiased but noisy, the
	// search's value is the opposite; averaging the two made AlphaZero
	// learn Connect Four faster (Oracle's "Lessons from AlphaZero", 2018).
	// 0 is the result alone.
	SearchValueShare float64 `yaml:"search_value_share"`
	// LateStartShare starts this share of a run's games from a late
	// position of a game of the iteration before (KataGo's starts from
	// earlier games' positions, as a curriculum of endgames): the moves
	// of a game drawn from that iteration's, up to a ply drawn from its
	// second half, in place of the random opening. The positions before
	// the start are not recorded; the game goes on to the move limit of
	// the whole game. The first iteration of a run (or of a resumed one)
	// has no games before it and starts every game from the opening. 0
	// is off.
	LateStartShare float64 `yaml:"late_start_share"`
}

// OptimConfig is the training step (optimiser, loss weights, learning-rate
// schedule) and how many steps each iteration takes.
type OptimConfig struct {
	model.TrainConfig `yaml:",inline"`
	// StepsPerIteration is the number of training steps per iteration.
	StepsPerIteration int `yaml:"steps_per_iteration"`
	// AverageIterations makes the run's player (its snapshots, the
	// network its checkpoints play and export, its evaluations) the
	// trained network's weights averaged over about its last this many
	// iterations: an exponential moving average taking a share
	// 2/(AverageIterations+1) of each new iteration's weights (so its
	// mean age is a plain mean's of that many), a plain mean over the
	// run's first iterations until that share is reached. Self-play and
	// training go on with the trained network. 1 is the trained network
	// itself.
	AverageIterations int `yaml:"average_iterations"`
}

// AverageShare is the share of iteration it's trained weights in the
// run's player (see OptimConfig.AverageIterations): 1 for the first.
func (o OptimConfig) AverageShare(it int) float32 {
	return float32(max(1/float64(max(it, 1)), 2/float64(o.AverageIterations+1)))
}

// EvalConfig says when and against whom the network is measured.
type EvalConfig struct {
	// Every runs an evaluation after every Every-th iteration; 0 never.
	Every int `yaml:"every"`
	// Games is the number of games against each baseline; colours alternate.
	Games int `yaml:"games"`
	// ParallelGames is how many evaluation games run at once.
	ParallelGames int `yaml:"parallel_games"`
	// OpeningPlies is the number of random plies that start each pair of
	// games, so that deterministic players do not repeat one game.
	OpeningPlies int `yaml:"opening_plies"`
	// Baselines are player specs, such as "random", "greedy" or
	// "alphabeta:depth=2", played against the current network.
	Baselines []string `yaml:"baselines"`
	// Anchor is the player spec of the 0 of the run's Elo scale, by
	// default the anchor (az:model=anchor, see package train/builtin) at
	// 100 simulations a move; "" is none. Each evaluation plays it and
	// Snapshots earlier networks of the run, Games games each, and rates
	// the network by one fit over the run's rating games so far
	// (metrics.Ratings).
	Anchor string `yaml:"anchor"`
	// Snapshots is how many earlier networks of the run each evaluation
	// plays besides the anchor: of those rated before, the ones nearest to
	// evenly spaced points of the run so far (with 1, half way).
	Snapshots int `yaml:"snapshots"`
	// Simulations is the network player's search budget per move in
	// evaluation games (no noise, the most visited move, the win search
	// given a player's node budget at least).
	Simulations int `yaml:"simulations"`
	// Gating and GateThreshold are the keys of a removed option (keep the
	// previous network for self-play unless the new one beats it), which
	// no measurement showed to help. They are read and ignored, so that
	// configs saved by older runs still load; a new config may only turn
	// gating off.
	Gating        bool    `yaml:"gating,omitempty"`
	GateThreshold float64 `yaml:"gate_threshold,omitempty"`
}

// OutputConfig says where a run writes and what it keeps.
type OutputConfig struct {
	// Dir is the run directory; empty means checkpoints/<name>.
	Dir string `yaml:"dir"`
	// KeepLast is how many checkpoints to keep; older ones are deleted.
	KeepLast int `yaml:"keep_last"`
	// Plot redraws the PNG plots of the metrics after every iteration.
	Plot bool `yaml:"plot"`
}

// DistributedConfig is what training on many machines adds (see package
// train/distributed); a run on one machine never reads it.
type DistributedConfig struct {
	// MaxStaleness drops a game from an actor whose network is more than
	// this many versions older than the learner's current one.
	MaxStaleness int `yaml:"max_staleness"`
	// QueueGames bounds the finished games an actor keeps while the server
	// is away or refuses them (the learner is behind); a full queue holds
	// its self-play back until there is room.
	QueueGames int `yaml:"queue_games"`
	// StreamMaxGames bounds the games the server keeps: the learner
	// removes those its last checkpoint has taken, and while the stream is
	// full the server refuses new games, which the actors keep and send
	// again later.
	StreamMaxGames int `yaml:"stream_max_games"`
	// IngestAheadGames bounds the games the learner reads, checks and
	// replays ahead of the next iteration (while it trains); beyond it,
	// the games wait in the stream.
	IngestAheadGames int `yaml:"ingest_ahead_games"`
	// Replicas is the number of servers of a NATS cluster that keep each
	// game and network (1 for one server, 3 for a cluster of 3 that
	// survives the loss of one).
	Replicas int `yaml:"replicas"`
}

// Defaults returns the built-in configuration: configs/default.yaml,
// which sets every key.
func Defaults() Config {
	cfg, err := parseDefaults()
	if err != nil {
		// The file is compiled in and its test parses it: only a broken
		// build gets here.
		panic("configs/default.yaml: " + err.Error())
	}
	return cfg
}

// parseDefaults decodes configs/default.yaml over a zero Config and
// returns where it set each key.
func parseDefaults() (Config, error) {
	var cfg Config
	_, err := yamlstrict.Decode(configs.Default, &cfg)
	return cfg, err
}

// Load reads the YAML file at path over [Defaults] (a key the file does not
// set keeps its default) and validates the result. Errors name the file, the
// key path and its line.
func Load(path string) (Config, error) { return loadOver(Defaults(), path, false) }

// LoadSaved reads a config a run saved (its config.yaml) like [Load], but
// over [savedDefaults]: a run's copy lists every key its version knew, so a
// key missing from it must mean what that version did.
func LoadSaved(path string) (Config, error) { return loadOver(savedDefaults(), path, true) }

func loadOver(base Config, path string, saved bool) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	cfg, err := parseOver(base, data, saved)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse reads a YAML configuration over [Defaults] and validates it, like
// [Load] without the file.
func Parse(data []byte) (Config, error) { return parseOver(Defaults(), data, false) }

// ParseSaved is [LoadSaved] without the file: for the copy of the config
// inside a checkpoint.
func ParseSaved(data []byte) (Config, error) { return parseOver(savedDefaults(), data, true) }

// Resumed returns the config a resumed run goes on with: the run's saved
// copy (dir/config.yaml), with overlay, if not nil, laid over it: a key
// overlay sets changes, every other keeps the run's value (not the
// built-in default's). Dir "" is the run directory of overlay's config,
// or of the defaults without one. Where there is nothing to resume (dir
// missing, not a directory, or without a saved config) it returns overlay
// over the defaults, as a new run would have it, so that train.Run, given
// that directory, refuses it with a train.RunDirError saying what is
// wrong there.
func Resumed(dir string, overlay []byte) (Config, error) {
	fresh, freshErr := Defaults(), error(nil)
	if overlay != nil {
		fresh, freshErr = Parse(overlay)
	}
	if dir == "" {
		if freshErr != nil {
			return Config{}, freshErr
		}
		dir = fresh.RunDir()
	}
	saved, err := LoadSaved(filepath.Join(dir, File))
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return fresh, freshErr
	case err != nil || overlay == nil:
		return saved, err
	}
	cfg, err := parseOver(saved, overlay, false)
	if err != nil {
		return Config{}, fmt.Errorf("over the run's config: %w", err)
	}
	return cfg, nil
}

// savedDefaults are the defaults for configs saved by runs: the current
// ones, except for keys added since the first release, which take the
// value that keeps an older run's behaviour (search.gumbel came later: a
// run saved without it searched with PUCT; search.time, search.contempt
// and search.draw_cost too: it searched by simulations alone and scored
// draws 0; selfplay.fast_simulations: it searched every move fully;
// selfplay.adjudicate_max: its adjudicated values went up to 1;
// search.win_search_plies and search.material_utility: it had no win
// search and valued leaves by the network alone; eval.anchor and
// eval.snapshots: its evaluations played the baselines only).
func savedDefaults() Config {
	c := Defaults()
	c.Search.Gumbel = false
	c.Search.Time, c.Search.Contempt, c.Search.DrawCost = 0, 0, 0
	c.Search.WinSearchPlies, c.Search.MaterialUtility = 0, 0
	c.SelfPlay.FastSimulations, c.SelfPlay.AdjudicateMax = 0, 1
	c.Eval.Anchor, c.Eval.Snapshots = "", 0
	c.Optim.AverageIterations = 1
	return c
}

// parseOver decodes data over base and validates the result; saved says
// the config is a run's own copy, whose retired keys are history.
func parseOver(base Config, data []byte, saved bool) (Config, error) {
	cfg := base
	lines, err := yamlstrict.Decode(data, &cfg)
	if err != nil {
		return Config{}, err
	}
	if saved {
		cfg.Eval.Gating, cfg.Eval.GateThreshold = false, 0
	}
	problems := cfg.problems()
	for _, p := range problems {
		p.Line = lines.Of(p.Key)
	}
	if err := configs.Join(problems); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// YAML returns the configuration as YAML that [Parse] reads back to the
// same value: the copy a run keeps beside its checkpoints, and what a run
// gives the machines that play its games.
func (c Config) YAML() ([]byte, error) {
	data, err := yaml.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("config to yaml: %w", err)
	}
	return data, nil
}

// RunDir returns the directory the run writes to: Output.Dir, or
// checkpoints/<name> when that is empty.
func (c Config) RunDir() string {
	if c.Output.Dir != "" {
		return c.Output.Dir
	}
	return filepath.Join("checkpoints", c.Name)
}

// Validate reports every setting out of range, each as a [*configs.FieldError]
// naming its key path, joined into one error.
func (c Config) Validate() error { return configs.Join(c.problems()) }

// runName is what a run name may contain: it becomes a directory name.
var runName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// problems lists the settings out of range, in the order of the config's
// sections.
func (c Config) problems() []*configs.FieldError {
	var ch configs.Checker
	c.checkRun(&ch)
	ch.Section("model", c.Model.Validate())
	ch.Section("server", c.Server.Validate())
	ch.Section("search", c.Search.Validate())
	c.checkSelfPlay(&ch)
	ch.Section("replay", c.Replay.Validate())
	c.checkOptim(&ch)
	c.checkEval(&ch)
	ch.AtLeast("output.keep_last", c.Output.KeepLast, 1)
	c.checkDistributed(&ch)
	return ch.Problems()
}

// checkRun checks the run's name and end, and its rules.
func (c Config) checkRun(ch *configs.Checker) {
	ch.Check(runName.MatchString(c.Name), "name", "is %q: want letters, digits, '.', '_' or '-', starting with a letter or digit", c.Name)
	ch.AtLeast("iterations", c.Iterations, 0)
	ch.Check(c.TimeLimit >= 0, "time_limit", "is %v: want 0 (no limit) or more", c.TimeLimit)
	ch.Check(c.Iterations > 0 || c.TimeLimit > 0, "iterations", "and time_limit are both 0: the run would never stop")

	// Training asks more of the rules than env does: a move limit, and an
	// opening shorter than it (where env found nothing wrong with them).
	r := c.Env.Rules
	ch.Section("env", c.Env.Validate())
	if !ch.Reported("env.rules.max_plies") {
		ch.Check(r.MaxPlies > 0, "env.rules.max_plies", "is %d: self-play needs a move limit of 1 or more", r.MaxPlies)
	}
	if !ch.Reported("env.opening_plies") {
		ch.Between("env.opening_plies", c.Env.OpeningPlies, 0, max(0, r.MaxPlies-1))
	}
}

// checkSelfPlay checks the selfplay section.
func (c Config) checkSelfPlay(ch *configs.Checker) {
	s := c.SelfPlay
	ch.AtLeast("selfplay.games_per_iteration", s.GamesPerIteration, 1)
	ch.Between("selfplay.parallel_games", s.ParallelGames, 1, 4096)
	ch.InRange("selfplay.resign_threshold", s.ResignThreshold, -1, 0)
	ch.InRange("selfplay.resign_playout_share", s.ResignPlayoutShare, 0, 1)
	ch.AtLeast("selfplay.adjudicate_horizon", s.AdjudicateHorizon, 0)
	ch.Check(s.AdjudicateMax > 0 && s.AdjudicateMax <= 1, "selfplay.adjudicate_max", "is %g: want more than 0 and at most 1", s.AdjudicateMax)
	ch.AtLeast("selfplay.adjudicate_stack_cap", s.AdjudicateStackCap, 0)
	ch.AtLeast("selfplay.fast_simulations", s.FastSimulations, 0)
	if s.FastSimulations > 0 {
		full := c.Search.Simulations
		ch.Check(full == 0 || s.FastSimulations < full, "selfplay.fast_simulations", "is %d: want fewer than search.simulations (%d)", s.FastSimulations, full)
		ch.Check(s.FullSearchShare > 0 && s.FullSearchShare <= 1, "selfplay.full_search_share", "is %g: want more than 0 and at most 1 with fast_simulations", s.FullSearchShare)
	} else {
		ch.InRange("selfplay.full_search_share", s.FullSearchShare, 0, 1)
	}
	ch.AtLeast("selfplay.progressive_simulations", s.ProgressiveSimulations, 0)
	ch.InRange("selfplay.search_value_share", s.SearchValueShare, 0, 1)
	ch.InRange("selfplay.late_start_share", s.LateStartShare, 0, 1)
}

// checkOptim checks the optim section, and its batch against the replay
// window.
func (c Config) checkOptim(ch *configs.Checker) {
	ch.AtLeast("optim.total_steps", c.Optim.TotalSteps, 0)
	if !ch.Reported("optim.total_steps") {
		ch.Section("optim", c.Optim.TrainerConfig().Validate())
	}
	ch.AtLeast("optim.steps_per_iteration", c.Optim.StepsPerIteration, 1)
	ch.AtLeast("optim.average_iterations", c.Optim.AverageIterations, 1)
	ch.Check(c.Optim.BatchSize <= c.Replay.Window, "optim.batch_size", "is %d: want at most replay.window (%d)", c.Optim.BatchSize, c.Replay.Window)
}

// checkEval checks the eval section against the rules.
func (c Config) checkEval(ch *configs.Checker) {
	e := c.Eval
	ch.AtLeast("eval.every", e.Every, 0)
	ch.AtLeast("eval.games", e.Games, 1)
	ch.Between("eval.parallel_games", e.ParallelGames, 1, 4096)
	ch.Between("eval.opening_plies", e.OpeningPlies, 0, max(0, c.Env.Rules.MaxPlies-1))
	for i, spec := range e.Baselines {
		if _, err := players.ParseSpec(spec); err != nil {
			ch.Check(false, fmt.Sprintf("eval.baselines[%d]", i), "is %q: %v", spec, err)
		}
	}
	if e.Anchor != "" {
		if _, err := players.ParseSpec(e.Anchor); err != nil {
			ch.Check(false, "eval.anchor", "is %q: %v", e.Anchor, err)
		}
	}
	ch.AtLeast("eval.snapshots", e.Snapshots, 0)
	ch.Check(e.Snapshots == 0 || e.Anchor != "", "eval.snapshots", "is %d without eval.anchor: the scale needs its 0", e.Snapshots)
	ch.AtLeast("eval.simulations", e.Simulations, 1)
	ch.Check(!e.Gating, "eval.gating", "is true: gating was removed, unmeasured (see train/README.md)")
}

// checkDistributed checks the distributed section against self-play.
func (c Config) checkDistributed(ch *configs.Checker) {
	ch.AtLeast("distributed.max_staleness", c.Distributed.MaxStaleness, 0)
	ch.AtLeast("distributed.queue_games", c.Distributed.QueueGames, 1)
	ch.AtLeast("distributed.ingest_ahead_games", c.Distributed.IngestAheadGames, 1)
	ch.Check(c.Distributed.Replicas >= 1 && c.Distributed.Replicas <= 5, "distributed.replicas",
		"is %d: want 1 to 5 (NATS keeps at most 5 replicas)", c.Distributed.Replicas)
	// A pure learner waits for an iteration's games: the stream must hold them.
	ch.Check(c.Distributed.StreamMaxGames >= max(1, c.SelfPlay.GamesPerIteration), "distributed.stream_max_games",
		"is %d: want selfplay.games_per_iteration (%d) or more", c.Distributed.StreamMaxGames, c.SelfPlay.GamesPerIteration)
}

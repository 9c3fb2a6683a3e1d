package train

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
)

// Metadata keys of an exported player file (a network file whose Meta
// holds its search settings).
const (
	metaKind       = "kind"
	metaKindPlayer = "player"
	metaSearch     = "search"
	metaIteration  = "iterations"
	metaExported   = "exported"
	metaRun        = "run"
	metaRating     = "elo_vs_random"
)

// ErrReservedMeta is the error of [Export] for an extra metadata entry
// under a key it writes itself.
var ErrReservedMeta = errors.New("export writes that entry itself")

// exportKeys are the metadata keys Export writes itself.
var exportKeys = []string{metaKind, metaSearch, metaIteration, metaExported, metaRun, metaRating}

// resolveModel turns what a user names as a model into a file: a run
// directory means its latest complete checkpoint; a file is taken as it is.
func resolveModel(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", path, err)
	}
	if !info.IsDir() {
		return path, nil
	}
	latest, _, err := latestCheckpoint(path)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", path, err)
	}
	return latest, nil
}

// loadNetwork reads the network of a checkpoint, a run directory (its
// latest checkpoint), an exported player or a bare network file, or for
// path "" the built-in player, with the search settings for strong play
// that come with it: an exported player's own, a checkpoint's run config
// with the noise and temperature off, or mcts.DefaultConfig for a bare
// network.
func loadNetwork(path string) (*model.Network, mcts.Config, error) {
	if path == "" {
		net, err := model.ReadNetwork(builtin.Open())
		if err != nil {
			return nil, mcts.Config{}, fmt.Errorf("load %s: %w", builtin.Name, err)
		}
		search, err := playerSearch(net, builtin.Name)
		return net, search, err
	}
	file, err := resolveModel(path)
	if err != nil {
		return nil, mcts.Config{}, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, mcts.Config{}, fmt.Errorf("load model: %w", err)
	}
	magic := make([]byte, len(checkpointMagic))
	_, readErr := f.Read(magic)
	f.Close()
	if readErr == nil && string(magic) == checkpointMagic {
		st, net, err := readCheckpointNetwork(file)
		if err != nil {
			return nil, mcts.Config{}, err
		}
		cfg, err := parseSaved([]byte(st.Config))
		if err != nil {
			return nil, mcts.Config{}, fmt.Errorf("load model %s: its config: %w", file, err)
		}
		return net, strongSearch(cfg.Search), nil
	}
	net, err := model.Load(file)
	if err != nil {
		return nil, mcts.Config{}, err
	}
	search, err := playerSearch(net, file)
	return net, search, err
}

// playerSearch returns the search settings of an exported player, or
// mcts.DefaultConfig for a bare network; name names the file in errors.
func playerSearch(net *model.Network, name string) (mcts.Config, error) {
	search := mcts.DefaultConfig()
	if text, ok := net.Meta[metaSearch]; ok {
		if err := yaml.Unmarshal([]byte(text), &search); err != nil {
			return mcts.Config{}, fmt.Errorf("load model %s: search settings: %w", name, err)
		}
		if err := search.Validate(); err != nil {
			return mcts.Config{}, fmt.Errorf("load model %s: search settings: %w", name, err)
		}
	}
	return search, nil
}

// strongSearch returns self-play search settings turned to playing
// strength: no root noise, the most visited move.
func strongSearch(c mcts.Config) mcts.Config {
	c.DirichletEpsilon = 0
	c.Temperature, c.TemperaturePlies, c.FinalTemperature = 0, 0, 0
	return c
}

// Models loads networks for az players and serves each through one
// batching server, however many players and games use it: it is the
// players.AZLoader of every command. Close stops the servers.
type Models struct {
	server model.ServerConfig
	mu     sync.Mutex
	loaded map[string]loadedModel
}

type loadedModel struct {
	srv    *model.Server
	search mcts.Config
}

// NewModels returns an empty cache whose servers use cfg.
func NewModels(cfg model.ServerConfig) *Models {
	return &Models{server: cfg, loaded: map[string]loadedModel{}}
}

// Load implements players.AZLoader: the first call for a path loads the
// network and starts its server; later calls share them.
func (m *Models) Load(path string) (mcts.Evaluator, mcts.Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.loaded[path]; ok {
		return l.srv, l.search, nil
	}
	net, search, err := loadNetwork(path)
	if err != nil {
		return nil, mcts.Config{}, err
	}
	srv, err := model.NewServer(net, m.server)
	if err != nil {
		return nil, mcts.Config{}, err
	}
	m.loaded[path] = loadedModel{srv: srv, search: search}
	return srv, search, nil
}

// Close stops every server.
func (m *Models) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for path, l := range m.loaded {
		errs = append(errs, l.srv.Close())
		delete(m.loaded, path)
	}
	return errors.Join(errs...)
}

// LoadPlayer loads a model file (exported player, checkpoint or run
// directory; "" for the built-in player) and returns an AlphaZero player for it with its own
// evaluator, seeded with seed. simulations > 0 overrides the file's
// setting. It is the one call a Go program needs to play with a trained
// network.
func LoadPlayer(path string, simulations int, seed uint64) (*mcts.PUCTPlayer, error) {
	net, search, err := loadNetwork(path)
	if err != nil {
		return nil, err
	}
	if simulations > 0 {
		search.Simulations = simulations
	}
	return mcts.NewPUCTPlayer(net, search, seed)
}

// ExportOptions describes an exported player.
type ExportOptions struct {
	// Simulations per move; 0 keeps the run's self-play setting.
	Simulations int
	// Now stamps the file; the zero time means time.Now.
	Now time.Time
	// Meta are more metadata entries, such as how the run was made; they
	// may not replace the entries Export writes.
	Meta map[string]string
}

// Export writes a self-contained player file: the network of a checkpoint
// (or a run directory's latest) with its architecture, encoding version,
// search settings for strong play and metadata (iterations trained, date,
// the run's last measured Elo against random), checksummed and written
// atomically. LoadPlayer, loadNetwork and the player spec az:model=FILE
// read it.
func Export(checkpoint, out string, opts ExportOptions) error {
	file, err := resolveModel(checkpoint)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	st, net, err := readCheckpointNetwork(file)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	cfg, err := parseSaved([]byte(st.Config))
	if err != nil {
		return fmt.Errorf("export %s: its config: %w", file, err)
	}
	search := strongSearch(cfg.Search)
	if opts.Simulations > 0 {
		search.Simulations = opts.Simulations
	}
	text, err := yaml.Marshal(search)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	for k, v := range opts.Meta {
		if slices.Contains(exportKeys, k) {
			return fmt.Errorf("export: metadata %q: %w", k, ErrReservedMeta)
		}
		net.Meta[k] = v
	}
	net.Meta[metaKind] = metaKindPlayer
	net.Meta[metaSearch] = string(text)
	net.Meta[metaIteration] = strconv.Itoa(st.Iteration)
	net.Meta[metaExported] = now.UTC().Format(time.RFC3339)
	net.Meta[metaRun] = cfg.Name
	if elo, ok := lastEloVsRandom(file); ok {
		net.Meta[metaRating] = elo
	}
	if err := net.Save(out); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// lastEloVsRandom finds the newest Elo against random in the metrics of
// the run a checkpoint belongs to.
func lastEloVsRandom(checkpoint string) (string, bool) {
	ms, err := ReadMetrics(metricsPath(runDirOf(checkpoint)))
	if err != nil {
		return "", false
	}
	for i := len(ms) - 1; i >= 0; i-- {
		if r, ok := ms[i].Eval["random"]; ok {
			return fmt.Sprintf("%.0f [%.0f, %.0f] after iteration %d", r.Elo, r.EloLow, r.EloHigh, ms[i].Iteration), true
		}
	}
	return "", false
}

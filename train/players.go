package train

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/builtin"
	"github.com/deathstacks/deathstacks/train/checkpoint"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// Metadata keys of the network files a run writes (its snapshots in nets/)
// and of exported player files: the search settings for strong play and
// where the network comes from.
const (
	metaKind         = "kind"
	metaKindPlayer   = "player"
	metaKindSnapshot = "snapshot"
	metaSearch       = "search"
	metaIteration    = "iterations"
	metaExported     = "exported"
	metaRun          = "run"
	metaRating       = "elo_vs_random"
)

// ErrReservedMeta is the error of [Export] for an extra metadata entry
// under a key it writes itself.
var ErrReservedMeta = errors.New("export writes that entry itself")

// ErrBadSearch is the error of [Export] for a search setting it cannot
// take: an unknown key or a value out of range.
var ErrBadSearch = errors.New("bad search setting")

// exportKeys are the metadata keys Export writes itself.
var exportKeys = []string{metaKind, metaSearch, metaIteration, metaExported, metaRun, metaRating}

// trained is a network loaded from what a user named as a model, with
// what is known of the run it comes from.
type trained struct {
	net *model.Network
	// search is the search for strong play that goes with it.
	search mcts.Config
	// iteration and run name the run's iteration and the run (0 and ""
	// when unknown); runDir is the run's directory ("" when unknown).
	iteration int
	run       string
	runDir    string
	// file is the file the network was read from: the checkpoint a run
	// directory resolved to, or the network file; "" for the built-in
	// networks.
	file string
	// warnings say what was passed over on the way: a damaged newer
	// checkpoint of a run directory.
	warnings []string
}

// loadTrained reads the network of what a user named as a model, the one
// path from a path to a network and its search for every command and
// package that plays one (through [Models], [LoadPlayer], [Export],
// [LoadNetwork] and [LadderRun]). The forms of path, every command's:
//
//   - "": the built-in player; "anchor" ([builtin.AnchorModel]): the
//     anchor of the Elo scale, whatever a file or directory of that name;
//   - a run directory: its latest complete checkpoint (a damaged newer
//     one is passed over, with a warning);
//   - a checkpoint (ckpt-N.dsck);
//   - a network file: a run's snapshot (RUN/nets/net-N.dsnn), an exported
//     player, or any other saved network.
//
// The search settings for strong play, first found first:
//
//  1. the settings a network file carries (a snapshot's, an exported
//     player's, the built-in player's);
//  2. for a checkpoint, its own copy of its run's config; for a snapshot
//     written before snapshots carried settings, its run's config.yaml;
//  3. mcts.DefaultConfig, for any other bare network.
//
// A checkpoint's and a snapshot's settings, self-play's, are turned to a
// player's (strongSearch: no noise or temperature, the win search given a
// player's node budget at least).
//
// What the caller sets goes over them: the keys of an az spec, the
// ladder's --simulations and --time, export's --simulations and --search.
func loadTrained(path string) (*trained, error) {
	t := &trained{}
	if file, title, ok := builtin.Lookup(path); ok {
		net, err := model.ReadNetwork(file)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", title, err)
		}
		return t, t.fromNetwork(net, title)
	}
	file, skipped, err := modelFile(path)
	for _, s := range skipped {
		t.warnings = append(t.warnings, fmt.Sprintf("model %s: skipped damaged checkpoint %v", path, s))
	}
	if err != nil {
		return nil, err
	}
	if isCheckpoint(file) {
		st, net, err := checkpoint.ReadPlayer(file)
		if err != nil {
			return nil, &ModelError{Path: path, Err: err}
		}
		cfg, err := runconfig.ParseSaved([]byte(st.Config))
		if err != nil {
			return nil, fmt.Errorf("load model %s: its config: %w", file, err)
		}
		t.net, t.search, t.iteration, t.run, t.runDir, t.file = net, strongSearch(cfg.Search), st.Iteration, cfg.Name, filepath.Dir(file), file
		if len(skipped) > 0 {
			t.warnings = append(t.warnings, fmt.Sprintf("model %s: using iteration %d (%s) instead", path, st.Iteration, file))
		}
		return t, nil
	}
	net, err := model.Load(file)
	if err != nil {
		return nil, &ModelError{Path: path, Err: err}
	}
	if err := t.fromNetwork(net, file); err != nil {
		return nil, err
	}
	t.file = file
	if dir, it, ok := snapshotOf(file); ok {
		t.runDir = dir
		if t.iteration == 0 {
			t.iteration = it
		}
		if _, ok := net.Meta[metaSearch]; !ok {
			cfg, err := runconfig.LoadSaved(filepath.Join(dir, runconfig.File))
			if err != nil {
				return nil, fmt.Errorf("load model %s: the run's config: %w", file, err)
			}
			t.search, t.run = cfg.Search, cfg.Name
		}
		// A snapshot's settings are its run's self-play ones, however old
		// the snapshot: strongSearch makes them a player's.
		t.search = strongSearch(t.search)
	}
	return t, nil
}

// modelFile resolves what a user named as a model to the file to read,
// the one resolver of every command that reads a network: a run
// directory's latest complete checkpoint (skipped names each damaged newer
// one passed over), any other path itself (a checkpoint, a network
// snapshot, an exported player).
// Its errors are [*ModelError]s.
func modelFile(path string) (file string, skipped []error, err error) {
	info, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			err = pe.Err // the path is the ModelError's
		}
		return "", nil, &ModelError{Path: path, Err: err}
	}
	if !info.IsDir() {
		return path, nil, nil
	}
	latest, skipped, err := checkpoint.Latest(path)
	if err != nil {
		if errors.Is(err, checkpoint.ErrNotFound) && len(skipped) == 0 {
			err = checkpoint.ErrNotFound // without the path, which is the ModelError's
		}
		return "", skipped, &ModelError{Path: path, Err: errors.Join(append([]error{err}, skipped...)...)}
	}
	return latest, skipped, nil
}

// ModelError is a path a user named as a model (a run directory, a
// checkpoint, a network file) that gives none: it does not exist, holds no
// checkpoint, or does not read. Path is as the user gave it, so that a
// command can name the flag that gave it; Err says what is wrong.
type ModelError struct {
	Path string
	Err  error
}

func (e *ModelError) Error() string { return "model " + e.Path + ": " + e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// fromNetwork takes a network file's network with what its metadata says:
// the search settings it carries (else mcts.DefaultConfig), its run and
// iteration; name names the file in errors.
func (t *trained) fromNetwork(net *model.Network, name string) error {
	t.net, t.search, t.run = net, mcts.DefaultConfig(), net.Meta[metaRun]
	t.iteration, _ = strconv.Atoi(net.Meta[metaIteration])
	if text, ok := net.Meta[metaSearch]; ok {
		if err := yaml.Unmarshal([]byte(text), &t.search); err != nil {
			return fmt.Errorf("load model %s: search settings: %w", name, err)
		}
		if err := t.search.Validate(); err != nil {
			return fmt.Errorf("load model %s: search settings: %w", name, err)
		}
	}
	return nil
}

// isCheckpoint reports whether the file starts with a checkpoint's magic.
func isCheckpoint(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, len(checkpoint.Magic))
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == checkpoint.Magic
}

// snapshotOf returns the run directory and iteration of a network
// snapshot RUN/nets/net-<iteration>.dsnn.
func snapshotOf(file string) (runDir string, iteration int, ok bool) {
	dir, name := filepath.Split(file)
	m := checkpoint.NetName.FindStringSubmatch(name)
	if m == nil || filepath.Base(filepath.Clean(dir)) != checkpoint.NetsDir {
		return "", 0, false
	}
	it, err := strconv.Atoi(m[1])
	if err != nil {
		return "", 0, false
	}
	return filepath.Dir(filepath.Clean(dir)), it, true
}

// snapshotMeta is the metadata of the network snapshot of an iteration:
// the search settings for strong play, the iteration and the run.
func snapshotMeta(cfg runconfig.Config, iteration int) (map[string]string, error) {
	text, err := yaml.Marshal(strongSearch(cfg.Search))
	if err != nil {
		return nil, err
	}
	return map[string]string{
		metaKind:      metaKindSnapshot,
		metaSearch:    string(text),
		metaIteration: strconv.Itoa(iteration),
		metaRun:       cfg.Name,
	}, nil
}

// strongSearch returns self-play search settings turned to playing
// strength: no root noise or temperature, and the win search (when on)
// given a player's node budget at least, since self-play gives it less to
// play more games.
func strongSearch(c mcts.Config) mcts.Config {
	c.DirichletEpsilon = 0
	c.Temperature, c.TemperaturePlies, c.FinalTemperature = 0, 0, 0
	if c.WinSearchPlies > 0 && c.WinSearchNodes > 0 {
		c.WinSearchNodes = max(c.WinSearchNodes, mcts.DefaultConfig().WinSearchNodes)
	}
	return c
}

// Models loads networks for az players and serves each through one
// batching server, however many players and games use it: it is the
// players.AZLoader of every command, the web server and the evaluations
// of a run, and the ladder.Networks of the ladder. Close stops the servers.
//
// A path is "" (the built-in player), a run directory (its latest
// complete checkpoint), a checkpoint or a network file (a snapshot, an
// exported player). The search settings that come with it are the first
// found of: those the file carries; a checkpoint's run config, or for a
// snapshot older than those settings its run's config.yaml; mcts.DefaultConfig;
// a run's turned to a player's as loadTrained says. A spec's keys go over them.
type Models struct {
	server model.ServerConfig
	warn   io.Writer
	mu     sync.Mutex
	loaded map[string]loadedModel
}

type loadedModel struct {
	srv    *model.Server
	search mcts.Config
	file   string // trained.file
}

// NewModels returns an empty cache whose servers use cfg. What a load
// passes over (a damaged newest checkpoint of a run directory) is written
// to warn, a line each; nil discards it.
func NewModels(cfg model.ServerConfig, warn io.Writer) *Models {
	if warn == nil {
		warn = io.Discard
	}
	return &Models{server: cfg, warn: warn, loaded: map[string]loadedModel{}}
}

// Load implements players.AZLoader: the first call for a path loads the
// network and starts its server; later calls share them.
func (m *Models) Load(path string) (mcts.Evaluator, mcts.Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.loaded[path]; ok {
		return l.srv, l.search, nil
	}
	t, err := loadTrained(path)
	if err != nil {
		return nil, mcts.Config{}, err
	}
	for _, w := range t.warnings {
		fmt.Fprintln(m.warn, "warning: "+w)
	}
	srv, err := model.NewServer(t.net, m.server)
	if err != nil {
		return nil, mcts.Config{}, err
	}
	m.loaded[path] = loadedModel{srv: srv, search: t.search, file: t.file}
	return srv, t.search, nil
}

// File returns the file that the model path, loaded before, was read
// from (a run directory's checkpoint, a network file) and the SHA-256 of
// its bytes in hex, so that a record of the games names the network they
// played, not a run directory that goes on training; ok is false for a
// path not loaded, or a built-in network, which has no file.
func (m *Models) File(path string) (file, sha256Hex string, ok bool, err error) {
	m.mu.Lock()
	l, loaded := m.loaded[path]
	m.mu.Unlock()
	if !loaded || l.file == "" {
		return "", "", false, nil
	}
	f, err := os.Open(l.file)
	if err != nil {
		return "", "", false, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", false, fmt.Errorf("checksum of %s: %w", l.file, err)
	}
	return l.file, hex.EncodeToString(h.Sum(nil)), true, nil
}

// Release stops the server of a path loaded before, if any, and forgets
// it: a later Load loads it again. Players that use it must be done.
func (m *Models) Release(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.loaded[path]
	if !ok {
		return nil
	}
	delete(m.loaded, path)
	return l.srv.Close()
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

// LoadPlayer loads a model (exported player, checkpoint, network snapshot
// or run directory; "" for the built-in player) and returns an AlphaZero player for it with its own
// evaluator, seeded with seed. simulations > 0 overrides the file's
// setting. It is the one call a Go program needs to play with a trained
// network. A run directory's damaged newest checkpoint is passed over in
// silence: [Models] reports it.
func LoadPlayer(path string, simulations int, seed uint64) (*mcts.PUCTPlayer, error) {
	t, err := loadTrained(path)
	if err != nil {
		return nil, err
	}
	if simulations > 0 {
		t.search.Simulations = simulations
	}
	return mcts.NewPUCTPlayer(t.net, t.search, seed)
}

// ExportOptions describes an exported player.
type ExportOptions struct {
	// Simulations per move; 0 keeps the run's self-play setting.
	Simulations int
	// Now stamps the file; the zero time means time.Now.
	Now time.Time
	// Warn receives what the export passed over (a damaged newest
	// checkpoint of a run directory), a line each; nil discards it.
	Warn io.Writer
	// Search changes search settings of the player by name (the keys of
	// az specs, such as "contempt"), after Simulations.
	Search map[string]string
	// Meta are more metadata entries, such as how the run was made; they
	// may not replace the entries Export writes.
	Meta map[string]string
}

// Export writes a self-contained player file: the network of a checkpoint,
// a run directory's latest, a network snapshot or another player file,
// with its architecture, encoding version, search settings for strong play
// and metadata (iterations trained, date, the run's last measured Elo
// against random), checksummed and written atomically. LoadPlayer, Models
// and the player spec az:model=FILE read it.
func Export(from, out string, opts ExportOptions) error {
	t, err := loadTrained(from)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if opts.Warn != nil {
		for _, w := range t.warnings {
			fmt.Fprintln(opts.Warn, "warning: "+w)
		}
	}
	return t.export(out, opts)
}

// ExportNetwork writes a network made outside a run (in PyTorch, handed
// over by the C library) as a player file, as [Export] writes one: the
// search settings, run and iteration its metadata carries (the library
// defaults, "" and 0 without them) under opts. It sets net's metadata.
func ExportNetwork(net *model.Network, out string, opts ExportOptions) error {
	t := &trained{}
	if err := t.fromNetwork(net, "network"); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return t.export(out, opts)
}

// export writes t as a player file; see [Export].
func (t *trained) export(out string, opts ExportOptions) error {
	if opts.Simulations < 0 {
		return fmt.Errorf("export: simulations is %d: want 0 (the model's setting) or more: %w", opts.Simulations, ErrBadSearch)
	}
	search := t.search
	if opts.Simulations > 0 {
		search.Simulations = opts.Simulations
	}
	for _, k := range slices.Sorted(maps.Keys(opts.Search)) {
		if err := search.Set(k, opts.Search[k]); err != nil {
			return fmt.Errorf("export: search setting %s: %w: %w", k, ErrBadSearch, err)
		}
	}
	if err := search.Validate(); err != nil {
		return fmt.Errorf("export: search settings: %w: %w", ErrBadSearch, err)
	}
	text, err := yaml.Marshal(search)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	// A player needs no auxiliary heads: only training computes them.
	net := t.net.WithoutAux()
	if net.Meta == nil {
		net.Meta = map[string]string{}
	}
	net.Meta[metaKind] = metaKindPlayer
	net.Meta[metaSearch] = string(text)
	net.Meta[metaIteration] = strconv.Itoa(t.iteration)
	net.Meta[metaExported] = now.UTC().Format(time.RFC3339)
	net.Meta[metaRun] = t.run
	if elo, ok := lastEloVsRandom(t.runDir, t.iteration); ok {
		net.Meta[metaRating] = elo
	}
	for k, v := range opts.Meta {
		if slices.Contains(exportKeys, k) {
			return fmt.Errorf("export: metadata %q: %w", k, ErrReservedMeta)
		}
		net.Meta[k] = v
	}
	if err := net.Save(out); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// lastEloVsRandom finds the newest Elo against random, up to an
// iteration, in the metrics of a run directory.
func lastEloVsRandom(runDir string, iteration int) (string, bool) {
	if runDir == "" {
		return "", false
	}
	ms, err := metrics.Read(metricsPath(runDir))
	if err != nil {
		return "", false
	}
	for i := len(ms) - 1; i >= 0; i-- {
		if r, ok := ms[i].Eval["random"]; ok && ms[i].Iteration <= iteration {
			return fmt.Sprintf("%.0f [%.0f, %.0f] after iteration %d", r.Elo, r.EloLow, r.EloHigh, ms[i].Iteration), true
		}
	}
	return "", false
}

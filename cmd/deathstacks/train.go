package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func runTrain(args []string, s stdio) error {
	fs := newFlags("train", "train [--config FILE|NAME] [--out DIR] [--resume] [--iterations N] [--time-limit D] [--init MODEL] [--quiet]\n      [--listen ADDR [--tls-cert FILE --tls-key FILE] | --nats URL [--nats-creds FILE]] [--no-selfplay]\n\nTrains a network by self-play, from zero or from the network of --init (see\nconfigs/default.yaml, built in).\nEach iteration ends with a checkpoint in the run directory. Ctrl-C (or\nSIGTERM) stops the run (status 130 after Ctrl-C, 143 after SIGTERM): an\niteration cut short is dropped, and --resume continues from the last\ncheckpoint with the iteration count, the target and the replay buffer intact.\n\nWith --listen or --nats, actors on other machines (deathstacks actor) play\nself-play games too; --listen prints the actor command line to run on them.", s)
	configArg := fs.String("config", "", "a YAML config file, or a built-in config: "+strings.Join(configs.Names(), ", ")+" (default: the run's own config when resuming, else default)")
	out := fs.String("out", "", "the run directory (default checkpoints/<run name>)")
	resume := fs.Bool("resume", false, "continue the run in the run directory from its latest checkpoint")
	iterations := fs.Int("iterations", 0, "stop once this many iterations exist in total, counting those before a resume; the run keeps it as its target (default: the config's, or the run's own when resuming)")
	timeLimit := fs.Duration("time-limit", 0, "stop after the iteration that crosses this training time (such as 90m), counting the time before a resume; the run keeps it as its time_limit (default: the config's, or the run's own when resuming)")
	initModel := fs.String("init", "", "start the new run from this network instead of random weights: a network file, checkpoint, snapshot, run directory or anchor, its architecture the config's model or one with fewer blocks, deepened (the config's init)")
	quiet := fs.Bool("quiet", false, "no progress bars: one line per iteration")
	var fleet fleetFlags
	fs.StringVar(&fleet.listen, "listen", "", "start a NATS server for actors on host:port, such as 0.0.0.0:4222")
	fs.StringVar(&fleet.tlsCert, "tls-cert", "", "with --listen: the server's TLS certificate file")
	fs.StringVar(&fleet.tlsKey, "tls-key", "", "with --listen: the server's TLS key file")
	fs.StringVar(&fleet.nats, "nats", "", "use the NATS server (JetStream on) at this URL for actors")
	fs.StringVar(&fleet.creds, "nats-creds", "", "with --nats: a NATS credentials file")
	fs.BoolVar(&fleet.noSelfPlay, "no-selfplay", false, "with --listen or --nats: play no games here, only train on the actors' games")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := fleet.check(); err != nil {
		return err
	}
	if *iterations < 0 {
		return usageErr("--iterations must be 0 or more")
	}
	if *timeLimit < 0 {
		return usageErr("--time-limit must be 0 or more")
	}
	if *initModel != "" && *resume {
		return usageErr("--init starts a new run: a resumed run goes on from its checkpoint's network")
	}
	cfg, err := trainConfig(*configArg, *out, *resume)
	if err != nil {
		return usageErr("%v", err)
	}
	if *initModel != "" {
		cfg.Init = *initModel
	}
	ctx, release := onStop(s, "an iteration in self-play is dropped, one in training is finished and saved")
	defer release()
	opts := train.RunOptions{Dir: *out, Resume: *resume, Iterations: *iterations, TimeLimit: *timeLimit, Log: s.out, Quiet: *quiet}
	if fleet.on() {
		if opts.Dir == "" {
			opts.Dir = cfg.RunDir()
		}
		stop, err := fleet.start(ctx, cfg, &opts, s)
		if err != nil {
			return err
		}
		defer stop()
	}
	sum, err := train.Run(ctx, cfg, opts)
	switch {
	case err != nil:
		return err
	case sum.Stopped && sum.Iteration == 0:
		// No checkpoint to resume from: the same command starts afresh.
		return stoppedError(ctx, ofTotal(0, sum.Target, "iteration", "iterations"), againCommand("train", args, *out != "", sum.Dir))
	case sum.Stopped:
		return stoppedError(ctx, ofTotal(sum.Iteration, sum.Target, "iteration", "iterations"), resumeTrain(sum.Dir, ""))
	case sum.Session == 0 && sum.Target > 0 && sum.Iteration >= sum.Target:
		fmt.Fprintf(s.out, "to train further, resume with a larger --iterations, such as: %s\n", resumeTrain(sum.Dir, strconv.Itoa(sum.Iteration+1)))
	case sum.Session == 0:
		fmt.Fprintf(s.out, "to train further, resume with a longer --time-limit, such as: %s --time-limit %v\n", resumeTrain(sum.Dir, ""), longerLimit(sum.TimeLimit))
	}
	return nil
}

// longerLimit is a time limit to suggest after a run stopped at limit:
// half as long again, in whole minutes.
func longerLimit(limit time.Duration) time.Duration {
	return max(limit+limit/2, limit+time.Minute).Round(time.Minute)
}

// resumeTrain is the command line that continues the run in dir, to the
// target iterations when not "".
func resumeTrain(dir, iterations string) string {
	args := []string{"--resume", "--out", dir}
	if iterations != "" {
		args = append(args, "--iterations", iterations)
	}
	return commandLine("train", args)
}

// trainConfig picks the configuration of a training session: the named
// file or built-in config, or the built-in default. When resuming, the
// run's own copy is the base instead (runconfig.Resumed), and a named
// config changes only the keys it sets.
func trainConfig(arg, out string, resume bool) (runconfig.Config, error) {
	if arg == "" && resume {
		return runconfig.Resumed(out, nil)
	}
	if arg == "" {
		arg = "default"
	}
	data, builtin := configs.Lookup(arg)
	what := "built-in config " + arg
	if !builtin {
		var err error
		if data, err = os.ReadFile(arg); err != nil {
			if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, `/\.`) {
				return runconfig.Config{}, fmt.Errorf("config %q: no such file, nor a built-in config (%s): %w", arg, strings.Join(configs.Names(), ", "), fs.ErrNotExist)
			}
			return runconfig.Config{}, fmt.Errorf("config: %w", err)
		}
		what = arg
	}
	parse := runconfig.Parse
	if resume {
		parse = func(data []byte) (runconfig.Config, error) { return runconfig.Resumed(out, data) }
	}
	cfg, err := parse(data)
	if err != nil {
		return cfg, inConfig(what, err)
	}
	return cfg, nil
}

// inConfig says where in the config what (a file's path, or "built-in
// config NAME") the settings err finds fault with are, one a line as a
// compiler does, "FILE:LINE: key is ...", in the file's order: every line
// names the file.
func inConfig(what string, err error) error {
	problems, ok := fieldErrors(err)
	if !ok {
		return fmt.Errorf("%s: %w", what, err)
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = fmt.Sprintf("%s: %s %s", what, p.Key, p.Msg)
		if p.Line > 0 {
			lines[i] = fmt.Sprintf("%s:%d: %s %s", what, p.Line, p.Key, p.Msg)
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}

func runPlot(args []string, s stdio) error {
	fs := newFlags("plot", "plot --run DIR\n\nRedraws the PNG plots of a run (loss.png, selfplay.png, eval.png) from its metrics.jsonl.", s)
	dir := fs.String("run", "", "the run directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageErr("--run is required")
	}
	if err := metrics.PlotRun(*dir); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "plots written to %s\n", *dir)
	return nil
}

func runExport(args []string, s stdio) error {
	fs := newFlags("export", "export --checkpoint PATH --out FILE [--simulations N] [--search KEY=VALUE]... [--meta KEY=VALUE]...\n\nWrites a self-contained player file (network, architecture, encoding version,\nsearch settings, metadata, checksum) that az:model=FILE and train.LoadPlayer read.\nPATH is a checkpoint, a run directory (its latest checkpoint) or a network\nsnapshot of a run (DIR/nets/net-N.dsnn). The metadata records this command\nline (export_command, its paths as typed)\nand each --meta entry, such as\n--meta trained_by='deathstacks train --config long'.", s)
	ckpt := fs.String("checkpoint", "", "a checkpoint file, a run directory or a network snapshot")
	out := fs.String("out", "", "the player file to write")
	sims := simulationsFlag(fs, 0, "simulations per move (default: the run's self-play setting); 0 for no limit, with --search time=D")
	meta, search := map[string]string{}, map[string]string{}
	fs.Func("meta", "a metadata entry KEY=VALUE to store in the file (repeatable)", keyValues(meta))
	fs.Func("search", "a search setting KEY=VALUE for the player, such as contempt=0.5 (repeatable; keys as in az specs)", keyValues(search))
	format := exportFormatFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != formatPlayer {
		return exportNetwork(*format, fs, *ckpt, *out, meta, args, s)
	}
	if *ckpt == "" || *out == "" {
		return usageErr("--checkpoint and --out are required")
	}
	if _, ok := meta[exportCommandKey]; ok {
		return usageErr("--meta %s: export writes that entry itself", exportCommandKey)
	}
	meta[exportCommandKey] = commandLine("export", args)
	// --simulations (--sims) is the search setting simulations, so that an
	// explicit 0 (no limit, for a timed player) is not taken for "the
	// run's setting".
	if flagGiven(fs, "simulations") {
		if _, dup := search["simulations"]; dup {
			return usageErr("--simulations (--sims) and --search simulations=: give the simulations once")
		}
		search["simulations"] = strconv.Itoa(*sims)
	}
	if err := refuseOverwrite(*out, "--out "+*out+" exists", "--out"); err != nil {
		return err
	}
	if err := train.Export(*ckpt, *out, train.ExportOptions{Search: search, Meta: meta, Warn: s.err}); err != nil {
		if errors.Is(err, train.ErrReservedMeta) || errors.Is(err, train.ErrBadSearch) {
			return usageErr("%v", err)
		}
		return checkpointErr(err, *ckpt)
	}
	fmt.Fprintf(s.out, "exported %s to %s\n", *ckpt, *out)
	return nil
}

// checkpointErr names export's --checkpoint in an error about the path
// it gave, "--checkpoint PATH: no such file or directory" (status 2);
// other errors it returns as they are.
func checkpointErr(err error, ckpt string) error {
	var named *train.ModelError
	if errors.As(err, &named) && named.Path == ckpt {
		return usageErr("--checkpoint %s: %v", named.Path, named.Err)
	}
	return err
}

// keyValues returns a flag function that adds KEY=VALUE entries to m,
// each key once.
func keyValues(m map[string]string) func(string) error {
	return func(text string) error {
		k, v, ok := strings.Cut(text, "=")
		if text == "" {
			return errors.New("empty: want KEY=VALUE")
		}
		if !ok || k == "" || strings.TrimSpace(k) != k {
			return fmt.Errorf("%q: want KEY=VALUE", text)
		}
		if _, dup := m[k]; dup {
			return fmt.Errorf("key %s given twice", k)
		}
		m[k] = v
		return nil
	}
}

// exportCommandKey is the metadata entry of an exported player that holds
// the export command.
const exportCommandKey = "export_command"

func runInspect(args []string, s stdio) error {
	fs := newFlags("inspect", "inspect [FILE|DIR]\n\nDescribes a checkpoint (ckpt-N.dsck), a network file (nets/net-N.dsnn), an\nexported player or a run directory (its latest complete checkpoint), read whole with its checksum: kind, architecture,\nparameters, training steps, encoding version, zeroed units (weights all\nnear zero), metadata (iteration, run, rating, how it was made...), search settings; for a checkpoint also its\niteration, replay buffer and config name. One \"key: value\" a line.\nThe other files of a run too: metrics.jsonl (its iterations, the last\none's figures, the latest evaluation), config.yaml (the config's name,\ntarget and key settings) and the PNG charts (what each shows).\nWithout FILE, the built-in player (the az player without a model).", s)
	files := 1
	if len(args) == 0 {
		files = 0
	}
	if err := parseFlagsArgs(fs, args, files); err != nil {
		return err
	}
	info, err := train.Inspect(fs.Arg(0))
	if err != nil {
		return err
	}
	for _, skipped := range info.Skipped {
		fmt.Fprintln(s.err, "warning: skipped damaged checkpoint "+skipped)
	}
	info.WriteText(s.out)
	return nil
}

package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/deathstacks/deathstacks/train/distributed"
)

func runActor(args []string, s stdio) error {
	fs := newFlags("actor", "actor --connect URL [--token T | --nats-creds FILE] [--tls-ca FILE] [--parallel-games N] [--workers N]\n      [--simulate N --rate GAMES_PER_SEC --duration D [--real-games K]]\n\nPlays self-play games for a training run on another machine (deathstacks train\n--listen or --nats): fetches the run's config and network, plays with the run's\nsearch settings, sends every finished game and switches to each new network.\nIt waits for the learner when it is away, keeping finished games to send later.\nCtrl-C or SIGTERM stops it at once: games in progress are dropped, finished\nones get half a second to reach the server (status 130 or 143). With a learner speaking TLS,\n--tls-ca names the certificate to trust, else the system's trust store is used.\n\nWith --simulate N, a load generator instead: it plays K real games, then N\nsimulated actors send them again, each time as a new game of their own (its own\nid, the current network), GAMES_PER_SEC together for D, as real actors send\ngames; its last line is \"M games acknowledged\" (by the server).", s)
	url := fs.String("connect", "", "the learner's NATS URL, as its actor line prints it")
	token := fs.String("token", "", "the learner's token, as its actor line prints it")
	creds := fs.String("nats-creds", "", "a NATS credentials file (an existing cluster) instead of --token")
	ca := fs.String("tls-ca", "", "the certificate (authority) of a learner that speaks TLS")
	parallel := fs.Int("parallel-games", 0, "games in flight (default: the run's selfplay.parallel_games)")
	workers := fs.Int("workers", 0, "goroutines running the network (default: the run's server.workers)")
	simulate := fs.Int("simulate", 0, "run N simulated actors (a load generator) instead of playing")
	rate := fs.Float64("rate", 0, "with --simulate: the games a second the simulated actors send together")
	duration := fs.Duration("duration", 0, "with --simulate: how long they send games, such as 2m")
	realGames := fs.Int("real-games", 16, "with --simulate: the real games played first and sent again")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *url == "":
		return usageErr("--connect is required")
	case *token != "" && *creds != "":
		return usageErr("--token and --nats-creds exclude each other")
	case *parallel < 0 || *workers < 0:
		return usageErr("--parallel-games and --workers must be 0 or more")
	case *simulate < 0:
		return usageErr("--simulate must be 0 or more")
	case *simulate == 0 && (flagGiven(fs, "rate") || flagGiven(fs, "duration") || flagGiven(fs, "real-games")):
		return usageErr("--rate, --duration and --real-games go with --simulate")
	case *simulate > 0 && (!(*rate > 0) || *duration <= 0 || *realGames < 1):
		return usageErr("--simulate needs --rate above 0, --duration above 0 and --real-games of 1 or more")
	}
	conn := distributed.ConnectOptions{URL: *url, Token: *token, CredsFile: *creds, CAFile: *ca}
	if *simulate > 0 {
		return runSimulate(distributed.SimulateOptions{
			ConnectOptions: conn, Actors: *simulate, Rate: *rate, Duration: *duration,
			Games: *realGames, ParallelGames: *parallel, Workers: *workers, Log: s.out,
		}, s)
	}
	ctx, release := onStop(s, "the games in progress are dropped, finished ones get half a second to reach the learner")
	defer release()
	err := distributed.RunActor(ctx, distributed.ActorOptions{
		ConnectOptions: conn, ParallelGames: *parallel, Workers: *workers, Log: s.out,
	})
	var stopped stopSignal
	switch {
	case errors.Is(err, distributed.ErrRefused):
		return usageErr("%v", err)
	case ctx.Err() != nil && (err == nil || errors.As(err, &stopped)):
		return stoppedError(ctx, "", "")
	}
	return err
}

// runSimulate runs the load generator of actor --simulate; its last line
// says how many games the server acknowledged.
func runSimulate(o distributed.SimulateOptions, s stdio) error {
	ctx, release := onStop(s, "the simulated actors stop making games, those queued get half a second")
	defer release()
	res, err := distributed.Simulate(ctx, o)
	switch {
	case errors.Is(err, distributed.ErrRefused):
		return usageErr("%v", err)
	case err != nil && ctx.Err() == nil:
		return err
	}
	if err == nil {
		fmt.Fprintf(s.out, "%.0f games acknowledged per second over %.1fs\n", float64(res.Acknowledged)/res.Elapsed.Seconds(), res.Elapsed.Round(100*time.Millisecond).Seconds())
		fmt.Fprintf(s.out, "%d games acknowledged\n", res.Acknowledged)
	}
	if ctx.Err() != nil {
		return stoppedError(ctx, "", "")
	}
	return nil
}

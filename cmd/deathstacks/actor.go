package main

import (
	"errors"

	"github.com/deathstacks/deathstacks/train/distributed"
)

func runActor(args []string, s stdio) error {
	fs := newFlags("actor", "actor --connect URL [--token T | --nats-creds FILE] [--tls-ca FILE] [--parallel-games N] [--workers N]\n\nPlays self-play games for a training run on another machine (deathstacks train\n--listen or --nats): fetches the run's config and network, plays with the run's\nsearch settings, sends every finished game and switches to each new network.\nIt waits for the learner when it is away, keeping finished games to send later.\nCtrl-C or SIGTERM stops it at once: games in progress are dropped, finished\nones get half a second to reach the server (status 130 or 143). With a learner speaking TLS,\n--tls-ca names the certificate to trust, else the system's trust store is used.", s)
	url := fs.String("connect", "", "the learner's NATS URL, as its actor line prints it")
	token := fs.String("token", "", "the learner's token, as its actor line prints it")
	creds := fs.String("nats-creds", "", "a NATS credentials file (an existing cluster) instead of --token")
	ca := fs.String("tls-ca", "", "the certificate (authority) of a learner that speaks TLS")
	parallel := fs.Int("parallel-games", 0, "games in flight (default: the run's selfplay.parallel_games)")
	workers := fs.Int("workers", 0, "goroutines running the network (default: the run's server.workers)")
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
	}
	ctx, release := onStop(s, "the games in progress are dropped, finished ones get half a second to reach the learner")
	defer release()
	err := distributed.RunActor(ctx, distributed.ActorOptions{
		ConnectOptions: distributed.ConnectOptions{URL: *url, Token: *token, CredsFile: *creds, CAFile: *ca},
		ParallelGames:  *parallel, Workers: *workers, Log: s.out,
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

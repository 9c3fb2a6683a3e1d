package main

import (
	"context"
	"fmt"

	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/distributed"
	"github.com/deathstacks/deathstacks/train/distributed/natsserver"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

// fleetFlags are the flags of train for actors on other machines.
type fleetFlags struct {
	listen, tlsCert, tlsKey string
	nats, creds             string
	noSelfPlay              bool
}

func (f *fleetFlags) on() bool { return f.listen != "" || f.nats != "" }

func (f *fleetFlags) check() error {
	switch {
	case f.listen != "" && f.nats != "":
		return usageErr("--listen and --nats exclude each other: start a server here, or use one")
	case (f.tlsCert != "" || f.tlsKey != "") && (f.listen == "" || f.tlsCert == "" || f.tlsKey == ""):
		return usageErr("--tls-cert and --tls-key go together, with --listen")
	case f.creds != "" && f.nats == "":
		return usageErr("--nats-creds needs --nats")
	case f.noSelfPlay && !f.on():
		return usageErr("--no-selfplay needs --listen or --nats: someone has to play")
	}
	return nil
}

// start starts or joins the NATS server and hooks the learner into opts;
// stop undoes it.
func (f *fleetFlags) start(ctx context.Context, cfg runconfig.Config, opts *train.RunOptions, s stdio) (stop func(), err error) {
	var undo []func()
	stop = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	conn := distributed.ConnectOptions{URL: f.nats, CredsFile: f.creds, Name: "deathstacks learner"}
	if f.listen != "" {
		srv, err := natsserver.Start(natsserver.Options{Addr: f.listen, RunDir: opts.Dir, TLSCert: f.tlsCert, TLSKey: f.tlsKey})
		if err != nil {
			return stop, err
		}
		undo = append(undo, srv.Close)
		fmt.Fprintf(s.out, "NATS server on %s; on each machine that should play, run:\n%s\n", srv.URL, commandLine("actor", []string{"--connect", srv.URL, "--token", srv.Token}))
		conn.URL, conn.Token = srv.URL, srv.Token
		if f.tlsCert != "" {
			conn.CAFile = f.tlsCert // a self-signed certificate is its own authority
		}
	}
	nc, err := distributed.Connect(ctx, conn)
	if err != nil {
		return stop, err
	}
	undo = append(undo, nc.Close)
	id, err := natsserver.RunID(opts.Dir)
	if err != nil {
		return stop, err
	}
	l, err := distributed.NewLearner(ctx, nc, cfg, id, s.out)
	if err != nil {
		return stop, err
	}
	undo = append(undo, func() { l.Close() })
	opts.Remote, opts.OnNetwork, opts.NoSelfPlay = l, l.Publish, f.noSelfPlay
	return stop, nil
}

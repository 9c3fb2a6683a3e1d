package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/deathstacks/deathstacks/train/web"
)

func runServe(args []string, s stdio) error {
	fs := newFlags("serve", "serve [--addr 127.0.0.1:8080] [--player SPEC ...] [--run DIR ...] [--games DIR ...]\n\n"+
		"Serves the web application: play the players, analyse positions (with the\n"+
		"network of the first az player), replay evaluation and ladder games, watch\n"+
		"training runs. It runs until Ctrl-C (or SIGTERM) stops it (status 130 or 143).", s)
	addr := fs.String("addr", "127.0.0.1:8080", "the address to listen on (host:port); a non-loopback host is reachable from other machines")
	var playerSpecs, runs, games stringList
	fs.Var(&playerSpecs, "player", "a player to offer, repeatable (default "+fmt.Sprint(web.DefaultPlayers)+"); "+specFlagHelp)
	fs.Var(&runs, "run", "a training run directory to watch, repeatable")
	fs.Var(&games, "games", "an eval or ladder folder (or a games.jsonl file) to replay, repeatable")
	seed := fs.Uint64("seed", 1, "the seed of the first game's player; each new game takes the next")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(*addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return usageErr("--addr %q: %v", *addr, err)
	}
	srv, err := web.New(web.Options{Players: playerSpecs, Runs: runs, Games: games, Seed: *seed, Log: s.err})
	if err != nil {
		return usageErr("%v", err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if !isLoopback(host) {
		fmt.Fprintf(s.err, "warning: %s is not a loopback address: other machines can reach this server\n", *addr)
	}
	fmt.Fprintf(s.out, "serving on http://%s/ (Ctrl-C stops)\n", ln.Addr())
	ctx, release := onStop(s, "the requests under way get a few seconds to finish")
	defer release()
	if err := serve(ctx, ln, srv.Handler()); err != nil {
		return err
	}
	return stoppedError(ctx, "", "")
}

// serve answers requests on ln until ctx ends, then gives the requests
// under way a few seconds to finish.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// isLoopback reports whether a listening host stays on this machine: a
// loopback IP or "localhost". An empty host listens everywhere.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

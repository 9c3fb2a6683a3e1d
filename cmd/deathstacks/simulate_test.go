package main

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/distributed"
	"github.com/deathstacks/deathstacks/train/distributed/natsserver"
	"github.com/deathstacks/deathstacks/train/runconfig"
)

func TestActorSimulateFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"rate alone", []string{"--rate", "10"}, "go with --simulate"},
		{"duration alone", []string{"--duration", "1s"}, "go with --simulate"},
		{"no rate", []string{"--simulate", "10", "--duration", "1s"}, "--rate above 0"},
		{"no duration", []string{"--simulate", "10", "--rate", "5"}, "--duration above 0"},
		{"no real games", []string{"--simulate", "10", "--rate", "5", "--duration", "1s", "--real-games", "0"}, "--real-games of 1 or more"},
		{"negative", []string{"--simulate", "-1"}, "--simulate must be 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runBotCLI("", append([]string{"actor", "--connect", "nats://127.0.0.1:1"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("status %d, stderr %q: want 2 and %q", code, firstLine(errOut), tc.want)
			}
		})
	}
}

// TestActorSimulate runs the load generator against a learner: its last
// line counts the games the server acknowledged.
func TestActorSimulate(t *testing.T) {
	dir := t.TempDir()
	cfg, err := runconfig.Parse(configs.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := natsserver.Start(natsserver.Options{Addr: "127.0.0.1:0", RunDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := distributed.Connect(context.Background(), distributed.ConnectOptions{URL: srv.URL, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l, err := distributed.NewLearner(context.Background(), nc, cfg, "simulate-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	net, err := model.New(cfg.Model, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Publish(0, net); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runBotCLI("", "actor", "--connect", srv.URL, "--token", srv.Token,
		"--simulate", "5", "--rate", "40", "--duration", "1s", "--real-games", "2", "--workers", "1")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || lines[len(lines)-1] != "40 games acknowledged" {
		t.Errorf("status %d, output:\n%s\nstderr %q: want 0 and the last line \"40 games acknowledged\"", code, out, errOut)
	}
}

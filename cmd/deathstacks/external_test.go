package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eval rates external programs: the deathstacks bot itself, which plays
// its games out, and programs that hang, exit, answer garbage or flood
// their output, which lose every game with the reason recorded while the
// round robin goes on.
func TestEvalExternalPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs programs")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "out")
	out, errOut, code := runBotCLI("", "eval",
		"--player", "bot=cmd:'"+bin+"' bot --player greedy",
		"--player", "random",
		"--player", "hang=cmd(timeout=50ms):sleep 1000",
		"--player", "crash=cmd:false",
		"--player", "garbage=cmd:yes hello",
		"--player", "flood=cmd:cat /dev/zero",
		"--games", "2", "--parallel", "2", "--max-plies", "60", "--out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Forfeits: ") || !hasRow(out, "hang", "random", "timeout", "2") {
		t.Errorf("output lacks the forfeits table:\n%s", out)
	}
	var res struct {
		Players []struct {
			Name string `json:"name"`
			Spec string `json:"spec"`
		} `json:"players"`
		Pairs []struct {
			A         string         `json:"a"`
			B         string         `json:"b"`
			Games     int            `json:"games"`
			ForfeitsA map[string]int `json:"forfeits_a"`
			ForfeitsB map[string]int `json:"forfeits_b"`
		} `json:"pairs"`
	}
	readJSON(t, filepath.Join(dir, "results.json"), &res)
	specs := map[string]string{}
	for _, p := range res.Players {
		specs[p.Name] = p.Spec
	}
	if specs["hang"] != "cmd(timeout=50ms):sleep 1000" || specs["bot"] != "cmd:'"+bin+"' bot --player greedy" {
		t.Errorf("specs %v", specs)
	}
	// Each failing program loses both its games against each opponent, by
	// its reason; the bot and random lose none that way.
	reason := map[string]string{"hang": "timeout", "crash": "program exited", "garbage": "malformed move", "flood": "malformed move"}
	if len(res.Pairs) != 15 {
		t.Fatalf("%d pairs, want 15", len(res.Pairs))
	}
	for _, p := range res.Pairs {
		total := 0
		for _, side := range []struct {
			name     string
			forfeits map[string]int
		}{{p.A, p.ForfeitsA}, {p.B, p.ForfeitsB}} {
			for r, n := range side.forfeits {
				total += n
				if r != reason[side.name] {
					t.Errorf("pair %s-%s: %s lost %d by %q", p.A, p.B, side.name, n, r)
				}
			}
		}
		// Between two failing programs, the one to move loses each game.
		if failing := reason[p.A] != "" || reason[p.B] != ""; failing && total != 2 || !failing && total != 0 {
			t.Errorf("pair %s-%s: forfeits %v and %v", p.A, p.B, p.ForfeitsA, p.ForfeitsB)
		}
	}
	games, err := os.ReadFile(filepath.Join(dir, "games.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	botGames := 0
	for _, line := range strings.Split(strings.TrimSpace(string(games)), "\n") {
		var g struct {
			Red, Blue, Reason, Detail string
			Moves                     []string
		}
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		if g.Red == "bot" && g.Blue == "random" || g.Red == "random" && g.Blue == "bot" {
			botGames++
			if g.Detail != "" || len(g.Moves) < 2 {
				t.Errorf("bot against random: %+v: want a game played out", g)
			}
		}
		if g.Reason == "program exited" && !strings.Contains(g.Detail, "exit status 1") {
			t.Errorf("game %+v: want the exit status in the detail", g)
		}
	}
	if botGames != 2 {
		t.Errorf("%d games of bot against random, want 2", botGames)
	}
}

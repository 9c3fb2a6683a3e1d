package train

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

// forcedWin is a position of a real game in which the side to move has a
// forced win of plies plies, proven by alpha-beta.
type forcedWin struct {
	fen    string
	plies  int
	source string
}

// readForcedWins reads testdata/forced-wins.tsv: a position a line, as its
// FEN, the plies of its shortest win and where it comes from, separated
// by tabs; lines starting with # are comments.
func readForcedWins(t *testing.T) []forcedWin {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "forced-wins.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wins []forcedWin
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		plies, err := strconv.Atoi(fields[min(1, len(fields)-1)])
		if len(fields) != 3 || err != nil || plies < 1 || plies%2 == 0 {
			t.Fatalf("forced-wins.tsv:%d: %q: want FEN, odd plies and source, tab-separated", n, line)
		}
		wins = append(wins, forcedWin{fields[0], plies, fields[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return wins
}

// builtinPlayer is the built-in player at 200 simulations a move without
// its time limit, so that what it plays does not depend on the machine.
func builtinPlayer(t *testing.T, seed uint64) *mcts.PUCTPlayer {
	t.Helper()
	tr, err := loadTrained("")
	if err != nil {
		t.Fatal(err)
	}
	cfg := tr.search
	cfg.Simulations, cfg.Time = 200, 0
	p, err := mcts.NewPUCTPlayer(tr.net, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// provenLoss reports whether alpha-beta proves the side to move of g lost
// within plies plies.
func provenLoss(t *testing.T, g *env.Game, plies int) bool {
	t.Helper()
	ab, err := players.NewAlphaBetaPlayer(players.AlphaBetaConfig{Depth: plies}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ab.Choose(g)
	if err != nil {
		t.Fatal(err)
	}
	return d.Score <= -(env.WinMaterial - plies)
}

func TestBuiltinPlayerConvertsForcedWins(t *testing.T) {
	// Positions of the project's own eval games in which alpha-beta
	// proves a forced win: the built-in player at 200 simulations makes
	// progress in each (its move wins, or leaves the opponent proven lost
	// in fewer plies), and plays each out to the win against
	// alphabeta:depth=4 within the plies of the shortest win.
	for _, fw := range readForcedWins(t) {
		t.Run(fw.source, func(t *testing.T) {
			pos, err := env.ParseFEN(fw.fen)
			if err != nil {
				t.Fatal(err)
			}
			g := env.NewGameFrom(pos, env.DefaultRules())
			az := builtinPlayer(t, 1)
			d, err := az.Choose(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Play(d.Move); err != nil {
				t.Fatal(err)
			}
			if w, won := g.Status().Winner(); won && w == pos.SideToMove() {
				return
			}
			if fw.plies == 1 || !provenLoss(t, g, fw.plies-1) {
				t.Fatalf("%s: played %v (value %.3f, pv %v): want a move that leaves the opponent lost within %d plies", fw.fen, d.Move, d.Value, d.PV, fw.plies-1)
			}
			ab, err := players.NewAlphaBetaPlayer(players.AlphaBetaConfig{Depth: 4}, 1)
			if err != nil {
				t.Fatal(err)
			}
			for turn := 1; !g.Status().Over(); turn++ {
				var p mcts.Player = az
				if turn%2 == 1 {
					p = ab
				}
				d, err := p.Choose(g)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Play(d.Move); err != nil {
					t.Fatal(err)
				}
			}
			if w, won := g.Status().Winner(); !won || w != pos.SideToMove() || len(g.Moves()) > fw.plies {
				t.Errorf("%s: the game went %v after %d plies (%v): want a win within %d", fw.fen, g.Status(), len(g.Moves()), g.Moves(), fw.plies)
			}
		})
	}
}

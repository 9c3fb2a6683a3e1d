// Command forcedwins lists the positions of eval games (games.jsonl or
// games.partial.jsonl of `deathstacks eval`) in which the side to move
// has a forced win, as the root's win search finds it, and confirms those
// of up to -ab plies with alpha-beta at that depth: the source of
// ../forced-wins.tsv. One position a line: FEN, plies of the win,
// whether alpha-beta confirmed it (true, false, or - when not asked),
// the game, its result, the mover, the move played and the win's line.
//
//	go run ./train/testdata/forcedwins -ab 5 DIR/games.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
	"github.com/deathstacks/deathstacks/mcts/players"
)

type rec struct {
	StartFEN string   `json:"start_fen"`
	StartPly int      `json:"start_ply"`
	Moves    []string `json:"moves"`
	Result   string   `json:"result"`
	Reason   string   `json:"reason"`
	Red      string   `json:"red"`
	Blue     string   `json:"blue"`
}

func main() {
	maxAB := flag.Int("ab", 5, "confirm the wins of up to this many plies with alpha-beta")
	every := flag.Int("every", 1, "look at every Nth position of a game")
	flag.Parse()
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.Gumbel, cfg.WinSearchNodes = 1, false, 3_000_000
	seen := map[uint64]bool{}
	for _, file := range flag.Args() {
		f, err := os.Open(file)
		if err != nil {
			log.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<24), 1<<24)
		for gi := 0; sc.Scan(); gi++ {
			var r rec
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Result == "" {
				continue
			}
			p, err := env.ParseFEN(r.StartFEN)
			if err != nil {
				log.Fatal(err)
			}
			p.SetPly(r.StartPly)
			g := env.NewGameFrom(p, env.Rules{TooTall: true, MaxPlies: 300, RepetitionLimit: 3})
			for i, ms := range r.Moves {
				pos := g.Position()
				if i%*every == 0 && !seen[pos.Hash()] {
					seen[pos.Hash()] = true
					pl, _ := mcts.NewPUCTPlayer(mcts.UniformEvaluator{}, cfg, 1)
					fresh := env.NewGameFrom(pos, g.Rules())
					d, err := pl.Choose(fresh)
					if err == nil && d.Value == 1 && d.Depth > 0 {
						dist := d.Depth
						conf := "-"
						if dist <= *maxAB {
							ab, _ := players.NewAlphaBetaPlayer(players.AlphaBetaConfig{Depth: dist}, 1)
							ad, _ := ab.Choose(fresh)
							conf = fmt.Sprint(ad.Score == env.WinMaterial-dist)
						}
						mover := r.Red
						if pos.SideToMove() == env.Blue {
							mover = r.Blue
						}
						played := ""
						if i < len(r.Moves) {
							played = r.Moves[i]
						}
						fmt.Printf("%s\t%d\t%s\t%s:%d\t%s %s\t%s\tplayed %s\tpv %v\n", pos.FEN(), dist, conf, file, gi, r.Result, r.Reason, mover, played, d.PV)
					}
				}
				m, err := env.ParseMove(ms)
				if err != nil {
					log.Fatal(err)
				}
				if err := g.Play(m); err != nil {
					log.Fatal(err)
				}
			}
		}
	}
}

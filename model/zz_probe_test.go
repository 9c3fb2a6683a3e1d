package model

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model/internal/graph"
)

func TestZZActive(t *testing.T) {
	samples := samplePositions(seeded(7), 2000)
	for _, path := range strings.Fields(os.Getenv("NETS")) {
		n, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, w := n.cfg, n.weights
		ch := cfg.Channels
		active := make([]int, cfg.ValueHidden)
		planeActive := make([]int, cfg.ValuePlanes)
		for _, s := range samples {
			in := make([]float64, len(s.Obs))
			for i, x := range s.Obs {
				in[i] = float64(x)
			}
			h := refRelu(refConv(in, env.NumPlanes, w[0], ch, 3, w[1]))
			p := w[2:]
			for range cfg.Blocks {
				r := refRelu(refConv(h, ch, p[0], ch, 3, p[1]))
				r = refConv(r, ch, p[2], ch, 3, p[3])
				for i := range h {
					h[i] = max(h[i]+r[i], 0)
				}
				p = p[4:]
			}
			_ = graph.PolicyPlanes
			v := refRelu(refConv(h, ch, p[2], cfg.ValuePlanes, 1, p[3]))
			sq := len(v) / cfg.ValuePlanes
			for c := range cfg.ValuePlanes {
				for i := 0; i < sq; i++ {
					if v[c*sq+i] > 0 {
						planeActive[c]++
						break
					}
				}
			}
			for j := range cfg.ValueHidden {
				sum := float64(p[5][j])
				for q, x := range v {
					sum += x * float64(p[4][q*cfg.ValueHidden+j])
				}
				if sum > 0 {
					active[j]++
				}
			}
		}
		never, rare := 0, 0
		for _, a := range active {
			if a == 0 {
				never++
			} else if a < len(samples)/100 {
				rare++
			}
		}
		fmt.Printf("%s: fc1 never active %d, active <1%% %d of %d; value planes active in %v of %d positions\n", path, never, rare, cfg.ValueHidden, planeActive, len(samples))
	}
}

package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// browserPath finds headless Chromium: $DEATHSTACKS_CHROME, else the first
// of the usual names on the PATH. chromedp does not look for Debian's
// chromium-headless-shell by itself.
func browserPath() (string, bool) {
	if p := os.Getenv("DEATHSTACKS_CHROME"); p != "" {
		return p, true
	}
	for _, name := range []string{"chromium-headless-shell", "chromium", "headless-shell", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// TestBrowser drives the page in headless Chromium: one browser, a tab
// per subtest. It skips when no browser is installed, except in CI
// (CI=true), where it fails. With DEATHSTACKS_SCREENSHOTS=DIR it saves a
// screenshot of each view into DIR.
func TestBrowser(t *testing.T) {
	path, ok := browserPath()
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("no headless Chromium found (install chromium-headless-shell or set DEATHSTACKS_CHROME)")
		}
		t.Skip("no headless Chromium found: install chromium-headless-shell or set DEATHSTACKS_CHROME")
	}
	shots := os.Getenv("DEATHSTACKS_SCREENSHOTS")
	gamesDir, recs := testGames(t, 3)
	_, ts := startServer(t, Options{
		Players: []string{"random", "az:model=" + testNetwork(t) + ",sims=200", "greedy"},
		Runs:    []string{testRun(t, 12)},
		Games:   []string{gamesDir},
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1100, 750))
	// The browser, and so every tab's actions, end with the test's time
	// (testctx.Context): the subtests have no budgets of their own, which a
	// loaded machine could exceed, and one that hangs fails, with its name.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(testctx.Context(t), opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil { // start the browser once
		t.Fatal(err)
	}
	// tab opens the page in a new tab.
	tab := func(t *testing.T) context.Context {
		ctx, cancel := chromedp.NewContext(browserCtx)
		t.Cleanup(cancel)
		do(t, ctx,
			chromedp.EmulateViewport(1100, 750),
			chromedp.Navigate(ts.URL),
			wait(`document.body.dataset.ready === "1" && document.querySelectorAll("#board .sq").length === 36`),
		)
		t.Cleanup(func() {
			if msg := js[string](t, ctx, `document.getElementById("error").hidden ? "" : document.getElementById("error").textContent`); msg != "" {
				t.Errorf("the page shows an error: %s", msg)
			}
		})
		return ctx
	}
	screenshot := func(t *testing.T, ctx context.Context, name string) {
		if shots == "" {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("play a whole game by clicks", func(t *testing.T) {
		ctx := tab(t)
		do(t, ctx, chromedp.SetValue(chromedp.CSS("#player"), "random"), chromedp.Click(chromedp.CSS("#newgame")))
		do(t, ctx, wait(`S.game && S.game.to_move === "red" && S.interactive`))
		ref := env.NewGame(env.DefaultRules())
		checkBoard(t, ctx, ref)
		for ply := 0; ; ply++ {
			if ply > 300 {
				t.Fatal("the game did not end")
			}
			m := greedyMove(ref, ply)
			clickMove(t, ctx, m, ply == 2 && shots != "", func() { screenshot(t, ctx, "play.png") })
			if err := ref.Play(m); err != nil {
				t.Fatal(err)
			}
			want := len(ref.Moves()) + 1
			if ref.Status().Over() {
				want--
			}
			do(t, ctx, wait(fmt.Sprintf(`S.game && !S.busy && (S.game.moves || []).length >= %d`, want)))
			moves := js[[]string](t, ctx, `S.game.moves`)
			for _, text := range moves[len(ref.Moves()):] {
				mv, err := env.ParseMove(text)
				if err != nil {
					t.Fatal(err)
				}
				if err := ref.Play(mv); err != nil {
					t.Fatalf("the engine's move %s: %v", text, err)
				}
			}
			checkBoard(t, ctx, ref)
			if ref.Status().Over() {
				break
			}
		}
		banner := js[string](t, ctx, `document.getElementById("banner").hidden ? "" : document.getElementById("banner").textContent`)
		if w, ok := ref.Status().Winner(); !ok || !strings.Contains(strings.ToLower(banner), w.String()+" wins") {
			t.Errorf("banner %q at the end, status %v", banner, ref.Status())
		}
		if list := js[string](t, ctx, `document.getElementById("movelist").value`); !strings.HasPrefix(list, "1. "+ref.Moves()[0].String()) {
			t.Errorf("move list %q", list)
		}
		screenshot(t, ctx, "play-over.png")
	})

	t.Run("undo", func(t *testing.T) {
		ctx := tab(t)
		do(t, ctx, chromedp.SetValue(chromedp.CSS("#player"), "greedy"), chromedp.Click(chromedp.CSS("#newgame")))
		do(t, ctx, wait(`S.game && S.interactive`))
		ref := env.NewGame(env.DefaultRules())
		clickMove(t, ctx, greedyMove(ref, 0), false, nil)
		do(t, ctx, wait(`S.game && !S.busy && (S.game.moves || []).length === 2`))
		do(t, ctx, chromedp.Click(chromedp.CSS("#undo")), wait(`S.game && !(S.game.moves || []).length && S.interactive`))
		checkBoard(t, ctx, ref)
	})

	t.Run("click to reply at 200 simulations", func(t *testing.T) {
		ctx := tab(t)
		// The network player is the second of the server's players.
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("player").selectedIndex = 1`), chromedp.Click(chromedp.CSS("#newgame")))
		ref := env.NewGame(env.DefaultRules())
		var total float64
		const moves = 3
		for i := range moves {
			do(t, ctx, wait(`S.game && S.interactive`))
			clickMove(t, ctx, greedyMove(ref, i), false, nil)
			do(t, ctx, wait(fmt.Sprintf(`S.game && !S.busy && (S.game.moves || []).length === %d`, 2*i+2)))
			for _, text := range js[[]string](t, ctx, `S.game.moves`)[len(ref.Moves()):] {
				mv, _ := env.ParseMove(text)
				if err := ref.Play(mv); err != nil {
					t.Fatal(err)
				}
			}
			total += js[float64](t, ctx, `S.replyMs`)
		}
		t.Logf("click to reply at 200 simulations: %.0f ms on average over %d moves", total/moves, moves)
		bytes := js[float64](t, ctx, `performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource")).filter(e => !e.name.includes("/api/")).reduce((s, e) => s + e.encodedBodySize, 0)`)
		t.Logf("page weight: %.0f bytes (HTML, CSS, JavaScript)", bytes)
		if bytes <= 0 || bytes > 100_000 {
			t.Errorf("page weight %v bytes", bytes)
		}
	})

	t.Run("analyse a position", func(t *testing.T) {
		ctx := tab(t)
		do(t, ctx, chromedp.Click(chromedp.CSS(`#tabs button[data-view="analyse"]`)),
			wait(`S.analysis && S.analysis.value !== null && document.querySelectorAll("#board .heat").length > 0`))
		ref := env.NewGame(env.DefaultRules())
		m := greedyMove(ref, 1)
		clickMove(t, ctx, m, false, nil)
		ref.Play(m)
		do(t, ctx, wait(`S.an.moves.length === 1 && S.analysis && S.pos.to_move === "blue"`))
		checkBoard(t, ctx, ref)
		do(t, ctx, chromedp.SetValue(chromedp.CSS("#sims"), "400"), chromedp.Click(chromedp.CSS("#search")),
			wait(`document.getElementById("searchinfo").dataset.done === "true"`))
		rows := js[[][]string](t, ctx, `[...document.querySelectorAll("#searchtable tbody tr")].map(tr => [...tr.cells].map(c => c.textContent))`)
		if len(rows) == 0 || len(rows[0]) != 5 || !strings.HasPrefix(rows[0][4], rows[0][0]) {
			t.Fatalf("search table %v", rows)
		}
		if info := js[string](t, ctx, `document.getElementById("searchinfo").textContent`); !strings.Contains(info, "400 simulations") || !strings.Contains(info, "network") {
			t.Errorf("search info %q", info)
		}
		screenshot(t, ctx, "analyse.png")
	})

	t.Run("replay", func(t *testing.T) {
		ctx := tab(t)
		do(t, ctx, chromedp.Click(chromedp.CSS(`#tabs button[data-view="replay"]`)),
			wait(`S.rp.data && document.querySelectorAll("#rpgame option").length === 3`))
		rec := recs[0]
		start, _ := env.ParseFEN(rec.StartFEN)
		start.SetPly(rec.StartPly)
		ref := env.NewGameFrom(start, env.DefaultRules())
		checkBoard(t, ctx, ref)
		for i := range 5 {
			do(t, ctx, chromedp.Click(chromedp.CSS("#rpnext")), wait(fmt.Sprintf(`S.rp.ply === %d && S.analysis`, i+1)))
			mv, _ := env.ParseMove(rec.Moves[i])
			ref.Play(mv)
			checkBoard(t, ctx, ref)
		}
		screenshot(t, ctx, "replay.png")
	})

	t.Run("a run's charts", func(t *testing.T) {
		ctx := tab(t)
		do(t, ctx, chromedp.Click(chromedp.CSS(`#tabs button[data-view="runs"]`)),
			wait(`document.getElementById("charts").dataset.iterations === "12" && !document.getElementById("chart-ladder").hidden`))
		// Every chart has drawn lines: count its coloured pixels.
		for _, id := range []string{"chart-loss", "chart-speed", "chart-length", "chart-elo", "chart-ladder"} {
			n := js[int](t, ctx, fmt.Sprintf(`(() => { const c = document.getElementById(%q); const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i+3] && Math.max(d[i], d[i+1], d[i+2]) - Math.min(d[i], d[i+1], d[i+2]) > 80) n++; return n; })()`, id))
			if n < 200 {
				t.Errorf("%s: %d coloured pixels, no curve drawn", id, n)
			}
		}
		screenshot(t, ctx, "runs.png")
	})
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// js evaluates an expression in the page.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// wait polls a JavaScript condition of the page until it holds, with no
// timeout of its own (chromedp's default is 30 seconds): the tab's context
// ends with the test's time.
func wait(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(0))
}

// clickMove plays m by clicks: its stack, then its target, then the count
// if several reach the target. between runs after the first click, when
// the targets are highlighted.
func clickMove(t *testing.T, ctx context.Context, m env.Move, shoot bool, between func()) {
	t.Helper()
	do(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`.sq[data-sq=%q]`, m.From))),
		wait(fmt.Sprintf(`document.querySelector('.sq.sel[data-sq=%q]') && document.querySelector('.sq.tgt[data-sq=%q]')`, m.From, m.To)))
	if shoot {
		between()
	}
	counts := js[string](t, ctx, fmt.Sprintf(`document.querySelector('.sq[data-sq=%q]').dataset.counts`, m.To))
	do(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`.sq[data-sq=%q]`, m.To))))
	if strings.Contains(counts, ",") {
		do(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#chooser button[data-count="%d"]`, m.Count))))
	}
}

// checkBoard reads every square of the board as drawn, its pieces from the
// top down and its height label, and compares them with g's position.
func checkBoard(t *testing.T, ctx context.Context, g *env.Game) {
	t.Helper()
	drawn := js[map[string][]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#board .sq")].map(e =>
		[e.dataset.sq, [[...e.querySelectorAll(".pc")].map(p => p.classList.contains("r") ? "r" : "b").join(""), (e.querySelector(".ht") || {}).textContent || ""]]))`)
	p := g.Position()
	for sq := range env.Square(env.NumSquares) {
		st := p.At(sq)
		want := []string{st.String(), ""}
		if !st.Empty() {
			want[1] = fmt.Sprint(st.Height())
		}
		if got := drawn[sq.String()]; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("after %v: %v drawn as %v, want %v", g.Moves(), sq, got, want)
		}
	}
}

// greedyMove picks the legal move that leaves the mover the most material,
// ties broken by ply, so that games end soon and differ.
func greedyMove(g *env.Game, ply int) env.Move {
	moves := g.LegalMoves(nil)
	start := g.Position()
	side := start.SideToMove()
	best, bestScore := moves[ply%len(moves)], -1<<62
	for i := range moves {
		m := moves[(i+ply)%len(moves)]
		p := g.Position()
		p.Apply(m)
		if s := p.Material(side); s > bestScore {
			best, bestScore = m, s
		}
	}
	return best
}

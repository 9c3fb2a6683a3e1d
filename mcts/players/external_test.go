package players

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/env"
)

// fakeEngine is the first argument that makes the test binary a fake
// engine (see runFakeEngine) instead of running the tests.
const fakeEngine = "fake-engine"

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == fakeEngine {
		os.Exit(runFakeEngine(os.Args[2]))
	}
	code := m.Run()
	if builtBot.dir != "" {
		os.RemoveAll(builtBot.dir)
	}
	os.Exit(code)
}

// runFakeEngine plays the bot protocol as the mode says, badly but for
// "first", and returns the exit status.
func runFakeEngine(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	if mode == "exit" {
		return 0
	}
	for in.Scan() {
		switch mode {
		case "first": // the first legal move
			fields := strings.Fields(in.Text())
			pos, err := env.ParseFEN(fields[0] + " " + fields[1])
			var moves []string
			if len(fields) > 3 {
				moves = fields[3:]
			}
			g, err2 := env.PlayMoves(pos, env.DefaultRules(), moves)
			if err != nil || err2 != nil {
				fmt.Fprintln(os.Stderr, err, err2)
				return 2
			}
			fmt.Println(g.LegalMoves(nil)[0])
		case "crash":
			fmt.Fprintln(os.Stderr, "boom")
			return 3
		case "hang":
			time.Sleep(time.Hour)
		case "orphan": // a child that holds the output open, named in a malformed answer
			child := exec.Command(os.Args[0], fakeEngine, "hang")
			child.Stdout = os.Stdout
			if err := child.Start(); err != nil {
				return 2
			}
			fmt.Println("child", child.Process.Pid)
			time.Sleep(time.Hour)
		case "illegal": // a move of the right form from an empty square
			fmt.Println("a3-1-a4")
		case "garbage":
			fmt.Println("hello there")
		case "flood":
			os.Stdout.WriteString(strings.Repeat("x", 1<<20))
			time.Sleep(time.Hour)
		}
	}
	return 0
}

// fakeArgv returns the command line of a fake engine.
func fakeArgv(t *testing.T, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, fakeEngine, mode}
}

// builtBot is the deathstacks command, built once for the tests that
// play it.
var builtBot struct {
	once sync.Once
	dir  string
	err  error
}

// deathstacksBinary builds the deathstacks command once per test process.
func deathstacksBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the deathstacks command")
	}
	builtBot.once.Do(func() {
		if builtBot.dir, builtBot.err = os.MkdirTemp("", "deathstacks-bot-*"); builtBot.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(builtBot.dir, "deathstacks"), "github.com/deathstacks/deathstacks/cmd/deathstacks").CombinedOutput()
		if err != nil {
			builtBot.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtBot.err != nil {
		t.Fatal(builtBot.err)
	}
	return filepath.Join(builtBot.dir, "deathstacks")
}

// reaped reports whether the player's program has been waited for.
func reaped(p *ExternalPlayer) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.proc == nil || p.proc.cmd.ProcessState != nil
}

// A program that fails a move fails it with the error of its kind, is
// reaped, and is not asked again; one that answers an illegal move in
// notation has it returned.
func TestExternalPlayerFailures(t *testing.T) {
	cases := []struct {
		mode    string
		timeout time.Duration
		want    error
		detail  []string
	}{
		{mode: "crash", want: ErrProgramExited, detail: []string{"exit status 3", "its standard error ends: boom"}},
		{mode: "exit", want: ErrProgramExited},
		{mode: "hang", timeout: 50 * time.Millisecond, want: ErrMoveTimeout, detail: []string{"50ms"}},
		{mode: "orphan", want: ErrMalformedAnswer, detail: []string{`"child `}},
		{mode: "garbage", want: ErrMalformedAnswer, detail: []string{`"hello there"`}},
		{mode: "flood", want: ErrMalformedAnswer, detail: []string{"a line longer than 4095 bytes"}},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			cfg := ExternalConfig{Timeout: time.Minute}
			if tc.timeout > 0 {
				cfg.Timeout = tc.timeout
			}
			p, err := NewExternalPlayer(fakeArgv(t, tc.mode), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			g := env.NewGame(env.DefaultRules())
			_, err = p.Choose(g)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v: want %v", err, tc.want)
			}
			for _, part := range tc.detail {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
			if !reaped(p) {
				t.Error("the program is not reaped after failing")
			}
			if _, err := p.Choose(g); !errors.Is(err, ErrProgramExited) {
				t.Errorf("second move: error %v, want %v", err, ErrProgramExited)
			}
		})
	}
	t.Run("illegal", func(t *testing.T) {
		p, err := NewExternalPlayer(fakeArgv(t, "illegal"), ExternalConfig{Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		g := env.NewGame(env.DefaultRules())
		d, err := p.Choose(g)
		if err != nil {
			t.Fatal(err)
		}
		if d.Move.String() != "a3-1-a4" || g.Play(d.Move) == nil {
			t.Errorf("move %v: want a3-1-a4, refused by the game", d.Move)
		}
	})
}

// The process group dies with the program: a child it started that holds
// its output open is killed too.
func TestExternalPlayerKillsItsGroup(t *testing.T) {
	p, err := NewExternalPlayer(fakeArgv(t, "orphan"), ExternalConfig{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Choose(env.NewGame(env.DefaultRules()))
	if !errors.Is(err, ErrMalformedAnswer) {
		t.Fatalf("error %v: want a malformed answer", err)
	}
	_, answer, _ := strings.Cut(err.Error(), `"child `)
	var child int
	if _, scanErr := fmt.Sscanf(answer, "%d", &child); scanErr != nil {
		t.Fatalf("error %q names no child: %v", err, scanErr)
	}
	// The child, a process of the killed group, ends (it may stay a
	// zombie for a moment until its new parent reaps it).
	for !gone(child) {
		time.Sleep(10 * time.Millisecond)
	}
}

// gone reports whether the process pid has ended: it does not exist, or
// it is a zombie.
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(after, "Z") || strings.HasPrefix(after, "X")
}

// Close stops a program that is being asked for a move, and the move
// fails at once.
func TestExternalPlayerCloseWhileChoosing(t *testing.T) {
	p, err := NewExternalPlayer(fakeArgv(t, "hang"), ExternalConfig{Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := p.Choose(env.NewGame(env.DefaultRules()))
		done <- err
	}()
	for {
		p.mu.Lock()
		started := p.proc != nil
		p.mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrProgramExited) {
		t.Errorf("error %v: want %v", err, ErrProgramExited)
	}
	if !reaped(p) {
		t.Error("the program is not reaped after Close")
	}
	if _, err := p.Choose(env.NewGame(env.DefaultRules())); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Choose after Close: %v, want an error saying the player is closed", err)
	}
}

// A player dropped without Close stops its program once collected.
func TestExternalPlayerCollected(t *testing.T) {
	p, err := NewExternalPlayer(fakeArgv(t, "first"), ExternalConfig{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Choose(env.NewGame(env.DefaultRules())); err != nil {
		t.Fatal(err)
	}
	pid := p.proc.cmd.Process.Pid
	p = nil
	for !gone(pid) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// Games against a program: the fake engine's first legal move, and the
// deathstacks bot itself, each to the end of a game against random, with
// the whole game on every line.
func TestExternalPlayerGames(t *testing.T) {
	cases := []struct {
		name string
		argv func(t *testing.T) []string
	}{
		{"first legal move", func(t *testing.T) []string { return fakeArgv(t, "first") }},
		{"deathstacks bot", func(t *testing.T) []string { return []string{deathstacksBinary(t), "bot", "--player", "greedy"} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewExternalPlayer(tc.argv(t), ExternalConfig{Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			rules := env.DefaultRules()
			rules.MaxPlies = 60
			g := env.NewGame(rules)
			random := NewRandomPlayer(7)
			for ply := 0; !g.Status().Over(); ply++ {
				var move env.Move
				if ply%2 == 0 {
					d, err := p.Choose(g)
					if err != nil {
						t.Fatalf("ply %d: %v", ply, err)
					}
					move = d.Move
				} else {
					d, err := random.Choose(g)
					if err != nil {
						t.Fatal(err)
					}
					move = d.Move
				}
				if err := g.Play(move); err != nil {
					t.Fatalf("ply %d: %v", ply, err)
				}
			}
			if err := p.Close(); err != nil || !reaped(p) {
				t.Errorf("Close: %v, reaped %v", err, reaped(p))
			}
		})
	}
}

func TestGameLine(t *testing.T) {
	g := env.NewGame(env.DefaultRules())
	start := g.Position()
	if got := gameLine(g); got != start.FEN() {
		t.Errorf("start: %q, want the FEN alone", got)
	}
	moves := g.LegalMoves(nil)
	if err := g.Play(moves[0]); err != nil {
		t.Fatal(err)
	}
	if got, want := gameLine(g), start.FEN()+" moves "+moves[0].String(); got != want {
		t.Errorf("after a move: %q, want %q", got, want)
	}
}

func TestNewExternalPlayerErrors(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		cfg  ExternalConfig
		want string
	}{
		{"no program", nil, ExternalConfig{Timeout: time.Second}, "no program given"},
		{"not found", []string{"./no-such-engine-here"}, ExternalConfig{Timeout: time.Second}, "no-such-engine-here"},
		{"no timeout", []string{"true"}, ExternalConfig{}, "timeout is 0s: want a duration above 0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewExternalPlayer(tc.argv, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v: want one containing %q", err, tc.want)
			}
		})
	}
}

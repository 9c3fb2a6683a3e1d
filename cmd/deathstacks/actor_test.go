package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deathstacks/deathstacks/train/distributed"
	"github.com/deathstacks/deathstacks/train/distributed/natsserver"
	"github.com/deathstacks/deathstacks/train/metrics"
	"github.com/deathstacks/deathstacks/train/testctx"
)

// TestActorsAndLearnerSurviveSIGKILL runs the built binary: a learner and
// two actor processes over loopback, SIGKILLs an actor and the learner at
// random moments, restarts them, and checks that the games in the stream
// are exactly the games the run took, each once.
func TestActorsAndLearnerSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes for about a minute")
	}
	tmp := t.TempDir()
	bin := buildBinary(t)
	dir := filepath.Join(tmp, "run")
	addr := freeAddr(t)
	// The moments of the kills are drawn from a seed that the log names,
	// so that a failure can be replayed: DEATHSTACKS_TEST_SEED=N.
	seed := uint64(time.Now().UnixNano())
	if text := os.Getenv("DEATHSTACKS_TEST_SEED"); text != "" {
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			t.Fatalf("DEATHSTACKS_TEST_SEED %q: want a whole number", text)
		}
		seed = n
	}
	t.Logf("seed %d (replay with DEATHSTACKS_TEST_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var procs []*exec.Cmd
	t.Cleanup(func() {
		if t.Failed() {
			for _, log := range []string{"learner.log", "actors.log"} {
				data, _ := os.ReadFile(filepath.Join(tmp, log))
				t.Logf("%s:\n%s", log, data)
			}
		}
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
	})
	start := func(log string, args ...string) *exec.Cmd {
		f, err := os.OpenFile(filepath.Join(tmp, log), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c := exec.Command(bin, args...)
		c.Stdout, c.Stderr = f, f
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, c)
		return c
	}
	learner := func(iterations int, extra ...string) *exec.Cmd {
		args := []string{"train", "--config", "smoke", "--out", dir, "--listen", addr, "--quiet", "--iterations", strconv.Itoa(iterations)}
		if hasCheckpoint(dir) { // a learner killed before its first one starts afresh
			args = append(args, "--resume")
		}
		return start("learner.log", append(args, extra...)...)
	}
	// The first learner has more iterations than it can play before its
	// kill, so that the kill always comes in the middle of the run; the
	// learners after it play two iterations more, and one.
	l := learner(1000, "--no-selfplay")
	actorArgs := actorLine(t, filepath.Join(tmp, "learner.log"))
	actor := func() *exec.Cmd {
		return start("actors.log", append(actorArgs, "--workers", "1", "--parallel-games", "2")...)
	}
	a1, a2 := actor(), actor()

	sleepRandom := func() { time.Sleep(time.Duration(1000+rng.IntN(3000)) * time.Millisecond) }
	sleepRandom()
	a1.Process.Signal(syscall.SIGKILL)
	a1.Wait()
	a1 = actor()
	sleepRandom()
	l.Process.Signal(syscall.SIGKILL)
	l.Wait()
	// What the dead learner costs: the time to start again (the server
	// up, the checkpoint read) and to the first games taken after it.
	learnerLog := filepath.Join(tmp, "learner.log")
	servers, takes := countIn(learnerLog, "deathstacks actor "), countIn(learnerLog, "remote games from")
	killedAt := lastCheckpoint(dir)
	restarted := time.Now()
	l = learner(killedAt+2, "--no-selfplay")
	testctx.WaitUntil(t, "the restarted learner's server", func() bool { return countIn(learnerLog, "deathstacks actor ") != servers })
	up := time.Since(restarted)
	testctx.WaitUntil(t, "the restarted learner's first games", func() bool { return countIn(learnerLog, "remote games from") != takes })
	t.Logf("learner restarted: server up after %v, first games taken after %v", up.Round(time.Millisecond), time.Since(restarted).Round(time.Millisecond))
	waitFor(t, l, "learner")
	for _, a := range []*exec.Cmd{a1, a2} {
		a.Process.Signal(syscall.SIGINT)
		waitForStatus(t, a, "actor", 130)
	}
	// One more iteration, with local self-play so that it waits for no
	// actor, takes the games sent since.
	waitFor(t, learner(killedAt+3), "last learner")
	checkStream(t, dir)
}

// checkStream reads the games stream of the run and its metrics: every
// game stored must have been taken (or dropped as stale) once. The learner
// removes the games its checkpoints took, so the stream's last sequence
// counts the games stored; a game sent again after its first copy was
// removed is stored again, and the learner drops it as a duplicate.
func checkStream(t *testing.T, dir string) {
	t.Helper()
	srv, err := natsserver.Start(natsserver.Options{Addr: "127.0.0.1:0", RunDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := testctx.Context(t)
	nc, err := distributed.Connect(ctx, distributed.ConnectOptions{URL: srv.URL, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, "DEATHSTACKS_GAMES")
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs > 0 {
		cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for range info.State.Msgs {
			// Each try waits 5 seconds at most; the tries go on until the
			// test's time runs out.
			var msg jetstream.Msg
			testctx.WaitUntil(t, "the next game in the stream", func() bool {
				msg, err = cons.Next(jetstream.FetchMaxWait(5 * time.Second))
				if err != nil && !errors.Is(err, nats.ErrTimeout) {
					t.Fatal(err)
				}
				return err == nil
			})
			id := msg.Headers().Get(jetstream.MsgIDHeader)
			if ids[id] {
				t.Errorf("game %s stored twice", id)
			}
			ids[id] = true
		}
	}
	lines, err := metrics.Read(filepath.Join(dir, metrics.File))
	if err != nil {
		t.Fatal(err)
	}
	taken, invalid, duplicate := 0, 0, 0
	for _, m := range lines {
		taken += m.RemoteGames + m.RemoteStale
		invalid += m.RemoteInvalid
		duplicate += m.RemoteDuplicate
	}
	if stored := int(info.State.LastSeq); taken+duplicate != stored || invalid != 0 {
		t.Errorf("%d games stored; the run took %d, %d invalid, %d duplicate: want all taken once", stored, taken, invalid, duplicate)
	}
	t.Logf("%d games stored (%d still kept), each taken once over %d iterations (%d copies of a game sent again)",
		info.State.LastSeq, info.State.Msgs, len(lines), duplicate)
}

// actorLine waits for the learner's actor command line and returns its
// arguments.
func actorLine(t *testing.T, log string) []string {
	t.Helper()
	var args []string
	testctx.WaitUntil(t, "the learner's actor line", func() bool {
		data, _ := os.ReadFile(log)
		for _, line := range strings.Split(string(data), "\n") {
			if _, rest, ok := strings.Cut(line, "deathstacks actor "); ok { // after the binary's folder
				args = append([]string{"actor"}, strings.Fields(rest)...)
				return true
			}
		}
		return false
	})
	return args
}

// countIn returns the number of times text appears in the log.
func countIn(log, text string) int {
	data, _ := os.ReadFile(log)
	return strings.Count(string(data), text)
}

// lastCheckpoint returns the iteration of the run's newest checkpoint, 0
// for none.
func lastCheckpoint(dir string) int {
	last := 0
	files, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.dsck"))
	for _, f := range files {
		var it int
		if _, err := fmt.Sscanf(filepath.Base(f), "ckpt-%d.dsck", &it); err == nil {
			last = max(last, it)
		}
	}
	return last
}

func hasCheckpoint(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.dsck"))
	return len(m) > 0
}

// waitFor waits for c to end with status 0.
func waitFor(t *testing.T, c *exec.Cmd, what string) {
	t.Helper()
	waitForStatus(t, c, what, 0)
}

// waitForStatus waits for c to end with status want, such as 130 for a
// command Ctrl-C stopped. It has no budget: a command still running when
// the test's time runs out (see testctx.Context) is killed, and fails the test.
func waitForStatus(t *testing.T, c *exec.Cmd, what string, want int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		switch {
		case err == nil && want == 0:
		case errors.As(err, &exit) && exit.ExitCode() == want:
		default:
			t.Fatalf("%s: %v, want status %d", what, err, want)
		}
	case <-testctx.Context(t).Done():
		c.Process.Kill()
		<-done
		t.Fatalf("%s still running when the test's time ran out", what)
	}
}

// built is the binary the multi-process tests run, built once.
var built struct {
	once sync.Once
	dir  string
	err  error
}

// buildBinary builds the command once per test process, into a folder
// that TestMain removes.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "deathstacks-bin-*"); built.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(built.dir, "deathstacks"), ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, "deathstacks")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// freeAddr returns a loopback address with a port free now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

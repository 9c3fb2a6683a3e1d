package players

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts"
)

// ExternalConfig sets up an [ExternalPlayer]: the settings of a cmd spec,
// written in parentheses before its command line ("cmd(timeout=2s):prog").
type ExternalConfig struct {
	// Timeout is the time the program has for each move, from the
	// moment its line is written; the first move's includes the
	// program's start.
	Timeout time.Duration `yaml:"timeout"`
}

// defaultExternalTimeout is the time a move of a cmd spec without a
// timeout: ten times the built-in player's second a move, with room for
// a program's start and its network's load on the first.
const defaultExternalTimeout = 10 * time.Second

// externalSettings lists every field of ExternalConfig once, as the
// other kinds' tables do: its YAML key is its key in cmd specs.
var externalSettings = configs.NewTable("external program setting", []configs.Field[ExternalConfig]{
	{Setting: mcts.Setting{Help: fmt.Sprintf("time limit a move, the program's start included on the first (default %v)", defaultExternalTimeout)},
		Ptr: func(c *ExternalConfig) any { return &c.Timeout }, Above: true, Hi: math.Inf(1), Want: "a duration above 0s, such as 2s"},
})

// maxAnswerBytes bounds a line of a program's answer, its newline
// included: a longer one is a malformed answer, so that a program
// flooding its output cannot fill the memory.
const maxAnswerBytes = 4096

// stderrTailBytes is how much of the end of a program's standard error
// an [ErrProgramExited] quotes.
const stderrTailBytes = 512

// The ways an [ExternalPlayer]'s program fails a move, for errors.Is: the
// arena records each as the reason of a lost game.
var (
	// ErrMoveTimeout: no answer within the time limit.
	ErrMoveTimeout = errors.New("no move within the time limit")
	// ErrProgramExited: the program exited (or crashed) or closed its
	// output instead of answering, or could not be started.
	ErrProgramExited = errors.New("the program exited")
	// ErrMalformedAnswer: the answer is no move in notation, or a line
	// longer than maxAnswerBytes.
	ErrMalformedAnswer = errors.New("malformed answer")
)

// ExternalPlayer is another program playing through the protocol of
// `deathstacks bot`: for each move it gets one line on its standard input,
// the game's start position as a FEN, followed when moves were played by
// the word "moves" and the moves in notation ("FEN moves a6-2-a4
// b1-1-b2"), and answers one line on its standard output, its move in
// notation. Its standard error is kept only to quote the end of it when
// it exits.
//
// The program starts at the first move, in a process group of its own,
// and keeps running from move to move. A program that exits, does not
// answer in time ([ExternalConfig.Timeout]) or answers a line that is no
// move fails the move with an error wrapping [ErrProgramExited],
// [ErrMoveTimeout] or [ErrMalformedAnswer], and is killed: the player
// does not choose again. A move in notation that is illegal is returned
// as it is, for the caller to refuse. [ExternalPlayer.Close] kills the
// program and its process group and reaps it; it may be called at any
// time, also while Choose waits, which then fails at once. A player that
// is garbage collected without Close is stopped then.
//
// The player has no seed: the program plays as it was told on its
// command line, by the rules it knows.
type ExternalPlayer struct {
	argv []string
	cfg  ExternalConfig

	mu     sync.Mutex
	proc   *process // nil before the first move
	closed bool
}

// NewExternalPlayer returns the player of the program argv[0] with its
// arguments, which must be found (exec.LookPath) but is not started yet.
func NewExternalPlayer(argv []string, cfg ExternalConfig) (*ExternalPlayer, error) {
	var ch configs.Checker
	externalSettings.Check(&ch, cfg)
	if err := ch.Err(); err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("external player: no program given")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("external player: %w", err)
	}
	return &ExternalPlayer{argv: append([]string{}, argv...), cfg: cfg}, nil
}

// Choose implements [mcts.Player]: it asks the program for a move in g's
// position, with the whole game. The decision holds the move alone.
func (p *ExternalPlayer) Choose(g *env.Game) (mcts.Decision, error) {
	if err := finished(g); err != nil {
		return mcts.Decision{}, err
	}
	pr, err := p.process()
	if err != nil {
		return mcts.Decision{}, err
	}
	m, err := pr.ask(gameLine(g), p.cfg.Timeout)
	if err != nil {
		pr.stop()
		return mcts.Decision{}, fmt.Errorf("program %s: %w", p.argv[0], err)
	}
	return mcts.Decision{Move: m, Value: math.NaN()}, nil
}

// Close kills the program, if it runs, and waits for it to end. The
// player chooses no move after.
func (p *ExternalPlayer) Close() error {
	p.mu.Lock()
	p.closed = true
	pr := p.proc
	p.mu.Unlock()
	if pr != nil {
		pr.stop()
	}
	return nil
}

// process returns the running program, starting it at the first move.
func (p *ExternalPlayer) process() (*process, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return nil, fmt.Errorf("program %s: the player is closed", p.argv[0])
	case p.proc != nil:
		if p.proc.stopped() {
			return nil, fmt.Errorf("program %s: %w before (it is not restarted within a game)", p.argv[0], ErrProgramExited)
		}
		return p.proc, nil
	}
	pr, err := startProcess(p.argv)
	if err != nil {
		return nil, fmt.Errorf("program %s: %w: %v", p.argv[0], ErrProgramExited, err)
	}
	p.proc = pr
	// A player dropped without Close (a game of the web app's that it
	// forgets) still stops its program, once garbage collected.
	runtime.AddCleanup(p, (*process).stop, pr)
	return pr, nil
}

// gameLine writes the game as the bot protocol's input line: the start
// position, and the moves since it.
func gameLine(g *env.Game) string {
	start := g.StartPosition()
	moves := g.Moves()
	if len(moves) == 0 {
		return start.FEN()
	}
	words := make([]string, len(moves))
	for i, m := range moves {
		words[i] = m.String()
	}
	return start.FEN() + " moves " + strings.Join(words, " ")
}

// process is a running program with the ends of its pipes.
type process struct {
	cmd    *exec.Cmd
	in     *os.File // the writing end of its standard input
	out    *os.File // the reading end of its standard output
	answer *bufio.Reader
	stderr *tailWriter

	once    sync.Once
	done    chan struct{} // closed once the program is reaped
	waitErr error
}

// startProcess starts the program in a process group of its own, with
// pipes whose ends here take deadlines.
func startProcess(argv []string) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	pr := &process{cmd: cmd, in: inW, out: outR, answer: bufio.NewReaderSize(outR, maxAnswerBytes),
		stderr: &tailWriter{max: stderrTailBytes}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, pr.stderr
	// A process of the group that outlives the program and holds its
	// standard error open cannot keep Wait waiting.
	cmd.WaitDelay = time.Second
	ownProcessGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	return pr, nil
}

// ask writes the line and reads the answer, within timeout.
func (pr *process) ask(line string, timeout time.Duration) (env.Move, error) {
	deadline := time.Now().Add(timeout)
	if err := pr.in.SetWriteDeadline(deadline); err != nil {
		return env.Move{}, err
	}
	if err := pr.out.SetReadDeadline(deadline); err != nil {
		return env.Move{}, err
	}
	if _, err := io.WriteString(pr.in, line+"\n"); err != nil {
		return env.Move{}, pr.failure(err, timeout)
	}
	text, err := pr.answer.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return env.Move{}, fmt.Errorf("%w: a line longer than %d bytes", ErrMalformedAnswer, maxAnswerBytes-1)
	case err != nil:
		return env.Move{}, pr.failure(err, timeout)
	}
	answer := strings.TrimSpace(string(text))
	m, err := env.ParseMove(answer)
	if err != nil {
		return env.Move{}, fmt.Errorf("%w: %q: %v", ErrMalformedAnswer, answer, err)
	}
	return m, nil
}

// failure turns an error of a pipe into the error of the move: a
// deadline passed, or else the program gone (which it then reaps, for
// its status and the end of its standard error).
func (pr *process) failure(err error, timeout time.Duration) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w (%v)", ErrMoveTimeout, timeout)
	}
	pr.stop()
	status := "status 0"
	var exit *exec.ExitError
	if errors.As(pr.waitErr, &exit) {
		status = exit.String()
	} else if pr.waitErr != nil {
		status = pr.waitErr.Error()
	}
	if tail := strings.TrimSpace(pr.stderr.String()); tail != "" {
		return fmt.Errorf("%w (%s); its standard error ends: %s", ErrProgramExited, status, tail)
	}
	return fmt.Errorf("%w (%s)", ErrProgramExited, status)
}

// stop kills the program's process group, reaps the program and closes
// the pipes; it may be called any number of times, from any goroutine,
// and returns once the program is reaped.
func (pr *process) stop() {
	pr.once.Do(func() {
		killProcessGroup(pr.cmd)
		pr.waitErr = pr.cmd.Wait()
		pr.in.Close()
		pr.out.Close()
		close(pr.done)
	})
}

// stopped reports whether the program has been stopped.
func (pr *process) stopped() bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tailWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(b), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

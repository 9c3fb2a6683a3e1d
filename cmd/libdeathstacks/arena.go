package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/mcts/players"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/arena"
	"github.com/deathstacks/deathstacks/train/elo"
	"github.com/deathstacks/deathstacks/train/report"
)

// arenaRequest is what ds_arena_new reads, as JSON: the players and the
// settings of an evaluation, as the eval command's flags give them.
type arenaRequest struct {
	Players []arenaPlayer `json:"players"`
	Games   int           `json:"games"`
	Seed    uint64        `json:"seed"`
	// SPRT is the test as eval's --sprt takes it, or nil for none.
	SPRT *string `json:"sprt"`
	// Out is the folder to write the files of eval --out into, or nil;
	// the games are journalled there while they play. Resume continues
	// the unfinished evaluation there, as eval --resume does.
	Out          *string `json:"out"`
	Resume       bool    `json:"resume"`
	Parallel     int     `json:"parallel"`
	OpeningPlies int     `json:"opening_plies"`
	MaxPlies     int     `json:"max_plies"`
	// Command is how the caller would play the same games again, for the
	// report, in CommandLanguage ("python", or "" for a shell's).
	Command         string `json:"command"`
	CommandLanguage string `json:"command_language"`
}

// arenaPlayer is one player of a request, named, given by exactly one of:
// Spec, a player spec; Model, a network file (any path az:model= takes);
// Text, a spec or else an existing file's path; Python, "evaluator" (the
// caller's evaluator, searching with Settings, a JSON object of search
// settings) or "policy" (the caller's policy), played through
// ds_arena_wait (see arena.CallerPlayers).
type arenaPlayer struct {
	Name     string          `json:"name"`
	Spec     string          `json:"spec"`
	Model    string          `json:"model"`
	Text     string          `json:"text"`
	Python   string          `json:"python"`
	Settings json.RawMessage `json:"settings"`
}

// check reports a player given in none or several forms, or with
// settings of no Python evaluator's.
func (p arenaPlayer) check() error {
	given := 0
	for _, s := range []string{p.Spec, p.Model, p.Text, p.Python} {
		if s != "" {
			given++
		}
	}
	switch {
	case given != 1:
		return errors.New("want exactly one of spec, model, text and python")
	case p.Python != "" && p.Python != pythonEvaluator && p.Python != pythonPolicy:
		return fmt.Errorf("python is %q: want %q or %q", p.Python, pythonEvaluator, pythonPolicy)
	case len(p.Settings) > 0 && p.Python != pythonEvaluator:
		return errors.New("settings are a Python evaluator's search settings: a spec holds its own")
	}
	return nil
}

// The kinds of Python players.
const (
	pythonEvaluator = "evaluator"
	pythonPolicy    = "policy"
)

// spec returns the player spec of p, a player of Go.
func (p arenaPlayer) spec() (players.Spec, error) {
	modelSpec := func(path string) players.Spec {
		return players.Spec{Kind: players.KindAZ, Params: []players.Param{{Key: "model", Value: path}}}
	}
	switch {
	case p.Spec != "":
		return players.ParseSpec(p.Spec)
	case p.Model != "":
		return modelSpec(p.Model), nil
	}
	spec, err := players.ParseSpec(p.Text)
	if err == nil {
		return spec, nil
	}
	if _, statErr := os.Stat(p.Text); statErr == nil {
		return modelSpec(p.Text), nil
	}
	return players.Spec{}, fmt.Errorf("%w, and no file is called %q", err, p.Text)
}

// checkPlayer builds the player of spec once, so that a bad model or
// program fails before any game, and closes it.
func checkPlayer(spec players.Spec) error {
	p, err := players.NewPlayer(spec, 0, models().Load)
	if err != nil {
		return err
	}
	return closePlayer(p)
}

// evaluation is an evaluation playing in the background from
// ds_arena_new until it ends or its handle is closed, which stops it.
type evaluation struct {
	// python serves the Python players; its Stop ends the games.
	python *pythonSide
	done   chan struct{} // closed when the games and the report are done
	played atomic.Int64
	total  int64
	// result is the outcome as JSON, or err its failure; both are set
	// before done closes.
	result string
	err    error
}

// close stops the games (killing external programs, releasing the
// Python players) and waits for them.
func (e *evaluation) close() error {
	e.python.Stop(errClosed)
	<-e.done
	e.python.release()
	return nil
}

// pythonSide is an evaluation's Python players. The caller's loop
// plays them on one thread, that of its first batch of leaves: the
// coroutines of the evaluators' searches on the caller's side belong to
// it, as a stepRun's do (see steps.go).
type pythonSide struct {
	*arena.CallerPlayers
	thread    uintptr
	hasThread bool
}

// Leaves runs a round of evaluator k's searches into the caller's arrays
// (see arena.CallerPlayers.Leaves), on the thread of the first round.
func (p *pythonSide) Leaves(k int64, obs []float32, mask []bool, capacity int) (int, error) {
	if thread := callerThread(); !p.hasThread {
		p.thread, p.hasThread = thread, true
	} else if thread != p.thread {
		return 0, errors.New("evaluate: an evaluation's leaves are evaluated on the thread of its first batch: drive an evaluation from one thread")
	}
	return p.CallerPlayers.Leaves(k, obs, mask, capacity)
}

// release ends the evaluators' runs once the games have returned: on the
// thread of their rounds, aborting the searches a stop left; from
// another, leaving that thread's share of them suspended.
func (p *pythonSide) release() {
	if p.hasThread && callerThread() != p.thread {
		p.Abandon()
		return
	}
	p.Close()
}

// arenaResult is what ds_arena_result writes, as JSON.
type arenaResult struct {
	// Results is results.json's content.
	Results *report.Report `json:"results"`
	// Text is the tables eval prints.
	Text  string             `json:"text"`
	Games []arena.GameRecord `json:"games"`
}

// parsedRequest is a request read: the arena's settings, the test (nil
// for none) and each player's spec.
type parsedRequest struct {
	arenaRequest
	cfg   arena.Config
	test  *elo.SPRT
	specs []players.Spec
}

// parseRequest reads a request and the spec of each player, building no
// player: the arena checks the settings when it starts, as the eval
// command's games do.
func parseRequest(request string) (parsedRequest, error) {
	dec := json.NewDecoder(strings.NewReader(request))
	dec.DisallowUnknownFields()
	var req parsedRequest
	if err := dec.Decode(&req.arenaRequest); err != nil {
		return req, fmt.Errorf("evaluate: request: %w", err)
	}
	rules := env.DefaultRules()
	rules.MaxPlies = req.MaxPlies
	req.cfg = arena.Config{Rules: rules, Games: req.Games, Parallel: req.Parallel, OpeningPlies: req.OpeningPlies, Seed: req.Seed}
	if req.SPRT != nil {
		t, err := elo.ParseSPRT(*req.SPRT)
		if err != nil {
			return req, fmt.Errorf("evaluate: sprt: %w", err)
		}
		req.test = &t
	}
	for i, p := range req.Players {
		if p.Name == "" {
			return req, fmt.Errorf("evaluate: player %d has no name", i+1)
		}
		if err := p.check(); err != nil {
			return req, fmt.Errorf("evaluate: player %s: %w", p.Name, err)
		}
		var spec players.Spec
		if p.Python == "" {
			s, err := p.spec()
			if err != nil {
				return req, fmt.Errorf("evaluate: player %s: %w", p.Name, err)
			}
			spec = s
		}
		req.specs = append(req.specs, spec)
	}
	return req, nil
}

// newEvaluation reads the request, builds each player once (so that a bad
// model or program fails here, before any game), starts or continues the
// journal of the games in the request's folder, and starts the games.
func newEvaluation(request string) (*evaluation, error) {
	req, err := parseRequest(request)
	if err != nil {
		return nil, err
	}
	out, err := req.output()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	python := arena.NewCallerPlayers(len(req.Players), model.LegalSoftmax, cancel)
	contenders, err := req.contenders(python)
	if err == nil {
		err = arena.CheckEvaluation(contenders, req.cfg, req.test)
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	j, err := req.open(out, contenders)
	if err != nil {
		cancel()
		return nil, err
	}
	e := &evaluation{python: &pythonSide{CallerPlayers: python}, done: make(chan struct{}), total: int64(len(contenders)*(len(contenders)-1)/2) * int64(j.cfg.Games)}
	e.played.Store(int64(len(j.cfg.Played)))
	j.cfg.OnGame = func(r arena.GameRecord) {
		if j.journal != nil {
			if err := j.journal.Append(r); err != nil {
				python.Stop(fmt.Errorf("evaluate: %w", err)) // a game that cannot be kept is not worth playing on for
				return
			}
		}
		e.played.Add(1)
	}
	go func() {
		defer close(e.done)
		e.err = offThread(func() error {
			var err error
			e.result, err = evaluate(ctx, contenders, j, req)
			return err
		})
		if cause := python.Failure(); cause != nil && cause != errClosed {
			e.err = cause
		}
		cancel()
	}()
	return e, nil
}

// output is the request's folder, or nil for none. Its check refuses, as
// eval's does before any player is built, to resume what has no journal
// and to start afresh over a journal or finished results.
func (req parsedRequest) output() (*report.Output, error) {
	if req.Out == nil {
		if req.Resume {
			return nil, errors.New("evaluate: resume: give the out folder of the evaluation to continue")
		}
		return nil, nil
	}
	out := &report.Output{Folder: report.EvaluationFolder(*req.Out), What: "evaluation", Resume: req.Resume,
		OutName: "out", Continue: "the same call and resume=True"}
	if err := out.Check(); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	return out, nil
}

// contenders builds the request's players: those of Go once, to check
// them, and the Python ones in python.
func (req parsedRequest) contenders(python *arena.CallerPlayers) ([]arena.Contender, error) {
	contenders := make([]arena.Contender, len(req.Players))
	for i, p := range req.Players {
		var err error
		switch p.Python {
		case pythonEvaluator:
			settings := string(p.Settings)
			if settings == "" {
				settings = "{}" // an az player's search
			}
			contenders[i], err = evaluatorContender(python, i, p.Name, settings, req.cfg.Rules)
		case pythonPolicy:
			contenders[i] = python.Policy(i, p.Name)
		default:
			err = checkPlayer(req.specs[i])
			contenders[i] = arena.SpecContender(p.Name, req.specs[i], models().Load)
		}
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", p.Name, err)
		}
	}
	return contenders, nil
}

// evaluatorContender adds player i, a Python evaluator searching with
// settings (a JSON object of search settings, as Search takes them),
// named in results.json as "python evaluator sims=100,c_puct=2".
func evaluatorContender(python *arena.CallerPlayers, i int, name, settings string, rules env.Rules) (arena.Contender, error) {
	searcher, err := newSearcher(settings, 0, rules)
	if err != nil {
		return arena.Contender{}, err
	}
	about, sep := "python evaluator", " "
	params, _ := searchSettings(settings)
	for _, pm := range params {
		about += sep + pm.Key + "=" + pm.Value
		sep = ","
	}
	return python.Evaluator(i, name, about, searcher.cfg), nil
}

// errClosed is the cause of an evaluation whose handle was closed.
var errClosed = errors.New("evaluate: the evaluation was closed")

// journalled is an evaluation's games with their journal: the arena's
// settings, the games played before among them; the journal, nil without
// a folder; and the call that started the games, in its language.
type journalled struct {
	cfg               arena.Config
	journal           *arena.Journal
	command, language string
}

// open starts the journal of the contenders' games in out, or continues
// the one there after checking it is of the same games; without out, it
// keeps none.
func (req parsedRequest) open(out *report.Output, contenders []arena.Contender) (journalled, error) {
	j := journalled{cfg: req.cfg, command: req.Command, language: req.CommandLanguage}
	if out == nil {
		return j, nil
	}
	header := arena.NewJournalHeader(contenders, req.cfg, req.Command)
	header.CommandLanguage, header.SPRT = req.CommandLanguage, req.test
	var err error
	j.journal, j.cfg.Played, j.command, j.language, err = out.Open(header)
	if err != nil {
		return j, fmt.Errorf("evaluate: %w", err)
	}
	return j, nil
}

// evaluate plays the games and reports on them as the eval command does,
// writing the files of eval --out when the request has a folder, and then
// removing the journal; a failure keeps the journal, to resume from.
func evaluate(ctx context.Context, contenders []arena.Contender, j journalled, req parsedRequest) (string, error) {
	start := time.Now()
	records, outcome, err := arena.PlayEvaluation(ctx, contenders, j.cfg, req.test, nil)
	if err != nil {
		if j.journal != nil {
			j.journal.Close()
		}
		if errors.Is(err, arena.ErrPlayedGame) {
			return "", fmt.Errorf("evaluate: %s: %w", report.EvaluationFolder(*req.Out).Path(report.GamesJournal), err)
		}
		return "", fmt.Errorf("evaluate: %w", err)
	}
	rep, err := report.New(records, contenders, report.DefaultAnchor(contenders), j.cfg)
	if err != nil {
		return "", fmt.Errorf("evaluate: %w", err)
	}
	rep.SPRT = outcome
	rep.Date, rep.DurationSec, rep.Command, rep.CommandLanguage = start, time.Since(start).Seconds(), j.command, j.language
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		return "", err
	}
	if j.journal != nil {
		if err := rep.Save(*req.Out, records); err != nil {
			j.journal.Close()
			return "", fmt.Errorf("evaluate: out: %w", err)
		}
		if err := j.journal.Remove(); err != nil {
			return "", fmt.Errorf("evaluate: out: %w", err)
		}
	}
	b, err := json.Marshal(arenaResult{Results: rep, Text: text.String(), Games: records})
	return string(b), err
}

// The outcomes of wait.
const (
	waitPlaying = 0
	waitEnded   = 1
	// waitWork + k: Python player k has work (see arena.CallerPlayers).
	waitWork = 2
)

// wait waits up to millis milliseconds for the evaluation to end or a
// Python player to have work, writing the games played and the games in
// all (at most; an SPRT may stop sooner) into progress (2 values, or
// nil). It returns waitEnded once the evaluation has ended, waitWork+k
// when player k (of the request's) has work, else waitPlaying.
func (e *evaluation) wait(millis int64, progress []int64) (int64, error) {
	if millis < 0 {
		return 0, fmt.Errorf("evaluate: wait %d ms: want 0 or more", millis)
	}
	timer := time.NewTimer(time.Duration(millis) * time.Millisecond)
	defer timer.Stop()
	outcome := int64(waitPlaying)
	switch k, ended := e.python.Wait(e.done, timer.C); {
	case ended:
		outcome = waitEnded
	case k >= 0:
		outcome = waitWork + int64(k)
	}
	if progress != nil {
		progress[0], progress[1] = e.played.Load(), e.total
	}
	return outcome, nil
}

// errPlaying is the result of an evaluation asked for before it ends.
var errPlaying = errors.New("evaluate: the games are still playing: wait for them first")

// outcome returns the evaluation's result as JSON, or its error.
func (e *evaluation) outcome() (string, error) {
	select {
	case <-e.done:
		return e.result, e.err
	default:
		return "", errPlaying
	}
}

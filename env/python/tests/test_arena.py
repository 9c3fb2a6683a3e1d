"""deathstacks.evaluate: round robins and SPRTs on the Go arena, with
players of every form (specs, network files, Player objects, external
programs), the files of deathstacks eval, and bad input as exceptions."""

import json
import os
import pathlib
import shlex
import signal
import threading
import time

import numpy as np
import pytest

import deathstacks as ds
from conftest import children

REPO = pathlib.Path(__file__).resolve().parents[3]
NETWORK = REPO / "train" / "testdata" / "run-v1" / "nets" / "net-000001.dsnn"


def test_round_robin_of_specs(tmp_path):
    out = tmp_path / "eval"
    res = ds.evaluate({"random": "random", "greedy": "greedy", "ab": "alphabeta:depth=1"}, games=4, seed=3,
                      out=out, max_plies=100, parallel=2)
    assert res.results["anchor"] == "random" and res.results["games"] == 12
    assert {p["name"]: p["spec"] for p in res.players} == {"random": "random", "greedy": "greedy",
                                                           "ab": "alphabeta:depth=1"}
    for p in res.players:
        assert p["ci95"][0] <= p["elo"] <= p["ci95"][1]
        assert p["wins"] + p["draws"] + p["losses"] == p["games"] == 8
    assert res.elo("random") == 0 and res.elo("greedy") > 0
    assert len(res.pairs) == 3
    for p in res.pairs:
        assert p["wins"] + p["draws"] + p["losses"] == 4
        assert p["draws_repetition"] + p["draws_move_limit"] <= p["draws"]
    assert "Pairs: " in res.text and "relative to random = 0" in str(res)
    assert len(res.games) == 12 and all(g["result"] in ("1-0", "0-1", "1/2-1/2") for g in res.games)
    # The files of deathstacks eval --out, with the same numbers.
    assert json.loads((out / "results.json").read_text())["players"] == res.players
    assert len((out / "games.jsonl").read_text().splitlines()) == 12
    report = (out / "report.md").read_text()
    assert "## Players" in report and "deathstacks.evaluate({'random': 'random', 'greedy': 'greedy'" in report
    assert (out / "elo.png").stat().st_size > 0
    with pytest.raises(KeyError, match="no player called 'nobody'"):
        res.elo("nobody")
    with pytest.raises(ds.DeathStacksError, match=r"holds a finished evaluation \(results.json\): choose another out"):
        ds.evaluate({"random": "random", "greedy": "greedy"}, games=2, out=out)  # as eval --out, never replaced


def _untimed(games: list) -> list:
    return [{k: v for k, v in g.items() if k != "move_ms"} for g in games]


def _ratings(res) -> tuple:
    return [{k: v for k, v in p.items() if k != "mean_move_ms"} for p in res.players], res.pairs


def test_resume(tmp_path):
    """An evaluation stopped by a policy's KeyboardInterrupt keeps its
    finished games in out; the same call with resume=True plays only the
    missing ones, for the games and ratings of one uninterrupted run. As
    with eval --resume, other settings, a new evaluation over it and a
    resume of a finished one are refused."""
    def greedy(fen, moves):  # a policy whose move depends only on the game
        return ds.Player("greedy", seed=len(moves)).choose(fen, moves)

    def policy(calls: list, stop: int | None = None):
        def choose(fen, moves):
            calls.append(fen)
            if stop is not None and len(calls) > stop:
                raise KeyboardInterrupt
            return greedy(fen, moves)
        return choose

    def play(p, out, **kwargs):
        kwargs = {"games": 4, "seed": 7, "max_plies": 60, "parallel": 1, **kwargs}
        return ds.evaluate({"p": p, "r": "random", "ab": "alphabeta:depth=1"}, out=out, **kwargs)

    whole = []
    one = play(policy(whole), tmp_path / "one")
    out, stopped = tmp_path / "resumed", []
    with pytest.raises(KeyboardInterrupt):
        play(policy(stopped, stop=len(whole) // 2), out)
    journal = out / "games.partial.jsonl"
    played = len(journal.read_text().splitlines()) - 1  # its header, then a game a line
    assert 0 < played < 12 and not (out / "results.json").exists()
    with pytest.raises(ds.DeathStacksError, match=rf"holds an unfinished evaluation \({played} games? played of 12\): "
                                                  "continue it with the same call and resume=True"):
        play(greedy, out)
    with pytest.raises(ds.DeathStacksError, match='seed is "8" here but "7" in the games played so far'):
        play(greedy, out, seed=8, resume=True)
    with pytest.raises(ds.DeathStacksError, match="resume: give the out folder"):
        play(greedy, None, resume=True)
    rest = []
    res = play(policy(rest), out, resume=True, parallel=3)
    assert _untimed(res.games) == _untimed(one.games) and _ratings(res) == _ratings(one)
    assert len(rest) < len(whole) and not journal.exists()
    assert "'p': test_resume.<locals>.policy.<locals>.choose" in (out / "report.md").read_text()
    with pytest.raises(ds.DeathStacksError, match="holds a finished evaluation; nothing to resume"):
        play(greedy, out, resume=True)
    with pytest.raises(ds.DeathStacksError, match="no unfinished evaluation in"):
        play(greedy, tmp_path / "none", resume=True)


def test_same_seed_same_games():
    players = {"a": "alphabeta:depth=1", "r": "random"}
    one = ds.evaluate(players, games=2, seed=9, max_plies=60)
    two = ds.evaluate(players, games=2, seed=9, max_plies=60, parallel=1)
    assert [g["moves"] for g in one.games] == [g["moves"] for g in two.games]
    other = ds.evaluate(players, games=2, seed=10, max_plies=60)
    assert [g["opening"] for g in one.games] != [g["opening"] for g in other.games]


@pytest.mark.parametrize("sprt", [dict(elo0=0, elo1=300), "elo0=0,elo1=300", dict(elo0=0, elo1=300, alpha=0.05, beta=0.05)])
def test_sprt(sprt):
    res = ds.evaluate({"greedy": "greedy", "random": "random"}, games=40, seed=1, sprt=sprt, max_plies=80)
    s = res.sprt
    assert s["elo0"] == 0 and s["elo1"] == 300 and s["alpha"] == 0.05
    assert s["decision"] in ("H1 accepted", "H0 accepted", "inconclusive")
    assert len(res.games) == 2 * s["pairs"] <= 40
    assert s["lower"] < 0 < s["upper"]


def test_players_of_every_form(tmp_path):
    assert NETWORK.exists(), NETWORK
    res = ds.evaluate({
        "path": NETWORK,                                  # os.PathLike: a network file
        "text": str(NETWORK),                              # a str that is no spec, naming a file
        "object": ds.Player("az:sims=4", seed=5),          # a Player: its spec
        "random": "random",
    }, games=2, seed=2, max_plies=40)
    specs = {p["name"]: p["spec"] for p in res.players}
    assert specs == {"path": f"az:model={NETWORK}", "text": f"az:model={NETWORK}", "object": "az:sims=4",
                     "random": "random"}
    assert len(res.games) == 12


def test_external_programs(tmp_path, engine):
    out = tmp_path / "eval"
    res = ds.evaluate({
        "engine": "cmd:" + shlex.join(engine),
        "random": "random",
        "hang": "cmd(timeout=50ms):sleep 100",
        "crash": "cmd:false",
    }, games=2, seed=4, max_plies=40, out=out)
    forfeits = {}
    for p in res.pairs:
        for name, counts in ((p["a"], p.get("forfeits_a")), (p["b"], p.get("forfeits_b"))):
            for reason, n in (counts or {}).items():
                forfeits.setdefault(name, {}).setdefault(reason, 0)
                forfeits[name][reason] += n
    assert set(forfeits) <= {"hang", "crash"}
    assert set(forfeits["hang"]) == {"timeout"} and set(forfeits["crash"]) == {"program exited"}
    assert forfeits["hang"]["timeout"] >= 4 and forfeits["crash"]["program exited"] >= 4
    engine_games = [g for g in res.games if {g["red"], g["blue"]} == {"engine", "random"}]
    assert len(engine_games) == 2 and all(not g.get("detail") and len(g["moves"]) > 1 for g in engine_games)
    assert "Forfeits: " in res.text
    assert "## Forfeits" in (out / "report.md").read_text()
    # Every program was killed and reaped with its game.
    assert children() == []


@pytest.mark.parametrize("players, kwargs, error, match", [
    ({"a": "random", "b": "minimax"}, {}, ds.DeathStacksError, "unknown kind \"minimax\""),
    ({"a": "random", "b": "no/such/file.dsnn"}, {}, ds.DeathStacksError, "no/such/file.dsnn"),
    ({"a": "random"}, {}, ds.DeathStacksError, "1 entrants: want 2 or more"),
    ({"a": "random", "b": "greedy"}, {"games": 0}, ds.DeathStacksError, "games is 0: want 1 or more"),
    ({"a": "random", "b": "greedy"}, {"parallel": 0}, ds.DeathStacksError, "parallel is 0"),
    ({"a": "random", "b": "greedy", "c": "greedy"}, {"sprt": "elo0=0,elo1=20"}, ds.DeathStacksError, "exactly 2"),
    ({"a": "random", "b": "greedy"}, {"sprt": "elo0=0,elo1=20", "games": 3}, ds.DeathStacksError, "even"),
    ({"a": "random", "b": "greedy"}, {"sprt": dict(elo0=20, elo1=0)}, ds.DeathStacksError, "elo0"),
    ({"a": "random", "b": "greedy"}, {"sprt": dict(elo0=0, elo2=20)}, ds.DeathStacksError, "unknown key 'elo2'"),
    ({"a": "random", "b": "greedy"}, {"sprt": dict(elo0=0, elo1="20")}, TypeError, "elo1 must be a number"),
    ({"a": "random", "b": "greedy"}, {"sprt": 20}, TypeError, "sprt must be"),
    ({"a": "random", "b": "cmd:prog | tee"}, {}, ds.DeathStacksError, "shell syntax"),
    ({"a": "random", "b": lambda fen, moves: None}, {}, TypeError, "player b: the policy returned NoneType"),
    ({"a": "random", "b": lambda fen, moves: 1 << 20}, {}, ds.DeathStacksError, "1048576"),
    ({"a": "random", "b": 3}, {}, TypeError, "want a spec"),
    ({"a": "random", 2: "greedy"}, {}, TypeError, "player names must be str"),
    (["random", "greedy"], {}, TypeError, "players must be a dict"),
    ({"a": "random", "b": "greedy"}, {"games": "4"}, TypeError, "games must be an integer"),
    ({"a": "random", "b": "greedy"}, {"seed": -1}, ds.DeathStacksError, "seed -1 is out of range"),
    ({"a": "random", "b": "greedy"}, {"resume": 1}, TypeError, "resume must be True or False"),
])
def test_bad_input(players, kwargs, error, match):
    kwargs = {"games": 2, **kwargs}
    with pytest.raises(error, match=match):
        ds.evaluate(players, **kwargs)


def _running(argv: list) -> bool:
    """Whether a live (not zombie) process runs argv."""
    want = "\0".join(argv) + "\0"
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_text()
            state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if cmdline == want and state not in ("Z", "X"):
            return True
    return False


def test_ctrl_c_stops_the_games():
    """Ctrl-C during an evaluation raises KeyboardInterrupt once the games
    are stopped, an external program that hangs killed."""
    argv = ["sleep", "987654"]
    seen = []

    def interrupt():  # once the program runs (or after a minute without it)
        for _ in range(6000):
            if _running(argv):
                break
            time.sleep(0.01)
        seen.append(_running(argv))
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ds.evaluate({"hang": "cmd(timeout=1h):" + shlex.join(argv), "random": "random"}, games=2)
    finally:
        timer.cancel()
    assert seen == [True] and not _running(argv)


class Uniform:
    """A numpy evaluator: a uniform policy and a zero value, from arrays
    allocated once, counting its calls' batch sizes."""

    def __init__(self):
        self.logits = np.zeros((4096, ds.NUM_ACTIONS), np.float32)
        self.values = np.zeros(4096, np.float32)
        self.batches = []

    def __call__(self, obs, masks):
        assert obs.dtype == np.float32 and obs.shape[1:] == ds.OBSERVATION_SHAPE and masks.shape == (len(obs), ds.NUM_ACTIONS)
        assert masks.any(axis=1).all()
        self.batches.append(len(obs))
        return self.logits[:len(obs)], self.values[:len(obs)]


def test_python_players(tmp_path):
    """An evaluator player (the leaves of all its games in one batch) and
    policy callables of each answer form play specs, with the files of
    deathstacks eval."""
    evaluator = Uniform()
    greedy = ds.Player("greedy")
    asked = []

    def policy(fen, moves):  # answers an action; the Decision and the move below
        asked.append((fen, list(moves)))
        return greedy.choose(fen, moves).action

    out = tmp_path / "eval"
    players = {"net": ds.Player(evaluate=evaluator, sims=16, c_puct=1.5), "greedy": policy,
               "decision": greedy.choose, "move": lambda fen, moves: greedy.choose(fen, moves).move, "random": "random"}
    res = ds.evaluate(players, games=2, seed=6, max_plies=60, parallel=4, out=out)
    specs = {p["name"]: p["spec"] for p in res.players}
    assert specs == {"net": "python evaluator sims=16,c_puct=1.5", "greedy": "python policy",
                     "decision": "python policy", "move": "python policy", "random": "random"}
    assert len(res.games) == 20 and not any(g.get("detail") for g in res.games)
    # A batch holds the leaves of several games: more than one search's 8.
    assert sum(evaluator.batches) > 0 and max(evaluator.batches) > 8
    stats = res.stats["net"]
    assert list(res.stats) == ["net"] and stats.batches == len(evaluator.batches)
    assert stats.positions == sum(evaluator.batches) and 0 < stats.evaluate_seconds < stats.seconds
    # The policy is asked the positions of its games: the start and the
    # opening and moves played so far.
    played = [g["opening"] + g["moves"] for g in res.games if "greedy" in (g["red"], g["blue"])]
    assert asked and all(fen == ds.START_FEN and any(m == p[:len(m)] for p in played) for fen, m in asked)
    report = (out / "report.md").read_text()
    assert "```python\ndeathstacks.evaluate({'net': deathstacks.Player(evaluate=Uniform, sims=16, c_puct=1.5), " \
           "'greedy': test_python_players.<locals>.policy" in report, report
    assert json.loads((out / "results.json").read_text())["command_language"] == "python"


def test_python_players_same_seed_same_games():
    def play(parallel):
        return ds.evaluate({"net": ds.Player(evaluate=Uniform(), sims=8), "ab": "alphabeta:depth=1"}, games=4,
                           seed=11, max_plies=40, parallel=parallel).games
    one, two = play(1), play(3)
    assert [g["moves"] for g in one] == [g["moves"] for g in two]


def test_python_player_sprt():
    res = ds.evaluate({"net": ds.Player(evaluate=Uniform(), sims=8), "random": "random"}, games=40, seed=1,
                      sprt=dict(elo0=0, elo1=300), max_plies=60, parallel=2)
    s = res.sprt
    assert s["decision"] in ("H1 accepted", "H0 accepted", "inconclusive")
    assert len(res.games) == 2 * s["pairs"] <= 40


class Boom(Exception):
    pass


def _evaluator(logits=None, values=None, raises=None, after=0):
    """An evaluator returning logits and values (made for n positions by
    the functions given) or raising, from its call after on."""
    calls = []

    def evaluate(obs, masks):
        calls.append(len(obs))
        n = len(obs)
        if len(calls) > after and raises is not None:
            raise raises
        return ((logits or (lambda n: np.zeros((n, ds.NUM_ACTIONS), np.float32)))(n),
                (values or (lambda n: np.zeros(n, np.float32)))(n))
    return evaluate


@pytest.mark.parametrize("evaluate, error, match", [
    (_evaluator(raises=Boom("first call")), Boom, "first call"),
    (_evaluator(raises=Boom("later call"), after=5), Boom, "later call"),
    (_evaluator(values=lambda n: np.full(n, np.nan, np.float32)), ds.DeathStacksError,
     r"player net: the evaluator returned NaN for the value of position \d+ of the batch: values must be finite, "
     r"in \[-1, 1\]"),
    (_evaluator(values=lambda n: np.full(n, 2, np.float32), after=3), ds.DeathStacksError,
     "player net: the evaluator returned 2 for the value of position"),
    (_evaluator(logits=lambda n: np.full((n, ds.NUM_ACTIONS), np.inf, np.float32)), ds.DeathStacksError,
     r"player net: the evaluator returned \+Inf for the logit of legal action \d+ of position \d+ of the batch"),
    (_evaluator(logits=lambda n: np.zeros((n, 10), np.float32)), ds.DeathStacksError,
     r"player net: evaluate returned logits of shape \(\d+, 10\)"),
    (_evaluator(values=lambda n: np.zeros(n, np.float64)), ds.DeathStacksError,
     "player net: evaluate returned values of dtype float64: want float32"),
    (lambda obs, masks: None, ds.DeathStacksError, "evaluate returned NoneType: want a pair"),
])
def test_evaluator_failures(evaluate, error, match):
    """A failing evaluator's exception (or a bad result's error) reaches
    the caller, and the games are released: the next evaluation plays."""
    with pytest.raises(error, match=match):
        ds.evaluate({"net": ds.Player(evaluate=evaluate, sims=8), "random": "random", "greedy": "greedy"}, games=4,
                    seed=1, max_plies=60, parallel=3)
    res = ds.evaluate({"net": ds.Player(evaluate=Uniform(), sims=8), "random": "random"}, games=2, max_plies=20)
    assert len(res.games) == 2


def test_policy_failures():
    """A policy that raises stops the evaluation with its exception; a
    policy's illegal or malformed move loses that game, as an external
    program's does."""
    def boom(fen, moves):
        raise Boom("policy")

    with pytest.raises(Boom, match="policy"):
        ds.evaluate({"p": boom, "net": ds.Player(evaluate=Uniform(), sims=8), "r": "random"}, games=2, parallel=3)
    res = ds.evaluate({"illegal": lambda fen, moves: "a1-1-a2", "malformed": lambda fen, moves: "xyz",
                       "r": "random"}, games=2, max_plies=20)
    reasons = {(g["red"] if g["result"] == "0-1" else g["blue"], g["reason"]) for g in res.games if g.get("detail")}
    assert ("illegal", "illegal move") in reasons and ("malformed", "malformed move") in reasons


def test_ctrl_c_stops_python_players():
    """Ctrl-C while a Python evaluator plays raises KeyboardInterrupt; the
    games are released and the library plays on after."""
    evaluator = Uniform()

    def interrupt():
        for _ in range(6000):
            if len(evaluator.batches) > 10:
                break
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ds.evaluate({"net": ds.Player(evaluate=evaluator, sims=64), "r": "random", "p": ds.Player("greedy").choose},
                        games=40)
    finally:
        timer.join()
    assert len(evaluator.batches) > 10
    assert len(ds.evaluate({"net": ds.Player(evaluate=Uniform(), sims=8), "r": "random"}, games=2, max_plies=20).games) == 2


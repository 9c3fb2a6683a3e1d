"""deathstacks.evaluate: round robins and SPRTs on the Go arena, with
players of every form (specs, network files, Player objects, external
programs), the files of deathstacks eval, and bad input as exceptions."""

import json
import os
import pathlib
import shlex
import signal
import sys
import threading
import time

import numpy as np
import pytest

import deathstacks as ds

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
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
    with pytest.raises(ds.DeathStacksError, match="holds an evaluation"):  # as eval --out, never replaced
        ds.evaluate({"random": "random", "greedy": "greedy"}, games=2, out=out)


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


def test_external_programs(tmp_path):
    engine = tmp_path / "engine.py"
    engine.write_text(
        "import sys\n"
        f"sys.path.insert(0, {SRC!r})\n"
        "import deathstacks as ds\n"
        "player = ds.Player('greedy')\n"
        "for line in sys.stdin:\n"
        "    words = line.split()\n"
        "    print(player.choose(' '.join(words[:2]), words[3:]).move, flush=True)\n")
    out = tmp_path / "eval"
    res = ds.evaluate({
        "engine": "cmd:" + shlex.join([sys.executable, str(engine)]),
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
    ({"a": "random", "b": lambda obs, masks: None}, {}, TypeError, "evaluator bridge does not serve"),
    ({"a": "random", "b": 3}, {}, TypeError, "want a spec"),
    ({"a": "random", 2: "greedy"}, {}, TypeError, "player names must be str"),
    (["random", "greedy"], {}, TypeError, "players must be a dict"),
    ({"a": "random", "b": "greedy"}, {"games": "4"}, TypeError, "games must be an integer"),
    ({"a": "random", "b": "greedy"}, {"seed": -1}, ds.DeathStacksError, "seed -1 is out of range"),
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


def test_evaluator_player_refused():
    player = ds.Player(evaluate=lambda obs, masks: (np.zeros((len(obs), ds.NUM_ACTIONS), np.float32),
                                                    np.zeros(len(obs), np.float32)), sims=4)
    with pytest.raises(TypeError, match="a Player made of one"):
        ds.evaluate({"a": "random", "b": player}, games=2)


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

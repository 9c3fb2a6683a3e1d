"""Rating players from Python: :func:`evaluate` plays a round robin, or an
SPRT between two players, on the Go arena that ``deathstacks eval`` runs,
with its Elo fit and its files.

    import deathstacks as ds
    res = ds.evaluate({"mine": "az:model=net.dsnn,sims=100", "ab": "alphabeta:depth=2",
                       "engine": "cmd:./engine --depth 3", "random": "random",
                       "net": ds.Player(evaluate=my_evaluator, sims=100),
                       "policy": lambda fen, moves: ds.legal_moves(...)[0]}, games=20)
    print(res)                  # the tables deathstacks eval prints
    res.elo("mine"), res.pairs  # results.json's numbers

The games play in Go. A Python player's work is done on the calling
thread, in the loop of ``_Arena.play``: the library says which player has
work (ds_arena_wait); an evaluator gets the leaves of all its games' searches
in one batch, as Search batches them, and a policy gets one game's position.
"""

from __future__ import annotations

import ctypes
import json
import numbers
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ._lib import INFO, DeathStacksError, Handle, check, cstr, flag, integer, lib, ptr, seed_of, text
from .players import Player, move_of
from .search import Stats, _Batches, _capacity, _outputs, settings_json

__all__ = ["Evaluation", "evaluate"]

_I64, _P, _S = ctypes.c_int64, ctypes.c_void_p, ctypes.c_char_p
for _name, _args in {"ds_arena_new": [_S], "ds_arena_wait": [_I64, _I64, _P], "ds_arena_result": [_I64, _P, _I64],
                     "ds_arena_leaves": [_I64, _I64, _I64, _P, _P], "ds_arena_feed": [_I64, _I64, _I64, _P, _P],
                     "ds_arena_question": [_I64, _I64, _P, _I64], "ds_arena_answer": [_I64, _I64, _S]}.items():
    getattr(lib, _name).argtypes = _args
    getattr(lib, _name).restype = _I64

# How long one wait for the arena lasts, in milliseconds: Ctrl-C stops an
# evaluation within about this time.
_WAIT_MS = 100

# What ds_arena_wait returns: the games go on; they have ended; and from
# _WORK on, _WORK + k: player k (a Python player) has work.
_PLAYING, _ENDED, _WORK = 0, 1, 2

_SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")


@dataclass
class Evaluation:
    """What :func:`evaluate` gives: ``results``, the content of
    results.json (``players`` with each one's Elo, ``ci95``, W-D-L, score;
    ``pairs`` with W-D-L from A's side, draws by kind, forfeits; ``sprt``
    when a test ran; the settings); ``text``, the tables that ``deathstacks
    eval`` prints; ``games``, every game's record as in games.jsonl; and
    ``out``, the folder the files went to (None without one); ``stats``,
    each Python evaluator player's batches (their number and positions,
    the seconds inside the evaluator and in all), by name."""

    results: dict
    text: str
    games: list = field(repr=False)
    out: str | None = None
    stats: dict = field(default_factory=dict, repr=False)

    @property
    def players(self) -> list:
        """Each player's standing, best first."""
        return self.results["players"]

    @property
    def pairs(self) -> list:
        """Each pair's results, from A's side."""
        return self.results["pairs"]

    @property
    def sprt(self) -> dict | None:
        """The SPRT's outcome (decision, llr, bounds, pairs), or None."""
        return self.results.get("sprt")

    def elo(self, name: str) -> float:
        """The Elo of the player called name (the anchor has 0)."""
        for p in self.players:
            if p["name"] == name:
                return p["elo"]
        raise KeyError(f"no player called {name!r}: the players are {[p['name'] for p in self.players]}")

    def __str__(self) -> str:
        return self.text


class _Evaluator:
    """A Python evaluator player's side of the arena: its batches."""

    def __init__(self, name: str, player: Player, parallel: int):
        self.name = name
        self.evaluate = player._search.evaluate
        # Room for the leaves of every game of the player at once.
        self.capacity = _capacity(None, parallel, player._search._batch_size)
        self.batches = _Batches()
        self.stats = Stats()
        # The last batch's results, which the searches read after feed
        # returns: kept until the next batch is taken, which waits for them.
        self.fed = None

    def serve(self, h: int, k: int) -> None:
        obs, masks = self.batches.arrays(self.capacity)
        n = check(lib.ds_arena_leaves(h, k, self.capacity, ptr(obs), ptr(masks)))
        if n == 0:
            return
        t = time.perf_counter()
        out = self.evaluate(obs[:n], masks[:n])
        self.stats.evaluate_seconds += time.perf_counter() - t
        self.stats.batches += 1
        self.stats.positions += n
        try:
            self.fed = _outputs(out, n)
        except DeathStacksError as e:
            raise DeathStacksError(f"player {self.name}: {e}") from None
        check(lib.ds_arena_feed(h, k, n, ptr(self.fed[0]), ptr(self.fed[1])))


class _Policy:
    """A Python policy player's side of the arena: its moves."""

    def __init__(self, name: str, policy):
        self.name = name
        self.policy = policy

    def serve(self, h: int, k: int) -> None:
        game = json.loads(text(lib.ds_arena_question, h, k))
        move = self.policy(game["fen"], game["moves"])
        if isinstance(getattr(move, "move", None), str):  # a Decision
            move = move.move
        if isinstance(move, numbers.Integral) and not isinstance(move, (bool, np.bool_)):
            move = move_of(int(move))
        if not isinstance(move, str):
            raise TypeError(f"player {self.name}: the policy returned {type(move).__name__}: want a move in notation "
                            "(str), an action (int) or a Decision")
        check(lib.ds_arena_answer(h, game["id"], cstr(move, f"player {self.name}'s move")))


class _Arena(Handle):
    """A tournament playing in the library: closing it stops its games."""

    _what = "arena"

    def __init__(self, request: dict):
        self._h = None
        self._h = check(lib.ds_arena_new(cstr(json.dumps(request), "request")))

    def play(self, python: dict) -> None:
        """Waits for the games to end, doing the work of the Python players
        (python maps a player's index among the request's to its side)."""
        h = self._handle()
        progress = np.zeros(2, np.int64)
        while True:
            code = check(lib.ds_arena_wait(h, _WAIT_MS, ptr(progress)))
            if code == _ENDED:
                return
            if code >= _WORK:
                python[code - _WORK].serve(h, code - _WORK)

    def result(self) -> dict:
        return json.loads(text(lib.ds_arena_result, self._handle()))


def _player(name, player, parallel: int):
    """The request's entry for one player, and its side in Python (None
    for a player of Go)."""
    if not isinstance(name, str):
        raise TypeError(f"player names must be str, not {type(name).__name__} ({name!r})")
    if isinstance(player, str):
        # A spec, or else a network file's path: the library decides.
        return {"name": name, "text": cstr(player, f"player {name}").decode()}, None
    if isinstance(player, os.PathLike):
        return {"name": name, "model": cstr(os.fspath(player), f"player {name}'s path").decode()}, None
    if isinstance(player, Player):
        if isinstance(player.spec, str):
            return {"name": name, "spec": player.spec}, None
        settings = json.loads(settings_json(player._search.settings))
        return {"name": name, "python": "evaluator", "settings": settings}, _Evaluator(name, player, parallel)
    if callable(player):
        return {"name": name, "python": "policy"}, _Policy(name, player)
    raise TypeError(f"player {name}: {type(player).__name__}: want a spec (str), a network file (str or "
                    "os.PathLike), a deathstacks.Player (of a spec, or Player(evaluate=fn, **settings)) or a "
                    "policy callable policy(fen, moves) -> move")


def _sprt_text(sprt) -> str:
    """The SPRT as the CLI's --sprt takes it: elo0=E0,elo1=E1[,alpha=A,beta=B]."""
    if isinstance(sprt, str):
        return cstr(sprt, "sprt").decode()
    if not isinstance(sprt, dict):
        raise TypeError(f"sprt must be None, a dict such as dict(elo0=0, elo1=20) or a str such as "
                        f"'elo0=0,elo1=20', not {type(sprt).__name__}")
    parts = []
    for key, value in sprt.items():
        if key not in _SPRT_KEYS:
            raise DeathStacksError(f"sprt: unknown key {key!r}: want {', '.join(_SPRT_KEYS)}")
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"sprt: {key} must be a number, not {type(value).__name__}")
        parts.append(f"{key}={float(value)!r}")
    return ",".join(parts)


def _source(player) -> str:
    """A player as Python source, for the report's call."""
    if isinstance(player, Player):
        if isinstance(player.spec, str):
            return f"deathstacks.Player({player.spec!r})"
        settings = "".join(f", {k}={v!r}" for k, v in player._search.settings.items())
        return f"deathstacks.Player(evaluate={_name(player._search.evaluate)}{settings})"
    if callable(player):
        return _name(player)
    return repr(os.fspath(player))


def _name(f) -> str:
    return getattr(f, "__qualname__", None) or type(f).__name__


def _command(players: dict, request: dict) -> str:
    """The call that plays the same games again, for the report."""
    entries = ", ".join(f"{name!r}: {_source(p)}" for name, p in players.items())
    args = ["{" + entries + "}", f"games={request['games']}", f"seed={request['seed']}"]
    for key in ("sprt", "out"):
        if request[key] is not None:
            args.append(f"{key}={request[key]!r}")
    args += [f"{key}={request[key]}" for key in ("parallel", "opening_plies", "max_plies")]
    return f"deathstacks.evaluate({', '.join(args)})"


def evaluate(players: dict, games: int, seed: int = 0, sprt=None, out: str | os.PathLike | None = None, *,
             resume: bool = False, parallel: int | None = None, opening_plies: int = 4,
             max_plies: int = INFO["max_plies"]) -> Evaluation:
    """Plays a round robin among players and rates them, as ``deathstacks
    eval`` does: games games for every pair, colours alternating, each two
    games from the same opening_plies random plies; Elo with 95% intervals
    fitted over all games (``random`` at 0, or else the first player); draws
    by kind; games lost by misbehaving (an external program that exits,
    hangs or answers no move), by reason.

    players maps each player's name to a player: a spec ("greedy",
    "alphabeta:depth=2", "az:model=PATH,sims=100", "cmd:./engine --flag"),
    a network file (any form ``az:model=`` takes: a player file, a
    checkpoint, a snapshot, a run directory; a str that is no spec, or an
    os.PathLike), a :class:`deathstacks.Player` (its spec, with seeds of
    the arena's; or ``Player(evaluate=fn, **settings)``, that evaluator
    searching with those settings), or a policy callable, ``policy(fen,
    moves)`` returning a move in notation, an action or a Decision for the
    game of that start position and moves. The Python players play on this
    thread: each evaluator gets the leaves of all its games in one batch;
    an exception of theirs stops the games and is raised here, and an
    evaluator's bad result raises a DeathStacksError naming the player; a
    policy's illegal or malformed move loses that game. With sprt (``dict(elo0=0, elo1=20)``, alpha and beta too,
    or the CLI's ``"elo0=0,elo1=20"``) and exactly two players, it plays
    pairs of games until the test decides or games (even) are played. With
    out, it writes results.json, report.md, games.jsonl and elo.png there,
    the files of ``deathstacks eval --out``, and while the games play keeps
    each finished one in out/games.partial.jsonl, as eval does. The same seed
    plays the same games. Ctrl-C stops the games (external programs are
    killed) and raises KeyboardInterrupt. Stopped so, or by a Python
    player's exception, an evaluation with out keeps its finished games
    there: the same call with resume=True (parallel may differ) plays only
    the missing games, for the same games and ratings as one uninterrupted
    run. As with eval, a resume with other settings or where nothing is
    unfinished, and a new evaluation into a folder that holds an unfinished
    or finished one, are refused with a DeathStacksError that says why;
    nothing is overwritten."""
    if not isinstance(players, dict):
        raise TypeError(f"players must be a dict of name to player, not {type(players).__name__}")
    parallel = (os.cpu_count() or 1) if parallel is None else integer(parallel, "parallel")
    entries, python = [], {}
    for k, (name, p) in enumerate(players.items()):
        entry, side = _player(name, p, parallel)
        entries.append(entry)
        if side is not None:
            python[k] = side
    request = {
        "players": entries,
        "games": integer(games, "games"),
        "seed": seed_of(seed),
        "sprt": None if sprt is None else _sprt_text(sprt),
        "out": None if out is None else cstr(os.fspath(out), "out").decode(),
        "resume": bool(flag(resume, "resume")),
        "parallel": parallel,
        "opening_plies": integer(opening_plies, "opening_plies"),
        "max_plies": integer(max_plies, "max_plies"),
    }
    request["command"], request["command_language"] = _command(players, request), "python"
    arena = _Arena(request)
    start = time.perf_counter()
    try:
        arena.play(python)
        res = arena.result()
    finally:
        arena.close()
    stats = {}
    for side in python.values():
        if isinstance(side, _Evaluator):
            side.stats.seconds = time.perf_counter() - start
            stats[side.name] = side.stats
    return Evaluation(results=res["results"], text=res["text"], games=res["games"], out=request["out"], stats=stats)

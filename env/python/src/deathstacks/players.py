"""Players of any spec, the network's batched inference, and helpers on
positions and actions."""

from __future__ import annotations

import ctypes
import json
import math
from dataclasses import dataclass, field

import numpy as np

from . import spaces
from ._lib import INFO, DeathStacksError, Handle, check, cstr, flag, integer, lib, ptr, seed_of, text
from .aec import Rules
from .search import Search

START_FEN = INFO["start_fen"]


def legal_moves(fen: str = START_FEN, too_tall: bool = True) -> list[str]:
    """The legal moves of a position in notation ("a6-2-a4"); none for a
    finished one."""
    return text(lib.ds_legal_moves, cstr(fen, "fen"), flag(too_tall, "too_tall")).split()


def action_of(move: str) -> int:
    """The action index of a move in notation."""
    return check(lib.ds_action_of(cstr(move, "move")))


def move_of(action: int) -> str:
    """The move in notation of an action index."""
    return text(lib.ds_move_of, integer(action, "action"))


def render(fen: str) -> str:
    """A position drawn as text."""
    return text(lib.ds_render_fen, cstr(fen, "fen"))


@dataclass
class Decision:
    """A player's move and what its search knows of it."""

    move: str
    action: int
    value: float | None = None
    visits: dict = field(default_factory=dict)
    pv: list = field(default_factory=list)
    simulations: int = 0
    depth: int = 0
    score: int = 0
    nodes: int = 0


class Player(Handle):
    """A player of any spec: "random", "greedy", "alphabeta:depth=4",
    "mcts:sims=1000", "az:model=PATH,sims=200" or "az" (the built-in
    player), with its own seed.

    ``Player(evaluate=fn, sims=N)`` is the az player's search with a Python
    evaluator in the network's place (see :class:`deathstacks.Search`):
    ``settings`` are search settings (``sims``, ``c_puct``, ``gumbel``,
    ...), over an az player's defaults. Its searches run in this process's
    calling thread's turns, so it plays through ``choose`` (and whatever
    calls it) and in :func:`deathstacks.evaluate`, not as the opponent of
    a ``VectorEnv``, whose opponents move inside Go.

    ``close()`` (or the end of a ``with`` block) releases the player: a
    ``cmd:`` player's program is killed and reaped then."""

    _what = "player"

    def __init__(self, spec: str | None = None, seed: int = 1, too_tall: bool = True,
                 max_plies: int = INFO["max_plies"], repetitions: int = INFO["repetitions"], evaluate=None, **settings):
        self._h = None
        self._search = None
        self._rules = Rules(too_tall, max_plies, repetitions)
        if evaluate is not None:
            if spec is not None:
                raise DeathStacksError(f"Player: a spec ({spec!r}) or evaluate=, not both")
            self.spec = None
            self._search = Search(evaluate, seed=seed, too_tall=too_tall, max_plies=max_plies,
                                  repetitions=repetitions, **settings)
            return
        if settings:
            raise TypeError(f"Player: unexpected arguments {sorted(settings)}: a spec's settings go into the spec "
                            "(\"az:sims=200\"), search settings with evaluate=")
        spec = "az" if spec is None else spec
        self.spec = spec
        self._h = check(lib.ds_player_new(cstr(spec, "spec"), seed_of(seed)))
        self._buf = ctypes.create_string_buffer(1 << 16)

    def close(self, **kwargs) -> None:
        if self._search is not None:
            self._search.close()
        super().close()

    def choose(self, fen: str = START_FEN, moves=()) -> Decision:
        """The player's move in the game that starts at fen and goes on
        with moves (a list of moves in notation, or one string of them
        separated by spaces), which lets it see repetitions."""
        if isinstance(moves, str):
            moves = moves.split()
        if self._search is not None:
            return self._choose_searched(fen, list(moves))
        h = self._handle()
        moves = [cstr(m, "move") for m in moves]
        if any(not m or b" " in m for m in moves):
            raise DeathStacksError(f"moves: {moves!r}: want moves in notation such as a6-2-a4")
        r = self._rules
        n = check(lib.ds_player_choose(h, cstr(fen, "fen"), b" ".join(moves), r.too_tall, r.max_plies,
                                       r.repetitions, self._buf, len(self._buf)))
        if n >= len(self._buf):
            self._buf = ctypes.create_string_buffer(n + 1)
            check(lib.ds_player_last(h, self._buf, len(self._buf)))
        d = json.loads(self._buf.value.decode())
        return Decision(move=d["move"], action=d["action"], value=d["value"], visits=d["visits"] or {},
                        pv=d["pv"] or [], simulations=d["simulations"], depth=d["depth"], score=d["score"],
                        nodes=d["nodes"])

    def _choose_searched(self, fen: str, moves: list) -> Decision:
        r = self._search.run([fen], [moves])
        visited = np.flatnonzero(r.visits[0])
        value = float(r.value[0])
        return Decision(move=r.moves[0], action=int(r.actions[0]), value=value if math.isfinite(value) else None,
                        visits={move_of(int(a)): int(r.visits[0, a]) for a in visited}, pv=r.pv[0],
                        simulations=int(r.simulations[0]))


def server_stats(path: str | None = None) -> dict:
    """The counts of the network server that az players and Networks of a
    model path (None: the built-in player) share in this process."""
    out = np.zeros(2, np.int64)
    check(lib.ds_server_stats(cstr(path or "", "path"), ptr(out)))
    return {"batches": int(out[0]), "positions": int(out[1])}


class Network(Handle):
    """A trained network's batched inference on the Go kernels: path is a
    player file, a checkpoint, a network snapshot or a run directory, None
    for the built-in player's network."""

    _what = "network"

    def __init__(self, path: str | None = None):
        self._h = None
        self.path = path
        self._h = check(lib.ds_network_new(cstr(path or "", "path")))

    def predict(self, obs: np.ndarray):
        """Policy log-probabilities over all 6,912 actions (the logits
        shifted to a log-softmax, so softmax(logits) is the policy) and
        values in [-1, 1] for the side to move, of a batch of observations
        shaped (n, 21, 6, 6) (or one shaped (21, 6, 6))."""
        h = self._handle()
        if not isinstance(obs, np.ndarray):
            raise TypeError(f"obs must be a numpy array, not {type(obs).__name__}")
        single = obs.shape == spaces.OBSERVATION_SHAPE
        batch = obs[None] if single else obs
        if batch.ndim != 4 or batch.shape[1:] != spaces.OBSERVATION_SHAPE:
            raise DeathStacksError(f"obs has shape {obs.shape}: want (n, 21, 6, 6) or (21, 6, 6)")
        if batch.dtype != np.float32:
            raise DeathStacksError(f"obs has dtype {obs.dtype}: want float32")
        batch = np.ascontiguousarray(batch)
        n = batch.shape[0]
        logits = np.zeros((n, spaces.NUM_ACTIONS), np.float32)
        values = np.zeros(n, np.float32)
        check(lib.ds_network_predict(h, n, ptr(batch), ptr(logits), ptr(values)))
        if single:
            return logits[0], values[0]
        return logits, values

    def weights(self) -> dict:
        """The network's weights as float32 numpy arrays, by name in the
        order of the network file: stem.w (out, in, 3, 3), stem.b,
        block<i>.w1, .b1, .w2, .b2, policy.w, policy.b, value.conv.w,
        value.conv.b, value.fc1.w (in, out), value.fc1.b, value.fc2.w,
        value.fc2.b (see the model package's documentation)."""
        h = self._handle()
        index = json.loads(text(lib.ds_network_weights_index, h))
        total = sum(int(np.prod(t["shape"])) for t in index)
        flat = np.zeros(total, np.float32)
        check(lib.ds_network_weights(h, ptr(flat), total))
        return {t["name"]: flat[t["offset"]:t["offset"] + int(np.prod(t["shape"]))].reshape(t["shape"]) for t in index}


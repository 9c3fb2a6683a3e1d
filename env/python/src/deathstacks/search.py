"""The project's tree search guided by a Python evaluator.

The searches run in Go, many at once; the evaluator is called from the
calling thread with the leaves of all of them in one batch (as mctx
batches its roots):

    evaluate(observations, masks) -> (logits, values)

with ``observations`` float32 (n, 21, 6, 6), ``masks`` bool (n, 6912)
(the legal actions), ``logits`` float32 (n, 6912) and ``values`` float32
(n,) in [-1, 1] for the side to move. The priors of the legal moves are
the softmax of their logits, exactly as the Go network's evaluator makes
them; the logits of illegal actions are never read. The arrays passed in
are reused from call to call (copy what you keep); the evaluator may
return arrays it allocated once.

Go never calls Python: the loop here (``_drive``) makes one call into the
library a round (``ds_batch_round``), which feeds the batch evaluated last
and steps every search on to its next leaves (on this thread and a worker
for each further core) and returns them; a run is driven from one thread.
An exception of the evaluator stops and releases the searches and reaches
the caller as it was raised; a result of the wrong type, shape or dtype,
a value outside [-1, 1] or a non-finite logit of a legal action raises a
ValueError saying which.
"""

from __future__ import annotations

import datetime
import json
import math
import numbers
import time
from dataclasses import dataclass, field

import numpy as np

from . import spaces
from ._lib import INFO, DeathStacksError, Handle, check, cstr, integer, lib, ptr, seed_of, text
from .aec import Rules

__all__ = ["Search", "SearchResult"]


def settings_json(settings: dict) -> bytes:
    """Keyword settings as the JSON object the library reads: numbers,
    booleans and strings (a ``datetime.timedelta`` for ``time``)."""
    out = {}
    for key, value in settings.items():
        if isinstance(value, (bool, np.bool_)):
            value = bool(value)
        elif isinstance(value, numbers.Integral):
            value = int(value)
        elif isinstance(value, numbers.Real):
            value = float(value)
            if not math.isfinite(value):
                raise DeathStacksError(f"{key}={value}: want a finite number")
        elif isinstance(value, datetime.timedelta):
            value = f"{value.total_seconds()}s"
        elif not isinstance(value, str):
            raise TypeError(f"setting {key} must be a number, a bool or a str, not {type(value).__name__}")
        out[key] = value
    return cstr(json.dumps(out), "settings")


@dataclass
class Stats:
    """What the last run's batches cost: their number and positions, the
    seconds inside the evaluator and in all."""

    batches: int = 0
    positions: int = 0
    evaluate_seconds: float = 0.0
    seconds: float = 0.0

    @property
    def evaluate_share(self) -> float:
        """The share of the run's wall time spent inside the evaluator."""
        return self.evaluate_seconds / self.seconds if self.seconds > 0 else 0.0

    @property
    def mean_batch(self) -> float:
        return self.positions / self.batches if self.batches else 0.0


class _Batches:
    """The arrays the batches of a run pass through, kept from run to run."""

    def __init__(self):
        self.capacity = 0
        self.obs = self.masks = None

    def arrays(self, capacity: int):
        if capacity > self.capacity:
            self.capacity = capacity
            self.obs = np.zeros((capacity,) + spaces.OBSERVATION_SHAPE, np.float32)
            self.masks = np.zeros((capacity, spaces.NUM_ACTIONS), np.bool_)
        return self.obs, self.masks


def _outputs(out, n: int):
    """The evaluator's (logits, values) for n positions, checked."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise DeathStacksError(f"evaluate returned {type(out).__name__}: want a pair (logits, values)")
    logits, values = out
    for name, a, shape in (("logits", logits, (n, spaces.NUM_ACTIONS)), ("values", values, (n,))):
        if not isinstance(a, np.ndarray):
            raise DeathStacksError(f"evaluate returned {name} of type {type(a).__name__}: want a numpy array")
        if a.dtype != np.float32:
            raise DeathStacksError(f"evaluate returned {name} of dtype {a.dtype}: want float32")
        if a.shape != shape:
            raise DeathStacksError(f"evaluate returned {name} of shape {a.shape} for {n} positions: want {shape}")
    return np.ascontiguousarray(logits), np.ascontiguousarray(values)


def _drive(h: int, evaluate, batches: _Batches, capacity: int, stats: Stats) -> None:
    """Evaluates the batches of the run under way on handle h until it
    ends. On any exception (the evaluator's, a bad result, an interrupt)
    the run is stopped and its searches released before it propagates."""
    obs, masks = batches.arrays(capacity)
    obs_p, masks_p = ptr(obs), ptr(masks)
    n, logits_p, values_p = 0, None, None
    start = time.perf_counter()
    try:
        while True:
            # One call a round: it feeds the batch evaluated last (none at
            # first) and returns the next, whose leaves the searches write
            # into obs and masks. The searches read logits and values
            # during the call: they stay referenced until it returns.
            n = check(lib.ds_batch_round(h, n, logits_p, values_p, capacity, obs_p, masks_p))
            if n == 0:
                break
            t = time.perf_counter()
            out = evaluate(obs[:n], masks[:n])
            stats.evaluate_seconds += time.perf_counter() - t
            stats.batches += 1
            stats.positions += n
            logits, values = _outputs(out, n)
            logits_p, values_p = ptr(logits), ptr(values)
    except BaseException:
        lib.ds_batch_abort(h)
        raise
    finally:
        stats.seconds += time.perf_counter() - start


DEFAULT_MAX_BATCH = 4096
"""The most positions of one evaluator call without max_batch."""


def _capacity(max_batch, searches: int, batch_size: int) -> int:
    """Room for one batch: every search's leaves, at most max_batch
    positions (default DEFAULT_MAX_BATCH), and at least one search's."""
    limit = DEFAULT_MAX_BATCH if max_batch is None else integer(max_batch, "max_batch", 1, 1 << 20)
    return max(min(max(1, searches) * batch_size, limit), batch_size)


@dataclass
class SearchResult:
    """The searches of n positions.

    ``visits`` int32 (n, 6912) and ``policy`` float32 (n, 6912) are the
    root visits and the policy target self-play trains on (the visit
    shares of a PUCT root, the improved policy of a Gumbel root; the
    chosen move alone for a win the win search proved), over all actions;
    ``value`` float32 (n,) the root value for the side to move;
    ``actions`` int64 (n,) and ``moves`` (notation) the chosen moves,
    ``pv`` the principal variations, ``simulations`` int64 (n,)."""

    visits: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    actions: np.ndarray
    moves: list = field(default_factory=list)
    pv: list = field(default_factory=list)
    simulations: np.ndarray = None


class Search(Handle):
    """Searches positions with the project's search (PUCT, or a Gumbel
    root with ``gumbel=True``; the win search; everything an ``az``
    player's search has), the network replaced by ``evaluate``.

    ``settings`` are the keys of the search settings table (the player
    specs of cmd/deathstacks/README.md; ``deathstacks bot --help``), such as ``simulations=200``
    (alias ``sims``), ``c_puct=2``, ``gumbel=True``, ``time="500ms"``,
    over the defaults of an ``az`` player (800 simulations, the most
    visited move), checked in Go: a bad key or value raises a
    DeathStacksError naming it. As with ``az:sims=N``, simulations
    without ``win_search_nodes`` give the win search 100 positions a
    simulation. ``seed`` seeds the searches (position i's from seed and
    i); ``max_batch`` caps the positions of one evaluator call (default:
    every search's leaves at once, ``batch_size`` each, up to 4,096).

    Position i of every run is searched by the same search, which goes on
    from run to run as a player does from move to move: its random
    generator continues, and with ``reuse_tree`` (on by default) it keeps
    its subtree when position i continues the game of the last run's
    position i. A new Search with the same seed repeats a run exactly
    (with a deterministic evaluator).
    """

    _what = "search"

    def __init__(self, evaluate, seed: int = 0, max_batch: int | None = None, too_tall: bool = True,
                 max_plies: int = INFO["max_plies"], repetitions: int = INFO["repetitions"], **settings):
        self._h = None
        if not callable(evaluate):
            raise TypeError(f"evaluate must be callable, not {type(evaluate).__name__}")
        self.evaluate = evaluate
        self.settings = dict(settings)
        self.max_batch = max_batch
        if max_batch is not None:
            integer(max_batch, "max_batch", 1, 1 << 20)
        rules = Rules(too_tall, max_plies, repetitions)
        self._h = check(lib.ds_search_new(settings_json(settings), seed_of(seed), rules.too_tall, rules.max_plies,
                                          rules.repetitions))
        self._batch_size = check(lib.ds_batch_size(self._h))
        self._batches = _Batches()
        self.stats = Stats()

    def run(self, fens, moves=None) -> SearchResult:
        """Searches the positions of ``fens`` (a FEN or a list of them),
        each after its ``moves`` (None, or one list of moves in notation
        per FEN, or one string of them separated by spaces), which let
        the search see repetitions. The statistics of the run's batches
        are in ``self.stats``."""
        h = self._handle()
        if isinstance(fens, str):
            fens, moves = [fens], None if moves is None else [moves]
        fens = list(fens)
        if moves is None:
            moves = [()] * len(fens)
        moves = list(moves)
        if len(moves) != len(fens):
            raise DeathStacksError(f"{len(moves)} move lists for {len(fens)} positions: want one per position")
        positions = []
        for i, (fen, ms) in enumerate(zip(fens, moves)):
            if isinstance(ms, str):
                ms = ms.split()
            if not isinstance(fen, str) or not all(isinstance(m, str) for m in ms):
                raise TypeError(f"position {i}: want a FEN str and moves in notation (str)")
            positions.append({"fen": fen, "moves": list(ms)})
        n = check(lib.ds_search_start(h, cstr(json.dumps(positions), "positions")))
        self.stats = Stats()
        if n > 0:
            _drive(h, self.evaluate, self._batches, _capacity(self.max_batch, n, self._batch_size), self.stats)
        visits = np.zeros((n, spaces.NUM_ACTIONS), np.int32)
        policy = np.zeros((n, spaces.NUM_ACTIONS), np.float32)
        value = np.zeros(n, np.float32)
        actions = np.zeros(n, np.int64)
        check(lib.ds_search_results(h, n, ptr(visits), ptr(policy), ptr(value), ptr(actions)))
        lines = json.loads(text(lib.ds_search_lines, h))
        return SearchResult(visits=visits, policy=policy, value=value, actions=actions,
                            moves=[line["move"] for line in lines], pv=[line["pv"] or [] for line in lines],
                            simulations=np.array([line["simulations"] for line in lines], np.int64))

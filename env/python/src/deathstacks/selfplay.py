"""The Go trainer's self-play with a Python evaluator (see
:mod:`deathstacks.search` for the evaluator's contract)."""

from __future__ import annotations

import json

import numpy as np

from . import spaces
from ._lib import DeathStacksError, Handle, check, integer, lib, ptr, seed_of, text
from .search import Stats, _Batches, _capacity, _drive, settings_json

__all__ = ["SelfPlay", "augment", "symmetries"]


class SelfPlay(Handle):
    """``num_games`` self-play games of the Go trainer (``train.SelfPlayGames``:
    its searches, playout cap randomization, Gumbel root, win search,
    resignation, adjudication, random openings and targets), played in Go
    with ``evaluate`` in the network's place, all at once by default so
    that each evaluator call holds the leaves of every game in progress.

    ``settings`` go over the trainer's defaults (configs/default.yaml) and
    are checked as it checks a config file, errors naming the key: every
    search setting (``simulations``, ``gumbel``, ``c_puct``, ...: the
    ``search`` section), the ``selfplay`` section's keys but
    ``games_per_iteration`` (``parallel_games`` (default: every game, at
    most 4096), ``resign_threshold``, ``resign_playout_share``,
    ``adjudicate``, ``adjudicate_horizon``, ``adjudicate_max``, ``adjudicate_stack_cap``,
    ``fast_simulations``, ``full_search_share``, ``search_value_share``), the rules (``too_tall``,
    ``max_plies``, ``repetitions``) and ``opening_plies``.

    Game i is the trainer's game i of an iteration with seed ``seed``: the
    same seed gives the same games, whatever ``parallel_games`` is, when
    the evaluator's result for a position does not depend on the rest of
    its batch. ``max_batch`` caps the positions of one evaluator call
    (default 4,096).

    Symmetries: the trainer stores samples as played and maps each sample
    it draws for a training batch by a random one of the eight symmetries
    of the board (``replay.augment``); :func:`deathstacks.augment` does the
    same to these arrays.
    """

    _what = "self-play"

    def __init__(self, evaluate, num_games: int, seed: int = 0, max_batch: int | None = None, **settings):
        self._h = None
        if not callable(evaluate):
            raise TypeError(f"evaluate must be callable, not {type(evaluate).__name__}")
        self.evaluate = evaluate
        self.num_games = integer(num_games, "num_games", 1, 1 << 24)
        self.seed = seed_of(seed)
        self.max_batch = max_batch
        if max_batch is not None:
            integer(max_batch, "max_batch", 1, 1 << 20)
        self.settings = dict(settings)
        self._h = check(lib.ds_selfplay_new(settings_json(settings)))
        self._batch_size = check(lib.ds_batch_size(self._h))
        self._batches = _Batches()
        self.stats = Stats()
        self.moves = []

    def play(self) -> dict:
        """Plays the games and returns their training samples, game by
        game, as numpy arrays:

        - ``observations`` float32 (N, 21, 6, 6), ``masks`` bool (N, 6912);
        - ``policy`` float32 (N, 6912), the search's policy target (visit
          shares of a PUCT root, the improved policy of a Gumbel one);
        - ``value`` float32 (N,), the value target for the side to move:
          the result, or for a game without a winner with adjudication
          the material lead judged a horizon later;
        - ``game`` int64 (N,), ``ply`` int64 (N,): the sample's game and
          the moves played before it (random opening plies included);
        - ``game_plies`` int64 (G,), ``game_winner`` int64 (G,) (0 red,
          1 blue, -1 none) and ``game_resigned`` bool (G,), per game;
        - the further targets the Go trainer's auxiliary heads have:
          ``reply`` float32 (N, 6912), the opponent's reply (the next
          sample's policy target; zero where ``has_reply`` bool (N,) is
          false, at a game's last sample), ``ownership`` float32 (N, 36),
          the final owner of each square from the side to move's view (1
          its own stack on top, -1 the opponent's, 0 empty) on the board
          the value target is judged on, and ``score`` float32 (N,), the
          material lead on the final board as tanh(lead / 60).

        The games' moves are in ``self.moves`` and the statistics of the
        batches (positions, time inside the evaluator) in ``self.stats``.
        """
        h = self._handle()
        games = check(lib.ds_selfplay_start(h, self.num_games, self.seed))
        self.stats = Stats()
        parallel = min(games, int(self.settings.get("parallel_games", 4096)))
        _drive(h, self.evaluate, self._batches, _capacity(self.max_batch, parallel, self._batch_size), self.stats)
        n = check(lib.ds_selfplay_size(h))
        out = {
            "observations": np.zeros((n,) + spaces.OBSERVATION_SHAPE, np.float32),
            "masks": np.zeros((n, spaces.NUM_ACTIONS), np.bool_),
            "policy": np.zeros((n, spaces.NUM_ACTIONS), np.float32),
            "value": np.zeros(n, np.float32),
            "game": np.zeros(n, np.int64),
            "ply": np.zeros(n, np.int64),
            "game_plies": np.zeros(games, np.int64),
            "game_winner": np.zeros(games, np.int64),
            "game_resigned": np.zeros(games, np.bool_),
            "reply": np.zeros((n, spaces.NUM_ACTIONS), np.float32),
            "has_reply": np.zeros(n, np.bool_),
            "ownership": np.zeros((n, 36), np.float32),
            "score": np.zeros(n, np.float32),
        }
        check(lib.ds_selfplay_samples(h, n, *(ptr(out[k]) for k in ("observations", "masks", "policy", "value", "game",
                                                                    "ply"))))
        check(lib.ds_selfplay_targets(h, n, *(ptr(out[k]) for k in ("reply", "has_reply", "ownership", "score"))))
        check(lib.ds_selfplay_games(h, games, ptr(out["game_plies"]), ptr(out["game_winner"]),
                                    ptr(out["game_resigned"])))
        self.moves = json.loads(text(lib.ds_selfplay_moves, h))
        return out


_TABLES = None


def symmetries():
    """The eight symmetries of the board (the identity first) as
    permutations: int64 arrays ``squares`` (8, 36) and ``actions`` (8,
    6912), symmetry y sending square s to ``squares[y, s]`` and action a
    to ``actions[y, a]``."""
    global _TABLES
    if _TABLES is None:
        squares = np.zeros((8, 36), np.int64)
        actions = np.zeros((8, spaces.NUM_ACTIONS), np.int64)
        check(lib.ds_symmetries(ptr(squares), ptr(actions)))
        squares.flags.writeable = actions.flags.writeable = False
        _TABLES = squares, actions
    return _TABLES


_tables = symmetries  # for augment, whose argument has the name


def augment(samples: dict, seed: int = 0, symmetries=None) -> dict:
    """Maps each sample of ``samples`` (a dict as :meth:`SelfPlay.play`
    returns) by one of the eight symmetries of the board, drawn at random
    from ``seed`` as the trainer draws one for each sample it trains on
    (``replay.augment``), or ``symmetries[i]`` (0 to 7, 0 the identity)
    for sample i: its observation, mask, policy, reply and ownership move
    with the board; the other arrays are copied unchanged."""
    squares, actions = _tables()
    n = len(samples["value"])
    if symmetries is None:
        ys = np.random.default_rng(seed_of(seed)).integers(8, size=n)
    else:
        ys = np.asarray(symmetries)
        if ys.shape != (n,) or not np.issubdtype(ys.dtype, np.integer) or np.any((ys < 0) | (ys > 7)):
            raise DeathStacksError(f"symmetries: want {n} integers from 0 to 7, one per sample")
    out = {k: v.copy() for k, v in samples.items()}
    for y in range(1, 8):
        idx = np.flatnonzero(ys == y)
        if len(idx) == 0:
            continue
        obs = samples["observations"][idx].reshape(len(idx), -1, 36)
        mapped = np.empty_like(obs)
        mapped[:, :, squares[y]] = obs
        out["observations"][idx] = mapped.reshape((len(idx),) + spaces.OBSERVATION_SHAPE)
        if "ownership" in samples:
            mapped = np.empty_like(samples["ownership"][idx])
            mapped[:, squares[y]] = samples["ownership"][idx]
            out["ownership"][idx] = mapped
        for k in ("masks", "policy", "reply"):
            if k not in samples:
                continue
            src = samples[k][idx]
            dst = np.zeros_like(src)
            dst[:, actions[y]] = src
            out[k][idx] = dst
    return out

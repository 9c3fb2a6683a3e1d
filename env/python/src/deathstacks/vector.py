"""The vector environment: many games stepped in one call, in Go, across
the cores, into numpy arrays, following Gymnasium's vector API."""

from __future__ import annotations

import numpy as np

from . import spaces
from ._lib import DeathStacksError, Handle, check, cstr, integer, lib, ptr, seed_of, text
from .aec import INFO, STATUSES, Rules

try:  # pragma: no cover - depends on what is installed
    from gymnasium.vector import VectorEnv as _Base

    try:
        from gymnasium.vector import AutoresetMode

        _NEXT_STEP = AutoresetMode.NEXT_STEP
    except ImportError:
        _NEXT_STEP = "NextStep"
except ImportError:
    _Base = object
    _NEXT_STEP = "NextStep"

COLOURS = {"red": 0, "blue": 1, "alternate": 2}
INFO_KEYS = ("status", "ply", "to_move", "agent", "episode_index", "opponent_action")


class VectorEnv(Handle, _Base):
    """``num_envs`` games of Death Stacks stepped together in Go.

    ``reset(seed=...)`` returns ``(obs, infos)`` and ``step(actions)``
    returns ``(obs, rewards, terminations, truncations, infos)``, where
    ``obs`` is ``{"observation": float32 (num_envs, 21, 6, 6),
    "action_mask": int8 (num_envs, 6912)}``. Episodes reset themselves
    the step after they end (Gymnasium's next-step auto-reset: that step's
    action is ignored, its reward is 0 and its flags False).

    With ``opponent`` (a player spec such as ``"alphabeta:depth=1"`` or
    ``"az:sims=50"``), the agent plays ``agent`` ("red", "blue", or
    "alternate" episode by episode) and the opponent answers inside each
    step, so every observation is the agent's turn and every reward the
    agent's (+1 win, -1 loss, 0 draw). Without one, the actions are for the
    side to move and each reward the mover's.

    ``copy=False`` returns the same arrays on every call (overwritten by
    the next), which saves their copies.
    """

    metadata = {"autoreset_mode": _NEXT_STEP}
    _what = "vector environment"

    def __init__(self, num_envs: int, opponent: str | None = None, agent: str = "red", too_tall: bool = True,
                 max_plies: int = INFO["max_plies"], repetitions: int = INFO["repetitions"], opening_plies: int = 0,
                 copy: bool = True):
        n = integer(num_envs, "num_envs", 1, 1 << 20)
        if not isinstance(agent, str) or agent not in COLOURS:
            raise DeathStacksError(f"agent {agent!r}: want one of {sorted(COLOURS)}")
        rules = Rules(too_tall, max_plies, repetitions)
        opening = integer(opening_plies, "opening_plies", 0, 2**31 - 1)
        if getattr(opponent, "spec", "") is None:  # a Player(evaluate=...)
            raise TypeError("opponent: a Player made of a Python evaluator cannot move inside the library's steps "
                            "(its searches need the calling thread); play it through Player.choose")
        if not isinstance(opponent, (str, type(None))) and isinstance(getattr(opponent, "spec", None), str):
            opponent = opponent.spec  # a Player of a spec: its spec (with a seed of the environment's)
        spec = cstr(opponent or "", "opponent")
        self._h = None
        self._h = check(lib.ds_vec_new(n, rules.too_tall, rules.max_plies, rules.repetitions, opening, spec,
                                       COLOURS[agent]))
        self.num_envs = n
        self.opponent = opponent
        self.agent = agent
        self.copy = bool(copy)
        self.render_mode = None
        self.single_observation_space = spaces.observation_space()
        self.single_action_space = spaces.action_space()
        self.observation_space = spaces.observation_space(n)
        self.action_space = spaces.batched_action_space(n)
        self._obs = np.zeros((n,) + spaces.OBSERVATION_SHAPE, np.float32)
        self._mask = np.zeros((n, spaces.NUM_ACTIONS), np.int8)
        self._rewards = np.zeros(n, np.float32)
        self._term = np.zeros(n, np.bool_)
        self._trunc = np.zeros(n, np.bool_)
        self._info = np.zeros((n, len(INFO_KEYS)), np.int64)
        self._actions = np.zeros(n, np.int64)
        self._every = np.ones(n, np.bool_)
        self._every.flags.writeable = False
        self._started = False
        self._rng = np.random.default_rng()

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self.copy else a

    def _infos(self) -> dict:
        infos = {}
        for j, key in enumerate(INFO_KEYS):
            infos[key] = self._info[:, j].copy() if self.copy else self._info[:, j]
            infos["_" + key] = self._every
        return infos

    def _observation(self) -> dict:
        return {"observation": self._out(self._obs), "action_mask": self._out(self._mask)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Starts every game over. A seed makes the episodes, the
        opponents' play and sample_actions' draws repeat."""
        if seed is None:
            seed = int(self._rng.integers(2**63))
        elif isinstance(seed, (list, tuple)):
            raise DeathStacksError("seed: want one integer for all environments")
        check(lib.ds_vec_reset(self._handle(), seed_of(seed), self.num_envs, ptr(self._obs), ptr(self._mask),
                               ptr(self._info)))
        self._started = True
        return self._observation(), self._infos()

    def step(self, actions):
        """Plays one action per environment (an int array of num_envs)."""
        h = self._handle()
        if not self._started:
            raise DeathStacksError("step before reset: call reset() first")
        acts = self._actions_of(actions)
        check(lib.ds_vec_step(h, self.num_envs, ptr(acts), ptr(self._obs), ptr(self._mask), ptr(self._rewards),
                              ptr(self._term), ptr(self._trunc), ptr(self._info)))
        return (self._observation(), self._out(self._rewards), self._out(self._term), self._out(self._trunc),
                self._infos())

    def _actions_of(self, actions) -> np.ndarray:
        if isinstance(actions, np.ndarray) and actions.dtype == np.int64 and actions.flags.c_contiguous:
            acts = actions
        else:
            try:
                acts = np.asarray(actions)
            except Exception as err:  # numpy's errors for ragged input
                raise DeathStacksError(f"actions: {err}") from None
            if acts.dtype == np.bool_ or not np.issubdtype(acts.dtype, np.integer):
                raise DeathStacksError(f"actions have dtype {acts.dtype}: want integers")
            acts = np.ascontiguousarray(acts, np.int64)
        if acts.shape != (self.num_envs,):
            raise DeathStacksError(f"actions have shape {acts.shape}, want ({self.num_envs},)")
        return acts

    def sample_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action per environment, drawn in Go
        (the environments about to reset get 0, which they ignore)."""
        if out is None:
            out = self._actions
        if not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (self.num_envs,) \
                or not out.flags.c_contiguous or not out.flags.writeable:
            raise DeathStacksError(f"out must be a writable int64 array of shape ({self.num_envs},)")
        check(lib.ds_vec_sample(self._handle(), self.num_envs, ptr(out)))
        return out

    def fen(self, i: int) -> str:
        """The FEN of environment i's position."""
        return text(lib.ds_vec_fen, self._handle(), integer(i, "environment"))

    def status(self, i: int) -> str:
        return STATUSES[int(self._info[integer(i, "environment", 0, self.num_envs - 1), 0])]

    def close(self, **kwargs) -> None:
        Handle.close(self)

    def render(self):
        return None

    @property
    def unwrapped(self):
        return self

"""The Gymnasium environment: one agent against any player spec."""

from __future__ import annotations

import numpy as np

from . import spaces
from ._lib import DeathStacksError, integer
from .aec import INFO
from .vector import INFO_KEYS, VectorEnv

try:  # pragma: no cover - depends on what is installed
    import gymnasium

    _Base = gymnasium.Env
except ImportError:
    gymnasium = None
    _Base = object

ENV_ID = "deathstacks/DeathStacks-v0"


class DeathStacksEnv(_Base):
    """One agent playing ``agent`` ("red", "blue" or "alternate") against
    ``opponent``, a player spec ("random", "alphabeta:depth=2", "az",
    "az:model=PATH,sims=100", ...), whose moves are made inside each
    step. Observations are ``{"observation", "action_mask"}`` of the
    agent's turn; the reward is +1 for a win, -1 for a loss, 0 otherwise.

    An illegal action (one the mask forbids) loses the game at once
    (reward -1, terminated, ``info["illegal_action"]``) with
    ``illegal_action="lose"``, the default, so that agents that ignore the
    mask still run; ``illegal_action="raise"`` raises instead.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, opponent: str = "random", agent: str = "red", render_mode: str | None = None,
                 illegal_action: str = "lose", too_tall: bool = True, max_plies: int = INFO["max_plies"],
                 repetitions: int = INFO["repetitions"], opening_plies: int = 0):
        if render_mode is not None and not (isinstance(render_mode, str) and render_mode == "ansi"):
            raise DeathStacksError(f"render_mode {render_mode!r}: want 'ansi' or None")
        if not isinstance(illegal_action, str) or illegal_action not in ("lose", "raise"):
            raise DeathStacksError(f"illegal_action {illegal_action!r}: want 'lose' or 'raise'")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self._vec = VectorEnv(1, opponent=opponent, agent=agent, too_tall=too_tall, max_plies=max_plies,
                              repetitions=repetitions, opening_plies=opening_plies, copy=False)
        self.observation_space = spaces.observation_space()
        self.action_space = spaces.action_space()
        self._done = True
        self._lost = False
        self._started = False
        self._np_rng = np.random.default_rng()
        self._acts = np.zeros(1, np.int64)

    def _obs(self) -> dict:
        return {"observation": self._vec._obs[0].copy(), "action_mask": self._vec._mask[0].copy()}

    def _info(self) -> dict:
        info = {k: int(self._vec._info[0, j]) for j, k in enumerate(INFO_KEYS)}
        info["illegal_action"] = self._lost
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if gymnasium is not None:
            super().reset(seed=seed)
        if seed is not None:
            self._np_rng = np.random.default_rng(integer(seed, "seed", 0, 2**64 - 1))
            self._vec.reset(seed=seed)
        elif self._started and self._done and not self._lost:
            self._vec.step(self._acts)  # the ended episode auto-resets: the next one of the same seed's sequence
        else:
            self._vec.reset(seed=int(self._np_rng.integers(2**63)))
        self._started, self._done, self._lost = True, False, False
        return self._obs(), self._info()

    def step(self, action):
        if not self._started or self._done:
            raise DeathStacksError("step after the episode's end (or before reset): call reset()")
        a = integer(action, "action")
        if not 0 <= a < spaces.NUM_ACTIONS or not self._vec._mask[0, a]:
            if self.illegal_action == "raise":
                raise DeathStacksError(f"action {a} is not legal in {self._vec.fen(0)}")
            self._done, self._lost = True, True
            return self._obs(), -1.0, True, False, self._info()
        self._acts[0] = a
        obs, rewards, term, trunc, _ = self._vec.step(self._acts)
        self._done = bool(term[0] or trunc[0])
        return self._obs(), float(rewards[0]), bool(term[0]), bool(trunc[0]), self._info()

    def render(self):
        return render_fen(self._vec.fen(0))

    def fen(self) -> str:
        return self._vec.fen(0)

    def close(self):
        self._vec.close()


def render_fen(fen: str) -> str:
    from .players import render

    return render(fen)


def register() -> bool:
    """Registers the environment with Gymnasium as deathstacks/DeathStacks-v0
    (done on import when Gymnasium is installed)."""
    if gymnasium is None:
        return False
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="deathstacks.gym_env:DeathStacksEnv")
    return True

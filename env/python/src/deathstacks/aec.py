"""The PettingZoo AEC environment: two agents, "red" and "blue", taking
turns, with the conventions of PettingZoo's classic board games."""

from __future__ import annotations

import ctypes

import numpy as np

from . import spaces
from ._lib import INFO, DeathStacksError, Handle, check, cstr, flag, integer, lib, ptr, seed_of, text

try:  # pragma: no cover - depends on what is installed
    from pettingzoo import AECEnv as _Base

    HAVE_PETTINGZOO = True
except ImportError:
    HAVE_PETTINGZOO = False

    class _Base:
        """What the environment needs of pettingzoo.AECEnv without it."""

        metadata: dict = {}

        def agent_iter(self, max_iter: int = 2**63):
            """Yields the agent to act until no agent is left."""
            for _ in range(max_iter):
                if not self.agents:
                    return
                yield self.agent_selection

        @property
        def num_agents(self) -> int:
            return len(self.agents)

        @property
        def max_num_agents(self) -> int:
            return len(self.possible_agents)

        @property
        def unwrapped(self):
            return self

        def __str__(self) -> str:
            return self.metadata.get("name", type(self).__name__)


AGENTS = ("red", "blue")
STATUSES = tuple(INFO["statuses"])
_TEXT_FEN, _TEXT_RENDER, _TEXT_MOVES, _TEXT_START = range(4)


class Rules:
    """The rules options shared by every environment."""

    def __init__(self, too_tall: bool = True, max_plies: int = INFO["max_plies"], repetitions: int = INFO["repetitions"]):
        self.too_tall = flag(too_tall, "too_tall")
        self.max_plies = integer(max_plies, "max_plies", 0, 2**31 - 1)
        self.repetitions = integer(repetitions, "repetitions", 0, 2**31 - 1)


class DeathStacksAEC(Handle, _Base):
    """Death Stacks as a PettingZoo AEC environment.

    Agents "red" and "blue" alternate, red first; observations are
    ``{"observation": float32 (21, 6, 6) planes seen from the side to move,
    "action_mask": int8 (6912,)}`` (the mask all zeros for the agent not to
    move); actions index the fixed space of 6,912 (see
    :func:`deathstacks.move_of`). Rewards are +1 and -1 at a win, 0
    otherwise; a win or a draw by repetition terminates both agents, the
    move limit truncates them. Options: the rules (``too_tall``,
    ``max_plies``, ``repetitions``), ``fen`` to start from and
    ``opening_plies`` random plies after each reset (drawn from the seed);
    ``reset(options={"fen": ..., "opening_plies": ...})`` changes them for
    one episode.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "deathstacks_v0", "is_parallelizable": False, "render_fps": 1}
    _what = "environment"

    def __init__(self, render_mode: str | None = None, too_tall: bool = True, max_plies: int = INFO["max_plies"],
                 repetitions: int = INFO["repetitions"], fen: str | None = None, opening_plies: int = 0):
        super().__init__()
        if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in self.metadata["render_modes"]):
            raise DeathStacksError(f"render_mode {render_mode!r}: want one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self._rules = Rules(too_tall, max_plies, repetitions)
        self._fen = "" if fen is None else fen
        cstr(self._fen, "fen")
        self._opening = integer(opening_plies, "opening_plies", 0, 2**31 - 1)
        self._h = check(lib.ds_env_new(self._rules.too_tall, self._rules.max_plies, self._rules.repetitions, self._opening))
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        space = spaces.observation_space()
        self.observation_spaces = {a: space if i == 0 else spaces.observation_space() for i, a in enumerate(AGENTS)}
        self.action_spaces = {a: spaces.action_space() for a in AGENTS}
        self._obs = np.zeros(spaces.OBSERVATION_SHAPE, np.float32)
        self._mask = np.zeros(spaces.NUM_ACTIONS, np.int8)
        self._result = (ctypes.c_double * 3)()
        self._state = np.zeros(5, np.int64)
        self._rng = np.random.default_rng()
        self._reset_state(0)
        self._started = False
        # Check the start FEN now rather than at the first reset.
        self._reset_go(0, self._fen, self._opening)

    # Spaces: the same objects on every call.
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _reset_go(self, seed: int, fen: str, opening: int) -> None:
        check(lib.ds_env_reset(self._handle(), seed, cstr(fen, "fen"), opening,
                               ptr(self._obs), self._obs.size, ptr(self._mask), self._mask.size))

    def _reset_state(self, side: int) -> None:
        self.agents = list(AGENTS)
        self.rewards = {a: 0 for a in AGENTS}
        self._cumulative_rewards = {a: 0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[side]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Starts a new episode. A seed reseeds the environment's generator,
        from which each episode's random opening plies are drawn."""
        if seed is not None:
            self._rng = np.random.default_rng(seed_of(seed))
        fen, opening = self._fen, self._opening
        if options:
            if not isinstance(options, dict):
                raise TypeError(f"options must be a dict, not {type(options).__name__}")
            fen = options.get("fen", fen) or ""
            opening = integer(options.get("opening_plies", opening), "opening_plies", 0, 2**31 - 1)
        episode_seed = int(self._rng.integers(2**63))
        self._reset_go(episode_seed, fen, opening)
        self._started = True
        self._reset_state(self._side())

    def _side(self) -> int:
        check(lib.ds_env_state(self._handle(), ptr(self._state), 5))
        return int(self._state[3])

    def observe(self, agent):
        """The agent's observation: the planes (the same for both agents)
        and its action mask (zeros unless it is to move)."""
        self._handle()
        if not isinstance(agent, str) or agent not in AGENTS:
            raise DeathStacksError(f"agent {agent!r}: want one of {AGENTS}")
        if agent == self.agent_selection and self.agents:
            mask = self._mask.copy()
        else:
            mask = np.zeros(spaces.NUM_ACTIONS, np.int8)
        return {"observation": self._obs.copy(), "action_mask": mask}

    def last(self, observe: bool = True):
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return obs, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent], self.infos[agent]

    def step(self, action) -> None:
        """Plays the action of the agent to move; once the game has ended,
        each agent takes one more step with action None to leave."""
        h = self._handle()
        if not self._started:
            raise DeathStacksError("step before reset: call reset() first")
        if not self.agents:
            raise DeathStacksError("step after every agent has left: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if action is None:
            raise DeathStacksError(f"step(None) for {agent}, whose game goes on: want an action")
        action = integer(action, "action", 0, spaces.NUM_ACTIONS - 1)
        self._cumulative_rewards[agent] = 0
        check(lib.ds_env_step(h, action, ptr(self._obs), self._obs.size, ptr(self._mask), self._mask.size, self._result))
        reward, terminated, truncated = self._result
        other = AGENTS[1 - AGENTS.index(agent)]
        self.rewards = {agent: float(reward), other: -float(reward)}
        if terminated or truncated:
            self.terminations = {a: bool(terminated) for a in AGENTS}
            self.truncations = {a: bool(truncated) for a in AGENTS}
        self.agent_selection = other
        for a, r in self.rewards.items():
            self._cumulative_rewards[a] += r
        if self.render_mode == "human":
            print(self.render())

    def _was_dead_step(self, action) -> None:
        if action is not None:
            raise DeathStacksError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            del d[agent]
        self.agents.remove(agent)
        self.rewards = {a: 0 for a in self.agents}
        if self.agents:
            self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        """The board as text (render_mode "ansi" returns it, "human"
        prints it)."""
        board = text(lib.ds_env_text, self._handle(), _TEXT_RENDER)
        if self.render_mode == "human":
            print(board)
            return None
        return board

    # Helpers beyond PettingZoo's API.
    def fen(self) -> str:
        """The FEN of the current position."""
        return text(lib.ds_env_text, self._handle(), _TEXT_FEN)

    def moves(self) -> list[str]:
        """The moves played since the episode's start position, the random
        opening plies first: with start_fen(), the whole game."""
        return text(lib.ds_env_text, self._handle(), _TEXT_MOVES).split()

    def start_fen(self) -> str:
        """The FEN the episode started from (before its opening plies)."""
        return text(lib.ds_env_text, self._handle(), _TEXT_START)

    def legal_actions(self) -> np.ndarray:
        """The legal actions of the current position (none once it has ended)."""
        out = np.zeros(256, np.int64)
        n = check(lib.ds_env_legal(self._handle(), ptr(out), out.size))
        if n > out.size:
            out = np.zeros(n, np.int64)
            n = check(lib.ds_env_legal(self._handle(), ptr(out), out.size))
        return out[:n].copy()

    def status(self) -> str:
        """The game's status: "ongoing", "red wins", "blue wins", ..."""
        check(lib.ds_env_state(self._handle(), ptr(self._state), 5))
        return STATUSES[int(self._state[0])]

    def close(self) -> None:
        """Releases the environment; calls after it raise ClosedError."""
        Handle.close(self)


def env(**options) -> DeathStacksAEC:
    """A new AEC environment; see :class:`DeathStacksAEC` for the options."""
    return DeathStacksAEC(**options)


raw_env = DeathStacksAEC

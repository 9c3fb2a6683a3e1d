"""The observation and action spaces: Gymnasium's when it is installed,
else minimal stand-ins with the same attributes (shape, dtype, n, low,
high, spaces, contains, sample, seed), so that the API is the same."""

from __future__ import annotations

import numpy as np

from ._lib import INFO

NUM_ACTIONS = INFO["num_actions"]
OBSERVATION_SHAPE = (INFO["num_planes"], INFO["board_size"], INFO["board_size"])

try:  # pragma: no cover - depends on what is installed
    from gymnasium.spaces import Box, Dict, Discrete, Space

    HAVE_GYMNASIUM = True
except ImportError:
    HAVE_GYMNASIUM = False

    class Space:
        """The base of the stand-in spaces."""

        def __init__(self, shape=None, dtype=None, seed=None):
            self.shape = shape
            self.dtype = None if dtype is None else np.dtype(dtype)
            self._np_random = None
            if seed is not None:
                self.seed(seed)

        @property
        def np_random(self) -> np.random.Generator:
            if self._np_random is None:
                self._np_random = np.random.default_rng()
            return self._np_random

        def seed(self, seed=None):
            self._np_random = np.random.default_rng(seed)
            return [seed]

        def __contains__(self, x) -> bool:
            return self.contains(x)

    class Discrete(Space):
        """The actions 0..n-1."""

        def __init__(self, n: int, seed=None, start: int = 0):
            super().__init__((), np.int64, seed)
            self.n = np.int64(n)
            self.start = np.int64(start)

        def contains(self, x) -> bool:
            if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
                return bool(self.start <= x < self.start + self.n)
            if isinstance(x, np.ndarray) and x.shape == () and np.issubdtype(x.dtype, np.integer):
                return bool(self.start <= x < self.start + self.n)
            return False

        def sample(self, mask=None, probability=None) -> np.int64:
            if mask is not None:
                mask = np.asarray(mask)
                if mask.shape != (self.n,) or mask.dtype != np.int8:
                    raise ValueError(f"mask must be an int8 array of shape ({self.n},)")
                legal = np.flatnonzero(mask)
                if len(legal) == 0:
                    return self.start
                return np.int64(self.start + self.np_random.choice(legal))
            return np.int64(self.start + self.np_random.integers(self.n))

        def __repr__(self) -> str:
            return f"Discrete({self.n})"

        def __eq__(self, other) -> bool:
            return isinstance(other, Discrete) and self.n == other.n and self.start == other.start

    class Box(Space):
        """Arrays of a shape and dtype between low and high."""

        def __init__(self, low, high, shape=None, dtype=np.float32, seed=None):
            dtype = np.dtype(dtype)
            if shape is None:
                shape = np.shape(low)
            shape = tuple(shape)
            super().__init__(shape, dtype, seed)
            self.low = np.broadcast_to(np.asarray(low, dtype), shape).copy()
            self.high = np.broadcast_to(np.asarray(high, dtype), shape).copy()

        def contains(self, x) -> bool:
            if not isinstance(x, np.ndarray):
                return False
            return bool(
                x.shape == self.shape
                and np.can_cast(x.dtype, self.dtype)
                and np.all(x >= self.low)
                and np.all(x <= self.high)
            )

        def sample(self, mask=None) -> np.ndarray:
            if np.issubdtype(self.dtype, np.integer):
                return self.np_random.integers(self.low, self.high.astype(np.int64) + 1, self.shape).astype(self.dtype)
            return self.np_random.uniform(self.low, self.high, self.shape).astype(self.dtype)

        def __repr__(self) -> str:
            return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"

    class Dict(Space):
        """A dict of named spaces."""

        def __init__(self, spaces: dict, seed=None):
            super().__init__(None, None)
            self.spaces = dict(spaces)
            if seed is not None:
                self.seed(seed)

        def seed(self, seed=None):
            rng = np.random.default_rng(seed)
            for i, space in enumerate(self.spaces.values()):
                space.seed(int(rng.integers(2**31)) + i)
            return [seed]

        def contains(self, x) -> bool:
            return isinstance(x, dict) and x.keys() == self.spaces.keys() and all(
                self.spaces[k].contains(x[k]) for k in self.spaces
            )

        def sample(self, mask=None) -> dict:
            return {k: s.sample() for k, s in self.spaces.items()}

        def __getitem__(self, key):
            return self.spaces[key]

        def keys(self):
            return self.spaces.keys()

        def __repr__(self) -> str:
            return "Dict(" + ", ".join(f"{k!r}: {v!r}" for k, v in self.spaces.items()) + ")"


def observation_box(batch: int | None = None) -> Box:
    """The observation planes: float32, every plane in [0, 1] except the
    stack heights', which reach 2."""
    high = np.ones(OBSERVATION_SHAPE, np.float32)
    for plane, h in enumerate(INFO["height_high"].split(",")):
        high[plane] = float(h)
    shape = OBSERVATION_SHAPE
    if batch is not None:
        high = np.broadcast_to(high, (batch,) + shape)
        shape = (batch,) + shape
    return Box(low=np.zeros(shape, np.float32), high=np.array(high, np.float32), shape=shape, dtype=np.float32)


def mask_box(batch: int | None = None) -> Box:
    """The legal-action mask: int8, 1 for a legal action."""
    shape = (NUM_ACTIONS,) if batch is None else (batch, NUM_ACTIONS)
    return Box(low=0, high=1, shape=shape, dtype=np.int8)


def observation_space(batch: int | None = None) -> Dict:
    """Dict(observation, action_mask), as PettingZoo's board games have."""
    return Dict({"observation": observation_box(batch), "action_mask": mask_box(batch)})


def action_space() -> Discrete:
    return Discrete(NUM_ACTIONS)


try:  # pragma: no cover - depends on what is installed
    from gymnasium.spaces import MultiDiscrete
except ImportError:

    class MultiDiscrete(Space):
        """A vector of discrete actions, one per environment."""

        def __init__(self, nvec, seed=None):
            self.nvec = np.asarray(nvec, np.int64)
            super().__init__(self.nvec.shape, np.int64, seed)

        def contains(self, x) -> bool:
            return isinstance(x, np.ndarray) and x.shape == self.shape and np.issubdtype(x.dtype, np.integer) and bool(
                np.all((x >= 0) & (x < self.nvec))
            )

        def sample(self, mask=None) -> np.ndarray:
            return (self.np_random.random(self.shape) * self.nvec).astype(np.int64)

        def __repr__(self) -> str:
            return f"MultiDiscrete({self.nvec})"


def batched_action_space(n: int) -> MultiDiscrete:
    return MultiDiscrete(np.full(n, NUM_ACTIONS, np.int64))

"""The network in PyTorch: a ``torch.nn.Module`` that computes what the Go
network computes, loaded from and saved to the project's network files.

    import deathstacks.torch as dst
    net = dst.load("checkpoints/default")     # any model path; None: the built-in player
    logits, values = net(obs, masks)          # (n, 6912), (n,)
    dst.save(net, "mine.dsnn", search={"sims": 200})   # az:model=mine.dsnn plays it

The architecture is model's (see model/doc.go): a 3x3 convolution from the
21 observation planes to ``channels`` planes (bias, ReLU), ``blocks``
residual blocks (conv3x3-bias-ReLU-conv3x3-bias, plus the block's input,
ReLU); a policy head of a 1x1 convolution to 192 planes without bias,
flattened plane-major (env's action order), plus a bias per action; a value
head of a 1x1 convolution to ``value_planes`` planes (bias, ReLU), a fully
connected layer of ``value_hidden`` units (bias, ReLU) and one output
through tanh. Reading and writing files goes through the library: what it
reads (every form az:model= takes) and writes (a player file, with the
writer of ``deathstacks export``) are Go's own.

This module needs PyTorch (``pip install torch``, or Debian's
``python3-torch``); ``import deathstacks`` does not.
"""

from __future__ import annotations

import ctypes
import json
import math
import numbers
import os

try:
    import torch
    from torch import nn
    from torch.nn import functional as F
except ImportError as err:  # pragma: no cover - depends on what is installed
    raise ImportError(
        f"deathstacks.torch needs PyTorch, which cannot be imported ({err}): install torch "
        "(pip install torch, or apt-get install python3-torch for Debian's Python)"
    ) from err

import numpy as np

from . import spaces
from ._lib import DeathStacksError, check, cstr, lib, ptr, text
from .players import Network

__all__ = ["DeathStacksNet", "load", "save", "evaluator"]

# The library's functions of this module: name: argument types (each
# returns int64, as _lib declares its own).
for _name, _args in {
    "ds_network_about": [ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64],
    "ds_network_save": [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p],
}.items():
    getattr(lib, _name).argtypes = _args
    getattr(lib, _name).restype = ctypes.c_int64

NUM_PLANES, BOARD, _ = spaces.OBSERVATION_SHAPE
NUM_SQUARES = BOARD * BOARD
POLICY_PLANES = spaces.NUM_ACTIONS // NUM_SQUARES

_CONFIG_KEYS = ("blocks", "channels", "value_planes", "value_hidden")


class ResidualBlock(nn.Module):
    """conv3x3-bias-ReLU-conv3x3-bias plus the input, then ReLU."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return F.relu(x + self.conv2(F.relu(self.conv1(x))))


class DeathStacksNet(nn.Module):
    """The policy and value network of a config: ``blocks`` residual blocks
    of ``channels`` planes, a value head of ``value_planes`` planes and
    ``value_hidden`` units (the defaults are model.DefaultConfig's). A new
    module starts with weights drawn as model draws them (He-normal, each
    residual branch's last convolution scaled down by sqrt(blocks), the
    heads small), not the same values. ``steps`` and ``meta`` are the
    training steps and metadata of the file it was loaded from, which
    :func:`save` writes again."""

    def __init__(self, blocks: int = 3, channels: int = 32, value_planes: int = 2, value_hidden: int = 64):
        super().__init__()
        self.config = {}
        for key, value, lo in zip(_CONFIG_KEYS, (blocks, channels, value_planes, value_hidden), (0, 1, 1, 1)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{key} must be an integer, not {type(value).__name__}")
            if value < lo:
                raise DeathStacksError(f"{key} is {value}: want {lo} or more")
            self.config[key] = int(value)
        blocks, channels, value_planes, value_hidden = self.config.values()
        self.steps = 0
        self.meta: dict[str, str] = {}
        self.stem = nn.Conv2d(NUM_PLANES, channels, 3, padding=1)
        self.blocks = nn.ModuleList(ResidualBlock(channels) for _ in range(blocks))
        self.policy = nn.Conv2d(channels, POLICY_PLANES, 1, bias=False)
        self.policy_bias = nn.Parameter(torch.zeros(spaces.NUM_ACTIONS))
        self.value_conv = nn.Conv2d(channels, value_planes, 1)
        self.value_fc1 = nn.Linear(value_planes * NUM_SQUARES, value_hidden)
        self.value_fc2 = nn.Linear(value_hidden, 1)
        self.reset_parameters()

    def extra_repr(self) -> str:
        c = self.config
        return f"{c['blocks']}x{c['channels']} (value {c['value_planes']}/{c['value_hidden']})"

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """Draws the weights as model/params.go does (from torch's random
        generator): He-normal weights, biases 0."""
        blocks, ch = self.config["blocks"], self.config["channels"]

        def he(fan_in: int) -> float:
            return math.sqrt(2 / fan_in)

        for p in self.parameters():
            p.zero_()
        self.stem.weight.normal_(0, he(NUM_PLANES * 9))
        for b in self.blocks:
            b.conv1.weight.normal_(0, he(ch * 9))
            b.conv2.weight.normal_(0, he(ch * 9) / math.sqrt(max(blocks, 1)))
        self.policy.weight.normal_(0, 0.1 / math.sqrt(ch))
        self.value_conv.weight.normal_(0, he(ch))
        self.value_fc1.weight.normal_(0, he(self.value_fc1.in_features))
        self.value_fc2.weight.normal_(0, 0.1 / math.sqrt(self.config["value_hidden"]))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor | None = None):
        """Policy logits (n, 6912) and values (n,) in [-1, 1] for the side
        to move, of observations (n, 21, 6, 6) of the module's dtype
        (float32 unless converted). With mask (n, 6912), bool or integer,
        nonzero for a legal action, an illegal action's logit is the
        dtype's lowest number, so that a softmax gives it 0. The logits are
        the Go network's: ``log_softmax`` over the legal actions gives the
        log-probabilities the search uses."""
        dtype = self.stem.weight.dtype
        if not isinstance(obs, torch.Tensor):
            raise TypeError(f"obs must be a torch.Tensor, not {type(obs).__name__} (torch.from_numpy converts an array)")
        if obs.dim() != 4 or tuple(obs.shape[1:]) != spaces.OBSERVATION_SHAPE:
            raise DeathStacksError(f"obs has shape {tuple(obs.shape)}: want (n, 21, 6, 6)")
        if obs.dtype != dtype:
            raise DeathStacksError(f"obs has dtype {obs.dtype}: the module's weights are {dtype}")
        # Channel-last activations, as Go's kernels keep them: oneDNN's
        # brgemm convolutions (CPUs with AVX-512) then sum each output as
        # Go does (the taps in order, each tap's input channels in order,
        # fused multiply-adds from 0, then the bias, then the residual),
        # and the trunk and the logits are Go's bit for bit in float32.
        # Channel-first (oneDNN's blocked kernels) the same float32 sums
        # round differently, 1.5e-5 from Go in the built-in network's
        # log-probabilities (see tests/test_torch.py).
        obs = obs.contiguous(memory_format=torch.channels_last)
        h = F.relu(self.stem(obs))
        for block in self.blocks:
            h = block(h)
        logits = self.policy(h).flatten(1) + self.policy_bias
        v = F.relu(self.value_conv(h)).flatten(1)
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(v)))).squeeze(1)
        if mask is not None:
            logits = logits.masked_fill(~_legal(mask, obs.shape[0]), torch.finfo(dtype).min)
        return logits, value

    # The file's tensors: name, the parameter holding it, and whether the
    # file stores it transposed (a fully connected layer's (in, out)
    # against torch's (out, in)). Biases are stored (1, C, 1, 1) or (1, N),
    # reshaped.
    def _file_tensors(self):
        yield "stem.w", self.stem.weight, False
        yield "stem.b", self.stem.bias, False
        for i, b in enumerate(self.blocks):
            yield f"block{i}.w1", b.conv1.weight, False
            yield f"block{i}.b1", b.conv1.bias, False
            yield f"block{i}.w2", b.conv2.weight, False
            yield f"block{i}.b2", b.conv2.bias, False
        yield "policy.w", self.policy.weight, False
        yield "policy.b", self.policy_bias, False
        yield "value.conv.w", self.value_conv.weight, False
        yield "value.conv.b", self.value_conv.bias, False
        yield "value.fc1.w", self.value_fc1.weight, True
        yield "value.fc1.b", self.value_fc1.bias, False
        yield "value.fc2.w", self.value_fc2.weight, True
        yield "value.fc2.b", self.value_fc2.bias, False

    def file_weights(self) -> dict:
        """The weights as the network file holds them: float32 numpy
        arrays by name, in file order, with the file's shapes (those of
        :meth:`deathstacks.Network.weights`)."""
        out = {}
        for name, p, transposed in self._file_tensors():
            if p.dtype != torch.float32:
                raise DeathStacksError(f"{name} is {p.dtype}: a network file holds float32 (module.float() converts)")
            a = p.detach().cpu()
            out[name] = np.ascontiguousarray((a.t() if transposed else a).numpy())
        return out

    @torch.no_grad()
    def set_file_weights(self, weights: dict) -> None:
        """Sets every weight from arrays named and shaped as the network
        file holds them (those of :meth:`deathstacks.Network.weights`);
        weights of another config, or missing, are an error that names
        them, and change nothing."""
        want = list(self._file_tensors())
        names = [name for name, _, _ in want]
        if list(weights) != names:
            missing = [n for n in names if n not in weights]
            extra = [n for n in weights if n not in names]
            raise DeathStacksError(f"weights for another config than {self.extra_repr()}: missing {missing}, extra {extra}")
        values = []
        for name, p, transposed in want:
            a = torch.as_tensor(np.asarray(weights[name]))
            if a.dtype != torch.float32:
                raise DeathStacksError(f"{name} is {a.dtype}: want float32")
            a = a.t() if transposed else a
            if a.numel() != p.numel() or a.squeeze().shape != p.squeeze().shape:
                shape = tuple(np.shape(weights[name]))
                raise DeathStacksError(f"{name} has shape {shape}: a {self.extra_repr()} module holds {tuple(p.shape)}")
            values.append(a.reshape(p.shape))
        for (_, p, _), a in zip(want, values):
            p.copy_(a)


def _legal(mask, n: int) -> torch.Tensor:
    """A mask argument as a bool tensor (n, 6912)."""
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a torch.Tensor, not {type(mask).__name__} (torch.from_numpy converts an array)")
    if tuple(mask.shape) != (n, spaces.NUM_ACTIONS):
        raise DeathStacksError(f"mask has shape {tuple(mask.shape)}: want ({n}, {spaces.NUM_ACTIONS})")
    if mask.dtype == torch.bool:
        return mask
    if mask.dtype.is_floating_point or mask.dtype.is_complex:
        raise DeathStacksError(f"mask has dtype {mask.dtype}: want bool or an integer type")
    return mask != 0


def load(path: str | os.PathLike | None = None) -> DeathStacksNet:
    """The network of a model path as a module, read by the library as
    ``az:model=PATH`` reads it: a network file, an exported player, a
    checkpoint, a run's snapshot (nets/net-N.dsnn) or a run directory (its
    latest checkpoint); None for the built-in player. Its ``steps`` and
    ``meta`` (with the search settings it plays with under "search") come
    along."""
    network = Network(None if path is None else _path(path))
    try:
        about = json.loads(text(lib.ds_network_about, network._handle()))
        module = DeathStacksNet(**about["config"])
        module.set_file_weights(network.weights())
    finally:
        network.close()
    module.steps, module.meta = about["steps"], dict(about["meta"] or {})
    return module


def save(module: DeathStacksNet, path: str | os.PathLike, search: dict | None = None, meta: dict | None = None,
         steps: int | None = None) -> None:
    """Writes the module as a player file that ``az:model=PATH`` plays and
    ``deathstacks inspect`` describes, through the library (the writer of
    ``deathstacks export``: checksummed, written atomically). Its search
    settings are those ``module.meta`` carries (a loaded module's; the
    library's defaults for a new one) with ``search`` over them: az spec
    keys such as ``{"sims": 200, "c_puct": 2}``. ``meta`` adds metadata
    entries (strings) over ``module.meta``'s; "made_by" is
    "deathstacks.torch.save" unless given. ``steps`` is the training step
    count it records (default ``module.steps``). Weights that are not
    float32 or not finite are an error."""
    if not isinstance(module, DeathStacksNet):
        raise TypeError(f"module must be a DeathStacksNet, not {type(module).__name__}")
    out = _path(path)
    steps = module.steps if steps is None else steps
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise DeathStacksError(f"steps is {steps!r}: want an integer, 0 or more")
    request = {
        "config": module.config,
        "steps": steps,
        "meta": _strings(module.meta, "module.meta"),
        "search": {k: _setting(v) for k, v in _strings(search or {}, "search", values=False).items()},
        "extra_meta": {"made_by": "deathstacks.torch.save", **_strings(meta or {}, "meta")},
    }
    flat = np.concatenate([w.ravel() for w in module.file_weights().values()])
    check(lib.ds_network_save(cstr(json.dumps(request), "network description"), ptr(flat), flat.size,
                              cstr(out, "path")))


def _path(path) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, not {type(path).__name__}")
    path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError("path must name a file as a str, not bytes")
    return path


def _strings(d, what: str, values: bool = True) -> dict:
    """A dict of strings (keys only, unless values), checked."""
    if not isinstance(d, dict):
        raise TypeError(f"{what} must be a dict, not {type(d).__name__}")
    for k, v in d.items():
        if not isinstance(k, str) or values and not isinstance(v, str):
            raise TypeError(f"{what}: {k!r}: {v!r}: want str keys{' and values' if values else ''}")
    return d


def _setting(v) -> str:
    """A search setting's value as an az spec writes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return str(v)
    raise TypeError(f"search setting {v!r}: want a number, bool or str")


def evaluator(module: DeathStacksNet):
    """A numpy function of the module, ``evaluate(obs (n, 21, 6, 6)
    float32, masks (n, 6912) or None) -> (logits (n, 6912), values (n,))``
    float32, run without gradients on the module's device."""
    if not isinstance(module, DeathStacksNet):
        raise TypeError(f"module must be a DeathStacksNet, not {type(module).__name__}")

    @torch.no_grad()
    def evaluate(obs: np.ndarray, masks: np.ndarray | None = None):
        for what, a in (("obs", obs), ("masks", masks)):
            if a is not None and not isinstance(a, np.ndarray):
                raise TypeError(f"{what} must be a numpy array, not {type(a).__name__}")
        device = module.stem.weight.device
        o = torch.from_numpy(np.ascontiguousarray(obs)).to(device)
        m = None if masks is None else torch.from_numpy(np.ascontiguousarray(masks)).to(device)
        logits, values = module(o, m)
        return logits.cpu().numpy(), values.cpu().numpy()

    return evaluate

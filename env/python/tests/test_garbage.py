"""Bad input gets a Python exception, never a crash: garbage thrown at every
function, after which the interpreter (this process) still works."""

import os

import numpy as np
import pytest

import deathstacks as ds
from deathstacks import _lib

GARBAGE = [None, -1, 2**63, 2**64, -(2**70), 3.5, float("nan"), "", "x", "\0", "a6-2-a4\0junk", "🂡" * 1000,
           b"bytes", [], [1, 2], {}, object(), True, np.int8(5), np.zeros(3), np.zeros((2, 2), np.float64)]

BAD_FENS = ["x", "rr,rr r", "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb x",
            "rrrrrrrrrrrrrr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/bb,,,,, r", "\0", "a" * 100000, ",,,,,/" * 6 + " r"]

ERRORS = (ds.DeathStacksError, TypeError, ValueError, OverflowError, KeyError)


def refuse(f, *args, **kwargs):
    with pytest.raises(ERRORS):
        f(*args, **kwargs)


def poke(f, *args, **kwargs):
    """Calls f, which may accept the value or refuse it with one of ERRORS,
    and must do nothing else (any other exception, or a crash)."""
    try:
        f(*args, **kwargs)
    except ERRORS:
        return False
    return True


@pytest.mark.parametrize("g", GARBAGE, ids=repr)
def test_garbage_at_every_function(g):
    env = ds.env()
    env.reset(seed=0)
    vec = ds.VectorEnv(2)
    vec.reset(seed=0)
    gym = ds.DeathStacksEnv()
    gym.reset(seed=0)
    p = ds.Player("random")
    net = ds.Network()
    calls = [
        lambda: ds.action_of(g), lambda: ds.move_of(g), lambda: ds.legal_moves(g), lambda: ds.legal_moves(too_tall=g),
        lambda: ds.render(g), lambda: ds.Player(g), lambda: ds.Player("random", seed=g), lambda: ds.Network(g),
        lambda: ds.VectorEnv(g), lambda: ds.VectorEnv(2, opponent=g), lambda: ds.VectorEnv(2, agent=g),
        lambda: ds.VectorEnv(2, max_plies=g), lambda: ds.env(fen=g), lambda: ds.env(max_plies=g),
        lambda: ds.env(repetitions=g), lambda: ds.env(opening_plies=g), lambda: ds.env(too_tall=g),
        lambda: ds.env(render_mode=g), lambda: env.step(g), lambda: env.reset(seed=g),
        lambda: env.reset(options={"fen": g}), lambda: env.reset(options={"opening_plies": g}),
        lambda: env.reset(options=g), lambda: env.observe(g), lambda: vec.step(g), lambda: vec.reset(seed=g),
        lambda: vec.sample_actions(g), lambda: vec.fen(g), lambda: vec.step(np.array([g, g], dtype=object)),
        lambda: ds.DeathStacksEnv(opponent=g), lambda: ds.DeathStacksEnv(agent=g), lambda: gym.step(g),
        lambda: gym.reset(seed=g), lambda: p.choose(g), lambda: p.choose(ds.START_FEN, [g]),
        lambda: p.choose(ds.START_FEN, g), lambda: net.predict(g),
    ]
    refused = sum(not poke(c) for c in calls)
    assert refused >= len(calls) // 2, "most garbage is refused"
    env.reset(seed=0)  # the objects still work
    env.step(66)
    vec.step(vec.sample_actions())


@pytest.mark.parametrize("fen", BAD_FENS)
def test_bad_fens(fen):
    refuse(ds.legal_moves, fen)
    refuse(ds.render, fen)
    refuse(ds.env, fen=fen) if fen else None
    refuse(ds.Player("greedy").choose, fen) if fen else None
    env = ds.env()
    refuse(env.reset, options={"fen": fen}) if fen else None


def test_finished_positions_refused():
    won = "rr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b"
    refuse(ds.env, fen=won)
    refuse(ds.Player("random").choose, won)
    refuse(ds.Player("random").choose, ds.START_FEN, ["a6-2-a4", "a6-2-a4"])  # a6 is empty now


def test_actions_out_of_range_and_illegal():
    env = ds.env()
    env.reset(seed=0)
    fen = env.fen()
    for a in (-1, 6912, 2**40, ds.action_of("a1-1-a2")):  # the last is blue's, red is to move
        refuse(env.step, a)
    assert env.fen() == fen and env.agent_selection == "red"
    vec = ds.VectorEnv(3)
    vec.reset(seed=0)
    before = [vec.fen(i) for i in range(3)]
    refuse(vec.step, np.array([66, 66, 6912]))
    refuse(vec.step, np.array([66, 66, ds.action_of("a1-1-a2")]))
    refuse(vec.step, np.array([66, 66]))
    refuse(vec.step, np.array([66.0, 66.0, 66.0]))
    assert [vec.fen(i) for i in range(3)] == before
    vec.step(np.array([66, 66, 66]))
    assert all(vec.fen(i) != before[i] for i in range(3))
    gym = ds.DeathStacksEnv(illegal_action="raise")
    gym.reset(seed=0)
    refuse(gym.step, 6912)
    refuse(gym.step, ds.action_of("a1-1-a2"))


def test_wrong_arrays():
    net = ds.Network()
    refuse(net.predict, np.zeros((2, 21, 6, 6), np.float64))
    refuse(net.predict, np.zeros((2, 21, 6), np.float32))
    refuse(net.predict, np.zeros((2, 20, 6, 6), np.float32))
    refuse(net.predict, [[0.0]])
    refuse(net.predict, np.full((1, 21, 6, 6), np.nan, np.float32))
    vec = ds.VectorEnv(2)
    vec.reset()
    refuse(vec.sample_actions, np.zeros(2, np.int32))
    refuse(vec.sample_actions, np.zeros(3, np.int64))
    refuse(vec.sample_actions, np.zeros(4, np.int64)[::2])
    refuse(vec.step, np.zeros((2, 1), np.int64))
    refuse(vec.step, [[1, 2], [3]])
    # The library checks buffer sizes itself, too.
    obs = np.zeros(10, np.float32)
    env = ds.env()
    with pytest.raises(ds.DeathStacksError, match="observation"):
        _lib.check(_lib.lib.ds_env_observe(env._h, obs.ctypes.data, obs.size, None, 0))


def test_bad_specs_and_model_files(tmp_path):
    for spec in ["", "nope", "alphabeta:depth=0", "alphabeta:depth=x", "az:model=", "az:sims=-1", "random:x=1",
                 "mcts:sims=0", "alphabeta:depth=2,depth=3", ":", "az:model=" + str(tmp_path / "missing.dsnn")]:
        refuse(lambda: ds.Player(spec).choose())
        refuse(lambda: ds.VectorEnv(2, opponent=spec).reset(seed=0)) if spec else None
    refuse(ds.Network, str(tmp_path / "missing.dsnn"))
    for name, data in [("empty.dsnn", b""), ("random.dsnn", os.urandom(5000)), ("magic.dsnn", b"DSTKNNET" + b"\1" * 100)]:
        path = tmp_path / name
        path.write_bytes(data)
        refuse(ds.Network, str(path))
        refuse(lambda: ds.Player("az:model=" + str(path)).choose())
    refuse(ds.Network, str(tmp_path))  # a directory without checkpoints


def test_closed_objects():
    env = ds.env()
    env.reset()
    env.close()
    env.close()  # twice is fine
    for f in (env.reset, env.last, env.render, env.fen, env.legal_actions, lambda: env.step(0),
              lambda: env.observe("red")):
        with pytest.raises(ds.ClosedError):
            f()
    vec = ds.VectorEnv(2)
    vec.reset()
    vec.close()
    for f in (vec.reset, vec.sample_actions, lambda: vec.step(np.zeros(2, np.int64)), lambda: vec.fen(0)):
        with pytest.raises(ds.ClosedError):
            f()
    p = ds.Player("random")
    p.close()
    with pytest.raises(ds.ClosedError):
        p.choose()
    net = ds.Network()
    net.close()
    with pytest.raises(ds.ClosedError):
        net.predict(np.zeros((1, 21, 6, 6), np.float32))
    # A handle closed in the library, or never opened, is an error, not a crash.
    with pytest.raises(ds.ClosedError):
        _lib.check(_lib.lib.ds_close(123456789))
    buf = np.zeros(5, np.int64)
    with pytest.raises(ds.ClosedError):
        _lib.check(_lib.lib.ds_env_state(-3, buf.ctypes.data, 5))


def test_handles_of_another_kind():
    p = ds.Player("random")
    buf = np.zeros(5, np.int64)
    with pytest.raises(ds.DeathStacksError, match="not a environment"):
        _lib.check(_lib.lib.ds_env_state(p._h, buf.ctypes.data, 5))


def test_step_before_reset_and_after_the_end():
    refuse(ds.env().step, 66)
    refuse(ds.VectorEnv(2).step, np.array([66, 66]))
    refuse(ds.DeathStacksEnv().step, 66)
    env = ds.env(fen="rr,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r")
    env.reset()
    env.step(ds.action_of("a6-1-a5"))
    refuse(env.step, 66)  # the game is over: only None
    env.step(None)
    env.step(None)
    refuse(env.step, None)  # every agent has left


def test_the_interpreter_survived():
    assert ds.legal_moves()[0] == "a6-1-a5"

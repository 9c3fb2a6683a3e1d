"""Players of every kind, the network's batched inference, the vector
environment against an opponent and the Gymnasium environment."""

import math
import shlex

import numpy as np
import pytest

import deathstacks as ds
from conftest import children


@pytest.mark.parametrize("spec", ["random", "greedy", "alphabeta:depth=2", "mcts:sims=30", "az:sims=16"])
def test_players_choose_legal_moves(spec):
    p = ds.Player(spec, seed=3)
    d = p.choose(ds.START_FEN)
    assert d.move in ds.legal_moves() and ds.action_of(d.move) == d.action
    d = p.choose(ds.START_FEN, ["a6-2-a4", "b1-1-b2"])
    env = ds.env()
    env.reset()
    for m in ("a6-2-a4", "b1-1-b2"):
        env.step(ds.action_of(m))
    assert d.move in ds.legal_moves(env.fen())
    if spec.startswith("az") or spec.startswith("mcts"):
        assert d.simulations > 0 and sum(d.visits.values()) > 0 and d.pv[0] == d.move
        assert d.value is None or -1 <= d.value <= 1
    if spec.startswith("alphabeta"):
        assert d.depth == 2 and d.pv[0] == d.move


def test_network_predict():
    net = ds.Network()
    env = ds.env(opening_plies=4)
    obs = []
    for seed in range(5):
        env.reset(seed=seed)
        obs.append(env.last()[0]["observation"])
    batch = np.stack(obs)
    logits, values = net.predict(batch)
    assert logits.shape == (5, 6912) and values.shape == (5,)
    assert np.allclose(np.exp(logits).sum(axis=1), 1, atol=1e-3)
    assert np.all(np.abs(values) <= 1)
    one_logits, one_value = net.predict(batch[2])
    assert np.allclose(one_logits, logits[2], atol=1e-4) and math.isclose(one_value, values[2], abs_tol=1e-5)
    empty_logits, empty_values = net.predict(np.zeros((0, 21, 6, 6), np.float32))
    assert empty_logits.shape == (0, 6912)


@pytest.mark.parametrize("agent", ["red", "blue", "alternate"])
def test_vector_against_an_opponent(agent):
    vec = ds.VectorEnv(6, opponent="greedy", agent=agent, max_plies=40)
    obs, infos = vec.reset(seed=1)
    seen_agents = set()
    ended = 0
    for _ in range(60):
        assert np.all((infos["to_move"] == infos["agent"]) | (infos["status"] != 0))
        seen_agents.update(infos["agent"].tolist())
        obs, rewards, term, trunc, infos = vec.step(vec.sample_actions())
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        assert not np.any(term & trunc)
        assert np.all(rewards[~(term | trunc)] == 0)
        ended += int(np.sum(term | trunc))
    assert ended > 0
    want = {"red": {0}, "blue": {1}, "alternate": {0, 1}}[agent]
    assert seen_agents == want


def test_greedy_beats_random_agent():
    vec = ds.VectorEnv(8, opponent="greedy", max_plies=200)
    vec.reset(seed=2)
    total = 0.0
    for _ in range(150):
        _, rewards, _, _, _ = vec.step(vec.sample_actions())
        total += rewards.sum()
    assert total < 0  # a random agent loses to greedy


def test_gym_env():
    env = ds.DeathStacksEnv(opponent="alphabeta:depth=1", agent="blue", max_plies=60)
    obs, info = env.reset(seed=4)
    assert env.observation_space.contains(obs) and info["agent"] == 1
    rng = np.random.default_rng(0)
    total, steps = 0.0, 0
    for _ in range(500):
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, term, trunc, info = env.step(a)
        steps += 1
        assert isinstance(reward, float) and isinstance(term, bool) and isinstance(trunc, bool)
        if term or trunc:
            total += reward
            obs, info = env.reset()
    assert steps == 500
    # An illegal action loses at once by default.
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, term, _, info = env.step(illegal)
    assert reward == -1 and term and info["illegal_action"]
    assert isinstance(env.render(), str)


def test_network_weights():
    w = ds.Network().weights()
    names = list(w)
    assert names[:2] == ["stem.w", "stem.b"] and names[-1] == "value.fc2.b"
    assert w["stem.w"].shape[1] == 21 and w["stem.w"].dtype == np.float32
    assert w["policy.b"].shape == (1, 6912)
    assert sum(a.size for a in w.values()) > 10_000
    assert all(np.all(np.isfinite(a)) for a in w.values())


def test_external_programs_closed(engine):
    """The program of a cmd player (a Player, or a VectorEnv's opponents)
    is killed and reaped when the player is closed, not when garbage
    collection gets to it."""
    spec = "cmd:" + shlex.join(engine)
    with ds.Player(spec) as player:
        assert player.choose(ds.START_FEN).move in ds.legal_moves(ds.START_FEN)
        assert [c[1] != "Z" for c in children()] == [True]
        kept = player  # still referenced: only close stops the program
    assert children() == []
    assert kept.spec == spec
    vec = ds.VectorEnv(2, opponent=spec, agent="blue", max_plies=20)
    vec.reset(seed=1)
    assert len(children()) == 2
    vec.reset(seed=2)  # new opponents: the old ones' programs are stopped
    assert len(children()) == 2
    vec.close()
    assert children() == []

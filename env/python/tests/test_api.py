"""The AEC environment's API, checked the way PettingZoo's api_test does:
random rollouts checking spaces, masks, rewards and terminations."""

import numpy as np
import pytest

import deathstacks as ds
from deathstacks.aec import AGENTS


def rollout(env, rng, check=True):
    """Plays env to the end with random legal actions, checking every
    observation and flag, and returns the final rewards and status."""
    final = {}
    steps = 0
    for agent in env.agent_iter(10_000):
        obs, reward, terminated, truncated, info = env.last()
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert isinstance(terminated, bool) and isinstance(truncated, bool) and isinstance(info, dict)
        assert terminated == env.terminations[agent] and truncated == env.truncations[agent]
        if check:
            assert env.observation_space(agent).contains(obs)
            assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (21, 6, 6)
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (6912,)
            other = AGENTS[1 - AGENTS.index(agent)]
            if other in env.agents:
                assert not env.observe(other)["action_mask"].any(), "the agent not to move may take no action"
        if terminated or truncated:
            final[agent] = reward
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        assert reward == 0
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        assert len(legal) > 0
        if check:
            assert sorted(legal) == sorted(env.legal_actions())
            assert sorted(ds.move_of(a) for a in legal) == sorted(ds.legal_moves(env.fen(), env._rules.too_tall == 1))
        assert env.step(int(rng.choice(legal))) is None
        steps += 1
    assert env.agents == []
    return final, steps


@pytest.mark.parametrize("options", [
    {},
    {"max_plies": 30},
    {"opening_plies": 6, "max_plies": 40},
    {"too_tall": False, "max_plies": 40},
    {"fen": "rrrrr,,,,,/,,,,,/,,b,,,/,,,,,/,,,,,/bb,,,,, b"},
])
def test_random_rollouts(options):
    env = ds.env(**options)
    rng = np.random.default_rng(1)
    for episode in range(3):
        env.reset(seed=episode)
        assert env.agents == ["red", "blue"]
        assert not any(env.terminations.values()) and not any(env.truncations.values())
        status_before = env.status()
        assert status_before == "ongoing"
        final, steps = rollout(env, rng, check=episode == 0)
        status = env.status()
        assert set(final) == {"red", "blue"}
        assert final["red"] + final["blue"] == 0
        if status == "red wins":
            assert final == {"red": 1, "blue": -1}
        elif status == "blue wins":
            assert final == {"red": -1, "blue": 1}
        else:
            assert final == {"red": 0, "blue": 0}
        if "max_plies" in options and status == "move limit":
            assert steps <= options["max_plies"]
    env.close()


def test_terminated_apart_from_truncated():
    # Red to move wins at once: b6-1-b5... any capture of blue's last stack.
    env = ds.env(fen="rr,,,,,/b,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r")
    env.reset(seed=0)
    win = ds.action_of("a6-1-a5")
    env.step(win)
    _, reward, terminated, truncated, _ = env.last()
    assert env.status() == "red wins" and terminated and not truncated
    assert env.agent_selection == "blue" and reward == -1
    env.step(None)
    assert env.agent_selection == "red"
    _, reward, terminated, _, _ = env.last()
    assert reward == 1 and terminated
    env.step(None)
    assert env.agents == []

    short = ds.env(max_plies=2)
    short.reset(seed=0)
    for _ in range(2):
        obs, *_ = short.last()
        short.step(int(np.flatnonzero(obs["action_mask"])[0]))
    _, reward, terminated, truncated, _ = short.last()
    assert truncated and not terminated and reward == 0 and short.status() == "move limit"


def test_spaces_and_metadata():
    env = ds.env()
    env.reset()
    space = env.observation_space("red")
    assert space["observation"].shape == (21, 6, 6) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (6912,) and space["action_mask"].dtype == np.int8
    assert env.action_space("blue").n == 6912
    assert env.possible_agents == ["red", "blue"] and env.num_agents == 2 and env.max_num_agents == 2
    assert "ansi" in env.metadata["render_modes"]
    obs, *_ = env.last(observe=True)
    assert space.contains(obs)
    assert env.last(observe=False)[0] is None
    # The observation belongs to the caller: a later step does not change it.
    before = obs["observation"].copy()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert np.array_equal(obs["observation"], before)


def test_render_ansi_and_fen():
    env = ds.env(render_mode="ansi")
    env.reset(seed=0)
    board = env.render()
    assert isinstance(board, str) and "red to move" in board and board.startswith("6 ")
    assert env.fen() == ds.START_FEN
    env.step(ds.action_of("a6-2-a4"))
    assert env.moves() == ["a6-2-a4"]
    assert env.fen().endswith(" b")
    assert ds.render(env.fen()).startswith("6 ")


def test_reset_options():
    env = ds.env(opening_plies=4)
    env.reset(seed=3)
    # The random plies are the game's first moves.
    assert len(env.moves()) == 4 and env.start_fen() == ds.START_FEN and env.fen() != ds.START_FEN
    fen = "rrrrr,,,,,/,,,,,/,,b,,,/,,,,,/,,,,,/bb,,,,, b"
    env.reset(seed=3, options={"fen": fen, "opening_plies": 0})
    assert env.fen() == fen and env.agent_selection == "blue"


def test_helpers():
    moves = ds.legal_moves()
    assert len(moves) == len(set(moves)) > 0 and "a6-2-a4" in moves
    for m in moves:
        assert ds.move_of(ds.action_of(m)) == m
    assert ds.legal_moves("rr,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b") == []


def test_without_optional_packages_the_api_is_the_same():
    space = ds.env().observation_space("red")
    for attr in ("shape", "dtype", "contains", "sample", "seed"):
        assert hasattr(space["observation"], attr)
    a = ds.env().action_space("red")
    for attr in ("n", "shape", "dtype", "contains", "sample", "seed"):
        assert hasattr(a, attr)
    mask = np.zeros(6912, np.int8)
    mask[[3, 77]] = 1
    assert int(a.sample(mask)) in (3, 77)

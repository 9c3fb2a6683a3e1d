"""Self-play with a Python evaluator: the trainer's samples and targets,
reproducible by seed, its settings checked, and a failing evaluator
stopping the games cleanly."""

import numpy as np
import pytest

import deathstacks as ds
from test_search import digest, hashed

N = ds.NUM_ACTIONS
SMALL = dict(simulations=16, fast_simulations=4, max_plies=40, win_search_nodes=2000)


def material(obs, masks):
    """A deterministic evaluator whose result for a position depends on
    that position alone: logits from the observation's planes, the value
    from the difference of the first two planes' sums (the stacks of the
    side to move and the other's)."""
    flat = obs.reshape(len(obs), -1)
    logits = np.zeros((len(obs), N), np.float32)
    logits[:, : flat.shape[1]] = flat * 0.5
    values = np.tanh((flat[:, :36].sum(axis=1) - flat[:, 36:72].sum(axis=1)) / 10).astype(np.float32)
    return logits, values


def test_samples_are_those_of_before_the_boundary_was_made_faster():
    """Seeded self-play with an evaluator that reads its input gives the
    samples the library gave before ds_batch_round (recorded with it): the
    arrays of that time, not the auxiliary targets added since, with the
    trainer's move temperature and value target of that time (noise all
    game, the result alone), recorded again when the priors' exps went to
    AVX2 (model.LegalSoftmax): the Gumbel root's policy targets hold the
    priors' bits."""
    out = ds.SelfPlay(hashed, 4, seed=3, temperature_plies=0, final_temperature=1, search_value_share=0, **SMALL).play()
    before = sorted(set(out) - {"reply", "has_reply", "ownership", "score"})
    assert digest(*(out[k] for k in before)) == "2b94fd5c38f7e624"


def test_samples_and_targets():
    sp = ds.SelfPlay(material, 4, seed=1, opening_plies=2, **SMALL)
    out = sp.play()
    n, g = len(out["value"]), 4
    assert n > 0
    assert out["observations"].shape == (n, 21, 6, 6) and out["observations"].dtype == np.float32
    assert out["masks"].shape == (n, N) and out["masks"].dtype == np.bool_
    assert out["policy"].shape == (n, N) and out["policy"].dtype == np.float32
    assert np.allclose(out["policy"].sum(axis=1), 1, atol=1e-5)
    assert np.all(out["policy"][~out["masks"]] == 0)
    assert np.all(np.abs(out["value"]) <= 1)
    assert set(out["game"].tolist()) <= set(range(g)) and np.all(np.diff(out["game"]) >= 0)
    assert np.all(out["ply"] >= 2)  # the opening plies come first
    assert out["game_plies"].shape == (g,) and np.all(out["game_plies"] <= 40)
    assert set(out["game_winner"].tolist()) <= {-1, 0, 1}
    assert len(sp.moves) == g and [len(m) for m in sp.moves] == out["game_plies"].tolist()
    # Playout cap randomization: about a quarter of the plies are trained on.
    assert n < out["game_plies"].sum()
    # The Gumbel root's targets (the default) cover every legal move.
    assert np.all(np.count_nonzero(out["policy"], axis=1) == out["masks"].sum(axis=1))
    assert sp.stats.positions > 0 and 0 < sp.stats.evaluate_share < 1


def test_same_seed_same_arrays():
    a = ds.SelfPlay(material, 3, seed=5, **SMALL).play()
    b = ds.SelfPlay(material, 3, seed=5, parallel_games=1, **SMALL).play()
    c = ds.SelfPlay(material, 3, seed=6, **SMALL).play()
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k
    assert not all(np.array_equal(a[k], c[k]) for k in ("policy", "game_plies") if a[k].shape == c[k].shape) or \
        a["policy"].shape != c["policy"].shape


def test_trainer_settings():
    """PUCT root with noise, no fast searches, no resignation: every ply
    is a sample whose target is the visit shares, its value the result."""
    out = ds.SelfPlay(material, 2, seed=2, simulations=12, gumbel=False, dirichlet_epsilon=0.25, fast_simulations=0,
                      resign_threshold=-1, max_plies=20, adjudicate=False, reuse_tree=False,
                      search_value_share=0).play()
    assert len(out["value"]) == out["game_plies"].sum()
    assert not out["game_resigned"].any()
    visits = np.round(out["policy"] * 12)
    assert np.allclose(visits / 12, out["policy"], atol=1e-5)
    assert set(np.unique(out["value"]).tolist()) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("settings, key", [
    (dict(resign_threshold=2), "resign_threshold=2: want -1 to 0"),
    (dict(max_plies=0), "max_plies"),
    (dict(games_per_iteration=3), "games_per_iteration"),
    (dict(simulations=8, fast_simulations=8), "fast_simulations"),
    (dict(gumbel="maybe"), "gumbel"),
    (dict(c_puct=-1), "c_puct"),
])
def test_bad_settings(settings, key):
    with pytest.raises(ds.DeathStacksError, match=key):
        ds.SelfPlay(material, 2, **settings)


def test_evaluator_failure_stops_the_games():
    calls = []

    def failing(obs, masks):
        calls.append(1)
        if len(calls) == 5:
            raise RuntimeError("out of memory, say")
        return material(obs, masks)

    sp = ds.SelfPlay(failing, 3, **SMALL)
    with pytest.raises(RuntimeError, match="out of memory"):
        sp.play()
    with pytest.raises(ValueError, match=r"the evaluator returned NaN for the value of position \d+ of the batch"):
        ds.SelfPlay(lambda o, m: (material(o, m)[0], np.full(len(o), np.nan, np.float32)), 2, **SMALL).play()
    sp.evaluate = material
    assert len(sp.play()["value"]) > 0  # the handle is usable again


def test_augment_maps_samples_by_symmetries():
    out = ds.SelfPlay(material, 2, seed=3, **SMALL).play()
    aug = ds.augment(out, seed=1)
    n = len(out["value"])
    assert aug["observations"].shape == out["observations"].shape
    assert np.array_equal(aug["value"], out["value"])
    # A symmetry maps legal actions to legal actions and keeps the policy's mass.
    assert np.array_equal(aug["masks"].sum(axis=1), out["masks"].sum(axis=1))
    assert np.allclose(aug["policy"].sum(axis=1), 1, atol=1e-5)
    assert np.all(aug["policy"][~aug["masks"]] == 0)
    assert np.allclose(np.sort(aug["observations"].reshape(n, 21, -1), axis=2),
                       np.sort(out["observations"].reshape(n, 21, -1), axis=2))
    assert not np.array_equal(aug["observations"], out["observations"])
    again = ds.augment(out, seed=1)
    assert all(np.array_equal(again[k], aug[k]) for k in aug)
    # The identity leaves a sample as it is; each symmetry's mask is the
    # legal mask of the mapped position.
    same = ds.augment(out, symmetries=np.zeros(n, np.int64))
    assert all(np.array_equal(same[k], out[k]) for k in out)


def test_auxiliary_targets():
    out = ds.SelfPlay(material, 3, seed=4, **dict(SMALL, fast_simulations=0, adjudicate_horizon=0)).play()
    n = len(out["value"])
    assert out["reply"].shape == (n, N) and out["reply"].dtype == np.float32
    assert out["ownership"].shape == (n, 36) and out["score"].shape == (n,)
    last = np.append(out["game"][1:] != out["game"][:-1], True)  # each game's last sample
    assert np.array_equal(out["has_reply"], ~last)
    # Every ply is a sample here: the reply is the next sample's policy target.
    nxt = np.flatnonzero(out["has_reply"])
    assert np.array_equal(out["ply"][nxt + 1], out["ply"][nxt] + 1)
    assert np.array_equal(out["reply"][nxt], out["policy"][nxt + 1])
    assert np.all(out["reply"][last] == 0)
    assert set(np.unique(out["ownership"]).tolist()) <= {-1.0, 0.0, 1.0}
    assert np.all(np.abs(out["score"]) < 1)
    # Within a game the sides alternate: ownership judged on one board flips sign.
    same = np.flatnonzero(~last)
    assert np.array_equal(out["ownership"][same], -out["ownership"][same + 1])
    aug = ds.augment(out, seed=2)
    assert np.array_equal(np.sort(aug["ownership"], axis=1), np.sort(out["ownership"], axis=1))
    assert np.allclose(aug["reply"].sum(axis=1), out["reply"].sum(axis=1), atol=1e-5)
    ident = ds.augment(out, symmetries=np.zeros(n, np.int64))
    assert np.array_equal(ident["reply"], out["reply"]) and np.array_equal(ident["ownership"], out["ownership"])


def test_search_value_share():
    """selfplay.search_value_share changes the value targets, not the
    games: at 0.5 each target is the mean of the result's (0) and the
    search's root value (1)."""
    result, searched, mixed = (
        ds.SelfPlay(material, 3, seed=6, search_value_share=w, **SMALL).play() for w in (0, 1, 0.5)
    )
    for k in ("observations", "policy", "ply", "game"):
        assert np.array_equal(result[k], searched[k]) and np.array_equal(result[k], mixed[k])
    assert not np.array_equal(result["value"], searched["value"])
    assert np.all(np.abs(searched["value"]) <= 1)
    assert np.allclose(mixed["value"], (result["value"] + searched["value"]) / 2, atol=1e-6)

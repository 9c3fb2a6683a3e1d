"""Search with a Python evaluator: its results, its settings, a player
made of it, and every way an evaluator can go wrong (an exception, a bad
result) without a crash or a hang."""

import hashlib
import threading
import time

import numpy as np
import pytest

import deathstacks as ds

N = ds.NUM_ACTIONS


class Uniform:
    """Zero logits and values from arrays allocated once; counts calls."""

    def __init__(self, size=4096):
        self.logits = np.zeros((size, N), np.float32)
        self.values = np.zeros(size, np.float32)
        self.calls, self.sizes = 0, []

    def __call__(self, obs, masks):
        assert obs.dtype == np.float32 and obs.shape[1:] == (21, 6, 6)
        assert masks.dtype == np.bool_ and masks.shape == (len(obs), N)
        assert np.all(masks.sum(axis=1) > 0)
        self.calls += 1
        self.sizes.append(len(obs))
        return self.logits[:len(obs)], self.values[:len(obs)]


def positions(n, seed=0):
    """n ongoing positions of random games, as (fen, moves)."""
    rng = np.random.default_rng(seed)
    env = ds.env()
    out = []
    while len(out) < n:
        env.reset(seed=int(rng.integers(1 << 30)))
        moves = []
        for _ in range(int(rng.integers(0, 30))):
            if env.status() != "ongoing":
                break
            a = int(rng.choice(env.legal_actions()))
            moves.append(ds.move_of(a))
            env.step(a)
        if env.status() == "ongoing":
            out.append((ds.START_FEN, moves))
    return out


def test_search_results():
    ev = Uniform()
    ps = positions(5)
    s = ds.Search(ev, sims=60, seed=3)
    r = s.run([f for f, _ in ps], [m for _, m in ps])
    assert r.visits.shape == (5, N) and r.visits.dtype == np.int32
    assert r.policy.shape == (5, N) and r.policy.dtype == np.float32
    assert r.value.shape == (5,) and r.actions.shape == (5,)
    assert np.all(r.visits.sum(axis=1) == 60) and np.all(r.simulations == 60)
    assert np.allclose(r.policy.sum(axis=1), 1, atol=1e-5)
    # A PUCT root's target is the visit shares.
    assert np.allclose(r.policy, r.visits / r.visits.sum(axis=1, keepdims=True), atol=1e-6)
    for i, (fen, moves) in enumerate(ps):
        env = ds.env()
        env.reset()
        for m in moves:
            env.step(ds.action_of(m))
        legal = set(env.legal_actions())
        assert ds.action_of(r.moves[i]) == r.actions[i] and int(r.actions[i]) in legal
        assert set(np.flatnonzero(r.visits[i])) <= legal and r.pv[i][0] == r.moves[i]
    # All searches' leaves come in each batch: batch_size (8) a search.
    assert max(ev.sizes) > 8 and s.stats.batches == ev.calls and s.stats.positions == sum(ev.sizes)


def test_search_is_seeded_and_uses_the_evaluator():
    ps = [ds.START_FEN] * 3

    liked = ds.legal_moves()[5]

    def favourite(obs, masks):
        """Puts (nearly) all the prior on one move of the start position."""
        logits = np.zeros(masks.shape, np.float32)
        logits[:, ds.action_of(liked)] = 20
        return logits, np.zeros(len(obs), np.float32)

    r = ds.Search(favourite, sims=50).run(ps)
    assert r.moves == [liked] * 3
    a = ds.Search(Uniform(), sims=40, gumbel=True, temperature=1, seed=7).run(ps)
    b = ds.Search(Uniform(), sims=40, gumbel=True, temperature=1, seed=7).run(ps)
    assert np.array_equal(a.visits, b.visits) and a.moves == b.moves
    # A Gumbel root trains on the improved policy, over every legal move.
    assert np.allclose(a.policy.sum(axis=1), 1, atol=1e-5)
    assert np.count_nonzero(a.policy[0]) > np.count_nonzero(a.visits[0])


_W = (np.arange(21 * 36, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(97)) | np.uint64(1)
_A = np.arange(N, dtype=np.uint64) * np.uint64(40503)


def hashed(obs, masks):
    """A deterministic evaluator reading every bit of the observations,
    in integer arithmetic (the same results on every machine): logits in
    [-5, 5) and values in [-1, 1] from a hash of each position's
    observation."""
    h = (obs.reshape(len(obs), -1).view(np.uint32).astype(np.uint64) * _W).sum(axis=1)
    logits = ((h[:, None] + _A) % np.uint64(2003)).astype(np.float32) / 200 - 5
    values = (h % np.uint64(199)).astype(np.float32) / 99 - 1
    return logits, values


def digest(*arrays, text=()):
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays) + " ".join(text).encode()).hexdigest()[:16]


@pytest.mark.parametrize("settings, want", [
    (dict(sims=120, seed=5), "d8ad25cd0d2a9277"),
    (dict(sims=64, gumbel=True, temperature=1, seed=6), "9c5cdc24788c2e8d"),
])
@pytest.mark.parametrize("max_batch", [None, 20])
def test_results_are_those_of_before_the_boundary_was_made_faster(settings, want, max_batch):
    """The visits, policy targets and moves of seeded searches with an
    evaluator that reads its input are those the library gave before
    ds_batch_round and the searches writing their leaves into the
    caller's arrays (recorded with it), whatever the batches' size. The
    Gumbel root's were recorded again when the priors' exps went to AVX2
    (model.LegalSoftmax, within a unit in the last place of float64's exp
    before): its policy target holds the priors' bits."""
    ps = positions(6, seed=4)
    r = ds.Search(hashed, max_batch=max_batch, **settings).run([f for f, _ in ps], [m for _, m in ps])
    assert digest(r.visits, r.policy, text=r.moves) == want


@pytest.mark.parametrize("settings", [
    dict(simulations=30, c_puct=2.0, c_puct_base=0, fpu_reduction=0.1, dirichlet_alpha=0.2, dirichlet_epsilon=0.25,
         temperature=1.0, temperature_plies=10, final_temperature=0, batch_size=4, virtual_loss=2, reuse_tree=False,
         contempt=0.2, draw_cost=0.1, win_search_plies=5, win_search_nodes=1000, material_utility=0.1),
    dict(sims=20, gumbel=True, gumbel_considered=8, gumbel_c_visit=40, gumbel_c_scale=0.2),
    dict(time="50ms", sims=0),
])
def test_every_setting(settings):
    r = ds.Search(Uniform(), **settings).run([ds.START_FEN])
    assert r.moves[0] in ds.legal_moves()


def test_bad_positions_name_their_index():
    s = ds.Search(Uniform(), sims=10)
    with pytest.raises(ds.DeathStacksError, match="position 1"):
        s.run([ds.START_FEN, "not a fen"])
    with pytest.raises(ds.DeathStacksError, match="position 2"):
        s.run([ds.START_FEN] * 3, [[], [], ["a6-2-a4", "z9-9-z9"]])
    with pytest.raises(ds.DeathStacksError, match="move lists"):
        s.run([ds.START_FEN] * 2, [[]])
    with pytest.raises(TypeError):
        s.run([ds.START_FEN, 3])
    won = "rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, b"
    with pytest.raises(ds.DeathStacksError, match="position 0"):
        s.run([won])
    assert s.run([]).visits.shape == (0, N)
    assert s.run([ds.START_FEN]).moves[0] in ds.legal_moves()  # still usable


class Boom(Exception):
    pass


def test_evaluator_exception_reaches_the_caller_and_the_search_goes_on():
    calls = []

    def flaky(obs, masks):
        calls.append(len(obs))
        if len(calls) == 3:
            raise Boom("third batch")
        return np.zeros((len(obs), N), np.float32), np.zeros(len(obs), np.float32)

    s = ds.Search(flaky, sims=100)
    with pytest.raises(Boom, match="third batch") as info:
        s.run([ds.START_FEN] * 4)
    assert any(entry.name == "flaky" for entry in info.traceback)
    r = s.run([ds.START_FEN] * 4)  # the searches were released: the handle works
    assert np.all(r.visits.sum(axis=1) == 100)
    s.close()
    with pytest.raises(ds.ClosedError):
        s.run([ds.START_FEN])


VALUE = "the evaluator returned {} for the value of position 0 of the batch: values must be finite, in \\[-1, 1\\]$"
LOGIT = (r"the evaluator returned {} for the logit of legal action \d+ of position 0 of the batch: "
         "the logits of legal actions must be finite$")


@pytest.mark.parametrize("bad, match", [
    (lambda n: None, "want a pair"),
    (lambda n: (np.zeros((n, N), np.float32),), "want a pair"),
    (lambda n: ([0.0] * N, np.zeros(n, np.float32)), "logits of type list"),
    (lambda n: (np.zeros((n, N), np.float64), np.zeros(n, np.float32)), "logits of dtype float64"),
    (lambda n: (np.zeros((n, N), np.float32), np.zeros(n, np.float64)), "values of dtype float64"),
    (lambda n: (np.zeros((n, 100), np.float32), np.zeros(n, np.float32)), r"logits of shape \(\d+, 100\)"),
    (lambda n: (np.zeros((n, N), np.float32), np.zeros((n, 1), np.float32)), r"values of shape \(\d+, 1\)"),
    (lambda n: (np.zeros((n, N), np.float32), np.full(n, np.nan, np.float32)), "^" + VALUE.format("NaN")),
    (lambda n: (np.zeros((n, N), np.float32), np.full(n, 2, np.float32)), "^" + VALUE.format("2")),
    (lambda n: (np.full((n, N), np.nan, np.float32), np.zeros(n, np.float32)), "^" + LOGIT.format("NaN")),
    (lambda n: (np.full((n, N), np.inf, np.float32), np.zeros(n, np.float32)), "^" + LOGIT.format(r"\+Inf")),
])
def test_bad_results_say_which(bad, match):
    s = ds.Search(lambda obs, masks: bad(len(obs)), sims=20)
    with pytest.raises(ValueError, match=match):
        s.run([ds.START_FEN] * 2)
    s.evaluate = Uniform()
    assert s.run([ds.START_FEN]).moves[0] in ds.legal_moves()


WANT_SIMULATIONS = "want a whole number, 0 (no limit, with a time) or more"


@pytest.mark.parametrize("make, message", [
    (lambda: ds.Search(Uniform(), simulations=-1), "simulations=-1: " + WANT_SIMULATIONS),
    (lambda: ds.Search(Uniform(), sims=-1), "sims=-1: " + WANT_SIMULATIONS),
    (lambda: ds.Search(Uniform(), c_puct=0), "c_puct=0: want a number, a number above 0"),
    (lambda: ds.Search(Uniform(), time="soon"), "time=soon: want a duration of 0s (none) or more, such as 500ms"),
    (lambda: ds.Search(Uniform(), sims=10, simulations=20), "sims and simulations: both set simulations: give one"),
    (lambda: ds.Search(Uniform(), model="x"), "model: no search setting: the caller's evaluator is the network"),
    (lambda: ds.Search(Uniform(), sims=float("nan")), "sims=nan: want a finite number"),
    (lambda: ds.Search(Uniform(), sims="1,c_puct=2"), "sims=1,c_puct=2: " + WANT_SIMULATIONS),
    (lambda: ds.Search(Uniform(), gumbel=True, dirichlet_epsilon=0.25),
     "dirichlet_epsilon is 0.25: want 0 with gumbel, whose own noise explores"),
    (lambda: ds.Player(evaluate=Uniform(), simulations=-1), "simulations=-1: " + WANT_SIMULATIONS),
])
def test_bad_settings_are_named_as_written(make, message):
    """A bad setting is named as the caller wrote it, with what is wanted:
    no player spec the caller never wrote."""
    with pytest.raises(ds.DeathStacksError) as info:
        make()
    assert str(info.value) == message


def test_unknown_setting_lists_the_settings():
    with pytest.raises(ds.DeathStacksError, match=r"^simz=3: no search setting: want one of simulations, time, c_puct, "):
        ds.Search(Uniform(), simz=3)


def test_illegal_logits_are_never_read():
    def nan_outside(obs, masks):
        logits = np.where(masks, 0, np.nan).astype(np.float32)
        return logits, np.zeros(len(obs), np.float32)

    r = ds.Search(nan_outside, sims=30).run([ds.START_FEN])
    assert r.visits.sum() == 30


def test_non_contiguous_results_are_accepted():
    big = np.zeros((N, 4096), np.float32)

    def transposed(obs, masks):
        return big.T[:len(obs)], np.zeros(2 * len(obs), np.float32)[::2]

    assert ds.Search(transposed, sims=20).run([ds.START_FEN]).visits.sum() == 20


def test_max_batch_caps_the_batches():
    ev = Uniform()
    ds.Search(ev, sims=40, max_batch=10).run([ds.START_FEN] * 6)
    assert max(ev.sizes) <= 10


def test_closing_during_a_run_from_another_thread():
    gate = threading.Event()
    calls = []

    def slow(obs, masks):
        calls.append(len(obs))
        if len(calls) == 2:
            gate.set()
            time.sleep(0.2)
        return np.zeros((len(obs), N), np.float32), np.zeros(len(obs), np.float32)

    s = ds.Search(slow, sims=400)
    raised = []

    def run():
        try:
            s.run([ds.START_FEN] * 3)
        except ds.ClosedError as err:
            raised.append(err)

    t = threading.Thread(target=run)
    t.start()
    assert gate.wait(60)
    s.close()
    t.join(120)
    assert not t.is_alive() and raised


def test_a_run_is_driven_from_one_thread():
    """The library's calls of a run come from one thread: the searches'
    coroutines on the caller's side belong to the thread of its first
    round. A round from another thread is refused, and the run goes on
    from the first."""
    from deathstacks._lib import check, cstr, lib, ptr

    s = ds.Search(Uniform(), sims=40)
    h = s._handle()
    assert check(lib.ds_search_start(h, cstr('[{"fen": ""}, {"fen": ""}, {"fen": ""}]', "positions"))) == 3
    cap = 3 * 8
    obs = np.zeros((cap, 21, 6, 6), np.float32)
    masks = np.zeros((cap, N), np.bool_)
    n = check(lib.ds_batch_round(h, 0, None, None, cap, ptr(obs), ptr(masks)))
    logits, values = np.zeros((n, N), np.float32), np.zeros(n, np.float32)
    raised = []

    def elsewhere():
        try:
            check(lib.ds_batch_round(h, n, ptr(logits), ptr(values), cap, ptr(obs), ptr(masks)))
        except ds.DeathStacksError as err:
            raised.append(err)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join(60)
    assert raised and "one thread" in str(raised[0])
    while n > 0:
        logits, values = np.zeros((n, N), np.float32), np.zeros(n, np.float32)
        n = check(lib.ds_batch_round(h, n, ptr(logits), ptr(values), cap, ptr(obs), ptr(masks)))
    visits = np.zeros((3, N), np.int32)
    check(lib.ds_search_results(h, 3, ptr(visits), None, None, None))
    assert (visits.sum(axis=1) == 40).all()
    s.close()


def test_interrupt_in_the_evaluator_stops_the_searches():
    def interrupted(obs, masks):
        raise KeyboardInterrupt

    s = ds.Search(interrupted, sims=50)
    with pytest.raises(KeyboardInterrupt):
        s.run([ds.START_FEN] * 2)
    s.evaluate = Uniform()
    assert s.run([ds.START_FEN]).visits.sum() == 50


def test_player_with_an_evaluator():
    p = ds.Player(evaluate=Uniform(), sims=30, seed=2)
    d = p.choose(ds.START_FEN, ["a6-2-a4", "b1-1-b2"])
    env = ds.env()
    env.reset()
    for m in ("a6-2-a4", "b1-1-b2"):
        env.step(ds.action_of(m))
    assert d.move in ds.legal_moves(env.fen()) and ds.action_of(d.move) == d.action
    assert sum(d.visits.values()) == 30 and d.simulations == 30 and d.pv[0] == d.move
    assert d.value is not None and -1 <= d.value <= 1
    with pytest.raises(ds.DeathStacksError, match="not both"):
        ds.Player("random", evaluate=Uniform())
    with pytest.raises(TypeError, match="sims"):
        ds.Player("random", sims=3)
    with pytest.raises(ds.DeathStacksError, match="c_puct"):
        ds.Player(evaluate=Uniform(), c_puct=-1)
    p.close()
    with pytest.raises(ds.ClosedError):
        p.choose(ds.START_FEN)


def test_player_plays_a_game_against_a_spec():
    """An evaluator player and a spec player take turns in one game."""
    players = [ds.Player(evaluate=Uniform(), sims=16), ds.Player("greedy", seed=1)]
    env = ds.env(max_plies=30)
    env.reset(seed=1)
    moves = []
    while env.status() == "ongoing":
        d = players[len(moves) % 2].choose(ds.START_FEN, moves)
        env.step(d.action)
        moves.append(d.move)
    assert len(moves) > 0


def test_evaluator_player_is_refused_as_a_vector_opponent():
    p = ds.Player(evaluate=Uniform(), sims=8)
    with pytest.raises(TypeError, match="choose"):
        ds.VectorEnv(2, opponent=p)
    with pytest.raises(TypeError, match="choose"):
        ds.DeathStacksEnv(opponent=p)
    vec = ds.VectorEnv(2, opponent=ds.Player("greedy"))  # a spec player stands for its spec
    assert vec.opponent == "greedy"

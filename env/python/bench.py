"""The Python package's benchmarks, rows of cmd/PERFORMANCE.md.

    DEATHSTACKS_LIB=... python3 bench.py [aec] [vector] [az [MODEL [NUM_ENVS]]]
    DEATHSTACKS_LIB=... python3 bench.py search [BINARY [ROUNDS [PAIRS]]]
    DEATHSTACKS_LIB=... python3 bench.py selfplay [torch|mlp|network [GAMES]]
    DEATHSTACKS_LIB=... python3 bench.py torch [SECONDS]

MODEL "-" is the built-in player's network. BINARY is the deathstacks
command (default: deathstacks on the PATH), whose `bench mcts` the search
is measured beside.
"""

import re
import subprocess
import sys
import time

import numpy as np

import deathstacks as ds


def bench_aec(games=20):
    """A PettingZoo step + last, replaying the actions of recorded random
    games (so that choosing them costs nothing)."""
    env = ds.env()
    rng = np.random.default_rng(0)
    recorded = []
    for g in range(games):
        env.reset(seed=g)
        acts = []
        while env.status() == "ongoing":
            a = int(rng.choice(env.legal_actions()))
            acts.append(a)
            env.step(a)
        recorded.append(acts)
    steps, elapsed = 0, 0.0
    for g, acts in enumerate(recorded):
        env.reset(seed=g)
        t = time.perf_counter()
        for a in acts:
            env.step(a)
            env.last()
        elapsed += time.perf_counter() - t
        steps += len(acts)
    print(f"aec: step + last {elapsed / steps * 1e6:.1f} us ({steps} steps)")


def bench_vector(num_envs=256, seconds=5.0):
    """VectorEnv steps with actions drawn by the library from the legal moves."""
    vec = ds.VectorEnv(num_envs, copy=False)
    vec.reset(seed=0)
    actions = np.zeros(num_envs, np.int64)
    for _ in range(10):
        vec.step(vec.sample_actions(actions))
    steps, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        vec.step(vec.sample_actions(actions))
        steps += num_envs
    elapsed = time.perf_counter() - t
    print(f"vector: {num_envs} envs, {steps / elapsed:,.0f} steps/s (observations and masks into numpy)")


def bench_az(model=None, num_envs=128, seconds=20.0, sims=50):
    """VectorEnv against the built-in player (or a model file's) at 50
    simulations: the network's evaluations per second, from its server's
    count."""
    spec = f"az:sims={sims}" + (f",model={model}" if model else "")
    vec = ds.VectorEnv(num_envs, opponent=spec, copy=False)
    vec.reset(seed=0)
    actions = np.zeros(num_envs, np.int64)
    vec.step(vec.sample_actions(actions))
    before, t = ds.server_stats(model), time.perf_counter()
    steps = 0
    while time.perf_counter() - t < seconds:
        vec.step(vec.sample_actions(actions))
        steps += num_envs
    elapsed = time.perf_counter() - t
    after = ds.server_stats(model)
    positions = after["positions"] - before["positions"]
    batches = after["batches"] - before["batches"]
    print(f"{spec}: {num_envs} envs, {steps / elapsed:,.0f} agent steps/s, "
          f"{positions / elapsed:,.0f} network evals/s, mean batch {positions / max(1, batches):.1f}")


def bench_positions(n=16, seed=1):
    """n positions of seeded random games cut at plies 0, 4, 8, ..., as
    `deathstacks bench mcts` takes its positions (its own games, not
    these)."""
    rng = np.random.default_rng(seed)
    env = ds.env()
    fens = []
    while len(fens) < n:
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in range(4 * len(fens)):
            if env.status() != "ongoing":
                break
            env.step(int(rng.choice(env.legal_actions())))
        if env.status() == "ongoing":
            fens.append(env.fen())
    return fens


def bench_search(binary="deathstacks", rounds=3, pairs=5, seconds=1.0, sims=800, positions=16):
    """Search from Python with a trivial evaluator (uniform policy, zero
    value, arrays allocated once) beside `deathstacks bench mcts`'s PUCT
    search with its uniform evaluator, same settings (mcts.DefaultConfig,
    800 simulations, no tree reuse), side by side in one run: each round
    alternates `pairs` times a second of `bench mcts` and a second of the
    Python search (the load of a shared machine changes from second to
    second), and compares their simulations per second. The Python side
    searches 16 positions at once, one evaluator call a round for all of
    them (ds_batch_round); bench mcts searches one position at a time on
    one goroutine."""
    fens = bench_positions(positions)
    batch = positions * 8
    logits, values = np.zeros((batch, ds.NUM_ACTIONS), np.float32), np.zeros(batch, np.float32)

    def uniform(obs, masks):
        return logits[:len(obs)], values[:len(obs)]

    search = ds.Search(uniform, sims=sims, reuse_tree=False, win_search_nodes=500_000, seed=1)
    search.run(fens)
    ratios = []
    for r in range(rounds):
        go_rates, py_sims, py_seconds, evaluating = [], 0, 0.0, 0.0
        for _ in range(pairs):
            out = subprocess.run([binary, "bench", "mcts", "--seconds", str(seconds), "--sims", str(sims), "--depth", "1"],
                                 capture_output=True, text=True, check=True).stdout
            go_rates.append(float(re.search(r"puct sims/s=(\d+)", out).group(1)))
            t = time.perf_counter()
            while time.perf_counter() - t < seconds:
                py_sims += int(search.run(fens).simulations.sum())
                evaluating += search.stats.evaluate_seconds
            py_seconds += time.perf_counter() - t
        go, py = float(np.mean(go_rates)), py_sims / py_seconds
        ratios.append(py / go)
        print(f"round {r + 1}: bench mcts puct {go:,.0f} sims/s; Search from Python {py:,.0f} sims/s "
              f"({py / go:.0%}; mean batch {search.stats.mean_batch:.0f}, {evaluating / py_seconds:.1%} in the evaluator)")
    print(f"{min(ratios):.0%}-{max(ratios):.0%} of bench mcts over {rounds} rounds (median {np.median(ratios):.0%})")


class MLP:
    """A CPU-heavy numpy evaluator: a two-layer perceptron from the
    observation to 6,912 logits and a value (random weights)."""

    def __init__(self, hidden=128, seed=0):
        rng = np.random.default_rng(seed)
        size = int(np.prod(ds.OBSERVATION_SHAPE))
        self.w1 = (rng.standard_normal((size, hidden)) / np.sqrt(size)).astype(np.float32)
        self.w2 = (rng.standard_normal((hidden, ds.NUM_ACTIONS)) / np.sqrt(hidden)).astype(np.float32)
        self.wv = (rng.standard_normal(hidden) / np.sqrt(hidden)).astype(np.float32)

    def __call__(self, obs, masks):
        h = np.maximum(obs.reshape(len(obs), -1) @ self.w1, 0)
        return h @ self.w2, np.tanh(h @ self.wv).astype(np.float32)


def bench_selfplay(evaluator="mlp", games=256):
    """The trainer's self-play (configs/default.yaml) from Python, every
    game at once: training positions per second, the mean batch and the
    share of the wall time inside the evaluator: the built-in player's
    network in PyTorch (deathstacks.torch), a numpy MLP, or the built-in
    network through Network.predict."""
    if evaluator == "torch":
        import torch

        import deathstacks.torch as dt

        module = dt.load()  # the built-in player's network (model.DefaultConfig's architecture)
        evaluate = dt.evaluator(module.eval())
        print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, the built-in player's network")
    elif evaluator == "network":
        net = ds.Network()
        evaluate = lambda obs, masks: net.predict(obs)  # noqa: E731 - log-softmax logits: the same priors
    else:
        evaluate = MLP()
    calls = []  # per evaluator call: its positions, the seconds since the last call returned, its own seconds
    returned = [time.perf_counter()]

    def timed(obs, masks):
        t = time.perf_counter()
        out = evaluate(obs, masks)
        calls.append((len(obs), t - returned[0], time.perf_counter() - t))
        returned[0] = time.perf_counter()
        return out

    sp = ds.SelfPlay(timed, games, seed=1)
    t = returned[0] = time.perf_counter()
    out = sp.play()
    elapsed = time.perf_counter() - t
    st = sp.stats
    print(f"selfplay {evaluator}: {games} games, {len(out['value'])} positions in {elapsed:.1f} s: "
          f"{len(out['value']) / elapsed:,.1f} positions/s, {st.positions / elapsed:,.0f} evaluations/s, "
          f"mean batch {st.mean_batch:.0f}, {st.evaluate_share:.1%} of the time in the evaluator")
    # The same split by the batch's size: a run's first rounds have every
    # game's leaves, its last ones the few longest games' (mostly endgames,
    # where the win search works).
    c = np.array(calls)
    for lo, hi in ((0, 64), (64, 256), (256, 512), (512, 1 << 30)):
        m = (c[:, 0] >= lo) & (c[:, 0] < hi)
        if m.any():
            n, outside, inside = c[m, 0].sum(), c[m, 1].sum(), c[m, 2].sum()
            print(f"  batches of {lo}-{hi - 1 if hi < 1 << 30 else 'more'}: {int(m.sum())} calls, {int(n)} positions, "
                  f"{outside / n * 1e6:.1f} us a position outside the evaluator, {inside / n * 1e6:.1f} inside: "
                  f"{inside / (inside + outside):.1%} inside")


def bench_torch(seconds=3.0):
    """The built-in network as deathstacks.torch's module on the CPU:
    inference at batches of 8 and 256 (positions a second, no gradient)
    and a training step at a batch of 256 (Adam on the policy's cross
    entropy against a random legal target and the value's squared error),
    on observations of random games."""
    import torch
    import torch.nn.functional as F

    import deathstacks.torch as dt

    net = dt.load()
    vec = ds.VectorEnv(256, copy=True)
    obs, _ = vec.reset(seed=0)
    for _ in range(20):
        obs, *_ = vec.step(vec.sample_actions())
    x = torch.from_numpy(obs["observation"])
    mask = torch.from_numpy(obs["action_mask"].astype(bool))

    def timed(step):
        step()  # warm-up
        n, t = 0, time.perf_counter()
        while time.perf_counter() - t < seconds:
            step()
            n += 1
        return n, time.perf_counter() - t

    net.eval()
    with torch.no_grad():
        for b in (8, 256):
            n, elapsed = timed(lambda: net(x[:b], mask[:b]))
            print(f"torch: inference batch={b} positions/s={n * b / elapsed:.0f}")
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    target = torch.multinomial(mask.float(), 1).squeeze(1)
    z = torch.linspace(-1, 1, len(x))

    def train_step():
        logits, value = net(x, mask)
        loss = F.cross_entropy(logits, target) + F.mse_loss(value, z)
        opt.zero_grad()
        loss.backward()
        opt.step()

    n, elapsed = timed(train_step)
    print(f"torch: train batch=256 ms/step={elapsed / n * 1e3:.1f} threads={torch.get_num_threads()}")
    vec.close()


if __name__ == "__main__":
    args = sys.argv[1:] or ["aec", "vector", "az"]
    if args[0] == "search":
        bench_search(*args[1:2], *(int(n) for n in args[2:4]))
    elif args[0] == "selfplay":
        bench_selfplay(*args[1:2], *(int(n) for n in args[2:3]))
    elif args[0] == "torch":
        bench_torch(*(float(n) for n in args[1:2]))
    elif args[0] == "az":
        model = args[1] if len(args) > 1 and args[1] != "-" else None
        bench_az(model, *(int(n) for n in args[2:3]))
    else:
        for name in args:
            {"aec": bench_aec, "vector": bench_vector, "az": bench_az}[name]()

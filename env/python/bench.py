"""The Python-side benchmarks of README's "From Python" section.

    DEATHSTACKS_LIB=... python3 bench.py [aec] [vector] [az [MODEL [NUM_ENVS]]]

MODEL "-" is the built-in player's network.
"""

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


if __name__ == "__main__":
    args = sys.argv[1:] or ["aec", "vector", "az"]
    if args[0] == "az":
        model = args[1] if len(args) > 1 and args[1] != "-" else None
        bench_az(model, *(int(n) for n in args[2:3]))
    else:
        for name in args:
            {"aec": bench_aec, "vector": bench_vector, "az": bench_az}[name]()

"""A numpy agent trained for a few minutes against alpha-beta at depth 1.

A linear softmax policy over the legal actions, shaped like the project
network's policy head: a 1x1 convolution of the 21 observation planes to
the 192 (direction, count) planes of the action space, plus a bias per
action, so that an action's logit looks at its from square. It is trained
with REINFORCE and a running-mean baseline on games played through
deathstacks.VectorEnv, whose opponent answers inside each step. It prints
its score against the same opponent before and after training.

    python3 examples/reinforce_numpy.py --minutes 3
"""

import argparse
import time

import numpy as np

import deathstacks as ds


PLANES, SQUARES = ds.OBSERVATION_SHAPE[0], ds.OBSERVATION_SHAPE[1] * ds.OBSERVATION_SHAPE[2]
ACTION_PLANES = ds.NUM_ACTIONS // SQUARES


def policy(params, obs):
    """The legal actions' probabilities of a batch of observations, with
    the planes (n, 21, 36) they were computed from."""
    U, b = params
    x = obs["observation"].reshape(-1, PLANES, SQUARES)
    logits = np.einsum("ap,nps->nas", U, x).reshape(len(x), -1) + b
    mask = obs["action_mask"].astype(bool)
    logits = np.where(mask, logits, -np.inf)
    top = logits.max(axis=1, keepdims=True)
    p = np.exp(logits - np.where(np.isfinite(top), top, 0))
    total = p.sum(axis=1, keepdims=True)
    return np.divide(p, total, out=np.zeros_like(p), where=total > 0), x


def choose(params, obs, rng):
    p, x = policy(params, obs)
    u = rng.random((len(p), 1))
    return (p.cumsum(axis=1) < u).sum(axis=1).clip(0, p.shape[1] - 1), x, p


def evaluate(params, opponent, games, rng, max_plies):
    vec = ds.VectorEnv(64, opponent=opponent, agent="alternate", max_plies=max_plies)
    obs, _ = vec.reset(seed=12345)
    results = []
    done = np.zeros(64, bool)
    while len(results) < games:
        actions, _, _ = choose(params, obs, rng)
        obs, rewards, term, trunc, _ = vec.step(np.where(done, 0, actions))
        ended = (term | trunc) & ~done
        results += rewards[ended].tolist()
        done = term | trunc
    r = np.array(results[:games])
    return {"win": float(np.mean(r > 0)), "draw": float(np.mean(r == 0)), "loss": float(np.mean(r < 0)),
            "score": float(np.mean((r + 1) / 2))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=3)
    ap.add_argument("--opponent", default="alphabeta:depth=1")
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--max-plies", type=int, default=120)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--eval-games", type=int, default=256)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    params = [np.zeros((ACTION_PLANES, PLANES), np.float32), np.zeros(ds.NUM_ACTIONS, np.float32)]

    before = evaluate(params, args.opponent, args.eval_games, rng, args.max_plies)
    print(f"before training against {args.opponent}: {before}")

    n = args.envs
    vec = ds.VectorEnv(n, opponent=args.opponent, agent="alternate", max_plies=args.max_plies)
    obs, _ = vec.reset(seed=1)
    traj = [[] for _ in range(n)]  # per environment: (x, action, p) of its episode so far
    done = np.zeros(n, bool)
    baseline, episodes, steps = 0.0, 0, 0
    start = time.time()
    while time.time() - start < args.minutes * 60:
        actions, x, p = choose(params, obs, rng)
        for i in np.flatnonzero(~done):
            traj[i].append((x[i], actions[i], p[i]))
        obs, rewards, term, trunc, _ = vec.step(np.where(done, 0, actions))
        steps += n
        ended = (term | trunc) & ~done
        dU, db = np.zeros_like(params[0]), np.zeros_like(params[1])
        for i in np.flatnonzero(ended):
            advantage = rewards[i] - baseline
            baseline += 0.01 * (rewards[i] - baseline)
            xs = np.stack([t[0] for t in traj[i]])  # (T, 21, 36)
            g = -np.stack([t[2] for t in traj[i]])  # d log p(a) / d logits, (T, 6912)
            g[np.arange(len(g)), [t[1] for t in traj[i]]] += 1
            g *= advantage
            dU += np.einsum("tas,tps->ap", g.reshape(len(g), ACTION_PLANES, SQUARES), xs)
            db += g.sum(axis=0)
            episodes += 1
            traj[i] = []
        if ended.any():
            params[0] += args.lr * dU / ended.sum()
            params[1] += args.lr * db / ended.sum()
        done = term | trunc
    print(f"trained {time.time() - start:.0f}s: {episodes} episodes, {steps} steps, mean reward {baseline:+.3f}")

    after = evaluate(params, args.opponent, args.eval_games, rng, args.max_plies)
    print(f"after training against {args.opponent}: {after}")
    print(f"score (win 1, draw 0.5) {before['score']:.3f} -> {after['score']:.3f}")


if __name__ == "__main__":
    main()

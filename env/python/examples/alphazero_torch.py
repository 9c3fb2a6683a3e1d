"""AlphaZero from zero in PyTorch, with the project's search and self-play.

The network is deathstacks.torch's DeathStacksNet (the Go network's
architecture, in PyTorch); the search, the self-play games and the arena
run in Go and call the network in large batches. The recipe is the Go
trainer's (configs/default.yaml): a 3x32 residual network, Gumbel
AlphaZero self-play with playout cap randomization (a quarter of the
moves searched with 64 simulations and recorded, the rest with 16), the
win search and resignation, a replay window of 80,000 positions seen
through a random board symmetry, and Adam (lr 0.002 with a warm-up and a
cosine decay, L2 1e-4) on batches of 128 against the search's improved
policy (cross-entropy) and the game's result (squared error). Every
--eval-every minutes it saves the network to --out and plays
alphabeta:depth=2 with it, printing the score; at
the end it plays --final-games games against it and saves the network to
--out, which `deathstacks play --player az:model=FILE` plays. Ctrl-C
saves the network and prints how far it got.

    python3 examples/alphazero_torch.py --minutes 30
"""

import argparse
import math
import os
import time

import numpy as np
import torch

import deathstacks as ds
import deathstacks.torch as dst

BASELINE = "alphabeta:depth=2"


class Replay:
    """The last `window` samples, stored compactly: observations as
    float16, masks as bits, policies as float16."""

    def __init__(self, window):
        self.window, self.size, self.next = window, 0, 0
        self.obs = np.zeros((window,) + ds.OBSERVATION_SHAPE, np.float16)
        self.masks = np.zeros((window, ds.NUM_ACTIONS // 8), np.uint8)
        self.policy = np.zeros((window, ds.NUM_ACTIONS), np.float16)
        self.value = np.zeros(window, np.float32)

    def add(self, data):
        n = len(data["value"])
        idx = (self.next + np.arange(n)) % self.window
        self.obs[idx] = data["observations"]
        self.masks[idx] = np.packbits(data["masks"], axis=1)
        self.policy[idx] = data["policy"]
        self.value[idx] = data["value"]
        self.next, self.size = (self.next + n) % self.window, min(self.size + n, self.window)

    def sample(self, n, rng):
        idx = rng.integers(0, self.size, n)
        batch = {"observations": self.obs[idx].astype(np.float32),
                 "masks": np.unpackbits(self.masks[idx], axis=1).astype(bool),
                 "policy": self.policy[idx].astype(np.float32), "value": self.value[idx]}
        return ds.augment(batch, seed=int(rng.integers(1 << 31)))


def train_step(net, opt, batch, device):
    obs, masks, policy, value = (torch.from_numpy(batch[k]).to(device)
                                 for k in ("observations", "masks", "policy", "value"))
    logits, v = net(obs)
    logp = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=1)
    policy_loss = -(policy * logp).sum(dim=1).mean()
    value_loss = (v - value).square().mean()
    opt.zero_grad()
    (policy_loss + value_loss).backward()
    opt.step()
    return policy_loss.item(), value_loss.item()


def save(net, path, sims, iterations, steps):
    dst.save(net, path, search={"sims": sims}, steps=steps,
             meta={"made_by": "examples/alphazero_torch.py", "note": f"{iterations} iterations from zero"})


def score(path, games, seed):
    """The score against the baseline over `games` games, as (score,
    wins, draws, losses), of the network file at `path`, played in Go."""
    pair = ds.evaluate({"net": path, "baseline": BASELINE}, games=games, seed=seed).pairs[0]
    sign = 1 if pair["a"] == "net" else -1
    w, d, l = (pair["wins"], pair["draws"], pair["losses"])[::sign]
    return (w + d / 2) / games, w, d, l


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=30, help="training time (self-play and Adam)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="torch's CPU threads")
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--games", type=int, default=96, help="self-play games per iteration")
    ap.add_argument("--steps", type=int, default=400, help="Adam steps per iteration")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--window", type=int, default=80000, help="replay window, positions")
    ap.add_argument("--eval-every", type=float, default=5, help="minutes between scores against " + BASELINE)
    ap.add_argument("--eval-games", type=int, default=20)
    ap.add_argument("--final-games", type=int, default=40)
    ap.add_argument("--eval-sims", type=int, default=100, help="the saved player's simulations a move")
    ap.add_argument("--out", default="alphazero.dsnn")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, args.threads))
    # Subnormal numbers flushed to zero, as Go's kernels do: weight decay
    # drives the weights the network does not use down to 1e-38 or so, and
    # on x86 CPUs every product with one costs a slow microcode assist
    # (README.md, "PyTorch").
    torch.set_flush_denormal(True)
    rng = np.random.default_rng(args.seed)
    device = torch.device(args.device)
    print(f"torch {torch.__version__} on {device}, {torch.get_num_threads()} threads; {vars(args)}", flush=True)
    net = dst.DeathStacksNet(blocks=args.blocks, channels=args.channels).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=1e-4)
    evaluate = dst.evaluator(net)
    replay = Replay(args.window)
    budget, start = args.minutes * 60, time.time()
    spent = {"self-play": 0.0, "training": 0.0, "scoring": 0.0}
    it, steps, games, last_eval = 0, 0, 0, start
    try:
        while time.time() - start < budget:
            t0 = time.time()
            data = ds.SelfPlay(evaluate, args.games, seed=args.seed * 1000003 + it).play()
            replay.add(data)
            games += args.games
            spent["self-play"] += time.time() - t0
            t = time.time()
            losses = []
            for _ in range(args.steps):
                frac = min(1.0, (time.time() - start) / budget)
                lr = 2e-4 + (args.lr - 2e-4) * 0.5 * (1 + math.cos(math.pi * frac))
                for g in opt.param_groups:
                    g["lr"] = lr * min(1.0, (steps + 1) / 100)
                losses.append(train_step(net, opt, replay.sample(args.batch, rng), device))
                steps += 1
            spent["training"] += time.time() - t
            it += 1
            p, v = np.mean(losses, axis=0)
            print(f"{(time.time() - start) / 60:5.1f} min  iteration {it}: {len(data['value'])} positions "
                  f"from {args.games} games in {t - t0:.0f}s, replay {replay.size}, "
                  f"loss policy {p:.3f} value {v:.3f}", flush=True)
            if time.time() - last_eval >= args.eval_every * 60 and time.time() - start < budget:
                t = time.time()
                save(net, args.out, args.eval_sims, it, steps)  # also keeps the work so far
                s, w, d, l = score(args.out, args.eval_games, it)
                spent["scoring"] += time.time() - t
                last_eval = time.time()
                print(f"{(time.time() - start) / 60:5.1f} min  against {BASELINE}: {s:.0%} ({w}-{d}-{l})", flush=True)
    except KeyboardInterrupt:
        save(net, args.out, args.eval_sims, it, steps)
        print(f"\nstopped after {(time.time() - start) / 60:.1f} min, {it} iterations, {games} games, "
              f"{steps} Adam steps; saved {args.out}")
        return
    split = ", ".join(f"{k} {v / 60:.1f} min" for k, v in spent.items())
    print(f"trained {(time.time() - start) / 60:.1f} min ({split}): {it} iterations, {games} games, {steps} Adam steps")
    t = time.time()
    save(net, args.out, args.eval_sims, it, steps)
    s, w, d, l = score(args.out, args.final_games, 0)
    print(f"final: {s:.1%} against {BASELINE} over {args.final_games} games ({w}-{d}-{l}, W-D-L), "
          f"{(time.time() - t) / 60:.1f} min; saved {args.out}")


if __name__ == "__main__":
    main()

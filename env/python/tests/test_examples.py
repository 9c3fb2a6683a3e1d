"""The examples run, in miniature: examples/alphazero_torch.py trains a
tiny network for one iteration, scores it and saves a file that plays."""

import os
import signal
import subprocess
import sys

import pytest

import deathstacks as ds

pytest.importorskip("torch", reason="examples/alphazero_torch.py needs PyTorch: apt-get install python3-torch")

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "alphazero_torch.py")
TINY = ["--device", "cpu", "--threads", "1", "--blocks", "1", "--channels", "8", "--games", "4", "--steps", "3",
        "--batch", "16", "--window", "2000", "--eval-games", "2", "--final-games", "2", "--eval-sims", "8"]


def run_example(args, **kw):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "src"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, EXAMPLE] + TINY + args, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kw)


def test_alphazero_torch_trains_scores_and_saves_a_player(tmp_path):
    out = tmp_path / "az.dsnn"
    # A budget of a millisecond: exactly one iteration, then the final score.
    proc = run_example(["--minutes", "0.00001", "--eval-every", "0", "--out", str(out)])
    text, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, text
    assert "iteration 1: " in text and "iteration 2: " not in text, text
    assert "loss policy " in text, text
    assert "final: " in text and "over 2 games" in text, text
    d = ds.Player(f"az:model={out},sims=8").choose(ds.START_FEN)
    assert d.move in ds.legal_moves(ds.START_FEN)


def test_alphazero_torch_saves_on_ctrl_c(tmp_path):
    out = tmp_path / "az.dsnn"
    proc = run_example(["--minutes", "60", "--eval-every", "1000", "--out", str(out)])
    lines = []
    for line in proc.stdout:  # interrupt once the first iteration has trained
        lines.append(line)
        if "iteration 1: " in line:
            proc.send_signal(signal.SIGINT)
            break
    text = "".join(lines) + proc.communicate(timeout=600)[0]
    assert proc.returncode == 0, text
    assert "stopped after " in text and f"saved {out}" in text, text
    assert ds.Player(f"az:model={out},sims=8").choose(ds.START_FEN).move in ds.legal_moves(ds.START_FEN)

"""The tests load the library that DEATHSTACKS_LIB names (the Go test of
cmd/libdeathstacks builds it and sets it), or the installed package's."""

import os
import pathlib
import sys

import pytest

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
sys.path.insert(0, SRC)


@pytest.fixture
def engine(tmp_path) -> list:
    """The command line of an external program playing greedy's moves
    through the bot protocol."""
    path = tmp_path / "engine.py"
    path.write_text(
        "import sys\n"
        f"sys.path.insert(0, {SRC!r})\n"
        "import deathstacks as ds\n"
        "player = ds.Player('greedy')\n"
        "for line in sys.stdin:\n"
        "    words = line.split()\n"
        "    print(player.choose(' '.join(words[:2]), words[3:]).move, flush=True)\n")
    return [sys.executable, str(path)]


def children() -> list:
    """The processes whose parent is this one, zombies (not yet reaped)
    included: (pid, state, command line)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ").strip()
        except OSError:
            continue
        if int(stat[1]) == os.getpid():
            out.append((int(pid), stat[0], cmdline))
    return out

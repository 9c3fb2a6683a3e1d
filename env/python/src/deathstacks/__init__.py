"""Death Stacks from Python: a PettingZoo AEC environment, a Gymnasium
environment, a fast vector environment, the project's players and its
network, over the Go shared library libdeathstacks.

    import deathstacks
    env = deathstacks.env()                       # PettingZoo AEC
    vec = deathstacks.VectorEnv(64, opponent="alphabeta:depth=1")
    deathstacks.Player("az").choose(deathstacks.START_FEN).move
    deathstacks.Search(evaluate, sims=200).run([deathstacks.START_FEN]).policy
    deathstacks.SelfPlay(evaluate, num_games=64, seed=1).play()["policy"]
"""

from ._lib import INFO, ClosedError, DeathStacksError
from .aec import AGENTS, DeathStacksAEC, env, raw_env
from .arena import Evaluation, evaluate
from .gym_env import ENV_ID, DeathStacksEnv, register
from .players import START_FEN, Decision, Network, Player, action_of, legal_moves, move_of, render, server_stats
from .search import Search, SearchResult
from .selfplay import SelfPlay, augment, symmetries
from .spaces import NUM_ACTIONS, OBSERVATION_SHAPE
from .vector import VectorEnv

__all__ = [
    "AGENTS", "ClosedError", "DeathStacksAEC", "DeathStacksEnv", "DeathStacksError", "Decision", "ENV_ID", "INFO",
    "NUM_ACTIONS", "Network", "OBSERVATION_SHAPE", "Player", "START_FEN", "Search", "SearchResult", "SelfPlay",
    "Evaluation", "VectorEnv", "action_of", "augment", "env", "evaluate", "legal_moves", "move_of", "raw_env", "register", "render",
    "server_stats", "symmetries",
]

register()

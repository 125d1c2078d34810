"""catan_env: Settlers of Catan for multi-agent RL and game-tree search.

``catan_env.env()`` / ``raw_env`` is the PettingZoo AEC env (registered as ``catan_v0``);
``gymnasium.make("catan_env/Catan-v0")`` the single-agent env; ``catan_env.core`` the
numba rules core.
"""
import gymnasium
import pettingzoo

from .core import (GameOptions, GameRecord, IllegalActionError, CorruptStateError, N_ACTIONS,
                   action_id, action_name)
from .env import env, raw_env
from .infoset import InfoSet
from .replay import replay

__version__ = "0.1.0"

if "catan_env/Catan-v0" not in gymnasium.registry:
    gymnasium.register(id="catan_env/Catan-v0", entry_point="catan_env.gym_env:CatanGymEnv")
if "catan_v0" not in pettingzoo.aec_registry:
    pettingzoo.register(env_type="aec", id="catan_v0", entry_point=env)

__all__ = ["env", "raw_env", "InfoSet", "GameOptions", "GameRecord", "IllegalActionError",
           "CorruptStateError", "N_ACTIONS", "action_id", "action_name", "replay", "__version__"]

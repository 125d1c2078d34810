"""catan_env: Settlers of Catan for multi-agent RL and game-tree search.

``catan_env.env()`` / ``raw_env`` is the PettingZoo AEC env (registered as ``catan_v0``);
``gymnasium.make("catan_env/Catan-v0")`` the single-agent env; ``catan_env.core`` the
numba rules core, which needs numpy and numba only: the envs (and gymnasium and
pettingzoo) load on first use of ``env``, ``raw_env``, ``InfoSet`` or ``replay``.
"""
import importlib
from typing import Any

from .core import (GameOptions, GameRecord, IllegalActionError, InvalidActionError, CorruptStateError, N_ACTIONS,
                   action_id, action_name)

__version__ = "0.1.0"

_LAZY = {"env": ".aec_env", "raw_env": ".aec_env", "InfoSet": ".infoset", "replay": ".playback",
         "CompileNotice": ".compiling"}


def __getattr__(name: str) -> Any:
    """Load the env layer on first use, so that ``import catan_env.core`` stays light."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'catan_env' has no attribute {name!r}")


def _register() -> None:
    """Register the envs with gymnasium and PettingZoo where those are installed."""
    try:
        import gymnasium
    except ImportError:
        gymnasium = None  # type: ignore[assignment]  # (registered below only where installed)
    if gymnasium is not None and "catan_env/Catan-v0" not in gymnasium.registry:
        gymnasium.register(id="catan_env/Catan-v0", entry_point="catan_env.gym_env:CatanGymEnv",
                           vector_entry_point="catan_env.batched.vector_env:CatanVectorEnv")
    try:
        import pettingzoo
    except ImportError:
        return
    if not hasattr(pettingzoo, "register"):  # PettingZoo < 1.27 has no env registry
        return
    if "catan_v0" not in pettingzoo.aec_registry:
        pettingzoo.register(env_type="aec", id="catan_v0", entry_point="catan_env.aec_env:env")


_register()

__all__ = ["env", "raw_env", "InfoSet", "GameOptions", "GameRecord", "IllegalActionError", "InvalidActionError",
           "CorruptStateError", "N_ACTIONS", "action_id", "action_name", "replay", "CompileNotice", "__version__"]

"""The JSettlers-style robot: building-speed estimates (``speed``), the win-game ETA and
player models (``planning``), and the agent that plans, trades and answers offers with
them (``robot``)."""
import os as _os

from catan_env.core.cache_guard import clear_stale as _clear_stale

_clear_stale(_os.path.dirname(_os.path.abspath(__file__)))  # jitted speed estimates
from .robot import JSettlersAgent  # noqa: E402

__all__ = ["JSettlersAgent"]

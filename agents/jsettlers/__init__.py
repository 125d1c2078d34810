"""The JSettlers-style robot: building-speed estimates (``speed``), the win-game ETA and
player models (``planning``), and the agent that plans, trades and answers offers with
them (``robot``)."""
from .robot import JSettlersAgent

__all__ = ["JSettlersAgent"]

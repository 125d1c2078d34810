"""Moves by MCTS over the win-probability network, trades by the expectimax's valuations.

    make_agent("value_trader")                                   # MCTS at 3,000 playouts, offers by expected gain
    make_agent("value_trader:playouts=1000:accept=none")         # offers by gain alone (no acceptance model)

MCTS over the network (``value_mcts``) chose better moves than the expectimax in paired
games against MCTS, but makes no domestic offers; the expectimax (``pretrained``) trades
well against the robots.  This agent plays each decision by the one that does it better:
every answer to an offer and every confirmation by the expectimax's trade valuations, an
offer first in the main phase when one pays (by expected gain under the acceptance model
``accept``, else by gain), every other move by MCTS with the network at its leaves
(offers masked out of its choice).  ``playouts`` and ``variant`` are the search's,
``accept``, ``offers``, ``offer_gain`` and ``offer_to`` the trader's.
"""
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from catan_env.core import actions as A
from catan_env.core.layout import PH_MAIN, PH_TRADE_CONFIRM, PH_TRADE_RESPONSE, PHASE
from catan_env.infoset import InfoSet

from ..base import Agent, Observation
from .agent import ValueSearchAgent, value_mcts_agent

DEFAULT_ACCEPTANCE = "jsettlers-smart"
NOT_AN_OFFER = np.ones(A.N_ACTIONS, dtype=np.int8)
NOT_AN_OFFER[A.OFFER0:A.OFFER0 + A.N_MENU] = 0


class SearchTradeAgent(Agent):
    """MCTS moves, expectimax trades (see the module docstring)."""

    name = "value_trader"

    def __init__(self, seed: Optional[int] = None, playouts: int = 3000, variant: str = "best",
                 accept: str = DEFAULT_ACCEPTANCE, offers: int = 3, offer_gain: float = 0.0005,
                 offer_to: str = "all", **search: Any) -> None:
        self._own_fallbacks: "Counter[str]" = Counter()
        super().__init__(seed)
        self.trader = ValueSearchAgent(seed=seed, search=0, offers=offers, offer_gain=offer_gain,
                                       accept=accept, offer_to=offer_to)
        try:
            self.mover = value_mcts_agent(seed=None if seed is None else seed + 1, variant=variant,
                                          playouts=playouts, **search)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{exc} (value_trader's own options: playouts, variant, accept, offers, offer_gain, "
                             "offer_to; any other goes to its MCTS)") from None
        self.network = self.trader.network  # (the weights that played: the bridges record their digest)
        self.path = self.trader.path

    @property
    def fallbacks(self) -> "Counter[str]":
        """The moves replaced by either part (and any counted on this agent itself)."""
        return self.trader.fallbacks + self.mover.fallbacks + self._own_fallbacks

    @fallbacks.setter
    def fallbacks(self, value: "Counter[str]") -> None:  # (Agent.__init__ sets it: counts of this agent's own)
        self._own_fallbacks = value

    def fall_back(self, infoset: Optional[InfoSet], reason: str, action: int) -> int:
        self._own_fallbacks[reason] += 1
        if infoset is not None:
            infoset.report_fallback(reason)
        return int(action)

    @property
    def offer_recipients(self) -> Optional[List[int]]:
        return self.trader.offer_recipients

    @property
    def trade_counts(self) -> Dict[str, int]:
        return self.trader.trade_counts

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.trader.reset(seed)
        self.mover.reset(None if seed is None else seed + 1)

    def compile_stages(self) -> List[Tuple[str, Callable[[], None]]]:
        stages: List[Tuple[str, Callable[[], None]]] = self.trader.compile_stages()
        return stages + getattr(self.mover, "compile_stages")()

    def act(self, observation: Observation, infoset: InfoSet) -> int:
        phase = int(infoset.view[PHASE])
        if phase in (PH_TRADE_RESPONSE, PH_TRADE_CONFIRM):
            return self.trader.act(observation, infoset)
        mask = observation["action_mask"]
        if phase == PH_MAIN and mask[A.OFFER0:A.OFFER0 + A.N_MENU].any():
            offer = self.trader.choose_offer(observation, infoset)
            if offer >= 0:
                return offer
            mask = mask * NOT_AN_OFFER
        return self.mover.act({**observation, "action_mask": mask}, infoset)


def value_trader_agent(seed: Optional[int] = None, **options: Any) -> SearchTradeAgent:
    """``value_trader``: MCTS over the shipped network for moves, the expectimax's trade
    valuations for offers and answers (``playouts``, ``accept``, ``offers``, ...)."""
    return SearchTradeAgent(seed=seed, **options)

"""The MCTS agent: one search, many presets (``agents/mcts/config.py``).

    make_agent("mcts:variant=mp_ensemble:playouts=10000")
    MCTSAgent(variant="mpt_ensemble", playouts=1000, threads=2)

Each decision samples the seat's view from its information set (never the true state),
searches it (``run_search``) and plays the most visited root move.  Domestic trade: with
``trading=False`` the agent rejects offers and makes none; with ``trading=True`` it runs
the trade-optimistic search of "Optimizing UCT" (``trading.py``): one trading round per
turn, 1:1 offers to everyone for the chosen optimistic move, accept-only confirmations
(counter-offers ignored) and a two-option search (accept / reject) to answer offers.
"""
import copy
import dataclasses
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from catan_env.core import actions as A
from catan_env.core.layout import (
    OFFERS_MADE, OPT_MAX_OFFERS, OPT_PLAYERS, OPT_TRADE, PHASE, PH_MAIN, PH_SETUP_ROAD, PH_SETUP_SETTLEMENT, PH_TRADE_CONFIRM,
    PH_TRADE_RESPONSE, RESP_ACCEPT, TRADE_RESP, TURN, TURN_PLAYER,
)

from ..base import Agent, Observation, legal_from
from ..jsettlers import JSettlersAgent
from ..opening import SolverOpeningAgent
from . import kernel as K
from .config import make_config
from .search import SearchResult, run_search
from .trading import hand_of, optimistic_moves, trades_needed
from .tree import RootStats

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet

NON_TRADE = np.ones(A.N_ACTIONS, dtype=np.int8)
NON_TRADE[A.OFFER0:A.TRADE_CANCEL + 1] = 0
ANSWER = np.zeros(A.N_ACTIONS, dtype=np.int8)
ANSWER[[A.TRADE_ACCEPT, A.TRADE_REJECT]] = 1


class MCTSAgent(Agent):
    """MCTS of the papers' family; ``variant`` picks a preset, other keywords override
    its options (``playouts``/``iterations``, ``seconds``, ``c``, ``determinize``,
    ``chance``, ``ensemble``, ``threads``, ``trading``, ...: see ``SearchConfig``).
    ``opening="jsettlers"`` or ``"solver"`` hands the set-up placements to that agent.
    ``evaluate`` and ``prior`` plug in jitted hooks (``kernel.make_grow``); a prior hook
    turns PUCT on.  ``prior="weights"`` or ``"none"`` (a string, as from a spec) is the
    search option instead: PUCT with the built-in domain-weight prior, or UCB."""

    name = "mcts"
    path: str  # the network file, on the presets built from one (agents.deep, agents.value)

    def __init__(self, seed: Optional[int] = None, variant: str = "best",
                 evaluate: Optional[Callable[..., Any]] = None,
                 prior: Union[str, Callable[..., Any], None] = None, **options: Any) -> None:
        super().__init__(seed)
        if isinstance(prior, str):  # the search option, not a hook
            options["prior"], prior = prior, None
        elif prior is not None:
            options.setdefault("prior", "weights")  # PUCT reading the hook
        self.variant = variant
        self.config = make_config(variant, **options)
        self._grow: Optional[K.GrowKernel] = K.make_grow(evaluate, prior) if (evaluate or prior) else None
        self._pool: Optional[ThreadPoolExecutor] = None
        self.last: Optional[SearchResult] = None
        self._opener: Optional[Agent] = None
        if self.config.opening != "search":
            opener = JSettlersAgent if self.config.opening == "jsettlers" else SolverOpeningAgent
            self._opener = opener(seed=seed)
        self.reset(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        opener = getattr(self, "_opener", None)
        if opener is not None:
            opener.reset(seed)
        self._turn = -1
        self._queue: List[int] = []
        self._trade_round = True
        self.offers_made = 0        # our 1:1 offers
        self.offers_accepted = 0    # ... closed with a player who accepted
        self.offers_answered = 0    # others' offers we searched an answer for
        self.offers_taken = 0       # ... and accepted

    def compile_stages(self) -> List[Tuple[str, Callable[[], None]]]:
        """Its kernels for a first run (``catan_env.beside``): a few moves of a copy with a
        small budget (playouts are a number the kernels read, not part of what compiles),
        so that a first run does not wait on a large budget."""
        from catan_env.beside import play
        quick = copy.copy(self)  # (its own generator and pool: playing it leaves this agent as it was)
        playouts = max(min(self.config.playouts, 64), self.config.ensemble)  # (a playout per tree at least)
        quick.config = dataclasses.replace(self.config, playouts=playouts, seconds=0.0)
        quick.rng, quick._pool, quick.fallbacks = np.random.default_rng(0), None, Counter()
        quick._opener = copy.deepcopy(self._opener)
        quick.reset()
        return [("its search", lambda: play(quick, moves=20))]

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["_pool"] = None
        return state

    def _seed(self) -> int:
        return int(self.rng.integers(2 ** 62))

    def search(self, infoset: "InfoSet", allowed: np.ndarray, optimistic: Optional[np.ndarray] = None) -> SearchResult:
        """Search the seat's information set; returns the SearchResult."""
        if self.config.threads > 1 and self._pool is None:
            self._pool = ThreadPoolExecutor(self.config.threads)
        view = infoset.determinize(self._seed())
        self.last = run_search(view, infoset.seat, self.config, self._seed(), allowed,
                               optimistic, self._grow, self._pool)
        return self.last

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        legal = legal_from(observation)
        if len(legal) == 1:
            return int(legal[0])
        seat = infoset.seat
        view = infoset.determinize(0)     # read only for public facts and the own hand
        phase = int(view[PHASE])
        if self._opener is not None and phase in (PH_SETUP_SETTLEMENT, PH_SETUP_ROAD):
            return int(self._opener.act(observation, infoset))
        if phase == PH_TRADE_RESPONSE:
            if self.config.trading and A.TRADE_ACCEPT in legal:
                answer = self._answer(self.search(infoset, ANSWER).stats, seat)
                self.offers_answered += 1
                self.offers_taken += answer == A.TRADE_ACCEPT
                return answer
            return A.TRADE_REJECT
        if phase == PH_TRADE_CONFIRM:
            return self._confirm(view, seat, legal)
        if int(view[TURN]) != self._turn:
            self._turn = int(view[TURN])
            self._queue = []
            self._trade_round = True
        while self._queue:
            offer = self._queue.pop(0)
            if offer in legal:
                self.offers_made += 1
                return offer
        optimistic = None
        if (self.config.trading and self._trade_round and phase == PH_MAIN
                and int(view[TURN_PLAYER]) == seat and view[OPT_TRADE]
                and view[OFFERS_MADE] < view[OPT_MAX_OFFERS]):
            optimistic = optimistic_moves(view, seat, int(view[OPT_MAX_OFFERS] - view[OFFERS_MADE]))
        candidates = legal[NON_TRADE[legal] == 1]
        if len(candidates) == 1 and (optimistic is None or len(optimistic) == 0):
            return int(candidates[0])
        key = self._best(self.search(infoset, NON_TRADE, optimistic), seat)
        if key < K.OPTIMISTIC:
            return key
        self._trade_round = False
        self._queue = trades_needed(hand_of(view, seat), key - K.OPTIMISTIC, self.rng)
        return self.act(observation, infoset)

    def game_stats(self) -> Dict[str, int]:
        """Trading counts of the game so far (the arena records them per game)."""
        return {"offers_made": self.offers_made, "offers_accepted": self.offers_accepted,
                "offers_answered": self.offers_answered, "offers_taken": self.offers_taken}

    def _answer(self, stats: RootStats, seat: int) -> int:
        """The paper's answer is the most visited of accept / reject; with accept_margin
        >= 0 accepting must beat rejecting by that much in the seat's mean reward."""
        margin = self.config.accept_margin
        if margin < 0:
            return stats.best(seat, self.rng)
        mean = {int(k): stats.wins[i, seat] / max(stats.visits[i], 1.0) for i, k in enumerate(stats.keys)}
        if A.TRADE_ACCEPT in mean and mean[A.TRADE_ACCEPT] > mean.get(A.TRADE_REJECT, 0.0) + margin:
            return A.TRADE_ACCEPT
        return A.TRADE_REJECT

    def _best(self, result: SearchResult, seat: int) -> int:
        return result.stats.best(seat, self.rng)

    def _confirm(self, view: np.ndarray, seat: int, legal: np.ndarray) -> int:
        """As proposer: close with the first player who accepted; counters are ignored."""
        n = int(view[OPT_PLAYERS])
        for a in legal:
            if A.CONFIRM0 <= a < A.TRADE_CANCEL:
                partner = A.confirm_partner(int(a), seat, n)
                if view[TRADE_RESP + partner] == RESP_ACCEPT:
                    self.offers_accepted += 1
                    return int(a)
        return A.TRADE_CANCEL

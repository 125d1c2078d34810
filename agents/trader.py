"""A simple trading baseline: plans like the FAST JSettlers robot, offers 1:1 trades for
its rarest missing resource to everyone, accepts offers that lower its own ETA and do not
come from the leader, and never counter-offers."""
from typing import Any, Optional

import numpy as np

from catan_env.core import actions as A
from catan_env.core import layout as L

from .jsettlers import JSettlersAgent


class TraderAgent(JSettlersAgent):
    name = "trader"

    def __init__(self, seed: Optional[int] = None, **kw: Any) -> None:
        kw.setdefault("strategy", "fast")
        super().__init__(seed, **kw)

    def _leader(self) -> int:
        n = int(self._s[L.OPT_PLAYERS])
        return max(range(n), key=lambda p: int(self._s[L.PUBLIC_VP + p]))

    def _make_offer(self, cost: np.ndarray) -> Optional[int]:
        if not any(A.OFFER0 <= a < A.TRADE_ACCEPT for a in self._legal):
            return None
        model = self._model()
        get = self._rarest_missing(model, cost)
        if get is None:
            return None
        need = np.asarray(cost)
        spare = [r for r in range(5) if r != get and self._hand[r] > need[r]]
        for r in sorted(spare, key=lambda r: -(self._hand[r] - need[r])):
            key = (1, r, 1, get)
            a = A.OFFER0 + A.menu_index(*key)
            if key not in self.offers_made and a in self._legal:
                self.offers_made.add(key)
                return a
        return None

    def _answer_offer(self) -> int:
        s = self._s
        proposer = int(s[L.TURN_PLAYER])
        if A.TRADE_ACCEPT not in self._legal or proposer == self._leader() and proposer != self._me:
            return A.TRADE_REJECT
        cost = self._target_cost()
        if cost is None:
            return A.TRADE_REJECT
        model = self._model()
        h = self._hand.copy()
        h[int(s[L.TRADE_GET_RES])] -= int(s[L.TRADE_GET_N])
        h[int(s[L.TRADE_GIVE_RES])] += int(s[L.TRADE_GIVE_N])
        if model.eta(h, cost, cutoff=1000) < model.eta(self._hand, cost, cutoff=1000):
            return A.TRADE_ACCEPT
        return A.TRADE_REJECT

    def _confirm(self) -> int:
        s, me = self._s, self._me
        n = int(s[L.OPT_PLAYERS])
        leader = self._leader()
        for a in sorted(self._legal):
            if A.CONFIRM0 <= a < A.TRADE_CANCEL:
                partner = A.confirm_partner(a, me, n)
                if s[L.TRADE_RESP + partner] == L.RESP_ACCEPT and (partner != leader or leader == me):
                    self.plan = []
                    return a
        return A.TRADE_CANCEL

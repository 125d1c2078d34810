"""A seat's agent asked in the core's terms, for a client of a game played elsewhere: the
decision states a bridge builds from its mirror (a discard, an answer to an offer, a
confirm among counter-offers) and the agent's move, checked against the mask, with every
replaced move counted."""
import time
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ...agent_specs import AgentProtocol
from ...core import actions as A
from ...core import layout as L
from ...core import rules as R
from ...core.observe import VECTOR_SIZE, encode_vector
from ...core.tables import CARDS_PER_RESOURCE
from ...infoset import InfoSet


class AgentSeat:
    """Mixin of a bridge client: ``agent`` decides for mirror seat ``seat``; ``fallbacks``
    counts the moves replaced (the agent's own reported ones and the client's)."""

    agent: Optional[AgentProtocol]
    seat: int
    seed: int
    decisions: int
    fallbacks: int
    fallback_reasons: Dict[str, int]
    think_seconds: List[float]  # how long the agent took over each decision

    def _decide(self, state: np.ndarray, ban: Iterable[int] = ()) -> int:
        """The agent's action for a decision state of our seat (mask-checked; a banned
        action is masked while another is legal)."""
        state = within_the_deck(state, self.seat)
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        R.legal_mask(state, mask)
        for a in ban:
            if mask.sum() > 1:
                mask[a] = 0
        vec = np.zeros(VECTOR_SIZE, dtype=np.float32)
        encode_vector(state, self.seat, vec)
        info = InfoSet(state, self.seat, self.seed * 7919 + self.decisions,
                       on_fallback=lambda seat, reason: self._count_fallback(reason))
        self.decisions += 1
        if self.agent is None:  # (a replayed session follows the game and decides nothing)
            raise RuntimeError("this client has no agent to decide with")
        t0 = time.perf_counter()
        a = int(self.agent.act({"observation": vec, "action_mask": mask}, info))
        self.think_seconds.append(time.perf_counter() - t0)
        if not (0 <= a < A.N_ACTIONS and mask[a]):
            self._count_fallback("client: the agent's move was not legal")
            legal = np.flatnonzero(mask)
            safe = [x for x in (A.END_TURN, A.ROLL, A.TRADE_REJECT, A.TRADE_CANCEL) if mask[x]]
            a = int(safe[0] if safe else legal[0])
        return a

    def _count_fallback(self, reason: str) -> None:
        self.fallbacks += 1
        self.fallback_reasons[reason] = self.fallback_reasons.get(reason, 0) + 1

    def _choose_discards(self, state: np.ndarray, k: int, deadline: Optional[float] = None) -> List[int]:
        """The k cards our seat discards, as a resource vector (one decision a card, as in
        the core).  Past ``deadline`` (time.monotonic()) each card left is the one held most,
        counted as a fallback: a server that discards for a slow seat would not wait."""
        s = state.copy()
        s[L.PHASE] = L.PH_DISCARD
        for p in range(L.MAX_PLAYERS):
            s[L.DISCARDS + p] = 0
        s[L.DISCARDS + self.seat] = k
        vec = [0] * L.N_RES
        for _ in range(k):
            s[L.DECIDER] = self.seat
            if deadline is not None and time.monotonic() > deadline:
                self._count_fallback("client: discard past the server's time limit")
                held = [int(s[L.hand_i(self.seat, r)]) for r in range(L.N_RES)]
                a = A.DISCARD0 + max(range(L.N_RES), key=lambda r: held[r])
            else:
                a = self._decide(s)
            vec[a - A.DISCARD0] += 1
            R.apply_action(s, a, -1)
        return vec


def within_the_deck(state: np.ndarray, seat: int) -> np.ndarray:
    """The decision state with at most 19 cards of each resource in the bank and hands,
    as the core (and a determinization's deal) assumes.  A server whose bank never runs
    short (JSettlers) can put more in play; the agent's copy then loses the excess from
    the bank, else from cards of that type ``seat`` cannot place in other hands (what
    each observer knows kept a lower bound).  The mirror itself keeps the true counts."""
    n = int(state[L.OPT_PLAYERS])
    hands = L.view(state, "hand")
    excess = [int(state[L.BANK + r]) + int(hands[:n, r].sum()) - CARDS_PER_RESOURCE for r in range(L.N_RES)]
    if max(excess) <= 0:
        return state
    s = state.copy()
    for r in range(L.N_RES):
        e = excess[r]
        take = min(e, int(s[L.BANK + r]))
        s[L.BANK + r] -= take
        e -= take
        for t in range(n):
            while e > 0 and t != seat and s[L.hand_i(t, r)] > s[L.know_i(seat, t, r)]:
                s[L.hand_i(t, r)] -= 1
                e -= 1
                for o in list(range(n)) + [L.PUBLIC]:
                    if s[L.know_i(o, t, r)] > s[L.hand_i(t, r)]:
                        s[L.know_i(o, t, r)] -= 1
                    elif s[L.know_i(o, t, L.UNKNOWN)] > 0:
                        s[L.know_i(o, t, L.UNKNOWN)] -= 1
                    else:
                        s[L.know_i(o, t, r)] -= 1
    return s


def response_state(state: np.ndarray, caller: int, responder: int, menu: int) -> np.ndarray:
    """The decision state of ``responder`` answering ``caller``'s menu offer ``menu``."""
    n = int(state[L.OPT_PLAYERS])
    s = state.copy()
    s[L.PHASE] = L.PH_TRADE_RESPONSE
    s[L.TURN_PLAYER] = caller
    s[L.TRADE_GIVE_RES], s[L.TRADE_GIVE_N] = A.MENU_GIVE_RES[menu], A.MENU_GIVE_N[menu]
    s[L.TRADE_GET_RES], s[L.TRADE_GET_N] = A.MENU_GET_RES[menu], A.MENU_GET_N[menu]
    for p in range(L.MAX_PLAYERS):
        s[L.TRADE_RESP + p] = L.RESP_PENDING if p < n and p != caller else L.RESP_NOT_ASKED
    s[L.DECIDER] = responder
    return s


def menu_vectors(menu: int) -> Tuple[List[int], List[int]]:
    """(give, get) resource vectors of menu offer ``menu``, in the offerer's frame."""
    give, get = [0] * L.N_RES, [0] * L.N_RES
    give[A.MENU_GIVE_RES[menu]] = int(A.MENU_GIVE_N[menu])
    get[A.MENU_GET_RES[menu]] = int(A.MENU_GET_N[menu])
    return give, get


def menu_index(give: Sequence[int], get: Sequence[int]) -> Optional[int]:
    """The core's menu offer for giving vector give and getting vector get, or None."""
    gr = [r for r in range(L.N_RES) if give[r]]
    tr = [r for r in range(L.N_RES) if get[r]]
    if len(gr) != 1 or len(tr) != 1 or gr[0] == tr[0]:
        return None
    for m in range(A.N_MENU):
        if A.MENU_GIVE_RES[m] == gr[0] and A.MENU_GIVE_N[m] == give[gr[0]] and \
                A.MENU_GET_RES[m] == tr[0] and A.MENU_GET_N[m] == get[tr[0]]:
            return m
    return None


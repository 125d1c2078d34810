"""Direct edits of a mirror's state for events the core's actions cannot express, and
the card-type changes that make an event fit when no change of guesses does.  Every
edit changes only what the observing seat cannot see or the server showed, and leaves
every knowledge row a true lower bound; every edit but those of a bank that never runs
short (``grant``, ``bank_swap``, ``plenty`` past the core's bank, and a ``resync`` or
``retype`` the hidden bank balances: JSettlers) keeps every resource and card conserved."""
from typing import Any, Callable, List, Mapping, Optional, Protocol, Sequence, Tuple

import numpy as np

from ...core import actions as A
from ...core import edit as E
from ...core import layout as L
from ...core import rules as R


class MirrorError(RuntimeError):
    pass


class _ActionGroup(Protocol):
    """What first_need reads of a mirror Entry (mirror.py imports this module)."""
    kind: str
    actions: List[List[int]]
    args: Any


def apply_edit(s: np.ndarray, args: Sequence[Any]) -> bool:
    """Events outside the core's actions, as direct, knowledge-tracked card moves."""
    what = args[0]
    if what == "maritime":  # (p, give r, n, get r)
        _, p, r1, n, r2 = args
        if s[L.hand_i(p, r1)] < n or s[L.BANK + r2] < 1 or s[L.PHASE] != L.PH_MAIN:
            return False
        E.bank_trade(s, p, r1, n, r2)
        return True
    if what == "trade":  # (p, q, p gives vec, p gets vec)
        _, p, q, give, get = args
        for r in range(L.N_RES):
            if s[L.hand_i(p, r)] < give[r] or s[L.hand_i(q, r)] < get[r]:
                return False
        for r in range(L.N_RES):
            if give[r]:
                E.transfer(s, p, q, r, give[r])
            if get[r]:
                E.transfer(s, q, p, r, get[r])
        return True
    if what == "plenty":  # (p, vec) year of plenty with a short bank
        _, p, vec = args
        if s[L.dev_i(p, L.YEAR_OF_PLENTY)] - s[L.dev_new_i(p, L.YEAR_OF_PLENTY)] <= 0:
            return False
        E.play_dev_card(s, p, L.YEAR_OF_PLENTY)
        for r in range(L.N_RES):
            if vec[r]:
                s[L.BANK + r] = max(int(s[L.BANK + r]), int(vec[r]))  # (a bank that never runs short)
                E.gain_from_bank(s, p, r, vec[r])
        return True
    if what == "bank_swap":  # (p, give vec, get vec): a bank trade the core's bank cannot pay
        _, p, give, get = args
        if any(s[L.hand_i(p, r)] < give[r] for r in range(L.N_RES)) or s[L.PHASE] != L.PH_MAIN:
            return False
        E.pay_to_bank(s, p, give)
        for r in range(L.N_RES):
            if get[r]:
                s[L.BANK + r] = max(int(s[L.BANK + r]), int(get[r]))  # (topped up: JSettlers')
                E.gain_from_bank(s, p, r, int(get[r]))
        return True
    if what == "grant":  # (p, vec): p gains vec from a bank that never runs short (JSettlers)
        _, p, vec = args
        for r in range(L.N_RES):
            if vec[r] > 0:
                s[L.BANK + r] = max(int(s[L.BANK + r]), int(vec[r]))  # (the bank is topped up)
                E.gain_from_bank(s, p, r, int(vec[r]))
        return True
    if what == "resync":  # (observer, resource, {seat: exact count}, balancing seat)
        return _resync(s, *args[1:])
    if what == "retype":  # (observer, seat, resource it must have one more of)
        return _retype(s, *args[1:])
    if what == "retype_dev":  # (observer, seat, card type it must hold, not new)
        return _retype_dev(s, *args[1:])
    raise MirrorError(f"unknown edit {what!r}")


def _unknown(s: np.ndarray, o: int, p: int, r: int) -> int:
    """Cards of resource r in p's hand that observer o cannot place."""
    return int(s[L.hand_i(p, r)] - s[L.know_i(o, p, r)])


def _resync(s: np.ndarray, me: int, res: int, counts: Mapping[int, int], balance: int,
            bank_hidden: bool = False) -> bool:
    """Set the announced exact counts of res by changing the types of cards the observer
    me cannot place, pairing every change with an opposite one (the balancing seat takes
    what no announced seat can), so every resource stays conserved; where the server
    never shows its bank (JSettlers, never short), the bank balances instead: it pays the
    announced cards the seats lacked, and takes the over-guessed cards beyond what the
    balancing seat's unplaced cards can take."""
    plus = [(p, n - int(s[L.hand_i(p, res)])) for p, n in counts.items() if n > s[L.hand_i(p, res)]]
    minus = [(p, int(s[L.hand_i(p, res)]) - n) for p, n in counts.items() if n < s[L.hand_i(p, res)]]
    need = sum(d for _, d in plus) - sum(d for _, d in minus)
    if need > 0 and not bank_hidden:
        minus.append((balance, need))
    elif need < 0:
        spare = sum(_unknown(s, me, balance, r) for r in range(L.N_RES) if r != res)
        take = min(-need, spare) if bank_hidden else -need
        if take:
            plus.append((balance, take))
    moves = []  # (seat, from type, to type)
    for p, d in plus:
        for _ in range(d):
            x = next((r for r in range(L.N_RES) if r != res and _unknown(s, me, p, r) > 0), None)
            if x is None:
                return False
            s[L.hand_i(p, x)] -= 1
            s[L.hand_i(p, res)] += 1
            moves.append(x)
    for p, d in minus:
        for _ in range(d):
            if _unknown(s, me, p, res) <= 0:
                return False
            if moves:
                x = moves.pop()
            elif bank_hidden:  # the bank takes the res, the card becomes the bank's most plentiful type
                x = max((r for r in range(L.N_RES) if r != res), key=lambda r: int(s[L.BANK + r]))
                s[L.BANK + x] = max(int(s[L.BANK + x]), 1) - 1
                s[L.BANK + res] += 1
            else:
                return False
            s[L.hand_i(p, res)] -= 1
            s[L.hand_i(p, x)] += 1
    if moves and not bank_hidden:
        return False
    for x in moves:  # the bank pays the announced cards, taking the types they were
        s[L.BANK + res] = max(int(s[L.BANK + res]), 1)
        s[L.BANK + res] -= 1
        s[L.BANK + x] += 1
    _clamp_knowledge(s)
    return True


def _clamp_knowledge(s: np.ndarray) -> None:
    """After cards changed type: every knowledge row stays a true lower bound."""
    n = int(s[L.OPT_PLAYERS])
    for o in list(range(n)) + [L.PUBLIC]:
        for p in range(n):
            for r in range(L.N_RES):
                k = L.know_i(o, p, r)
                if s[k] > s[L.hand_i(p, r)]:
                    s[L.know_i(o, p, L.UNKNOWN)] += s[k] - s[L.hand_i(p, r)]
                    s[k] = s[L.hand_i(p, r)]


def _retype(s: np.ndarray, me: int, p: int, r: int, keep: Sequence[int] = (0,) * L.N_RES,
            bank_hidden: bool = False) -> bool:
    """One card of p that me cannot place becomes an r, and one r of another seat that
    me cannot place (else, where the server never shows its bank, one of the bank's)
    becomes that card's old type (resources stay conserved); p keeps at least ``keep``
    of each type (what the event spends)."""
    x = max((c for c in range(L.N_RES) if c != r and _unknown(s, me, p, c) > 0
             and s[L.hand_i(p, c)] > keep[c]),  # (never a card the event itself needs)
            key=lambda c: _unknown(s, me, p, c), default=None)
    q = next((q for q in range(int(s[L.OPT_PLAYERS])) if q not in (p, me)
              and _unknown(s, me, q, r) > 0), None)
    if x is None or (q is None and (not bank_hidden or s[L.BANK + r] <= 0)):
        return False
    s[L.hand_i(p, x)] -= 1
    s[L.hand_i(p, r)] += 1
    if q is not None:
        s[L.hand_i(q, r)] -= 1
        s[L.hand_i(q, x)] += 1
    else:  # no other seat holds an unplaced r: the bank takes the old type (never seen there)
        s[L.BANK + r] -= 1
        s[L.BANK + x] += 1
    _clamp_knowledge(s)
    return True


def _retype_dev(s: np.ndarray, me: int, p: int, t: int) -> bool:
    """One old development card of p (never me's) becomes type t; the deck, or another
    seat's card of type t, takes the old type."""
    x = next((c for c in range(L.N_DEV) if c != t
              and s[L.dev_i(p, c)] - s[L.dev_new_i(p, c)] > 0), None)
    if x is None or p == me:
        return False
    if s[L.DECK + t] > 0:
        s[L.DECK + t] -= 1
        s[L.DECK + x] += 1
    else:
        q = next((q for q in range(int(s[L.OPT_PLAYERS])) if q not in (p, me)
                  and s[L.dev_i(q, t)] > 0), None)
        if q is None:
            return False
        s[L.dev_i(q, t)] -= 1
        s[L.dev_i(q, x)] += 1
        if s[L.dev_new_i(q, t)] > s[L.dev_i(q, t)]:
            s[L.dev_new_i(q, t)] -= 1
            s[L.dev_new_i(q, x)] += 1
    s[L.dev_i(p, x)] -= 1
    s[L.dev_i(p, t)] += 1
    return True


def _edit_need(s: np.ndarray, args: Sequence[Any]) -> Optional[Tuple[str, int, int, Tuple[int, ...]]]:
    """What a trade edit's paying seat lacks first: ("res", seat, resource, what it pays)."""
    if args[0] == "trade":
        _, p, q, give, get = args
        pays = [(p, list(give)), (q, list(get))]
    elif args[0] == "bank_swap":
        pays = [(args[1], list(args[2]))]
    else:  # maritime (p, r1, n, r2)
        cost = [0] * L.N_RES
        cost[args[2]] = args[3]
        pays = [(args[1], cost)]
    for p, vec in pays:
        for r in range(L.N_RES):
            if s[L.hand_i(p, r)] < vec[r]:
                return ("res", int(p), r, tuple(int(x) for x in vec))
    return None


def first_need(s: np.ndarray, entry: _ActionGroup,
               outcome_ok: Callable[[np.ndarray, int, int], bool]) -> Optional[Tuple[str, int, int, Tuple[int, ...]]]:
    """(kind "res" | "dev", seat, resource or card type) that the first failing action of
    entry lacks, or None when it fails for another reason.  outcome_ok(s, a, outcome):
    whether a forced chance outcome is possible (the mirror's test)."""
    if entry.kind == "edit" and entry.args[0] in ("trade", "bank_swap", "maritime"):
        return _edit_need(s, entry.args)
    if entry.kind != "act":
        return None
    s = s.copy()
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    for a, outcome in entry.actions:
        n = R.legal_actions(s, buf)
        p = int(s[L.DECIDER])
        if a in buf[:n] and outcome_ok(s, a, outcome):
            R.apply_action(s, a, outcome)
            continue
        hand = [int(s[L.hand_i(p, r)]) for r in range(L.N_RES)]
        if A.is_robber(a) and outcome >= 0:  # a known theft: the victim has it
            victim = A.robber_victim_seat(a, p, int(s[L.OPT_PLAYERS]))
            return ("res", victim, int(outcome), (0,) * L.N_RES)
        card = {A.PLAY_KNIGHT: L.KNIGHT, A.PLAY_ROAD_BUILDING: L.ROAD_BUILDING}.get(a)
        if A.YOP0 <= a < A.MONOPOLY0:
            card = L.YEAR_OF_PLENTY
        elif A.MONOPOLY0 <= a < A.ROBBER0:
            card = L.MONOPOLY
        if card is not None:
            return ("dev", p, card, ())
        cost = np.zeros(L.N_RES, dtype=np.int64)
        if A.ROAD0 <= a < A.BUY_DEV or a == A.BUY_DEV:
            cost = R.action_cost(a)
            if A.CITY0 <= a < A.BUY_DEV and s[L.V_LEVEL + a - A.CITY0] == 0:
                cost = R.DIRECT_CITY_COST
        elif A.DISCARD0 <= a < A.MARITIME0:
            cost[a - A.DISCARD0] = 1
        elif A.MARITIME0 <= a < A.OFFER0:
            r1 = A.MARITIME_GIVE[a - A.MARITIME0]
            cost[r1] = R.trade_rate(s, p, r1)
        elif A.OFFER0 <= a < A.TRADE_ACCEPT:
            m = a - A.OFFER0
            cost[A.MENU_GIVE_RES[m]] = A.MENU_GIVE_N[m]
        elif a == A.TRADE_ACCEPT:
            cost[s[L.TRADE_GET_RES]] = s[L.TRADE_GET_N]
        for r in range(L.N_RES):
            if hand[r] < cost[r]:
                return ("res", p, r, tuple(int(c) for c in cost))
        return None
    return None

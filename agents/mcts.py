"""Information-set MCTS in numba (single observer, open loop), after the search notes.

Each iteration samples a full state from what the searching seat knows
(``determinize``), walks one shared tree keyed by action sequences, expands one untried
legal action, plays out with a built-in policy and backs up the vector of rewards
(winner 1, others 0; a capped game gives 1/n each).  At a node the *decider* picks the
child maximising its own mean plus ``c * sqrt(ln(availability) / visits)``
(availability counts the iterations in which the child was legal, as ISMCTS needs
since determinizations differ).  Dice, steals and draws are re-sampled every iteration
(open loop).  Optional virtual wins (Szita, Chaslot, Spronck): a new settlement child
starts with 20 visits and 20 wins for its decider, a city with 10; they are not backed
up.  The tree lives in preallocated arrays; the agent plays the most visited root child.
"""
import numpy as np
from numba import njit

from catan_env.core import actions as A
from catan_env.core.determinize import determinize
from catan_env.core.layout import OPT_PLAYERS, PHASE, PH_GAME_OVER, STATE_SIZE, TURN, WINNER
from catan_env.core.playout import POLICIES, playout_inplace
from catan_env.core.rng import randint, seed_rng
from catan_env.core.cards import current_decider
from catan_env.core.rules import apply_action, legal_actions

from .base import Agent, legal_from


@njit(cache=True)
def _virtual(a):
    if A.SETTLEMENT0 <= a < A.CITY0:
        return 20.0
    if A.CITY0 <= a < A.BUY_DEV:
        return 10.0
    return 0.0


@njit(cache=True)
def search(view, seat, iterations, seed, c, policy, turn_cap, max_nodes, virtual_wins, root_allowed):
    """Run ISMCTS from the seat's view; return (visits per root action, availability per
    root action, iterations done).
    root_allowed[a] == 0 keeps action a out of the root's children."""
    n_players = view[OPT_PLAYERS]
    act = np.empty(max_nodes, dtype=np.int64)
    first = np.full(max_nodes, -1, dtype=np.int64)
    nxt = np.full(max_nodes, -1, dtype=np.int64)
    visits = np.zeros(max_nodes)
    avail = np.zeros(max_nodes)
    wins = np.zeros((max_nodes, 4))
    real_visits = np.zeros(max_nodes)
    count = 1
    act[0] = -1
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    child_of = np.full(A.N_ACTIONS, -1, dtype=np.int64)
    path = np.empty(4096, dtype=np.int64)
    rng = np.zeros(STATE_SIZE, dtype=np.int64)
    seed_rng(rng, seed)
    reward = np.zeros(4)
    for it in range(iterations):
        s = determinize(view, seat, seed * 1_000_003 + it)
        node = 0
        depth = 0
        path[0] = 0
        while s[PHASE] != PH_GAME_OVER and s[TURN] <= turn_cap and depth < 4000:
            n = legal_actions(s, buf)
            if node == 0:
                m = 0
                for i in range(n):
                    if root_allowed[buf[i]]:
                        buf[m] = buf[i]
                        m += 1
                n = m
            d = current_decider(s)
            k = first[node]
            while k >= 0:
                child_of[act[k]] = k
                k = nxt[k]
            # every child legal in this determinization was available once this iteration
            untried = 0
            for i in range(n):
                ch = child_of[buf[i]]
                if ch < 0:
                    untried += 1
                else:
                    avail[ch] += 1.0
            chosen = -1
            expanded = False
            if untried > 0 and count < max_nodes:
                pick = randint(rng, untried)
                for i in range(n):
                    if child_of[buf[i]] < 0:
                        if pick == 0:
                            a = buf[i]
                            chosen = count
                            count += 1
                            act[chosen] = a
                            nxt[chosen] = first[node]
                            first[node] = chosen
                            avail[chosen] = 1.0
                            expanded = True
                            if virtual_wins:
                                v = _virtual(a)
                                visits[chosen] = v
                                wins[chosen, d] = v
                            break
                        pick -= 1
            else:
                best = -1e300
                for i in range(n):
                    ch = child_of[buf[i]]
                    if ch < 0:
                        continue
                    if visits[ch] <= 0:
                        score = 1e300
                    else:
                        score = wins[ch, d] / visits[ch] + c * np.sqrt(np.log(avail[ch]) / visits[ch])
                    if score > best:
                        best = score
                        chosen = ch
            k = first[node]
            while k >= 0:
                child_of[act[k]] = -1
                k = nxt[k]
            if chosen < 0:
                break
            apply_action(s, act[chosen], -1)
            depth += 1
            path[depth] = chosen
            node = chosen
            if expanded:
                break  # play out from the new node
        if s[PHASE] != PH_GAME_OVER:
            playout_inplace(s, policy, seed * 7919 + it, turn_cap)
        reward[:] = 0.0
        w = s[WINNER]
        if w >= 0:
            reward[w] = 1.0
        else:
            for p in range(n_players):
                reward[p] = 1.0 / n_players
        for j in range(depth + 1):
            nd = path[j]
            visits[nd] += 1.0
            real_visits[nd] += 1.0
            for p in range(4):
                wins[nd, p] += reward[p]
    out = np.zeros(A.N_ACTIONS)
    root_avail = np.zeros(A.N_ACTIONS)
    k = first[0]
    while k >= 0:
        out[act[k]] = real_visits[k]
        root_avail[act[k]] = avail[k]
        k = nxt[k]
    return out, root_avail, iterations


class MCTSAgent(Agent):
    """ISMCTS agent: ``iterations`` per decision, UCB constant ``c``, playout policy
    ("pruning", "random" or "weighted"), optional virtual wins, playouts capped at
    ``horizon`` turns past the current one.  ``trading=False`` (the default, as in Szita
    et al.) makes no domestic offers, rejects offers and cancels; bank trades stay."""

    name = "mcts"

    def __init__(self, seed=None, iterations=200, c=0.25, playout="pruning", virtual_wins=True,
                 horizon=200, max_nodes=None, trading=False):
        super().__init__(seed)
        self.trading = bool(trading)
        if playout not in POLICIES:
            raise ValueError(f"playout must be one of {list(POLICIES)}, got {playout!r}")
        if int(iterations) < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations!r}")
        self.iterations = int(iterations)
        self.c = float(c)
        self.policy = POLICIES[playout]
        self.virtual_wins = bool(virtual_wins)
        self.horizon = int(horizon)
        self.max_nodes = int(max_nodes) if max_nodes else 64 * self.iterations + 64

    def act(self, observation, infoset):
        legal = legal_from(observation)
        allowed = np.ones(A.N_ACTIONS, dtype=np.int8)
        if not self.trading:
            if A.TRADE_REJECT in legal:
                return A.TRADE_REJECT
            if A.TRADE_CANCEL in legal:
                return A.TRADE_CANCEL
            allowed[A.OFFER0:A.TRADE_ACCEPT] = 0
            legal = legal[allowed[legal] == 1]
        if len(legal) == 1:
            return int(legal[0])
        view = infoset.determinize(int(self.rng.integers(2 ** 62)))
        seed = int(self.rng.integers(2 ** 62))
        visits, _, _ = search(view, infoset.seat, self.iterations, seed, self.c, self.policy,
                           int(view[TURN]) + self.horizon, self.max_nodes, self.virtual_wins,
                           allowed)
        visits = visits[legal]
        best = legal[visits == visits.max()]
        return int(best[self.rng.integers(len(best))])

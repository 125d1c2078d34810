"""The learned agent: the win-probability network searched by expectimax.

    make_agent("pretrained")                    # the shipped network, anytime search, 6,000 evaluations a decision
    make_agent("pretrained:seconds=0.1")        # the anytime search by the clock
    make_agent("pretrained:search=1")           # a fixed 2-ply search on 2 determinizations
    make_agent("pretrained:search=0")           # the network alone: greedy one ply
    make_agent("value:path=nets/round-3.npz:search=2:beam=4")
    make_agent("pretrained:seconds=0.1")             # anytime: as deep as 0.1 s per decision allows

Each decision samples ``determinizations`` states from the seat's information set
(never the true state), scores every candidate move with :func:`search.search_values`
on each and plays the best mean.  ``search`` is the number of plies beyond the first
(0: greedy by the network's value of each move's result, chance included).

Anytime mode (``seconds`` > 0, or ``leaves`` > 0 network evaluations a decision):
iterative deepening within the budget.  One ply for every move, then the ``beam`` best
again two plies deep, then three (up to ``search`` + 1 plies; ``search`` defaults to 2
here), then more determinizations at the deepest depth finished, on the same beam.  The
budget is read between moves, and a move is searched only when the cost its depth had
for the last move still fits, so a decision ends within the budget plus the rare move
that costs more than the one before it.  A depth cut short is dropped (its moves are not
comparable); the first ply is always finished.  The ``leaves`` budget counts work, not
time, so a game follows its seed on any machine; the ``seconds`` budget follows the clock
(how deep it gets depends on the machine and its load).  Trade decisions, macro moves and
the first ply are outside the budget.

In the main phase, builds that maritime trades would pay for are scored too, as macro
moves (``macros=false`` turns them off; ``macro_moves`` counts the trades played for
one).  ``opening=jsettlers`` hands the set-up placements to the JSettlers robot's
opening search; ``opening=rollout`` values each set-up placement at the end of the
set-up, every later placement played by its seat's greedy network choice
(``setup_rollout.py``), within the same budget: one ply for every placement, then the
rollouts in that order while the budget lasts.

Domestic trade (``trading.py``), every choice by the network's value of the position
after the trade against the position without it: in the main phase the agent offers
the menu entry that raises its value most, by more than ``offer_margin``, at most
``offers`` times a turn and never the same offer twice in a turn (``offers=0``: no
offers); it answers an offer with the accept or counter-offer that raises its value by
more than ``accept_margin`` (``counters=false``: accept or reject only), and confirms the
partner's answer (accept or counter) that raises its value, else cancels.
``lopsided=false`` keeps to trades a person might take: no offer or counter asking 2
cards for 1, and a counter always gives the proposer the resource it asked for (its
counters were taken 4% of the time, ``benchmarks/counter_offers.py``; browser play sets it
when a person sits at the table).
``accept=KIND`` (an opponent kind with a shipped acceptance model,
``catan_env/learned/acceptance.py``: ``jsettlers-smart``) chooses offers by expected gain
instead: each partner's gain from the trade times its chance to take the offer, summed,
above ``offer_gain``; a partner the trade would help more than us counts as a loss.
``offer_to=gainers`` sums only the partners we gain from and names them
(``offer_recipients``): a bridge whose server lets an offer name its recipients asks only
them; the core's own offers are to everyone.
``trade_counts`` counts what it did.  ``last_values`` holds each seat's estimated chance
to win after the chosen move (recorded as training targets).
"""
import copy
import time
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
from numba import njit

from catan_env.core import actions as A
from catan_env.core.game import new_game
from catan_env.core.layout import OPT_PLAYERS, PH_MAIN, PH_SETUP_ROAD, PH_SETUP_SETTLEMENT, PHASE, TRADE_GET_RES, TURN
from catan_env.infoset import InfoSet
from catan_env.learned.network import PRETRAINED, load_network
from catan_env.learned.value import new_evaluator, state_win_probs
from catan_env.learned.plays import ValueNetworkPlay
from catan_env.learned.acceptance import load_acceptance
from catan_env.learned.greedy import (
    IS_OFFER, K_FALLBACK, K_MACRO, K_MOVE, K_OFFER, KIND_NAMES, M_COUNT, M_IDS, M_TURN, MAX_OFFERS, greedy_decision,
    move_or_macro, new_memory, offer_choice, options, trade_or_forced,
)
from catan_env.learned.trading import offer_partner_gains

from ..base import Agent, Observation, legal_from
from .search import SEARCHABLE, move_value, search_values
from .setup_rollout import in_setup, setup_rollout_value

# the set-up placements (``opening=``): the expectimax's own, the JSettlers robot's opening
# search, or each placement valued at the end of the set-up (``setup_rollout.py``)
OPENINGS = ("search", "jsettlers", "rollout")

# whom an offer by expected gain is for: everyone (the core's rule), or only the partners it
# would gain from (a bridge to a server whose offers name their recipients)
OFFER_TO = ("all", "gainers")

# offers and counter-offers that ask 2 cards for 1 (``lopsided=false`` drops them)
ASKS_TWO_FOR_ONE = np.zeros(A.N_ACTIONS, bool)
for _first in (A.OFFER0, A.COUNTER0):
    ASKS_TWO_FOR_ONE[_first:_first + A.N_MENU] = (A.MENU_GET_N == 2) & (A.MENU_GIVE_N == 1)
ASKS_TWO_FOR_ONE.setflags(write=False)


def polite(legal: np.ndarray, view: np.ndarray) -> np.ndarray:
    """Which of the legal moves a person might take (``lopsided=false``): no offer or
    counter asking 2 cards for 1, and no counter that withholds the resource the proposer
    asked for."""
    keep = ~ASKS_TWO_FOR_ONE[legal]
    counter = (legal >= A.COUNTER0) & (legal < A.COUNTER0 + A.N_MENU)
    asked = int(view[TRADE_GET_RES])  # what the proposer wants (the counterer gives)
    keep &= ~counter | (A.MENU_GIVE_RES[np.where(counter, legal - A.COUNTER0, 0)] == asked)
    return keep
class ValueSearchAgent(Agent):
    """Expectimax over a win-probability network (see the module docstring)."""

    name = "value"

    def __init__(self, seed: Optional[int] = None, path: Optional[str] = None, search: Optional[int] = None,
                 beam: int = 6, determinizations: int = 2, seconds: float = 0.0, leaves: int = 0,
                 accept_margin: float = 0.02,
                 macros: bool = True, opening: str = "search", offers: int = 2, offer_margin: float = 0.02,
                 counters: bool = True, lopsided: bool = True, accept: str = "",
                 offer_gain: float = 0.0005, offer_to: str = "all") -> None:
        super().__init__(seed)
        for name, value, kind in (("search", search, int), ("beam", beam, int), ("determinizations", determinizations, int),
                                  ("leaves", leaves, int), ("offers", offers, int), ("seconds", seconds, (int, float))):
            if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
                raise ValueError(f"{name} must be a number{' (whole)' if kind is int else ''}, got {value!r}")
        if seconds and leaves:
            raise ValueError("give the anytime budget as seconds or as leaves, not both")
        if not 0 <= leaves <= 10_000_000:
            raise ValueError(f"leaves must be in [0, 10000000] network evaluations a decision, got {leaves!r}")
        if search is None:
            search = 2 if seconds > 0 or leaves > 0 else 1
        if search not in (0, 1, 2):
            raise ValueError(f"search must be 0 (greedy), 1 or 2 extra plies, got {search!r}")
        if beam < 1 or determinizations < 1 or seconds < 0 or seconds > 60:
            raise ValueError(f"beam and determinizations must be >= 1 and seconds in [0, 60], got "
                             f"beam={beam}, determinizations={determinizations}, seconds={seconds}")
        if not 0 <= offers <= 20:
            raise ValueError(f"offers must be 0..20 a turn, got {offers!r}")
        # the partners' chance to take an offer (``acceptance.py``): offers by expected gain
        self.acceptance = load_acceptance(accept) if accept and accept != "none" else None
        self.accept_kind = accept if self.acceptance is not None else ""
        if not isinstance(offer_gain, (int, float)) or isinstance(offer_gain, bool) or offer_gain < 0:
            raise ValueError(f"offer_gain must be a number >= 0 (the least expected gain an offer needs), got {offer_gain!r}")
        self.offer_gain = float(offer_gain)
        if offer_to not in OFFER_TO:
            raise ValueError(f"offer_to must be one of {', '.join(OFFER_TO)}, got {offer_to!r}")
        if offer_to != "all" and self.acceptance is None:
            raise ValueError("offer_to=gainers needs an acceptance model (accept=KIND): it sums the gains of the partners asked")
        self.offer_to = offer_to
        self.offer_recipients: Optional[List[int]] = None  # the seats the last offer is for (None: everyone)
        self.network = load_network(path)
        self._evaluator = self.network.evaluator()  # the network with this agent's work buffers
        self.path = path or PRETRAINED
        self.depth = int(search) + 1
        self.beam = int(beam)
        self.determinizations = int(determinizations)
        self.seconds = float(seconds)
        self.leaves = int(leaves)
        self.accept_margin = float(accept_margin)
        self.macros = bool(macros)
        if opening not in OPENINGS:
            raise ValueError(f"opening must be one of {', '.join(OPENINGS)}, got {opening!r}")
        self.opening = opening
        self._opener = None
        if opening == "jsettlers":  # set-up placements by the robot's opening search
            from ..jsettlers import JSettlersAgent
            self._opener = JSettlersAgent(seed=seed)
        self.offers = int(offers)
        self.offer_margin = float(offer_margin)
        self.counters = bool(counters)
        self.lopsided = bool(lopsided)
        self.macro_moves = 0  # trades played as the first step of a macro move
        self.trade_counts: Dict[str, int] = dict(offers=0, accepts=0, counters=0, confirms=0, cancels=0)
        self.depth_counts: Dict[int, int] = {}  # anytime mode: decisions by the deepest ply finished
        self._memory = new_memory()  # the offers made this turn
        # the network alone (no search, neither the opening robot nor set-up rollouts): the numba
        # greedy decision (``search=0:opening=rollout`` plays its main phase through _fixed instead)
        self._greedy = (self.depth == 1 and not (self.seconds or self.leaves) and self._opener is None
                        and opening != "rollout" and self.acceptance is None)
        self._options = options(self.offers, self.offer_margin, self.accept_margin, self.counters, self.macros,
                                self.determinizations)
        self._step_cost = np.zeros(4)  # anytime mode: seconds the last move took at each depth
        self._leaf_cost = np.zeros(4)  # the same in network evaluations
        self._leaves = 0  # network evaluations by the anytime search so far
        self.clock: Callable[[], float] = time.perf_counter  # the seconds budget's clock (a test may give a deterministic one)
        self.last_values: Optional[np.ndarray] = None
        self._search_off = False  # a first run's twin without the search (compile_stages)

    def compile_stages(self) -> List[Tuple[str, Callable[[], None]]]:
        """This agent's kernels in the order a first run best compiles them (see
        ``catan_env.beside``): its network, then its play without its search (a twin that
        values every searchable move at 0: trades, macros and the rest), then its search,
        which builds on both, on a small budget (a first run does not wait on a large one).
        The network alone (``search=0``) is one decision kernel."""
        from catan_env.beside import play
        if self._greedy:
            decider = self._compile_copy()
            return [("its decision", lambda: play(decider))]
        twin = self._compile_copy(_search_off=True)
        # the search on a small budget (a number the kernels read), searching the set-up too
        quick = self._compile_copy(_opener=None)
        if self.seconds > 0 or self.leaves > 0:
            quick.seconds, quick.leaves = 0.0, min(self.leaves or 200, 200)

        def network() -> None:
            self.network.win_probs(new_game(seed=2), 0)
        return [("its network", network),
                ("its play without its search", lambda: play(twin, moves=120)),
                ("its search", lambda: play(quick, moves=4))]

    def _compile_copy(self, **changes: Any) -> "ValueSearchAgent":
        """A copy to compile with: the same network, its own work buffers, generator,
        memory and counts (playing it leaves this agent as it was)."""
        twin = copy.copy(self)
        twin._evaluator = self.network.evaluator()
        twin.rng = np.random.default_rng(0)
        twin._memory = new_memory()
        twin._step_cost, twin._leaf_cost = np.zeros(4), np.zeros(4)
        twin.trade_counts, twin.depth_counts, twin.fallbacks = dict(self.trade_counts), {}, Counter()
        twin._opener = copy.deepcopy(self._opener)
        twin.__dict__.update(changes)
        return twin

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self._memory = new_memory()
        self._step_cost[:] = 0.0
        self._leaf_cost[:] = 0.0
        opener = getattr(self, "_opener", None)
        if opener is not None:
            opener.reset(seed)

    def _seed(self) -> int:
        return int(self.rng.integers(2 ** 62))

    def act(self, observation: Observation, infoset: InfoSet) -> int:
        self.last_values = None
        self.offer_recipients = None  # (named again by an offer this decision makes)
        legal = legal_from(observation).astype(np.int64)
        if not self.lopsided:  # (a reject, or a build or end of turn, is always left)
            legal = legal[polite(legal, infoset.view)]
        if len(legal) == 1:
            return int(legal[0])
        seat = infoset.seat
        if self._greedy:  # the network alone: the numba decision the batched env's opponents play
            seeds = np.array([self._seed() for _ in range(self.determinizations)], np.int64)
            # (a writable copy: the kernels are compiled for writable states, a read-only
            # array would compile a second version of each)
            a, kind, value = greedy_decision(self._evaluator, infoset.view.copy(), seat,
                                             legal, len(legal), seeds, self._memory, self._options)
            return self._count(infoset, int(a), int(kind), float(value))
        view = infoset.determinize(self._seed())
        if self._opener is not None and int(view[PHASE]) in (PH_SETUP_SETTLEMENT, PH_SETUP_ROAD):
            return int(self._opener.act(observation, infoset))
        if self.acceptance is not None and int(view[PHASE]) == PH_MAIN and self.offers > 0:
            a = self._offer_by_acceptance(view, seat, legal)
            if a >= 0:
                return self._count(infoset, a, K_OFFER, -1.0)
            legal = legal[~IS_OFFER[legal]]  # (no offer pays: the rest of the decision without them)
        # the greedy decision's own branches (trades, offers, forced moves, the fallback), then
        # this agent's search of the searchable moves, then its macro check
        a, kind = trade_or_forced(self._evaluator, view, seat, legal, len(legal), self._memory, self._options,
                                  np.empty(0))
        if a >= 0:
            return self._count(infoset, int(a), int(kind), -1.0)
        moves = legal[SEARCHABLE[legal] == 1]
        if self._search_off:
            mean = np.zeros(len(moves))
        elif self.opening == "rollout" and in_setup(view):
            mean = self._setup_rollouts(view, seat, moves)
        elif self.seconds > 0 or self.leaves > 0:
            mean, view = self._anytime(view, seat, moves, infoset)
        else:
            mean, view = self._fixed(view, seat, moves, infoset)
        a, kind, value = move_or_macro(self._evaluator, view, seat, moves, mean, self._options, np.empty(0))
        if kind == K_MOVE and value < 0.0:
            value += 1.0  # a move outside the deepest beam carries its one-ply value minus 1
        return self._count(infoset, int(a), int(kind), float(value))

    def choose_offer(self, observation: Observation, infoset: InfoSet) -> int:
        """The offer this agent makes now in the main phase (counted), -1 for none: by
        expected gain with an acceptance model, else the menu entry of highest gain
        above ``offer_margin`` (``greedy.offer_choice``); at most ``offers`` a turn."""
        self.offer_recipients = None
        legal = legal_from(observation).astype(np.int64)
        view = infoset.determinize(self._seed())
        if int(view[PHASE]) != PH_MAIN or self.offers == 0:
            return -1
        if self.acceptance is not None:
            a = self._offer_by_acceptance(view, infoset.seat, legal)
        else:
            a = int(offer_choice(self._evaluator, view, infoset.seat, legal, len(legal), self._memory,
                                 float(self.offers), self.offer_margin, np.empty(0)))
        if a >= 0:
            self.trade_counts["offers"] += 1
        return a

    def _offer_by_acceptance(self, view: np.ndarray, seat: int, legal: np.ndarray) -> int:
        """``accept=KIND``: the offer not yet made this turn whose expected gain, each
        partner's gain (``offer_partner_gains``; a loss counts too: a server carries out
        an accepted offer at once) times its chance to take it, summed over the partners,
        is highest and above ``offer_gain``; -1 for none (or ``offers`` made this turn)."""
        memory = self._memory
        if memory[M_TURN] != view[TURN]:
            memory[M_TURN], memory[M_COUNT] = view[TURN], 0
        made = int(memory[M_COUNT])
        offers = np.array([a for a in legal if IS_OFFER[a] and a not in memory[M_IDS:M_IDS + made]], np.int64)
        if made >= min(self.offers, MAX_OFFERS) or len(offers) == 0:
            return -1
        assert self.acceptance is not None
        gains = np.empty((len(offers), 3))
        offer_partner_gains(self._evaluator, view, seat, offers, gains)
        chance = self.acceptance.probabilities(view, seat, offers)
        counted = gains > (0.0 if self.offer_to == "gainers" else -1.0)  # (gainers: only they are asked)
        expected = np.where(counted, gains * chance, 0.0).sum(axis=1)
        i = int(np.argmax(expected))
        if expected[i] <= self.offer_gain:
            return -1
        memory[M_IDS + made], memory[M_COUNT] = offers[i], made + 1
        n = int(view[OPT_PLAYERS])
        self.offer_recipients = ([(seat + k) % n for k in range(1, n) if counted[i, k - 1]]
                                 if self.offer_to == "gainers" else None)
        return int(offers[i])

    def _count(self, infoset: InfoSet, action: int, kind: int, value: float) -> int:
        """Count a decision of this kind (trades, macros, fallbacks), remember the chosen
        move's value; return the action."""
        name = KIND_NAMES[kind]
        if kind == K_FALLBACK:
            return self.fall_back(infoset, "no searchable move", action)
        if kind == K_MACRO:
            self.macro_moves += 1
        elif name + "s" in self.trade_counts:
            self.trade_counts[name + "s"] += 1
        if value >= 0.0:
            self._remember(infoset.view.copy(), infoset.seat, value)  # writable, as above
        return action

    def batched_opponent(self) -> Optional[ValueNetworkPlay]:
        """What the batched env plays inside numba for this agent when it is the network
        alone (``search=0``, neither ``opening=jsettlers`` nor ``opening=rollout``): the same greedy decision, from the network's
        weights and the decision's options; None otherwise (it plays as a Python agent)."""
        if not self._greedy:
            return None
        return ValueNetworkPlay(self.network.weights, self._options.copy())

    def _fixed(self, view: np.ndarray, seat: int, moves: np.ndarray, infoset: InfoSet) -> Tuple[np.ndarray, np.ndarray]:
        """The mean over ``determinizations`` views of every move's searched value."""
        total = np.zeros(len(moves))
        q = np.empty(len(moves))
        for done in range(self.determinizations):
            if done:
                view = infoset.determinize(self._seed())
            search_values(self._evaluator, view, seat, moves, self.depth, self.beam, q)
            total += q
        return total / self.determinizations, view

    def _anytime(self, view: np.ndarray, seat: int, moves: np.ndarray,
                 infoset: InfoSet) -> Tuple[np.ndarray, np.ndarray]:
        """Iterative deepening within the budget (``seconds`` of ``clock`` or ``leaves``
        network evaluations; see the module docstring): the values of the deepest depth
        finished, averaged over the views it was finished on."""
        by_work = self.leaves > 0
        clock = self._work_done if by_work else self.clock
        cost = self._leaf_cost if by_work else self._step_cost  # the last move's cost at each depth
        deadline = clock() + (self.leaves if by_work else self.seconds)
        tried = np.zeros(len(cost), dtype=bool)

        def value(v: np.ndarray, i: int, depth: int) -> float:
            t = clock()
            out, leaves = move_value(self._evaluator, v, seat, int(moves[i]), depth,
                                     self.beam)
            self._leaves += int(leaves)
            cost[depth] = clock() - t
            tried[depth] = True
            return float(out)

        def deepen(v: np.ndarray, depth: int, rows: Any, out: np.ndarray) -> bool:
            """out[rows] := the moves' values at depth; False when the budget stopped it."""
            for i in rows:
                if clock() + cost[depth] > deadline:
                    return False
                out[i] = value(v, int(i), depth)
            return True

        def one_view(v: np.ndarray, limit: int, beam: Optional[np.ndarray]) -> Tuple[Optional[np.ndarray], int, np.ndarray]:
            """(the values at the deepest depth finished on view v, that depth, the beam);
            the first view (beam None) finishes its first ply whatever the budget says
            and picks the beam every later view searches."""
            first = np.empty(len(moves))
            if beam is None:
                for i in range(len(moves)):
                    first[i] = value(v, i, 1)
                beam = np.argsort(-first)[:self.beam]
            elif not deepen(v, 1, range(len(moves)), first):
                return None, 0, beam
            best, finished = first, 1
            for depth in range(2, limit + 1):
                deeper = first - 1.0  # moves outside the beam rank below every searched one
                if not deepen(v, depth, beam, deeper):
                    break
                best, finished = deeper, depth
            return best, finished, beam

        values, depth, beam = one_view(view, self.depth, None)
        assert values is not None
        total, views = values.copy(), 1
        while clock() < deadline:  # more views at the deepest depth finished, on the same beam
            other = infoset.determinize(self._seed())
            more, reached, _ = one_view(other, depth, beam)
            if more is None or reached < depth:
                break
            total += more
            views += 1
            view = other
        cost[~tried] *= 0.5  # a depth not tried this time is tried again soon (its last cost ages)
        self.depth_counts[depth] = self.depth_counts.get(depth, 0) + 1
        return total / views, view

    def _setup_rollouts(self, view: np.ndarray, seat: int, moves: np.ndarray) -> np.ndarray:
        """``opening=rollout``: each set-up move's value at the end of the set-up, every
        later placement by its seat's greedy choice (``setup_rollout.py``).  Every move's
        one-ply value first, then the rollouts in that order while the budget (``leaves``
        or ``seconds``, as the anytime search's) lasts, a rollout started only when the
        last one's cost still fits; a move not rolled out ranks below every rolled-out
        one (its one-ply value minus 1).  With no budget every move is rolled out.  (The
        budget counts network evaluations of leaves; each seat's turn in a rollout also
        recomputes that seat's base, the root's features and first layer, which it does not
        count: about one leaf's cost per placement.)"""
        by_work = self.leaves > 0
        budgeted = by_work or self.seconds > 0
        clock = self._work_done if by_work else self.clock
        deadline = clock() + (self.leaves if by_work else self.seconds)
        first = np.empty(len(moves))
        for i in range(len(moves)):
            first[i], leaves = move_value(self._evaluator, view, seat, int(moves[i]), 1, self.beam)
            self._leaves += int(leaves)
        out = first - 1.0
        cost = 0.0
        for i in np.argsort(-first, kind="stable"):
            if budgeted and clock() + cost > deadline:
                break
            t = clock()
            out[i], leaves = setup_rollout_value(self._evaluator, view, seat, int(moves[i]))
            self._leaves += int(leaves)
            cost = clock() - t
        return out

    def _work_done(self) -> float:
        """The anytime search's clock in work: network evaluations so far."""
        return float(self._leaves)

    def _remember(self, view: np.ndarray, seat: int, chosen: float) -> None:
        """last_values: the searched value for this seat, the network's view of the others
        scaled to share the rest."""
        values = state_win_probs(self._evaluator, np.asarray(view, np.int64), seat)
        chosen = float(np.clip(chosen, 0.0, 1.0))
        others = values.sum() - values[seat]
        if others > 0:
            values *= (1.0 - chosen) / others
        values[seat] = chosen
        self.last_values = values.astype(np.float32)


def value_agent(seed: Optional[int] = None, path: Optional[str] = None, **options: object) -> ValueSearchAgent:
    """``value:path=NET.npz``: the agent over a network file (the shipped one if no path)."""
    return ValueSearchAgent(seed=seed, path=path, **options)  # type: ignore[arg-type]


# The shipped agent's anytime budget: network evaluations a decision, so that its games
# follow the seed on any machine and under any load (a wall-clock budget cannot); 6,000 is
# about 0.1 s a decision on this project's 2-core machine, the budget the strength-against-
# time curve justifies (docs/learned-agents.md), and at most 0.25 s so evaluations stay cheap.
PRETRAINED_LEAVES = 6000


def pretrained_agent(seed: Optional[int] = None, **options: object) -> ValueSearchAgent:
    """``pretrained``: the agent over the network shipped in the package; anytime with a
    budget of ``PRETRAINED_LEAVES`` network evaluations a decision unless ``seconds``,
    ``leaves``, ``search`` or ``determinizations`` is given (``pretrained:seconds=0.1``:
    the same by the clock; ``pretrained:search=1``: the fixed two-ply search on two
    determinizations; ``pretrained:search=0``: the network alone, greedy)."""
    if "path" in options:
        raise ValueError("pretrained uses the shipped network; use value:path=... for another file")
    if not {"seconds", "leaves", "search", "determinizations"} & set(options):
        options["leaves"] = PRETRAINED_LEAVES
    return ValueSearchAgent(seed=seed, **options)  # type: ignore[arg-type]


_MCTS_HOOKS: Dict[Tuple[str, str], Callable[[np.ndarray, int], np.ndarray]] = {}  # (file, feature digest) -> hook


def leaf_hook(path: Optional[str] = None) -> Callable[[np.ndarray, int], np.ndarray]:
    """A jitted ``evaluate(state, seat)`` for :class:`agents.mcts.MCTSAgent`: every seat's
    win chance by the network from ``seat``'s view (built once per file and process)."""
    import os
    network = load_network(path)
    key = (os.path.abspath(path or PRETRAINED), network.meta.get("features", ""))
    if key not in _MCTS_HOOKS:
        params, layers, net, width = network.params, network.layers, network.net, network.width

        @njit
        def evaluate(s: Any, seat: Any) -> Any:  # pragma: no cover (compiled)
            return state_win_probs(new_evaluator(params, layers, net, width), s, seat)
        _MCTS_HOOKS[key] = evaluate
    return _MCTS_HOOKS[key]


def value_mcts_agent(seed: Optional[int] = None, path: Optional[str] = None, variant: str = "best",
                     rollout_turns: int = 0, **options: Any) -> Agent:
    """``value_mcts``: MCTS (``variant``'s preset, ``best`` by default) whose leaves the
    network scores after ``rollout_turns`` turns of playout (0: at once); the shipped
    network unless ``path`` names another."""
    from ..mcts import MCTSAgent
    agent = MCTSAgent(seed=seed, variant=variant, evaluate=leaf_hook(path), rollout_turns=rollout_turns, **options)
    agent.path = path or PRETRAINED
    return agent

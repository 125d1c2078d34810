"""The learned agent: the win-probability network searched by expectimax.

    make_agent("pretrained")                    # the shipped network, 2-ply search
    make_agent("pretrained:search=0")           # the network alone: greedy one ply
    make_agent("value:path=nets/round-3.npz:search=2:beam=4:seconds=0.5")

Each decision samples ``determinizations`` states from the seat's information set
(never the true state; with ``seconds`` > 0, as many as fit in that time, at least
one), scores every candidate move with :func:`search.search_values` on each and plays
the best mean.  ``search`` is the number of plies beyond the first (0: greedy by the
network's value of each move's result, chance included).  In the main phase, builds
that maritime trades would pay for are scored too, as macro moves (``macros=false``
turns them off; ``macro_moves`` counts the trades played for one).  ``opening=jsettlers``
hands the set-up placements to the JSettlers robot's opening search.  Offers from other players
are accepted when the network rates the traded hands higher than the untraded ones by
``accept_margin``; this agent makes no offers.  ``last_values`` holds each seat's
estimated chance to win after the chosen move (recorded as training targets).
"""
import time
from typing import Dict, Optional, Tuple

import numpy as np
from numba import njit

from catan_env.core import actions as A
from catan_env.core.layout import (
    MAX_PLAYERS, OPT_PLAYERS, PH_MAIN, PH_SETUP_ROAD, PH_SETUP_SETTLEMENT, PH_TRADE_CONFIRM, PH_TRADE_RESPONSE, PHASE, RESP_ACCEPT, TRADE_RESP, TURN_PLAYER,
)
from catan_env.core.rules import _close_trade, _do_confirm
from catan_env.infoset import InfoSet

from ..base import Agent, Observation, legal_from
from .features import N_FEATURES
from .net import PRETRAINED, ValueNetwork, state_win_probs
from .search import SEARCHABLE, leaf_value, macro_values, search_values

_NETWORKS: Dict[Tuple[str, float], ValueNetwork] = {}  # (path, mtime) -> loaded once per process


def load_network(path: Optional[str] = None) -> ValueNetwork:
    """The network in ``path`` (the shipped one by default), loaded once per process."""
    import os
    path = os.path.abspath(path or PRETRAINED)
    if not os.path.exists(path):
        raise ValueError(f"no value network file {path!r}")
    key = (path, os.path.getmtime(path))
    if key not in _NETWORKS:
        _NETWORKS[key] = ValueNetwork.load(path)
    return _NETWORKS[key]


@njit(cache=True)
def trade_gain(params, layers, net, width, s, root):
    """(root's value if the open offer is closed with root, if it is not)."""
    x = np.empty(N_FEATURES, np.float32)
    h1 = np.empty(width, np.float32)
    h2 = np.empty(width, np.float32)
    rel = np.empty(MAX_PLAYERS)
    n = s[OPT_PLAYERS]
    proposer = s[TURN_PLAYER]
    done = s.copy()
    done[TRADE_RESP + root] = RESP_ACCEPT
    _do_confirm(done, proposer, A.confirm_action((root - proposer) % n))
    kept = s.copy()
    for p in range(MAX_PLAYERS):
        if kept[TRADE_RESP + p] != -1:
            kept[TRADE_RESP + p] = 1  # everyone rejects: the offer lapses
    _close_trade(kept)
    return (leaf_value(params, layers, net, done, root, x, h1, h2, rel),
            leaf_value(params, layers, net, kept, root, x, h1, h2, rel))


class ValueSearchAgent(Agent):
    """Expectimax over a win-probability network (see the module docstring)."""

    name = "value"

    def __init__(self, seed: Optional[int] = None, path: Optional[str] = None, search: int = 1, beam: int = 6,
                 determinizations: int = 2, seconds: float = 0.0, accept_margin: float = 0.02,
                 macros: bool = True, opening: str = "search") -> None:
        super().__init__(seed)
        if search not in (0, 1, 2):
            raise ValueError(f"search must be 0 (greedy), 1 or 2 extra plies, got {search!r}")
        if beam < 1 or determinizations < 1 or seconds < 0:
            raise ValueError(f"beam and determinizations must be >= 1 and seconds >= 0, got "
                             f"beam={beam}, determinizations={determinizations}, seconds={seconds}")
        self.network = load_network(path)
        self.path = path or PRETRAINED
        self.depth = int(search) + 1
        self.beam = int(beam)
        self.determinizations = int(determinizations)
        self.seconds = float(seconds)
        self.accept_margin = float(accept_margin)
        self.macros = bool(macros)
        if opening not in ("search", "jsettlers"):
            raise ValueError(f"opening must be 'search' or 'jsettlers', got {opening!r}")
        self._opener = None
        if opening == "jsettlers":  # set-up placements by the robot's opening search
            from ..jsettlers import JSettlersAgent
            self._opener = JSettlersAgent(seed=seed)
        self.macro_moves = 0  # trades played as the first step of a macro move
        self.last_values: Optional[np.ndarray] = None

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        if getattr(self, "_opener", None) is not None:
            self._opener.reset(seed)

    def _seed(self) -> int:
        return int(self.rng.integers(2 ** 62))

    def act(self, observation: Observation, infoset: InfoSet) -> int:
        self.last_values = None
        legal = legal_from(observation)
        if len(legal) == 1:
            return int(legal[0])
        net = self.network
        seat = infoset.seat
        view = infoset.determinize(self._seed())
        phase = int(view[PHASE])
        if self._opener is not None and phase in (PH_SETUP_SETTLEMENT, PH_SETUP_ROAD):
            return int(self._opener.act(observation, infoset))
        if phase == PH_TRADE_RESPONSE:
            if A.TRADE_ACCEPT in legal:
                accept, keep = trade_gain(net.params, net.layers, net.net, net.width, view, seat)
                if accept > keep + self.accept_margin:
                    return A.TRADE_ACCEPT
            return A.TRADE_REJECT
        if phase == PH_TRADE_CONFIRM:  # this agent makes no offers; never reached in its own games
            return self.fall_back(infoset, "confirm without an offer", A.TRADE_CANCEL)
        moves = legal[SEARCHABLE[legal] == 1].astype(np.int64)
        if len(moves) == 0:
            return self.fall_back(infoset, "no searchable move", int(legal[0]))
        if len(moves) == 1:
            return int(moves[0])
        total = np.zeros(len(moves))
        q = np.empty(len(moves))
        start, done = time.perf_counter(), 0
        while True:
            search_values(net.params, net.layers, net.net, net.width, view, seat, moves, self.depth, self.beam, q)
            total += q
            done += 1
            if self.seconds > 0:
                spent = time.perf_counter() - start
                if spent + spent / done > self.seconds:
                    break
            elif done >= self.determinizations:
                break
            view = infoset.determinize(self._seed())
        mean = total / done
        best = int(np.argmax(mean))
        if phase == PH_MAIN and self.macros:
            first = np.empty(A.N_ACTIONS, np.int64)
            value = np.empty(A.N_ACTIONS)
            m = macro_values(net.params, net.layers, net.net, net.width, view, seat, first, value)
            if m and value[:m].max() > mean[best]:
                i = int(np.argmax(value[:m]))
                self.macro_moves += 1
                self._remember(view, seat, float(value[i]))
                return int(first[i])
        self._remember(view, seat, float(mean[best] if mean[best] >= 0 else mean[best] + 1.0))
        return int(moves[best])

    def _remember(self, view: np.ndarray, seat: int, chosen: float) -> None:
        """last_values: the searched value for this seat, the network's view of the others
        scaled to share the rest."""
        net = self.network
        values = state_win_probs(net.params, net.layers, net.net, np.asarray(view, np.int64), seat, net.width)
        chosen = float(np.clip(chosen, 0.0, 1.0))
        others = values.sum() - values[seat]
        if others > 0:
            values *= (1.0 - chosen) / others
        values[seat] = chosen
        self.last_values = values.astype(np.float32)


def value_agent(seed: Optional[int] = None, path: Optional[str] = None, **options: object) -> ValueSearchAgent:
    """``value:path=NET.npz``: the agent over a network file (the shipped one if no path)."""
    return ValueSearchAgent(seed=seed, path=path, **options)  # type: ignore[arg-type]


def pretrained_agent(seed: Optional[int] = None, **options: object) -> ValueSearchAgent:
    """``pretrained``: the agent over the network shipped in the package."""
    if "path" in options:
        raise ValueError("pretrained uses the shipped network; use value:path=... for another file")
    return ValueSearchAgent(seed=seed, **options)  # type: ignore[arg-type]


_MCTS_HOOKS: Dict[Tuple[str, float], object] = {}


def leaf_hook(path: Optional[str] = None) -> object:
    """A jitted ``evaluate(state, seat)`` for :class:`agents.mcts.MCTSAgent`: every seat's
    win chance by the network from ``seat``'s view (built once per file and process)."""
    import os
    network = load_network(path)
    key = (os.path.abspath(path or PRETRAINED), network.meta.get("features", ""))
    if key not in _MCTS_HOOKS:
        params, layers, net, width = network.params, network.layers, network.net, network.width

        @njit
        def evaluate(s, seat):  # pragma: no cover (compiled)
            return state_win_probs(params, layers, net, s, seat, width)
        _MCTS_HOOKS[key] = evaluate
    return _MCTS_HOOKS[key]


def value_mcts_agent(seed: Optional[int] = None, path: Optional[str] = None, variant: str = "best",
                     rollout_turns: int = 0, **options: object) -> Agent:
    """``value_mcts``: MCTS (``variant``'s preset, ``best`` by default) whose leaves the
    network scores after ``rollout_turns`` turns of playout (0: at once); the shipped
    network unless ``path`` names another."""
    from ..mcts import MCTSAgent
    agent = MCTSAgent(seed=seed, variant=variant, evaluate=leaf_hook(path), rollout_turns=rollout_turns, **options)
    agent.path = path or PRETRAINED  # type: ignore[attr-defined]
    return agent

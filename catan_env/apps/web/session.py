"""One game served to browsers: seats played by people (``"human"``) or agents, a secret
token per person's seat, validation of every move, and the game's log in words for each
viewer (a steal names the card only to the two seats involved)."""
import secrets
import threading
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from ... import words as W
from ...aec_env import raw_env
from ...agents.registry import make_agent
from ...core import layout as L
from ...core import actions as A
from ...core import cards as C
from ...core.actions import CONFIRM0, DISCARD0, MARITIME0, N_ACTIONS, ROBBER0, ROLL
from ...core.layout import N_RES
from .roles import same_token
from .roster import HUMAN
from .view import board_message, final_message, log_category, state_message

__all__ = ["HUMAN", "NO_SEAT", "WebGame"]


# the reason a move from a page that plays no seat (a spectator's, an agent's) is refused
NO_SEAT = "this page does not play a seat"


class WebGame:
    """A game between people and agents.  ``players``: one spec per seat, ``"human"`` for a
    person's seat; ``labels``: what the page calls each seat's player (the specs by
    default); ``tokens``: given tokens of person seats (the rest are drawn).  Agents are
    built here, so the server builds a WebGame off its event loop."""

    def __init__(self, players: Sequence[str], seed: int = 0, max_turns: Optional[int] = 500,
                 options: Optional[Mapping[str, Any]] = None, tokens: Optional[Mapping[int, str]] = None,
                 labels: Optional[Sequence[str]] = None) -> None:
        if not 2 <= len(players) <= 4:
            raise ValueError(f"a game has 2-4 players, got {len(players)}")
        self.players = list(players)
        self.labels = list(labels) if labels is not None else list(players)
        self.env = raw_env(players=len(players), max_turns=max_turns, **dict(options or {}))
        self.env.reset(seed=seed)
        self.agents = {seat: make_agent(spec, seed=seed * 31 + seat)
                       for seat, spec in enumerate(players) if spec != HUMAN}
        if HUMAN in players:  # a person at the table: only trades a person might take (the value
            for agent in self.agents.values():  # agents' counters were taken 4% of the time,
                if hasattr(agent, "lopsided"):  # benchmarks/counter_offers.py): the rest is noise
                    agent.lopsided = False
        for seat, agent in self.agents.items():
            if hasattr(agent, "reset"):
                agent.reset(seed * 31 + seat)
        given = dict(tokens or {})
        self.tokens = {given.get(seat) or secrets.token_urlsafe(18): seat
                       for seat, spec in enumerate(players) if spec == HUMAN}
        # one entry per move: {"turn", "seat", "roll", "lines": [lines for seat 0..n-1, public]}
        self.log: List[Dict[str, Any]] = []
        self.abandoned = False
        # agents think in a worker thread: every read or change of the env takes this lock,
        # held only for quick steps (never while an agent thinks)
        self._lock = threading.Lock()
        self._warm_up()

    def _warm_up(self) -> None:
        """Build each page's messages once, so the kernels they call are compiled (or
        loaded from numba's cache) here, off the server's event loop, not on a first click."""
        for seat in [*range(self.n_players), None]:
            self.board(seat)
            self.state(seat)
        s = self.true_state()
        W.trade_terms(s, MARITIME0)
        W.action_words(s, ROBBER0 + 1, 0)
        A.confirm_partner(CONFIRM0, 0, self.n_players)
        C.total_vp(s, 0)

    # ---- who is who
    @property
    def n_players(self) -> int:
        """Players in the game."""
        return len(self.players)

    @property
    def people(self) -> List[int]:
        """The seats people play."""
        return sorted(self.tokens.values())

    def token(self, seat: int) -> str:
        """The secret token of a person's seat (its page address carries it)."""
        return next(t for t, s in self.tokens.items() if s == seat)

    def seat_of(self, token: Optional[str]) -> Optional[int]:
        """The seat of a person's token; None when the token plays no seat here."""
        return next((seat for t, seat in self.tokens.items() if same_token(t, token)), None)

    # ---- the game
    @property
    def over(self) -> bool:
        """Whether the game has ended: won, capped or abandoned."""
        return self.abandoned or int(self.env.game_state[L.PHASE]) == L.PH_GAME_OVER or \
            any(self.env.truncations.values())

    @property
    def winner(self) -> int:
        """The winning seat, -1 while none (or for a game capped or abandoned)."""
        return int(self.env.game_state[L.WINNER])

    @property
    def decider(self) -> int:
        """The seat that decides now."""
        return int(self.env.game_state[L.DECIDER])

    def agent_to_move(self) -> bool:
        """Whether an agent (not a person) decides now."""
        return not self.over and self.decider in self.agents

    def board(self, seat: Optional[int]) -> Dict[str, Any]:
        """The board message for a seat (None: a spectator), with each player's label."""
        with self._lock:
            info = self.env.infoset(self.env.possible_agents[seat or 0])
            msg = board_message(info)
        msg["labels"] = ["you" if p == seat else ("person" if s == HUMAN else self.labels[p])
                         for p, s in enumerate(self.players)]
        return msg

    def state(self, seat: Optional[int], log_from: int = 0) -> Dict[str, Any]:
        """The state message for a seat (None: spectator), with the log entries from
        ``log_from`` on as that viewer may read them, and the end screen once over."""
        with self._lock:
            info = self.env.infoset(self.env.possible_agents[seat or 0])
            msg = state_message(info, spectator=seat is None)
            column = self.n_players if seat is None else seat
            msg["log_from"] = log_from
            msg["log"] = [{"turn": e["turn"], "seat": e["seat"], "roll": e["roll"], "lines": e["lines"][column],
                           "kind": A.action_kind(e["action"]),
                           "category": "robber" if e["roll"] and sum(e["roll"]) == 7 else log_category(e["action"])}
                          for e in self.log[log_from:]]
            msg["log_size"] = len(self.log)
            msg["final"] = final_message(self.env.game_state, self.result()) if self.over else None
            if self.over:  # everything is public now: the phase line from the true state
                msg["phase"] = "The game was abandoned" if self.abandoned else \
                    W.phase_words(self.env.game_state, seat) if self.winner >= 0 else \
                    "No winner: the turn limit was reached"
        return msg

    def play(self, seat: Optional[int], action: Any) -> Optional[str]:
        """A person's move: None when played, else the one-line reason it was refused
        (nothing changes then)."""
        refused = self._refusal(seat)
        if refused:
            return refused
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < N_ACTIONS:
            return f"a move is an integer 0-{N_ACTIONS - 1}, got {action!r}"
        with self._lock:
            if self.decider != seat:
                return "it is not your move any more"
            if not self.env.observe(self.env.possible_agents[seat])["action_mask"][action]:
                return f"that move is not possible now ({W.phase_words(self.env.game_state, seat)})"
            self._step(seat, action)
        return None

    def discard(self, seat: Optional[int], cards: Any) -> Optional[str]:
        """A person's whole discard at once (five counts, brick to ore): None when played,
        else the reason it was refused (nothing changes then)."""
        refused = self._refusal(seat)
        if refused:
            return refused
        if not isinstance(cards, list) or len(cards) != N_RES or \
                not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in cards):
            return "a discard is five counts of cards: brick, lumber, wool, grain, ore"
        assert seat is not None  # (_refusal refused a page without a seat)
        with self._lock:
            s = self.env.game_state
            due = int(s[L.DISCARDS + seat])
            if int(s[L.PHASE]) != L.PH_DISCARD or self.decider != seat or due == 0:
                return "you have nothing to discard now"
            if sum(cards) != due:
                return f"discard exactly {due} cards (you chose {sum(cards)})"
            hand = L.view(s, "hand")[seat]
            short = [W.RESOURCE_WORDS[r] for r in range(N_RES) if cards[r] > hand[r]]
            if short:
                return f"you do not hold that many {', '.join(short)}"
            for r in range(N_RES):
                for _ in range(cards[r]):
                    self._step(seat, DISCARD0 + r)
        return None

    def _refusal(self, seat: Optional[int]) -> Optional[str]:
        if self.over:
            return "the game is over"
        if seat is None or seat in self.agents:
            return NO_SEAT
        if self.decider != seat:
            return f"it is not your move: {W.player_name(self.decider)} decides"
        return None

    def agent_step(self) -> None:
        """The deciding agent moves (blocking: the server runs it off the event loop)."""
        with self._lock:  # the agent gets copies: it thinks without the lock
            seat = self.decider
            name = self.env.possible_agents[seat]
            observation, infoset = self.env.observe(name), self.env.infoset(name)
        action = self.agents[seat].act(observation, infoset)
        with self._lock:
            self._step(seat, int(action))

    def _step(self, seat: int, action: int) -> None:
        before = self.env.game_state.copy()
        self.env.step(action)
        after = self.env.game_state
        viewers: List[Optional[int]] = [*range(self.n_players), None]
        self.log.append({"turn": int(before[L.TURN]), "seat": seat,
                         "roll": [int(after[L.LAST_DIE1]), int(after[L.LAST_DIE2])] if action == ROLL else None,
                         "action": action,
                         "lines": [W.event_words(before, after, seat, action, v) for v in viewers]})

    def executed(self) -> List[Dict[str, Any]]:
        """Every move played so far: seat and action id (tests compare them with the
        terms a page showed)."""
        with self._lock:
            return [{"seat": e["seat"], "action": e["action"]} for e in self.log]

    def true_state(self) -> np.ndarray:
        """A copy of the true state (the server's, never sent to a page before the end)."""
        with self._lock:
            return self.env.game_state.copy()

    def result(self) -> Dict[str, Any]:
        """The game's outcome and statistics: winner, VP, turns, moves, trades."""
        stats = self.env.game_stats()
        return {"winner": stats["winner"], "vp": stats["vp"], "turns": stats["turns"],
                "moves": stats["steps"], "offers": stats["offers"], "trades": stats["trades"],
                "maritime": stats["maritime"], "abandoned": self.abandoned}

    def record_json(self) -> str:
        """The game's record (replayable by ``catan-render``); only once the game is over,
        since its seed would reveal the dice and the deck."""
        if not self.over:
            raise ValueError("the record is available when the game is over")
        return self.env.record().to_json()

"""One game served to browsers: seats played by people (``"human"``) or agents, a secret
token per person's seat and one for spectators, validation of every move."""
import secrets
import threading
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..aec_env import raw_env
from ..agents.registry import make_agent
from ..core import layout as L
from ..core.actions import N_ACTIONS, ROLL, action_name
from .view import board_message, state_message

HUMAN = "human"


class WebGame:
    """A game between people and agents.  ``players``: one spec per seat, ``"human"`` for a
    person's seat.  ``token(seat)`` is the secret in that seat's page address;
    ``spectator_token`` opens the public view."""

    def __init__(self, players: Sequence[str], seed: int = 0, max_turns: Optional[int] = 500,
                 options: Optional[Mapping[str, Any]] = None, tokens: Optional[Mapping[int, str]] = None,
                 spectator_token: Optional[str] = None) -> None:
        if not 2 <= len(players) <= 4:
            raise ValueError(f"a game has 2-4 players, got {len(players)}")
        self.players = list(players)
        self.env = raw_env(players=len(players), max_turns=max_turns, **dict(options or {}))
        self.env.reset(seed=seed)
        self.agents = {seat: make_agent(spec, seed=seed * 31 + seat)
                       for seat, spec in enumerate(players) if spec != HUMAN}
        for seat, agent in self.agents.items():
            if hasattr(agent, "reset"):
                agent.reset(seed * 31 + seat)
        given = dict(tokens or {})
        self.tokens = {given.get(seat) or secrets.token_urlsafe(18): seat
                       for seat, spec in enumerate(players) if spec == HUMAN}
        self.spectator_token = spectator_token or secrets.token_urlsafe(18)
        self.log: List[Dict[str, Any]] = []
        self.abandoned = False
        # agents think in a worker thread: every read or change of the env takes this lock,
        # held only for quick steps (never while an agent thinks)
        self._lock = threading.Lock()

    # ---- who is who
    def token(self, seat: int) -> str:
        """The secret token of a person's seat (its page address carries it)."""
        return next(t for t, s in self.tokens.items() if s == seat)

    def seat_of(self, token: Optional[str]) -> int:
        """The seat of a person's token, -1 for the spectator token; ValueError otherwise."""
        if token in self.tokens:
            return self.tokens[token]
        if token is not None and secrets.compare_digest(token, self.spectator_token):
            return -1
        raise ValueError("unknown token")

    # ---- the game
    @property
    def over(self) -> bool:
        """Whether the game has ended: won, capped or abandoned."""
        return self.abandoned or int(self.env.game_state[L.PHASE]) == L.PH_GAME_OVER or \
            any(self.env.truncations.values())

    @property
    def decider(self) -> int:
        """The seat that decides now."""
        return int(self.env.game_state[L.DECIDER])

    def agent_to_move(self) -> bool:
        """Whether an agent (not a person) decides now."""
        return not self.over and self.decider in self.agents

    def messages(self, seat: int) -> List[Dict[str, Any]]:
        """The board and the state for a seat (-1: spectator)."""
        with self._lock:
            info = self.env.infoset(self.env.possible_agents[max(seat, 0)])
            return [board_message(info), state_message(info, self.log, spectator=seat < 0)]

    def state(self, seat: int) -> Dict[str, Any]:
        """The state message for a seat (-1: spectator)."""
        with self._lock:
            info = self.env.infoset(self.env.possible_agents[max(seat, 0)])
            return state_message(info, self.log, spectator=seat < 0)

    def play(self, seat: int, action: Any) -> Optional[str]:
        """A person's move: None when played, else the one-line reason it was refused
        (nothing changes then)."""
        if self.over:
            return "the game is over"
        if seat < 0 or seat in self.agents:
            return "this page does not play a seat"
        if self.decider != seat:
            return f"it is not your move: {self.env.possible_agents[self.decider]} decides"
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < N_ACTIONS:
            return f"an action is an integer 0-{N_ACTIONS - 1}, got {action!r}"
        with self._lock:
            if self.decider != seat:
                return "it is not your move any more"
            if not self.env.observe(self.env.possible_agents[seat])["action_mask"][action]:
                return f"{action_name(action)} is not legal now"
            self._step(seat, action)
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

    def _public_cards(self) -> List[List[int]]:
        """Each seat's cards as every seat knows them from public events (production is public)."""
        n = self.env.options.players
        return L.view(self.env.game_state, "know")[L.PUBLIC, :n, :L.N_RES].tolist()

    def _step(self, seat: int, action: int) -> None:
        before = self._public_cards() if action == ROLL else None
        self.env.step(action)
        entry: Dict[str, Any] = {"seat": seat, "action": action_name(action)}
        if before is not None:  # the dice and what each seat produced
            after = self._public_cards()
            entry["roll"] = int(self.env.game_state[L.LAST_ROLL])
            entry["gains"] = [[max(0, a - b) for a, b in zip(ra, rb)] for ra, rb in zip(after, before)]
        self.log.append(entry)

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


def new_game_settings(msg: Mapping[str, Any]) -> Dict[str, Any]:
    """Validate a page's new-game form: players (2-4 specs, "human" for people), the
    requester's seat ``you`` (a human seat, or None to watch), ``vp_to_win`` (3-20),
    ``domestic_trade``, ``board`` ("random" or "beginner") and ``seed`` (an int or None).
    Returns WebGame arguments; ValueError names the problem."""
    players = msg.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 4 or \
            not all(isinstance(p, str) and p.strip() for p in players):
        raise ValueError("players: a list of 2-4 agent specs ('human' for a person)")
    players = [p.strip() for p in players]
    for p in players:
        if p != HUMAN:
            make_agent(p)  # raises ValueError naming an unknown agent or option
    you = msg.get("you")
    if you is not None and (isinstance(you, bool) or not isinstance(you, int) or not 0 <= you < len(players)
                            or players[you] != HUMAN):
        raise ValueError("you: the number of a 'human' seat, or null to watch")
    vp = msg.get("vp_to_win", 10)
    if isinstance(vp, bool) or not isinstance(vp, int) or not 3 <= vp <= 20:
        raise ValueError("vp_to_win: an integer 3-20")
    trade = msg.get("domestic_trade", True)
    if not isinstance(trade, bool):
        raise ValueError("domestic_trade: true or false")
    board = msg.get("board", "random")
    if board not in ("random", "beginner"):
        raise ValueError("board: 'random' or 'beginner'")
    seed = msg.get("seed")
    if seed is None:
        seed = secrets.randbelow(2 ** 31)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 62:
        raise ValueError("seed: a non-negative integer, or null for a fresh one")
    return {"players": players, "you": you, "seed": seed,
            "options": {"vp_to_win": vp, "domestic_trade": trade, "board": board}}

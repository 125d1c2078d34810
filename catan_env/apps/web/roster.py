"""The agents a browser may seat, by name, and the validation of the new-game form.

A page never sends an agent spec: it picks names from this server-side allow-list, each
bound to a spec with a fixed, capped budget and no file path (a spec with ``path=`` could
probe or unpickle the server's files; ``mcts:playouts=10**9`` would tie up the agent
thread).  Whoever starts the server may add entries (``catan-play --web --allow
NAME=SPEC``): that person typed the spec on their own machine.
"""
import secrets
from typing import Any, Dict, List, Mapping, Optional

HUMAN = "human"

# name -> (spec, what a player reads in the form)
DEFAULT_AGENTS: Dict[str, tuple] = {
    "random": ("random", "random moves"),
    "weighted": ("weighted", "random moves, builds first"),
    "jsettlers": ("jsettlers", "JSettlers-style robot"),
    "trader": ("trader", "JSettlers-style robot that trades more"),
    "pretrained_policy": ("pretrained_policy", "policy network, fast"),
    "pretrained": ("pretrained", "value network with search, the strongest"),
    "pretrained_fast": ("pretrained:search=0", "value network without search, fast"),
    "mcts": ("mcts:playouts=1000", "Monte Carlo tree search, 1,000 playouts"),
}
MAX_ALLOWED = 32  # entries in one allow-list


class Roster:
    """The allow-list: ``spec(name)`` for a name a page sent; ``choices()`` for the form."""

    def __init__(self, extra: Optional[Mapping[str, str]] = None) -> None:
        self._agents = dict(DEFAULT_AGENTS)
        for name, spec in dict(extra or {}).items():
            if not name or not name.replace("_", "").replace("-", "").isalnum() or name == HUMAN:
                raise ValueError(f"allowed agent name {name!r}: letters, digits, '_' or '-', not 'human'")
            from ...agents.registry import parse_spec
            parse_spec(spec)  # an unknown agent names the known ones
            self._agents[name] = (spec, name)
        if len(self._agents) > MAX_ALLOWED:
            raise ValueError(f"at most {MAX_ALLOWED} allowed agents")

    def spec(self, name: str) -> str:
        """The spec bound to an allowed name; ValueError naming the allowed ones."""
        if name not in self._agents:
            raise ValueError(f"{name!r} is not an agent this server offers; choose one of: "
                             f"{', '.join(sorted(self._agents))} (or 'human')")
        return self._agents[name][0]

    def name_of(self, label: str) -> Optional[str]:
        """The allowed name a seat's label (a name or a spec) stands for, if any."""
        if label in self._agents:
            return label
        return next((n for n, (spec, _) in self._agents.items() if spec == label), None)

    def describe(self, label: str) -> str:
        """What a player reads for a seat's agent: its description, else the agent's kind
        (a spec typed on the command line may hold a file path or anything else: a page
        shows none of it, only the name before its first option)."""
        name = self.name_of(label)
        if name is not None:
            return self._agents[name][1]
        kind = label.split(":", 1)[0]
        return kind if kind.replace("_", "").isalnum() else "agent"

    def choices(self) -> List[Dict[str, str]]:
        """The names and descriptions the page's form offers."""
        return [{"name": n, "label": label} for n, (_, label) in self._agents.items()]


def new_game_settings(msg: Mapping[str, Any], roster: Roster) -> Dict[str, Any]:
    """Validate a page's new-game form: ``players`` (2-4 names from the roster, ``"human"``
    for a person), the requester's seat ``you`` (a human seat, or None to watch),
    ``vp_to_win`` (3-20), ``domestic_trade``, ``board`` ("random" or "beginner") and
    ``seed`` (an int or None).  Returns WebGame arguments; ValueError names the problem."""
    allowed = {"type", "players", "you", "vp_to_win", "domestic_trade", "board", "seed"}
    unknown = sorted(set(msg) - allowed)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}; a new game has {', '.join(sorted(allowed - {'type'}))}")
    players = msg.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 4 or \
            not all(isinstance(p, str) and 0 < len(p) <= 40 for p in players):
        raise ValueError("players: a list of 2-4 agent names ('human' for a person)")
    specs = [HUMAN if p == HUMAN else roster.spec(p) for p in players]
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
    return {"players": specs, "names": list(players), "you": you, "seed": seed,
            "options": {"vp_to_win": vp, "domestic_trade": trade, "board": board}}

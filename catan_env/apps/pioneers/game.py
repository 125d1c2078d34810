"""The server's game parameters as the core's options: the Pioneers rule variants, the
board, the VP target and the sevens rule; anything the core cannot represent is refused
with a ProtocolError naming it."""
from typing import Any, Dict, Mapping, Tuple

from ...core import layout as L
from ...core.options import PIONEERS_RULES, GameOptions, make_options
from .board import PioneersBoard
from .protocol import DECK_KEYS, ProtocolError

KNOWN_FLAGS = {"random-terrain", "strict-trade", "domestic-trade", "check-victory-at-end-of-turn"}


def options_from_game(params: Mapping[str, Any]) -> Tuple[GameOptions, PioneersBoard]:
    """GameOptions for the server's game parameters; ProtocolError names anything the
    core cannot represent."""
    flags = params["flags"]
    unknown = sorted(flags - KNOWN_FLAGS)
    if unknown:
        raise ProtocolError(f"unsupported rules {unknown}: the core cannot represent them")
    if "check-victory-at-end-of-turn" in flags:
        raise ProtocolError("unsupported rule check-victory-at-end-of-turn")
    want = {"num-roads": 15, "num-settlements": 5, "num-cities": 4, "resource-count": 19,
            "num-bridges": 0, "num-ships": 0, "num-city-walls": 0}
    for key, value in want.items():
        if key in params and int(params[key]) != value:
            raise ProtocolError(f"unsupported rule {key} {params[key]}: the core plays with {value}")
    players = int(params.get("num-players", 4))
    if not 2 <= players <= 4:
        raise ProtocolError(f"unsupported game: {players} players (the core plays 2-4)")
    if params.get("use-dice-deck") or "use-dice-deck" in flags:
        raise ProtocolError("unsupported rule: a dice deck")
    deck = [0] * L.N_DEV
    for key, t in DECK_KEYS.items():
        deck[t] += int(params.get(key, 0))
    if not params.get("map"):
        raise ProtocolError("the server sent no map")
    board = PioneersBoard(params["map"], params["chits"])
    rules: Dict[str, Any] = dict(PIONEERS_RULES, dev_deck=tuple(deck), strict_trade="strict-trade" in flags)
    opts = make_options(players=players, vp_to_win=int(params.get("victory-points", 10)),
                        sevens_rule=int(params.get("sevens-rule", 0)),
                        domestic_trade="domestic-trade" in flags, max_offers_per_turn=20,
                        board=board.board, **rules)
    return opts, board

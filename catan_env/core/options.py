"""Game options, validated: a bad value raises ValueError naming the option and what
is allowed; an unknown option name raises ValueError listing the known ones."""
import os
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import layout as L
from .board import BEGINNER_BOARD, validate_board
from .tables import OFFICIAL_DECK, PIONEERS_DECK

# The one default turn cap (core playouts, both envs, the arena): a game still running
# after this many turns ends without a winner (truncated).  Random 4-player games end
# by about turn 250 on average; 1000 is far beyond what real play needs.
DEFAULT_MAX_TURNS = 1000


@dataclass(frozen=True)
class GameOptions:
    """Rules options (defaults: the official game)."""
    players: int = 4              # 2..4
    vp_to_win: int = 10           # 3..20
    discard_limit: int = 7        # a 7 makes players with more than this discard half
    friendly_robber: bool = False  # no stealing from players with <= 2 public VP
    domestic_trade: bool = True   # player-to-player trade menu on/off
    max_offers_per_turn: int = 3  # cap on domestic offers per turn (0..20)
    board: Any = field(default="random")  # "random", "beginner", a board dict, JSON or file
    # Rule variants (defaults: the official rules; PIONEERS_RULES sets the Pioneers ones)
    robber_on_desert: bool = True  # False: the robber may never move to the desert
    bank_shortage: str = "official"  # "official": nobody gets a short resource unless only
    #                                  one seat is owed it; "in_order": seat order from the
    #                                  roller, each paid what is left
    strict_trade: bool = False    # no maritime or domestic trade after building or buying
    direct_city: bool = False     # a city may go straight on an empty settlement spot
    vp_cards: str = "held"        # "held": VP cards count while hidden; "played": they count
    #                               once played face up (the owner plays them to win)
    sevens_rule: int = 0          # 0 normal; 1 re-roll 7s in rounds 1-2; 2 re-roll every 7
    dev_deck: Any = "official"  # "official" (25), "pioneers" (24, 13 knights) or 5 counts
    #                                (knight, VP, road building, year of plenty, monopoly)

    def __post_init__(self) -> None:
        _check_int("players", self.players, 2, 4)
        _check_int("vp_to_win", self.vp_to_win, 3, 20)
        _check_int("discard_limit", self.discard_limit, 3, 40)
        _check_int("max_offers_per_turn", self.max_offers_per_turn, 0, 20)
        _check_int("sevens_rule", self.sevens_rule, 0, 2)
        for name in ("friendly_robber", "domestic_trade", "robber_on_desert", "strict_trade",
                     "direct_city"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"option {name!r} must be True or False, got {getattr(self, name)!r}")
        _check_choice("bank_shortage", self.bank_shortage, ("official", "in_order"))
        _check_choice("vp_cards", self.vp_cards, ("held", "played"))
        object.__setattr__(self, "dev_deck", _check_deck(self.dev_deck))
        if isinstance(self.board, str) and self.board in ("random", "beginner"):
            return
        if isinstance(self.board, str) and not self.board.lstrip().startswith("{"):
            if not os.path.isfile(self.board):
                raise ValueError(f"unknown board {self.board!r}; use 'random', 'beginner', a dict "
                                 f"or a JSON file")
            with open(self.board) as f:
                object.__setattr__(self, "board", validate_board(f.read()))
            return
        if isinstance(self.board, (dict, str)):
            object.__setattr__(self, "board", validate_board(self.board))
            return
        raise ValueError(f"option 'board' must be 'random', 'beginner' or a board dict/JSON, "
                         f"got {self.board!r}")

    def board_dict(self) -> Optional[Dict[str, Any]]:
        """The fixed board, or None for a random board."""
        if self.board == "random":
            return None
        if self.board == "beginner":
            return BEGINNER_BOARD
        return self.board

    def to_dict(self) -> Dict[str, Any]:
        """The options as a plain dict (what records store)."""
        return asdict(self)

    def rule_variants(self) -> Tuple[int, int, np.ndarray]:
        """(RULE_* bits, sevens rule, deck counts) for ``rules.set_rule_variants``."""
        bits = ((0 if self.robber_on_desert else L.RULE_NO_DESERT_ROBBER)
                | (L.RULE_SHORTAGE_IN_ORDER if self.bank_shortage == "in_order" else 0)
                | (L.RULE_STRICT_TRADE if self.strict_trade else 0)
                | (L.RULE_DIRECT_CITY if self.direct_city else 0)
                | (L.RULE_VP_PLAYED if self.vp_cards == "played" else 0))
        return bits, self.sevens_rule, np.array(_deck_counts(self.dev_deck), dtype=np.int64)


# The rules of the Pioneers server's Default game (its protocol reference, section 9):
# ``new_game(**PIONEERS_RULES)``.  The VP target and sevens rule come from the server.
PIONEERS_RULES = dict(robber_on_desert=False, bank_shortage="in_order", strict_trade=True,
                      direct_city=True, vp_cards="played", dev_deck="pioneers")


OPTION_NAMES = tuple(f.name for f in fields(GameOptions))


def _check_int(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"option {name!r} must be an int in {lo}..{hi}, got {value!r}")


def _check_choice(name: str, value: Any, allowed: Iterable[Any]) -> None:
    if value not in allowed:
        raise ValueError(f"option {name!r} must be one of {list(allowed)}, got {value!r}")


_NAMED_DECKS = {"official": OFFICIAL_DECK, "pioneers": PIONEERS_DECK}


def _deck_counts(deck: Union[str, Sequence[int]]) -> List[int]:
    return [int(x) for x in (_NAMED_DECKS[deck] if isinstance(deck, str) else deck)]


def _check_deck(deck: Any) -> Union[str, Tuple[int, ...]]:
    """A deck name, or 5 non-negative counts (at most 30 of a type): normalised to a name
    when it is a named deck's counts, otherwise a tuple."""
    if isinstance(deck, str):
        _check_choice("dev_deck", deck, tuple(_NAMED_DECKS))
        return deck
    try:
        counts = [int(x) for x in deck] if not isinstance(deck, (bool, int)) else None
    except (TypeError, ValueError):
        counts = None
    if counts is None or len(counts) != L.N_DEV or any(not 0 <= c <= 30 for c in counts) \
            or any(isinstance(x, bool) or float(x) != int(x) for x in deck):
        raise ValueError(f"option 'dev_deck' must be 'official', 'pioneers' or 5 counts 0..30 "
                         f"(knight, VP, road building, year of plenty, monopoly), got {deck!r}")
    for name, named in _NAMED_DECKS.items():
        if counts == [int(x) for x in named]:
            return name
    return tuple(counts)


def check_keywords(given: Iterable[str], accepted: Iterable[str]) -> None:
    """Raise ValueError naming unknown keywords and listing every accepted one (the game
    options and the caller's own keywords)."""
    unknown = sorted(set(given) - set(accepted) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; accepted keywords: "
                         f"{', '.join(list(accepted) + list(OPTION_NAMES))}")


def make_options(options: Union["GameOptions", Mapping[str, Any], None] = None, **kwargs: Any) -> "GameOptions":
    """GameOptions from a GameOptions, a dict, keyword arguments, or a mix."""
    base: Dict[str, Any] = {}
    if isinstance(options, GameOptions):
        base = options.to_dict()
    elif isinstance(options, Mapping):
        base = dict(options)
    elif options is not None:
        raise TypeError(f"options must be a GameOptions or dict, got {type(options).__name__}")
    base.update(kwargs)
    check_keywords(base, ())
    return GameOptions(**base)


# the rule-variant options and their official values (records leave these out)
RULE_VARIANT_DEFAULTS = {name: getattr(GameOptions(), name) for name in (
    "robber_on_desert", "bank_shortage", "strict_trade", "direct_city", "vp_cards",
    "sevens_rule", "dev_deck")}

"""Game options, validated: a bad value raises ValueError naming the option and what
is allowed; an unknown option name raises ValueError listing the known ones."""
import os
from dataclasses import asdict, dataclass, field, fields

from .board import BEGINNER_BOARD, validate_board

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
    board: object = field(default="random")  # "random", "beginner", a board dict, JSON or file

    def __post_init__(self):
        _check_int("players", self.players, 2, 4)
        _check_int("vp_to_win", self.vp_to_win, 3, 20)
        _check_int("discard_limit", self.discard_limit, 3, 40)
        _check_int("max_offers_per_turn", self.max_offers_per_turn, 0, 20)
        for name in ("friendly_robber", "domestic_trade"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"option {name!r} must be True or False, got {getattr(self, name)!r}")
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

    def board_dict(self):
        """The fixed board, or None for a random board."""
        if self.board == "random":
            return None
        if self.board == "beginner":
            return BEGINNER_BOARD
        return self.board

    def to_dict(self):
        return asdict(self)


OPTION_NAMES = tuple(f.name for f in fields(GameOptions))


def _check_int(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"option {name!r} must be an int in {lo}..{hi}, got {value!r}")


def check_keywords(given, accepted):
    """Raise ValueError naming unknown keywords and listing every accepted one (the game
    options and the caller's own keywords)."""
    unknown = sorted(set(given) - set(accepted) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; accepted keywords: "
                         f"{', '.join(list(accepted) + list(OPTION_NAMES))}")


def make_options(options=None, **kwargs):
    """GameOptions from a GameOptions, a dict, keyword arguments, or a mix."""
    base = {}
    if isinstance(options, GameOptions):
        base = options.to_dict()
    elif isinstance(options, dict):
        base = dict(options)
    elif options is not None:
        raise TypeError(f"options must be a GameOptions or dict, got {type(options).__name__}")
    base.update(kwargs)
    check_keywords(base, ())
    return GameOptions(**base)

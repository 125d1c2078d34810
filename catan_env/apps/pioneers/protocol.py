"""The Pioneers 15.6 wire format: resource vectors, card codes, line prefixes and the
``game`` parameter block (see the protocol reference in docs/playing.md).

Pioneers orders resources brick, grain, ore, wool, lumber; the core orders them brick,
lumber, wool, grain, ore.  Every conversion between the two goes through this module.
"""
import re
from typing import Any, Dict, Iterable, List, Sequence, Tuple

from ...core import layout as L

PIO_RESOURCES = ("brick", "grain", "ore", "wool", "lumber")
# core resource index of each Pioneers position, and the inverse
PIO_TO_CORE = (L.BRICK, L.GRAIN, L.ORE, L.WOOL, L.LUMBER)
RESOURCE_WORD = {L.BRICK: "brick", L.GRAIN: "grain", L.ORE: "ore", L.WOOL: "wool",
                 L.LUMBER: "lumber"}
WORD_RESOURCE = {w: r for r, w in RESOURCE_WORD.items()}

# development card codes: 0 road building, 1 monopoly, 2 year of plenty, 3-7 the five
# VP cards (chapel, university, governor's house, library, market), 8 soldier
DEV_CODE_TO_CORE = {0: L.ROAD_BUILDING, 1: L.MONOPOLY, 2: L.YEAR_OF_PLENTY, 3: L.VICTORY_POINT,
                    4: L.VICTORY_POINT, 5: L.VICTORY_POINT, 6: L.VICTORY_POINT,
                    7: L.VICTORY_POINT, 8: L.KNIGHT}
DECK_KEYS = {"develop-soldier": L.KNIGHT, "develop-road": L.ROAD_BUILDING,
             "develop-monopoly": L.MONOPOLY, "develop-plenty": L.YEAR_OF_PLENTY,
             "develop-chapel": L.VICTORY_POINT, "develop-university": L.VICTORY_POINT,
             "develop-governor": L.VICTORY_POINT, "develop-library": L.VICTORY_POINT,
             "develop-market": L.VICTORY_POINT}

_PREFIX = re.compile(r"^player (-?\d+) (.*)$")


class ProtocolError(RuntimeError):
    """A line or a game the bridge cannot handle (the message says which and why)."""


def split_prefix(line: str, me: int) -> Tuple[int, str]:
    """(seat, body) of a server line: the ``player N`` prefix, or ``me`` without one."""
    m = _PREFIX.match(line)
    if m:
        return int(m.group(1)), m.group(2)
    return me, line


def to_core(vec: Iterable[int]) -> List[int]:
    """A Pioneers resource vector (5 ints) in core order."""
    out = [0] * L.N_RES
    for i, n in enumerate(vec):
        out[PIO_TO_CORE[i]] = int(n)
    return out


def to_pio(core_vec: Sequence[int]) -> str:
    """A core-order resource vector in Pioneers order, as protocol text."""
    return " ".join(str(int(core_vec[PIO_TO_CORE[i]])) for i in range(L.N_RES))


def ints(words: Iterable[str]) -> List[int]:
    return [int(w) for w in words]


def parse_game_block(lines: Iterable[str]) -> Dict[str, Any]:
    """The ``game`` block (keyword, then the rest of the line; ``map`` ... ``.``) as a dict:
    {"flags": set of boolean rules, "map": [row strings], keyword: text}."""
    params: Dict[str, Any] = {"flags": set(), "map": [], "nosetup": []}
    in_map = False
    for line in lines:
        if in_map:
            if line == ".":
                in_map = False
            else:
                params["map"].append(line)
            continue
        if line == "map":
            in_map = True
            continue
        key, _, rest = line.partition(" ")
        if key == "nosetup":
            params["nosetup"].append(rest)
        elif rest == "":
            params["flags"].add(key)
        else:
            params[key] = rest
    return params

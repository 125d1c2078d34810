"""Saved games: a JSON record (options, board, seed, actions) that replays exactly, and
raw state vectors.  Loading validates and replays; a corrupt or mismatched record raises
``CorruptStateError`` saying what is wrong.

Record format (version 2)::

    {"format": "catan_env.record", "version": 2, "options": {...}, "board": {...},
     "seed": 7, "chance": "forced" | "rng", "actions": [[id, outcome_or_null], ...],
     "final": {"steps": N, "vp": [...], "winner": -1, "digest": "sha256 of the outcome"}}

``chance``: the outcomes listed (dice totals, stolen resources, drawn cards) were forced
("forced", the default: chosen dice in tests and scenarios) or drawn by the game's RNG
("rng": games recorded from an env or the arena; the replay draws them again and checks
them).  The digest covers a canonical description of the final position (buildings, roads,
hands, development cards, VP, holders, robber, winner, action count), not the raw state
vector, so records stay valid when the state layout changes.  Version 1 records (whose
checksum hashed the raw vector) still load; their steps, VP and winner are checked.
"""
import hashlib
import json
import os
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import actions as A
from . import layout as L
from .game import (CorruptStateError, IllegalActionError, chance_outcome, new_game, step,
                   victory_points, winner)
from .board import read_board
from .invariants import check
from .options import RULE_VARIANT_DEFAULTS, GameOptions, make_options

FORMAT = "catan_env.record"
VERSION = 2
CHANCE_MODES = ("forced", "rng")
READS_VERSIONS = (1, 2)


def outcome(state: np.ndarray) -> Dict[str, Any]:
    """The final position in canonical, layout-independent form (plain ints and lists)."""
    n = int(state[L.OPT_PLAYERS])

    def field(name: str) -> Any:
        return L.view(state, name).tolist()
    return {"v_owner": field("v_owner"), "v_level": field("v_level"), "e_owner": field("e_owner"),
            "hands": field("hand")[:n], "dev_cards": field("dev_hand")[:n], "deck": field("deck"),
            "bank": field("bank"), "knights": field("knights")[:n], "vp": victory_points(state),
            "longest_road": int(state[L.LR_HOLDER]), "largest_army": int(state[L.LA_HOLDER]),
            "robber": int(state[L.ROBBER]), "winner": winner(state), "steps": int(state[L.STEPS])}


def outcome_digest(state: np.ndarray) -> str:
    """sha256 of ``outcome(state)`` as canonical JSON."""
    text = json.dumps(outcome(state), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class GameRecord:
    """A game as options + board + seed + action list; replays to the same state."""

    def __init__(self, options: Union[GameOptions, Mapping[str, Any], None], seed: int,
                 board: Optional[Dict[str, Any]] = None, chance: str = "forced") -> None:
        opts = make_options(options)
        self.seed = int(seed)
        initial = new_game(opts, seed=self.seed)
        self.board = board or read_board(initial)
        self.options = make_options(opts, board=self.board)
        if chance not in CHANCE_MODES:
            raise ValueError(f"chance must be one of {CHANCE_MODES}, got {chance!r}")
        self.chance = chance
        self.actions: List[Tuple[int, Optional[int]]] = []  # (action, chance outcome or None)

    @classmethod
    def from_actions(cls, options: Union[GameOptions, Mapping[str, Any], None], seed: int,
                     actions: Iterable[Tuple[int, Optional[int]]], board: Optional[Dict[str, Any]] = None,
                     chance: str = "rng") -> "GameRecord":
        """A record of the game new_game(options, seed=seed) followed by actions, a list
        of (action id, chance outcome or None) as the state's RNG produced them: what an
        env's ``record()`` returns."""
        rec = cls(options, seed, board=board, chance=chance)
        for a, outcome in actions:
            rec.append(a, outcome)
        return rec

    @classmethod
    def from_env(cls, env: Any) -> "GameRecord":
        """The game so far in a PettingZoo or Gymnasium catan_env env."""
        return env.record()

    def initial_state(self) -> np.ndarray:
        """The state the game starts from (its options, board and seed)."""
        return new_game(self.options, seed=self.seed)

    def append(self, action: int, outcome: Optional[int] = None) -> None:
        """Add one step: the action and, for a chance action, its outcome."""
        self.actions.append((int(action), None if outcome is None else int(outcome)))

    def replay(self, upto: Optional[int] = None) -> Iterator[np.ndarray]:
        """Yield the state after each action (the initial state first).  Chance outcomes
        are forced (``chance="forced"``: chosen dice, as in tests and scenarios) or were
        produced by the state's RNG (``chance="rng"``: games recorded from an env), in
        which case the replay draws them again, bit for bit, and checks each one."""
        s = self.initial_state()
        yield s.copy()
        for i, (a, outcome) in enumerate(self.actions[:upto]):
            try:
                step(s, a, outcome if self.chance == "forced" else None)
            except IllegalActionError as exc:
                raise CorruptStateError(f"record action #{i} cannot be replayed: {exc}") from None
            if self.chance == "rng" and outcome is not None and chance_outcome(s, a) != outcome:
                raise CorruptStateError(f"record action #{i} ({A.action_name(a)}): the game's RNG "
                                        f"gives {chance_outcome(s, a)}, the record says {outcome}")
            yield s.copy()

    def final_state(self) -> np.ndarray:
        """The state after replaying every recorded step."""
        s = self.initial_state()
        for s in self.replay():
            pass
        return s

    def to_dict(self) -> Dict[str, Any]:
        """The record as plain JSON-ready data (with the final state's digest, checked on load)."""
        final = self.final_state()
        opts = self.options.to_dict()
        opts.pop("board")
        for name, default in RULE_VARIANT_DEFAULTS.items():  # official rules: keys left out
            if opts[name] == default:
                del opts[name]
        if isinstance(opts.get("dev_deck"), tuple):
            opts["dev_deck"] = list(opts["dev_deck"])
        return {"format": FORMAT, "version": VERSION, "options": opts, "board": self.board,
                "seed": self.seed, "chance": self.chance,
                "actions": [[a, f] for a, f in self.actions],
                "final": {"steps": len(self.actions), "vp": victory_points(final),
                          "winner": winner(final), "digest": outcome_digest(final)}}

    def to_json(self, **kw: Any) -> str:
        """The record as JSON text (``json.dumps`` keywords pass through)."""
        return json.dumps(self.to_dict(), **kw)

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the record as JSON atomically: the text is built and checked (it replays
        and reads back) before anything touches path, then written to a temporary file
        beside it and renamed, so path never holds an empty or partial record."""
        text = self.to_json(indent=1)  # replays every action: raises on an illegal one
        type(self).from_json(text)     # and reads back
        path = os.fspath(path)
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "GameRecord":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise CorruptStateError(f"not a catan_env record (format must be {FORMAT!r})")
        if d.get("version") not in READS_VERSIONS:
            raise CorruptStateError(f"unsupported record version {d.get('version')!r}; this "
                                    f"library reads versions {READS_VERSIONS}")
        for key in ("options", "board", "seed", "actions"):
            if key not in d:
                raise CorruptStateError(f"record is missing {key!r}")
        try:
            opts = make_options(d["options"], board=d["board"])
        except ValueError as exc:
            raise CorruptStateError(f"record has bad options or board: {exc}") from None
        if not isinstance(d["seed"], int):
            raise CorruptStateError("record seed must be an int")
        chance = d.get("chance", "forced")
        if chance not in CHANCE_MODES:
            raise CorruptStateError(f"record chance must be one of {CHANCE_MODES}, got {chance!r}")
        rec = cls(opts, d["seed"], board=opts.board, chance=chance)
        for i, item in enumerate(d["actions"]):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)
                    and (item[1] is None or isinstance(item[1], int))):
                raise CorruptStateError(f"record action #{i} must be [id, outcome|null], got {item!r}")
            rec.append(item[0], item[1])
        final = rec.final_state()  # replays, raising on an illegal action
        expected = d.get("final")
        if expected is not None:
            got = {"steps": len(rec.actions), "vp": victory_points(final), "winner": winner(final)}
            for key, value in got.items():
                if key in expected and expected[key] != value:
                    raise CorruptStateError(f"record replays to a different final state ({key}: "
                                            f"{value} vs recorded {expected[key]})")
            if d["version"] >= 2 and expected.get("digest") not in (None, outcome_digest(final)):
                raise CorruptStateError(
                    f"record replays to a different final state (digest mismatch: vp "
                    f"{victory_points(final)} vs recorded {expected.get('vp')})")
        return rec

    @classmethod
    def from_json(cls, text: str) -> "GameRecord":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CorruptStateError(f"record is not valid JSON: {exc}") from None
        return cls.from_dict(d)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "GameRecord":
        with open(path) as f:
            return cls.from_json(f.read())


def save_state(path: Union[str, "os.PathLike[str]"], state: np.ndarray) -> None:
    """Write a raw state vector (``.npy``) with its layout size in the header."""
    np.save(path, np.asarray(state, dtype=np.int64))


def load_state(path: Union[str, "os.PathLike[str]"]) -> np.ndarray:
    """Read a raw state vector, checking its shape and every invariant."""
    try:
        s = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise CorruptStateError(f"cannot read state file {path}: {exc}") from None
    if s.dtype != np.int64 or s.shape != (L.STATE_SIZE,):
        raise CorruptStateError(f"state file {path} holds {s.dtype} {s.shape}; expected int64 "
                                f"({L.STATE_SIZE},) (saved by another version?)")
    check(s)
    return s

"""Stepping through a recorded game: one ``ReplayStep`` per position, optionally with
its rendering (``catan_env.replay``)."""
import os
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Optional, Union

import numpy as np

from .core.actions import action_name
from .core.record import GameRecord


@dataclass
class ReplayStep:
    index: int          # 0 = initial position
    action: int         # the action that led here (-1 for the initial position)
    action_name: str
    state: np.ndarray   # the full state after the action
    frame: object       # str (ansi), uint8 array (rgb_array) or None


RecordLike = Union[GameRecord, Mapping[str, Any], str, "os.PathLike[str]"]  # what replays accept


def load_record(record: RecordLike) -> GameRecord:
    """A GameRecord from a record, its dict, or a saved file's path."""
    if isinstance(record, GameRecord):
        return record
    if isinstance(record, dict):
        return GameRecord.from_dict(record)
    if isinstance(record, (str, os.PathLike)):
        return GameRecord.load(record)
    raise TypeError(f"record must be a GameRecord, dict or path, got {type(record).__name__}")


def replay(record: Union[GameRecord, Mapping[str, Any], str, "os.PathLike[str]"],
           render_mode: Optional[str] = None) -> Iterator[ReplayStep]:
    """Yield a ReplayStep per position of a recorded game."""
    from . import render as R
    if render_mode not in (None, "ansi", "rgb_array"):
        raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
    rec = load_record(record)
    actions = [-1] + [a for a, _ in rec.actions]
    for i, state in enumerate(rec.replay()):
        frame: Union[str, np.ndarray, None] = None
        if render_mode == "ansi":
            frame = R.render_ansi(state)
        elif render_mode == "rgb_array":
            frame = R.render_rgb(state)
        a = actions[i]
        yield ReplayStep(i, a, "START" if a < 0 else action_name(a), state, frame)

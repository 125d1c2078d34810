"""A person at a terminal plays a seat: the board as text, the seat's own cards, and the
legal actions numbered with their names.

    catan-play --opponents jsettlers,jsettlers,mcts --seed 3

or any loop: ``HumanAgent().act(observation, infoset)``.  Type the number of an action,
or part of its name when only one legal action matches (``end``, ``roll``); ``?`` shows
the board again, ``map`` the vertex and edge ids around each hex.  Nothing hidden is shown: the board, public counts, and this seat's
own hand and development cards.
"""
import sys
from typing import TYPE_CHECKING, Callable, List, Optional

import numpy as np

from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.topology import HEX_EDGES, HEX_VERTICES
from catan_env.render import render_ansi

from .base import Agent, Observation

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet


class HumanAgent(Agent):
    """Reads each decision from ``read`` (default: input) and prints to ``write``."""

    name = "human"

    def __init__(self, seed: Optional[int] = None, read: Optional[Callable[[str], str]] = None,
                 write: Optional[Callable[[str], None]] = None) -> None:
        super().__init__(seed)
        self.read: Callable[[str], str] = read or input
        self.write: Callable[[str], None] = write or (lambda text: print(text, file=sys.stdout, flush=True))

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if len(legal) == 1:
            return legal[0]
        self.write(self.describe(infoset, legal))
        while True:
            text = self.read(f"seat {infoset.seat}, action? ").strip().lower()
            choice = choose(text, legal)
            if choice is not None:
                return choice
            if text == "?":
                self.write(self.describe(infoset, legal))
            elif text == "map":
                self.write(board_legend())
            else:
                self.write(f"not one of the {len(legal)} legal actions: {text!r} "
                           f"(a number, or a word that names one action)")

    @staticmethod
    def describe(infoset: "InfoSet", legal: List[int]) -> str:
        """The public board, this seat's cards and the numbered legal actions."""
        view = infoset._view
        hand = infoset.hand()
        dev, new = infoset.dev_cards()
        cards = ", ".join(f"{n} {L.RESOURCE_NAMES[r]}" for r, n in enumerate(hand) if n) or "none"
        devs = ", ".join(f"{n} {L.DEV_NAMES[t]}" + (f" ({new[t]} new)" if new[t] else "")
                         for t, n in enumerate(dev) if n) or "none"
        lines = [render_ansi(view), f"your hand: {cards}", f"your development cards: {devs}",
                 "legal actions (a number, a word naming one, '?' board, 'map' vertex/edge ids):"]
        lines += [f"  {i:3d}  {A.action_name(a)}" for i, a in enumerate(legal)]
        return "\n".join(lines)


def board_legend() -> str:
    """Each hex's corner vertices and side edges, clockwise from the top (the ids the
    action names use)."""
    lines = ["hex: corner vertices from the top, clockwise | side edges from the upper right"]
    for h in range(len(HEX_VERTICES)):
        lines.append(f"{h:3d}: v {' '.join(f'{v:2d}' for v in HEX_VERTICES[h])} | "
                     f"e {' '.join(f'{e:2d}' for e in HEX_EDGES[h])}")
    return "\n".join(lines)


def choose(text: str, legal: List[int]) -> Optional[int]:
    """The action picked by text: an index into legal, or a word matching one name."""
    if text.isdigit():
        i = int(text)
        return legal[i] if 0 <= i < len(legal) else None
    if not text or text in ("?", "map"):
        return None
    hits = [a for a in legal if text in A.action_name(a).lower()]
    return hits[0] if len(hits) == 1 else None

"""How a finished game swung: each seat's chance to win along the game, as the shipped
win-probability network estimates it from that seat's own view, with the big swings
marked and told in words.

    tl = win_timeline(record)                 # per position: steps, turns, chances[seat][i]
    svg = chart_svg(tl, names, colours)       # a small self-contained SVG line chart

The network (``catan_env.learned.network``) reads features built only from the observer's
information (``catan_env.learned.features``: the board, public counts, its own hand and
development cards, what it knows of the others' hands; never another seat's hidden cards,
the deck's order or the RNG; ``tests/test_value_net.py`` checks the features of a state and
of its determinizations are equal).  So the true state of each recorded position can be
fed as it is: seat p's number is what p could have computed at the table.  The numbers of
different seats are different views and need not sum to 1.

This is an application-level helper (the HTML replay and the browser server use it).
"""
import html
import os
from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union

import numpy as np

from ..core import layout as L
from ..core.record import GameRecord
from ..learned.network import load_network
from ..playback import RecordLike, replay
from ..words import event_words

SWING_THRESHOLD = 0.1  # a swing: some seat's own estimate moved this much in one step
SWING_TOP = 8          # at most this many swings are marked, the largest


def default_network() -> Any:
    """The shipped value network (loaded once per process).  Raises ValueError (with the
    reason in one line) when it cannot be loaded."""
    return load_network()


def own_view_chances(states: np.ndarray, network: Any) -> np.ndarray:
    """chances[i, p]: seat p's chance to win in states[i] by the network, from p's own
    view; one batched call of ``learned.value.seat_win_chances`` for every (state, seat)."""
    from ..learned.value import seat_win_chances
    states = np.ascontiguousarray(states, np.int64)
    n = int(states[0, L.OPT_PLAYERS])
    rows = np.repeat(states, n, axis=0)
    seats = np.tile(np.arange(n, dtype=np.int64), len(states))
    out = np.zeros(len(rows))
    seat_win_chances(network.evaluator(), rows, seats, out)
    return out.reshape(len(states), n)


def find_swings(chances: np.ndarray, threshold: float = SWING_THRESHOLD,
                top: int = SWING_TOP) -> List[int]:
    """Indices i (> 0) of the largest one-step changes of chances (points x seats): the
    ``top`` largest max-over-seats |chances[i] - chances[i - 1]| that reach ``threshold``,
    in game order."""
    c = np.asarray(chances, float)
    if len(c) < 2 or top <= 0:
        return []
    size = np.abs(np.diff(c, axis=0)).max(axis=1)
    order = np.argsort(-size, kind="stable")[:top]
    return sorted(int(k) + 1 for k in order if size[k] >= threshold)


def win_timeline(record: RecordLike, network: Any = None, threshold: float = SWING_THRESHOLD,
                 top: int = SWING_TOP) -> Dict[str, Any]:
    """Each seat's own-view chance to win at every position of a recorded game (the
    initial one and after each action), and its largest swings.  A position where the game
    is over counts 1 for the winner and 0 for the others (everything is public then).

    Returns ``{"steps": [i...], "turns": [turn at i...], "chances": [[seat 0's chance at
    i...], ...], "winner": seat or -1, "players": n, "swings": [...]}``; a swing is
    ``{"step", "turn", "seats" (those that moved by >= threshold), "before", "after"
    (every seat's chance either side), "words"}``, in game order; "words" says what the
    step did (``catan_env.words.event_words`` as a spectator reads it).
    network: a ``ValueNetwork`` (default: the shipped one, :func:`default_network`)."""
    if network is None:
        network = default_network()
    positions = list(replay(record))
    states = np.stack([st.state for st in positions])
    chances = own_view_chances(states, network)
    n = chances.shape[1]
    # a finished game is decided: 1 or 0, as the search's leaves score it (the network
    # never saw finished positions and may misjudge them)
    for j in np.flatnonzero((states[:, L.PHASE] == L.PH_GAME_OVER) & (states[:, L.WINNER] >= 0)).tolist():
        chances[j] = 0.0
        chances[j, int(states[j, L.WINNER])] = 1.0
    swings = []
    for i in find_swings(chances, threshold, top):
        before, after = chances[i - 1], chances[i]
        moved = [p for p in range(n) if abs(after[p] - before[p]) >= threshold]
        swings.append({"step": i, "turn": int(states[i, L.TURN]), "seats": moved,
                       "before": [float(x) for x in before], "after": [float(x) for x in after],
                       "words": "; ".join(event_words(states[i - 1], states[i], int(states[i - 1, L.DECIDER]),
                                                        positions[i].action, viewer=None))})
    return {"steps": list(range(len(states))), "turns": states[:, L.TURN].astype(int).tolist(),
            "chances": [[float(x) for x in chances[:, p]] for p in range(n)],
            "winner": int(states[-1, L.WINNER]), "players": n, "swings": swings}


def _nice_step(span: int, ticks: int = 10) -> int:
    """A round tick spacing (1, 2, 5, 10, 20, 25, 50, ...) giving about ``ticks`` ticks."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= ticks:
            return step
    return max(1, span // ticks)


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def chart_layout(width: int, height: int) -> Tuple[float, float, float, float]:
    """The plot area (x0, x1, y_top, y_bottom) of a chart of that size (the page's
    cursor uses it): step 0 at x0, the last step at x1, 100% at y_top, 0% at y_bottom."""
    return 44.0, float(width - 12), 30.0, float(height - 30)


def step_positions(turns: Sequence[int]) -> List[float]:
    """Where each step sits on a chart's x axis, 0-1: turns equally wide (so turn ticks are
    evenly spaced and a step lies between its turn's tick and the next), the steps of a
    turn spread evenly across it."""
    if len(turns) < 2:
        return [0.0] * len(turns)
    counts: Dict[int, int] = {}
    for t in turns:
        counts[int(t)] = counts.get(int(t), 0) + 1
    seen: Dict[int, int] = {}
    raw = []
    for t in turns:
        k = seen.get(int(t), 0)
        seen[int(t)] = k + 1
        raw.append(int(t) + k / counts[int(t)])
    lo, hi = raw[0], raw[-1]
    return [(x - lo) / (hi - lo) if hi > lo else 0.0 for x in raw]


def chart_svg(timeline: Mapping[str, Any], names: Sequence[str], colours: Sequence[str],
              width: int = 720, height: int = 230) -> str:
    """A self-contained SVG line chart of a :func:`win_timeline`: one line per seat in its
    colour over a dark outline (a white seat stays visible on a light background), y 0-100%,
    x the turns (equally wide, a turn's steps spread across it; ``data-xs`` gives each
    step's x), numbered swing markers (class ``swing``, a
    ``data-step`` attribute, a ``<title>`` in words) and a cursor line (class
    ``wc-cursor``) a page can move.  Pure: no I/O, no plotting library."""
    chances = timeline["chances"]
    turns = timeline["turns"]
    n_points = len(turns)
    x0, x1, yt, yb = chart_layout(width, height)

    positions = step_positions([int(t) for t in turns])

    def x_of(i: int) -> float:
        return x0 + (x1 - x0) * positions[i]

    def y_of(v: float) -> float:
        return yb - (yb - yt) * min(max(float(v), 0.0), 1.0)

    esc = html.escape
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="win-chart" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" '
             f'data-x0="{x0}" data-x1="{x1}" data-points="{n_points}" '
             f'data-xs="{",".join(f"{x_of(i):.1f}" for i in range(n_points))}" role="img" '
             f'aria-label="each seat\'s chance to win along the game, from its own view">',
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff" rx="4"/>']
    for k in range(5):  # y grid 0, 25, ..., 100%
        y = y_of(k / 4)
        parts.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#ddd"/>'
                     f'<text x="{x0 - 5}" y="{y + 4:.1f}" text-anchor="end" fill="#444">{25 * k}%</text>')
    if n_points:
        last = turns[-1]
        tick = _nice_step(max(1, last - turns[0]))
        first_of: Dict[int, int] = {}
        for i, t in enumerate(turns):
            first_of.setdefault(int(t), i)
        for t, i in sorted(first_of.items()):
            if t % tick == 0 and t > 0:
                x = x_of(i)
                parts.append(f'<line x1="{x:.1f}" y1="{yb}" x2="{x:.1f}" y2="{yb + 4}" stroke="#444"/>'
                             f'<text x="{x:.1f}" y="{yb + 15}" text-anchor="middle" fill="#444">{t}</text>')
        parts.append(f'<text x="{x1}" y="{height - 3}" text-anchor="end" fill="#444">turn</text>')
    parts.append(f'<line x1="{x0}" y1="{yb}" x2="{x1}" y2="{yb}" stroke="#444"/>'
                 f'<line x1="{x0}" y1="{yt}" x2="{x0}" y2="{yb}" stroke="#444"/>')
    # the lines: each seat's path drawn twice, a dark outline under its colour
    defs, lines = [], []
    for p, series in enumerate(chances):
        d = "M" + " L".join(f"{x_of(i):.1f},{y_of(v):.1f}" for i, v in enumerate(series))
        defs.append(f'<path id="wc-seat-{p}" d="{d}" fill="none" stroke-linejoin="round"/>')
        lines.append(f'<use href="#wc-seat-{p}" stroke="#222" stroke-width="3.6"/>'
                     f'<use href="#wc-seat-{p}" stroke="{esc(colours[p])}" stroke-width="2"/>')
    parts.append("<defs>" + "".join(defs) + "</defs>")
    parts.append(f'<g class="wc-lines">{"".join(lines)}</g>')
    # legend, top left
    lx = x0
    for p in range(len(chances)):
        label = esc(names[p]) + (" (winner)" if timeline.get("winner") == p else "")
        parts.append(f'<rect x="{lx:.0f}" y="8" width="12" height="12" fill="{esc(colours[p])}" stroke="#222"/>'
                     f'<text x="{lx + 16:.0f}" y="18" fill="#222">{label}</text>')
        lx += 30 + 7 * len(label)
    parts.append(f'<text x="{x1}" y="18" text-anchor="end" fill="#666">chance to win, each seat\'s own view '
                 f'(value network)</text>')
    parts.append(f'<line class="wc-cursor" x1="{x0}" y1="{yt - 4}" x2="{x0}" y2="{yb}" stroke="#000" '
                 f'stroke-dasharray="4,3"/>')
    for k, sw in enumerate(timeline.get("swings", []), start=1):
        i = int(sw["step"])
        seat = max(range(len(sw["after"])), key=lambda p: abs(sw["after"][p] - sw["before"][p]))
        changes = ", ".join(f"{names[p]} {_percent(sw['before'][p])} \u2192 {_percent(sw['after'][p])}"
                            for p in sw["seats"])
        tip = f"{k}. turn {sw['turn']}, step {i}: {sw['words']} ({changes})"
        x, y = x_of(i), y_of(sw["after"][seat])
        parts.append(f'<g class="swing" data-step="{i}" style="cursor:pointer"><title>{esc(tip)}</title>'
                     f'<circle cx="{x:.1f}" cy="{y:.1f}" r="8" fill="#fffbe0" stroke="#222" stroke-width="1.5"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="10" '
                     f'font-weight="bold" fill="#222">{k}</text></g>')
    parts.append("</svg>")
    return "".join(parts)

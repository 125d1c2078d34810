"""Rendering a state: a text board for terminals ("ansi") and a picture ("rgb_array").

The picture needs Pillow (the ``[viz]`` extra), imported only when a picture is drawn.
Both show public information only (hands as counts), so they are safe to show players.
"""
import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .core import layout as L
from .core import cards as R
from .core.topology import (EDGE_VERTICES, HEX_VERTICES, HEX_XY, N_EDGES, N_HEXES, N_PORTS, N_VERTICES, VERTEX_XY)
from .core.board import port_vertices
from .core.tables import DICE_WAYS

TERRAIN_COLOURS = {0: (186, 88, 52), 1: (34, 120, 50), 2: (150, 208, 96), 3: (236, 200, 70),
                   4: (130, 130, 140), 5: (222, 204, 150)}
PLAYER_COLOURS = [(220, 40, 40), (40, 90, 220), (245, 140, 20), (240, 240, 240)]
PLAYER_NAMES = ["red", "blue", "orange", "white"]
PORT_LABEL = ("2:1 B", "2:1 L", "2:1 W", "2:1 G", "2:1 O", "3:1")
TERRAIN_SHORT = ("HIL", "FOR", "PAS", "FLD", "MTN", "DES")
RES_SHORT = ("B", "L", "W", "G", "O")


def _status_lines(s: np.ndarray) -> List[str]:
    n = int(s[L.OPT_PLAYERS])
    phase = L.PHASE_NAMES[int(s[L.PHASE])]
    lines = [f"turn {int(s[L.TURN])}  phase {phase}  turn player {int(s[L.TURN_PLAYER])}  "
             f"decider {int(R.current_decider(s))}  last roll {int(s[L.LAST_ROLL]) or '-'}"]
    for p in range(n):
        tags = []
        if s[L.LR_HOLDER] == p:
            tags.append("LongestRoad")
        if s[L.LA_HOLDER] == p:
            tags.append("LargestArmy")
        dev = int(L.view(s, "dev_hand")[p].sum())
        lines.append(
            f"P{p} {PLAYER_NAMES[p]:6s} VP {int(s[L.PUBLIC_VP + p]):2d}  cards {int(R.hand_size(s, p)):2d}"
            f"  dev {dev}  knights {int(s[L.KNIGHTS + p])}  road {int(s[L.ROAD_LEN + p]):2d}"
            f"  left r/s/c {int(s[L.ROADS_LEFT + p])}/{int(s[L.SETTLEMENTS_LEFT + p])}/"
            f"{int(s[L.CITIES_LEFT + p])} {' '.join(tags)}")
    bank = " ".join(f"{RES_SHORT[r]}{int(s[L.BANK + r])}" for r in range(L.N_RES))
    lines.append(f"bank {bank}  deck {int(L.view(s, 'deck').sum())}")
    if s[L.PHASE] == L.PH_GAME_OVER:
        lines.append(f"GAME OVER: P{int(s[L.WINNER])} wins")
    return lines


def render_ansi(s: np.ndarray) -> str:
    """A text board: each hex as terrain/number, robber '*', then buildings per hex corner
    and each player's public state."""
    rows = [3, 4, 5, 4, 3]
    out = []
    h = 0
    for i, width in enumerate(rows):
        cells = []
        for _ in range(width):
            num = int(s[L.HEX_NUMBER + h])
            rob = "*" if s[L.ROBBER] == h else " "
            cells.append(f"[{h:2d} {TERRAIN_SHORT[int(s[L.HEX_TERRAIN + h])]} {num if num else '--':>2}{rob}]")
            h += 1
        out.append(" " * (5 - width) * 6 + "".join(cells))
    out.append("")
    builds = []
    for p in range(int(s[L.OPT_PLAYERS])):
        sett = [v for v in range(N_VERTICES) if s[L.V_OWNER + v] == p and s[L.V_LEVEL + v] == 1]
        city = [v for v in range(N_VERTICES) if s[L.V_OWNER + v] == p and s[L.V_LEVEL + v] == 2]
        roads = [e for e in range(N_EDGES) if s[L.E_OWNER + e] == p]
        builds.append(f"P{p} settlements {sett} cities {city} roads {roads}")
    pv = port_vertices(s)
    ports = ", ".join(f"{PORT_LABEL[int(s[L.PORT_TYPE + i])]}@v{pv[i, 0]}/{pv[i, 1]}"
                      for i in range(N_PORTS))
    return "\n".join(out + builds + ["harbours: " + ports] + _status_lines(s))


SCALE = 50.0  # pixels per half unit (x) ; hex side = 2 half units in y


def board_px(x: float, y: float, ox: float, oy: float) -> Tuple[float, float]:
    """Pixel position of a point given in the topology's half units, board origin (ox, oy)."""
    return (ox + x * SCALE * math.sqrt(3) / 2, oy + y * SCALE / 2)


def vertex_px(v: int, ox: float, oy: float) -> Tuple[float, float]:
    """Pixel position of vertex v, board origin (ox, oy)."""
    return board_px(VERTEX_XY[v, 0], VERTEX_XY[v, 1], ox, oy)


def harbour_geometry(s: np.ndarray, i: int, ox: float, oy: float, offset: float = 26
                     ) -> Tuple[Tuple[float, float], Tuple[float, float], Tuple[float, float]]:
    """Pixel points of harbour slot i of state s: its two vertices and the label point
    beyond the coast (shared by the PNG and the HTML renders)."""
    a, b = (vertex_px(v, ox, oy) for v in port_vertices(s)[i])
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = mx - ox, my - oy
    norm = math.hypot(dx, dy) or 1.0
    return a, b, (mx + dx / norm * offset, my + dy / norm * offset)


def render_rgb(s: np.ndarray, width: int = 960, height: int = 640,
               labels: Optional[Dict[int, str]] = None) -> np.ndarray:
    """A picture of the board (uint8 H x W x 3): terrain colours, numbers with pips,
    harbours, roads, settlements (small squares) and cities (large), robber, and a side
    panel with every player's public state and a legend.  labels: optional
    {vertex: text} tags drawn beside vertices."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError("rgb_array rendering needs Pillow: pip install 'catan_env[viz]'") from exc
    img = Image.new("RGB", (width, height), (40, 110, 180))
    d = ImageDraw.Draw(img)
    ox, oy = 300, 320
    for h in range(N_HEXES):
        pts = [vertex_px(v, ox, oy) for v in HEX_VERTICES[h]]
        d.polygon(pts, fill=TERRAIN_COLOURS[int(s[L.HEX_TERRAIN + h])], outline=(30, 30, 30))
        cx, cy = board_px(HEX_XY[h, 0], HEX_XY[h, 1], ox, oy)
        num = int(s[L.HEX_NUMBER + h])
        if num:
            d.ellipse([cx - 15, cy - 15, cx + 15, cy + 15], fill=(250, 240, 210), outline=(0, 0, 0))
            colour = (200, 0, 0) if num in (6, 8) else (0, 0, 0)
            d.text((cx, cy - 3), str(num), fill=colour, font=_font(15), anchor="mm")
            pips = int(DICE_WAYS[num])
            for k in range(pips):
                px = cx - (pips - 1) * 2.5 + k * 5
                d.ellipse([px - 1.5, cy + 5, px + 1.5, cy + 8], fill=colour)
        if s[L.ROBBER] == h:
            d.ellipse([cx + 8, cy - 22, cx + 22, cy - 8], fill=(20, 20, 20))
    for i in range(N_PORTS):
        a, b, (tx, ty) = harbour_geometry(s, i, ox, oy)
        d.line([a, (tx, ty), b], fill=(110, 80, 40), width=3)
        d.text((tx, ty), PORT_LABEL[int(s[L.PORT_TYPE + i])], fill=(255, 255, 255), font=_font(12),
               anchor="mm", stroke_width=2, stroke_fill=(40, 60, 90))
    if labels:  # under the pieces, so a tag never hides a building
        _draw_labels(d, labels, ox, oy)
    for e in range(N_EDGES):
        o = int(s[L.E_OWNER + e])
        if o >= 0:
            a, b = (vertex_px(v, ox, oy) for v in EDGE_VERTICES[e])
            d.line([a, b], fill=(0, 0, 0), width=9)
            d.line([a, b], fill=PLAYER_COLOURS[o], width=6)
    for v in range(N_VERTICES):
        o = int(s[L.V_OWNER + v])
        if o >= 0:
            x, y = vertex_px(v, ox, oy)
            r = 7 if s[L.V_LEVEL + v] == 1 else 11
            d.rectangle([x - r, y - r, x + r, y + r], fill=PLAYER_COLOURS[o], outline=(0, 0, 0), width=2)
    _side_panel(d, s, 600, width, height)
    return np.asarray(img, dtype=np.uint8)


def _font(size: int) -> Any:
    from PIL import ImageFont
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: one fixed size
        return ImageFont.load_default()


def _side_panel(d: Any, s: np.ndarray, x0: int, width: int, height: int) -> None:
    """Public state, one block per player (a colour swatch, never coloured text), the bank
    and a legend of the board's symbols."""
    d.rectangle([x0, 0, width, height], fill=(245, 245, 240))
    big, small = _font(15), _font(13)
    x = x0 + 14
    y = 12
    phase = L.PHASE_NAMES[int(s[L.PHASE])].replace("_", " ")
    roll = int(s[L.LAST_ROLL])
    d.text((x, y), f"turn {int(s[L.TURN])}, {phase}" + (f", last roll {roll}" if roll else ""),
           fill=(0, 0, 0), font=big)
    y += 26
    for p in range(int(s[L.OPT_PLAYERS])):
        d.rectangle([x, y + 2, x + 14, y + 16], fill=PLAYER_COLOURS[p], outline=(0, 0, 0))
        tags = [t for t, on in (("longest road", s[L.LR_HOLDER] == p), ("largest army", s[L.LA_HOLDER] == p)) if on]
        mover = "  (to play)" if int(R.current_decider(s)) == p else ""
        d.text((x + 22, y), f"{PLAYER_NAMES[p]}  {int(s[L.PUBLIC_VP + p])} VP{mover}", fill=(0, 0, 0), font=big)
        y += 21
        d.text((x + 22, y), f"{int(R.hand_size(s, p))} cards, {int(L.view(s, 'dev_hand')[p].sum())} dev, "
               f"{int(s[L.KNIGHTS + p])} knights, road {int(s[L.ROAD_LEN + p])}", fill=(40, 40, 40), font=small)
        y += 17
        d.text((x + 22, y), f"left: {int(s[L.ROADS_LEFT + p])} roads, {int(s[L.SETTLEMENTS_LEFT + p])} "
               f"settlements, {int(s[L.CITIES_LEFT + p])} cities", fill=(40, 40, 40), font=small)
        y += 17
        if tags:
            d.text((x + 22, y), ", ".join(tags), fill=(120, 60, 0), font=small)
            y += 17
        y += 8
    bank = ", ".join(f"{RES_SHORT[r]} {int(s[L.BANK + r])}" for r in range(L.N_RES))
    d.text((x, y), f"bank: {bank}", fill=(0, 0, 0), font=small)
    y += 17
    d.text((x, y), f"development deck: {int(L.view(s, 'deck').sum())}", fill=(0, 0, 0), font=small)
    y += 17
    if s[L.PHASE] == L.PH_GAME_OVER:
        d.text((x, y + 4), f"game over: {PLAYER_NAMES[int(s[L.WINNER])]} wins", fill=(160, 0, 0), font=big)
    # legend
    y = height - 118
    d.text((x, y), "legend", fill=(0, 0, 0), font=big)
    y += 22
    d.rectangle([x + 3, y + 3, x + 11, y + 11], fill=(180, 180, 180), outline=(0, 0, 0), width=2)
    d.text((x + 22, y), "settlement", fill=(0, 0, 0), font=small)
    d.rectangle([x + 120, y, x + 134, y + 14], fill=(180, 180, 180), outline=(0, 0, 0), width=2)
    d.text((x + 142, y), "city", fill=(0, 0, 0), font=small)
    d.ellipse([x + 190, y, x + 204, y + 14], fill=(20, 20, 20))
    d.text((x + 212, y), "robber", fill=(0, 0, 0), font=small)
    y += 20
    d.line([x, y + 7, x + 14, y + 7], fill=(110, 80, 40), width=3)
    d.text((x + 22, y), "harbour: 2:1 B/L/W/G/O (that resource) or 3:1", fill=(0, 0, 0), font=small)
    y += 18
    d.text((x + 22, y), "B brick, L lumber, W wool, G grain, O ore", fill=(0, 0, 0), font=small)
    y += 18
    d.text((x + 22, y), "red numbers (6, 8) roll most often; dots = odds", fill=(0, 0, 0), font=small)


def _draw_labels(d: Any, labels: Dict[int, str], ox: float, oy: float) -> None:
    """Text tags next to vertices: {vertex: "1st P0"}, for the opening-solver picture."""
    font = _font(13)
    for v, text in labels.items():
        x, y = vertex_px(v, ox, oy)
        w = d.textlength(text, font=font)
        d.rectangle([x + 8, y - 22, x + 14 + w, y - 6], fill=(255, 255, 230), outline=(0, 0, 0))
        d.text((x + 11, y - 22), text, fill=(0, 0, 0), font=font)

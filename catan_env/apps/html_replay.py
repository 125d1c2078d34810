"""A recorded game as one self-contained, offline HTML page a person can watch.

``write_html(record, "game.html")`` (or ``catan-render game.json --html game.html``)
writes an SVG board drawn as in the PNG renders (same geometry and colours), play/pause,
a step slider, the move list with action names (click to jump), and every player's
public state at each step.  For a finished game, a chart below shows each seat's chance to
win along the game as the value network estimates it from that seat's own view
(``catan_env.apps.win_chart``): the step controls move a cursor along it and clicking a marked
swing jumps there.  The page has no external resources: data, script and style are
inline.  ``game.html#step=120`` opens at step 120; ``#play`` starts playing.
"""
import html
import json
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..core import layout as L
from ..core.cards import hand_size
from ..core.tables import DICE_WAYS
from ..core.topology import EDGE_VERTICES, HEX_VERTICES, HEX_XY, N_PORTS, VERTEX_XY
from ..core.record import GameRecord
from ..render import PLAYER_COLOURS, TERRAIN_COLOURS, board_px, harbour_geometry
from ..playback import RecordLike, load_record, replay
from ..core.actions import action_name
from ..words import event_words, harbour_label, phase_words, player_name


OX, OY = 300, 320  # board origin, as in render_rgb


def pixel(x: float, y: float) -> Tuple[float, float]:
    """render's pixel mapping with the same origin, rounded for a compact page."""
    px, py = board_px(x, y, OX, OY)
    return round(px, 1), round(py, 1)


def _rgb(c: Sequence[int]) -> str:
    return f"rgb({c[0]},{c[1]},{c[2]})"


TERRAIN_TEXT = ("#fff", "#fff", "#1e1e1e", "#1e1e1e", "#fff", "#1e1e1e")  # word colour on each terrain
HARBOUR_OFFSET = 30  # label distance beyond the coast


def board_svg(s: np.ndarray) -> str:
    """SVG of what never changes: hexes named by what they produce (so terrain reads
    without the colour code), number tokens with pips (6 and 8 red), harbours with their
    rate and resource.  In render's pixel frame (board centre at OX, OY); the replay page
    crops it with :func:`board_viewbox`, the browser play page draws it as it is."""
    parts = []
    for h in range(len(HEX_VERTICES)):
        terrain = int(s[L.HEX_TERRAIN + h])
        pts = " ".join(f"{x},{y}" for x, y in (pixel(*VERTEX_XY[v]) for v in HEX_VERTICES[h]))
        parts.append(f'<polygon points="{pts}" fill="{_rgb(TERRAIN_COLOURS[terrain])}" stroke="#f3e7c4" '
                     f'stroke-width="2" stroke-linejoin="round"/>')
        num = int(s[L.HEX_NUMBER + h])
        cx, cy = pixel(*HEX_XY[h])
        word = L.RESOURCE_NAMES[terrain] if terrain < L.N_RES else "desert"
        parts.append(f'<text x="{cx}" y="{cy - 24 if num else cy + 4}" text-anchor="middle" font-size="11" '
                     f'font-family="sans-serif" fill="{TERRAIN_TEXT[terrain]}" class="terrain">{word}</text>')
        if num:
            colour = "#c80000" if num in (6, 8) else "#1e1e1e"
            parts.append(f'<circle cx="{cx}" cy="{cy + 4}" r="16" fill="#faf0d2" stroke="#3c3228" stroke-width="1.5"/>'
                         f'<text x="{cx}" y="{cy + 8}" text-anchor="middle" font-size="15" font-family="sans-serif" '
                         f'font-weight="bold" fill="{colour}" class="number">{num}</text>')
            pips = int(DICE_WAYS[num])
            for k in range(pips):
                px = cx - (pips - 1) * 2 + k * 4
                parts.append(f'<circle cx="{px:.1f}" cy="{cy + 14}" r="1.4" fill="{colour}"/>')
    for i in range(N_PORTS):
        (ax, ay), (bx, by), (tx, ty) = harbour_geometry(s, i, OX, OY, offset=HARBOUR_OFFSET)
        ax, ay, bx, by = (round(c, 1) for c in (ax, ay, bx, by))
        port = int(s[L.PORT_TYPE + i])
        label = harbour_label(port)
        w = 8 + 6.4 * len(label)
        fill = "#fffaf0" if port == L.GENERIC_PORT else _rgb(TERRAIN_COLOURS[port])
        ink = "#1e1e1e" if port == L.GENERIC_PORT else TERRAIN_TEXT[port]
        parts.append(f'<g class="harbour"><polyline points="{ax},{ay} {tx:.1f},{ty:.1f} {bx},{by}" fill="none" '
                     f'stroke="#6e5028" stroke-width="3" stroke-linecap="round"/>'
                     f'<rect x="{tx - w / 2:.1f}" y="{ty - 9:.1f}" width="{w:.1f}" height="18" rx="4" '
                     f'fill="{fill}" stroke="#3c2a14" stroke-width="1.2"/>'
                     f'<text x="{tx:.1f}" y="{ty + 4:.1f}" text-anchor="middle" font-size="11" font-family="sans-serif" '
                     f'font-weight="bold" fill="{ink}">{label}</text></g>')
    return "".join(parts)


def board_viewbox(s: np.ndarray, pad: int = 8) -> str:
    """The SVG viewBox "x y w h" that holds the board of s and its harbour labels with
    ``pad`` pixels to spare (the board drawn by :func:`board_svg`, no dead space)."""
    xs = [pixel(*VERTEX_XY[v])[0] for v in range(len(VERTEX_XY))]
    ys = [pixel(*VERTEX_XY[v])[1] for v in range(len(VERTEX_XY))]
    for i in range(N_PORTS):
        _, _, (tx, ty) = harbour_geometry(s, i, OX, OY, offset=HARBOUR_OFFSET)
        half = (8 + 6.4 * len(harbour_label(int(s[L.PORT_TYPE + i])))) / 2
        xs += [tx - half, tx + half]
        ys += [ty - 9, ty + 9]
    x0, y0 = int(min(xs) - pad), int(min(ys) - pad)
    return f"{x0} {y0} {int(max(xs) + pad) - x0 + 1} {int(max(ys) + pad) - y0 + 1}"


def _public(s: np.ndarray) -> List[List[int]]:
    """Every player's public state: [VP, cards, dev cards, knights, road, roads left,
    settlements left, cities left, longest road, largest army]."""
    n = int(s[L.OPT_PLAYERS])
    return [[int(s[L.PUBLIC_VP + p]), int(hand_size(s, p)), int(L.view(s, "dev_hand")[p].sum()),
             int(s[L.KNIGHTS + p]), int(s[L.ROAD_LEN + p]), int(s[L.ROADS_LEFT + p]),
             int(s[L.SETTLEMENTS_LEFT + p]), int(s[L.CITIES_LEFT + p]),
             int(s[L.LR_HOLDER] == p), int(s[L.LA_HOLDER] == p)] for p in range(n)]


def game_data(record: RecordLike) -> Tuple[Dict[str, Any], np.ndarray]:
    """The page's data: geometry, the initial pieces and per-step changes."""
    steps = []
    prev = None
    first = None
    actor = -1
    before: Optional[np.ndarray] = None
    for st in replay(record):
        s = st.state
        said = "The start" if before is None else \
            " ".join(event_words(before, s, actor, st.action, None)) or action_name(st.action)
        before = s.copy()
        pieces = (L.view(s, "v_owner").tolist(), L.view(s, "v_level").tolist(),
                  L.view(s, "e_owner").tolist())
        if prev is None:
            first = s.copy()
            changes = None
        else:
            changes = {"v": [[v, pieces[0][v], pieces[1][v]] for v in range(len(pieces[0]))
                             if (pieces[0][v], pieces[1][v]) != (prev[0][v], prev[1][v])],
                       "e": [[e, pieces[2][e]] for e in range(len(pieces[2])) if pieces[2][e] != prev[2][e]]}
        prev = pieces
        steps.append({"a": said, "by": actor, "d": changes, "r": int(s[L.ROBBER]),
                      "t": int(s[L.TURN]), "tp": int(s[L.TURN_PLAYER]),
                      "ph": phase_words(s), "roll": int(s[L.LAST_ROLL]),
                      "p": _public(s), "w": int(s[L.WINNER]),
                      "bank": L.view(s, "bank").tolist(), "deck": int(L.view(s, "deck").sum())})
        actor = int(s[L.DECIDER]) if s[L.PHASE] != L.PH_GAME_OVER else -1
    if first is None:  # (a replay yields the initial position at least)
        raise ValueError("the record replays to no position")
    n = int(first[L.OPT_PLAYERS])
    return {
        "vertices": [pixel(*VERTEX_XY[v]) for v in range(len(VERTEX_XY))],
        "edges": [[int(a), int(b)] for a, b in EDGE_VERTICES],
        "hexes": [pixel(*HEX_XY[h]) for h in range(len(HEX_XY))],
        "colours": [_rgb(c) for c in PLAYER_COLOURS[:n]], "names": [player_name(p) for p in range(n)],
        "init": {"v": [[v, o, lv] for v, (o, lv) in enumerate(zip(L.view(first, "v_owner").tolist(),
                                                                   L.view(first, "v_level").tolist()))
                       if o >= 0],
                 "e": [[e, o] for e, o in enumerate(L.view(first, "e_owner").tolist()) if o >= 0]},
        "steps": steps,
    }, first


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body { font-family: sans-serif; margin: 12px; background: #f4f4f0; color: #222; }
#wrap { display: flex; gap: 16px; align-items: flex-start; }
#board { background: #286eb4; border-radius: 6px; }
#winchart { margin-top: 12px; }
#winchart h4 { margin: 4px 0; }
#wc-now { font-size: 13px; margin: 4px 0; min-height: 1.2em; }
#wc-swings { font-size: 13px; margin: 4px 0; padding-left: 24px; max-width: 900px; }
#wc-swings li { cursor: pointer; }
#wc-swings li:hover, .swing:hover circle { background: #ffe28a; fill: #ffe28a; }
.note { font-size: 13px; color: #8a4b00; }
#winchart .sub { font-size: 12px; color: #555; margin-bottom: 4px; }
#side { min-width: 380px; }
#controls { margin: 8px 0; display: flex; gap: 8px; align-items: center; }
#slider { width: 420px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 2px 6px; text-align: right; border-bottom: 1px solid #ddd; }
td.name { text-align: left; font-weight: bold; }
.swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #000; margin-right: 5px; }
#moves { height: 300px; overflow-y: auto; font: 12px monospace; background: #fff;
         border: 1px solid #ccc; margin: 0; padding: 4px 4px 4px 48px; }
#moves li { cursor: pointer; }
#moves li.cur { background: #ffe28a; }
#status { font-size: 14px; margin: 6px 0; }
.legend span { display: inline-block; margin-right: 10px; font-size: 12px; }
</style></head><body>
<h3>__TITLE__</h3>
<div id="controls">
<button id="play">&#9654; play</button>
<button id="prev">&#9664;</button><button id="next">&#9654;|</button>
<input id="slider" type="range" min="0" value="0">
<span id="stepno"></span>
<select id="speed"><option value="500">slow</option><option value="120" selected>normal</option>
<option value="20">fast</option></select>
</div>
<div id="wrap">
<svg id="board" width="__BW__" height="__BH__" viewBox="__VIEWBOX__">
<g id="static">__STATIC__</g><g id="roads"></g><g id="buildings"></g><g id="robber"></g>
</svg>
<div id="side">
<div id="status"></div>
<table id="players"><thead><tr><th></th><th>VP</th><th>cards</th><th>dev</th><th>knights</th>
<th>road</th><th>roads/setts/cities left</th><th></th></tr></thead><tbody></tbody></table>
<div id="bank" style="font-size:13px;margin:6px 0"></div>
<div class="legend"><span>&#9632; small square: settlement</span><span>&#9632; large square: city</span>
<span>&#9679; black disc: robber</span><br><span>each hex is named by the resource it produces</span><span>red 6 and 8 roll most often; dots = odds</span><br><span>harbour badges: 3:1 = 3 of a kind for 1, 2:1 wool = 2 wool for 1</span></div>
<h4>Moves</h4><ol id="moves" start="0"></ol>
</div></div>
__CHART__
<script id="game-data" type="application/json">__DATA__</script>
<script>
const G = JSON.parse(document.getElementById("game-data").textContent);
const N = G.steps.length, NS = "http://www.w3.org/2000/svg";
const RES = ["brick", "lumber", "wool", "grain", "ore"];
// full piece arrays per step, built once from the initial pieces and the changes
const vo = new Array(G.vertices.length).fill(-1), vl = new Array(G.vertices.length).fill(0);
const eo = new Array(G.edges.length).fill(-1);
for (const [v, o, l] of G.init.v) { vo[v] = o; vl[v] = l; }
for (const [e, o] of G.init.e) { eo[e] = o; }
const snaps = [];
for (let i = 0; i < N; i++) {
  const d = G.steps[i].d;
  if (d) { for (const [v, o, l] of d.v) { vo[v] = o; vl[v] = l; } for (const [e, o] of d.e) { eo[e] = o; } }
  snaps.push({vo: vo.slice(), vl: vl.slice(), eo: eo.slice()});
}
const slider = document.getElementById("slider");
slider.max = N - 1;
const moves = document.getElementById("moves");
G.steps.forEach((st, i) => {
  const li = document.createElement("li");
  li.textContent = st.a;
  li.onclick = () => show(i);
  moves.appendChild(li);
});
function el(tag, attrs) { const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]); return e; }
let cur = 0, timer = null;
function show(i) {
  cur = Math.max(0, Math.min(N - 1, i));
  const s = snaps[cur], st = G.steps[cur];
  const roads = document.getElementById("roads"), builds = document.getElementById("buildings");
  roads.replaceChildren(); builds.replaceChildren();
  s.eo.forEach((o, e) => { if (o < 0) return;
    const [a, b] = G.edges[e], [x1, y1] = G.vertices[a], [x2, y2] = G.vertices[b];
    roads.appendChild(el("line", {x1, y1, x2, y2, stroke: "#000", "stroke-width": 9, class: "road"}));
    roads.appendChild(el("line", {x1, y1, x2, y2, stroke: G.colours[o], "stroke-width": 6}));
  });
  s.vo.forEach((o, v) => { if (o < 0) return;
    const [x, y] = G.vertices[v], r = s.vl[v] === 2 ? 11 : 7;
    builds.appendChild(el("rect", {x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: G.colours[o],
      stroke: "#000", "stroke-width": 2, class: s.vl[v] === 2 ? "city" : "settlement"}));
  });
  const [hx, hy] = G.hexes[st.r];
  document.getElementById("robber").replaceChildren(el("circle", {cx: hx + 26, cy: hy - 12, r: 8,
    fill: "#141414", stroke: "#fff", "stroke-width": 1.5, id: "robber-disc"}));
  slider.value = cur;
  document.getElementById("stepno").textContent = "step " + cur + " / " + (N - 1);
  document.getElementById("status").textContent = (st.t ? "Turn " + st.t + ": " : "") + st.ph
    + (st.roll ? " (last roll " + st.roll + ")" : "");
  const body = document.querySelector("#players tbody"); body.replaceChildren();
  st.p.forEach((p, k) => { const tr = document.createElement("tr");
    const tags = (p[8] ? "Longest Road " : "") + (p[9] ? "Largest Army" : "");
    tr.innerHTML = "<td class=name><span class=swatch style='background:" + G.colours[k] + "'></span>"
      + G.names[k] + "</td><td>" + p[0] + "</td><td>" + p[1] + "</td><td>" + p[2] + "</td><td>" + p[3] + "</td><td>"
      + p[4] + "</td><td>" + p[5] + "/" + p[6] + "/" + p[7] + "</td><td>" + tags + "</td>";
    body.appendChild(tr); });
  document.getElementById("bank").textContent = "bank: " + st.bank.map((c, r) => RES[r] + " " + c).join(", ")
    + "; development deck " + st.deck;
  moves.querySelectorAll("li.cur").forEach(li => li.classList.remove("cur"));
  const li = moves.children[cur]; li.classList.add("cur");
  li.scrollIntoView({block: "nearest"});
  if (wcCursor) {
    const xs = wcSvg.dataset.xs.split(",");  // each step's x (turns equally wide)
    const x = xs[Math.min(cur, xs.length - 1)];
    wcCursor.setAttribute("x1", x); wcCursor.setAttribute("x2", x);
    document.getElementById("wc-now").textContent = "at step " + cur + ", each seat's own estimate: "
      + G.win.pct.map((c, k) => G.names[k] + " " + c[cur] + "%").join(", ");
  }
  document.body.setAttribute("data-step", cur);
}
const wcSvg = document.querySelector("#winchart svg.win-chart");
const wcCursor = wcSvg ? wcSvg.querySelector(".wc-cursor") : null;
document.querySelectorAll("#winchart [data-step]").forEach(m => m.addEventListener("click", () => show(+m.dataset.step)));
function play() { if (timer) { clearInterval(timer); timer = null; playBtn.textContent = "\u25B6 play"; return; }
  playBtn.textContent = "\u275A\u275A pause";
  timer = setInterval(() => { if (cur >= N - 1) { play(); return; } show(cur + 1); },
                      +document.getElementById("speed").value); }
const playBtn = document.getElementById("play");
playBtn.onclick = play;
document.getElementById("prev").onclick = () => show(cur - 1);
document.getElementById("next").onclick = () => show(cur + 1);
slider.oninput = () => show(+slider.value);
const m = /step=(\\d+)/.exec(location.hash);
show(m ? +m[1] : 0);
if (/play/.test(location.hash)) play();
</script></body></html>
"""


def _win_chart(record: GameRecord, data: Dict[str, Any], network: Any) -> Tuple[str, Optional[Dict[str, Any]]]:
    """The chart section for a finished game and the data its cursor reads, or (a note
    saying why there is none, None) when the value network cannot be loaded."""
    from .win_chart import chart_svg, default_network, win_timeline
    if network is None:
        try:
            network = default_network()
        except (ImportError, ValueError, OSError) as exc:
            reason = f"the value network cannot be loaded ({type(exc).__name__}: {exc})"
            warnings.warn(f"HTML replay written without the win-chance chart: {reason}", stacklevel=3)
            return f'<p class="note" id="winchart-missing">No win-chance chart: {html.escape(reason)}</p>', None
    tl = win_timeline(record, network)
    names, colours = data["names"], data["colours"]
    items = "".join(
        f'<li data-step="{sw["step"]}">turn {sw["turn"]}: {html.escape(sw["words"])} ('
        + ", ".join(f"{names[p]} {100 * sw['before'][p]:.0f}% &#8594; {100 * sw['after'][p]:.0f}%"
                    for p in sw["seats"]) + ")</li>"
        for sw in tl["swings"])
    section = ('<section id="winchart"><h4>How the game swung</h4><div class="sub">Each seat\'s chance to win '
               'as the value network estimates it from that seat\'s own view (its own cards and what is public). '
               'Click a numbered swing to jump there.</div>' + chart_svg(tl, names, colours, width=920, height=240)
               + '<div id="wc-now"></div><ol id="wc-swings">' + items + '</ol></section>')
    return section, {"pct": [[round(100 * c) for c in series] for series in tl["chances"]]}


def write_html(record: RecordLike, path: Union[str, "os.PathLike[str]"], title: Optional[str] = None,
               win_chart: bool = True, network: Any = None) -> int:
    """Write the page for a record (GameRecord, dict or path); returns the step count.

    For a finished game (one with a winner) the page also shows each seat's chance to win
    along the game (``catan_env.apps.win_chart``), linked to the step controls; ``win_chart=False``
    leaves it out, ``network`` replaces the shipped value network.  If that network cannot be
    loaded the page is written without the chart, with a note on the page and a warning
    saying why.  Nothing about win chances is computed for an unfinished game."""
    record = load_record(record)
    data, first = game_data(record)
    n = int(first[L.OPT_PLAYERS])
    title = title or f"catan_env replay: {n} players, {len(data['steps']) - 1} actions"
    chart = ""
    if win_chart and data["steps"][-1]["w"] >= 0:
        chart, win = _win_chart(record, data, network)
        if win is not None:
            data["win"] = win
    box = board_viewbox(first)
    bw, bh = box.split()[2:]
    text = (PAGE.replace("__TITLE__", html.escape(title))
            .replace("__VIEWBOX__", box).replace("__BW__", bw).replace("__BH__", bh)
            .replace("__STATIC__", board_svg(first))
            .replace("__CHART__", chart)
            .replace("__DATA__", json.dumps(data, separators=(",", ":")).replace("</", "<\\/")))
    tmp = f"{os.fspath(path)}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return len(data["steps"])

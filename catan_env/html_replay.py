"""A recorded game as one self-contained, offline HTML page a person can watch.

``write_html(record, "game.html")`` (or ``catan-render game.json --html game.html``)
writes an SVG board drawn as in the PNG renders (same geometry and colours), play/pause,
a step slider, the move list with action names (click to jump), and every player's
public state at each step.  The page has no external resources: data, script and style
are inline.  ``game.html#step=120`` opens at step 120; ``#play`` starts playing.
"""
import html
import json
import os

from .core import layout as L
from .core.cards import hand_size
from .core.tables import DICE_WAYS
from .core.topology import EDGE_VERTICES, HEX_VERTICES, HEX_XY, N_PORTS, VERTEX_XY
from .render import (PLAYER_COLOURS, PLAYER_NAMES, PORT_LABEL, TERRAIN_COLOURS, board_px,
                     harbour_geometry)

from .playback import replay

OX, OY = 300, 320  # board origin, as in render_rgb


def _px(x, y):
    """render's pixel mapping with the same origin, rounded for a compact page."""
    px, py = board_px(x, y, OX, OY)
    return round(px, 1), round(py, 1)


def _rgb(c):
    return f"rgb({c[0]},{c[1]},{c[2]})"


def _static_board(s):
    """SVG of what never changes: hexes, numbers with pips, harbours."""
    parts = []
    for h in range(len(HEX_VERTICES)):
        pts = " ".join(f"{x},{y}" for x, y in (_px(*VERTEX_XY[v]) for v in HEX_VERTICES[h]))
        parts.append(f'<polygon points="{pts}" fill="{_rgb(TERRAIN_COLOURS[int(s[L.HEX_TERRAIN + h])])}" '
                     f'stroke="#1e1e1e"/>')
        num = int(s[L.HEX_NUMBER + h])
        cx, cy = _px(*HEX_XY[h])
        if num:
            colour = "#c80000" if num in (6, 8) else "#000"
            parts.append(f'<circle cx="{cx}" cy="{cy}" r="15" fill="#faf0d2" stroke="#000"/>'
                         f'<text x="{cx}" y="{cy + 3}" text-anchor="middle" font-size="13" '
                         f'font-weight="bold" fill="{colour}">{num}</text>')
            pips = int(DICE_WAYS[num])
            for k in range(pips):
                px = cx - (pips - 1) * 2.5 + k * 5
                parts.append(f'<circle cx="{px:.1f}" cy="{cy + 8}" r="1.5" fill="{colour}"/>')
    for i in range(N_PORTS):
        (ax, ay), (bx, by), (tx, ty) = harbour_geometry(s, i, OX, OY)
        ax, ay, bx, by = (round(c, 1) for c in (ax, ay, bx, by))
        parts.append(f'<polyline points="{ax},{ay} {tx:.1f},{ty:.1f} {bx},{by}" fill="none" '
                     f'stroke="#6e5028" stroke-width="3"/>'
                     f'<text x="{tx:.1f}" y="{ty + 4:.1f}" text-anchor="middle" font-size="11" '
                     f'fill="#fff" stroke="#333" stroke-width="0.3">{PORT_LABEL[int(s[L.PORT_TYPE + i])]}</text>')
    return "".join(parts)


def _public(s):
    """Every player's public state: [VP, cards, dev cards, knights, road, roads left,
    settlements left, cities left, longest road, largest army]."""
    n = int(s[L.OPT_PLAYERS])
    return [[int(s[L.PUBLIC_VP + p]), int(hand_size(s, p)), int(L.view(s, "dev_hand")[p].sum()),
             int(s[L.KNIGHTS + p]), int(s[L.ROAD_LEN + p]), int(s[L.ROADS_LEFT + p]),
             int(s[L.SETTLEMENTS_LEFT + p]), int(s[L.CITIES_LEFT + p]),
             int(s[L.LR_HOLDER] == p), int(s[L.LA_HOLDER] == p)] for p in range(n)]


def game_data(record):
    """The page's data: geometry, the initial pieces and per-step changes."""
    steps = []
    prev = None
    first = None
    actor = -1
    for st in replay(record):
        s = st.state
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
        steps.append({"a": st.action_name, "by": actor, "d": changes, "r": int(s[L.ROBBER]),
                      "t": int(s[L.TURN]), "tp": int(s[L.TURN_PLAYER]),
                      "ph": L.PHASE_NAMES[int(s[L.PHASE])], "roll": int(s[L.LAST_ROLL]),
                      "p": _public(s), "w": int(s[L.WINNER]),
                      "bank": L.view(s, "bank").tolist(), "deck": int(L.view(s, "deck").sum())})
        actor = int(s[L.DECIDER]) if s[L.PHASE] != L.PH_GAME_OVER else -1
    n = int(first[L.OPT_PLAYERS])
    return {
        "vertices": [_px(*VERTEX_XY[v]) for v in range(len(VERTEX_XY))],
        "edges": [[int(a), int(b)] for a, b in EDGE_VERTICES],
        "hexes": [_px(*HEX_XY[h]) for h in range(len(HEX_XY))],
        "colours": [_rgb(c) for c in PLAYER_COLOURS[:n]], "names": PLAYER_NAMES[:n],
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
<svg id="board" width="620" height="640" viewBox="0 0 620 640">
<g id="static">__STATIC__</g><g id="roads"></g><g id="buildings"></g><g id="robber"></g>
</svg>
<div id="side">
<div id="status"></div>
<table id="players"><thead><tr><th></th><th>VP</th><th>cards</th><th>dev</th><th>knights</th>
<th>road</th><th>roads/setts/cities left</th><th></th></tr></thead><tbody></tbody></table>
<div id="bank" style="font-size:13px;margin:6px 0"></div>
<div class="legend"><span>&#9632; small square: settlement</span><span>&#9632; large square: city</span>
<span>&#9679; black disc: robber</span><span>brown lines: harbours (2:1 of a resource, or 3:1)</span></div>
<h4>Moves</h4><ol id="moves" start="0"></ol>
</div></div>
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
  li.textContent = (st.by >= 0 ? G.names[st.by] + " " : "") + st.a;
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
  document.getElementById("robber").replaceChildren(el("circle", {cx: hx + 15, cy: hy - 15, r: 7,
    fill: "#141414", id: "robber-disc"}));
  slider.value = cur;
  document.getElementById("stepno").textContent = "step " + cur + " / " + (N - 1);
  document.getElementById("status").textContent = "turn " + st.t + ", " + G.names[st.tp] + " to play, phase "
    + st.ph + (st.roll ? ", last roll " + st.roll : "") + (st.w >= 0 ? " \u2014 " + G.names[st.w] + " wins" : "");
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
  document.body.setAttribute("data-step", cur);
}
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


def write_html(record, path, title=None):
    """Write the page for a record (GameRecord, dict or path); returns the step count."""
    data, first = game_data(record)
    n = int(first[L.OPT_PLAYERS])
    title = title or f"catan_env replay: {n} players, {len(data['steps']) - 1} actions"
    text = (PAGE.replace("__TITLE__", html.escape(title))
            .replace("__STATIC__", _static_board(first))
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

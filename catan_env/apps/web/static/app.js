// The page of one seat (or a spectator): draws what the server sends, sends clicks back.
// Everything a person reads comes from the server in words; ids only travel back.
"use strict";
// The token sits in the address's fragment (#token=...), which a browser sends to no server:
// it travels only as the socket's subprotocol and, for the record's download, a header.
const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
const SVG = "http://www.w3.org/2000/svg";
const DICE = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
const $ = (id) => document.getElementById(id);
let board = null, state = null, version = 0, lastSeq = 0, ws = null, retry = 0;
let logEntries = [];
const noticesShown = [];  // every banner this page showed (a person, or a test, may look back)  // the whole game's log, as this page may read it

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`, ["catan", `token.${token}`]);
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  ws.onopen = () => { retry = 0; };
  ws.onclose = () => {  // a dropped connection: come back (the seat waits for us a while)
    $("status").textContent = "connection lost: reconnecting...";
    setTimeout(connect, Math.min(10000, 500 * 2 ** retry++));
  };
}

function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }
let sent = 0;  // the state a move was sent from: one move per state (a double click sends one)
function act(id) {
  if (!state || sent === state.seq) return;
  sent = state.seq;
  $("error").textContent = ""; $("choose").innerHTML = "";
  document.querySelectorAll("#actions button").forEach((b) => { b.disabled = true; });
  send({type: "act", action: id, seq: state.seq});
}
function svgEl(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function html(tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function moveButton(move, parent, label) {
  const b = html("button", {"data-action": move.id, "data-kind": move.kind}, parent, label || move.words);
  if (move.terms) b.dataset.terms = JSON.stringify(move.terms);
  b.onclick = () => act(move.id);
  return b;
}
function name(seat) { return seat === state.seat ? "you" : board.names[seat]; }
function swatch(seat, parent) {  // a seat's colour (built as a node: no markup from data)
  const s = html("span", {class: "swatch"}, parent);
  s.style.background = board.colours[seat];
  return s;
}
function withSwatch(parent, seat, text) {  // a colour swatch, then text (as text, never markup)
  swatch(seat, parent);
  parent.appendChild(document.createTextNode(` ${text}`));
  return parent;
}

// ---- the board: pieces with dark outlines (white stays visible), hollow rings for legal spots
function drawPieces() {
  const g = $("pieces"); g.innerHTML = "";
  state.e_owner.forEach((o, e) => {
    if (o < 0) return;
    const [a, b] = board.edges[e], [x1, y1] = board.vertices[a], [x2, y2] = board.vertices[b];
    svgEl("line", {x1, y1, x2, y2, stroke: "#111", "stroke-width": 9, "stroke-linecap": "round"}, g);
    svgEl("line", {x1, y1, x2, y2, stroke: board.colours[o], "stroke-width": 6, "stroke-linecap": "round"}, g);
  });
  state.v_owner.forEach((o, v) => {
    if (o < 0) return;
    const [x, y] = board.vertices[v];
    const pts = state.v_level[v] >= 2 ?  // a city: a house with a tower
      [[-14, 11], [14, 11], [14, -3], [3, -3], [3, -11], [-5, -18], [-14, -11]] :
      [[-8, 8], [8, 8], [8, -3], [0, -10], [-8, -3]];
    svgEl("polygon", {points: pts.map(([dx, dy]) => `${x + dx},${y + dy}`).join(" "), fill: board.colours[o],
                      stroke: "#111", "stroke-width": 2, class: "piece"}, g);
  });
  const [rx, ry] = board.hexes[state.robber];
  const robber = svgEl("g", {id: "robber", transform: `translate(${rx + 28},${ry - 4})`}, g);
  svgEl("ellipse", {cx: 0, cy: 10, rx: 9, ry: 4, fill: "#222"}, robber);
  svgEl("path", {d: "M-7,10 Q-8,-2 0,-4 Q8,-2 7,10 Z", fill: "#333", stroke: "#eee", "stroke-width": 1.5}, robber);
  svgEl("circle", {cx: 0, cy: -8, r: 5, fill: "#333", stroke: "#eee", "stroke-width": 1.5}, robber);
  svgEl("title", {}, robber).textContent = "the robber";
}

function drawTargets() {
  const g = $("targets"); g.innerHTML = "";
  const byTarget = new Map();
  for (const a of state.legal) {
    if (!a.target) continue;
    const key = a.target[0] + a.target[1];
    if (!byTarget.has(key)) byTarget.set(key, {target: a.target, moves: []});
    byTarget.get(key).moves.push(a);
  }
  for (const [key, {target, moves}] of byTarget) {
    const [kind, i] = target;
    let t;
    if (kind === "e") {  // the road's place, clicked anywhere along it
      const [a, b] = board.edges[i], [x1, y1] = board.vertices[a], [x2, y2] = board.vertices[b];
      const len = Math.hypot(x2 - x1, y2 - y1), nx = -(y2 - y1) / len * 4, ny = (x2 - x1) / len * 4;
      const sx = (x2 - x1) * 0.18, sy = (y2 - y1) * 0.18;  // short of the corners: they stay clickable
      const pts = [[x1 + sx + nx, y1 + sy + ny], [x2 - sx + nx, y2 - sy + ny], [x2 - sx - nx, y2 - sy - ny], [x1 + sx - nx, y1 + sy - ny]];
      t = svgEl("polygon", {points: pts.map((p) => p.join(",")).join(" "), class: "target edge-target"}, g);
    } else if (kind === "v") {
      const [x, y] = board.vertices[i];
      t = svgEl("circle", {cx: x, cy: y, r: 10, class: "target"}, g);
    } else {  // a hex: a ring around the number token, never over it
      const [x, y] = board.hexes[i];
      t = svgEl("circle", {cx: x, cy: y + 2, r: 25, class: "target hex-target"}, g);
    }
    t.dataset.target = key;
    t.dataset.actions = moves.map((a) => a.id).join(",");
    svgEl("title", {}, t).textContent = moves.map((a) => a.words).join(" / ");
    t.onclick = () => {
      if (moves.length === 1) { act(moves[0].id); return; }
      const box = $("choose"); box.innerHTML = "";
      const hint = document.querySelector("#actions .hint");
      if (hint) hint.textContent = "Choose whom to steal from, just above.";
      html("div", {class: "hint"}, box, "Choose whom to steal from:");
      for (const a of moves) {
        const cards = a.victim !== undefined ? state.players[a.victim].cards : null;
        moveButton(a, box, cards === null ? a.words : `${a.words} (${cards} card${cards === 1 ? "" : "s"})`);
      }
      $("log").scrollTop = $("log").scrollHeight;  // the chooser took room from the log: its end stays in view
    };
  }
}

// ---- the moves that are not on the board: buttons and panels, all in words
function tradePanel(box, title, moves, verb) {
  // pick what you give, then what you get, among the legal trades only
  const panel = html("div", {class: "panel", "data-kind": moves[0].kind}, box);
  html("div", {class: "panel-title"}, panel, title);
  const text = (t) => `${t[0]} ${t[1]}`;
  const gives = [...new Set(moves.map((m) => text(m.terms.give)))];
  const giveSel = html("select", {"aria-label": "you give"}, html("label", {}, panel, "you give "));
  for (const g of gives) html("option", {value: g}, giveSel, g);
  const getSel = html("select", {"aria-label": "you get"}, html("label", {}, panel, " you get "));
  const go = html("button", {"data-kind": moves[0].kind}, panel, verb);
  const choice = () => moves.find((m) => text(m.terms.give) === giveSel.value && text(m.terms.get) === getSel.value);
  const fillGets = () => {
    getSel.innerHTML = "";
    for (const m of moves.filter((m) => text(m.terms.give) === giveSel.value)) html("option", {value: text(m.terms.get)}, getSel, text(m.terms.get));
    update();
  };
  const update = () => {
    const m = choice();
    go.dataset.action = m.id; go.dataset.terms = JSON.stringify(m.terms); go.title = m.words;
  };
  giveSel.onchange = fillGets; getSel.onchange = update;
  go.onclick = () => act(choice().id);
  fillGets();
}

function discardPanel(box) {
  const due = state.players[state.seat].discards;
  const panel = html("div", {class: "panel", id: "discard"}, box);
  html("div", {class: "panel-title"}, panel, `Discard ${due} cards (half your hand, rounded down): choose them all at once`);
  const counts = [0, 0, 0, 0, 0];
  // a first suggestion: from the resources you hold most of
  const hand = state.hand.slice();
  for (let k = 0; k < due; k++) { const r = hand.indexOf(Math.max(...hand)); hand[r]--; counts[r]++; }
  const inputs = board.resources.map((res, r) => {
    const label = html("label", {class: "count"}, panel, `${res} `);
    const input = html("input", {type: "number", min: 0, max: state.hand[r], value: counts[r], name: res}, label);
    input.oninput = () => refresh();
    return input;
  });
  const go = html("button", {"data-discard": "1"}, panel, "");
  const chosen = () => inputs.map((i) => parseInt(i.value || "0", 10));
  const refresh = () => {
    const n = chosen().reduce((a, b) => a + b, 0);
    go.textContent = n === due ? `Discard ${chosen().map((k, r) => k ? `${k} ${board.resources[r]}` : "").filter(Boolean).join(", ")}` : `choose ${due} cards (${n} chosen)`;
    go.disabled = n !== due;
  };
  go.onclick = () => {
    if (sent === state.seq) return;
    sent = state.seq; $("error").textContent = ""; go.disabled = true;
    send({type: "discard", cards: chosen(), seq: state.seq});
  };
  refresh();
}

function drawActions() {
  const box = $("actions"); box.innerHTML = "";
  if (!state.legal.length) return;
  html("div", {class: "panel-title"}, box, "Your move:");
  const onBoard = state.legal.filter((a) => a.target);
  if (onBoard.length) {
    const what = {BUILD_ROAD: "a road's place", BUILD_SETTLEMENT: "a corner", BUILD_CITY: "one of your settlements",
                  MOVE_ROBBER: "a ringed number (the robber's new hex)"};
    const kinds = [...new Set(onBoard.map((a) => what[a.kind] || "a marked spot"))];
    html("div", {class: "hint"}, box, `Click ${kinds.join(" or ")} marked in yellow on the board.`);
  }
  const byKind = new Map();
  for (const a of state.legal) {
    if (a.target) continue;
    if (!byKind.has(a.kind)) byKind.set(a.kind, []);
    byKind.get(a.kind).push(a);
  }
  const take = (kind) => { const list = byKind.get(kind) || []; byKind.delete(kind); return list; };
  if (byKind.has("DISCARD")) { take("DISCARD"); discardPanel(box); }
  const offers = take("TRADE_OFFER"), counters = take("TRADE_COUNTER"), maritime = take("MARITIME_TRADE");
  const buttons = html("div", {class: "buttons"}, box);
  for (const kind of ["ROLL", "TRADE_ACCEPT", "TRADE_CONFIRM", "TRADE_REJECT", "TRADE_CANCEL", "BUY_DEV",
                      "PLAY_KNIGHT", "PLAY_ROAD_BUILDING", "PLAY_MONOPOLY", "PLAY_YEAR_OF_PLENTY"]) {
    const list = take(kind);
    if (list.length > 6) {
      const d = html("details", {"data-kind": kind}, buttons);
      html("summary", {}, d, list[0].words.split(":")[0]);
      for (const a of list) moveButton(a, d);
    } else for (const a of list) moveButton(a, buttons);
  }
  const offersLeft = state.max_offers - state.offers_made;
  if (offers.length) {
    tradePanel(box, `Offer a trade to the other players (${offersLeft} of ${state.max_offers} offers left this turn)`,
               offers, "Offer");
  } else if (state.turn_player === state.seat && state.offers_made >= state.max_offers && byKind.has("END_TURN")) {
    html("div", {class: "hint", id: "offers-used"}, box,
         `You made ${state.offers_made} trade offers this turn, the most a turn allows: no more offers until your next turn.`);
  }
  if (state.offer && state.offer.cannot_accept && state.decider === state.seat) {
    html("div", {class: "hint", id: "cannot-accept"}, box, state.offer.cannot_accept);
  }
  if (counters.length) tradePanel(box, "Or counter with other terms", counters, "Counter");
  if (maritime.length) tradePanel(box, "Trade with the bank (or a harbour)", maritime, "Trade");
  for (const [, list] of byKind) for (const a of list) if (a.kind !== "END_TURN") moveButton(a, buttons);
  for (const a of take("END_TURN")) moveButton(a, html("div", {class: "buttons"}, box));
}

// ---- the side: status, players, bank, own cards, offer, log
function drawSide() {
  const n = state.players.length;
  $("status").innerHTML = "";
  if (state.turn) html("span", {class: "turn"}, $("status"), `Turn ${state.turn} \u2014 `);
  html("span", {}, $("status"), state.phase);
  if (state.paused && !state.final) html("span", {class: "paused"}, $("status"), " (agents paused)");
  $("dice").textContent = state.roll ? `${DICE[state.dice[0]]}${DICE[state.dice[1]]} ${state.roll}` : "";
  const body = $("players").querySelector("tbody"); body.innerHTML = "";
  state.players.forEach((p, i) => {
    const tr = html("tr", {class: (i === state.decider ? "deciding " : "") + (i === state.seat ? "me" : "")}, body);
    const who = withSwatch(html("td", {}, tr), i, `${board.names[i]} `);
    html("span", {class: "label"}, who, `(${board.labels[i]})`);
    if (p.longest_road) { who.append(" "); html("span", {class: "badge", title: "longest road (2 VP)"}, who, "road"); }
    if (p.largest_army) { who.append(" "); html("span", {class: "badge", title: "largest army (2 VP)"}, who, "army"); }
    const vp = state.final ? state.final.vp[i].total : p.vp;
    for (const v of [vp, p.cards, p.devs, p.knights, p.road]) html("td", {}, tr, String(v));
    html("td", {title: "roads, settlements, cities"}, tr, p.pieces_left.join(" / "));
  });
  $("bank").textContent = "Bank: " + board.resources.map((r, k) => `${state.bank[k]} ${r}`).join(", ") +
    ` \u2014 development cards left: ${state.deck}`;
  const mine = $("mine"); mine.innerHTML = "";
  if (state.hand) {
    html("span", {class: "panel-title"}, mine, "Your cards: ");
    board.resources.forEach((r, k) => html("span", {class: `card res-${r}`, title: r}, mine, `${state.hand[k]} ${r}`));
    const devs = board.dev_cards.map((c, k) => [c, state.dev_hand[k], state.dev_new[k]]).filter(([, k]) => k > 0);
    html("div", {}, mine, devs.length ? "" : "No development cards.");
    for (const [c, k, fresh] of devs) {
      html("span", {class: "card dev" + (fresh ? " new" : ""), title: fresh ? "bought this turn: playable from your next turn" : ""},
           mine, `${c} \u00d7 ${k}` + (fresh ? ` (${fresh} new this turn)` : ""));
    }
  } else mine.textContent = state.role === "host" ? "You are watching (host)." : "You are watching.";
  const offer = $("offer"); offer.innerHTML = "";
  if (state.offer) {
    html("div", {class: "panel-title"}, offer, state.offer.words);
    const ul = html("ul", {}, offer);
    for (const a of state.offer.answers) withSwatch(html("li", {}, ul), a.seat, a.words);
  }
  drawLog();
  $("pause").textContent = state.paused ? "resume" : "pause";
  $("controls").hidden = state.role === "watcher";
  $("autodecline-box").hidden = state.seat === null;
  $("newgame").hidden = state.role !== "host";
  $("newform").querySelector("button[type=submit]").disabled = !state.can_start;
  drawEnd();
}

function subject(line, fallback) {  // whose line it is: the player it starts with
  if (/^(You|Your)\b/.test(line) && state.seat !== null) return state.seat;
  const i = board.names.findIndex((nm) => line.startsWith(nm + " ") || line.startsWith(nm + "'s "));
  return i >= 0 ? i : fallback;
}

const ROUND = new Set(["TRADE_OFFER", "TRADE_ACCEPT", "TRADE_REJECT", "TRADE_COUNTER", "TRADE_CONFIRM", "TRADE_CANCEL"]);

function logLines() {  // the whole log in order: one line per discard, one per trade round
  const out = [];
  for (const e of logEntries) {
    if (!e) continue;
    const last = out[out.length - 1];
    if (ROUND.has(e.kind)) {  // an offer opens a round; answers and the outcome join its line
      if (e.kind !== "TRADE_OFFER" && last && last.round && !last.round.closed && last.turn === e.turn) {
        last.round.parts.push(...e.lines);
      } else {
        out.push({turn: e.turn, seat: e.seat, category: e.category, round: {parts: [...e.lines], closed: false}});
      }
      const round = out[out.length - 1].round;
      round.closed = e.kind === "TRADE_CONFIRM" || e.kind === "TRADE_CANCEL" || e.lines.some((l) => / offer lapsed\b/.test(l));
      const [first, ...rest] = round.parts;
      out[out.length - 1].text = rest.length ? `${first} \u2014 ${rest.join("; ")}` : first;
      continue;
    }
    for (const line of e.lines) {
      const m = /^(.+) discarded (\d+) (\w+)$/.exec(line), last = out[out.length - 1];
      if (m && last && last.discard && last.discard.who === m[1] && last.turn === e.turn) {
        last.discard.cards[m[3]] = (last.discard.cards[m[3]] || 0) + Number(m[2]);
        last.text = `${m[1]} discarded ` + Object.entries(last.discard.cards).map(([r, k]) => `${k} ${r}`).join(", ");
        continue;
      }
      out.push({turn: e.turn, seat: e.seat, text: line, category: e.category,
                discard: m ? {who: m[1], cards: {[m[3]]: Number(m[2])}} : null});
    }
  }
  return out;
}

function drawLog() {
  const log = $("log"); log.innerHTML = "";
  const shown = new Set([...document.querySelectorAll("#log-filter input:checked")].map((b) => b.value));
  let turn = null;
  for (const l of logLines()) {
    if (!shown.has(l.category)) continue;
    if (l.turn !== turn) {
      turn = l.turn;
      html("li", {class: "sep"}, log, turn ? `Turn ${turn} \u2014 ${board.names[l.seat]}` : "Set-up");
    }
    const who = subject(l.text, l.seat);  // your own moves, and what others did to you, stand out
    const mine = state.seat !== null && (who === state.seat || /\b(from|with) you\b/.test(l.text));
    withSwatch(html("li", {class: mine ? "private" : ""}, log), who, l.text);
  }
  log.scrollTop = log.scrollHeight;
}

function drawEnd() {
  const res = $("result");
  if (!state.final) { res.innerHTML = ""; delete res.dataset.winner; return; }
  const f = state.final;
  res.innerHTML = "";
  res.dataset.winner = f.winner;
  html("h2", {}, res, f.abandoned ? "The game was abandoned" :
       f.winner >= 0 ? `${board.names[f.winner]} wins with ${f.vp[f.winner].total} victory points` : "No winner: the turn limit was reached");
  const t = html("table", {id: "breakdown"}, res);
  const head = html("tr", {}, html("thead", {}, t));
  html("th", {}, head, "victory points");
  board.names.slice(0, f.vp.length).forEach((nm, i) => { withSwatch(html("th", {}, head), i, nm); });
  const tb = html("tbody", {}, t);
  for (const [key, label] of board.vp_parts) {
    const tr = html("tr", {class: key === "total" ? "total" : ""}, tb);
    html("td", {}, tr, label);
    for (const row of f.vp) html("td", {}, tr, String(row[key]));
  }
  for (const [label, values] of f.per_seat) {
    const tr = html("tr", {}, tb);
    html("td", {}, tr, label);
    for (const v of values) html("td", {}, tr, String(v));
  }
  html("p", {}, res, f.game.map(([label, v]) => `${label}: ${v}`).join(", "));
  const a = html("a", {id: "record", href: "#", download: "catan-game.json"}, res, "Download the game's record");
  a.onclick = (ev) => { ev.preventDefault(); downloadRecord(); };
  html("span", {}, res, " (replay it with catan-render game.json --html game.html)");
}

async function downloadRecord() {  // the token goes in a header, not in a link's address
  const reply = await fetch("record.json", {headers: {"X-Catan-Token": token}});
  if (!reply.ok) { $("error").textContent = await reply.text(); return; }
  const link = html("a", {href: URL.createObjectURL(await reply.blob()), download: "catan-game.json"});
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

// ---- the new-game form (the host's page): seats chosen among the server's agents by name
function seatInputs() {
  const form = $("newform"), n = parseInt(form.n.value, 10), box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.innerHTML = "";
  for (let i = 0; i < n; i++) {
    const label = html("label", {}, box, `seat ${i + 1} (${board ? board.names[i] || "" : ""}) `);
    const sel = html("select", {name: `seat${i}`}, label);
    html("option", {value: "human"}, sel, "a person");
    for (const a of (board && board.agents) || []) html("option", {value: a.name}, sel, a.label);
    const chosen = board && board.lineup ? board.lineup[i] : undefined;
    sel.value = old[i] || chosen || (i === 0 ? "human" : "jsettlers");
    if (!sel.value) sel.value = "jsettlers";
    sel.onchange = youOptions;
  }
  youOptions();
}
function youOptions() {
  const form = $("newform"), n = parseInt(form.n.value, 10);
  const humans = [...Array(n).keys()].filter((i) => form[`seat${i}`].value === "human");
  form.you.innerHTML = '<option value="">watch</option>' + humans.map((i) => `<option value="${i}">seat ${i + 1}</option>`).join("");
  form.you.value = humans.length ? String(humans[0]) : "";
}
$("newform").n.onchange = seatInputs;
$("newform").onsubmit = (e) => {
  e.preventDefault();
  if (state && !state.final && !confirm("Start a new game? The game now running ends.")) return;
  const form = $("newform"), n = parseInt(form.n.value, 10);
  send({type: "new_game", players: [...Array(n).keys()].map((i) => form[`seat${i}`].value),
        you: form.you.value === "" ? null : parseInt(form.you.value, 10),
        vp_to_win: parseInt(form.vp.value, 10), domestic_trade: form.trade.checked, board: form.board.value,
        seed: form.seed.value === "" ? null : parseInt(form.seed.value, 10)});
};

function receive(msg) {
  if (msg.type === "board") {
    board = msg; logEntries = []; lastSeq = 0; state = null;
    $("board").setAttribute("viewBox", msg.viewbox);
    $("static").innerHTML = msg.svg; $("chart").innerHTML = ""; $("choose").innerHTML = "";
    seatInputs();
    return;
  }
  if (msg.type === "new_game") {
    const box = $("pages"); box.innerHTML = "";
    for (const [seat, path] of Object.entries(msg.pages)) {
      const d = html("div", {}, box, `Send seat ${Number(seat) + 1} this address: `);
      html("a", {href: path}, d, location.origin + path);
    }
    return;
  }
  if (msg.type === "error") { $("error").textContent = msg.reason; sent = 0; return; }
  if (msg.type === "win_chart") {
    const chart = $("chart");
    chart.innerHTML = "";
    if (msg.svg) {  // drawn by the server from numbers and its own words (win_chart.py escapes them)
      html("h3", {}, chart, "How the game swung: each player's chance to win, as the win-probability network saw it from their own seat");
      chart.insertAdjacentHTML("beforeend", msg.svg);
    } else html("p", {}, chart, msg.error);
    if (msg.svg && msg.swings.length) {
      const ol = html("ol", {id: "swings"}, $("chart"));
      for (const sw of msg.swings) {
        const moved = sw.seats.map((p) => `${board.names[p]} ${Math.round(100 * sw.before[p])}% \u2192 ${Math.round(100 * sw.after[p])}%`);
        html("li", {}, ol, `${sw.turn ? "Turn " + sw.turn : "Set-up"}: ${sw.words} (${moved.join(", ")})`);
      }
    }
    return;
  }
  if (msg.type === "state" && board) {
    const fresh = logEntries.length > 0 && msg.log_from >= logEntries.length;  // new moves, not a resent history
    msg.log.forEach((e, i) => { logEntries[msg.log_from + i] = e; });  // merged by place
    const aboutYou = fresh ? msg.log.flatMap((e) => e.lines).filter((l) => /from you\b|^You\b.*\bstole\b|^You bought/.test(l)) : [];
    if (aboutYou.length) {  // what was taken from you (or what you got in secret), where you look
      $("notice").textContent = aboutYou.join(" \u2014 ");
      noticesShown.push($("notice").textContent);
      $("notice").hidden = false;
      clearTimeout(receive.noticeTimer);
      receive.noticeTimer = setTimeout(() => { $("notice").hidden = true; }, 8000);
    }
    if (msg.seq < lastSeq) return;  // an older state that arrived late
    lastSeq = msg.seq;
    state = msg;
    const pace = [...$("speed").options].find((o) => Number(o.value) === state.delay);
    if (pace) $("speed").value = pace.value;  // the server's pace, also after a reload
    drawPieces(); drawTargets(); drawActions(); drawSide();
    const reject = state.legal.find((a) => a.kind === "TRADE_REJECT");
    if (reject && $("autodecline").checked) act(reject.id);  // the person asked for it
    if (!state.legal.some((a) => a.target)) $("choose").innerHTML = "";
    document.body.dataset.turn = state.turn;
    document.body.dataset.over = state.final ? "1" : "0";
    document.body.dataset.yourMove = state.seat !== null && state.decider === state.seat && state.legal.length ? "1" : "0";
    document.body.dataset.version = ++version;
  }
}

// the page's own choices survive a reload (they are this browser's, never the server's)
$("autodecline").checked = localStorage.getItem("catan.autodecline") === "1";
$("autodecline").onchange = (e) => localStorage.setItem("catan.autodecline", e.target.checked ? "1" : "0");
for (const box of document.querySelectorAll("#log-filter input")) {
  box.checked = localStorage.getItem(`catan.log.${box.value}`) !== "0";
  box.onchange = () => { localStorage.setItem(`catan.log.${box.value}`, box.checked ? "1" : "0"); if (state) drawLog(); };
}
// the log keeps its newest line in view when panels above take or give back room, unless
// the person scrolled up to read
let logAtEnd = true;
$("log").addEventListener("scroll", () => {
  const log = $("log");
  logAtEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
});
new ResizeObserver(() => { if (logAtEnd) $("log").scrollTop = $("log").scrollHeight; }).observe($("log"));
$("speed").onchange = (e) => send({type: "speed", delay: parseFloat(e.target.value)});
$("pause").onclick = () => send({type: "pause", paused: !(state && state.paused)});
$("step").onclick = () => send({type: "step"});
window.addEventListener("hashchange", () => location.reload());  // another seat's address: that page
if (!token) $("status").textContent = "This address lacks its token: open the address the server printed (it ends in #token=...).";
else connect();

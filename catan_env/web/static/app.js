// The page of one seat (or a spectator): draws what the server sends, sends clicks back.
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let board = null, state = null, version = 0;
const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws?token=${encodeURIComponent(token)}`);

function send(msg) { ws.send(JSON.stringify(msg)); }
function act(id) { $("error").textContent = ""; send({type: "act", action: id}); }
function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function button(label, id, parent) {
  const b = document.createElement("button");
  b.textContent = label; b.dataset.action = id;
  b.onclick = () => act(id);
  parent.appendChild(b);
  return b;
}

function drawPieces() {
  const g = $("pieces"); g.innerHTML = "";
  state.e_owner.forEach((o, e) => {
    if (o < 0) return;
    const [a, b] = board.edges[e], [x1, y1] = board.vertices[a], [x2, y2] = board.vertices[b];
    el("line", {x1, y1, x2, y2, stroke: board.colours[o], "stroke-width": 6, "stroke-linecap": "round"}, g);
  });
  state.v_owner.forEach((o, v) => {
    if (o < 0) return;
    const [x, y] = board.vertices[v];
    if (state.v_level[v] >= 2) el("rect", {x: x - 8, y: y - 8, width: 16, height: 16, fill: board.colours[o], stroke: "#000"}, g);
    else el("circle", {cx: x, cy: y, r: 7, fill: board.colours[o], stroke: "#000"}, g);
  });
  const [rx, ry] = board.hexes[state.robber];
  el("circle", {cx: rx + 18, cy: ry - 14, r: 8, fill: "#222", stroke: "#fff", id: "robber"}, g);
}

function drawTargets() {
  const g = $("targets"); g.innerHTML = "";
  const byTarget = new Map();
  for (const a of state.legal) {
    if (!a.target) continue;
    const key = a.target[0] + a.target[1];
    if (!byTarget.has(key)) byTarget.set(key, {target: a.target, actions: []});
    byTarget.get(key).actions.push(a);
  }
  for (const [key, {target, actions}] of byTarget) {
    const [kind, i] = target;
    let t;
    if (kind === "e") {  // the road's place highlighted, clicked at its middle
      const [a, b] = board.edges[i], [x1, y1] = board.vertices[a], [x2, y2] = board.vertices[b];
      el("line", {x1, y1, x2, y2, class: "edge-line"}, g);
      t = el("circle", {cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, r: 7, class: "target edge-target"}, g);
    } else {
      const [x, y] = kind === "v" ? board.vertices[i] : board.hexes[i];
      t = el("circle", {cx: x, cy: y, r: kind === "v" ? 9 : 20, class: "target"}, g);
    }
    t.dataset.target = key;
    t.dataset.actions = actions.map((a) => a.id).join(",");
    const title = el("title", {}, t); title.textContent = actions.map((a) => a.name).join(" / ");
    t.onclick = () => {
      if (actions.length === 1) { act(actions[0].id); return; }
      const box = $("actions"); box.innerHTML = "<div>choose:</div>";
      for (const a of actions) button(a.name, a.id, box);
    };
  }
}

function drawActions() {
  const box = $("actions"); box.innerHTML = "";
  const groups = new Map();
  for (const a of state.legal) {
    if (a.target) continue;
    if (!groups.has(a.kind)) groups.set(a.kind, []);
    groups.get(a.kind).push(a);
  }
  for (const [kind, list] of groups) {
    if (list.length <= 3) { for (const a of list) button(a.name, a.id, box); continue; }
    const d = document.createElement("details");
    d.innerHTML = `<summary>${kind} (${list.length})</summary>`;
    d.dataset.kind = kind;
    for (const a of list) button(a.name, a.id, d);
    box.appendChild(d);
  }
}

function drawSide() {
  const you = state.seat;
  const who = board.names[state.decider];
  $("status").textContent = state.result ? "game over" :
    `turn ${state.turn}, ${state.phase}` + (state.roll ? `, last roll ${state.roll}` : "") +
    (state.seat !== null && state.decider === you ? " | your move" : ` | ${who} to move`);
  const body = $("players").querySelector("tbody"); body.innerHTML = "";
  state.players.forEach((p, i) => {
    const tr = document.createElement("tr");
    const marks = (p.longest_road ? " LR" : "") + (p.largest_army ? " LA" : "");
    tr.innerHTML = `<td><span style="color:${board.colours[i]}">&#9632;</span> ${board.names[i]}${marks}</td>` +
      `<td>${p.vp}</td><td>${p.cards}</td><td>${p.devs}</td><td>${p.knights}</td><td>${p.road}</td>`;
    body.appendChild(tr);
  });
  $("mine").textContent = state.hand ?
    "your hand: " + board.resources.map((r, k) => `${r} ${state.hand[k]}`).join(", ") +
    " | dev cards: " + board.dev_cards.map((c, k) => `${c} ${state.dev_hand[k]}`).join(", ") : "spectating";
  $("offer").textContent = state.offer ?
    `offer by ${board.names[state.offer.proposer]}: ${state.offer.give[0]} ${state.offer.give[1]} for ${state.offer.get[0]} ${state.offer.get[1]}` : "";
  const log = $("log"); log.innerHTML = "";
  for (const m of state.log.slice(-60)) {
    const li = document.createElement("li");
    let text = `${board.names[m.seat]}: ${m.action}`;
    if (m.roll) {  // the dice and each seat's production
      const got = (m.gains || []).map((g, i) => {
        const cards = g.map((k, r) => k ? `${k} ${board.resources[r]}` : "").filter(Boolean).join(", ");
        return cards ? `${board.names[i]} +${cards}` : "";
      }).filter(Boolean).join("; ");
      text += ` = ${m.roll}` + (got ? ` (${got})` : "");
    }
    li.textContent = text;
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
  $("pause").textContent = state.paused ? "resume" : "pause";
  const res = $("result");
  if (state.result) {
    const r = state.result;
    res.innerHTML = (r.abandoned ? "game abandoned" : r.winner >= 0 ? `winner: ${board.names[r.winner]}` : "no winner (turn cap)") +
      ` | VP ${r.vp.join(" / ")} | ${r.turns} turns, ${r.moves} moves | domestic trades ${r.trades.join(" / ")},` +
      ` offers ${r.offers.join(" / ")}, maritime ${r.maritime.join(" / ")} | <a id="record" href="record.json?token=${encodeURIComponent(token)}" download="catan-game.json">download the record</a>`;
    res.dataset.winner = r.winner;
  } else res.innerHTML = "";
}

// the new-game form: one spec per seat ("human" for a person), your seat, rules, board, seed
function seatInputs() {
  const form = $("newform"), n = parseInt(form.n.value, 10), box = $("seats");
  const specs = board && board.players_specs ? board.players_specs : ["human", "pretrained", "jsettlers", "jsettlers"];
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.innerHTML = "";
  for (let i = 0; i < n; i++) {
    const label = document.createElement("label");
    label.innerHTML = `seat ${i} <input name="seat${i}" value="${old[i] || specs[i] || "random"}">`;
    box.appendChild(label);
  }
  form.you.innerHTML = '<option value="">watch</option>' +
    [...Array(n).keys()].map((i) => `<option value="${i}">${i}</option>`).join("");
  const firstHuman = [...Array(n).keys()].find((i) => box.querySelectorAll("input")[i].value.trim() === "human");
  form.you.value = firstHuman === undefined ? "" : String(firstHuman);
}
$("newform").n.onchange = seatInputs;
$("newform").onsubmit = (e) => {
  e.preventDefault();
  const form = $("newform"), n = parseInt(form.n.value, 10);
  send({type: "new_game", players: [...Array(n).keys()].map((i) => form[`seat${i}`].value.trim()),
        you: form.you.value === "" ? null : parseInt(form.you.value, 10),
        vp_to_win: parseInt(form.vp.value, 10), domestic_trade: form.trade.checked, board: form.board.value,
        seed: form.seed.value === "" ? null : parseInt(form.seed.value, 10)});
};

ws.onmessage = (ev) => {
  const msg = JSON.parse(ev.data);
  if (msg.type === "board") {
    board = msg; $("static").innerHTML = msg.svg;
    if (!$("seats").children.length) seatInputs();
    return;
  }
  if (msg.type === "new_game") {
    $("pages").innerHTML = Object.entries(msg.pages).map(([seat, path]) =>
      `<div>seat ${seat}: <a href="${path}">${location.origin}${path}</a></div>`).join("");
    return;
  }
  if (msg.type === "error") { $("error").textContent = msg.reason; return; }
  if (msg.type === "state" && board) {
    state = msg;
    $("error").textContent = "";
    drawPieces(); drawTargets(); drawActions(); drawSide();
    document.body.dataset.turn = state.turn;
    document.body.dataset.over = state.result ? "1" : "0";
    document.body.dataset.yourMove = state.seat !== null && state.decider === state.seat && state.legal.length ? "1" : "0";
    document.body.dataset.version = ++version;
  }
};
ws.onclose = () => { $("status").textContent += " (disconnected)"; };
$("speed").onchange = (e) => send({type: "speed", delay: parseFloat(e.target.value)});
$("pause").onclick = () => send({type: "pause", paused: !(state && state.paused)});
$("step").onclick = () => send({type: "step"});

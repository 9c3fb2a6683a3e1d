// The page of deathstacks serve: one board shared by four views (play,
// analyse, replay, runs), talking to the JSON API of package web.
"use strict";

const $ = (id) => document.getElementById(id);
const FILES = "abcdef";
const sqName = (i) => FILES[i % 6] + (Math.floor(i / 6) + 1);

const S = {
  cfg: null,
  view: "play",
  flipped: true,    // rank 1 on top: Red, who moves first, at the bottom
  game: null,       // the play view's game state from the API
  busy: false,      // a request on the game is under way
  pos: null,        // the position on the board: {board, legal, to_move, fen, ...}
  sel: null,        // the selected source square
  interactive: false,
  lastMove: null,   // "a6-2-a4" of the move that led to pos
  analysis: null,   // the answer of /api/analyse for pos
  an: { fen: "", ply: 0, moves: [] },   // the analyse view's game
  rp: { src: null, game: null, data: null, ply: 0 },
  search: null,     // the AbortController of the running search
  runTimer: null,
};

// api calls the JSON API and throws an Error with the server's message.
async function api(method, path, body) {
  const opt = { method, headers: {} };
  if (body !== undefined) {
    opt.headers["Content-Type"] = "application/json";
    opt.body = JSON.stringify(body);
  }
  const res = await fetch(path, opt);
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function showError(err) {
  const box = $("error");
  box.textContent = String(err.message || err);
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

// ---- the board ----

function renderBoard() {
  const board = $("board");
  board.textContent = "";
  const p = S.pos;
  if (!p) return;
  const legal = S.interactive ? (p.legal || []) : [];
  const sources = new Set(legal.map((m) => m.from));
  const targets = new Map(); // square -> counts reaching it from the selection
  for (const m of legal) {
    if (m.from === S.sel) {
      if (!targets.has(m.to)) targets.set(m.to, []);
      targets.get(m.to).push(m.count);
    }
  }
  const must = new Set(p.must_move || []);
  const heat = $("heat").checked && S.analysis && S.analysis.targets ? S.analysis.targets : null;
  const last = S.lastMove ? S.lastMove.split("-") : null;
  for (let row = 0; row < 6; row++) {
    for (let col = 0; col < 6; col++) {
      const rank = S.flipped ? row : 5 - row;
      const file = S.flipped ? 5 - col : col;
      const i = rank * 6 + file;
      const name = sqName(i);
      const sq = document.createElement("div");
      sq.className = "sq " + ((rank + file) % 2 ? "l" : "d");
      sq.dataset.sq = name;
      const stack = p.board[i];
      sq.dataset.stack = stack;
      if (heat && heat[name]) {
        const h = document.createElement("div");
        h.className = "heat";
        h.style.opacity = Math.min(0.75, 0.12 + heat[name] * 1.6).toFixed(2);
        sq.appendChild(h);
        const pct = document.createElement("span");
        pct.className = "heatpct";
        pct.textContent = Math.round(heat[name] * 100) + "%";
        sq.appendChild(pct);
      }
      if (last && (name === last[0] || name === last[2])) sq.classList.add("last");
      if (stack) sq.appendChild(stackView(stack));
      const lab = document.createElement("span");
      lab.className = "name";
      lab.textContent = name;
      sq.appendChild(lab);
      if (must.has(name)) sq.classList.add("must");
      if (sources.has(name)) sq.classList.add("src");
      if (name === S.sel) sq.classList.add("sel");
      if (targets.has(name)) {
        sq.classList.add("tgt");
        const c = document.createElement("span");
        c.className = "cnts";
        c.textContent = targets.get(name).join(",");
        sq.appendChild(c);
        sq.dataset.counts = targets.get(name).join(",");
      }
      sq.addEventListener("click", () => clickSquare(name));
      board.appendChild(sq);
    }
  }
  $("fen").value = p.fen;
  $("tomove").textContent = p.status === "ongoing" ? p.to_move + " to move" : p.status;
  $("tomove").style.color = p.to_move === "red" ? "var(--red-dark)" : "var(--blue-dark)";
}

// stackView draws a stack top piece first, each piece a bar, squeezed
// so that 24 pieces still fit the square; the height is in the corner.
function stackView(stack) {
  const frag = document.createDocumentFragment();
  const st = document.createElement("div");
  st.className = "stack";
  const bar = Math.max(2, Math.min(11, Math.floor(60 / stack.length) - 1));
  for (let d = 0; d < stack.length; d++) {
    const pc = document.createElement("div");
    pc.className = "pc " + stack[d] + (d === 0 ? " top" : "");
    pc.style.height = (d === 0 ? Math.max(bar, 6) : bar) + "px"; // the controller stands out
    st.appendChild(pc);
  }
  frag.appendChild(st);
  const ht = document.createElement("span");
  ht.className = "ht " + stack[0];
  ht.textContent = stack.length;
  frag.appendChild(ht);
  return frag;
}

function clickSquare(name) {
  hideChooser();
  if (!S.interactive || !S.pos) return;
  const legal = S.pos.legal || [];
  if (S.sel) {
    const counts = legal.filter((m) => m.from === S.sel && m.to === name).map((m) => m.count);
    if (counts.length === 1) return chooseMove(S.sel + "-" + counts[0] + "-" + name);
    if (counts.length > 1) return showChooser(name, counts);
  }
  S.sel = legal.some((m) => m.from === name) && S.sel !== name ? name : null;
  renderBoard();
}

// showChooser asks which count to carry when several reach the target.
function showChooser(to, counts) {
  const box = $("chooser");
  box.textContent = "";
  const from = S.sel;
  for (const c of counts) {
    const b = document.createElement("button");
    b.textContent = c;
    b.title = from + "-" + c + "-" + to;
    b.dataset.count = c;
    b.addEventListener("click", (e) => { e.stopPropagation(); hideChooser(); chooseMove(from + "-" + c + "-" + to); });
    box.appendChild(b);
  }
  const sq = document.querySelector(`.sq[data-sq="${to}"]`);
  box.style.left = sq.offsetLeft + "px";
  box.style.top = (sq.offsetTop + sq.offsetHeight - 10) + "px";
  box.hidden = false;
}

function hideChooser() { $("chooser").hidden = true; }

function chooseMove(move) {
  S.sel = null;
  S.clickAt = performance.now();
  if (S.view === "play") playMove(move);
  else if (S.view === "analyse") exploreMove(move);
}

function setPosition(pos, lastMove, interactive) {
  S.pos = pos;
  S.lastMove = lastMove || null;
  S.interactive = !!interactive;
  S.sel = null;
  S.analysis = null;
  stopSearch();
  renderBoard();
  if (S.view === "analyse" || S.view === "replay") analysePosition();
}

// ---- play ----

async function newGame() {
  try {
    const g = await api("POST", "/api/games", {
      player: $("player").value, human: $("human").value, fen: $("startfen").value.trim(),
    });
    S.flipped = g.human === "red";
    showGame(g);
    if (!g.over && g.to_move !== g.human) await engineReply();
  } catch (e) { showError(e); }
}

function showGame(g) {
  S.game = g;
  $("gamebox").hidden = false;
  const moves = g.moves || [];
  const yourTurn = !g.over && g.to_move === g.human && !S.busy;
  if (S.view === "play") setPosition(g, moves[moves.length - 1], yourTurn);
  const banner = $("banner");
  if (g.over) {
    banner.hidden = false;
    banner.className = g.winner || "";
    banner.textContent = gameOverText(g);
  } else banner.hidden = true;
  let info = `You play ${g.human} against ${g.player}. `;
  info += g.over ? "Game over." : (S.busy ? "The engine is thinking..." : (yourTurn ? "Your move." : ""));
  if (g.engine) {
    info += ` Engine played ${g.engine.move} in ${g.engine.ms.toFixed(0)} ms`;
    if (g.engine.value !== null) info += `, value ${g.engine.value.toFixed(2)} for itself`;
    if (S.replyMs) info += `; ${S.replyMs.toFixed(0)} ms from your click`;
    info += ".";
  }
  $("gameinfo").textContent = info;
  $("movelist").value = moveList(moves, g.start_fen);
  $("undo").disabled = S.busy;
  $("resign").disabled = S.busy || g.over;
}

function gameOverText(g) {
  const who = g.winner ? g.winner[0].toUpperCase() + g.winner.slice(1) + " wins" : "Draw";
  const why = {
    "win": "the other side controls no stack",
    "resignation": g.human + " resigned",
    "repetition": "the position occurred three times",
    "move limit": "the move limit was reached",
    "no stacks": "no stack is left",
  }[g.reason] || g.reason;
  return `${who} (${g.result}): ${why}`;
}

// moveList numbers the moves in pairs, as "1. a6-2-a4 b1-1-b2".
function moveList(moves, startFen) {
  const blueFirst = / b$/.test(startFen || "");
  const parts = [];
  let n = 1;
  let i = 0;
  if (blueFirst && moves.length) { parts.push("1. ... " + moves[0]); i = 1; n = 2; }
  for (; i < moves.length; i += 2, n++) {
    parts.push(n + ". " + moves[i] + (i + 1 < moves.length ? " " + moves[i + 1] : ""));
  }
  return parts.join("\n");
}

async function gameCall(path, body) {
  if (!S.game || S.busy) return null;
  try {
    return await api("POST", `/api/games/${S.game.id}/${path}`, body);
  } catch (e) { showError(e); return null; }
}

async function playMove(move) {
  const g = await gameCall("move", { move });
  if (!g) return renderBoard();
  showGame(g);
  if (!g.over) await engineReply();
}

async function engineReply() {
  S.busy = true;
  showGame(S.game);
  S.interactive = false;
  renderBoard();
  let g = null;
  try {
    g = await api("POST", `/api/games/${S.game.id}/reply`);
  } catch (e) { showError(e); }
  S.busy = false;
  if (g && S.clickAt) S.replyMs = performance.now() - S.clickAt;
  S.clickAt = 0;
  showGame(g || S.game);
}

async function undo() {
  const g = await gameCall("undo");
  if (g) showGame(g);
}

async function resign() {
  const g = await gameCall("resign");
  if (g) showGame(g);
}

// ---- analyse ----

async function loadAnalysis(fen, ply, moves, flip) {
  try {
    const pos = await api("POST", "/api/legal", { fen, start_ply: ply || 0, moves: moves || [] });
    S.an = { fen: pos.start_fen, ply: ply || 0, moves: moves || [] };
    $("anfen").value = pos.start_fen;
    if (flip !== undefined) S.flipped = flip;
    setPosition(pos, (moves || [])[moves.length - 1], pos.status === "ongoing");
    $("anmoves").textContent = S.an.moves.length ? "moves: " + S.an.moves.join(" ") : "";
  } catch (e) { showError(e); }
}

function exploreMove(move) {
  loadAnalysis(S.an.fen, S.an.ply, S.an.moves.concat([move]));
}

// analysePosition asks for the network's value and policy of the board's
// position; the request names it as a game so repetitions count.
async function analysePosition() {
  const req = currentRequest();
  $("searchtable").tBodies[0].textContent = "";
  $("searchinfo").textContent = "";
  if (!req || S.pos.status !== "ongoing") {
    showValue(null, S.pos ? "the game is over: " + S.pos.status : "");
    return;
  }
  try {
    const a = await api("POST", "/api/analyse", req);
    if (currentRequest() && JSON.stringify(currentRequest()) !== JSON.stringify(req)) return;
    S.analysis = a;
    showValue(a.red_value, a.network ? `network ${a.network}: value ${a.value.toFixed(3)} for ${a.to_move}` : a.note);
    renderBoard();
  } catch (e) { showError(e); }
}

function showValue(red, text) {
  const share = red === null || red === undefined ? 0.5 : (red + 1) / 2;
  $("valuered").style.width = (share * 100).toFixed(1) + "%";
  $("valuetext").textContent = text || "";
  $("valuebar").title = red === null || red === undefined ? "no value" : `red ${(share * 100).toFixed(0)}%`;
}

// currentRequest names the analysed position for the API.
function currentRequest() {
  if (S.view === "analyse") return { fen: S.an.fen, start_ply: S.an.ply, moves: S.an.moves };
  if (S.view === "replay" && S.rp.data) {
    const r = S.rp.data.record;
    return { fen: r.start_fen, start_ply: r.start_ply, moves: r.moves.slice(0, S.rp.ply) };
  }
  return null;
}

function stopSearch() {
  if (S.search) S.search.abort();
  S.search = null;
  $("search").textContent = "Search";
}

// runSearch streams a search's updates (server-sent events over fetch, so
// that an error answer's message can be shown).
async function runSearch() {
  if (S.search) return stopSearch();
  const req = currentRequest();
  if (!req) return;
  // The search settings under their keys of the search's table.
  const q = new URLSearchParams({ fen: req.fen, start_ply: req.start_ply, gumbel: String($("root").value === "gumbel") });
  if (req.moves.length) q.set("moves", req.moves.join(","));
  if ($("secs").value) q.set("time", $("secs").value + "s");
  else q.set("simulations", $("sims").value);
  const ctl = new AbortController();
  S.search = ctl;
  $("search").textContent = "Stop";
  try {
    const res = await fetch("/api/search?" + q, { signal: ctl.signal });
    if (!res.ok) {
      const data = await res.json().catch(() => ({ error: res.statusText }));
      throw new Error(data.error);
    }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const event = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (event.startsWith("event: failure")) throw new Error(JSON.parse(data).error);
        if (data) showSearch(JSON.parse(data));
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") showError(e);
  }
  if (S.search === ctl) stopSearch();
}

function showSearch(u) {
  const body = $("searchtable").tBodies[0];
  body.textContent = "";
  u.moves.forEach((m, i) => {
    const tr = document.createElement("tr");
    if (i === 0) tr.className = "best";
    const cells = [m.move, m.visits, (m.prior * 100).toFixed(1) + "%", m.q === null ? "-" : m.q.toFixed(3), m.pv.join(" ")];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  });
  let info = `${u.done ? "done" : "searching"}: ${u.simulations} simulations in ${(u.ms / 1000).toFixed(2)} s, ${u.root}, ${u.evaluator} evaluator`;
  if (u.value !== null) info += `, root value ${u.value.toFixed(3)} for the side to move`;
  if (u.note) info += ". " + u.note;
  $("searchinfo").textContent = info;
  $("searchinfo").dataset.done = u.done;
}

// ---- replay ----

async function loadSources() {
  const srcs = await api("GET", "/api/replays");
  const sel = $("rpsrc");
  sel.textContent = "";
  for (const s of srcs) sel.appendChild(new Option(s.label, s.id));
  if (srcs.length) await loadGames();
  else $("rpinfo").textContent = "No games: start the server with --games DIR (an eval or ladder folder) or --run DIR.";
}

async function loadGames() {
  try {
    const games = await api("GET", `/api/replays/${$("rpsrc").value}`);
    const sel = $("rpgame");
    sel.textContent = "";
    for (const g of games) {
      sel.appendChild(new Option(`${g.index}: ${g.red} - ${g.blue}  ${g.result} (${g.reason}, ${g.plies} plies)`, g.index));
    }
    if (games.length) { sel.value = games[0].index; await loadReplay(); }
  } catch (e) { showError(e); }
}

async function loadReplay() {
  try {
    const data = await api("GET", `/api/replays/${$("rpsrc").value}/${$("rpgame").value}`);
    S.rp.data = data;
    const r = data.record;
    $("rpinfo").textContent = `red ${r.red}, blue ${r.blue}: ${r.result} by ${r.reason}` +
      (r.opening && r.opening.length ? `, after ${r.opening.length} random opening plies` : "");
    replayStep(0);
  } catch (e) { showError(e); }
}

function replayStep(ply) {
  const d = S.rp.data;
  if (!d) return;
  ply = Math.max(0, Math.min(d.positions.length - 1, ply));
  S.rp.ply = ply;
  $("rpply").textContent = `ply ${ply} / ${d.positions.length - 1}`;
  setPosition(d.positions[ply], ply > 0 ? d.record.moves[ply - 1] : null, false);
}

// ---- runs ----

const COLORS = ["#d8342c", "#2a62d6", "#18a84a", "#e8a13a", "#8e44ad", "#444", "#16a3a3"];

async function loadRun() {
  const id = $("runsel").value;
  if (id === "") return;
  try {
    const r = await api("GET", `/api/runs/${id}/metrics`);
    drawRun(r);
  } catch (e) { showError(e); }
}

function drawRun(r) {
  const ms = r.metrics;
  $("runinfo").textContent = `${r.dir}: ${ms.length} iterations` + (ms.length ? `, ${(ms[ms.length - 1].elapsed_sec / 60).toFixed(1)} min` : "");
  $("charts").dataset.iterations = ms.length;
  const xs = ms.map((m) => m.iteration);
  const line = (name, key, i) => ({ name, color: COLORS[i], points: ms.map((m, j) => [xs[j], m[key]]) });
  drawChart($("chart-loss"), "losses", "iteration",
    [line("policy", "policy_loss", 0), line("value", "value_loss", 1), line("total", "total_loss", 5)]);
  drawChart($("chart-speed"), "self-play positions per second", "iteration", [line("positions/s", "positions_per_sec", 2)]);
  drawChart($("chart-length"), "mean self-play game length (plies)", "iteration", [line("plies", "mean_game_length", 3)]);
  const opps = [...new Set(ms.flatMap((m) => Object.keys(m.eval || {})))];
  drawChart($("chart-elo"), "Elo against the baselines", "iteration", opps.map((o, i) => ({
    name: o, color: COLORS[i % COLORS.length],
    points: ms.filter((m) => m.eval && m.eval[o]).map((m) => [m.iteration, m.eval[o].elo]),
    band: ms.filter((m) => m.eval && m.eval[o]).map((m) => [m.iteration, m.eval[o].elo_low, m.eval[o].elo_high]),
  })));
  const lad = $("chart-ladder");
  lad.hidden = !r.ladder;
  if (r.ladder) {
    const snaps = r.ladder.snapshots || [];
    drawChart(lad, "ladder: Elo of the snapshots", "iteration", [{
      name: "snapshot", color: COLORS[0],
      points: snaps.map((s) => [s.iteration, s.elo]),
      band: snaps.map((s) => [s.iteration, s.ci95[0], s.ci95[1]]),
    }]);
  }
}

// drawChart draws line series (with optional interval bands) on a canvas.
function drawChart(cv, title, xlabel, series) {
  const ctx = cv.getContext("2d");
  const W = cv.width, H = cv.height, L = 56, R = 12, T = 26, B = 34;
  ctx.clearRect(0, 0, W, H);
  ctx.fillStyle = "#222";
  ctx.font = "bold 13px DejaVu Sans, sans-serif";
  ctx.fillText(title, L, 17);
  const pts = series.flatMap((s) => s.points.concat((s.band || []).flatMap((b) => [[b[0], b[1]], [b[0], b[2]]])))
    .filter((p) => p[1] !== null && isFinite(p[1]));
  if (!pts.length) {
    ctx.font = "12px DejaVu Sans, sans-serif";
    ctx.fillStyle = "#888";
    ctx.fillText("no data yet", W / 2 - 30, H / 2);
    return;
  }
  let [x0, x1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
  let [y0, y1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  const intX = pts.every((p) => Number.isInteger(p[0])) && x1 - x0 >= 4;
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.06;
  y0 -= pad; y1 += pad;
  const X = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
  const Y = (y) => H - B - (y - y0) / (y1 - y0) * (H - T - B);
  ctx.strokeStyle = "#ddd";
  ctx.fillStyle = "#555";
  ctx.font = "11px DejaVu Sans, sans-serif";
  ctx.lineWidth = 1;
  for (let k = 0; k <= 4; k++) {
    const y = y0 + (y1 - y0) * k / 4;
    ctx.beginPath(); ctx.moveTo(L, Y(y)); ctx.lineTo(W - R, Y(y)); ctx.stroke();
    ctx.fillText(fmt(y), 4, Y(y) + 4);
    const x = x0 + (x1 - x0) * k / 4;
    const label = intX ? String(Math.round(x)) : fmt(x);
    ctx.textAlign = k === 4 ? "right" : k === 0 ? "left" : "center";
    ctx.fillText(label, X(x), H - B + 14);
    ctx.textAlign = "left";
  }
  ctx.textAlign = "center";
  ctx.fillText(xlabel, (L + W - R) / 2, H - 6);
  ctx.textAlign = "left";
  let lx = L + 6;
  for (const s of series) {
    if (s.band && s.band.length) {
      ctx.fillStyle = s.color + "33";
      ctx.beginPath();
      s.band.forEach((b, i) => (i ? ctx.lineTo(X(b[0]), Y(b[2])) : ctx.moveTo(X(b[0]), Y(b[2]))));
      [...s.band].reverse().forEach((b) => ctx.lineTo(X(b[0]), Y(b[1])));
      ctx.closePath(); ctx.fill();
    }
    ctx.strokeStyle = s.color;
    ctx.fillStyle = s.color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    let on = false;
    for (const [x, y] of s.points) {
      if (y === null || !isFinite(y)) { on = false; continue; }
      on ? ctx.lineTo(X(x), Y(y)) : ctx.moveTo(X(x), Y(y));
      on = true;
    }
    ctx.stroke();
    for (const [x, y] of s.points) if (y !== null && isFinite(y)) ctx.fillRect(X(x) - 2, Y(y) - 2, 4, 4);
    ctx.fillRect(lx, T + 2, 12, 3);
    ctx.fillStyle = "#333";
    ctx.fillText(s.name, lx + 16, T + 7);
    lx += 24 + ctx.measureText(s.name).width;
  }
}

function fmt(v) {
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

// ---- views ----

function setView(view) {
  S.view = view;
  stopSearch();
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.view === view);
  for (const v of ["play", "analyse", "replay"]) $("view-" + v).hidden = v !== view;
  $("analysis").hidden = !(view === "analyse" || view === "replay");
  $("boardcol").hidden = view === "runs";
  $("side").hidden = view === "runs";
  $("runsview").hidden = view !== "runs";
  $("banner").hidden = true;
  clearInterval(S.runTimer);
  if (view === "play") {
    if (S.game) showGame(S.game);
    else api("POST", "/api/legal", {}).then((p) => setPosition(p, null, false)).catch(showError);
  } else if (view === "analyse") {
    loadAnalysis(S.an.fen || S.cfg.start_fen, S.an.ply, S.an.moves);
  } else if (view === "replay") {
    if (S.rp.data) replayStep(S.rp.ply);
    else loadSources().catch(showError);
  } else if (view === "runs") {
    loadRun();
    S.runTimer = setInterval(loadRun, 5000); // the run may be training
  }
}

function copyField(id) {
  const el = $(id);
  el.select();
  if (navigator.clipboard) navigator.clipboard.writeText(el.value).catch(() => document.execCommand("copy"));
  else document.execCommand("copy");
}

async function init() {
  S.cfg = await api("GET", "/api/config");
  for (const p of S.cfg.players) $("player").appendChild(new Option(p, p));
  $("netinfo").textContent = S.cfg.network ? "analysis network: " + S.cfg.network : "no network: analysis searches with a uniform evaluator";
  $("sims").max = S.cfg.max_simulations;
  $("secs").max = S.cfg.max_search_sec;
  for (const r of S.cfg.runs) $("runsel").appendChild(new Option(r.name, r.id));
  if (!S.cfg.runs.length) $("runinfo").textContent = "No runs: start the server with --run DIR.";
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => setView(b.dataset.view));
  for (const b of document.querySelectorAll("[data-copy]")) b.addEventListener("click", () => copyField(b.dataset.copy));
  $("newgame").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("resign").addEventListener("click", resign);
  $("toanalyse").addEventListener("click", () => {
    const g = S.game;
    S.an = { fen: g.start_fen, ply: 0, moves: g.moves || [] };
    setView("analyse");
  });
  $("flip").addEventListener("click", () => { S.flipped = !S.flipped; renderBoard(); });
  $("heat").addEventListener("change", renderBoard);
  $("anload").addEventListener("click", () => loadAnalysis($("anfen").value.trim(), 0, []));
  $("anstart").addEventListener("click", () => loadAnalysis(S.cfg.start_fen, 0, []));
  $("anback").addEventListener("click", () => loadAnalysis(S.an.fen, S.an.ply, S.an.moves.slice(0, -1)));
  $("search").addEventListener("click", runSearch);
  $("rpsrc").addEventListener("change", loadGames);
  $("rpgame").addEventListener("change", loadReplay);
  $("rpfirst").addEventListener("click", () => replayStep(0));
  $("rpprev").addEventListener("click", () => replayStep(S.rp.ply - 1));
  $("rpnext").addEventListener("click", () => replayStep(S.rp.ply + 1));
  $("rplast").addEventListener("click", () => replayStep(Infinity));
  $("runsel").addEventListener("change", loadRun);
  document.addEventListener("keydown", (e) => {
    if (S.view !== "replay" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") replayStep(S.rp.ply - 1);
    if (e.key === "ArrowRight") replayStep(S.rp.ply + 1);
  });
  setView("play");
  document.body.dataset.ready = "1";
}

init().catch(showError);

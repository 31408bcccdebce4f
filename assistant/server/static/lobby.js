// The lobby: the referee's new-game form, a Discovery Island player's secret choices, and the
// wait for a game. Every field is checked again by the server; this page only gathers them.
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const q = token ? `?token=${encodeURIComponent(token)}` : "";
const isReferee = document.body.dataset.referee === "yes";
const seat = document.body.dataset.seat === "" ? null : Number(document.body.dataset.seat);
const OPTIONS = JSON.parse(document.getElementById("options").textContent);
const $ = (id) => document.getElementById(id);
const words = (s) => String(s).replaceAll("_", " ");

function setStatus(text, bad = false) { $("status").textContent = text; $("status").classList.toggle("bad", bad); }

async function post(path, payload) {
  const r = await fetch(path, { method: "POST", body: JSON.stringify(payload),
                                headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` } });
  const answer = await r.json().catch(() => ({ message: r.statusText }));
  if (!r.ok) setStatus(answer.message, true);
  return { ok: r.ok, answer };
}

function fill(select, items, chosen) {
  select.replaceChildren(...items.map(([value, text]) => {
    const o = document.createElement("option"); o.value = value; o.textContent = text; o.selected = value === chosen; return o;
  }));
}

function labelled(id, text, control) {
  const label = document.createElement("label"); label.htmlFor = id; label.textContent = text; control.id = id;
  const div = document.createElement("div"); div.append(label, control); return div;
}

// -- the referee's form ----------------------------------------------------------------------
function players() {
  const game = $("game").value, n = Number($("count").value), rows = [];
  const kept = [...$("players").querySelectorAll(".row")].map((row) => [...row.querySelectorAll("input, select")].map((c) => c.value));
  for (let i = 0; i < n; i++) {
    const row = document.createElement("div"); row.className = "row";
    const name = document.createElement("input"); name.maxLength = OPTIONS.name_max; name.autocomplete = "off";
    name.value = kept[i] ? kept[i][0] : "";
    name.placeholder = `Player ${i + 1}`;
    row.append(labelled(`name-${i}`, `Player ${i + 1}'s name`, name));
    if (game === "forbidden-desert") {
      const s = document.createElement("select");
      fill(s, OPTIONS.adventurers.map((a) => [a.id, `${words(a.id)} (${a.colour} pawn, canteen ${a.canteen})`]), OPTIONS.adventurers[i].id);
      row.append(labelled(`adventurer-${i}`, "Adventurer", s));
    } else if (game === "scout-pennant") {
      const s = document.createElement("select");
      fill(s, OPTIONS.colours.map((c) => [c, c]), OPTIONS.colours[i]);
      row.append(labelled(`colour-${i}`, "Colour", s));
    }
    rows.push(row);
  }
  $("players").replaceChildren($("players").querySelector("legend"), ...rows);
  fill($("first"), [["random", "drawn at random"], ...rows.map((_, i) => [String(i), `player ${i + 1}`])], "random");
}

function gameChanged() {
  const game = $("game").value, [low, high] = OPTIONS.games[game].players;
  const counts = []; for (let n = low; n <= high; n++) counts.push([String(n), String(n)]);
  fill($("count"), counts, String(Math.min(Math.max(Number($("count").value) || 2, low), high)));
  document.querySelectorAll(".only").forEach((d) => { d.hidden = !d.dataset.games.split(" ").includes(game); });
  players();
}

function form() {
  const game = $("game").value, n = Number($("count").value), out = { game, players: [] };
  for (let i = 0; i < n; i++) {
    const p = { name: $(`name-${i}`).value };
    if (game === "forbidden-desert") p.adventurer = $(`adventurer-${i}`).value;
    if (game === "scout-pennant") p.colour = $(`colour-${i}`).value;
    out.players.push(p);
  }
  if (game === "forbidden-desert") out.difficulty = $("difficulty").value;
  if (game === "scout-pennant") { out.radius = Number($("radius").value); out.variant = $("variant").value; }
  if (game === "discovery-island") {
    out.map = $("map").value; out.data = $("data").value; out.start_on_feature = $("start-on-feature").checked;
  }
  if (game !== "forbidden-desert") out.first_player = $("first").value === "random" ? "random" : Number($("first").value);
  return out;
}

async function startGame(e) {
  e.preventDefault();
  if (table) {                            // the camera read the table: the game starts from it
    const { ok } = await post("/api/table/start", form());
    if (ok) location.href = `/${q}`;
    return;
  }
  let { ok, answer } = await post("/api/new", form());
  if (!ok && answer.error === "game_in_progress") {
    if (!confirm("A game is in progress. Replace it with this new game? Its record is kept.")) { setStatus("The game in progress goes on."); return; }
    ({ ok, answer } = await post("/api/new", { ...form(), replace: true }));
  }
  if (ok) location.href = `/${q}`;       // the game, or (Discovery Island) the wait for the players' choices
}

function showWaiting(lobby) {
  $("waiting").hidden = false;
  $("new-game").hidden = true;
  if (lobby.table) $("waiting-how").textContent = "Each player scans their code and makes their choices on their own device; "
    + "once both have, start the game from the table below.";
  if ($("join").childElementCount !== lobby.seats) {
    $("join").replaceChildren(...lobby.names.map((name, s) => {
      const f = document.createElement("figure"), img = document.createElement("img"), c = document.createElement("figcaption");
      img.src = `/api/join/${s}.svg${q}&r=${lobby.revision}`; img.alt = `join code for ${name}`; c.textContent = `${name} (player ${s + 1})`;
      f.append(img, c); return f;
    }));
  }
}

// -- the opening table the camera read (serve --source without --setup; the referee's only) ------------
let table = null, fixing = null;
const key = (slot) => JSON.stringify(slot);
function showTable(t) {
  const first = table === null;
  table = t;
  $("table").hidden = false;
  if (first) {                             // the camera reads one game's table: the form offers only that game
    fill($("game"), [[t.game, OPTIONS.games[t.game].title]], t.game);
    gameChanged();
  }
  const r = t.reading;
  $("table-status").textContent = !r ? "Keep the table still: the camera reads it at the first still moment."
    : t.status === "reading" ? "Reading the table again at the next still moment…"
    : "Tap a cell to correct it; flagged cells are outlined, with the reason below.";
  if (!r) { $("read-board").replaceChildren(); $("flags").replaceChildren(); return; }
  const flagged = new Map(r.flags.map((f) => [f.cell.join(","), f]));
  const corrected = new Set(t.corrected.map(key));
  const board = $("read-board");
  board.classList.toggle("hex", r.board.hex);
  board.style.gridTemplateColumns = `repeat(${r.board.cols}, 1fr)`;
  board.replaceChildren(...r.cells.map((c) => {
    const b = document.createElement("button"), id = c.cell.join(","), f = flagged.get(id);
    b.type = "button"; b.dataset.cell = id;
    b.className = "cell" + (f ? ` flag ${f.kind}` : "") + (c.slots.some((s) => corrected.has(key(s.slot))) ? " corrected" : "");
    b.style.gridColumn = String(c.at[0] + 1);
    b.style.gridRow = r.board.hex ? `${c.at[1] + 1} / span 2` : String(c.at[1] + 1);
    b.textContent = c.text;
    if (f) b.title = f.reason;
    b.onclick = () => openFix(c);
    return b;
  }));
  $("flags").replaceChildren(...r.flags.map((f) => {
    const li = document.createElement("li"); li.className = f.kind; li.textContent = f.reason; return li;
  }));
}
function openFix(c) {
  fixing = c;
  $("fix").hidden = false;
  $("fix-title").textContent = `Correct ${c.name}`;
  $("fix-slots").replaceChildren(...c.slots.map((s) => {
    const allowed = table.allowed[s.slot[0]], select = document.createElement("select");
    const items = allowed.map((v) => [v, v === "" ? "none" : words(v).replaceAll("+", " and ")]);
    if (!allowed.includes(s.label)) items.unshift([s.label, `${words(s.label)} (as read)`]);
    fill(select, items, s.label);
    return labelled(`fix-${s.key}`, s.title, select);
  }));
}
async function saveFix() {
  const c = fixing;
  for (const s of c.slots) {
    const label = $(`fix-${s.key}`).value;
    if (label === s.label) continue;
    const { ok, answer } = await post("/api/table/correct", { cell: s.slot.slice(1), kind: s.slot[0], label });
    if (!ok) return;
    showTable(answer);
  }
  $("fix").hidden = true;
  setStatus(`${c.name} corrected.`);
}
async function readAgain() {
  const { ok } = await post("/api/table/read", {});
  if (ok) setStatus("The camera reads the table again at the next still moment.");
}
async function startFromTable() {          // a game that waited for its players' secret choices
  const { ok } = await post("/api/table/start", { game: table.game });
  if (ok) location.href = `/${q}`;
}

async function abandonGame() {             // the choices made are dropped unseen; the join codes stop working
  if (!confirm("Abandon this game? The players' choices are dropped and their join codes stop working.")) return;
  const { ok } = await post("/api/new/abandon", {});
  if (ok) setStatus("The game was abandoned: make a new one.");
}

// -- the table between games, for every role ------------------------------------------------------
function chosenLine(lobby) {
  return lobby.names.map((name, s) => `${name}: ${lobby.chosen[s] ? "has chosen" : "choosing…"}`).join(" · ");
}

let firstRevision = null;
function show(lobby) {
  if (firstRevision === null) firstRevision = lobby.revision;
  const onNew = location.pathname === "/new";
  if (lobby.state === "playing" && (!onNew || lobby.revision > firstRevision)) {
    if (seat !== null) location.reload(); else location.href = `/${q}`;      // the game's own page
    return false;
  }
  if (isReferee && lobby.table) showTable(lobby.table);
  if (isReferee && lobby.table) $("table-start").hidden = !(lobby.state === "choosing" && lobby.chosen.every(Boolean));
  if (isReferee && onNew && lobby.state === "playing") { $("playing").hidden = false; $("back").href = `/${q}`; }
  if (lobby.state === "choosing") {
    $("chosen").textContent = chosenLine(lobby);
    if (isReferee && !onNew) showWaiting(lobby);
    if (seat !== null) choicesForm(lobby);
  } else if (seat === null && !isReferee) {
    $("chosen").textContent = "";
  } else if (isReferee && lobby.state === "none") {   // no game (one was abandoned): the form again
    $("waiting").hidden = true;
    $("new-game").hidden = false;
    $("join").replaceChildren();
  }
  return true;
}

// The live lobby, as the game pages follow /api/stream: the server sends the lobby as this
// page's role may see it at once and after each change, and "reload" once this page's token no
// longer grants what it did (another game replaced the one it was made for). After a dropped
// connection the browser reconnects by itself; a stream refused (503) is retried with back-off.
let backoff = 0;
function connect() {
  const es = new EventSource(`/api/lobby/stream${q}`);
  es.addEventListener("reload", () => { es.close(); location.reload(); });
  es.addEventListener("lobby", (e) => {
    backoff = 0;
    if (!show(JSON.parse(e.data))) es.close();
  });
  es.onerror = () => {
    if (es.readyState !== EventSource.CLOSED) return;           // the browser reconnects by itself
    es.close();
    backoff = Math.min(30, backoff ? 2 * backoff : 2);
    setTimeout(connect, Math.round(1000 * backoff * (0.8 + 0.4 * Math.random())));
  };
}

// -- a Discovery Island player's secret choices -------------------------------------------------------
let cardsShown = false;
function cost() {
  const picked = [...document.querySelectorAll("#cards input:checked")].map((c) => c.value);
  return [picked, picked.reduce((n, name) => n + OPTIONS.cardCost[name], 0)];
}
function showCost(budget) {
  const [, total] = cost();
  $("cost").textContent = `${total} of ${budget} points`;
  $("cost").classList.toggle("bad", total > budget);
}
// The island drawn by the server: tapping a hex of land without a feature fills the landing in
// (typing it stays possible); the server checks it again when the choices are confirmed.
async function landingMap() {
  const r = await fetch(`/api/lobby/map.svg${q}`);
  if (!r.ok) return;                                  // the typed hex still works
  $("landing-map").innerHTML = await r.text();
  const mark = () => document.querySelectorAll("#landing-map polygon").forEach((p) => {
    p.classList.toggle("picked", p.dataset.cell === $("landing").value.replaceAll(" ", ""));
  });
  document.querySelectorAll("#landing-map polygon.landable").forEach((p) => {
    p.onclick = () => { $("landing").value = p.dataset.cell; mark(); setStatus(`Your opponent lands on ${p.dataset.cell}; confirm to send it.`); };
  });
  $("landing").oninput = mark;
  mark();
}

function choicesForm(lobby) {
  if (cardsShown) return;
  cardsShown = true;
  const opts = lobby.options, mine = lobby.mine || { equipment: [], landing: null };
  OPTIONS.cardCost = Object.fromEntries(opts.cards.map((c) => [c.name, c.cost]));
  $("cards").append(...opts.cards.map((c) => {
    const label = document.createElement("label"), box = document.createElement("input");
    label.className = "card"; box.type = "checkbox"; box.value = c.name; box.id = `card-${c.name}`;
    box.checked = mine.equipment.includes(c.name);
    box.onchange = () => showCost(opts.budget);
    const uses = Object.entries(c.terrain_uses).map(([t, n]) => `${t} ${n}`).join(", ");
    label.append(box, `${words(c.name)}: ${c.cost} points${c.protects.length ? ", against " + c.protects.map(words).join(", ") : ""} (${uses})`);
    return label;
  }));
  if (mine.landing) $("landing").value = mine.landing.join(",");
  if (opts.start_on_feature) {            // the referee's ruling: any land hex, a checkpoint or cache too
    $("landing-how").textContent = "Where does your opponent land? Tap a hex of land on the map (a checkpoint or cache too, by this game's ruling), or type it below.";
  }
  landingMap();
  $("landing").placeholder = `column 0-${opts.width - 1}, row 0-${opts.height - 1}`;
  showCost(opts.budget);
  $("choices").onsubmit = async (e) => {
    e.preventDefault();
    const [equipment, total] = cost();
    if (total > opts.budget) { setStatus(`Your cards cost ${total} points; at most ${opts.budget} may be spent.`, true); return; }
    const parts = $("landing").value.split(",").map((x) => Number(x.trim()));
    if (parts.length !== 2 || parts.some((x) => !Number.isInteger(x))) { setStatus("Give the hex as column,row, e.g. 12,8.", true); return; }
    const { ok, answer } = await post("/api/choices", { equipment, landing: parts });
    if (ok) setStatus(answer.state === "playing" ? "Both have chosen: the game starts."
      : answer.state === "chosen" ? "Both have chosen: the referee starts the game once the table is confirmed."
      : "Your choices are made; you may change them until the other player has chosen.");
  };
}

if (isReferee) {
  fill($("game"), Object.entries(OPTIONS.games).map(([id, g]) => [id, g.title]), "forbidden-desert");
  fill($("difficulty"), OPTIONS.difficulties.map((d) => [d, d]), "normal");
  const [low, high, dflt] = OPTIONS.radius, radii = [];
  for (let r = low; r <= high; r++) radii.push([String(r), r === 4 ? `${r} (the printed mat)` : String(r)]);
  fill($("radius"), radii, String(dflt));
  fill($("variant"), OPTIONS.variants.map((v) => [v, v]), "free");
  $("game").onchange = gameChanged;
  $("count").onchange = players;
  $("new-game").onsubmit = startGame;
  $("fix-save").onclick = saveFix;
  $("fix-cancel").onclick = () => { $("fix").hidden = true; };
  $("read-again").onclick = readAgain;
  $("table-start").onclick = startFromTable;
  $("abandon").onclick = abandonGame;
  gameChanged();
}
connect();

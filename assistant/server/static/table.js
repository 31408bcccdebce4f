// The tablet page: draws each snapshot the server streams; holds no game logic of its own.
"use strict";
const body = document.body;
const token = new URLSearchParams(location.search).get("token") || "";
const seat = body.dataset.seat === "" ? null : Number(body.dataset.seat);
const isReferee = body.dataset.referee === "yes";
const q = token ? `?token=${encodeURIComponent(token)}` : "";
const $ = (id) => document.getElementById(id);
let last = null;

function cellId(cell) {
  if (!Array.isArray(cell)) return String(cell);
  if (cell.length === 1) return `${cell[0]} place`;       // a mat place that is no cell: ["card"]
  if (body.dataset.game === "forbidden-desert") return "ABCDE"[cell[1]] + (cell[0] + 1);
  return cell.join(",");
}

function describe(ev) {
  const { index, actor, type, ...rest } = ev;
  const who = typeof actor === "number" ? `player ${actor + 1}` : actor;
  const isCell = (v) => Array.isArray(v) && v.length === 2 && v.every(Number.isInteger);
  const shown = (v) => isCell(v) ? cellId(v) : typeof v === "object" ? JSON.stringify(v) : v;
  const params = Object.entries(rest).map(([k, v]) => `${k.replaceAll("_", " ")} ${shown(v)}`);
  return `${who}: ${type.replaceAll("_", " ")}${params.length ? " (" + params.join(", ") + ")" : ""}`;
}

function playerName(snap, s) {
  return snap.names && snap.names[s] ? `${snap.names[s]} (player ${s + 1})` : `Player ${s + 1}`;
}

function figures(snap) {
  const v = snap.view, out = [];
  const add = (k, val) => { if (val !== undefined && val !== null) out.push([k, val]); };
  add("result", snap.result);
  add("events", snap.events);
  if (snap.game === "forbidden-desert") {
    add("storm meter", `${v.meter} (skull at ${v.skull})`);
    add("sand left", v.sand_supply);
    add("water", (v.water || []).map((w, i) => `${i + 1}: ${w}`).join("  "));
    if (v.storm_loss) add("storm-phase loss risk", `${(100 * v.storm_loss.probability).toFixed(1)} %`);
    add("parts held", (v.parts_held || []).join(", ") || "none");
    (v.hands || []).forEach((hand, i) => add(`equipment, player ${i + 1}`, hand.map((c) => c.replaceAll("_", " ")).join(", ") || "none"));
  } else if (snap.game === "scout-pennant") {
    for (const p of v.players || []) add(`${p.colour} (player ${p.seat + 1})`, `base ${p.base}, on board ${p.on_board}${p.finished ? ", finished" : ""}`);
    add("finishing order", (v.finishing_order || []).map((s) => s + 1).join(", ") || "—");
  } else if (snap.game === "discovery-island") {
    add("march sum", v.march_sum);
    add("marches", (v.marches || []).join(" / "));
    if (snap.seat !== null) {
      if (assist()) add("possible positions", (v.candidates || []).length);
      add("equipment left", Object.entries(v.cards || {}).filter(([, c]) => !c.discarded).map(([name, c]) =>
        `${name.replaceAll("_", " ")} (${Object.entries(c.terrain_left || {}).map(([t, n]) => `${t} ${n}`).join(", ")})`).join("; ") || "none");
      add("clues", Object.entries(v.clues || {}).map(([k, c]) => `${k}: ${c.terrain || c.symbol || c.type}`).join(", ") || "none");
      if (v.lay_next && Object.keys(v.lay_next).length) add("lay next", Object.entries(v.lay_next).map(([d, t]) => `${d} ${t}`).join(", "));
    }
  }
  return out;
}

// The referee taps cells the camera read wrong (after fixing the pieces) and asks it to look again.
const picked = new Set();
function cellKey(id) {
  if (body.dataset.game === "forbidden-desert") return [Number(id.slice(1)) - 1, "ABCDE".indexOf(id[0])];
  return id.split(",").map(Number);
}
function pick(g) {
  const id = g.dataset.cell;
  if (picked.has(id)) picked.delete(id); else picked.add(id);
  g.classList.toggle("picked", picked.has(id));
  $("reread").disabled = picked.size === 0;
  $("reread").textContent = picked.size ? `Look again at ${[...picked].join(", ")}` : "Look again (tap cells)";
}

// Discovery Island's possible-positions assist can be switched off by purists (kept per device).
function assist() { return localStorage.getItem("assist") !== "off"; }

function draw(snap) {
  last = snap;
  $("board").innerHTML = snap.board_svg;       // drawn by the server from the engine's state
  $("board").classList.toggle("no-assist", !assist());
  const hot = new Set(snap.notices.flatMap((n) => n.cells.map(cellId)));
  // Discovery Island's board is the island map, while the camera's cells are the mat's: no
  // highlighting or tapping there (the notice names the mat hex in words)
  const onMat = snap.game !== "discovery-island";
  document.querySelectorAll("#board [data-cell]").forEach((g) => {
    g.classList.toggle("hot", onMat && hot.has(g.dataset.cell));
    g.classList.toggle("picked", picked.has(g.dataset.cell));
    if (isReferee && onMat) g.onclick = () => pick(g);
  });
  const turn = snap.to_move === null ? `Game over: ${snap.result}` :
    typeof snap.to_move === "number" ? `${playerName(snap, snap.to_move)} to move` : `${snap.to_move} phase`;
  $("turn").textContent = turn;
  $("undo").disabled = !snap.can_undo;
  $("figures").replaceChildren(...figures(snap).flatMap(([k, v]) => {
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = k; dd.textContent = v; return [dt, dd];
  }));
  $("recent").replaceChildren(...snap.recent.slice().reverse().map((ev) => {
    const li = document.createElement("li"); li.value = ev.index; li.textContent = describe(ev); return li;
  }));
  $("notices").replaceChildren(...snap.notices.map((n) => {
    const div = document.createElement("div");
    div.className = `notice ${n.kind}`; div.dataset.id = n.id;
    div.append(n.message + (n.cells.length ? ` (${n.cells.map(cellId).join(", ")})` : ""));
    if (isReferee) {
      for (const option of n.options || []) {          // a question: the explanations to choose from
        const b = document.createElement("button"); b.type = "button"; b.className = "option";
        b.textContent = option.map(describe).join("; then ");
        b.onclick = async () => {
          for (const ev of option) { if (!(await post("/api/events", ev)).ok) return; }
          post(`/api/notices/${n.id}/dismiss`);
        };
        div.append(" ", b);
      }
      const b = document.createElement("button"); b.type = "button"; b.textContent = "Dismiss";
      b.onclick = () => post(`/api/notices/${n.id}/dismiss`); div.append(" ", b);
    }
    return div;
  }));
  loadLegal();
  landingForm(snap);
  landingTaps();
  if (isReferee) {
    document.querySelectorAll("#join figcaption").forEach((c, s) => { c.textContent = playerName(snap, s); });
    $("new-game").classList.toggle("ended", snap.to_move === null);
  }
}

// Discovery Island, before the first event: each player chooses where the opponent lands (§5.1).
function landingForm(snap) {
  let form = $("landing");
  const wanted = snap.game === "discovery-island" && seat !== null && snap.events === 0;
  if (!wanted) { if (form) form.remove(); return; }
  if (form) return;
  form = document.createElement("form"); form.id = "landing";
  const label = document.createElement("label"), input = document.createElement("input"), b = document.createElement("button");
  label.htmlFor = "landing-hex"; label.textContent = "Where does your opponent land? (column,row as printed)";
  input.id = "landing-hex"; input.inputMode = "numeric"; input.placeholder = "12,8"; input.required = true;
  b.type = "submit"; b.textContent = "Set";
  form.append(label, input, b);
  form.onsubmit = async (e) => {
    e.preventDefault();
    const parts = input.value.split(",").map((x) => Number(x.trim()));
    if (parts.length !== 2 || parts.some((x) => !Number.isInteger(x))) { setStatus("Give the hex as column,row, e.g. 12,8.", true); return; }
    if ((await post("/api/setup", { landing: parts })).ok) setStatus(`Your opponent lands on ${parts.join(",")}.`);
  };
  $("actions").after(form);
}
// ... or taps the hex on the island drawn above (the server checks it as a typed one).
function landingTaps() {
  if (!$("landing")) return;
  document.querySelectorAll("#board polygon[data-cell]").forEach((p) => {
    p.onclick = () => { $("landing-hex").value = p.dataset.cell; setStatus(`Tap Set to land your opponent on ${p.dataset.cell}.`); };
  });
}

async function loadLegal() {
  const r = await fetch(`/api/legal${q}`);
  if (!r.ok) return;
  const data = await r.json();
  const shown = data.events.slice(0, 60);
  $("legal").replaceChildren(...shown.map((ev) => {
    if (seat === null && !isReferee) {               // the table view: what the player may do, to read
      const span = document.createElement("span"); span.className = "option-text"; span.textContent = describe(ev);
      return span;
    }
    const b = document.createElement("button"); b.type = "button"; b.textContent = describe(ev);
    b.onclick = () => post("/api/events", ev); return b;
  }));
  if (data.total > shown.length) $("legal").append(`… and ${data.total - shown.length} more`);
}

async function post(path, payload) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
                                body: JSON.stringify(payload ?? {}) });
  if (!r.ok) {
    const err = await r.json().catch(() => ({ message: r.statusText }));
    setStatus(err.message, true);
  }
  return r;
}

function setStatus(text, bad = false) { $("status").textContent = text; $("status").classList.toggle("bad", bad); }

// The live view. After a dropped connection the browser reconnects by itself; a stream the
// server refused (503: every live view is taken) or could not open is closed for good, so the
// page backs off (2, 4, 8... up to 30 s, with jitter), says so, and tries again.
let backoff = 0;
function tablets(snap) {
  const open = Object.entries(snap.tablets || {});
  const total = open.reduce((n, [, k]) => n + k, 0);
  return `${total} live view${total === 1 ? "" : "s"} (${open.map(([who, k]) => `${who} ${k}`).join(", ")})`;
}
function connect() {
  const es = new EventSource(`/api/stream${q}`);
  es.addEventListener("reload", () => { es.close(); location.reload(); });   // another game replaced this one
  es.addEventListener("snapshot", (e) => {
    backoff = 0;
    draw(JSON.parse(e.data));
    const devices = Object.entries(last.devices || {}).map(([name, status]) => `${name}: ${status}`);
    const trouble = devices.some((d) => /unplugged|not found|retrying|error/i.test(d));
    const views = last.tablets ? [tablets(last)] : [];
    setStatus(["live · revision " + last.revision, ...views, ...devices].join(" · "), trouble);
  });
  es.onerror = () => {
    if (es.readyState !== EventSource.CLOSED) { setStatus("connection lost, reconnecting…", true); return; }
    es.close();
    backoff = Math.min(30, backoff ? 2 * backoff : 2);
    let left = Math.round(backoff * (0.8 + 0.4 * Math.random()));
    const tick = () => {
      if (left <= 0) { setStatus("connecting again…", true); connect(); return; }
      setStatus(`The live view was refused (every live view is taken, or the server is away); retrying in ${left} s…`, true);
      left -= 1;
      setTimeout(tick, 1000);
    };
    tick();
  };
}

$("undo").onclick = () => post("/api/undo");
if (isReferee && body.dataset.game !== "discovery-island") {
  const b = document.createElement("button"); b.type = "button"; b.id = "reread"; b.disabled = true;
  b.textContent = "Look again (tap cells)";
  b.onclick = async () => {
    if ((await post("/api/reread", { cells: [...picked].map(cellKey) })).ok) {
      picked.clear(); b.disabled = true; b.textContent = "Look again (tap cells)";
      document.querySelectorAll("#board .picked").forEach((g) => g.classList.remove("picked"));
    }
  };
  $("actions").append(b);
}
// Forbidden Desert: the camera reads every slot and compares it with the game; its findings
// come back as the referee's notices (POST /api/check; 409 in one sentence without a camera).
if (isReferee && body.dataset.game === "forbidden-desert") {
  const c = document.createElement("button"); c.type = "button"; c.id = "check";
  c.textContent = "Check the table";
  c.onclick = () => post("/api/check");
  $("actions").append(c);
}
if (body.dataset.game === "discovery-island" && seat !== null) {
  const box = document.createElement("label"), cb = document.createElement("input");
  cb.type = "checkbox"; cb.id = "assist"; cb.checked = assist();
  cb.onchange = () => { localStorage.setItem("assist", cb.checked ? "on" : "off"); if (last) draw(last); };
  box.append(cb, " show where I may be"); box.className = "toggle"; $("actions").append(box);
}
if (isReferee) {
  $("correction").onsubmit = (e) => {
    e.preventDefault();
    let ev;
    try { ev = JSON.parse($("correction-event").value); } catch { setStatus("The correction is not valid JSON.", true); return; }
    post("/api/events", ev);
  };
  $("record").href = `/api/record${q}`;
  $("new-game").href = `/new${q}`;
  for (let s = 0; s < Number(body.dataset.seats); s++) {
    const f = document.createElement("figure"), img = document.createElement("img"), c = document.createElement("figcaption");
    img.src = `/api/join/${s}.svg${q}`; img.alt = `join code for player ${s + 1}`; c.textContent = `player ${s + 1}`;
    f.append(img, c); $("join").append(f);
  }
}
const cam = $("camera-img");
cam.onload = () => { $("camera").classList.add("live"); $("camera-note").textContent = "what the assistant sees"; };
cam.onerror = () => { $("camera").classList.remove("live"); };
setInterval(() => { cam.src = `/api/camera.jpg?t=${Date.now()}`; }, 1000);
connect();

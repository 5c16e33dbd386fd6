// SnapSort review page. Plain JavaScript, no build step, no external resources.
// Talks to the JSON API of the local server (same origin; the token lives in a cookie).
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// ---------- formatting ----------
/** "1 set", "3 sets": a count with its noun, singular or plural. */
function count(n, one, many) {
  return `${n} ${n === 1 ? one : (many || one + "s")}`;
}

function humanBytes(b) {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let v = Number(b) || 0, i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return i === 0 ? `${Math.round(v)} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
// The day the picture says it was taken, on its own clock (what the terminal shows): read
// from taken_at's date, not converted to the browser's time zone.
function niceDate(card) {
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(card.taken_at || "");
  if (day) {
    const d = new Date(Date.UTC(+day[1], +day[2] - 1, +day[3], 12));
    if (!isNaN(d)) return d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
  }
  const t = card.taken_ts ? new Date(card.taken_ts * 1000) : null;
  if (!t || isNaN(t)) return card.taken_at ? card.taken_at.slice(0, 10) : "";
  return t.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
const SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}
function say(text) { $("#status").textContent = text; $("#status").classList.remove("error"); }
/** An error, said where it is seen: the status line becomes a red banner until the next message. */
function sayError(text) { say(text); if (text) $("#status").classList.add("error"); }

// ---------- API ----------
async function api(path, body) {
  const opts = body === undefined ? { credentials: "same-origin" }
    : { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  let res;
  try { res = await fetch("/api/" + path, opts); } catch (_) {
    // The server is gone (stopped, restarted elsewhere): said in a banner, actions wait for it.
    setOffline(true);
    const err = new Error("SnapSort is not answering: start the agent or 'snapsort serve', then try again — nothing was changed");
    err.status = 0; throw err;
  }
  // This page's own change: the version it leads to is taken without redrawing the view — read
  // now, not at the next poll, which also took in a change made meanwhile elsewhere (a scan
  // right after a decision here never showed).
  if (body !== undefined) { live.version = null; syncVersion(); }
  let data = null;
  try { data = await res.json(); } catch (_) { data = null; }
  if (!res.ok) {
    const msg = data && data.error ? data.error.message : `HTTP ${res.status}`;
    const err = new Error(msg); err.status = res.status; throw err;
  }
  return data;
}

// ---------- shared state ----------
// doneToday: today's decisions as the server last said (one goal, counted per day as 'snapsort
// stats', the terminal deck and the status bar count it); null until the first deck loads.
const state = { view: null, session: null, summary: null, doneToday: null, busy: false };

/** "12 431": digits grouped by threes with a space, as the bars and the CLI write them. */
function grouped(n) { return String(Math.round(Number(n) || 0)).replace(/\B(?=(\d{3})+(?!\d))/g, " "); }

function applySummary(s) {
  if (!s) return;
  state.summary = s;
  $("#trash-badge").textContent = s.trash && s.trash.count ? String(s.trash.count) : "";
  $("#undo").disabled = !(s.undo_depth > 0);
  // The models' first pass takes hours on a big library: how far it is, while it runs (issue 41).
  const m = s.models, running = !!(m && m.total > 0 && m.done < m.total);
  $("#models-progress").hidden = !running;
  if (running) {
    $("#models-progress-text").textContent = `Looking at photos: ${grouped(m.done)} of ${grouped(m.total)}`;
    const pct = Math.floor((m.done / m.total) * 100);
    $("#models-progress .bar").setAttribute("aria-valuenow", String(pct));
    $("#models-progress .bar i").style.width = pct + "%";
  }
}
async function refreshSummary() { try { applySummary(await api("summary")); } catch (e) { sayError(e.message); } }

// ---------- theme ----------
function setTheme(t) {
  if (t) document.documentElement.setAttribute("data-theme", t); else document.documentElement.removeAttribute("data-theme");
}
function currentTheme() {
  const t = document.documentElement.getAttribute("data-theme");
  if (t) return t;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
function initTheme() {
  let saved = null;
  try { saved = localStorage.getItem("snapsort-theme"); } catch (_) {}
  if (saved === "dark" || saved === "light") setTheme(saved);
  $("#theme").addEventListener("click", () => {
    const next = currentTheme() === "dark" ? "light" : "dark";
    setTheme(next);
    try { localStorage.setItem("snapsort-theme", next); } catch (_) {}
    $("#theme").setAttribute("aria-pressed", next === "dark" ? "true" : "false");
  });
  $("#theme").setAttribute("aria-pressed", currentTheme() === "dark" ? "true" : "false");
}

// ---------- routing ----------
const views = ["home", "deck", "similar", "trash", "stats", "settings", "later", "kept"];
function route() {
  if (!$("#celebrate").hidden) closeCelebration();  // another view: the dialog does not stay over it
  if (!$("#viewer").hidden) closeViewer();  // Back (a phone's back gesture) leaves the full-screen photo too
  $("#trash-moment").hidden = true;  // a commit's moment belongs to the visit that made it
  let h = "";
  try { h = decodeURIComponent(location.hash.replace(/^#/, "")); } catch (_) { h = ""; }
  let view = "home", arg = null;
  if (h.startsWith("deck=")) { view = "deck"; arg = h.slice(5); }
  else if (views.includes(h)) view = h;
  for (const v of views) $("#view-" + v).hidden = v !== view;
  for (const a of $$("nav a")) {
    if (a.dataset.nav === view) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  state.view = view;
  // A card's video does not play on behind another view.
  if (view !== "deck") for (const v of $$("#stack video")) v.pause();
  // A message said just before (undo from another view) outlives the re-render.
  if (state.keepMessage) state.keepMessage = false; else say("");
  const loaders = { home: loadHome, deck: () => openDeck(arg), similar: loadSimilar, trash: loadTrash, stats: loadStats, settings: loadSettings,
    later: loadLater, kept: loadKept };
  loaders[view]().catch((e) => sayError(e.message));
  // Every view wakes the Undo button (Settings and Stats once left it as the page opened).
  if (view !== "deck") refreshSummary();
}

// ---------- Home ----------
async function loadHome() {
  const all = $("#old-screenshots-all").checked ? "&include_keepers=1" : "";
  const [decks, groups, old] = await Promise.all([api("decks"), api("groups"), api("bulk/old-screenshots?days=30" + all)]);
  const list = decks.decks;
  const months = list.filter((d) => d.kind === "month");
  const waiting = months.reduce((n, d) => n + (d.total - d.reviewed), 0);
  // An empty library is no reviewed one: say where photos come from.
  $("#home-lead").textContent = !months.length ? "" : waiting > 0 ? `${count(waiting, "photo or video is", "photos and videos are")} waiting for a look.` : "Everything has been reviewed. Nice!";
  $("#home-lead").hidden = !months.length;
  $("#home-empty").hidden = months.length > 0;
  fillBrowse(list);
  homeLists().catch(() => {});
  const decksEl = $("#home-decks"); decksEl.replaceChildren();
  // Rediscover, On This Day and the items back from later, then the filters (videos,
  // screenshots, favourites, a camera): every deck `snapsort decks` lists that has cards.
  for (const d of list.filter((d) => ["rediscovery", "on-this-day", "later", "filter"].includes(d.kind) && (d.kind === "rediscovery" || d.waiting > 0))) {
    // A deck of what was reviewed already (Favourites and kept) is to look back on, not "waiting".
    // "Favourites and kept" is Kept and the photos rated 4★ or more: said, so its count and Kept's agree.
    const sub = d.kind === "later" ? `${d.waiting} back from later`
      : d.id === "filter:favourites" ? `${d.waiting} to look back on: kept, or rated 4★ or more`
      : d.total > 0 && d.reviewed >= d.total ? `${d.waiting} to look back on, all reviewed` : `${d.waiting} to look at`;
    decksEl.append(el("a", { class: "tile" + (d.kind === "rediscovery" ? " feature" : ""), href: "#deck=" + encodeURIComponent(d.id) },
      el("span", { class: "t", text: d.title }), el("span", { class: "n", text: sub })));
  }
  // An empty library has its own words above; "No decks waiting" would only repeat them.
  if (!decksEl.children.length && months.length) decksEl.append(el("p", { class: "muted wide", text: "No decks waiting." }));

  const gEl = $("#home-groups"); gEl.replaceChildren();
  for (const g of groups.groups.filter((g) => g.items > 0)) {
    const href = g.id === "similar" ? "#similar" : "#deck=" + encodeURIComponent("group:" + g.id);
    const detail = g.id === "similar" || g.id === "duplicate" ? `${count(g.sets, "set")} · ${humanBytes(g.reclaimable_bytes)} to gain` : `${count(g.items, "item")} · ${humanBytes(g.bytes)}`;
    gEl.append(el("a", { class: "tile", href }, el("span", { class: "t", text: g.title }), el("span", { class: "n", text: detail })));
  }
  if (!gEl.children.length) gEl.append(el("p", { class: "muted wide", text: "No smart groups yet: the agent fills them as it analyzes." }));
  // Groups the local models fill, when they could not run: say why once, not as empty tiles.
  const off = groups.groups.filter((g) => g.unavailable && g.items === 0);
  for (const why of [...new Set(off.map((g) => g.unavailable))]) {
    const names = off.filter((g) => g.unavailable === why).map((g) => g.title).join(", ");
    gEl.append(el("p", { class: "muted wide unavailable", text: `${names}: unavailable — ${why}` }));
  }

  // A set's keeper or last copy stays unless the person says so (the box), and the page says
  // which set, by its keeper's name and date (issue 43).
  const left = old.keepers_left + old.last_copies_left;
  $("#old-screenshots-all-row").hidden = left === 0 && !$("#old-screenshots-all").checked;
  $("#old-screenshots-text").textContent = old.candidates > 0
    ? `${count(old.count, "screenshot")} (${humanBytes(old.bytes)}) older than 30 days to stage.` + (old.left_sentence ? ` ${old.left_sentence}` : "")
    : "No old screenshots waiting.";
  $("#old-screenshots-btn").disabled = old.count === 0;

  const mEl = $("#home-months"); mEl.replaceChildren();
  for (const m of list.filter((d) => d.kind === "month")) {
    const pct = m.total ? Math.round((m.reviewed / m.total) * 100) : 0;
    const bar = el("span", { class: "bar", role: "progressbar", "aria-label": `${m.title} reviewed`, "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(pct) }, el("i"));
    bar.firstChild.style.width = pct + "%";
    mEl.append(el("li", {}, el("a", { href: "#deck=" + encodeURIComponent(m.id), "aria-label": `${m.title}: ${m.reviewed} of ${m.total} reviewed` },
      el("span", { text: m.title }), el("span", { class: "muted", text: `${m.reviewed}/${m.total}` + (m.bytes_to_gain ? ` · ${humanBytes(m.bytes_to_gain)}` : "") }), bar)));
  }
  await refreshSummary();
}
// The filters and the years as choices: a deck of one kind of photo from one year, without
// typing its id ("filter:selfies@2023").
function fillBrowse(list) {
  const what = $("#browse-filter"), year = $("#browse-year");
  const keep = [what.value, year.value];
  const filters = list.filter((d) => d.kind === "filter" && !/@\d+$/.test(d.id));
  what.replaceChildren(el("option", { value: "all", text: "Everything" }),
    ...filters.map((d) => el("option", { value: d.id.slice("filter:".length), text: d.title })));
  const years = [...new Set(list.filter((d) => d.kind === "month").map((d) => d.id.slice(6, 10)))].sort().reverse();
  year.replaceChildren(el("option", { value: "", text: "any year" }), ...years.map((y) => el("option", { value: y, text: y })));
  if ([...what.options].some((o) => o.value === keep[0])) what.value = keep[0];
  if ([...year.options].some((o) => o.value === keep[1])) year.value = keep[1];
  $("#browse-open").disabled = !list.some((d) => d.kind === "month");
}
function openBrowse(e) {
  e.preventDefault();
  const f = $("#browse-filter").value || "all", y = $("#browse-year").value;
  location.hash = "#deck=" + encodeURIComponent("filter:" + f + (y ? "@" + y : ""));
}
async function homeLists() {
  const [later, kept] = await Promise.all([api("later"), api("kept")]);
  $("#home-later-n").textContent = later.back.length || later.resting.length
    ? `${later.back.length} back now · ${later.resting.length} resting` : "Nothing put off";
  $("#home-kept-n").textContent = kept.total ? `${count(kept.total, "item")} kept` : "Nothing kept yet";
}

// ---------- Later and Kept ----------
function whenBack(ts) {
  return new Date(ts * 1000).toLocaleDateString(undefined, { weekday: "short", month: "short", day: "numeric" });
}
/**
 * A grid cell for a listed item: its picture (full screen on press), name, folder and a note,
 * and what changes the person's mind about it there (`action`: a label and what it does).
 */
function listedCell(it, note, action) {
  const open = el("button", { type: "button", class: "cell", "aria-label": `View ${it.name} full screen${note ? ", " + note : ""}`, title: `${it.folder}/${it.name}`,
    onclick: () => openViewer({ kind: it.kind, status: it.status, format: it.format, name: it.name, bytes: it.bytes, display: it.display, original: it.original, taken_at: it.taken_at }) },
    el("img", { src: it.thumb, alt: "", loading: "lazy" }));
  return el("li", {}, el("div", { class: "cellwrap" }, open,
    el("span", { class: "cap" }, fileName(it.name), el("span", { class: "muted", text: humanBytes(it.bytes) })),
    el("span", { class: "cap dir muted", text: shortFolder(it.folder) }),
    note ? el("span", { class: "cap note", text: note }) : null,
    action ? el("button", { type: "button", class: "btn small change", "aria-label": `${action.label}: ${it.name}`, onclick: action.run }, action.label) : null));
}
// A changed mind, through the decision the decks use: a skip takes the item off Later or Kept
// and leaves it undecided in its decks again (one undo step, Ctrl+Z).
async function changeMind(it, words, reload) {
  try {
    const r = await api("decide", { id: it.id, decision: "skip" });
    applySummary(r.summary);
    await reload();
    say(`${it.name} ${words} — Undo (Ctrl+Z) takes it back`);
  } catch (e) { sayError(e.message); }
}
async function loadLater() {
  const d = await api("later");
  const back = $("#later-back"), resting = $("#later-resting");
  back.replaceChildren(...d.back.map((it) => listedCell(it, it.deferrals > 1 ? `put off ${it.deferrals} times` : "back now")));
  if (!d.back.length) back.append(el("li", { class: "muted wide", text: "Nothing is back yet." }));
  resting.replaceChildren(...d.resting.map((it) => listedCell(it, `back ${whenBack(it.back_at)}`,
    { label: "Bring back now", run: () => changeMind(it, "is back now: it waits in its decks again", loadLater) })));
  if (!d.resting.length) resting.append(el("li", { class: "muted wide", text: "Nothing is resting: ↑ on a card puts it off for a week." }));
  $("#later-open").hidden = !d.back.length;
}
let keptShown = 0;
async function loadKept(more) {
  const d = await api("kept" + (more ? `?offset=${keptShown}` : ""));
  const grid = $("#kept-grid");
  if (!more) { grid.replaceChildren(); keptShown = 0; }
  grid.append(...d.items.map((it) => listedCell(it, it.kept_at ? `kept ${whenBack(it.kept_at)}` : null,
    { label: "Un-keep", run: () => changeMind(it, "is no longer kept: it waits in its decks again", () => loadKept()) })));
  keptShown += d.items.length;
  if (!d.total) grid.append(el("li", { class: "muted wide", text: "Nothing kept yet: → on a card keeps it." }));
  $("#kept-total").textContent = count(d.total, "item");
  $("#kept-more").hidden = keptShown >= d.total;
}

async function stageOldScreenshots() {
  const r = await api("bulk/old-screenshots", { days: 30, include_keepers: $("#old-screenshots-all").checked });
  applySummary(r.summary);
  $("#old-screenshots-all").checked = false;
  await loadHome();
  // "Staged 4 · left 1 keeper": what it did and what it left, then which set (never its id).
  say(`${r.message} (${humanBytes(r.bytes)} for the Trash).` + (r.left_sentence ? ` ${r.left_sentence}` : "") + " One undo takes them all back.");
}

// ---------- Deck ----------
const marks = {
  trash: () => { const s = svg("svg", { viewBox: "0 0 100 100", class: "mark-trash" }); s.append(svg("path", { d: "M20 20 80 80" }), svg("path", { d: "M80 20 20 80" })); return s; },
  keep: () => { const s = svg("svg", { viewBox: "0 0 100 100", class: "mark-keep" }); s.append(svg("circle", { cx: "50", cy: "50", r: "36" })); return s; },
  later: () => { const s = svg("svg", { viewBox: "0 0 100 100", class: "mark-later" }); s.append(svg("circle", { cx: "50", cy: "50", r: "36" }), svg("path", { d: "M50 28v24l16 10" })); return s; },
  skip: () => { const s = svg("svg", { viewBox: "0 0 100 100", class: "mark-skip" }); s.append(svg("path", { d: "M50 18v58M30 58l20 20 20-20" })); return s; },
};

async function openDeck(id) {
  if (!id) { location.hash = "#home"; return; }
  const s = await api("sessions", { deck: id });
  state.session = s;
  renderDeck();
  await refreshSummary();
}

/** A folder's last two names ("…/DCIM/Camera"): what tells copies apart; the tooltip has it all. */
/**
 * A file name that keeps its end in view: camera names differ in their last digits
 * (IMG_20241018_181629.jpg, IMG_20241018_181633.jpg), so a narrow caption cuts the middle
 * ("IMG_2024…181633.jpg"), not the end. Two spans: the head shrinks with an ellipsis, the
 * tail (the last 10 characters) always shows; the whole name is the element's title.
 */
function fileName(name) {
  const chars = Array.from(name || "");
  const cut = Math.max(0, chars.length - 10);
  return el("span", { class: "fname", title: name },
    el("span", { class: "head", text: chars.slice(0, cut).join("") }),
    el("span", { class: "tail", text: chars.slice(cut).join("") }));
}

function shortFolder(f) {
  const parts = (f || "").split("/").filter((x) => x);
  return parts.length > 2 ? "…/" + parts.slice(-2).join("/") : f;
}

/** A video's length for people: "0:42", "3:00", "1:02:05". */
function clock(seconds) {
  const s = Math.round(seconds), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${r}` : `${m}:${r}`;
}

function cardElement(c) {
  const media = c.kind === "video"
    ? el("video", { src: c.original, muted: true, loop: true, playsinline: true, preload: "metadata", "aria-hidden": "true" })
    : el("img", { src: c.display, alt: "", decoding: "async", draggable: "false" });
  if (c.kind === "video") media.muted = true;
  // Moved or deleted since the scan (or a video the browser cannot play): words, not a broken image.
  media.addEventListener("error", () => {
    media.replaceWith(el("div", { class: "gone-note", text: c.kind === "video" ? "This video cannot be played here" : "Not there now: moved or deleted since the scan" }));
  }, { once: true });
  const label = (c.decision === "trash" ? "Already staged for the Trash: " : c.decision === "keep" ? "Already kept: " : "") +
    `${c.kind === "video" ? "Video" : "Photo"} ${c.name}${niceDate(c) ? ", " + niceDate(c) : ""}${c.kind === "video" && c.duration ? ", " + clock(c.duration) + " long" : ""}, ${humanBytes(c.bytes)}` +
    (c.folder ? `, in ${c.folder}` : "") + (c.set_role ? `, ${c.set_role}` : "") + (c.reason ? `, cannot be read: ${c.reason}` : "");
  const card = el("div", { class: c.qr || c.text ? "card has-found" : "card", role: "group", "aria-roledescription": "card", "aria-label": label, "data-id": String(c.id) },
    el("div", { class: "photo" }, media,
      // Why a file cannot be shown, where the decision is made.
      c.reason ? el("span", { class: "why", text: "Cannot be read: " + c.reason }) : null,
      // Which file it is: copies of one picture differ only in their folder.
      el("span", { class: "where", title: (c.folder ? c.folder + "/" : "") + c.name, "aria-hidden": "true" },
        el("b", { text: c.name }), c.folder ? " · " + c.folder : ""),
      // A copy (of what) or its set's keeper: the original is never trashed unawares.
      c.set_role ? el("span", { class: "role", text: c.set_role.charAt(0).toUpperCase() + c.set_role.slice(1), "aria-hidden": "true" }) : null),
    // Decided elsewhere since the deck was dealt (the terminal, `snapsort decide`): said on the
    // card; a key decides it again.
    c.decision === "trash" || c.decision === "keep"
      ? el("span", { class: "seen decided", text: c.decision === "trash" ? "Already staged for the Trash" : "Already kept" })
      : c.seen_before ? el("span", { class: "seen", text: c.suggest_keep ? "Seen before · keep it?" : "Seen before" }) : null,
    el("div", { class: "mark", "aria-hidden": "true" }),
    el("div", { class: "meta" }, el("span", { class: "date", text: niceDate(c) || c.name }),
      c.kind === "video" && c.duration ? el("span", { class: "duration", text: clock(c.duration) }) : null,
      el("span", { class: "size", text: humanBytes(c.bytes) })),
    // What the scan read: a ticket's code, a receipt's words (text only, never a link).
    c.qr || c.text ? el("div", { class: "found" },
      c.qr ? el("span", { class: "qr", text: "QR: " + c.qr }) : null,
      c.text ? el("span", { class: "text", text: "“" + c.text + "”" }) : null) : null);
  return card;
}

const prefetched = new Set();
function prefetch(cards) {
  for (const c of cards.slice(0, 6)) {
    if (c.kind !== "photo" || prefetched.has(c.display)) continue;
    prefetched.add(c.display);
    const img = new Image(); img.decoding = "async"; img.src = c.display;
  }
}

function renderDeck() {
  const s = state.session;
  $("#deck-title").textContent = s.title;
  const left = s.cards.length;
  $("#deck-count").textContent = left ? `${left} left` : "";
  const goal = Math.max(1, s.goal);
  const today = s.done_today ?? s.decisions;
  const done = Math.min(today, goal);
  $("#goal-fill").style.width = `${(done / goal) * 100}%`;
  const bar = $("#goal-bar");
  bar.setAttribute("aria-valuemax", String(goal)); bar.setAttribute("aria-valuenow", String(done));
  // Past the goal, "16 / 3 today" read like an error: the goal is said reached.
  $("#goal-text").textContent = today > goal ? `goal of ${goal} reached: ${today} today` : `${today} / ${goal} today`;
  const stack = $("#stack");
  const keep = new Map($$(".card", stack).map((c) => [c.dataset.id, c]));
  const wanted = s.cards.slice(0, 3);
  const nodes = wanted.map((c) => {
    const existing = keep.get(String(c.id));
    if (existing && !existing.classList.contains("fly")) { existing.style.transform = ""; existing.style.opacity = ""; existing.querySelector(".mark").replaceChildren(); return existing; }
    return cardElement(c);
  });
  stack.replaceChildren(...nodes);
  nodes.forEach((n, i) => { n.style.zIndex = String(10 - i); n.tabIndex = i === 0 ? 0 : -1; });
  // Only the top card's video plays: the ones below started hidden and reached the top seconds in.
  nodes.forEach((n, i) => {
    const v = n.querySelector("video");
    if (!v) return;
    if (i === 0) { v.play().catch(() => {}); } else { v.pause(); v.currentTime = 0; }
  });
  if (nodes[0]) attachDrag(nodes[0]);
  $("#deck-empty").hidden = left > 0;
  // Done: the recap takes the card's place (it sat under an empty stack's height).
  stack.hidden = left === 0; $(".decide").hidden = left === 0;
  for (const h of $$("#view-deck .hint")) h.hidden = left === 0;
  if (!left) showRecap(s);
  for (const b of $$(".decide button")) b.disabled = left === 0 || live.offline;
  prefetch(s.cards);
  // Celebrated when a decision here reaches today's goal (not again for each deck, and not for
  // a goal the terminal deck reached before this page opened).
  if (state.doneToday !== null && state.doneToday < goal && today >= goal) celebrate(s, today);
  state.doneToday = today;
}

// A finished deck: what was done in it, and the next deck to open (an empty library: where
// photos come from).
async function showRecap(s) {
  const r = s.recap || { kept: 0, trashed: 0, skipped: 0, later: 0, bytes: 0 };
  const figures = $("#recap-figures");
  const fig = (n, what) => el("li", {}, el("span", { class: "big", text: String(n) }), el("span", { class: "muted", text: what }));
  figures.replaceChildren(fig(r.kept, "kept"), fig(r.trashed, "staged for the Trash"), fig(r.skipped, "skipped"), fig(r.later, "put off"),
    fig(humanBytes(r.bytes), "to free: commit, then empty the Trash"));
  const empty = s.total === 0;
  $("#recap-title").textContent = empty ? "Nothing in this deck" : "This deck is done";
  figures.hidden = empty;
  $("#recap-lead").textContent = empty ? "" : r.trashed ? "Nothing has left your library yet: the Trash page moves what you staged." : "";
  const next = $("#recap-next"); next.hidden = true;
  try {
    const decks = (await api("decks")).decks;
    if (!decks.some((d) => d.kind === "month")) {
      $("#recap-lead").textContent = "No photos yet: add a folder under Settings → Photo folders (or 'snapsort roots add DIR'), and the agent looks at it.";
      return;
    }
    const order = ["later", "on-this-day", "month", "group", "filter"];
    const cand = decks.filter((d) => d.id !== s.deck && d.kind !== "rediscovery" && (d.kind === "month" ? d.total > d.reviewed : d.waiting > 0))
      .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
    const n = cand[0];
    if (n) { next.hidden = false; next.href = "#deck=" + encodeURIComponent(n.id); next.textContent = `Next: ${n.title}`; }
  } catch (_) { /* offline: the banner says so */ }
}

const DIRS = { trash: [-1, 0], keep: [1, 0], later: [0, -1], skip: [0, 1] };
function directionFor(dx, dy, axis) {
  if (axis === "x") return dx < 0 ? "trash" : "keep";
  return dy < 0 ? "later" : "skip";
}
function showMark(card, decision, progress) {
  const holder = card.querySelector(".mark");
  if (!decision) { holder.replaceChildren(); return; }
  let s = holder.firstChild;
  if (!s || s.dataset.kind !== decision) { s = marks[decision](); s.dataset.kind = decision; holder.replaceChildren(s); }
  // The mark draws itself: each stroke's dash offset follows the drag.
  for (const p of s.querySelectorAll("path, circle")) {
    const len = p.getTotalLength ? p.getTotalLength() : 200;
    p.style.strokeDasharray = String(len);
    p.style.strokeDashoffset = String(len * (1 - Math.max(0, Math.min(1, progress))));
  }
}

function attachDrag(card) {
  if (card.dataset.drag) return;
  card.dataset.drag = "1";
  let start = null, axis = null, samples = [];
  const LOCK = 24, FRACTION = 0.3, FLICK = 0.9; // px, share of the card, px per ms (900 px/s)
  card.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || state.busy) return;
    start = { x: e.clientX, y: e.clientY }; axis = null; samples = [{ t: e.timeStamp, x: e.clientX, y: e.clientY }];
    card.setPointerCapture(e.pointerId);
    card.classList.add("dragging"); card.classList.remove("settle");
  });
  card.addEventListener("pointermove", (e) => {
    if (!start) return;
    const dx = e.clientX - start.x, dy = e.clientY - start.y;
    samples.push({ t: e.timeStamp, x: e.clientX, y: e.clientY });
    if (samples.length > 8) samples.shift();
    if (!axis && Math.hypot(dx, dy) >= LOCK) axis = Math.abs(dx) >= Math.abs(dy) ? "x" : "y";
    const w = card.offsetWidth, h = card.offsetHeight;
    if (axis === "x") {
      const rot = Math.max(-12, Math.min(12, (dx / w) * 24));
      card.style.transform = `translateX(${dx}px) rotate(${rot}deg)`;
      showMark(card, directionFor(dx, dy, axis), Math.abs(dx) / (w * FRACTION));
    } else if (axis === "y") {
      card.style.transform = `translateY(${dy}px)`;
      showMark(card, directionFor(dx, dy, axis), Math.abs(dy) / (h * FRACTION));
    } else {
      card.style.transform = `translate(${dx * 0.3}px, ${dy * 0.3}px)`;
    }
  });
  const end = (e) => {
    if (!start) return;
    const dx = e.clientX - start.x, dy = e.clientY - start.y;
    card.classList.remove("dragging");
    const first = samples[0], last = samples[samples.length - 1];
    const dt = Math.max(1, last.t - first.t);
    const vx = (last.x - first.x) / dt, vy = (last.y - first.y) / dt;
    const w = card.offsetWidth, h = card.offsetHeight;
    let decision = null;
    if (axis === "x" && (Math.abs(dx) > w * FRACTION || (Math.abs(vx) > FLICK && Math.sign(vx) === Math.sign(dx)))) decision = directionFor(dx, dy, "x");
    if (axis === "y" && (Math.abs(dy) > h * FRACTION || (Math.abs(vy) > FLICK && Math.sign(vy) === Math.sign(dy)))) decision = directionFor(dx, dy, "y");
    // A tap or a click (no drag) opens the photo full screen, as the seeds' "tap a card" says.
    const tap = e.type === "pointerup" && axis === null && Math.hypot(dx, dy) < 10;
    start = null;
    if (decision && e.type !== "pointercancel") { decide(decision, { fromDrag: true }); return; }
    card.classList.add("settle");
    card.style.transform = "";
    showMark(card, null, 0);
    axis = null;
    if (tap) openViewer();
  };
  card.addEventListener("pointerup", end);
  card.addEventListener("pointercancel", end);
}

function flyAway(card, decision) {
  return new Promise((resolve) => {
    const [x, y] = DIRS[decision];
    showMark(card, decision, 1);
    if (reducedMotion()) { resolve(); return; }
    card.classList.remove("settle"); card.classList.add("fly");
    const rot = x * 12;
    card.style.transform = `translate(${x * window.innerWidth}px, ${y * window.innerHeight}px) rotate(${rot}deg)`;
    card.style.opacity = "0";
    setTimeout(resolve, 300);
  });
}

async function decide(decision) {
  const s = state.session;
  if (!s || !s.cards.length) return;
  if (live.offline) { say("SnapSort is not answering: nothing was decided"); return; }
  // One card at a time: a press while the last card flies away is not taken for the next card.
  if (state.busy) { say("One card at a time: the next card is on its way"); return; }
  state.busy = true;
  const current = s.cards[0];
  const card = $(`#stack .card[data-id="${current.id}"]`);
  try {
    const fly = card ? flyAway(card, decision) : Promise.resolve();
    // What this page showed on the card, so a decision made meanwhile in another window is
    // not replaced without a word (a second press, once told, replaces it).
    const body = { id: current.id, decision, session: s.id };
    if (!current.confirmed) body.seen = current.decision ?? null;
    const [res] = await Promise.all([api("decide", body), fly]);
    applySummary(res.summary);
    if (res.session) state.session = res.session;
    const words = { trash: "Staged for the Trash", keep: "Kept", later: "Later", skip: "Skipped" };
    say(`${words[decision]}: ${current.name}`);
    if (res.milestones && res.milestones.length) say(`Milestone reached: ${res.milestones.join(", ")}`);
    if (card) card.remove();
    renderDeck();
  } catch (e) {
    sayError(e.message);
    if (e.status === 409) current.confirmed = true;
    if (card) { card.classList.remove("fly"); card.style.transform = ""; card.style.opacity = ""; showMark(card, null, 0); }
  } finally {
    state.busy = false;
    undoWhatWaits();
  }
}

// Ctrl+Z pressed while a card flies away (the "oops" reflex) waits for it to land, then undoes:
// it was dropped without a word, and the photo stayed staged.
function undoWhatWaits() {
  if (state.pendingUndo > 0) { state.pendingUndo -= 1; undo(); }
}

async function undo() {
  if (state.busy) { state.pendingUndo = (state.pendingUndo || 0) + 1; say("Undoing as soon as this card lands…"); return; }
  state.busy = true;
  try {
    const r = await api("undo", state.undoPastCommit ? { past_commit: true } : {});
    state.undoPastCommit = false;
    applySummary(r.summary);
    const what = r.kind === "keeper" ? `Undone: ${r.name || "the photo"} chosen as the keeper` + (r.restored === "trash" ? " (staged for the Trash again)" : "")
      : r.kind === "not_similar" ? "Undone: not similar (the photos may form a set again)"
      : r.kind === "unmark" ? "Undone: the photos are marked not similar again"
      // An undone restore stages again; nothing goes back to the Trash without a commit.
      : r.kind === "restore" ? `Undone: the restore of ${r.count > 1 ? count(r.count, "item") : r.name || "the item"}` +
        (r.restored_from === "trash" ? " — staged for the Trash again, still in its folder until you commit" : " — staged for the Trash again")
      : r.count > 1 ? `Undone: ${r.count} decisions of one action` : `Undone: ${r.undone || "decision"}` + (r.name ? ` on ${r.name}` : "");
    say(what +
      (r.committed_since > 0 ? ` (the last commit is not undone here: Trash → Put back)` : ""));
    if (state.view === "similar") await loadSimilar();
    if (state.view === "deck" && r.session && state.session && r.session.id === state.session.id) {
      state.session = r.session;
      $("#stack").replaceChildren();
      renderDeck();
    } else if (state.view !== "deck") {
      state.keepMessage = true;
      route();
    }
  } catch (e) {
    // Right after a commit: said, and a second press goes past it.
    const pastCommit = e.status === 409 && /press Undo again/.test(e.message || "");
    state.undoPastCommit = pastCommit;
    say(pastCommit ? e.message : e.status === 409 ? "Nothing to undo" : e.message);
    state.pendingUndo = 0;
  } finally {
    state.busy = false;
    undoWhatWaits();
  }
}

function celebrate(s, today) {
  const box = $("#celebrate");
  box.hidden = false;
  const target = s.bytes || 0, out = $("#celebrate-bytes");
  // A session of keeps frees nothing: "0 B ready to free" read as a failure; it says what was done.
  $("#celebrate-freed").hidden = target === 0;
  $("#celebrate-kept").hidden = target !== 0;
  $("#celebrate-count").textContent = String(today);
  if (reducedMotion()) { out.textContent = humanBytes(target); }
  else {
    const t0 = performance.now(), dur = 1200;
    const step = (t) => {
      const k = Math.min(1, (t - t0) / dur);
      out.textContent = humanBytes(Math.round(target * (1 - Math.pow(1 - k, 3))));
      if (k < 1) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }
  // "Keep going" only when this deck has cards left; at its end, home is the way on.
  $("#celebrate-more").hidden = !s.cards.length;
  // Modal as it says (aria-modal): the page behind is inert while it is open, so Tab stays in it.
  for (const e of document.body.children) if (e.id !== "celebrate") e.inert = true;
  ($("#celebrate-more").hidden ? $("#celebrate-home") : $("#celebrate-more")).focus();
}
function closeCelebration() {
  $("#celebrate").hidden = true;
  if ($("#viewer").hidden) for (const e of document.body.children) e.inert = false;
}

// ---------- Full screen viewer ----------
const viewer = { scale: 1, x: 0, y: 0, pointers: new Map(), pinch: null, pan: null, opener: null };
function openViewer(card) {
  const c = card || (state.session && state.session.cards[0]);
  if (!c) return;
  viewer.opener = document.activeElement;
  const stage = $("#viewer-stage");
  const media = c.kind === "video"
    ? el("video", { src: c.original, controls: true, autoplay: true, playsinline: true, "aria-label": `Video ${c.name}` })
    : el("img", { src: c.display, alt: `Photo ${c.name}`, draggable: "false" });
  // Zooming in to judge sharpness wants every pixel: a JPEG, PNG or WebP the browser draws
  // itself is swapped for the original once it has loaded (the rendition is 2048 px at most).
  if (c.kind !== "video" && ["jpeg", "png", "webp"].includes(c.format) && c.status === "ok") {
    const full = new Image();
    full.decoding = "async";
    full.onload = () => { if (media.isConnected) media.src = full.src; };
    full.src = c.original;
  }
  stage.replaceChildren(media);
  // The card's video stops under the viewer (it played on, sound and all, behind it).
  for (const v of $$("#stack video")) v.pause();
  $("#viewer-caption").textContent = [c.name, niceDate(c), humanBytes(c.bytes)].filter((x) => x).join(" · ");
  viewer.scale = 1; viewer.x = 0; viewer.y = 0; applyZoom();
  $("#viewer").hidden = false;
  // A modal dialog: everything behind it is out of reach (Tab stays in the viewer).
  for (const e of document.body.children) if (e.id !== "viewer") e.inert = true;
  $("#viewer-close").focus();
}
// Tab and Shift+Tab go round the viewer's controls (the page behind is inert).
function trapViewerTab(e) {
  if (e.key !== "Tab" || $("#viewer").hidden) return;
  const items = $$("#viewer button, #viewer video[controls]").filter((x) => !x.disabled);
  if (!items.length) return;
  const i = items.indexOf(document.activeElement);
  const next = e.shiftKey ? (i <= 0 ? items.length - 1 : i - 1) : (i < 0 || i === items.length - 1 ? 0 : i + 1);
  e.preventDefault();
  items[next].focus();
}
function closeViewer() {
  const v = $("#viewer-stage video"); if (v) v.pause();
  for (const e of document.body.children) e.inert = false;
  $("#viewer").hidden = true;
  $("#viewer-stage").replaceChildren();
  const top = $("#stack .card video");
  if (top && state.view === "deck") top.play().catch(() => {});
  if (viewer.opener && viewer.opener.focus) viewer.opener.focus();
}
function applyZoom() {
  const m = $("#viewer-stage img, #viewer-stage video");
  if (!m) return;
  if (viewer.scale <= 1) { viewer.scale = 1; viewer.x = 0; viewer.y = 0; }
  m.style.transform = `translate(${viewer.x}px, ${viewer.y}px) scale(${viewer.scale})`;
  $("#viewer-stage").classList.toggle("zoomed", viewer.scale > 1);
}
function zoomAt(px, py, factor) {
  const s0 = viewer.scale, s1 = Math.max(1, Math.min(8, s0 * factor));
  // Keep the point under the cursor where it is.
  viewer.x = px - ((px - viewer.x) * s1) / s0;
  viewer.y = py - ((py - viewer.y) * s1) / s0;
  viewer.scale = s1;
  applyZoom();
}
function initViewer() {
  const stage = $("#viewer-stage");
  const local = (e) => { const r = stage.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
  stage.addEventListener("wheel", (e) => { e.preventDefault(); const [x, y] = local(e); zoomAt(x, y, Math.exp(-e.deltaY * 0.0015)); }, { passive: false });
  stage.addEventListener("dblclick", (e) => { const [x, y] = local(e); if (viewer.scale > 1) { viewer.scale = 1; applyZoom(); } else zoomAt(x, y, 2.5); });
  stage.addEventListener("pointerdown", (e) => {
    if (e.target.tagName === "VIDEO" && viewer.scale === 1) return; // leave the controls alone
    stage.setPointerCapture(e.pointerId);
    viewer.pointers.set(e.pointerId, local(e));
    if (viewer.pointers.size === 2) {
      const [a, b] = [...viewer.pointers.values()];
      viewer.pinch = { d: Math.hypot(a[0] - b[0], a[1] - b[1]), s: viewer.scale };
    } else viewer.pan = { p: local(e), x: viewer.x, y: viewer.y };
  });
  stage.addEventListener("pointermove", (e) => {
    if (!viewer.pointers.has(e.pointerId)) return;
    viewer.pointers.set(e.pointerId, local(e));
    if (viewer.pointers.size === 2 && viewer.pinch) {
      const [a, b] = [...viewer.pointers.values()];
      const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
      const cx = (a[0] + b[0]) / 2, cy = (a[1] + b[1]) / 2;
      zoomAt(cx, cy, (viewer.pinch.s * (d / viewer.pinch.d)) / viewer.scale);
    } else if (viewer.pan && viewer.scale > 1) {
      const p = local(e);
      viewer.x = viewer.pan.x + p[0] - viewer.pan.p[0];
      viewer.y = viewer.pan.y + p[1] - viewer.pan.p[1];
      applyZoom();
    }
  });
  const up = (e) => { viewer.pointers.delete(e.pointerId); if (viewer.pointers.size < 2) viewer.pinch = null; if (!viewer.pointers.size) viewer.pan = null; };
  stage.addEventListener("pointerup", up);
  stage.addEventListener("pointercancel", up);
  $("#viewer-close").addEventListener("click", closeViewer);
  $("#viewer-zoom-in").addEventListener("click", () => zoomAt(stage.clientWidth / 2, stage.clientHeight / 2, 1.5));
  $("#viewer-zoom-out").addEventListener("click", () => zoomAt(stage.clientWidth / 2, stage.clientHeight / 2, 1 / 1.5));
}

// ---------- Similar Shots ----------
// The sets' order on screen: an action on a set (a new keeper) keeps every set where it was and
// the focus on what was clicked; a fresh visit takes the server's order (most to gain first).
let similarOrder = [];
async function loadSimilar() { similarOrder = []; renderSimilar(await api("similar")); await refreshSummary(); }
function renderSimilar(data, focusID) {
  const at = new Map(similarOrder.map((id, i) => [id, i]));
  data.sets = data.sets.map((s, i) => [s, at.has(s.id) ? at.get(s.id) : similarOrder.length + i]).sort((a, b) => a[1] - b[1]).map((p) => p[0]);
  similarOrder = data.sets.map((s) => s.id);
  const list = $("#similar-list"); list.replaceChildren();
  $("#similar-all").disabled = !data.sets.length;
  if (!data.sets.length) { list.append(el("p", { class: "muted", text: "No similar shots right now." })); return; }
  data.sets.forEach((set, i) => {
    const shots = el("div", { class: "shots", role: "list" });
    for (const m of set.members) {
      const staged = m.decision === "trash";
      const b = el("button", { type: "button", class: "shot" + (staged ? " staged" : ""), "aria-pressed": m.keeper ? "true" : "false",
        "aria-label": `${m.name} in ${m.folder}, ${humanBytes(m.bytes)}${m.keeper ? ", keeper" : ", make this the keeper"}${staged ? ", staged for the Trash" : ""}` +
          (m.decision === "keep" ? ", kept" : "") + (m.why && m.why.length ? `, ${m.why.join(", ")}` : ""),
        "data-id": String(m.id), title: `${m.folder}/${m.name}` },
        el("span", { class: "frame" }, el("img", { src: m.thumb, alt: "", loading: "lazy", draggable: "false" })),
        el("span", { class: "cap" }, fileName(m.name), el("span", { class: "size", text: `\u00a0· ${humanBytes(m.bytes)}` })),
        el("span", { class: "cap dir", text: shortFolder(m.folder) }),
        // What decided the keeper ("sharpest · eyes open"), what another frame lacks ("less sharp").
        m.why && m.why.length ? el("span", { class: "cap why" + (m.keeper ? " good" : ""), text: m.why.join(" · ") }) : null,
        m.keeper ? el("span", { class: "tag", text: (m.chosen_by_user ? "Your keeper" : "Keeper") + (m.decision === "keep" ? " · kept" : "") })
          : staged ? el("span", { class: "tag", text: "Trash" })
          // A frame already kept (in a deck, the terminal) says so: "trash the rest" leaves it.
          : m.decision === "keep" ? el("span", { class: "tag kept", text: "Kept" }) : null);
      attachLoupe(b, m.display);
      b.addEventListener("click", async () => {
        if (m.keeper) return;
        try {
          const r = await api("similar/keeper", { id: m.id });
          renderSimilar(r, m.id);
          await refreshSummary();  // the choice is an undo step: the Undo button wakes
          say(`${m.name} is the keeper now${r.unstaged ? " (no longer staged for the Trash)" : ""}`);
        } catch (e) { sayError(e.message); }
      });
      // A frame is judged full screen before it is chosen (the viewer zooms to every pixel).
      const ext = (/\.([a-z0-9]+)$/i.exec(m.name) || [])[1] || "";
      const format = { jpg: "jpeg", jpeg: "jpeg", png: "png", webp: "webp" }[ext.toLowerCase()] || ext.toLowerCase();
      const enlarge = el("button", { type: "button", class: "enlarge", "aria-label": `View ${m.name} full screen`, title: "View full screen",
        onclick: () => openViewer({ kind: "photo", status: "ok", format, name: m.name, bytes: m.bytes, display: m.display, original: m.original }) }, "⤢");
      shots.append(el("div", { class: "shotwrap", role: "listitem" }, b, enlarge));
    }
    // What "trash the rest" would still stage: the others not staged yet (nor kept or deferred,
    // which it leaves alone). Once all of them are staged, the set says so instead of "to gain".
    const rest = set.members.filter((m) => !m.keeper);
    const pending = rest.filter((m) => !m.decision || m.decision === "skip");
    const gain = pending.reduce((n, m) => n + m.bytes, 0);
    const keeperStaged = set.members.some((m) => m.keeper && m.decision === "trash");
    const summary = keeperStaged ? "the keeper is staged for the Trash: choose the photo to keep"
      : pending.length ? `${humanBytes(gain)} to gain` : rest.some((m) => m.decision === "trash") ? "the rest is staged for the Trash" : "the rest is decided";
    const row = el("section", { class: "simrow", "aria-label": `Group ${i + 1} of ${data.sets.length}` },
      el("header", {},
        el("span", { text: `${count(set.members.length, "shot")} · ${summary}` }),
        el("span", {},
          el("button", { type: "button", class: "btn", onclick: async () => { try { renderSimilar(await api("similar/not-similar", { set: set.id })); say("Marked as not similar"); } catch (e) { sayError(e.message); } } }, "Not similar"),
          " ",
          el("button", { type: "button", class: "btn danger", disabled: keeperStaged || !pending.length, onclick: async () => { try { const r = await api("similar/trash-rest", { set: set.id }); renderSimilar(r); await refreshSummary(); say(`${r.message}. One undo takes them all back.`); } catch (e) { sayError(e.message); } } }, "Trash the rest"))),
      shots);
    list.append(row);
  });
  if (focusID != null) list.querySelector(`.shot[data-id="${focusID}"]`)?.focus();
}

/**
 * Zoom on press: holding a frame down magnifies it 3× under the pointer (eyes, focus, blur are
 * judged there); moving looks around; letting go ends it. A press that zoomed chooses nothing.
 */
function attachLoupe(button, full) {
  const img = button.querySelector(".frame img");
  let timer = null, zoomed = false;
  const aim = (e) => {
    const r = img.getBoundingClientRect();
    const x = Math.max(0, Math.min(100, ((e.clientX - r.left) / r.width) * 100)), y = Math.max(0, Math.min(100, ((e.clientY - r.top) / r.height) * 100));
    img.style.transformOrigin = `${x}% ${y}%`;
  };
  button.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    aim(e);
    timer = setTimeout(() => {
      zoomed = true; button.classList.add("loupe");
      // The thumbnail has too few pixels to judge at 3×: the larger rendition, once asked for.
      if (full && !img.dataset.full) { img.dataset.full = "1"; img.src = full; }
    }, 300);
  });
  button.addEventListener("pointermove", (e) => { if (zoomed) aim(e); });
  const end = () => {
    clearTimeout(timer); timer = null;
    if (zoomed) { button.classList.remove("loupe"); setTimeout(() => { zoomed = false; }, 0); }
  };
  for (const t of ["pointerup", "pointerleave", "pointercancel"]) button.addEventListener(t, end);
  button.addEventListener("click", (e) => { if (zoomed) { e.stopImmediatePropagation(); e.preventDefault(); } }, true);
}

// ---------- Trash ----------
let trashData = null;
async function loadTrash() { trashData = await api("trash"); renderTrash(); await refreshSummary(); }
function selectedTrash() { return $$("#trash-grid input:checked").map((i) => Number(i.value)); }
function updateTrashButtons() {
  const n = selectedTrash().length;
  $("#trash-restore").disabled = n === 0;
  $("#trash-restore").textContent = n ? `Restore ${n} selected` : "Restore selected";
}
function renderTrash() {
  const d = trashData;
  $("#trash-total").textContent = `${d.count} item${d.count === 1 ? "" : "s"} · ${humanBytes(d.bytes)}`;
  const grid = $("#trash-grid"); grid.replaceChildren();
  for (const it of d.items) {
    const input = el("input", { type: "checkbox", value: String(it.id), "aria-label": `Select ${it.name}` });
    input.addEventListener("change", updateTrashButtons);
    // A file changed since it was reviewed, or not there, stays where it is at the commit.
    const flag = it.unreachable ? `Cannot be reached now: ${it.unreachable}` : it.missing ? "Missing: not there now" : it.changed_since_review ? "Changed since review: will stay" : null;
    grid.append(el("li", { class: flag ? "held" : "" }, el("label", { title: `${it.folder}/${it.name}` }, input, el("img", { src: it.thumb, alt: "", loading: "lazy" }),
      el("span", { class: "cap" }, fileName(it.name), el("span", { class: "muted", text: humanBytes(it.bytes) })),
      el("span", { class: "cap dir muted", text: shortFolder(it.folder) }),
      flag ? el("span", { class: "cap flag", text: flag }) : null,
      // Nothing of its set stays once the staged items go (a duplicate or Similar Shots set staged whole).
      it.last_copy && it.last_copy_set ? el("span", { class: "cap flag", text: "Last copy: nothing of its set stays" }) : null)));
  }
  if (!d.items.length) grid.append(el("li", { class: "muted wide", text: "Nothing staged. Swipe left on a card to stage it here." }));
  $("#trash-commit").disabled = d.count === 0;
  $("#trash-select-all").disabled = d.count === 0;
  const sys = $("#trash-system"); sys.replaceChildren();
  if (d.in_system_trash.length) {
    sys.append(el("h2", { text: "In your desktop's Trash" }),
      el("p", { class: "muted", text: `${humanBytes(d.in_trash_bytes)} still use the disk until the Trash is emptied.` }));
    // Newest first: right after a commit, the files just moved are the ones to reach.
    const all = [...d.in_system_trash].sort((a, b) => b.trashed_at - a.trashed_at || b.ledger - a.ledger);
    const shown = all.slice(0, 200);
    if (all.length > 1) {
      sys.append(el("p", {}, el("button", { type: "button", class: "btn", id: "trash-restore-all-system", onclick: async () => {
        // The page's own dialog, never the browser's confirm() (issue 43).
        if (!(await ask(`Put back all ${all.length} items?`, "They go from your desktop's Trash back to their folders, and wait for a verdict again.", `Put back ${all.length}`))) {
          say("Nothing was put back"); return;
        }
        try {
          const r = await api("trash/restore", { ledger: all.map((t) => t.ledger) });
          trashData = r; renderTrash(); await refreshSummary();
          const outs = (r.restored || []).filter((o) => !o.sidecar);
          const skipped = outs.filter((o) => o.result === "skipped");
          say(`${outs.length - skipped.length} put back` + (skipped.length ? `; not put back: ${skipped.map((o) => `${o.name} (${o.reason})`).join(", ")}` : ""));
        } catch (e) { sayError(e.message); }
      } }, `Put back all ${all.length}`)));
    }
    const ul = el("ul", { class: "plain" });
    for (const t of shown) {
      ul.append(el("li", { title: `${t.folder}/${t.name}` }, `${t.name} · ${shortFolder(t.folder)} · ${humanBytes(t.bytes)} `,
        el("button", { type: "button", class: "btn", "aria-label": `Put back ${t.name}`, onclick: async () => {
          try {
            const r = await api("trash/restore", { ledger: [t.ledger] });
            trashData = r; renderTrash(); await refreshSummary();
            const o = (r.restored || []).find((x) => !x.sidecar);
            say(o && o.result === "skipped" ? `Not put back: ${o.reason} (${o.folder}/${o.name})` : `${t.name} is back in ${t.folder}`);
          } catch (e) { sayError(e.message); }
        } }, "Put back")));
    }
    sys.append(ul);
    if (all.length > shown.length) {
      sys.append(el("p", { class: "muted", text: `And ${all.length - shown.length} older ones: 'snapsort trash list --json' lists them all; 'snapsort trash restore FILE' puts one back.` }));
    }
  }
  updateTrashButtons();
}
async function restoreSelected() {
  const ids = selectedTrash();
  if (!ids.length) return;
  trashData = await api("trash/restore", { ids });
  renderTrash(); await refreshSummary();
  const outs = (trashData.restored || []).filter((o) => !o.sidecar);
  const skipped = outs.filter((o) => o.result === "skipped");
  const done = outs.length - skipped.length;
  say(`${done} item${done === 1 ? "" : "s"} taken off the Trash list` + (skipped.length ? `; not restored: ${skipped.map((s) => `${s.name} (${s.reason})`).join(", ")}` : ""));
}
let commitIDs = [];
async function commitTrash() {
  // The list as it is now (another window or the terminal may have staged more): the dialog
  // names what the commit moves, and the commit moves only that.
  try { trashData = await api("trash"); renderTrash(); } catch (e) { sayError(e.message); return; }
  // The question is the server's (Core's `CommitPlan`, which `snapsort trash commit` asks in the
  // same words): what moves with what goes with it, what stays and why, the last copies.
  const plan = trashData.commit;
  commitIDs = plan.ids;
  if (!commitIDs.length) { say("Nothing is staged for the Trash."); return; }
  const dlg = $("#confirm");
  $("#confirm-title").textContent = plan.question + (plan.staying ? ` ${plan.staying}` : "");
  $("#confirm-ok").textContent = plan.confirm;
  // A set staged whole leaves nothing of its pictures in the library: named, never unseen.
  const last = plan.last_copies;
  $("#confirm-last").textContent = last || "";
  $("#confirm-last").hidden = !last;
  state.committing = false;
  dlg.showModal();
}
// Cancel (or Escape) says that nothing moved: an older message ("Undone: the restore of …")
// stayed on the status line as if it answered the dialog (issue 43).
function commitDialogClosed() { if (!state.committing) say("Nothing was moved: the staged items wait here"); }
async function confirmCommit() {
  state.committing = true;
  $("#confirm").close();
  try {
    const r = await api("trash/commit", { confirm: true, ids: commitIDs });
    trashData = r; renderTrash(); await refreshSummary();
    const skipped = r.outcomes.filter((o) => o.result === "skipped");
    say(`${r.committed} moved to the Trash (${humanBytes(r.committed_bytes)})` + (skipped.length ? `; ${skipped.length} left in place: ${skipped.map((s) => `${s.name} (${s.reason})`).join(", ")}` : "") +
      (r.left_staged ? `; ${r.left_staged} staged meanwhile ${r.left_staged === 1 ? "waits" : "wait"} for the next commit` : ""));
    if (r.committed > 0) commitMoment(r.committed_bytes, r.milestones || []);
  } catch (e) { sayError(e.message); }
}
/**
 * A commit's moment (the seeds' counter that ticks up as the pile is emptied): what it moved,
 * counted up from 0, with the streak and today's goal; it frees the disk once the desktop's
 * Trash is emptied, and says so (one meaning a number, issue 43).
 */
function commitMoment(bytes, milestones) {
  const box = $("#trash-moment"), out = $("#moment-bytes"), s = state.summary || {};
  box.hidden = false;
  out.dataset.target = String(bytes);
  const streak = s.streak ? `${count(s.streak.current, "day")} in a row` : null;
  const goal = s.goal ? `${s.goal.done_today} reviewed today · goal ${s.goal.target}` : null;
  const waiting = s.trash && s.trash.in_trash_bytes ? `${humanBytes(s.trash.in_trash_bytes)} waits in your desktop's Trash: emptying it frees the space` : null;
  $("#moment-more").textContent = [streak && `Streak: ${streak}`, goal, waiting, milestones.length ? `Milestone: ${milestones.join(", ")}` : null].filter((x) => x).join(" · ");
  if (reducedMotion() || !bytes) { out.textContent = humanBytes(bytes); return; }
  const t0 = performance.now(), dur = 1200;
  const step = (t) => {
    const k = Math.min(1, (t - t0) / dur);
    out.textContent = humanBytes(Math.round(bytes * (1 - Math.pow(1 - k, 3))));
    if (k < 1) requestAnimationFrame(step);
  };
  out.textContent = humanBytes(0);
  requestAnimationFrame(step);
}

// ---------- Stats ----------
const milestoneNames = { cleared_100mb: "100 MB cleared", cleared_1gb: "1 GB cleared", cleared_10gb: "10 GB cleared", reviewed_100: "100 reviewed", reviewed_1000: "1 000 reviewed", reviewed_10000: "10 000 reviewed", streak_7: "7-day streak", streak_30: "30-day streak" };
async function loadStats() {
  const s = await api("stats");
  const tiles = $("#stats-tiles"); tiles.replaceChildren();
  const tile = (label, value, note) => el("div", { class: "tile" }, el("span", { class: "n", text: label }), el("span", { class: "v", text: value }), note ? el("span", { class: "n", text: note }) : null);
  // One meaning a number (issue 43): moved to the Trash by a commit, waiting there, and
  // cleared — left the disk when the Trash was emptied.
  const moved = s.bytes_moved_to_trash || { total: 0, week: 0 };
  tiles.append(
    tile("Moved to the Trash", humanBytes(moved.total), `${humanBytes(moved.week)} this week`),
    tile("Waiting in the Trash", humanBytes(s.in_trash_bytes), "emptying the Trash frees it"),
    tile("Space cleared", humanBytes(s.bytes_cleared.total), "left the disk: the Trash emptied"),
    tile("Reviewed", String(s.reviewed_total), `${s.goal.done_today} reviewed today · goal ${s.goal.target}`),
    tile("Streak", `${s.streak.current} day${s.streak.current === 1 ? "" : "s"}`, `longest ${s.streak.longest}`));
  // 7-day bar chart.
  const days = s.last_7_days, W = 560, H = 200, pad = 28, bw = (W - pad * 2) / days.length;
  const max = Math.max(1, ...days.map((d) => d.reviewed));
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "Items reviewed each of the last 7 days: " + days.map((d) => `${d.date} ${d.reviewed}`).join(", ") });
  days.forEach((d, i) => {
    const h = ((H - pad * 2) * d.reviewed) / max;
    const x = pad + i * bw + bw * 0.18, y = H - pad - h;
    const r = svg("rect", { class: "b", x: String(x), y: String(y), width: String(bw * 0.64), height: String(Math.max(1, h)), rx: "5" });
    const title = svg("title"); title.textContent = `${d.date}: ${d.reviewed} reviewed, ${humanBytes(d.bytes_moved_to_trash || 0)} moved to the Trash, ${humanBytes(d.bytes_cleared)} cleared`; r.append(title);
    const lbl = svg("text", { x: String(x + bw * 0.32), y: String(H - 8), "text-anchor": "middle" });
    lbl.textContent = new Date(d.date + "T12:00:00").toLocaleDateString(undefined, { weekday: "short" });
    const val = svg("text", { x: String(x + bw * 0.32), y: String(y - 6), "text-anchor": "middle" }); val.textContent = d.reviewed ? String(d.reviewed) : "";
    chart.append(r, lbl, val);
  });
  $("#stats-chart").replaceChildren(chart);
  const chapters = (await api("chapters")).chapters;
  const cl = $("#stats-chapters"); cl.replaceChildren();
  for (const c of chapters) {
    const when = new Date(c.finished_at * 1000).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
    cl.append(el("li", {}, c.cover ? el("img", { src: c.cover, alt: "", loading: "lazy" }) : el("span", { class: "nocover", "aria-hidden": "true" }),
      el("span", { class: "t", text: c.title }),
      el("span", { class: "muted", text: `${when} · ${count(c.decisions, "decision")}` + (c.bytes ? ` · ${humanBytes(c.bytes)} staged` : "") })));
  }
  if (!chapters.length) cl.append(el("li", { class: "muted wide", text: "A session that reaches its goal, or ends its deck, becomes a chapter here." }));
  const reached = new Map(s.milestones.map((m) => [m.id, m.reached_at]));
  const ms = $("#stats-milestones"); ms.replaceChildren();
  for (const [id, name] of Object.entries(milestoneNames)) {
    ms.append(el("li", { class: reached.has(id) ? "done" : "", text: reached.has(id) ? `✓ ${name} · ${reached.get(id).slice(0, 10)}` : name }));
  }
  await refreshSummary();
}

// ---------- Settings ----------
async function loadSettings() {
  const s = await api("settings");
  $("#set-reminder").value = s.reminder; $("#set-time").value = s.reminder_time; $("#set-weekday").value = s.reminder_weekday;
  $("#set-goal").value = String(s.session_goal); $("#set-roots").value = s.configured_roots.join("\n");
  $("#set-day").value = String(s.reminder_day);
  const quiet = /^(\d\d?:\d\d)-(\d\d?:\d\d)$/.exec(s.quiet_hours || "");
  $("#set-quiet").checked = !!quiet;
  $("#set-quiet-from").value = quiet ? quiet[1].padStart(5, "0") : "22:00";
  $("#set-quiet-to").value = quiet ? quiet[2].padStart(5, "0") : "08:00";
  quietFields(); cadenceFields(); goalNote();
  $("#set-roots").placeholder = s.roots.join("\n");
  $("#settings-path").textContent = s.config_path;
}
async function saveSettings(e) {
  e.preventDefault();
  const roots = $("#set-roots").value.split("\n").map((r) => r.trim()).filter(Boolean);
  try {
    const quiet = $("#set-quiet").checked ? `${$("#set-quiet-from").value}-${$("#set-quiet-to").value}` : "off";
    await api("settings", { reminder: $("#set-reminder").value, reminder_time: $("#set-time").value, reminder_weekday: $("#set-weekday").value,
      reminder_day: Number($("#set-day").value), quiet_hours: quiet, session_goal: Number($("#set-goal").value), roots });
    say("Settings saved");
  } catch (err) { sayError(err.message); }
}

// "Weekly on" and "Monthly on day" only for that cadence (both showed whatever was chosen).
function cadenceFields() {
  const c = $("#set-reminder").value;
  for (const e of $$("[data-cadence]")) {
    const on = e.dataset.cadence === c;
    e.hidden = !on;
    if (e.tagName !== "LABEL") e.disabled = !on || live.offline;
  }
}
// What the goal means, said beside it; a goal of 0 (or none) is refused in these words.
function goalNote() {
  const input = $("#set-goal"), n = Number(input.value);
  const ok = input.value !== "" && Number.isInteger(n) && n >= 1 && n <= 1000;
  const why = "A goal is 1 to 1000 decisions a day: there is no goal of 0. The goal bar fills at it, and reaching it brings the celebration once a day.";
  input.setCustomValidity(ok ? "" : why);
  $("#set-goal-note").textContent = ok ? `${count(n, "decision")} a day fill the goal bar; reaching ${n === 1 ? "it" : "them"} brings the celebration once a day.` : why;
}
function quietFields() {
  for (const id of ["#set-quiet-from", "#set-quiet-to"]) $(id).disabled = !$("#set-quiet").checked || live.offline;
}

// ---------- live: new photos, and a server that stops ----------
// The page polls a version number (SQLite's data_version and the server's own changes; one
// small request every few seconds) and redraws the view it shows when the library changed —
// the agent added photos, the terminal decided — with no reload. A poll that gets no answer
// puts up the banner and disables every action until the server answers again.
const live = { version: null, offline: false, pending: false };
const POLL_MS = 3000;
async function poll() {
  let res = null;
  try { res = await fetch("/api/version", { credentials: "same-origin", cache: "no-store" }); } catch (_) { res = null; }
  if (!res) { setOffline(true); return; }
  if (live.offline) { setOffline(false); live.version = null; return; }
  if (!res.ok) return;
  let v = null;
  try { v = (await res.json()).version; } catch (_) { return; }
  const changed = live.version !== null && v !== live.version;
  live.version = v;
  if (changed || live.pending) refreshView();
}
async function syncVersion() {
  try {
    const res = await fetch("/api/version", { credentials: "same-origin", cache: "no-store" });
    if (res.ok && live.version === null) live.version = (await res.json()).version;
  } catch (_) { /* the poll says when the server is gone */ }
}
function startPolling() {
  const tick = async () => { try { await poll(); } finally { setTimeout(tick, POLL_MS); } };
  setTimeout(tick, POLL_MS);
}
/** Redraws what the view shows, unless the user is in the middle of something there. */
function refreshView() {
  // Not under the user's hands: a dialog, the viewer, a card in flight, or the keyboard focus
  // in a list being worked through (a redraw would drop it). Redrawn at a later poll.
  const focus = document.activeElement;
  const working = focus && focus.closest && focus.getClientRects().length > 0 &&
    focus.closest("#similar-list, #trash-grid, #kept-grid, #later-back, #later-resting, form");
  const busy = state.busy || !$("#viewer").hidden || !$("#celebrate").hidden || $("#confirm").open || $("#ask").open || working;
  live.pending = !!busy;
  if (busy) return;
  const quiet = (p) => p.catch(() => {});
  if (state.view === "home") quiet(loadHome());
  else if (state.view === "similar") quiet(api("similar").then((d) => renderSimilar(d)));
  else if (state.view === "trash" && !selectedTrash().length) quiet(loadTrash());
  else if (state.view === "stats") quiet(loadStats());
  else if (state.view === "later") quiet(loadLater());
  else if (state.view === "kept" && keptShown <= 200) quiet(loadKept());
  else quiet(refreshSummary());
}
function setOffline(off) {
  if (live.offline === off) return;
  live.offline = off;
  $("#offline").hidden = !off;
  document.body.classList.toggle("offline", off);
  bannerRoom();
  if (off) {
    for (const b of $$("main button, main input, main select, main textarea, #undo, #celebrate button")) {
      if (!b.disabled) { b.disabled = true; b.dataset.offline = "1"; }
    }
  } else {
    for (const b of $$("[data-offline]")) { b.disabled = false; delete b.dataset.offline; }
    say("SnapSort is back");
    state.keepMessage = true;
    route();
  }
}

// The deck's card gives way to the banner (at 1280×800 the buttons dropped below the fold).
function bannerRoom() {
  document.documentElement.style.setProperty("--banner", live.offline ? `${$("#offline").offsetHeight}px` : "0px");
}

/** Asks with the page's own dialog (never the browser's confirm()); resolves true on its action. */
function ask(title, text, action) {
  const dlg = $("#ask");
  $("#ask-title").textContent = title; $("#ask-text").textContent = text; $("#ask-ok").textContent = action;
  return new Promise((resolve) => {
    let settled = false;
    const done = (yes) => {
      if (settled) return;
      settled = true;
      dlg.removeEventListener("close", onClose);
      if (dlg.open) dlg.close();
      resolve(yes);
    };
    const onClose = () => done(false);
    dlg.addEventListener("close", onClose);
    $("#ask-ok").onclick = () => done(true);
    $("#ask-cancel").onclick = () => done(false);
    dlg.showModal();
    $("#ask-cancel").focus();
  });
}

async function newKey() {
  const yes = await ask("Give the page a new key?",
    "Every other browser, bookmark and script with the old key must be opened again with 'snapsort open'. This browser keeps working.", "New key");
  if (!yes) { say("The page keeps its key"); return; }
  try { await api("key", {}); say("The page has a new key"); } catch (err) { sayError(err.message); }
}

// ---------- keyboard ----------
function onKey(e) {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName) || e.target.isContentEditable;
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === "z" && !typing) { e.preventDefault(); undo(); return; }
  if (!$("#viewer").hidden) {
    if (e.key === "Escape") { e.preventDefault(); closeViewer(); return; }
    // Judged full screen, decided from there: an arrow closes the viewer and decides.
    const fromViewer = { ArrowLeft: "trash", ArrowRight: "keep", ArrowUp: "later", ArrowDown: "skip" };
    if (state.view === "deck" && fromViewer[e.key] && !e.repeat && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault(); closeViewer(); decide(fromViewer[e.key]);
    }
    return;
  }
  if (!$("#celebrate").hidden) { if (e.key === "Escape") closeCelebration(); return; }
  if (state.view !== "deck" || typing || e.ctrlKey || e.metaKey || e.altKey) return;
  const keys = { ArrowLeft: "trash", ArrowRight: "keep", ArrowUp: "later", ArrowDown: "skip" };
  // One decision a key press: a held key's repeats never decide cards the user has not seen.
  if (keys[e.key]) { e.preventDefault(); if (!e.repeat) decide(keys[e.key]); return; }
  const onButton = e.target.tagName === "BUTTON" || e.target.tagName === "A";
  if ((e.key === "Enter" || e.key === " ") && !onButton) { e.preventDefault(); openViewer(); }
}

// ---------- start ----------
function init() {
  initTheme();
  initViewer();
  $("#undo").addEventListener("click", undo);
  for (const b of $$(".decide [data-decide]")) b.addEventListener("click", () => decide(b.dataset.decide));
  $("#fullscreen-btn").addEventListener("click", () => openViewer());
  $("#old-screenshots-btn").addEventListener("click", () => stageOldScreenshots().catch((e) => sayError(e.message)));
  $("#old-screenshots-all").addEventListener("change", () => loadHome().catch((e) => sayError(e.message)));
  $("#similar-all").addEventListener("click", async () => {
    // Many files in one click: say how many first.
    try {
      const now = await api("similar");
      const rest = now.sets.flatMap((s) => s.members.filter((m) => !m.keeper && (!m.decision || m.decision === "skip")));
      if (!rest.length) { say("Nothing to stage: every set has only its keeper left"); return; }
      const bytes = rest.reduce((a, m) => a + m.bytes, 0);
      // The page's own dialog, never the browser's confirm() (issue 43).
      const yes = await ask(`Stage ${count(rest.length, "photo")} for the Trash?`,
        `${humanBytes(bytes)}, from every group; the keeper of each group stays. Nothing leaves the library until you commit on the Trash page.`,
        `Stage ${rest.length}`);
      if (!yes) { say("Nothing was staged"); return; }
      const r = await api("similar/trash-rest", { all: true }); renderSimilar(r); await refreshSummary(); say(`${r.message}. One undo takes them all back.`);
    } catch (e) { sayError(e.message); }
  });
  $("#trash-select-all").addEventListener("click", () => { const boxes = $$("#trash-grid input"); const all = boxes.every((b) => b.checked); boxes.forEach((b) => { b.checked = !all; }); updateTrashButtons(); });
  $("#trash-restore").addEventListener("click", () => restoreSelected().catch((e) => sayError(e.message)));
  $("#trash-commit").addEventListener("click", commitTrash);
  $("#confirm-ok").addEventListener("click", confirmCommit);
  $("#confirm-cancel").addEventListener("click", () => $("#confirm").close());
  $("#confirm").addEventListener("close", commitDialogClosed);
  $("#celebrate-more").addEventListener("click", closeCelebration);
  $("#celebrate-home").addEventListener("click", closeCelebration);
  $("#settings-form").addEventListener("submit", saveSettings);
  $("#set-quiet").addEventListener("change", quietFields);
  $("#set-reminder").addEventListener("change", cadenceFields);
  $("#set-goal").addEventListener("input", goalNote);
  window.addEventListener("resize", bannerRoom);
  $("#browse-form").addEventListener("submit", openBrowse);
  $("#kept-more").addEventListener("click", () => loadKept(true).catch((e) => sayError(e.message)));
  $("#new-key").addEventListener("click", newKey);
  document.addEventListener("keydown", trapViewerTab);
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", route);
  route();
  startPolling();
}
document.addEventListener("DOMContentLoaded", init);

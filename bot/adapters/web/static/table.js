// The table: draws what the server answers (bot/adapters/web/screens.py) and sends back the payloads of what the
// player taps. The server decides everything; the page lays the table out for the screen it is on (every block at a
// place that depends only on the screen's size, never on what it holds: nothing moves under the thumb), and animates:
// a card that fits flies to the waste at once and lands there even when the server's board comes first (the redraw
// keeps the flight, or sends the card back if the server refused it), a drawn card turns over on its way, a card
// turned face up turns, a cleared peak and a win get their moment. No animation with prefers-reduced-motion, and
// none ever takes a tap: what moves lets taps through.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = { red: "#D32F2F", black: "#212121", green: "#2E7D32", blue: "#1565C0" };
const MARKS = { fits: "#00C853", hint: "#2962FF" };
//: the gap between two bottom cards, in card widths, and the card's height in widths (the picture's 64 x 90)
const GAP = 4 / 64;
const TALL = 90 / 64;
const FLIGHT_MS = 240;
const state = {
  auth: null, layout: null, board: null, strings: null, words: null, queue: Promise.resolve(), pending: 0,
  geo: null, nodes: new Map(), landing: 0,
};
//: What the page measured, for the browser tests and the benchmark: each tap's time from the click to its answer
//: drawn, and each flight's end (landed, or sent back by a refusal or a newer board).
const stats = { taps: [], flights: [] };
window.tableStats = stats;
const $ = (id) => document.getElementById(id);
const motion = () => !window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// --- launch: who the player is, from the URL's fragment as Telegram hands it over, or a link's token ---------------

function fragment() {
  return new URLSearchParams(location.hash.slice(1));
}

// Telegram's events, as telegram-web-app.js posts them (not loaded: the page reads its launch data itself): the
// Android and iOS apps' proxy, Telegram Desktop's external.notify, or the parent frame of Telegram Web.
function telegramEvent(type, data) {
  if (!state.telegram) return;
  const body = JSON.stringify(data || {});
  try {
    if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, body);
    else if (window.external && "notify" in window.external) window.external.notify(JSON.stringify({ eventType: type, eventData: data || {} }));
    else if (window.parent !== window) window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data || {} }), "*");
  } catch (error) { /* an app without the event: nothing to do */ }
}

//: Haptic feedback where the Telegram app offers it (Bot API 6.1 and later): a light tap on a play, an error's
//: buzz on a refusal, a success at the win.
function haptic(kind) {
  if (!state.telegram || !(parseFloat(state.telegramVersion) >= 6.1)) return;
  const data = kind === "play" ? { type: "impact", impact_style: "light" }
    : { type: "notification", notification_type: kind };
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && webApp.HapticFeedback) {
    if (data.type === "impact") webApp.HapticFeedback.impactOccurred(data.impact_style);
    else webApp.HapticFeedback.notificationOccurred(data.notification_type);
    return;
  }
  telegramEvent("web_app_trigger_haptic_feedback", data);
}

function applyTheme(params) {
  const theme = {};
  try { Object.assign(theme, JSON.parse(params.get("tgWebAppThemeParams") || "{}")); } catch (e) { /* none */ }
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && webApp.themeParams) Object.assign(theme, webApp.themeParams);
  const names = { bg_color: "--tg-bg", text_color: "--tg-text", hint_color: "--tg-hint", button_color: "--tg-button",
                  button_text_color: "--tg-button-text", secondary_bg_color: "--tg-secondary-bg" };
  for (const [key, variable] of Object.entries(names)) {
    if (/^#[0-9a-fA-F]{3,8}$/.test(theme[key] || "")) document.documentElement.style.setProperty(variable, theme[key]);
  }
  state.telegram = params.has("tgWebAppData") || !!(webApp && webApp.initData);
  state.telegramVersion = params.get("tgWebAppVersion") || (webApp && webApp.version) || "0";
  if (webApp) {
    webApp.ready();
    if (webApp.expand) webApp.expand();
    const inset = webApp.contentSafeAreaInset || webApp.safeAreaInset;
    if (inset) {
      document.documentElement.style.setProperty("--tg-safe-top", `${inset.top || 0}px`);
      document.documentElement.style.setProperty("--tg-safe-bottom", `${inset.bottom || 0}px`);
    }
  } else {
    telegramEvent("web_app_ready");
    telegramEvent("web_app_expand");
  }
}

// A Discord Activity: Discord opens the page with frame_id and instance_id in its query. The Embedded App SDK
// (vendored from npm, loaded only here) asks the player to authorise the app; the server exchanges the code.
// A declined authorisation (the SDK's promise rejects) is no sign-in, as a code Discord refuses is.
function inDiscord() {
  return new URLSearchParams(location.search).has("frame_id");
}

async function discordActivity() {
  const config = await fetch("/api/discord");
  if (!config.ok) return null;
  const clientId = (await config.json()).client_id;
  const { DiscordSDK } = await import("/static/vendor/embedded-app-sdk/index.mjs");
  const sdk = new DiscordSDK(clientId);
  await sdk.ready();
  state.instance = sdk.instanceId;  // the Activity's instance: its players play one round (the server checks it)
  const { code } = await sdk.commands.authorize({
    client_id: clientId, response_type: "code", state: "", prompt: "none", scope: ["identify"],
  });
  const response = await fetch("/api/discord/session", { method: "POST", body: JSON.stringify({ code }) });
  if (!response.ok) return null;
  const { session, access_token: accessToken } = await response.json();
  await sdk.commands.authenticate({ access_token: accessToken });
  return `Bearer ${session}`;
}

//: Where the page was opened from, for the line that says where to open it again.
function surface(params) {
  if (inDiscord()) return "discord";
  if (params.has("tgWebAppData") || (window.Telegram && window.Telegram.WebApp && window.Telegram.WebApp.initData)) {
    return "telegram";
  }
  return "browser";
}

async function authenticate(params) {
  if (inDiscord()) return discordActivity().catch(() => null);
  const initData = params.get("tgWebAppData") || (window.Telegram && window.Telegram.WebApp
                                                  && window.Telegram.WebApp.initData);
  if (initData) return `tma ${initData}`;
  const token = params.get("token");
  if (token) {
    history.replaceState(null, "", location.pathname);  // a one-time token is spent: out of the address bar
    const response = await fetch("/api/session", { method: "POST", body: JSON.stringify({ token }) });
    if (response.ok) {
      const session = (await response.json()).session;
      sessionStorage.setItem("tripeaks-session", session);
      return `Bearer ${session}`;
    }
  }
  const kept = sessionStorage.getItem("tripeaks-session");
  return kept ? `Bearer ${kept}` : null;
}

// The page's own words before the player's table is known (a failure, a refusal), in the browser's language: asked
// for at once, beside the sign-in.
function fetchWords() {
  const lang = encodeURIComponent(navigator.language || "en");
  state.wordsAsked = fetch(`/api/words?lang=${lang}`).then((response) => response.json())
    .then((words) => { state.words = words; return words; }).catch(() => null);
  return state.wordsAsked;
}

async function refused() {
  const words = state.words || await state.wordsAsked || await fetchWords();
  if (!words) { $("header").textContent = "⚠"; return; }
  document.documentElement.lang = words.lang;
  $("header").textContent = words[state.surface] || words.refused;
  document.body.dataset.ready = "refused";
}

//: What went wrong: its kind (a key of the table's words), or the server's own line for the player (``said``).
class Failure extends Error {
  constructor(kind, said) { super(kind); this.said = said; }
}

async function api(path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: body === undefined ? "GET" : "POST", headers: { Authorization: state.auth },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Failure("offline");  // no answer at all: the network ("Failed to fetch", "Load failed", ...)
  }
  if (response.status === 401) { await refused(); throw new Error("unauthorised"); }
  if (response.status === 403 && response.headers.get("X-Refused")) throw new Failure("refused", await response.text());
  if (!response.ok) throw new Failure("server");
  return response.json().catch(() => { throw new Failure("server"); });
}

//: A failure as the player's language says it (the table's words, else the browser's), never the browser's English.
function failureText(error) {
  if (error instanceof Failure && error.said) return error.said;
  const words = state.strings || state.words;
  const kind = error instanceof Failure ? error.message : "server";
  return (words && words[kind]) || "⚠";
}

// --- drawing the cards as the picture board does ---------------------------------------------------------------

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function cardSvg() {
  return el("svg", { viewBox: "0 0 64 90", "aria-hidden": "true", focusable: "false" });
}

function suitColour(suit) {
  if (state.board && state.board.four_colour) {
    if (suit === "C") return COLOURS.green;
    if (suit === "D") return COLOURS.blue;
  }
  return suit === "H" || suit === "D" ? COLOURS.red : COLOURS.black;
}

function drawFace(svg, card, mark) {
  el("rect", { x: 0.5, y: 0.5, width: 63, height: 89, rx: 6, fill: "#FFFFFF", stroke: "#9E9E9E" }, svg);
  const colour = suitColour(card.suit);
  const ten = card.rank === "10";
  const rank = el("text", { x: 32, y: 43, "text-anchor": "middle", fill: colour, class: "rank",
                            "font-size": ten ? 40 : 46, "letter-spacing": ten ? -3 : 0 }, svg);
  rank.textContent = card.rank;
  el("use", { href: `#suit-${card.suit}`, x: 16, y: 48, width: 32, height: 35, fill: colour }, svg);
  if (mark) outline(svg, MARKS[mark]);
  return svg;
}

function drawBack(svg) {
  el("rect", { x: 0.5, y: 0.5, width: 63, height: 89, rx: 6, fill: "#FFFFFF", stroke: "#9E9E9E" }, svg);
  el("rect", { x: 4, y: 4, width: 56, height: 82, rx: 4, fill: "#A3303A" }, svg);
  el("rect", { x: 4, y: 4, width: 56, height: 82, rx: 4, fill: "url(#lattice)", stroke: "#A3303A",
               "stroke-width": 2 }, svg);
  return svg;
}

function outline(svg, colour) {
  el("rect", { x: 3, y: 3, width: 58, height: 84, rx: 4, fill: "none", stroke: colour, "stroke-width": 6 }, svg);
}

function put(node, box) {
  node.style.left = `${box.x}px`;
  node.style.top = `${box.y}px`;
  node.style.width = `${box.w}px`;
  node.style.height = `${box.h}px`;
}

// --- the layout: every block's place from the screen's size alone -------------------------------------------------

function fitCards(width, height, bandsBetween, pileScale) {
  // the widest card whose peaks fit ``width`` and whose peaks, bands and piles fit ``height``
  let w = Math.min(96, width / (10 + 9 * GAP));
  const needed = (card) => 6 + 2.5 * card * TALL + bandsBetween + pileScale * card * TALL + 26;
  while (w > 16 && needed(w) > height) w -= 0.5;
  return w;
}

function computeLayout() {
  const style = getComputedStyle(document.documentElement);
  const inset = (name) => parseFloat(style.getPropertyValue(name)) || 0;
  const W = window.innerWidth;
  const H = window.innerHeight;
  const pad = 8;
  const top = pad + inset("--tg-safe-top");
  const bottom = H - pad - inset("--tg-safe-bottom");
  const line = 19;
  const geo = { landscape: W > H };
  const inRound = !!state.beside;  // a round's game: the others' progress in a strip of its own
  if (!geo.landscape) {
    geo.header = { x: pad, y: top, w: W - 2 * pad, h: 3 * line };
    geo.controls = { x: pad, y: bottom - 48, w: W - 2 * pad, h: 48 };
    geo.starts = { x: pad, y: geo.controls.y - 6 - 40, w: W - 2 * pad, h: 40 };
    geo.standings = { x: pad, y: geo.header.y + geo.header.h + 2, w: W - 2 * pad, h: inRound ? 24 : 0 };
    const feltTop = geo.standings.y + geo.standings.h + (inRound ? 4 : 2);
    geo.table = { x: 0, y: feltTop, w: W, h: geo.starts.y - 6 - feltTop };
    const bands = 8 + 3 * line + 6 + 44 + 8;  // the status lines and the ending's buttons, between peaks and piles
    const inner = Math.min(W, 760) - 8;
    let pileScale = 1.6;
    let w = fitCards(inner, geo.table.h, bands, pileScale);
    if (w < inner / (10 + 9 * GAP) - 0.5) { pileScale = 1; w = fitCards(inner, geo.table.h, bands, pileScale); }
    geo.card = w;
    geo.pileScale = pileScale;
    const peaksBottom = 6 + 2.5 * w * TALL;
    geo.status = { x: pad, y: geo.table.y + peaksBottom + 8, w: W - 2 * pad, h: 3 * line, onFelt: true };
    geo.ending = { x: pad, y: geo.status.y + geo.status.h + 6, w: W - 2 * pad, h: 44, row: true };
  } else {
    const side = Math.max(96, Math.min(170, W * 0.16));
    const left = pad + inset("--tg-safe-left");
    const right = W - pad - side;
    const centre = left + side + 8;
    const width = right - 8 - centre;
    geo.header = { x: centre, y: top, w: width, h: 2 * line, joined: true };
    geo.status = { x: centre, y: bottom - 2 * line, w: width, h: 2 * line };
    const feltTop = geo.header.y + geo.header.h + 4;
    geo.table = { x: centre, y: feltTop, w: width, h: geo.status.y - 4 - feltTop };
    geo.pileScale = 1.15;
    geo.card = fitCards(width - 8, geo.table.h, 10, geo.pileScale);
    const button = Math.min(48, (bottom - top - 5 * 6 - 12) / 7);
    geo.controls = { x: left, y: top, w: side, h: 3 * button + 2 * 6, column: true };
    geo.ending = { x: left, y: geo.controls.y + geo.controls.h + 12, w: side, h: 4 * button + 3 * 6, column: true,
                   button };
    geo.starts = { x: right, y: top, w: side, h: 3 * button + 2 * 6, column: true };
    const below = geo.starts.y + geo.starts.h + 12;
    geo.standings = { x: right, y: below, w: side, h: inRound ? bottom - below : 0, column: true };
  }
  // the peaks, centred on the felt, from the slots' grid (columns in half card steps, rows half a card apart)
  const w = geo.card;
  const h = w * TALL;
  const peaksWidth = 10 * w + 9 * GAP * w;
  const x0 = (geo.table.w - peaksWidth) / 2;
  geo.peaks = { x: x0, y: 6, w: peaksWidth, h: 2.5 * h };
  geo.slots = state.layout.grid.map(([column, row]) => ({ x: x0 + column * (w + GAP * w) / 2, y: 6 + row * h / 2,
                                                          w, h }));
  // the stock and the waste card side by side, low on the felt (under the thumb), the Draw label under the stock
  const pw = w * geo.pileScale;
  const ph = h * geo.pileScale;
  const pileY = geo.table.h - 6 - 20 - ph;
  geo.stock = { x: geo.table.w / 2 - pw - pw * 0.15, y: pileY, w: pw, h: ph + 20 };
  geo.waste = { x: geo.table.w / 2 + pw * 0.15, y: pileY, w: pw, h: ph };
  geo.banner = { x: x0, y: pileY, w: peaksWidth, h: ph };
  return geo;
}

function applyLayout() {
  if (!state.layout) return;
  const geo = state.geo = computeLayout();
  document.body.dataset.layout = geo.landscape ? "landscape" : "portrait";
  for (const name of ["header", "table", "status", "controls", "ending", "starts", "standings"]) put($(name), geo[name]);
  $("standings").classList.toggle("column", !!geo.standings.column);
  $("status").classList.toggle("on-felt", !!geo.status.onFelt);
  for (const name of ["controls", "ending", "starts"]) $(name).classList.toggle("column", !!geo[name].column);
  // a line for a moment where it hides nothing the thumb needs: above the stock upright, over the peaks' tops
  // sideways (it lets taps through)
  const toast = $("toast").style;
  toast.bottom = geo.landscape ? "auto" : `${window.innerHeight - geo.table.y - geo.stock.y + 10}px`;
  toast.top = geo.landscape ? `${geo.table.y + 6}px` : "auto";
  if (state.board) {
    drawTable(state.board, state.board);
    fitText();
  }
}

// Long words get a smaller font in their fixed box, never a bigger box.
function fit(node, base, least) {
  let size = base;
  node.style.fontSize = `${size}px`;
  while (size > least && (node.scrollHeight > node.clientHeight + 1 || node.scrollWidth > node.clientWidth + 1)) {
    size -= 1;
    node.style.fontSize = `${size}px`;
  }
}

//: Whether ``button``'s words are wider than its box (measured, not rounded as scrollWidth is).
function cut(button) {
  const range = document.createRange();
  range.selectNodeContents(button);
  const style = getComputedStyle(button);
  const room = button.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return range.getBoundingClientRect().width > room;
}

function fitText() {
  fit($("header"), 15, 10);
  fit($("status"), 15, 10);
  for (const button of document.querySelectorAll("nav button")) {
    if (button.classList.contains("icon")) continue;
    button.classList.remove("two-lines");
    let size = 15;
    button.style.fontSize = `${size}px`;
    while (size > 12 && cut(button)) button.style.fontSize = `${--size}px`;
    if (cut(button)) {  // still too long for one line: two, as large as they fit
      button.classList.add("two-lines");
      fit(button, 14, 10);
    }
  }
}

// --- the table ----------------------------------------------------------------------------------------------------

function cardNode(index) {
  const button = document.createElement("button");
  button.className = "card";
  button.dataset.slot = index;
  button.addEventListener("click", () => tapCard(button, index));
  return button;
}

function sameCard(a, b) {
  return a && b && a.rank === b.rank && a.suit === b.suit;
}

function drawTable(board, previous) {
  const table = $("table");
  const geo = state.geo;
  const fresh = !previous || previous.game !== board.game;
  if (fresh) {
    for (const node of state.nodes.values()) {
      land(node, false);
      node.remove();
    }
    state.nodes.clear();
  }
  const moved = !fresh && board.version > previous.version;
  board.slots.forEach((slot, index) => {
    let node = state.nodes.get(index);
    const before = previous && previous.slots[index];
    if (slot.state === "gone") {
      if (node) {
        state.nodes.delete(index);
        if (!node.classList.contains("flying")) {
          // played elsewhere (the chat, a tap whose flight waited for the answer): it flies now
          if (moved && before.state === "up" && sameCard(before, board.waste)) fly(node, before);
          else node.remove();
        }
      }
      return;
    }
    if (node && node.classList.contains("flying")) land(node, false);  // refused: back to its place
    const returned = !node && !fresh && before && before.state === "gone";
    if (!node) {
      node = cardNode(index);
      table.appendChild(node);
      state.nodes.set(index, node);
    }
    const key = slot.state === "up" ? `${slot.rank}${slot.suit}${slot.mark || ""}${board.four_colour}` : "down";
    node.dataset.slot = index;
    if (node.dataset.key !== key) {
      node.replaceChildren(slot.state === "up" ? drawFace(cardSvg(), slot, slot.mark) : drawBack(cardSvg()));
      node.dataset.key = key;
    }
    if (slot.state === "up") node.dataset.card = slot.rank + slot.suit;
    else delete node.dataset.card;
    if (slot.mark) node.dataset.mark = slot.mark;
    else delete node.dataset.mark;
    node.setAttribute("aria-label", slot.label);
    if (slot.payload) {
      node.dataset.payload = slot.payload;
      node.removeAttribute("aria-disabled");
    } else {
      delete node.dataset.payload;
      node.setAttribute("aria-disabled", "true");
    }
    node.style.zIndex = String(1 + state.layout.grid[index][1]);
    put(node, geo.slots[index]);
    if (!fresh && before && before.state === "down" && slot.state === "up") turn(node.firstChild);
    if (returned && moved) comeBack(node, index);  // Undo: from the waste to its place
  });
  for (const old of table.querySelectorAll(".played, #banner, #stock, #waste")) old.remove();
  if (board.won) {
    drawWon(table, board.won, !fresh && previous && !previous.won);
  } else {
    drawPiles(table, board, previous, moved);
  }
  if (moved && board.cleared !== null && board.cleared !== undefined) peakCleared(board.cleared);
  table.dataset.version = board.version;
  table.dataset.game = board.game;
  table.setAttribute("aria-description", board.alt || "");
}

// A won table, as the picture draws it: every card played, fanned out in the order it went onto the waste, and a
// gold banner with the three peaks and the final score where the stock and the waste were. Just won: the cards
// fly out from the waste one after another and the banner comes up.
function drawWon(table, won, justWon) {
  const geo = state.geo;
  const [width] = state.layout.card;
  const scale = geo.card / width;
  const span = state.layout.width - 2 * state.layout.margin - width;
  const waste = geo.waste;
  won.played.forEach((card, order) => {
    const node = document.createElement("div");
    node.className = "card played";
    node.appendChild(drawFace(cardSvg(), card, null));
    const [x, y] = card.at;
    const box = { x: geo.peaks.x + ((x - state.layout.margin) * (geo.peaks.w - geo.card)) / span,
                  y: geo.peaks.y + (y - state.layout.top) * scale, w: geo.card, h: geo.card * TALL };
    put(node, box);
    node.style.zIndex = String(1 + order);
    table.appendChild(node);
    if (justWon && motion()) {
      node.animate([{ transform: `translate(${waste.x - box.x}px, ${waste.y - box.y}px)`, opacity: 0 },
                    { transform: "none", opacity: 1 }],
                   { duration: 420, delay: 260 + 30 * order, easing: "cubic-bezier(.2,.8,.3,1)", fill: "backwards" });
    }
  });
  const banner = document.createElement("div");
  banner.id = "banner";
  const peaks = document.createElement("span");
  peaks.className = "peaks";
  peaks.textContent = "▲▲▲";
  peaks.setAttribute("aria-hidden", "true");
  banner.append(peaks, ` ${won.score}`);
  put(banner, geo.banner);
  banner.style.fontSize = `${Math.round(geo.banner.h * 0.45)}px`;
  table.appendChild(banner);
  if (justWon) {
    haptic("success");
    if (motion()) {
      banner.animate([{ transform: "scale(.4)", opacity: 0 }, { transform: "scale(1.08)", opacity: 1, offset: 0.7 },
                      { transform: "scale(1)", opacity: 1 }],
                     { duration: 600, delay: 300 + 30 * won.played.length, easing: "ease-out", fill: "backwards" });
    }
  }
}

function drawPiles(table, board, previous, moved) {
  const geo = state.geo;
  const stock = document.createElement("button");
  stock.id = "stock";
  stock.className = "card";
  stock.setAttribute("aria-label", board.stock.label);
  const stockSvg = cardSvg();
  if (board.stock.left) {
    drawBack(stockSvg);
    el("rect", { x: 10, y: 28, width: 44, height: 34, rx: 8, fill: "#1B1B1B" }, stockSvg);
    const count = el("text", { x: 32, y: 53, "text-anchor": "middle", fill: "#FFFFFF", "font-size": 26,
                               "font-weight": 600 }, stockSvg);
    count.textContent = board.stock.left;
  } else {
    el("rect", { x: 1, y: 1, width: 62, height: 88, rx: 6, fill: "#2A5440", stroke: "#5D8C73", "stroke-width": 2 },
       stockSvg);
  }
  if (board.stock.hinted || board.stock.marked) outline(stockSvg, MARKS.hint);
  const word = document.createElement("span");
  word.className = "word";
  word.textContent = board.stock.word;
  word.setAttribute("aria-hidden", "true");
  stock.append(stockSvg, word);
  if (board.stock.payload) {
    stock.dataset.payload = board.stock.payload;
    stock.addEventListener("click", tapStock);
  } else {
    stock.setAttribute("aria-disabled", "true");
  }
  if (board.stock.marked || board.stock.hinted) stock.dataset.mark = "draw";
  put(stock, geo.stock);
  table.appendChild(stock);
  const waste = document.createElement("div");
  waste.id = "waste";
  waste.className = "card";
  waste.setAttribute("role", "img");
  put(waste, geo.waste);
  table.appendChild(waste);
  const drew = moved && previous && board.stock.left === previous.stock.left - 1 && !previous.won;
  if (drew && motion()) {
    setWaste(waste, previous.waste);
    flyFromStock(board.waste);
  } else if (state.landing) {
    setWaste(waste, state.shownWaste || board.waste);  // a card is on its way: it lands, then the waste is the board's
  } else {
    setWaste(waste, board.waste);
  }
}

function setWaste(waste, card) {
  waste.replaceChildren(drawFace(cardSvg(), card, null));
  waste.dataset.card = card.rank + card.suit;
  const board = state.board && state.board.waste;
  waste.setAttribute("aria-label", sameCard(card, board) ? board.label : `${card.rank}${card.suit}`);
  state.shownWaste = card;
}

// --- motion: flights that land, turns, the moments -----------------------------------------------------------------

function relative(from, to) {
  return `translate(${to.x - from.x}px, ${to.y - from.y}px) scale(${to.w / from.w})`;
}

//: ``node`` (a card of the peaks) flies onto the waste and lands as the waste card ``card``.
function fly(node, card) {
  const table = $("table");
  if (node.parentNode !== table) table.appendChild(node);
  node.classList.add("flying");
  node.style.zIndex = "40";
  node.removeAttribute("data-slot");
  const record = { card: card.rank + card.suit, completed: false, returned: false };
  stats.flights.push(record);
  const from = { x: node.offsetLeft, y: node.offsetTop, w: node.offsetWidth };
  state.landing += 1;
  node.flight = { record, card };
  if (!motion()) { land(node, true); return; }
  const animation = node.animate([{ transform: "none" }, { transform: relative(from, state.geo.waste) }],
                                 { duration: FLIGHT_MS, easing: "cubic-bezier(.25,.8,.35,1)", fill: "forwards" });
  node.flight.animation = animation;
  animation.finished.then(() => land(node, true), () => {});
}

//: The end of ``node``'s flight: ``landed`` on the waste, or sent back (the server refused the card).
function land(node, landed) {
  const flight = node.flight;
  if (!flight) return;
  node.flight = null;
  state.landing -= 1;
  flight.record.completed = landed;
  flight.record.returned = !landed;
  if (landed) {
    node.remove();
    const waste = $("waste");
    if (waste) setWaste(waste, state.landing || !state.board ? flight.card : state.board.waste);
  } else {
    if (flight.animation) flight.animation.cancel();
    node.classList.remove("flying");
    if (!state.landing && $("waste") && state.board) setWaste($("waste"), state.board.waste);
  }
}

//: The stock's top card, known once the server answered: from the stock to the waste, turning face up on its way.
function flyFromStock(card) {
  const geo = state.geo;
  const node = document.createElement("div");
  node.className = "card flying";
  node.style.zIndex = "40";
  node.appendChild(drawBack(cardSvg()));
  const from = { x: geo.stock.x, y: geo.stock.y, w: geo.waste.w, h: geo.waste.h };
  put(node, from);
  $("table").appendChild(node);
  const record = { card: card.rank + card.suit, completed: false, returned: false, drawn: true };
  stats.flights.push(record);
  state.landing += 1;
  node.flight = { record, card };
  const middle = { x: (from.x + geo.waste.x) / 2, y: from.y - geo.waste.h * 0.15, w: from.w };
  const first = node.animate([{ transform: "none" }, { transform: `${relative(from, middle)} scaleX(0)` }],
                             { duration: FLIGHT_MS / 2, easing: "ease-in", fill: "forwards" });
  node.flight.animation = first;
  first.finished.then(() => {
    node.replaceChildren(drawFace(cardSvg(), card, null));
    const second = node.animate([{ transform: `${relative(from, middle)} scaleX(0)` },
                                 { transform: relative(from, geo.waste) }],
                                { duration: FLIGHT_MS / 2, easing: "ease-out", fill: "forwards" });
    node.flight.animation = second;
    return second.finished;
  }).then(() => land(node, true), () => {});
}

//: A card back in the peaks by Undo: from the waste to its place.
function comeBack(node, index) {
  if (!motion()) return;
  const to = state.geo.slots[index];
  const waste = state.geo.waste;
  node.animate([{ transform: `translate(${waste.x - to.x}px, ${waste.y - to.y}px) scale(${waste.w / to.w})` },
                { transform: "none" }], { duration: FLIGHT_MS, easing: "cubic-bezier(.25,.8,.35,1)" });
}

function turn(svg) {
  if (!motion() || !svg) return;
  svg.animate([{ transform: "scaleX(0)" }, { transform: "scaleX(0)", offset: 0.4 }, { transform: "scaleX(1)" }],
              { duration: 320, easing: "ease-out" });
}

//: A peak emptied: "+100" rises from where its top card was.
function peakCleared(peak) {
  const geo = state.geo;
  const top = geo.slots[peak];
  const burst = document.createElement("div");
  burst.className = "burst";
  burst.textContent = "+100";
  burst.dataset.peak = peak;
  burst.setAttribute("aria-hidden", "true");
  burst.style.left = `${top.x + top.w / 2}px`;
  burst.style.top = `${top.y + top.h / 2}px`;
  burst.style.fontSize = `${Math.round(top.w * 0.7)}px`;
  $("table").appendChild(burst);
  if (!motion()) { setTimeout(() => burst.remove(), 1200); return; }
  burst.animate([{ transform: "translate(-50%, -50%) scale(.5)", opacity: 0 },
                 { transform: "translate(-50%, -90%) scale(1.15)", opacity: 1, offset: 0.3 },
                 { transform: "translate(-50%, -160%) scale(1)", opacity: 0 }],
                { duration: 1100, delay: FLIGHT_MS, easing: "ease-out", fill: "both" })
    .finished.then(() => burst.remove(), () => burst.remove());
}

// --- the rest of the screen ---------------------------------------------------------------------------------------

const ICON = /^\p{Extended_Pictographic}|^[↶↷×]/u;

function controlButton(spec) {
  const button = document.createElement("button");
  button.textContent = spec.label;
  button.setAttribute("aria-label", spec.aria || spec.label);
  button.dataset.style = spec.style || "secondary";
  if (spec.kind) button.dataset.kind = spec.kind;
  if (ICON.test(spec.label) && [...spec.label.replace(/\uFE0F/g, "")].length <= 2) button.classList.add("icon");
  button.disabled = !!spec.disabled || !spec.payload;
  if (spec.payload) button.addEventListener("click", () => send(spec.payload, "button"));
  return button;
}

//: Undo, Hint and New game in their fixed places (an empty place where a game has none of them); the other buttons
//: (a finished game's Share, Replay, Review) in the ending's place.
function drawButtons(buttons) {
  const fixed = ["undo", "hint", "new"].map((kind) => {
    const spec = buttons.find((b) => b.kind === kind);
    if (spec) return controlButton(spec);
    const place = document.createElement("span");
    place.className = "place";
    place.setAttribute("aria-hidden", "true");
    return place;
  });
  $("controls").replaceChildren(...fixed);
  const rest = buttons.filter((b) => !["undo", "hint", "new"].includes(b.kind)).map(controlButton);
  $("ending").replaceChildren(...rest);
}

function render(answer) {
  if (answer.board) {
    const previous = state.board;
    state.board = answer.board;
    const header = answer.board.header || "";
    $("header").textContent = state.geo && state.geo.header.joined ? header.split("\n").join(" · ") : header;
    $("status").textContent = answer.board.status || "";
    followRound(answer.board);
    drawTable(answer.board, previous && previous.game === answer.board.game ? previous : null);
    drawButtons(answer.board.buttons);
    if (answer.board.round && answer.board.over && state.strings.watch) {  // the player's game of a round ended
      const watch = controlButton({ label: state.strings.watch, payload: null, style: "primary" });
      watch.disabled = false;
      watch.dataset.watch = answer.board.round;
      watch.addEventListener("click", () => watchRound(answer.board.round));
      $("ending").prepend(watch);
    }
    fitText();
  }
  if (answer.notice) toast(answer.notice);
  if (answer.message) showMessage(answer.message, answer.share);
}

// Telegram's chat picker with the bot's inline query, as Share does in the chat (Telegram's documented postEvent:
// the app's webview proxy, else the web client's parent frame). False where the page is not in Telegram.
function switchInlineQuery(query) {
  const data = { query, chat_types: ["users", "groups", "supergroups", "channels"] };
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && webApp.switchInlineQuery) { webApp.switchInlineQuery(query, data.chat_types); return true; }
  if (window.TelegramWebviewProxy) {
    window.TelegramWebviewProxy.postEvent("web_app_switch_inline_query", JSON.stringify(data));
    return true;
  }
  if (window.parent !== window) {
    window.parent.postMessage(JSON.stringify({ eventType: "web_app_switch_inline_query", eventData: data }), "*");
    return true;
  }
  return false;
}

function toast(text) {
  const node = $("toast");
  node.textContent = text;
  node.hidden = false;
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => { node.hidden = true; }, 3500);
}

function showMessage(message, share) {
  const box = $("message");
  box.querySelector("h2").textContent = message.header || "";
  box.querySelector("pre").textContent = message.tableau || "";
  box.querySelector("p").textContent = message.text || "";
  const buttons = message.buttons.map((spec) => {
    const button = controlButton(spec);
    button.addEventListener("click", () => { box.hidden = true; });
    return button;
  });
  if (share) {  // the challenge sent to a chat the player picks, as Share does in the chat
    const send = controlButton({ label: share.label, payload: null });
    send.disabled = false;
    send.dataset.share = share.query;
    send.addEventListener("click", () => { if (switchInlineQuery(share.query)) box.hidden = true; });
    buttons.unshift(send);
  }
  const close = controlButton({ label: "×", aria: state.strings.close, payload: null });
  close.disabled = false;
  close.addEventListener("click", () => { box.hidden = true; });
  box.querySelector(".buttons").replaceChildren(...buttons, close);
  box.hidden = false;
}

// --- taps ---------------------------------------------------------------------------------------------------------

function send(payload, kind) {
  const started = performance.now();
  state.pending += 1;
  document.body.dataset.busy = "1";
  state.queue = state.queue.then(() => api("/api/act", { payload })).then((answer) => {
    const before = state.board;
    render(answer);
    const after = answer.board;
    if (kind === "card" || kind === "stock") {
      if (after && before && after.game === before.game && after.version > before.version) {
        if (!after.won) haptic("play");  // the winning play has the win's own
      }
      else if (answer.notice || (after && after.refused)) haptic("error");
    }
    requestAnimationFrame(() => stats.taps.push({ kind, ms: performance.now() - started }));
  }).catch((error) => {
    if (error.message !== "unauthorised") {
      toast(failureText(error));
      if (state.board) drawTable(state.board, state.board);  // a card in flight goes back to its place
    }
  }).finally(() => {
    state.pending -= 1;
    if (!state.pending) delete document.body.dataset.busy;
  });
  return state.queue;
}

function tapCard(button, index) {
  const payload = button.dataset.payload;
  if (!payload || button.classList.contains("flying")) return;
  const slot = state.board.slots[index];
  // it fits the waste shown: it flies there at once, as the server will answer (not while an earlier tap is
  // unanswered: the waste it fits may be gone by then)
  if (slot.mark === "fits" && !state.pending) fly(button, slot);
  send(payload, "card");
}

function tapStock(event) {
  send(event.currentTarget.dataset.payload, "stock");
}

// --- moves made elsewhere (the chat, another tab): the server's event stream ----------------------------------------

// An event stream read until it ends or ``follower.stopped`` (opened again after a drop): each event's JSON to
// ``onEvent``; a refusal (401, 403, 404) ends it, answered with its status.
async function readEvents(path, onEvent, follower) {
  while (!follower.stopped) {
    try {
      follower.abort = new AbortController();
      const response = await fetch(path, { headers: { Authorization: state.auth }, signal: follower.abort.signal });
      if ([401, 403, 404].includes(response.status)) return response.status;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (event.startsWith("data: ") && !follower.stopped) onEvent(JSON.parse(event.slice(6)));
        }
      }
    } catch (error) { /* the connection dropped (or was stopped): open it again */ }
    if (!follower.stopped) await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function follow() {
  readEvents("/api/events", caughtUp, {});
}

function stopFollowing(follower) {
  if (!follower) return;
  follower.stopped = true;
  if (follower.abort) follower.abort.abort();
}

// --- a live round: the standings beside the player's table, and the others' tables watched -------------------------

//: The round of the board shown: its standings followed beside the table.
function followRound(board) {
  const round = board ? board.round : null;  // kept after the game ends: the strip never moves the table
  if (state.watching || round === (state.beside && state.beside.round)) return;
  stopFollowing(state.beside);
  state.beside = round ? { round } : null;
  document.body.dataset.round = round ? "1" : "";
  $("standings").replaceChildren();
  applyLayout();
  if (round) readEvents(`/api/round/events?id=${round}&view=standings`, drawStandings, state.beside);
}

//: The round's clock, counted down on the page from what the server last said (``node``'s text), or its end.
function showClock(node, round) {
  clearInterval(node.clockTimer);
  const ends = performance.now() + round.seconds_left * 1000;
  const tick = () => {
    const left = Math.max(0, Math.round((ends - performance.now()) / 1000));
    const time = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    node.textContent = round.ended ? round.words.over : round.words.time.replace("{time}", time);
  };
  tick();
  if (!round.ended) node.clockTimer = setInterval(tick, 1000);
}

//: The others' progress beside the table: their names, cards left and scores (never a card), after the clock.
function drawStandings(round) {
  const clock = document.createElement("span");
  clock.className = "chip clock";
  showClock(clock, round);
  // each player: their place, name, cards left (by a small card back) and score; the player's own first
  const chips = round.players.map((player, at) => {
    const chip = document.createElement("span");
    chip.className = "chip";
    if (player.you) chip.dataset.you = "1";
    if (player.finished) chip.dataset.finished = player.won ? "won" : "over";
    chip.setAttribute("aria-label", `${at + 1}. ${player.name}: ${
      round.words.line.replace("{left}", player.cards_left).replace("{score}", player.score)}`);
    const name = document.createElement("b");
    name.textContent = `${at + 1}. ${player.name}`;
    const back = drawBack(el("svg", { viewBox: "0 0 64 90", class: "back", "aria-hidden": "true" }));
    chip.append(name, " ", back, `${player.cards_left} · ${player.score}`);
    return chip;
  }).sort((a, b) => (b.dataset.you ? 1 : 0) - (a.dataset.you ? 1 : 0));
  clearInterval(($("standings").querySelector(".clock") || {}).clockTimer);
  $("standings").replaceChildren(clock, ...chips);
  $("standings").dataset.players = round.players.length;
}

//: The round ``id`` watched: every player's table as they see it, live, read only.
function watchRound(id) {
  stopFollowing(state.watching);
  stopFollowing(state.beside);  // a tab holds two streams at most (a player's streams are capped): its own board's
  state.beside = null;          // and this one; the standings beside the table come back with it
  state.watching = { round: id };
  document.body.dataset.mode = "watch";
  $("watch").replaceChildren();
  const watching = state.watching;
  readEvents(`/api/round/events?id=${id}`, drawWatched, watching).then((refused) => {
    // no such round, or the player's own game of it still playing: back to their table
    if (refused && state.watching === watching) stopWatching();
  });
}

function stopWatching() {
  stopFollowing(state.watching);
  state.watching = null;
  delete document.body.dataset.mode;
  followRound(state.board);
  applyLayout();
}

function drawWatched(round) {
  const top = document.createElement("div");
  top.className = "top";
  const back = document.createElement("button");
  back.textContent = round.words.back;
  back.addEventListener("click", stopWatching);
  const title = document.createElement("h1");
  title.textContent = round.header;
  top.append(title, back);
  const status = document.createElement("p");
  status.className = "time";
  clearInterval(($("watch").querySelector(".time") || {}).clockTimer);
  showClock(status, round);
  const boards = round.players.map((player, at) => {
    const box = document.createElement("article");
    box.className = "player";
    if (player.finished) box.dataset.finished = player.won ? "won" : "over";
    const line = document.createElement("h2");
    const name = document.createElement("b");
    name.textContent = `${at + 1}. ${player.name}`;
    const score = document.createElement("span");
    score.textContent = round.words.line.replace("{left}", player.cards_left).replace("{score}", player.score);
    line.append(name, score);
    box.append(line);
    if (player.table) box.append(miniTable(player.table));
    return box;
  });
  const grid = document.createElement("div");
  grid.className = "players";
  grid.replaceChildren(...boards);
  $("watch").replaceChildren(top, status, grid);
  $("watch").dataset.round = round.round;
  $("watch").dataset.ended = round.ended ? "1" : "";
}

//: A player's table, small: the peaks from the layout's grid, the stock's count and the waste card.
function miniTable(table) {
  const gap = 4;
  const width = 10 * 64 + 9 * gap;
  const svg = el("svg", { viewBox: `-6 -6 ${width + 12} ${225 + 24 + 90 + 12}`, role: "img",
                          "aria-label": table.alt || "", class: "mini" });
  el("rect", { x: -6, y: -6, width: width + 12, height: 225 + 24 + 90 + 12, rx: 10, fill: "#35654D" }, svg);
  table.slots.forEach((slot, index) => {
    if (slot.state === "gone") return;
    const [column, row] = state.layout.grid[index];
    const card = el("svg", { x: column * (64 + gap) / 2, y: row * 45, width: 64, height: 90, viewBox: "0 0 64 90" },
                    svg);
    if (slot.state === "up") drawFace(card, slot, null);
    else drawBack(card);
  });
  const pileY = 225 + 24;
  const stock = el("svg", { x: width / 2 - 64 - 10, y: pileY, width: 64, height: 90, viewBox: "0 0 64 90" }, svg);
  if (table.stock) drawBack(stock);
  const count = el("text", { x: width / 2 - 32 - 10, y: pileY + 56, "text-anchor": "middle", class: "count",
                             fill: "#FFFFFF" }, svg);
  count.textContent = table.stock;
  drawFace(el("svg", { x: width / 2 + 10, y: pileY, width: 64, height: 90, viewBox: "0 0 64 90" }, svg),
           table.waste, null);
  return svg;
}

function caughtUp(board) {
  const shown = state.board;
  if (state.pending || (shown && shown.game === board.game && shown.version >= board.version)) return;
  render({ board });
}

async function start() {
  const params = fragment();
  state.surface = surface(params);
  applyTheme(params);
  fetchWords();
  state.auth = await authenticate(params);
  if (!state.auth) { await refused(); return; }
  const asked = state.instance ? `/api/table?instance=${encodeURIComponent(state.instance)}` : "/api/table";
  const answer = await api(asked);
  state.layout = answer.layout;
  state.strings = answer.strings;
  document.documentElement.lang = answer.strings.lang;
  document.title = answer.strings.title;
  $("starts").replaceChildren(...answer.strings.starts.map((spec) => controlButton({ ...spec, aria: spec.label, label: `🆕 ${spec.label}` })));
  applyLayout();
  render(answer);
  window.addEventListener("resize", applyLayout);
  document.body.dataset.ready = "1";
  follow();
  const watched = answer.watch || parseInt(params.get("watch"), 10);  // the round message's Watch link
  if (watched) watchRound(watched);
}

start().catch((error) => {
  if (error.message === "unauthorised") return;
  const retry = document.createElement("button");
  retry.textContent = "↻";
  retry.addEventListener("click", () => location.reload());
  $("header").replaceChildren(failureText(error), " ", retry);
  document.body.dataset.ready = "failed";
});

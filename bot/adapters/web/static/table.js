// The table: draws what the server answers (bot/adapters/web/screens.py) and sends back the payloads of what the
// player taps. The server decides everything; the page only animates a card that fits to the waste at once, then
// shows the board the server answers (which puts it back if the server refused it).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = { red: "#D32F2F", black: "#212121", green: "#2E7D32", blue: "#1565C0" };
const MARKS = { fits: "#00C853", hint: "#2962FF" };
const state = { auth: null, layout: null, board: null, strings: null, queue: Promise.resolve(), pending: 0 };
const $ = (id) => document.getElementById(id);

// --- launch: who the player is, from the URL's fragment as Telegram hands it over, or a link's token ---------------

function fragment() {
  return new URLSearchParams(location.hash.slice(1));
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
  if (webApp) {
    webApp.ready();
    if (webApp.expand) webApp.expand();
    const inset = webApp.contentSafeAreaInset || webApp.safeAreaInset;
    if (inset) {
      document.documentElement.style.setProperty("--tg-safe-top", `${inset.top || 0}px`);
      document.documentElement.style.setProperty("--tg-safe-bottom", `${inset.bottom || 0}px`);
    }
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
  const { code } = await sdk.commands.authorize({
    client_id: clientId, response_type: "code", state: "", prompt: "none", scope: ["identify"],
  });
  const response = await fetch("/api/discord/session", { method: "POST", body: JSON.stringify({ code }) });
  if (!response.ok) return null;
  const { session, access_token: accessToken } = await response.json();
  await sdk.commands.authenticate({ access_token: accessToken });
  return `Bearer ${session}`;
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

async function refused() {
  const words = await (await fetch(`/api/words?lang=${encodeURIComponent(navigator.language || "en")}`)).json();
  document.documentElement.lang = words.lang;
  $("header").textContent = inDiscord() ? words.discord : words.refused;
  document.body.dataset.ready = "refused";
}

async function api(path, body) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST", headers: { Authorization: state.auth },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401) { await refused(); throw new Error("unauthorised"); }
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
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
}

function drawBack(svg) {
  el("rect", { x: 0.5, y: 0.5, width: 63, height: 89, rx: 6, fill: "#FFFFFF", stroke: "#9E9E9E" }, svg);
  el("rect", { x: 4, y: 4, width: 56, height: 82, rx: 4, fill: "#A3303A" }, svg);
  el("rect", { x: 4, y: 4, width: 56, height: 82, rx: 4, fill: "url(#lattice)", stroke: "#A3303A",
               "stroke-width": 2 }, svg);
}

function outline(svg, colour) {
  el("rect", { x: 3, y: 3, width: 58, height: 84, rx: 4, fill: "none", stroke: colour, "stroke-width": 6 }, svg);
}

function place(node, x, y) {
  const [w, h] = state.layout.card;
  node.style.left = `${(100 * x) / state.layout.width}%`;
  node.style.top = `${(100 * y) / state.layout.height}%`;
  node.style.width = `${(100 * w) / state.layout.width}%`;
  node.style.height = `${(100 * h) / state.layout.height}%`;
}

function cardButton(label, payload, onTap) {
  const button = document.createElement("button");
  button.className = "card";
  button.setAttribute("aria-label", label);
  if (payload) {
    button.dataset.payload = payload;
    button.addEventListener("click", onTap);
  } else {
    button.setAttribute("aria-disabled", "true");
  }
  return button;
}

function drawTable(board, previous) {
  const table = $("table");
  table.replaceChildren();
  const layout = state.layout;
  board.slots.forEach((slot, index) => {
    if (slot.state === "gone") return;
    const button = cardButton(slot.label, slot.payload, (event) => tapCard(event, index));
    button.dataset.slot = index;
    const svg = cardSvg();
    if (slot.state === "up") {
      drawFace(svg, slot, slot.mark);
      button.dataset.card = slot.rank + slot.suit;
      if (slot.mark) button.dataset.mark = slot.mark;
      if (previous && previous.slots[index].state === "down") button.classList.add("turning");
    } else {
      drawBack(svg);
    }
    button.appendChild(svg);
    place(button, ...layout.slots[index]);
    table.appendChild(button);
  });
  if (board.won) {
    drawWon(table, board.won);
  } else {
    drawPiles(table, board);
  }
  table.dataset.version = board.version;
  table.dataset.game = board.game;
  table.setAttribute("aria-description", board.alt || "");
}

// A won table, as the picture draws it: every card played, fanned out in the order it went onto the waste, and a
// gold banner with the three peaks and the final score where the stock and the waste were.
function drawWon(table, won) {
  won.played.forEach((card) => {
    const node = document.createElement("div");
    node.className = "card played";
    const svg = cardSvg();
    drawFace(svg, card, null);
    node.appendChild(svg);
    place(node, ...card.at);
    table.appendChild(node);
  });
  const [left, top, right, bottom] = won.banner;
  const banner = document.createElement("div");
  banner.id = "banner";
  const peaks = document.createElement("span");
  peaks.className = "peaks";
  peaks.textContent = "▲▲▲";
  peaks.setAttribute("aria-hidden", "true");
  banner.append(peaks, ` ${won.score}`);
  banner.style.left = `${(100 * left) / state.layout.width}%`;
  banner.style.top = `${(100 * top) / state.layout.height}%`;
  banner.style.width = `${(100 * (right - left)) / state.layout.width}%`;
  banner.style.height = `${(100 * (bottom - top)) / state.layout.height}%`;
  table.appendChild(banner);
}

function drawPiles(table, board) {
  const stock = cardButton(board.stock.label, board.stock.payload, tapStock);
  stock.id = "stock";
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
  if (board.stock.hinted) outline(stockSvg, MARKS.hint);
  stock.appendChild(stockSvg);
  place(stock, ...state.layout.stock);
  table.appendChild(stock);
  const waste = document.createElement("div");
  waste.id = "waste";
  waste.className = "card";
  waste.setAttribute("role", "img");
  setWaste(waste, board.waste, board.waste.label);
  place(waste, ...state.layout.waste);
  table.appendChild(waste);
}

function setWaste(waste, card, label) {
  const svg = cardSvg();
  drawFace(svg, card, null);
  waste.replaceChildren(svg);
  waste.dataset.card = card.rank + card.suit;
  waste.setAttribute("aria-label", label);
}

// --- the rest of the screen ---------------------------------------------------------------------------------------

function controlButton(spec) {
  const button = document.createElement("button");
  button.textContent = spec.label;
  button.setAttribute("aria-label", spec.aria || spec.label);
  button.dataset.style = spec.style || "secondary";
  if ([...spec.label].length <= 2) button.classList.add("icon");
  button.disabled = !!spec.disabled || !spec.payload;
  if (spec.payload) button.addEventListener("click", () => send(spec.payload));
  return button;
}

function render(answer) {
  if (answer.board) {
    const previous = state.board;
    state.board = answer.board;
    $("header").textContent = answer.board.header;
    $("status").textContent = answer.board.status || "";
    drawTable(answer.board, previous && previous.game === answer.board.game ? previous : null);
    $("controls").replaceChildren(...answer.board.buttons.map(controlButton));
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

function send(payload) {
  state.pending += 1;
  document.body.dataset.busy = "1";
  state.queue = state.queue.then(() => api("/api/act", { payload })).then(render).catch((error) => {
    if (error.message !== "unauthorised") toast(error.message);
  }).finally(() => {
    state.pending -= 1;
    if (!state.pending) delete document.body.dataset.busy;
  });
  return state.queue;
}

function tapCard(event, index) {
  const button = event.currentTarget;
  const slot = state.board.slots[index];
  if (slot.mark) flyToWaste(button, slot);  // it fits: on the waste at once, as the server will answer
  send(button.dataset.payload);
}

function tapStock(event) {
  send(event.currentTarget.dataset.payload);
}

function flyToWaste(button, card) {
  const waste = $("waste");
  const dx = waste.offsetLeft - button.offsetLeft;
  const dy = waste.offsetTop - button.offsetTop;
  button.classList.add("flying");
  button.style.transform = `translate(${dx}px, ${dy}px)`;
  setWaste(waste, card, card.label);
}

// --- moves made elsewhere (the chat, another tab): the server's event stream ----------------------------------------

async function follow() {
  for (;;) {
    try {
      const response = await fetch("/api/events", { headers: { Authorization: state.auth } });
      if (response.status === 401) return;
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
          if (event.startsWith("data: ")) caughtUp(JSON.parse(event.slice(6)));
        }
      }
    } catch (error) { /* the connection dropped: open it again */ }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function caughtUp(board) {
  const shown = state.board;
  if (state.pending || (shown && shown.game === board.game && shown.version >= board.version)) return;
  render({ board });
}

async function start() {
  const params = fragment();
  applyTheme(params);
  state.auth = await authenticate(params);
  if (!state.auth) { await refused(); return; }
  const answer = await api("/api/table");
  state.layout = answer.layout;
  state.strings = answer.strings;
  document.documentElement.lang = answer.strings.lang;
  document.title = answer.strings.title;
  $("starts").replaceChildren(...answer.strings.starts.map((spec) => controlButton({ ...spec, aria: spec.label, label: `🆕 ${spec.label}` })));
  render(answer);
  document.body.dataset.ready = "1";
  follow();
}

start().catch((error) => { if (error.message !== "unauthorised") $("header").textContent = error.message; });

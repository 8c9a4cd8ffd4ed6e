"""Redraw the screenshots in this folder: the real bot on SimCord and its preview page for Discord, a page
drawn like a Telegram chat bubble for Telegram, both photographed by Debian's headless chromium.

    .venv/bin/python docs/screenshots/capture.py [--only discord|telegram] [--lang en ...]

Needs ``simcord[preview]``, ``chromium``, ``fonts-noto-color-emoji`` and ``fonts-noto-cjk`` (or
``fonts-ipafont-gothic``); see /work/shared/TESTING.md. Takes a couple of minutes. It writes:

- ``discord-360-LANG-STATE.png``: the Discord message on SimCord's preview at 360 px (a phone), for LANG in
  en, ru, ja and STATE in ``fresh`` (``/tripeaks new TP1-E-AAAAAAB``), ``midgame`` (the first eleven moves of
  the solver's winning line, so cards have turned face up), ``hint`` (then the Hint button: the hinted card's
  button blue, the advice in the status line) and ``won`` (the rest of the line played to the win);
  ``discord-desktop-LANG-STATE.png`` the same on a desktop-wide preview (1100 px).
- ``telegram-360-LANG-STATE.png``: the same states as a Telegram phone draws them (a chat bubble about 300 px
  wide on a 360-px screen, the ``<pre>`` tableau in 14-px monospace, the inline keyboard under it with the
  buttons of a row sharing its width and long labels cut with "…"), built from ``tripeaks show ... --platform
  telegram --json`` (a private chat); ``telegram-360-LANG-group.png`` the mid-game board in a group, the
  player's name on it.
- ``telegram-360-LANG-STATE-picture.png``: the picture board (every player's default) as Telegram shows it, a
  photo bubble (the picture as wide as the bubble, the header and status its caption) over the keyboard, for LANG
  in en, ru, ja (de: the mid-game board). The Discord pictures show the picture board too (the media gallery in
  the container), as the bot's players have it by default.
- ``discord-360-de-midgame.png``, ``discord-360-pl-midgame.png``, ``telegram-360-de-midgame.png``,
  ``telegram-360-pl-midgame.png`` (and ``-group``): the mid-game board in German and Polish.
- ``discord-360-LANG-settings.png`` (the settings, the language a select menu), ``discord-360-LANG-midgame-text.png``
  (and ``discord-desktop-...``: the mid-game board as text, a ten written X, each line measured against its
  columns), ``discord-360-LANG-question.png`` and ``-question-daily.png`` (the questions before a game with moves is
  abandoned: New game, ``/tripeaks daily``), ``discord-360-LANG-daily.png`` (the daily deal's board) and
  ``discord-360-LANG-leaderboard.png``, for LANG in en, ru, ja.
- ``discord-fresh-deal.png`` and ``discord-mid-game.png``: the desktop views of ``docs/discord.md``'s
  "Screenshots" (the mid-game one after a tap on a card that does not fit, its explanation in the status
  line).

Chromium is driven over its DevTools protocol, so every picture is taken once SimCord's page says "Viewport
updated" and its fonts are loaded (a plain ``--screenshot`` can catch it greyed, still updating), and is
cropped to the message. For each picture the script also prints what it measured: a code block or ``<pre>``
wider than its box (Discord cuts it and scrolls sideways, Telegram wraps it), a Telegram button whose label is
cut, a Discord button row that wrapped, a line of a Discord code block wider than its characters' columns (a
character the monospace font lacks, drawn wider from another font). Look at the pictures all the same.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import dataclasses
import html
import io
import json
import re
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import aiohttp
import simcord
import simcord.interactions
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.app.assembly import App  # noqa: E402
from bot.app.solver_calls import fair_hint  # noqa: E402
from bot.store.database import open_database  # noqa: E402
from bot.store.migrate import upgrade_database  # noqa: E402
from core.game import Action, Game, Tap  # noqa: E402
from tests.core_helpers import winning_line  # noqa: E402
from tests.discord_harness import button, buttons_of, make_bot  # noqa: E402

HERE = Path(__file__).resolve().parent
CODE = "TP1-E-AAAAAAB"
MIDGAME_MOVES = 11  # after these, cards have turned face up, and the hint is a card (slot 21)
HINT_BUDGET = 0.8  # seconds, as the service's
LANGS = ("en", "ru", "ja")
EXTRA_LANGS = ("de", "pl")  # the mid-game board only, at 360 px (issue 18)
STATES = ("fresh", "midgame", "hint", "won")
#: The languages whose picture boards are photographed too (issue 23).
PICTURE_LANGS = ("en", "ru", "ja", "de")
DISCORD_LOCALES = {"en": "en-US", "ru": "ru", "ja": "ja", "de": "de", "pl": "pl"}
PLAYER_NAMES = {"en": "Alice", "ru": "Алиса", "ja": "さくら", "de": "Jonas", "pl": "Zofia"}
PHONE = 360
DESKTOP = 1100
PREVIEW_HEIGHT = 1600  # tall enough that the whole message shows without scrolling the channel


# --- chromium over DevTools ------------------------------------------------------------------------------


class Browser:
    """One headless chromium, driven over its DevTools protocol (a websocket), for every picture."""

    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self.process: asyncio.subprocess.Process | None = None
        self.http: aiohttp.ClientSession | None = None
        self.socket: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 0

    async def __aenter__(self) -> Browser:
        # Started with asyncio, not subprocess.run: SimCord's preview is served by this same event loop.
        self.process = await asyncio.create_subprocess_exec(
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
            f"--window-size={PHONE},900", "about:blank",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        port_file = self.profile / "DevToolsActivePort"
        for _ in range(400):
            if port_file.exists() and port_file.read_text().strip():
                break
            await asyncio.sleep(0.05)
        port = port_file.read_text().split()[0]
        self.http = aiohttp.ClientSession()
        targets = await (await self.http.get(f"http://127.0.0.1:{port}/json")).json()
        page = next(t for t in targets if t["type"] == "page")
        self.socket = await self.http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self.http is not None:
            await self.http.close()
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        assert self.socket is not None
        self.next_id += 1
        my_id = self.next_id
        await self.socket.send_json({"id": my_id, "method": method, "params": params})
        while True:
            message = await self.socket.receive_json()
            if message.get("id") == my_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                                 awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def open(self, url: str, width: int, height: int) -> None:
        await self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                        mobile=False)
        await self.call("Page.navigate", url=url)

    async def wait_for(self, expression: str, what: str, timeout: float = 30.0) -> None:
        for _ in range(int(timeout / 0.1)):
            if await self.evaluate(expression):
                return
            await asyncio.sleep(0.1)
        raise TimeoutError(f"the page never got {what}")

    async def capture(self, clip: dict[str, float], target: Path) -> None:
        # Within the viewport: capturing beyond it resizes the page, and SimCord's preview answers a resize by
        # laying out again with its buttons greyed.
        shot = await self.call("Page.captureScreenshot", format="png", clip={**clip, "scale": 1})
        save_png(base64.b64decode(shot["data"]), target)


def save_png(data: bytes, target: Path) -> None:
    """The picture with at most 128 colours (text on flat backgrounds loses next to nothing), to keep the
    folder small."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    small = image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(target, optimize=True)
    print(f"wrote {target.name} ({image.width}x{image.height}, {target.stat().st_size // 1024} KB)")


# --- Discord: the real bot on SimCord, its preview page -------------------------------------------------

# Ready: the status line reads "Viewport updated" (before that the page can still be laying out, its buttons
# greyed), the fonts are in, and no button is greyed but the ones the bot disabled.
PREVIEW_READY = """(() => {
    const status = document.getElementById('action-status')?.textContent || '';
    const page = window.simcordPreview;
    return Boolean(page && page.ready && status === 'Viewport updated' && document.fonts.status === 'loaded'
                   && document.querySelector('#preview-app article.channel-message .component-container')
                   && !document.querySelector(
                       '#preview-app button.component-button[aria-disabled="true"]:not(:disabled)'));
})()"""

# A page script's helper: the header lines (lines of the text as sent) that the page broke onto more lines.
WRAPPED_LINES = """const wrappedLines = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    // the text's boxes, top to bottom; a box that does not overlap the line above starts a new line
    const boxes = [...range.getClientRects()].filter((r) => r.width > 0).sort((a, b) => a.top - b.top);
    let shown = 0;
    let bottom = -Infinity;
    for (const box of boxes) {
        if (box.top >= bottom - 2) shown += 1;
        bottom = box.top >= bottom - 2 ? box.bottom : Math.max(bottom, box.bottom);
    }
    const lines = element.innerText.split('\\n').filter((line) => line.trim());
    return shown > lines.length ? `header "${lines.join(' / ')}" takes ${shown} lines for ${lines.length}`
                                : null;
};"""

# The last message's box, the page's, and what does not fit: a code block wider than its box, button rows that
# wrapped onto a second line.
PREVIEW_MEASURE = WRAPPED_LINES + """(() => {
    const app = document.querySelector('#preview-app').getBoundingClientRect();
    const messages = document.querySelectorAll('#preview-app article.channel-message');
    const message = messages[messages.length - 1];
    const box = message.getBoundingClientRect();
    const container = message.querySelector('.component-container').getBoundingClientRect();
    const problems = [];
    const header = message.querySelector('.component-container .text-display');
    header.querySelectorAll(':scope > *').forEach((part) => {
        const wrapped = wrappedLines(part);
        if (wrapped) problems.push(wrapped);
    });
    message.querySelectorAll('pre.code-block').forEach((block) => {
        if (block.scrollWidth > block.clientWidth + 1) {
            const style = getComputedStyle(block);
            problems.push(`code block cut: ${block.scrollWidth} px of text in a ${block.clientWidth}-px box `
                          + `(${style.fontSize} ${style.fontFamily.split(',')[0]})`);
        }
        // Out of line: a line of the board wider than its characters' columns (a character the monospace font
        // lacks, drawn from a wider fallback font, as ⑩ was). Each line is measured as drawn (a range over it).
        const code = block.querySelector('code') || block;
        const probe = document.createElement('span');
        probe.style.cssText = 'position: absolute; visibility: hidden; white-space: pre';
        code.appendChild(probe);
        probe.textContent = '0'.repeat(20);
        const column = probe.getBoundingClientRect().width / 20;
        probe.remove();
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        const nodes = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
        const at = (position) => {
            for (const node of nodes) {
                if (position <= node.length) return [node, position];
                position -= node.length;
            }
            return [nodes[nodes.length - 1], nodes[nodes.length - 1].length];
        };
        let start = 0;
        nodes.map((node) => node.data).join('').split('\\n').forEach((line, index) => {
            const end = start + line.length;
            if (line.trim()) {
                const range = document.createRange();
                range.setStart(...at(start));
                range.setEnd(...at(end));
                const width = range.getBoundingClientRect().width;
                const columns = [...line].length;
                if (Math.abs(width - columns * column) > 1) {
                    problems.push(`code block line ${index + 1} out of line: "${line}" is ${width.toFixed(1)} px, `
                                  + `${columns} columns make ${(columns * column).toFixed(1)}`);
                }
            }
            start = end + 1;
        });
    });
    message.querySelectorAll('.component-row').forEach((row, index) => {
        const buttons = [...row.querySelectorAll('button')];
        const tops = new Set(buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
        if (tops.size > 1) {
            const labels = buttons.map((b) => b.textContent.trim());
            problems.push(`button row ${index + 1} (${labels.join(' ')}) wraps onto ${tops.size} lines`);
        }
    });
    message.querySelectorAll('.component-button').forEach((b) => {
        if (b.scrollWidth > b.clientWidth + 1) problems.push(`button label cut: ${b.textContent.trim()}`);
    });
    return {app: [app.x, app.y, app.width], message: [box.y, box.height], containerRight: container.right,
            problems};
})()"""


@contextlib.contextmanager
def discord_locales(by_user: dict[int, str]) -> Iterator[None]:
    """SimCord writes ``"locale": "en-US"`` into every interaction; give chosen users another client language
    (what ``tests.discord_harness.Locales`` does in the tests)."""
    original = simcord.interactions.base_payload

    def base_payload(*args: Any, **kwargs: Any) -> Any:
        record, payload = original(*args, **kwargs)
        locale = by_user.get(kwargs["user_id"])
        if locale is not None:
            payload["locale"] = locale
        return record, payload

    with mock.patch.object(simcord.interactions, "base_payload", base_payload):
        yield


@contextlib.asynccontextmanager
async def real_service(template: Path, path: Path) -> AsyncIterator[App]:
    """The service with the real hint (the advisor, as players get it) and the real verdict, on a SQLite copy
    of the migrated template."""
    path.write_bytes(template.read_bytes())
    database = await open_database(f"sqlite+aiosqlite:///{path}", migrate=False)
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, owns_database=True) as service:
            yield service


async def shoot_preview(env: simcord.Env, browser: Browser, channel: Any, viewer: Any, width: int,
                        target: Path, problems: dict[str, list[str]]) -> None:
    """The channel's last message on SimCord's preview at ``width`` px, cropped to the message (at 360 px the
    whole width of the page, so the picture is the phone's screen)."""
    async with env.preview(channel, viewers=[viewer], layout="channel", display="fixed", width=width,
                           height=PREVIEW_HEIGHT) as preview:
        # The browser window is wider than the preview so that the preview's own toolbars leave it whole.
        await browser.open(preview.url, width + 700, PREVIEW_HEIGHT + 300)
        await browser.wait_for(PREVIEW_READY, '"Viewport updated"')
        await asyncio.sleep(0.3)
        await browser.wait_for(PREVIEW_READY, '"Viewport updated"')
        seen = await browser.evaluate(PREVIEW_MEASURE)
    left, _, app_width = seen["app"]
    top, height = seen["message"]
    right = left + app_width if width == PHONE else min(left + app_width, seen["containerRight"] + 24)
    await browser.capture({"x": left, "y": top - 8, "width": right - left, "height": height + 16}, target)
    report(target, seen["problems"], problems)


def report(target: Path, found: list[str], problems: dict[str, list[str]]) -> None:
    problems[target.name] = found
    for problem in found:
        print(f"    {target.name}: {problem}")


async def click(user: Any, message: Any, command: str) -> Any:
    result = await user.click(message, custom_id=button(message, command=command)["custom_id"])
    return result.response or message


def command_of(action: Action) -> str:
    return str(action) if isinstance(action, Tap) else "d"


async def discord_shots(work: Path, browser: Browser, langs: Sequence[str],
                        problems: dict[str, list[str]]) -> None:
    template = work / "template.db"
    await upgrade_database(f"sqlite+aiosqlite:///{template}")
    line = winning_line(CODE)
    locales: dict[int, str] = {}
    async with real_service(template, work / "tripeaks.db") as service, simcord.run(make_bot(service)) as env:
        guild = env.create_guild("Card room")
        with discord_locales(locales):
            for lang in langs:
                channel = guild.create_text_channel(f"tripeaks-{lang}")
                player = guild.add_member(env.create_user(f"player-{lang}", global_name=PLAYER_NAMES[lang]))
                locales[player.id] = DISCORD_LOCALES[lang]
                widths = {"phone": PHONE} if lang in EXTRA_LANGS else {"phone": PHONE, "desktop": DESKTOP}
                wanted = ("midgame",) if lang in EXTRA_LANGS else STATES

                async def shoot(state: str, widths: dict[str, int] = widths, wanted: tuple[str, ...] = wanted,
                                channel: Any = channel, player: Any = player, lang: str = lang) -> None:
                    if state in wanted:
                        for name, width in widths.items():
                            size = "360" if name == "phone" else name
                            await shoot_preview(env, browser, channel, player, width,
                                                HERE / f"discord-{size}-{lang}-{state}.png", problems)

                message = (await player.slash(channel, "tripeaks new", code=CODE)).response
                assert message is not None
                await shoot("fresh")
                for action in line[:MIDGAME_MOVES]:
                    message = await click(player, message, command_of(action))
                await shoot("midgame")
                if lang in EXTRA_LANGS:
                    continue
                message = await click(player, message, "h")
                await shoot("hint")
                for action in line[MIDGAME_MOVES:]:
                    message = await click(player, message, command_of(action))
                await shoot("won")
                await more_discord_shots(env, browser, channel, player, lang, problems)
            if "en" in langs:
                await legacy_shots(env, browser, guild, problems)


async def more_discord_shots(env: simcord.Env, browser: Browser, channel: Any, player: Any, lang: str,
                             problems: dict[str, list[str]]) -> None:
    """The settings (the language's select menu), the text board (a ten is X), the questions before a game in
    progress is abandoned (a new game, the daily deal), the daily board and the leaderboard: at 360 px, and the
    text board at desktop width too."""

    async def shoot(state: str, *widths: int) -> None:
        for width in widths or (PHONE,):
            size = "360" if width == PHONE else "desktop"
            await shoot_preview(env, browser, channel, player, width, HERE / f"discord-{size}-{lang}-{state}.png",
                                problems)

    settings = (await player.slash(channel, "tripeaks settings")).response
    await shoot("settings")
    await player.click(settings, custom_id="tp:set:board:text")
    message = (await player.slash(channel, "tripeaks new", code=CODE)).response
    for action in winning_line(CODE)[:MIDGAME_MOVES]:
        message = await click(player, message, command_of(action))
    await shoot("midgame-text", PHONE, DESKTOP)
    await player.click(message, custom_id=button(message, command="n")["custom_id"])
    await shoot("question")
    asked = (await player.slash(channel, "tripeaks daily")).response
    await shoot("question-daily")
    yes = next(b for b in buttons_of(asked) if b["custom_id"].startswith("tp:y:"))
    await player.click(asked, custom_id=yes["custom_id"])
    await shoot("daily")
    await player.slash(channel, "tripeaks leaderboard")
    await shoot("leaderboard")


async def legacy_shots(env: simcord.Env, browser: Browser, guild: Any,
                       problems: dict[str, list[str]]) -> None:
    """The two desktop pictures ``docs/discord.md``'s "Screenshots" section shows."""
    channel = guild.create_text_channel("tripeaks")
    alice = guild.add_member(env.create_user("alice", global_name="Alice"))
    message = (await alice.slash(channel, "tripeaks new", code=CODE)).response
    assert message is not None
    await shoot_preview(env, browser, channel, alice, DESKTOP, HERE / "discord-fresh-deal.png", problems)
    game = Game.from_code(CODE)
    for action in winning_line(CODE)[:MIDGAME_MOVES]:
        game.apply(action)
        message = await click(alice, message, command_of(action))
    refused = next(s for s in game.playable_slots() if not game.fits(s))
    message = await click(alice, message, str(refused))
    await shoot_preview(env, browser, channel, alice, DESKTOP, HERE / "discord-mid-game.png", problems)


# --- Telegram: the message as `tripeaks show` prints it, drawn as a phone's chat bubble ------------------


def show(lang: str, actions: Sequence[Action], *, hinted: bool = False,
         owner: str | None = None, image: Path | None = None) -> dict[str, Any]:
    """``tripeaks show CODE ACTIONS --platform telegram --lang LANG --json``, run in this process. ``show``
    draws the board of a private chat, after moves and draws only; two things it has no option for are added
    to the view it renders: with ``hinted``, what a tap on Hint gives (the advisor's hint for the position,
    one hint used), with ``owner``, a board in a group (the player's name on it)."""
    from bot import cli
    from bot.render import game as render_module

    board = ["--board", "picture", "--image", str(image)] if image is not None else ["--board", "text"]
    argv = ["show", CODE, *(command_of(a) for a in actions),
            "--platform", "telegram", "--lang", lang, *board, "--json"]
    changes: dict[str, Any] = {}
    if hinted:
        game = Game.from_code(CODE)
        for action in actions:
            game.apply(action)
        changes.update(hint=fair_hint(game.to_text(), HINT_BUDGET), hints_used=1)
    if owner is not None:
        changes.update(owner_name=owner)
    render_game = render_module.render_game

    def changed(snapshot: Any, *args: Any, **kwargs: Any) -> Any:
        if owner is not None:
            kwargs["owner_label"] = True
        return render_game(dataclasses.replace(snapshot, **changes), *args, **kwargs)

    out = io.StringIO()
    with mock.patch.object(render_module, "render_game", changed), contextlib.redirect_stdout(out):
        status = cli.main(argv)
    if status != 0:
        raise RuntimeError(f"tripeaks {' '.join(argv)} exited with {status}")
    shown: dict[str, Any] = json.loads(out.getvalue())
    return shown


TELEGRAM_CSS = """
body { margin: 0; width: 360px; background: #c9d9b6; font: 16px/1.35 "Liberation Sans", "Noto Sans CJK JP",
       "Noto Color Emoji", sans-serif; -webkit-font-smoothing: antialiased; }
.chat { padding: 10px 8px 12px; }
.message { width: 300px; }
.toast { margin: 0 auto 10px; width: 280px; padding: 10px 14px; border-radius: 8px; background: #333c;
         color: #fff; font-size: 14px; }
.bubble { position: relative; background: #fff; color: #000; border-radius: 12px 12px 12px 4px;
          padding: 7px 10px 8px; box-shadow: 0 1px 1px #0002; }
.text { display: flow-root; white-space: pre-wrap; overflow-wrap: anywhere; }
.text pre { margin: 4px 0; padding: 6px 8px 6px 9px; border-left: 3px solid #3a8fd8; border-radius: 4px;
            background: #eef4fa; white-space: pre-wrap; overflow-wrap: anywhere;
            font: 14px/1.3 "DejaVu Sans Mono", "Noto Sans Mono CJK JP", monospace;
            font-variant-ligatures: none; }
.time { float: right; margin: 4px 0 -4px 10px; font-size: 12px; line-height: 16px; color: #8a9aa8;
        white-space: nowrap; }
.keyboard { margin-top: 3px; }
.row { display: flex; gap: 3px; margin-top: 3px; }
.button { flex: 1 1 0; min-width: 0; height: 38px; padding: 0 6px; border-radius: 8px; box-sizing: border-box;
          display: flex; align-items: center; justify-content: center; color: #fff; background: #0000004a;
          font-size: 14px; font-weight: 600; }
.button span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.button.success { background: #3fa24b; }
.button.primary { background: #3390ec; }
.button.danger { background: #e0463e; }
.bubble.photo { padding: 0 0 8px; overflow: hidden; }
.bubble.photo img { display: block; width: 100%; margin-bottom: 6px; }
.bubble.photo .text { padding: 0 10px; }
"""

# Measured on the Telegram page: a <pre> line that wraps, a button label cut with "…".
BUBBLE_MEASURE = WRAPPED_LINES + """(() => {
    const problems = [];
    const wrapped = wrappedLines(document.querySelector('.text > b'));
    if (wrapped) problems.push(wrapped);
    document.querySelectorAll('.text pre').forEach((block) => {
        const probe = block.cloneNode(true);
        probe.style.whiteSpace = 'pre';
        probe.style.width = 'max-content';
        probe.style.position = 'absolute';
        block.parentNode.appendChild(probe);  // the same styles as the block
        const style = getComputedStyle(block);
        const room = block.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        const needed = probe.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        probe.remove();
        if (needed > room + 0.5) problems.push(`<pre> wraps: its widest line needs ${needed.toFixed(0)} px, `
                                               + `the bubble gives it ${room.toFixed(0)}`);
    });
    document.querySelectorAll('.button span').forEach((label) => {
        if (label.scrollWidth > label.clientWidth + 0.5) {
            problems.push(`button label cut: "${label.textContent}" needs ${label.scrollWidth} px, `
                          + `has ${label.clientWidth}`);
        }
    });
    const box = document.querySelector('.chat').getBoundingClientRect();
    return {height: box.height, problems};
})()"""


def telegram_page(shown: dict[str, Any], image: str | None = None) -> str:
    """A 360-px phone screen with the message: its HTML text in a chat bubble, the inline keyboard under
    it; with ``image`` (the picture board), a photo bubble: the picture as wide as the bubble, the caption under
    it."""
    # The text is Telegram HTML as the bot sends it; a line break next to a <pre> block is absorbed by it.
    text = re.sub(r"\n?(</?pre>)\n?", r"\1", shown["text"])
    rows = "".join(
        '<div class="row">' + "".join(
            f'<div class="button {b["style"] or "plain"}"><span>{html.escape(b["label"])}</span></div>'
            for b in row) + "</div>"
        for row in shown["buttons"])
    toast = f'<div class="toast">{html.escape(shown["notice"])}</div>' if shown.get("notice") else ""
    return (f'<!doctype html><html><head><meta charset="utf-8"><style>{TELEGRAM_CSS}</style></head><body>'
            f'<div class="chat">{toast}<div class="message"><div class="bubble{" photo" if image else ""}">'
            + (f'<img src="{image}" alt="">' if image else "")
            + f'<div class="text">{text}<span class="time">12:00</span></div></div>'
            f'<div class="keyboard">{rows}</div></div></div></body></html>')


async def telegram_shots(work: Path, browser: Browser, langs: Sequence[str],
                         problems: dict[str, list[str]]) -> None:
    line = winning_line(CODE)
    for lang in langs:
        for state in ("midgame", "group") if lang in EXTRA_LANGS else (*STATES, "group"):
            actions = () if state == "fresh" else line if state == "won" else line[:MIDGAME_MOVES]
            shown = show(lang, actions, hinted=state == "hint",
                         owner=PLAYER_NAMES[lang] if state == "group" else None)
            page = work / f"telegram-{lang}-{state}.html"
            page.write_text(telegram_page(shown), encoding="utf-8")
            await browser.open(page.as_uri(), PHONE, 900)
            await browser.wait_for("document.readyState === 'complete' && document.fonts.status === 'loaded'",
                                   "its fonts")
            seen = await browser.evaluate(BUBBLE_MEASURE)
            target = HERE / f"telegram-360-{lang}-{state}.png"
            await browser.capture({"x": 0, "y": 0, "width": PHONE, "height": seen["height"]}, target)
            report(target, seen["problems"], problems)
            if lang in PICTURE_LANGS and state in STATES:  # the picture board (the default) as a photo bubble
                image = work / f"telegram-{lang}-{state}.png"
                shown = show(lang, actions, hinted=state == "hint", image=image)
                page = work / f"telegram-{lang}-{state}-picture.html"
                page.write_text(telegram_page(shown, image.name), encoding="utf-8")
                await browser.open(page.as_uri(), PHONE, 900)
                await browser.wait_for("document.readyState === 'complete' && document.fonts.status === 'loaded'"
                                       " && document.images[0].complete", "its fonts and picture")
                seen = await browser.evaluate(BUBBLE_MEASURE)
                target = HERE / f"telegram-360-{lang}-{state}-picture.png"
                await browser.capture({"x": 0, "y": 0, "width": PHONE, "height": seen["height"]}, target)
                report(target, seen["problems"], problems)


async def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("discord", "telegram"), help="one platform (default both)")
    parser.add_argument("--lang", nargs="+", choices=LANGS + EXTRA_LANGS, default=list(LANGS + EXTRA_LANGS))
    args = parser.parse_args(argv)
    problems: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as folder:
        work = Path(folder)
        async with Browser(work / "chromium") as browser:
            if args.only in (None, "telegram"):
                await telegram_shots(work, browser, args.lang, problems)
            if args.only in (None, "discord"):
                await discord_shots(work, browser, args.lang, problems)
    bad = {name: found for name, found in problems.items() if found}
    print(f"{len(problems)} pictures, {len(bad)} with something that does not fit"
          + "".join(f"\n  {name}: {'; '.join(found)}" for name, found in sorted(bad.items())))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""Where Discord's card buttons stand on a phone, in each state of one game. Run by hand:

    .venv/bin/python bench/discord_layout.py [--locales en ru] [--board picture text]

It needs SimCord's preview (``pip install "simcord[preview]"``) and Debian's ``chromium``. The real bot plays
TP1-E-AAAAAAB on SimCord (the service and stand-in solver of ``tests/discord_harness.py``): fresh, a refused card,
a hint, the first peak cleared (the solver's winning line), an undo, every card but the winning line's last one
played (the rows emptied); after each, SimCord's preview of the board at
360 px is loaded in headless chromium, driven over its DevTools protocol, and the top of the Draw button is read
(in CSS pixels, once the preview says "Viewport updated", every image has loaded and three reads agree). It prints
one line a language and board: the Draw button's y in each state. ``--shots DIR`` also saves each state's page
as ``DIR/<locale>-<board>-<n>.png``, to look at.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import simcord

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app.model import BoardStyle  # noqa: E402
from bot.i18n import translator  # noqa: E402
from bot.store.migrate import upgrade_database  # noqa: E402
from core.game import Game  # noqa: E402
from tests.core_helpers import winning_line  # noqa: E402
from tests.discord_harness import Locales, button, click, make_bot, open_service, slash  # noqa: E402

CODE = "TP1-E-AAAAAAB"
PORT = 9337
#: The top of the last button labelled ``LABEL``, once the page has settled; null before.
TOP_OF = """(() => {
  const found = [...document.querySelectorAll('button')].filter(b => b.textContent.trim() === LABEL);
  const settled = document.body.innerText.includes('Viewport updated')
    && [...document.images].every(i => i.complete && i.naturalHeight > 0);
  return found.length && settled ? Math.round(found[found.length - 1].getBoundingClientRect().top) : null;
})()"""


class Browser:
    """One chromium tab over the DevTools protocol."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.calls = 0

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.calls += 1
        await self.socket.send_json({"id": self.calls, "method": method, "params": params})
        while True:
            message = json.loads((await self.socket.receive()).data)
            if message.get("id") == self.calls:
                result: dict[str, Any] = message.get("result", {})
                return result

    async def save(self, path: Path) -> None:
        """The page as it now shows, as a PNG at ``path``."""
        shot = await self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))

    async def top_of(self, url: str, label: str) -> int | None:
        """The top of the button ``label`` on the page ``url``, once three reads 0.2 s apart agree."""
        await self.call("Page.navigate", url=url)
        reads: list[int | None] = []
        for _ in range(150):
            await asyncio.sleep(0.2)
            found = await self.call("Runtime.evaluate", returnByValue=True,
                                    expression=TOP_OF.replace("LABEL", json.dumps(label)))
            reads.append(found.get("result", {}).get("value"))
            if reads[-1] is not None and reads[-3:] == [reads[-1]] * 3:
                return reads[-1]
        return None


async def tab(session: aiohttp.ClientSession) -> str:
    """The DevTools address of chromium's first tab, once chromium answers."""
    for _ in range(100):
        try:
            async with session.get(f"http://127.0.0.1:{PORT}/json/list") as answer:
                pages = [page for page in await answer.json() if page["type"] == "page"]
                if pages:
                    return str(pages[0]["webSocketDebuggerUrl"])
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("chromium did not start")


async def measure(locale: str, board: BoardStyle, folder: Path, browser: Browser,
                  shots: Path | None = None) -> list[tuple[str, int | None]]:
    template = folder / f"template-{locale}-{board.value}.db"
    await upgrade_database(f"sqlite+aiosqlite:///{template}")
    label = translator(locale).pgettext("button", "Draw")
    patches = pytest.MonkeyPatch()
    shown: list[tuple[str, int | None]] = []
    try:
        async with open_service(template, folder / f"{locale}-{board.value}.db", board=board) as service:
            locales = Locales(patches)
            async with simcord.run(make_bot(service)) as env:
                guild = env.create_guild()
                channel = guild.create_text_channel("general")
                alice = guild.add_member(env.create_user("alice"))
                locales.set(alice, locale)
                message, _ = await slash(env, alice, channel, "tripeaks new", code=CODE)
                async with env.preview(channel, viewers=[alice], layout="message", display="fixed", width=360,
                                       height=900) as preview:

                    async def look(state: str) -> None:
                        await preview.show(message)
                        await preview.refresh()
                        shown.append((state, await browser.top_of(preview.url, label)))
                        if shots is not None:
                            await browser.save(shots / f"{locale}-{board.value}-{len(shown)}.png")

                    await look("fresh")
                    game = Game.from_code(CODE)
                    refused = next(slot for slot in game.playable_slots() if not game.fits(slot))
                    message, _ = await click(env, alice, message, button(message, command=str(refused)))
                    await look("refused card")
                    message, _ = await click(env, alice, message, button(message, command="h"))
                    await look("hint")
                    line = winning_line(CODE)
                    played = 0  # the actions of the line played, the one that cleared the peak included
                    for action in line:
                        played += 1
                        message, _ = await click(env, alice, message, button(message, command=str(action)))
                        if game.apply(action).cleared_peak is not None:
                            break
                    await look("peak cleared")
                    message, _ = await click(env, alice, message, button(message, command="u"))
                    await look("undo (counters)")
                    for action in line[played - 1:-1]:
                        message, _ = await click(env, alice, message, button(message, command=str(action)))
                    await look("one card left (rows emptied)")
    finally:
        patches.undo()
    return shown


async def main(locales: list[str], boards: list[BoardStyle], shots: Path | None = None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        chromium = await asyncio.create_subprocess_exec(
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", f"--remote-debugging-port={PORT}", f"--user-data-dir={folder}/chrome",
            "--window-size=360,900", "about:blank",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        try:
            async with aiohttp.ClientSession() as session, \
                    session.ws_connect(await tab(session), max_msg_size=0) as socket:
                browser = Browser(socket)
                await browser.call("Page.enable")
                for locale in locales:
                    for board in boards:
                        states = await measure(locale, board, Path(folder), browser, shots)
                        print(f"{locale} {board.value}: Draw at y " + ", ".join(f"{y} ({state})" for state, y in states))
        finally:
            chromium.terminate()
            await chromium.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locales", nargs="+", default=["en", "ru"])
    parser.add_argument("--board", nargs="+", default=[style.value for style in BoardStyle],
                        choices=[style.value for style in BoardStyle])
    parser.add_argument("--shots", type=Path, help="a folder to save each state's page in, as PNG")
    arguments = parser.parse_args()
    if arguments.shots is not None:
        arguments.shots.mkdir(parents=True, exist_ok=True)
    asyncio.run(main(arguments.locales, [BoardStyle(value) for value in arguments.board], arguments.shots))

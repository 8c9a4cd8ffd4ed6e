"""The table in a real browser: the table's server on a free port over an application, and Debian's chromium driven
by Playwright for Python (no browser of Playwright's own is downloaded). For the browser tests, the benchmark
(bench/web.py) and the screenshots (docs/screenshots/web.py)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from bot.adapters.web.auth import Signer, sign_init_data
from bot.adapters.web.server import TableServer
from bot.app.flow import Flow
from core.game import Action, Draw, Tap

TOKEN = "123456:" + "A" * 35
#: Debian's chromium (``apt-get install chromium``; .ci/run installs it when it is missing).
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: A phone (360 x 640 CSS pixels at double density) and a desktop window.
PHONE = {"viewport": {"width": 360, "height": 640}, "device_scale_factor": 2, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}, "device_scale_factor": 1}
#: Telegram's dark theme as a Mini App's launch data hands it over (tgWebAppThemeParams).
DARK_THEME = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499", "button_color": "#5288c1",
              "button_text_color": "#ffffff", "secondary_bg_color": "#232e3c"}


def init_data(user_id: int, *, name: str = "Ann", age: float = 0, language: str = "en", token: str = TOKEN) -> str:
    """A Mini App's initData for the user ``user_id``, ``age`` seconds old, as Telegram signs it."""
    user = json.dumps({"id": user_id, "first_name": name, "language_code": language})
    return sign_init_data({"auth_date": str(int(time.time() - age)), "query_id": "AAH", "user": user}, token)


def init_data_header(user_id: int, **kwargs: Any) -> dict[str, str]:
    """The header a Mini App's requests carry (``tma <initData>``)."""
    return {"Authorization": f"tma {init_data(user_id, **kwargs)}"}


def mini_app_url(port: int, user_id: int, *, name: str = "Ann", language: str = "en", token: str = TOKEN,
                 tamper: bool = False, theme: dict[str, str] | None = None) -> str:
    """The page's address as Telegram opens a Mini App: the launch data in the fragment (``tampered``: the user's
    name changed after signing)."""
    signed = init_data(user_id, name=name, language=language, token=token)
    if tamper:
        signed = signed.replace(quote(name), quote(name + "x"))
    fragment = f"tgWebAppData={quote(signed)}&tgWebAppVersion=8.0&tgWebAppPlatform=android"
    if theme is not None:
        fragment += f"&tgWebAppThemeParams={quote(json.dumps(theme))}"
    return f"http://127.0.0.1:{port}/#{fragment}"


@dataclass
class Table:
    server: TableServer
    browser: Any

    @property
    def port(self) -> int:
        return self.server.port

    async def page(self, url: str, device: dict[str, Any] = PHONE) -> Any:
        """A new page at ``url``, once it has drawn its first answer (or said it does not know the visitor)."""
        page = await self.browser.new_page(**device)
        await page.goto(url)
        await page.wait_for_selector("body[data-ready]")
        return page


@contextlib.asynccontextmanager
async def table_in_browser(flow: Flow, *, clock: Any = time.time) -> AsyncIterator[Table]:
    """The table's server for ``flow`` on a free port, and a headless chromium."""
    from playwright.async_api import async_playwright

    server = TableServer(flow, Signer(b"browser tests " * 3, clock), telegram_token=TOKEN, port=0)
    await server.start()
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                yield Table(server, browser)
            finally:
                await browser.close()
    finally:
        await server.stop()


async def settled(page: Any) -> None:
    """Wait until every tap sent has been answered and drawn (a selector, not a script: the page's
    Content-Security-Policy allows no script evaluated from a string)."""
    await page.locator("body:not([data-busy])").wait_for(state="attached")


async def until(page: Any, condition: str) -> None:
    """Wait until the JavaScript ``condition`` holds on the page, checked at each frame inside the page (the page's
    Content-Security-Policy allows no script evaluated from a string, which ``wait_for_function`` needs)."""
    await page.evaluate(f"async () => {{ while (!({condition})) await new Promise((r) => requestAnimationFrame(r)); }}")


async def tap(page: Any, action: Action) -> None:
    """Tap a card of the peaks (by its slot) or the stock, as a player does, and wait for the answer."""
    if isinstance(action, Tap):
        await page.locator(f"#table .card[data-slot='{action.slot}']").click()
    else:
        assert isinstance(action, Draw)
        await page.locator("#stock").click()
    await settled(page)


async def play_line(page: Any, line: Sequence[Action]) -> None:
    for action in line:
        await tap(page, action)


async def start_deal(page: Any, code: str) -> None:
    """Start the deal ``code`` through the page's own way of sending a button's payload."""
    await page.evaluate("(code) => send(`tp:b:c:${code}`)", code)
    await settled(page)

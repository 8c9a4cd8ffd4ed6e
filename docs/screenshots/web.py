"""Take the screenshots of the table in the browser (headless chromium, as the browser tests drive it):

    .venv/bin/python docs/screenshots/web.py

It writes ``web-360-LANG-STATE.png`` (a phone held upright, 360 x 740 at double density, opened as a Telegram Mini
App, in Telegram's dark theme but for Ukrainian), ``web-740-LANG-STATE.png`` (the phone turned sideways, 740 x 360)
for LANG in en, ru, ja, and ``web-desktop-en-midgame.png`` (a 1280 x 800 window, the page's own colours), STATE one
of ``midgame`` (TP1-E-AAAAAAB after the first eleven moves of the solver's winning line, a hint
asked for), ``question`` (New game over a game with moves) and ``won`` (the line played to the win); and
``activity-360-en-midgame.png`` and ``activity-360-fr-refused.png``: the page as a Discord Activity on a phone
(inside a stand-in for Discord's client, tests/activity_harness.py: the page's own colours, as Discord hands the
Activity no theme), at the same point of the game, and a sign-in Discord refused. Look at them: every card should
read at a glance and every button fit.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.app.assembly import App  # noqa: E402
from core.game import Game  # noqa: E402
from core.solver import solve  # noqa: E402
from tests.activity_harness import activity_in_browser  # noqa: E402
from tests.web_harness import (  # noqa: E402
    DARK_THEME,
    DESKTOP,
    PHONE,
    mini_app_url,
    play_line,
    settled,
    start_deal,
    table_in_browser,  # noqa: E402
)

HERE = Path(__file__).resolve().parent
CODE = "TP1-E-AAAAAAB"


#: A phone held upright and turned sideways (CSS pixels, at double density), as the browser tests measure them.
UPRIGHT = {**PHONE, "viewport": {"width": 360, "height": 740}}
SIDEWAYS = {**PHONE, "viewport": {"width": 740, "height": 360}}


async def shots(app: App) -> None:
    line = solve(Game.from_code(CODE)).line or ()
    async with table_in_browser(app.flow) as table:
        for user_id, (name, language, device, theme, kept) in enumerate((
                ("web-360-en", "en", UPRIGHT, DARK_THEME, {"midgame", "question", "won"}),
                ("web-360-ru", "ru", UPRIGHT, DARK_THEME, {"midgame", "won"}),
                ("web-360-ja", "ja", UPRIGHT, DARK_THEME, {"midgame", "question", "won"}),
                ("web-360-uk", "uk", UPRIGHT, None, {"won"}),
                ("web-740-en", "en", SIDEWAYS, DARK_THEME, {"midgame", "won"}),
                ("web-740-ru", "ru", SIDEWAYS, DARK_THEME, {"midgame", "won"}),
                ("web-740-ja", "ja", SIDEWAYS, DARK_THEME, {"midgame", "won"}),
                ("web-desktop-en", "en", DESKTOP, None, {"midgame"})), start=1):
            page = await table.page(mini_app_url(table.port, user_id, language=language, theme=theme), device)
            await start_deal(page, CODE)
            await play_line(page, line[:11])
            await page.locator("#controls button[data-kind='hint']").click()
            await settled(page)
            await landed(page)
            await save(page, name, "midgame", kept)
            await page.locator("#controls button[data-kind='new']").click()  # New game: asked first
            await settled(page)
            await save(page, name, "question", kept)
            await page.locator("#message button").last.click()  # closed: the game goes on
            await play_line(page, line[11:])
            await landed(page)  # the win's moment played out
            await save(page, name, "won", kept)
            await page.close()


async def landed(page: object) -> None:
    """Wait until every card in flight has landed and every turn is done."""
    await page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))")  # type: ignore[attr-defined]


async def activity_shots(app: App) -> None:
    line = solve(Game.from_code(CODE)).line or ()
    async with activity_in_browser(app.flow) as activity:
        page, table = await activity.launch(activity.api.code_for("1", "Ann"))
        await start_deal(table, CODE)
        await play_line(table, line[:11])
        await table.locator("#controls button[data-kind='hint']").click()
        await settled(table)
        await landed(table)
        await save(page, "activity-360-en", "midgame", {"midgame"})
        page, _ = await activity.launch("forged", locale="fr-FR")
        await save(page, "activity-360-fr", "refused", {"refused"})


async def save(page: object, name: str, state: str, kept: set[str]) -> None:
    if state not in kept:
        return
    path = HERE / f"{name}-{state}.png"
    await page.screenshot(path=str(path))  # type: ignore[attr-defined]
    print(path.name)


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with await App.open(f"sqlite+aiosqlite:///{folder}/screens.db") as app:
            await shots(app)
            await activity_shots(app)


if __name__ == "__main__":
    asyncio.run(main())

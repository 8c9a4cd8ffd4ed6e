"""Take the screenshots of the table in the browser (headless chromium, as the browser tests drive it):

    .venv/bin/python docs/screenshots/web.py

It writes ``web-360-LANG-STATE.png`` (a phone held upright, 360 x 740 at double density, opened as a Telegram Mini
App, in Telegram's dark theme but for Ukrainian), ``web-740-LANG-STATE.png`` (the phone turned sideways, 740 x 360)
for LANG in en, ru, ja, and ``web-desktop-en-midgame.png`` (a 1280 x 800 window, the page's own colours), STATE one
of ``midgame`` (TP1-E-AAAAAAB after the first eleven moves of the solver's winning line, a hint
asked for), ``question`` (New game over a game with moves) and ``won`` (the line played to the win); and
``activity-360-en-midgame.png`` and ``activity-360-fr-refused.png``: the page as a Discord Activity on a phone
(inside a stand-in for Discord's client, tests/activity_harness.py: the page's own colours, as Discord hands the
Activity no theme), at the same point of the game, and a sign-in Discord refused; ``web-360-LANG-round.png`` and
``web-360-LANG-watch.png`` for LANG in en, ru, de: a live round of four players (TP1-E-AAAAAAC), the player's own
table with the others' progress above it, then, the player's game won, "Watch the others". Look at them: every card
should read at a glance and every button fit.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.app.assembly import App  # noqa: E402
from bot.app.commands import Actor, Begin, Move, RoundDeal, StartRound, Surface  # noqa: E402
from bot.app.effects import PlayerKey, PostRound  # noqa: E402
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
ROUND_CODE = "TP1-E-AAAAAAC"


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


async def round_shots(app: App) -> None:
    """A live round: the standings beside the table, and the others watched once the player's game is won."""
    line = solve(Game.from_code(ROUND_CODE)).line or ()
    async with table_in_browser(app.flow) as table:
        for at, language in enumerate(("en", "ru", "de")):
            host = Actor(PlayerKey("telegram", "90"), "Host", "-100", "-100")
            (posted,) = await app.flow.handle(host, StartRound(code=ROUND_CODE), Surface(platform="telegram"))
            assert isinstance(posted, PostRound)
            players = []
            for user_id, name, moves in ((91, "Alice", 0), (92, "Bob", 9), (93, "Carol", 4),
                                         (94, "Dmitri Ivanovich", 14)):
                user_id += 10 * at  # new players for each round: one game in progress a player
                player = Actor(PlayerKey("telegram", str(user_id)), name, str(user_id), None)
                await app.flow.handle(player, Begin(RoundDeal(posted.round.round_id)))
                players.append(player)
                for action in line[:moves]:
                    game = await app.games.current_game(player.player)
                    assert game is not None
                    await app.flow.handle(player, Move(game.game_id, game.version, action))
            page = await table.page(mini_app_url(table.port, 91 + 10 * at, name="Alice", language=language,
                                                 theme=DARK_THEME), UPRIGHT)
            await play_line(page, line[:6])
            await page.locator("#standings .chip").nth(3).wait_for(state="attached")
            await landed(page)
            await save(page, f"web-360-{language}", "round", {"round"})
            await play_line(page, line[6:])
            await landed(page)
            await page.locator("#ending button[data-watch]").click()
            await page.locator("#watch .player").nth(3).wait_for()
            await save(page, f"web-360-{language}", "watch", {"watch"})
            await page.close()


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with await App.open(f"sqlite+aiosqlite:///{folder}/screens.db") as app:
            if sys.argv[1:] != ["rounds"]:
                await shots(app)
                await activity_shots(app)
            await round_shots(app)


if __name__ == "__main__":
    asyncio.run(main())

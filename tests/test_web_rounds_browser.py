"""A live round at the table in a real browser (headless chromium, Playwright; issue 51): beside a player's table of
a round, the others' progress (names, cards left, score) moves as they play; once the player's game is over,
"Watch the others" shows every player's table live, read only; and a Discord Activity opened in an instance puts its
player in the instance's round."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app.assembly import App
from bot.app.commands import Actor, Begin, RoundDeal, StartRound, Surface
from bot.app.effects import PostRound
from bot.app.model import PlayerKey
from bot.i18n import SUPPORTED_LOCALES
from bot.render.table import seen_table
from bot.render.view import SlotState
from core.game import Action, Tap
from tests.activity_harness import activity_in_browser
from tests.core_helpers import winning_line
from tests.test_rounds import ALICE, BOB, WIN_CODE, edited, join, start_round, tap
from tests.test_web_browser import UPRIGHT
from tests.test_web_streams import until as eventually
from tests.web_harness import CHROMIUM, Table, mini_app_url, play_line, table_in_browser, until

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)", allow_module_level=True)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def table(service: App) -> AsyncIterator[Table]:
    async with table_in_browser(service.flow) as opened:
        yield opened


def up_to_first_tap(line: tuple[Action, ...]) -> tuple[Action, ...]:
    """The moves of ``line`` up to and including its first card played from the peaks."""
    first = next(at for at, action in enumerate(line) if isinstance(action, Tap))
    return line[:first + 1]


async def test_the_others_progress_moves_beside_the_table_and_a_finished_player_watches_them(
        table: Table, service: App) -> None:
    round = await start_round(service, StartRound(code=WIN_CODE))
    await join(service, ALICE, round)
    bob, _ = await join(service, BOB, round)
    page = await table.page(mini_app_url(table.port, 1, name="Alice"))
    assert "live round: no undo" in await page.locator("#header").inner_text()
    await until(page, "document.querySelectorAll('#standings .chip:not(.clock)').length === 2")
    mine = page.locator("#standings .chip:not(.clock)").first  # the player's own first, then the others
    assert await mine.get_attribute("data-you") == "1" and await mine.inner_text() == "1. Alice 28 · 500"
    assert await mine.get_attribute("aria-label") == "1. Alice: 28 left · 500 pts"
    assert await page.locator("#standings .chip[aria-label$='Bob: 28 left · 500 pts']").count() == 1

    line = winning_line(WIN_CODE)
    for action in up_to_first_tap(line):  # Bob plays in his chat: no reload here
        bob = edited(await tap(service, BOB, bob, action))
    await until(page, "!!document.querySelector('#standings .chip[aria-label*=\"Bob: 27 left\"]')")

    await play_line(page, line)  # Alice wins at the table: the round's others may be watched
    watch = page.locator("#ending button[data-watch]")
    assert await watch.inner_text() == "👀 Watch the others"
    await watch.click()
    await until(page, "document.querySelectorAll('#watch .player').length === 2")
    assert await page.locator("#table").is_hidden()
    # the tab holds two streams, its own board's and the round's (the standings' closed meanwhile): a player's
    # streams are capped, and a second tab must not close this one's
    await eventually(lambda: table.server.streams_open == 2)
    bobs = page.locator("#watch .player", has_text="Bob")
    assert "27 left" in await bobs.locator("h2").inner_text()
    face_up = sum(seen.state is SlotState.UP for seen in seen_table(bob.game).slots)
    assert await bobs.locator("svg.mini use").count() == face_up + 1  # his face-up cards and the waste: no other
    for action in up_to_first_tap(line[len(up_to_first_tap(line)):]):  # Bob plays on: it shows, live
        bob = edited(await tap(service, BOB, bob, action))
    await until(page, "document.querySelector('#watch').textContent.includes('Bob26 left')")
    await page.locator("#watch .top button").click()  # back to the player's own table, the standings beside it
    assert await page.locator("#table").is_visible()
    await until(page, "!!document.querySelector('#standings .chip[aria-label*=\"Bob: 26 left\"]')")
    await eventually(lambda: table.server.streams_open == 2)


async def test_a_discord_activity_opened_in_an_instance_plays_its_round(service: App) -> None:
    async with activity_in_browser(service.flow) as activity:
        _, frame = await activity.launch(activity.api.code_for("111", "Dana"))
        assert "live round: no undo" in await frame.locator("#header").inner_text()
        _, other = await activity.launch(activity.api.code_for("222", "Eve"))
        assert "live round: no undo" in await other.locator("#header").inner_text()
    games = [await service.games.current_game(PlayerKey("discord", user_id)) for user_id in ("111", "222")]
    assert all(game is not None for game in games)
    rounds = {game.round_id for game in games if game is not None}
    assert len(rounds) == 1 and None not in rounds


async def test_the_round_strip_watch_button_and_watched_round_fit_a_phone_in_every_language(
        table: Table, service: App) -> None:
    """At 360 px, in each of the ten languages: the standings strip's clock and the player's own line show whole,
    "Watch the others" shows its whole words beside a finished game's buttons, and the watched round overflows
    nothing sideways (each player's line, name and figures, within the screen)."""
    line = winning_line(WIN_CODE)
    for at, locale in enumerate(SUPPORTED_LOCALES):
        host = Actor(PlayerKey("telegram", str(1000 + at)), "Host", "-100", "-100")
        (posted,) = await service.flow.handle(host, StartRound(code=WIN_CODE), Surface(platform="telegram"))
        assert isinstance(posted, PostRound)
        for user_id, name in ((100 + at, "Alice"), (200 + at, "Maximilian-Alexander Longname")):
            await service.flow.handle(Actor(PlayerKey("telegram", str(user_id)), name, str(user_id), None),
                                      Begin(RoundDeal(posted.round.round_id)))
        page = await table.page(mini_app_url(table.port, 100 + at, name="Alice", language=locale.replace("_", "-")),
                                UPRIGHT)
        await until(page, "document.querySelectorAll('#standings .chip').length === 3")
        for chip in await page.locator("#standings .chip.clock, #standings .chip[data-you]").all():
            box = await chip.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 360, (locale, await chip.inner_text())
        await play_line(page, line)
        buttons = await page.locator("#ending button").all()
        assert len(buttons) == 4, locale
        for button in buttons:
            fits = await button.evaluate("(b) => b.scrollWidth <= b.clientWidth && b.scrollHeight <= b.clientHeight"
                                         " && parseFloat(getComputedStyle(b).fontSize) >= 10")
            assert fits, (locale, await button.inner_text())
        await page.locator("#ending button[data-watch]").click()
        await until(page, "document.querySelectorAll('#watch .player').length === 2")
        assert await page.evaluate("document.querySelector('#watch').scrollWidth <= innerWidth"), locale
        for part in await page.locator("#watch h1, #watch .top button, #watch .player h2 > *").all():
            box = await part.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, (
                locale, await part.inner_text())
        await page.close()


async def test_a_player_still_playing_who_opens_a_watch_link_is_back_at_their_table(
        table: Table, service: App) -> None:
    round = await start_round(service, StartRound(code=WIN_CODE))
    await join(service, BOB, round)
    page = await table.page(mini_app_url(table.port, 2, name="Bob") + f"&watch={round.round_id}")
    await until(page, "!document.body.dataset.mode && !!document.querySelector('#standings .chip[data-you]')")
    assert await page.locator("#table").is_visible() and await page.locator("#watch .player").count() == 0
    assert "live round: no undo" in await page.locator("#header").inner_text()

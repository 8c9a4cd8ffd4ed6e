"""The table in a real browser (headless chromium, Playwright for Python): whole games played by clicking the
cards, the daily attempt without Undo, a hint, a tampered launch and another player's game refused, the player's
language and Telegram's theme, and a phone's width."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app.assembly import App
from bot.app.effects import PlayerKey
from core.game import Draw, Game
from core.solver import solve
from tests.web_harness import (
    CHROMIUM,
    DARK_THEME,
    DESKTOP,
    Table,
    mini_app_url,
    play_line,
    settled,
    start_deal,
    table_in_browser,
    tap,
)

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)", allow_module_level=True)

ANN = PlayerKey("telegram", "7")


@pytest.fixture
async def table(service: App) -> AsyncIterator[Table]:
    async with table_in_browser(service.flow) as opened:
        yield opened


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAB", "TP1-C-AAAAAAD"], ids=["easy", "classic"])
async def test_a_whole_game_is_won_by_clicking_the_cards(table: Table, service: App, code: str) -> None:
    page = await table.page(mini_app_url(table.port, 7))
    await start_deal(page, code)
    line = solve(Game.from_code(code)).line
    assert line
    await play_line(page, line)
    status = await page.locator("#status").inner_text()
    assert "You won!" in status
    assert await page.locator("#table .card[data-slot]").count() == 0  # every peak card gone
    labels = [await b.get_attribute("aria-label") for b in await page.locator("#controls button").all()]
    assert labels == ["Share", "Replay", "Review", "New game"]
    current = await service.games.latest_game(ANN)
    assert current is not None and current.game.is_over and current.game.moves == len(line)
    # the won table, as the picture draws it: every card played, and the banner with the final score
    from bot.render.table import seen_table

    played = seen_table(current.game, None).played
    assert played and await page.locator("#table .card.played").count() == len(played)
    assert (await page.locator("#banner").inner_text()).split()[-1] == str(current.game.score)
    await page.get_by_role("button", name="Review").click()  # the review after the game, privately
    await settled(page)
    assert await page.locator("#message").is_visible()
    assert (await page.locator("#message h2").inner_text()).startswith("Review")


async def test_a_played_card_lands_on_the_waste_before_the_answer(table: Table) -> None:
    page = await table.page(mini_app_url(table.port, 7))
    await start_deal(page, "TP1-E-AAAAAAB")
    fits = page.locator("#table .card[data-mark='fits']").first
    card = await fits.get_attribute("data-card")
    label = await fits.get_attribute("aria-label")
    assert label is not None and label.endswith("(fits)")
    await fits.click()
    assert await page.locator("#waste").get_attribute("data-card") == card  # at once, before the answer
    await settled(page)
    assert await page.locator("#waste").get_attribute("data-card") == card
    assert "Moves: 1" in await page.locator("#header").inner_text()


async def test_the_daily_attempt_has_no_undo_and_a_hint_shows_its_card(table: Table, service: App) -> None:
    page = await table.page(mini_app_url(table.port, 7))
    await page.get_by_role("button", name="Daily deal").click()
    await settled(page)
    header = await page.locator("#header").inner_text()
    assert "Daily deal" in header and "TP1-" not in header
    names = [await b.get_attribute("aria-label") for b in await page.locator("#controls button").all()]
    assert names == ["Hint", "New game"]
    await page.get_by_role("button", name="Hint").click()
    await settled(page)
    hinted = await page.locator("#table .card[data-mark='hint']").count()
    stock = await page.locator("#stock").get_attribute("aria-label")
    assert hinted == 1 or "hint" in (stock or ""), await page.locator("body").inner_text()
    assert "Hints: 1" in await page.locator("#header").inner_text()
    game = await service.games.current_game(ANN)
    assert game is not None and game.daily is not None and game.hints_used == 1


async def test_a_tampered_launch_is_refused_and_changes_nothing(table: Table, service: App) -> None:
    page = await table.page(mini_app_url(table.port, 7, tamper=True))
    assert await page.evaluate("document.body.dataset.ready") == "refused"
    assert "Open the board" in await page.locator("#header").inner_text()
    assert await service.games.current_game(ANN) is None


async def test_another_players_game_is_refused(table: Table, service: App) -> None:
    ann = await table.page(mini_app_url(table.port, 7))
    await start_deal(ann, "TP1-E-AAAAAAB")
    game = await ann.locator("#table").get_attribute("data-game")
    bob = await table.page(mini_app_url(table.port, 8, name="Bob"))
    await bob.evaluate("(game) => send(`tp:g:${game}:0:19`)", game)
    await settled(bob)
    assert "This is not your game" in await bob.locator("#toast").inner_text()
    current = await service.games.current_game(ANN)
    assert current is not None and current.game.moves == 0


async def test_the_players_language_and_telegrams_theme(table: Table) -> None:
    page = await table.page(mini_app_url(table.port, 7, language="ja", theme=DARK_THEME))
    assert await page.evaluate("document.documentElement.lang") == "ja"
    assert "スコア" in await page.locator("#header").inner_text()
    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(23, 33, 43)"


@pytest.mark.parametrize(("device", "language"), [("phone", "en"), ("phone", "de"), ("phone", "ja"),
                                                  ("phone", "uk"), ("desktop", "en")])
async def test_the_table_fits_the_screen(table: Table, device: str, language: str) -> None:
    page = await table.page(mini_app_url(table.port, 7, language=language),
                            **({"device": DESKTOP} if device == "desktop" else {}))
    await start_deal(page, "TP1-E-AAAAAAB")
    width = await page.evaluate("document.documentElement.scrollWidth")
    viewport = await page.evaluate("window.innerWidth")
    assert width <= viewport
    bottom = await page.evaluate("document.getElementById('starts').getBoundingClientRect().bottom")
    assert bottom <= await page.evaluate("window.innerHeight")  # the whole table without scrolling
    for card in await page.locator("#table .card[data-slot]").all():
        box = await card.bounding_box()
        assert box is not None and box["width"] >= 30  # a finger's tap on a 360-px phone
    await tap(page, next(iter(solve(Game.from_code("TP1-E-AAAAAAB")).line or ())))


async def test_a_move_made_in_the_chat_shows_on_the_open_table(table: Table, service: App) -> None:
    from bot.app.commands import Actor, Move
    from bot.app.effects import EditBoard
    from core.game import Tap

    page = await table.page(mini_app_url(table.port, 7))
    await start_deal(page, "TP1-E-AAAAAAB")
    game = await service.games.current_game(ANN)
    assert game is not None
    slot = next(s for s in game.game.playable_slots() if game.game.fits(s))
    # the same tap, made on the chat's board (the chat's adapter hands it to the one door)
    (effect,) = await service.flow.handle(Actor(ANN, "Ann"), Move(game.game_id, game.version, Tap(slot)))
    assert isinstance(effect, EditBoard)
    await page.wait_for_selector(f"#table[data-version='{game.version + 1}']")
    assert await page.locator("#waste").get_attribute("data-card") == "".join(
        (game.game.card_at(slot).rank.label, game.game.card_at(slot).suit.letter))
    assert await page.locator(f"#table .card[data-slot='{slot}']").count() == 0


async def test_the_vendored_embedded_app_sdk_loads_in_the_browser(table: Table) -> None:
    """Discord's Embedded App SDK, vendored from npm, is a module the browser loads as it is (no build step); a
    page opened as an Activity where none is configured asks nothing and says where to open the board."""
    page = await table.page(mini_app_url(table.port, 7))
    kinds = await page.evaluate("""import("/static/vendor/embedded-app-sdk/index.mjs")
                                   .then((sdk) => [typeof sdk.DiscordSDK, typeof sdk.DiscordSDKMock])""")
    assert kinds == ["function", "function"]
    activity = await table.page(f"http://127.0.0.1:{table.port}/?frame_id=f&instance_id=i&platform=desktop")
    assert await activity.evaluate("document.body.dataset.ready") == "refused"


async def test_share_at_the_table_opens_telegrams_chat_picker_as_in_the_chat(table: Table, service: App) -> None:
    """Share at the table gives what Share gives in the chat: Telegram's chat picker with the bot's inline query
    for this game (its challenge), through Telegram's postEvent."""
    from tests.test_service import BLOCK_CODE, play

    page = await table.browser.new_page()
    await page.add_init_script("window.TelegramWebviewProxy = { postEvent: (type, data) => "
                               "(window.telegramEvents = window.telegramEvents || []).push([type, data]) };")
    await page.goto(mini_app_url(table.port, 7))
    await page.wait_for_selector("body[data-ready]")
    await start_deal(page, BLOCK_CODE)
    current = await service.games.current_game(ANN)
    assert current is not None
    await play(service, ANN, current.game_id, current.version, [Draw()] * 23)  # blocked
    await page.reload()
    await page.wait_for_selector("body[data-ready]")
    await page.locator("#controls").get_by_role("button", name="Share").click()
    await settled(page)
    assert await page.locator("#message").is_visible()
    await page.locator("#message").get_by_role("button", name="Share").click()
    events = await page.evaluate("window.telegramEvents")
    assert [(kind, json.loads(data)["query"]) for kind, data in events] == [
        ("web_app_switch_inline_query", f"#{current.game_id}")]
    assert await page.locator("#message").is_hidden()

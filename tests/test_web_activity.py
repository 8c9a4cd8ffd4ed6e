"""The table as a Discord Activity in a real browser (headless chromium, Playwright): inside Discord's client (a
page at discord.com that answers the Embedded App SDK, tests/activity_harness.py) the page signs in with the SDK
(ready, authorize, the code exchanged by our server with Discord's API, authenticate), shows the Discord player's
own game and plays it by clicks; a forged or declined sign-in is refused and the page says so in the player's
language; and a player can only ever act on their own game."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.app.assembly import App
from bot.app.commands import Actor, Begin, DealByCode, Move
from bot.app.effects import PlayerKey
from bot.app.model import GameSnapshot
from core.game import Game, Tap
from tests.activity_harness import CLIENT_ID, CLIENT_SECRET, Activity, activity_in_browser
from tests.web_harness import CHROMIUM, settled, tap

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)", allow_module_level=True)

pytestmark = pytest.mark.timeout(120)

ANN = PlayerKey("discord", "111")
BOB = PlayerKey("discord", "222")
CODE = "TP1-E-AAAAAAB"


@pytest.fixture
async def activity(service: App) -> AsyncIterator[Activity]:
    async with activity_in_browser(service.flow) as opened:
        yield opened


async def chat_game(service: App, player: PlayerKey, name: str) -> GameSnapshot:
    """A game the player started in a Discord channel with ``/tripeaks new``."""
    await service.flow.handle(Actor(player, name, "43", "42"), Begin(DealByCode(CODE)))
    game = await service.games.current_game(player)
    assert game is not None
    return game


async def sent(page: Any) -> list[tuple[int, Any]]:
    """What the SDK sent Discord's client: (opcode, payload) pairs."""
    return [(opcode, payload) for opcode, payload in await page.evaluate("window.sent")]


async def test_the_activity_signs_in_with_discord_and_plays_the_players_own_game(
        activity: Activity, service: App) -> None:
    """Ann has a game in progress, a move made in the channel: the Activity shows it, and asks first whether to
    leave it for the instance's round (closed: she plays on)."""
    game = await chat_game(service, ANN, "Ann")
    first = next(s for s in game.game.playable_slots() if game.game.fits(s))
    await service.flow.handle(Actor(ANN, "Ann", "43", "42"), Move(game.game_id, game.version, Tap(first)))
    page, table = await activity.launch(activity.api.code_for(ANN.user_id, "Ann"))
    assert await table.evaluate("document.body.dataset.ready") == "1"
    assert await table.locator("#table").get_attribute("data-game") == str(game.game_id)
    assert "Moves: 1" in await table.locator("#header").inner_text()
    assert await table.locator("#message").is_visible()  # leave it for the round? no: closed
    await table.locator("#message button").last.click()
    game = await service.games.current_game(ANN)
    assert game is not None and game.round_id is None
    # the SDK's handshake named our application and Discord's frame, then asked for the identify scope alone
    messages = await sent(page)
    handshake = next(payload for opcode, payload in messages if opcode == 0)
    assert handshake["client_id"] == CLIENT_ID and handshake["frame_id"] == "f-1"
    commands = {payload["cmd"]: payload.get("args") for opcode, payload in messages if opcode == 1}
    assert commands["AUTHORIZE"]["scope"] == ["identify"] and commands["AUTHORIZE"]["response_type"] == "code"
    # our server exchanged the code with the client secret, and handed the page the token Discord issued
    (exchange,) = activity.api.exchanges
    assert exchange["client_secret"] == CLIENT_SECRET and exchange["grant_type"] == "authorization_code"
    assert commands["AUTHENTICATE"]["access_token"] == activity.api.token_of(ANN.user_id)
    assert await page.evaluate("window.authenticated") == ANN.user_id
    # a click on a card that fits plays it, in the game the chat shows
    slot = next(s for s in game.game.playable_slots() if game.game.fits(s))
    await tap(table, Tap(slot))
    assert "Moves: 2" in await table.locator("#header").inner_text()
    played = await service.games.current_game(ANN)
    expected = Game.from_code(CODE)
    expected.apply(Tap(first))
    expected.apply(Tap(slot))
    assert played is not None and played.game_id == game.game_id and played.game.to_text() == expected.to_text()


@pytest.mark.parametrize("code", ["forged", None], ids=["forged", "declined"])
async def test_a_forged_or_declined_sign_in_is_refused_and_the_page_says_so(
        activity: Activity, service: App, code: str | None) -> None:
    page, table = await activity.launch(code, locale="fr-FR")
    assert await table.evaluate("document.body.dataset.ready") == "refused"
    assert await table.evaluate("document.documentElement.lang") == "fr"
    assert await table.locator("#header").inner_text() == (
        "Discord n’a pas confirmé qui vous êtes\u00a0: fermez TriPeaks et relancez-le")
    assert await table.locator("#table .card").count() == 0 and not await table.locator("#table").is_visible()
    assert "AUTHENTICATE" not in [payload["cmd"] for opcode, payload in await sent(page) if opcode == 1]
    # the forged code was put to Discord, which refused it; a declined authorisation asks Discord nothing
    assert [form["code"] for form in activity.api.exchanges] == ([code] if code else [])
    assert await page.evaluate("window.authenticated") is None
    for player in (ANN, BOB):
        assert await service.games.current_game(player) is None  # nothing started for anyone


async def test_a_player_can_only_act_on_their_own_game(activity: Activity, service: App) -> None:
    bobs = await chat_game(service, BOB, "Bob")
    page, table = await activity.launch(activity.api.code_for(ANN.user_id, "Ann"))
    anns = await service.games.current_game(ANN)  # the Activity found Ann no game: the instance's round dealt one
    assert anns is not None and anns.game_id != bobs.game_id
    assert await table.locator("#table").get_attribute("data-game") == str(anns.game_id)
    slot = next(s for s in bobs.game.playable_slots() if bobs.game.fits(s))
    await table.evaluate("(payload) => send(payload)", f"tp:g:{bobs.game_id}:{bobs.version}:{slot}")
    await settled(table)
    assert "This is not your game" in await table.locator("#toast").inner_text()
    after = await service.games.current_game(BOB)
    assert after is not None and after.version == bobs.version and after.game.moves == 0


async def test_a_page_of_another_site_cannot_frame_the_table(activity: Activity) -> None:
    """Clickjacking: a page elsewhere that frames the table gets nothing drawn (the browser refuses the frame under
    the table's frame-ancestors), while Discord's client frames it (the tests above)."""
    from tests.activity_harness import ORIGIN, QUERY

    context = await activity.browser.new_context()
    foreign = "https://games.example.net/"
    await context.route(f"{foreign}*", lambda route: route.fulfill(
        status=200, content_type="text/html",
        body=f'<!doctype html><iframe id="t" src="{ORIGIN}/?{QUERY}"></iframe>'))
    await context.route(f"{ORIGIN}/**", activity._proxy)
    page = await context.new_page()
    async with page.expect_console_message(lambda message: "frame-ancestors" in message.text) as refused:
        await page.goto(foreign)
    assert "blocked" in (await refused.value).text
    assert not [frame for frame in page.frames if frame.url.startswith(ORIGIN)
                and await frame.locator("#table").count()]
    await context.close()

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
from core.game import Draw, Game, Tap
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
    until,
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
    assert labels == ["New game"]  # in its place, Undo's and Hint's kept empty
    labels = [await b.get_attribute("aria-label") for b in await page.locator("#ending button").all()]
    assert labels == ["Share", "Replay", "Review"]
    current = await service.games.latest_game(ANN)
    assert current is not None and current.game.is_over and current.game.moves == len(line)
    # the won table, as the picture draws it: the last cards played, each whole, and the banner with the final score
    from bot.render.picture import fan_shown
    from bot.render.table import seen_table

    played = fan_shown(seen_table(current.game, None).played)
    assert played and await page.locator("#table .card.played").count() == len(played) == 20
    assert (await page.locator("#banner").inner_text()).split()[-1] == str(current.game.score)
    await page.get_by_role("button", name="Review").click()  # the review after the game, privately
    await settled(page)
    assert await page.locator("#message").is_visible()
    assert (await page.locator("#message h2").inner_text()).startswith("Review")


async def test_a_played_card_flies_at_once_and_lands_on_the_waste(table: Table) -> None:
    page = await table.page(mini_app_url(table.port, 7))
    await start_deal(page, "TP1-E-AAAAAAB")
    fits = page.locator("#table .card[data-mark='fits']").first
    card = await fits.get_attribute("data-card")
    label = await fits.get_attribute("aria-label")
    assert label is not None and label.endswith("(fits)")
    handle = await fits.element_handle()
    assert handle is not None
    await fits.click()
    assert await handle.evaluate("(node) => node.classList.contains('flying')")  # at once, before the answer
    await settled(page)
    # the server's board drawn meanwhile kept the flight: it lands, then the waste is the card
    await until(page, "tableStats.flights.length === 1 && tableStats.flights[0].completed")
    assert await page.locator("#waste").get_attribute("data-card") == card
    assert not await handle.evaluate("(node) => node.isConnected")
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
    # the line fit for where it was opened: Telegram's Mini App, closed and opened again from the chat
    assert await page.locator("#header").inner_text() == (
        "Telegram did not confirm who you are: close the board and open it again from the chat")
    assert await service.games.current_game(ANN) is None


async def test_a_blocked_account_reads_why_in_its_language(table: Table, service: App) -> None:
    """An account the deployment's owner blocked opens the table: the one line the chats give it, in its language,
    not a server failure; its game stays as it was."""
    await service.owners.block(ANN, True)
    page = await table.page(mini_app_url(table.port, 7, language="de"))
    await page.wait_for_function("document.body.dataset.ready === 'failed'")
    assert (await page.locator("#header").inner_text()).startswith("Dieser Bot steht dir nicht zur Verfügung.")
    assert await service.games.current_game(ANN) is None


async def test_another_players_game_is_refused(table: Table, service: App) -> None:
    ann = await table.page(mini_app_url(table.port, 7))
    await start_deal(ann, "TP1-E-AAAAAAB")
    game = await ann.locator("#table").get_attribute("data-game")
    bob = await table.page(mini_app_url(table.port, 8, name="Bob"))
    await bob.evaluate("(game) => send(`tp:g:${game}:0:19`)", game)
    await settled(bob)
    # the table's way to start a game is its 🆕 button, not a command
    assert await bob.locator("#toast").inner_text() == "This is not your game; tap 🆕 to start your own"
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
        assert box is not None and box["width"] >= 32  # a finger's tap on a 360-px phone
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
    card = game.game.card_at(slot)
    await page.wait_for_selector(f"#waste[data-card='{card.rank.label}{card.suit.letter}']")  # once it has flown
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


# --- the table on a phone: nothing moves under the thumb -----------------------------------------------------------

#: A phone held upright and turned sideways, at double density.
UPRIGHT = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "has_touch": True}
SIDEWAYS = {"viewport": {"width": 740, "height": 360}, "device_scale_factor": 2, "has_touch": True}

#: Where the things the player aims at are: the felt, the stock, each control's place, each start button.
PLACES = """() => {
  const box = (node) => { const r = node.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  const places = { felt: box(document.getElementById("table")) };
  const stock = document.getElementById("stock");
  if (stock) places.stock = box(stock);
  document.querySelectorAll("#controls > *").forEach((node, i) => { places[`control ${i}`] = box(node); });
  document.querySelectorAll("#starts > *").forEach((node, i) => { places[`start ${i}`] = box(node); });
  places.ending = box(document.getElementById("ending"));
  return places;
}"""


async def shifts(page: object, seen: dict[str, list[float]], moved: dict[str, float]) -> None:
    """Note how far each place moved from where it was first seen."""
    for name, box in (await page.evaluate(PLACES)).items():  # type: ignore[attr-defined]
        first = seen.setdefault(name, box)
        moved[name] = max(moved.get(name, 0.0), *(abs(a - b) for a, b in zip(first, box, strict=True)))


def stock_marked_as_the_chats_draw(board: dict[str, object]) -> bool:
    slots = board["slots"]
    assert isinstance(slots, list)
    fits = any(slot.get("mark") == "fits" for slot in slots)
    hinted = any(slot.get("mark") == "hint" for slot in slots)
    stock = board["stock"]
    assert isinstance(stock, dict)
    return bool(stock["payload"]) and (stock["hinted"] or not (fits or hinted))


@pytest.mark.parametrize("device", [UPRIGHT, SIDEWAYS], ids=["360x740", "740x360"])
async def test_nothing_moves_under_the_thumb_through_a_whole_game(table: Table, device: dict[str, object]) -> None:
    """Hints, a refusal, an undo, the counters, the status lines and the end of the game: the felt, the stock and
    every control keep their place within 2 px; cards are at least 32 px wide; the stock says it draws, and is
    marked as the chat's Draw is when no card fits."""
    page = await table.page(mini_app_url(table.port, 7), device)
    await start_deal(page, "TP1-E-AAAAAAB")
    seen: dict[str, list[float]] = {}
    moved: dict[str, float] = {}
    await shifts(page, seen, moved)
    widths = [box["width"] for box in [await card.bounding_box() for card in
                                       await page.locator("#table .card[data-slot]").all()] if box]
    assert len(widths) == 28 and min(widths) >= 32
    stock = page.get_by_role("button", name="Draw", exact=False)
    assert await stock.get_attribute("id") == "stock"
    assert await page.locator("#stock .word").inner_text() == "Draw"
    await page.get_by_role("button", name="Hint").click()
    await settled(page)
    await shifts(page, seen, moved)
    refused = page.locator("#table .card[data-payload]:not([data-mark])").first
    await refused.click()
    await settled(page)
    assert "Must be one rank higher or lower" in await page.locator("#status").inner_text()
    await shifts(page, seen, moved)
    line = solve(Game.from_code("TP1-E-AAAAAAB")).line or ()
    await play_line(page, line[:1])
    await page.get_by_role("button", name="Undo").click()
    await settled(page)
    await shifts(page, seen, moved)
    marked = 0
    for action in line:
        board = await page.evaluate("state.board")
        expected = stock_marked_as_the_chats_draw(board)
        assert (await page.locator("#stock").get_attribute("data-mark") == "draw") == expected
        marked += expected
        await tap(page, action)
        await shifts(page, seen, moved)
    assert "You won!" in await page.locator("#status").inner_text()
    assert await page.locator("#ending button").count() == 3  # Share, Replay, Review
    await shifts(page, seen, moved)
    assert marked, "the solver's line never drew when no card fitted"
    assert {name: shift for name, shift in moved.items() if shift > 2} == {}
    # and everything is on the screen, nothing scrolls
    assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    for name, (x, y, w, h) in (await page.evaluate(PLACES)).items():
        assert x >= 0 and y >= 0 and x + w <= device["viewport"]["width"] + 0.5, name  # type: ignore[index]
        assert y + h <= device["viewport"]["height"] + 0.5, name  # type: ignore[index]


# --- motion: a card game's, never in the way -----------------------------------------------------------------------

#: Telegram's Android app hands a Mini App this proxy for its events (telegram-web-app.js posts through it).
TELEGRAM_PROXY = """window.TelegramWebviewProxy = { postEvent(type, data) {
  (window.telegramEvents = window.telegramEvents || []).push([type, JSON.parse(data)]); } };"""


async def test_cards_fly_and_land_peaks_and_the_win_get_their_moment_and_haptics(table: Table) -> None:
    page = await table.browser.new_page(**UPRIGHT)
    await page.add_init_script(TELEGRAM_PROXY)
    await page.goto(mini_app_url(table.port, 7))
    await page.wait_for_selector("body[data-ready]")
    await start_deal(page, "TP1-E-AAAAAAB")
    refused = page.locator("#table .card[data-payload]:not([data-mark])").first
    await refused.click()
    await settled(page)
    line = solve(Game.from_code("TP1-E-AAAAAAB")).line or ()
    bursts: set[str | None] = set()
    for action in line:
        fits = isinstance(action, Tap) and await page.locator(
            f"#table .card[data-slot='{action.slot}']").get_attribute("data-mark") == "fits"
        if fits:
            node = await page.locator(f"#table .card[data-slot='{action.slot}']").element_handle()
            await page.locator(f"#table .card[data-slot='{action.slot}']").click()
            assert node is not None  # flying at once, and never in the way of the next tap
            assert await node.evaluate("(n) => n.classList.contains('flying') && getComputedStyle(n).pointerEvents")\
                == "none"
            await settled(page)
        else:
            await tap(page, action)
        if (cleared := await page.evaluate("state.board.cleared")) is not None:
            bursts.add(await page.locator(f"#table .burst[data-peak='{cleared}']").get_attribute("data-peak"))
    assert bursts == {"0", "1", "2"}  # each peak cleared rises as +100
    assert await page.evaluate("document.getElementById('banner').getAnimations().length") == 1  # the win's moment
    assert await page.locator("#table .card.played").first.evaluate("(n) => n.getAnimations().length") == 1
    await until(page, "tableStats.flights.every((f) => f.completed || f.returned)")
    flights = await page.evaluate("tableStats.flights")
    assert flights and all(flight["completed"] for flight in flights)  # every flight landed, none cut short
    assert sum(1 for flight in flights if flight.get("drawn")) == sum(isinstance(a, Draw) for a in line)
    events = await page.evaluate("window.telegramEvents")
    haptics = [data for kind, data in events if kind == "web_app_trigger_haptic_feedback"]
    assert haptics[0] == {"type": "notification", "notification_type": "error"}  # the refused card
    assert haptics.count({"type": "impact", "impact_style": "light"}) == len(line) - 1  # each play
    assert haptics.count({"type": "notification", "notification_type": "success"}) == 1
    assert haptics[-1] == {"type": "notification", "notification_type": "success"}  # the win


async def test_no_motion_when_the_player_asks_for_less(table: Table) -> None:
    page = await table.browser.new_page(**UPRIGHT, reduced_motion="reduce")
    await page.goto(mini_app_url(table.port, 7))
    await page.wait_for_selector("body[data-ready]")
    await start_deal(page, "TP1-E-AAAAAAB")
    line = solve(Game.from_code("TP1-E-AAAAAAB")).line or ()
    for action in line:
        await tap(page, action)
        assert await page.evaluate("document.getAnimations().length") == 0
    assert "You won!" in await page.locator("#status").inner_text()
    assert await page.evaluate("tableStats.flights.every((f) => f.completed)")


# --- every word in the player's language ---------------------------------------------------------------------------


async def test_network_and_server_failures_in_the_players_language(table: Table) -> None:
    page = await table.page(mini_app_url(table.port, 7, language="ru"), UPRIGHT)
    await start_deal(page, "TP1-E-AAAAAAB")
    fits = page.locator("#table .card[data-mark='fits']").first
    slot = await fits.get_attribute("data-slot")
    await page.route("**/api/act", lambda route: route.abort("internetdisconnected"))
    await fits.click()
    await settled(page)
    assert await page.locator("#toast").inner_text() == "Нет соединения: проверьте сеть и нажмите ещё раз"
    # the card that flew comes back: nothing was played
    await until(page, "tableStats.flights.length === 1 && tableStats.flights[0].returned")
    assert await page.locator(f"#table .card[data-slot='{slot}']").is_visible()
    await page.unroute("**/api/act")
    await page.route("**/api/act", lambda route: route.fulfill(status=502, body="Bad Gateway"))
    await page.locator("#stock").click()
    await settled(page)
    assert await page.locator("#toast").inner_text() == "Сервер не смог ответить: попробуйте ещё раз чуть позже"


async def test_an_expired_link_in_a_browser_says_so_and_the_favicon_is_there(table: Table) -> None:
    statuses: list[int] = []
    page = await table.browser.new_page(**UPRIGHT, locale="de-DE")
    page.on("response", lambda response: statuses.append(response.status))
    await page.goto(f"http://127.0.0.1:{table.port}/#token=expired")
    await page.wait_for_selector("body[data-ready]")
    assert await page.locator("#header").inner_text() == (
        "Dieser Link ist abgelaufen oder wurde schon benutzt: Öffne das Spielfeld erneut aus deinem Spiel")
    assert 401 in statuses and 404 not in statuses
    icon = await page.request.get(f"http://127.0.0.1:{table.port}/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert await page.locator("link[rel=icon]").get_attribute("href") == "/static/favicon.svg"


@pytest.mark.parametrize("language", ["ja", "de", "uk"])
async def test_buttons_are_sized_for_their_words(table: Table, language: str) -> None:
    """A finished game's buttons share their row evenly and show their whole word (Japanese 共有 is a word, not an
    icon); the start buttons too."""
    page = await table.page(mini_app_url(table.port, 7, language=language), UPRIGHT)
    await start_deal(page, "TP1-E-AAAAAAB")
    await play_line(page, solve(Game.from_code("TP1-E-AAAAAAB")).line or ())
    buttons = await page.locator("#ending button, #starts button").all()
    assert len(buttons) == 6
    for button in buttons:
        fits = await button.evaluate("(b) => !b.classList.contains('icon') && b.scrollWidth <= b.clientWidth"
                                     " && parseFloat(getComputedStyle(b).fontSize) >= 11")
        assert fits, await button.inner_text()
    widths = {round((await button.bounding_box() or {"width": 0})["width"]) for button in buttons[:3]}
    assert len(widths) == 1


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
    await page.locator("#ending").get_by_role("button", name="Share").click()
    await settled(page)
    assert await page.locator("#message").is_visible()
    await page.locator("#message").get_by_role("button", name="Share").click()
    events = await page.evaluate("window.telegramEvents")
    picked = [json.loads(data)["query"] for kind, data in events if kind == "web_app_switch_inline_query"]
    assert picked == [f"#{current.game_id}"]  # (the page posts other events too: ready, expand...)
    assert await page.locator("#message").is_hidden()


async def test_share_at_the_table_posts_a_discord_players_challenge_in_the_channel(table: Table, service: App) -> None:
    """A Discord player has no chat picker at the table: Share shows the result, says it was posted in the game's
    channel, and the post with its challenge waits in the outbox for the process that runs Discord."""
    from bot.adapters.web.auth import LINK_LIFETIME, Signer, WebUser
    from bot.app.effects import BoardAt, BoardRef
    from bot.store.outbox import SHARE
    from tests.test_service import BLOCK_CODE, play

    carol = PlayerKey("discord", "42")
    started = await service.starts.new_game(carol, "Carol", code=BLOCK_CODE, chat_id="900")
    await service.flow.record([BoardAt(started.game_id, BoardRef("900", "901"))])  # its board in the channel
    await play(service, carol, started.game_id, started.version, [Draw()] * 23)  # blocked
    token = Signer(b"browser tests " * 3).sign(WebUser(carol, "Carol", "en"), "link", LINK_LIFETIME)
    page = await table.page(f"http://127.0.0.1:{table.port}/#token={token}")
    await page.locator("#ending").get_by_role("button", name="Share").click()
    await settled(page)
    assert await page.locator("#message").is_visible()
    assert await page.locator("#toast").inner_text() == "Posted in the channel: anyone there can play this deal"
    assert await page.locator("#message").get_by_role("button", name="Share").count() == 0  # no picker here
    (row,) = [row for row in await service.outbox.undelivered() if row.kind == SHARE]
    assert (row.game_id, row.platform, row.chat_id) == (started.game_id, "discord", "900")


#: The status box of the table as the page draws a status: its text fitted (the page's own ``fitText``), then how
#: much it holds and needs, and the font size it came to.
STATUS_FITTED = """(text) => {
  const status = document.getElementById("status");
  status.textContent = text;
  fitText();
  return { needed: [status.scrollWidth, status.scrollHeight], room: [status.clientWidth, status.clientHeight],
           size: parseFloat(status.style.fontSize) };
}"""


@pytest.mark.parametrize("device", [UPRIGHT, SIDEWAYS], ids=["360x740", "740x360"])
async def test_the_day_is_over_line_fits_the_tables_status_in_every_language(
        table: Table, device: dict[str, object]) -> None:
    """Issue 49: "The day is over: this attempt ended as it stood" under a daily attempt left open at midnight, the
    longest status line (Polish, 81 columns), fits the table's status box on a 360-px phone held either way: none of
    it cut off, in a font no smaller than 12 px (the page shrinks a status from 15 px to fit, down to 10)."""
    from bot.i18n import SUPPORTED_LOCALES, translator

    page = await table.page(mini_app_url(table.port, 7), device)
    await start_deal(page, "TP1-E-AAAAAAB")
    for locale in SUPPORTED_LOCALES:
        line = translator(locale).gettext("The day is over: this attempt ended as it stood")
        fitted = await page.evaluate(STATUS_FITTED, line)
        (width, height), (room_width, room_height) = fitted["needed"], fitted["room"]
        assert width <= room_width + 1 and height <= room_height + 1, (locale, fitted)
        assert fitted["size"] >= 12, (locale, fitted)

"""A live round on Telegram from start to results (issue 51): the real Application on the fake Bot API with its
flood control on, the bot at its production pace. ``/round`` in a group posts the round message; each player
opens its link (``/start round-<id>`` in their private chat) and plays the deal there, ranked; the round message
shows each player's progress at the group's pace, never a 429; when the time is up the results land, with the
deal's code, which no message or request carried while the round ran; a join after the end gets the results and
``/stats`` counts the round."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters

from __future__ import annotations

import datetime as dt
import json
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import update

from bot.adapters.telegram.pacing import TELEGRAM_PACE
from bot.app.assembly import App
from bot.app.codec import encode
from bot.app.commands import Move
from bot.store.schema import rounds
from core.game import Draw, Game, Tap
from tests.core_helpers import blocking_line
from tests.fakes.telegram_bot_api import FakeBotAPI, FakeChat, FakeUser, FloodLimits, StoredMessage
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    HANDLED,
    command,
    data_for,
    db_url,
    game_of,
    no_errors_logged,
    running_bot,
    tap,
    text_boards,
)

pytestmark = pytest.mark.timeout(120)

#: How long the round message may take to show a move: the group's next turn (3.5 s), with room for a loaded machine.
SHOWN_WITHIN = 10.0


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI(flood_control=FloodLimits()) as server:
        yield server


@pytest.fixture
async def service(api: FakeBotAPI, db_url: str, no_errors_logged: None) -> AsyncIterator[App]:
    async with running_bot(api, db_url, pace=TELEGRAM_PACE) as running:
        yield running


def round_id_of(message: StoredMessage, username: str) -> int:
    """The round a round message's Join link deals."""
    links = [url for _, url in message.links if url.startswith(f"https://t.me/{username}?start=round-")]
    assert len(links) == 1, message.links
    return int(links[0].rpartition("-")[2])


def every_request_text(api: FakeBotAPI) -> str:
    """Everything the bot sent to Telegram so far: every request's parameters (texts, captions, buttons, toasts)."""
    return "\n".join(json.dumps(request.params, ensure_ascii=False, default=str) for request in api.calls())


async def join(api: FakeBotAPI, user: FakeUser, round_id: int) -> tuple[FakeChat, StoredMessage]:
    chat = api.private_chat(user)
    board = await command(api, user, chat, f"/start round-{round_id}")
    return chat, board


async def test_a_round_on_telegram_from_start_to_results(api: FakeBotAPI, service: App) -> None:
    alice, bob, carol = api.user("Alice"), api.user("Bob"), api.user("Carol")
    group = api.group(members=[alice, bob, carol])
    posted = await command(api, alice, group, "/round 5")
    round_id = round_id_of(posted, api.bot_username)
    code = str((await service.flow.rounds.now(round_id)).code)
    assert "TriPeaks round · Easy · 5 min" in posted.text and "No one has joined yet" in posted.text
    assert code not in posted.text

    alice_chat, alice_board = await join(api, alice, round_id)
    bob_chat, bob_board = await join(api, bob, round_id)
    assert "live round: no undo" in alice_board.text
    assert "↶" not in [label for label, _ in alice_board.buttons]  # ranked: no Undo

    def round_text() -> str:
        return api.message(group, posted.message_id).text

    await api.wait_until(lambda: "Alice" in round_text() and "Bob" in round_text(), timeout=SHOWN_WITHIN,
                         what="the round message to list who joined")

    # Alice plays one move; Bob draws twice: the standings follow at the group's pace
    game = Game.from_code(code)
    fitting = [slot for slot in game.playable_slots() if game.fits(slot)]
    _, alice_board = await tap(api, alice, alice_chat, alice_board,
                               data_for(alice_board, Tap(fitting[0]) if fitting else Draw()))
    for _ in range(2):
        _, bob_board = await tap(api, bob, bob_chat, bob_board, data_for(bob_board, Draw()))
    await api.wait_until(lambda: "499" in round_text() and "498" in round_text(), timeout=SHOWN_WITHIN,
                         what="the round message to show both players' scores")
    assert round_text().index("Alice") < round_text().index("Bob")  # 499 before 498

    # a forged tap on Alice's round game, from Bob's own board, changes neither her game nor the round message
    edits_before = api.message(group, posted.message_id).edit_count
    alice_game = game_of(alice_board)
    forged = encode(Move(alice_game[0], alice_game[1], Draw()))
    answer, _ = await tap(api, bob, bob_chat, bob_board, forged, check_button=False)
    assert "not your game" in (answer.text or "")
    assert game_of(api.message(alice_chat, alice_board.message_id)) == alice_game
    assert api.message(group, posted.message_id).edit_count == edits_before

    # while the round runs, its code is in no message, button or toast the bot sent
    assert code not in every_request_text(api)

    # time is up: the loop ends the round once and its results land
    async with service.db.transaction() as tx:
        await tx.execute(update(rounds).values(ends_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)))
    await api.wait_until(lambda: "The round is over" in round_text(), timeout=SHOWN_WITHIN,
                         what="the round's results")
    results = round_text()
    assert "Winner: Alice, score 499" in results and code in results
    assert api.message(group, posted.message_id).links == []  # no Join any more
    assert api.flood_refusals() == []  # the group's pace kept: no 429 met

    # a join after the end: the results, no game
    carol_chat = api.private_chat(carol)
    late = await command(api, carol, carol_chat, f"/start round-{round_id}")
    assert "The round is over" in late.text and code in late.text and late.buttons == []

    stats = await command(api, alice, alice_chat, "/stats")
    assert "Rounds played: 1 · won: 1" in stats.text


async def test_a_finish_shows_in_the_round_message_within_ten_seconds(api: FakeBotAPI, service: App) -> None:
    """A player whose game ends (blocked here: a ranked game's end) is marked finished in the round message within
    10 s of their last tap, at the group's pace under flood control; the round runs on for the others."""
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group(members=[alice, bob])
    posted = await command(api, alice, group, "/round 5 TP1-E-AAAAAAB")
    round_id = round_id_of(posted, api.bot_username)
    alice_chat, board = await join(api, alice, round_id)
    await join(api, bob, round_id)
    for action in blocking_line("TP1-E-AAAAAAB"):
        _, board = await tap(api, alice, alice_chat, board, data_for(board, action))

    def shown() -> bool:
        line = next((row for row in api.message(group, posted.message_id).text.split("\n") if "Alice" in row), "")
        return line.endswith("■")

    await api.wait_until(shown, timeout=SHOWN_WITHIN, what="Alice's finish in the round message")  # within 10 s
    assert "The round is over" not in api.message(group, posted.message_id).text  # Bob still plays
    assert api.flood_refusals(group) == []

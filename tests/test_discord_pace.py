"""Discord at a player's pace (issue 41), on SimCord with the real discord.py client: a tap made before the
player's client showed the previous tap's board still counts, and the ranked daily attempt is its player's alone.

Discord sends a click with the ``custom_id`` of the button as the player's client drew it and the message as it is
now, so a quick second tap carries an older version than the message shows; discord.py's own component dispatch
drops such a click ("This interaction failed"). Each test here sends that click (:func:`click_seen_before`) and
checks what the player sees.
"""

from __future__ import annotations

from typing import Any

import pytest
import simcord

from bot.app.assembly import App
from bot.app.commands import Move
from bot.app.moves import DOUBLE_TAP_WITHIN
from bot.app.outcomes import OutOfDate
from bot.render.replies import error_text
from bot.render.tableau import card_label
from core.game import DRAW, Game, Status, Tap
from tests.app_helpers import TapTimes
from tests.core_helpers import winning_line
from tests.discord_harness import (
    CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    UPDATE_MESSAGE,
    Callback,
    button,
    buttons_of,
    click,
    click_seen_before,
    shows,
    slash,
    text_of,
)
from tests.test_discord_lifecycle import CODE, DAILY, fitting_pair, game_service, pinned_day, table

__all__ = ["game_service", "pinned_day"]  # the fixtures, shared with tests/test_discord_lifecycle.py

pytestmark = pytest.mark.timeout(60)


async def test_a_card_tapped_on_the_board_before_the_last_tap_applies(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    first, second = fitting_pair(game)
    async with table(game_service, monkeypatch) as t:
        board, sent = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        as_drawn = {slot: button(board, command=str(slot))["custom_id"] for slot in (first, second)}
        assert all(":0:" in custom_id for custom_id in as_drawn.values())
        after_first, sent = await click(t.env, t.alice, board, button(board, command=str(first)))
        assert sent.type == UPDATE_MESSAGE
        # the second card as the phone still showed it, on the board at version 0; the message is at version 1
        assert as_drawn[second] not in {b.get("custom_id") for b in buttons_of(after_first)}
        shown, sent = await click_seen_before(t.env, t.alice, after_first, as_drawn[second])
        assert sent.type == UPDATE_MESSAGE and not sent.ephemeral
        game.apply(Tap(first))
        game.apply(Tap(second))
        current = await t.current()
        assert current.game.actions() == game.actions()
        assert shows(shown, game) and "Moves: 2" in text_of(shown)


async def test_a_card_tapped_two_boards_late_is_answered_on_the_board(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A card from the board two versions old that no longer fits: the board, edited, says why it was not
    played."""
    game = Game.from_code(CODE)
    first, second = fitting_pair(game)
    game.apply(Tap(first))
    game.apply(Tap(second))
    late = next(s for s in game.playable_slots() if not game.fits(s))
    async with table(game_service, monkeypatch) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        late_as_drawn = button(board, command=str(late))["custom_id"]
        board, _ = await click(t.env, t.alice, board, button(board, command=str(first)))
        board, _ = await click(t.env, t.alice, board, button(board, command=str(second)))
        shown, sent = await click_seen_before(t.env, t.alice, board, late_as_drawn)
        assert sent.type == UPDATE_MESSAGE
        assert f"{card_label(game.card_at(late))} was not played. Your previous move changed the waste card to " \
               f"{card_label(game.waste)}" in text_of(shown).replace("\\", "")
        assert (await t.current()).game.moves == 2


async def test_a_double_tap_of_draw_draws_once_and_a_later_tap_draws_again(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Draw double-tapped (the second click aimed at the board before the first, within DOUBLE_TAP_WITHIN) draws
    once: the board shows the game as it stands, and no note is pushed under it (the board says it all). Draw
    clicked again on that old board a second later is a draw of its own: the player meant it."""
    times = TapTimes(game_service)
    async with table(game_service, monkeypatch) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        draw = button(board, label="Draw")["custom_id"]
        board, _ = await click(t.env, t.alice, board, button(board, label="Draw"))
        times.wait(DOUBLE_TAP_WITHIN / 2)
        mark = len(t.env.http_requests)
        shown, sent = await click_seen_before(t.env, t.alice, board, draw)
        assert sent.type == UPDATE_MESSAGE
        drawn = Game.from_code(CODE)
        drawn.apply(DRAW)
        assert shows(shown, drawn) and (await t.current()).game.moves == 1
        notes = [entry for entry in t.env.http_requests[mark:]
                 if entry.method == "POST" and entry.path.startswith("/webhooks/")]
        assert notes == []  # no "out of date" line under the board
        times.wait(1.0)
        shown, sent = await click_seen_before(t.env, t.alice, shown, draw)
        assert sent.type == UPDATE_MESSAGE
        drawn.apply(DRAW)
        assert shows(shown, drawn) and (await t.current()).game.moves == 2


async def test_a_tap_on_a_board_of_a_game_ended_since_says_why_privately(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A board behind a game that has ended since (won at the table, say): the tap does nothing, the board shows
    the game as it stands, and an ephemeral line says why."""
    async with table(game_service, monkeypatch) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        draw = button(board, label="Draw")["custom_id"]
        current = await t.current()
        for action in winning_line(CODE):  # the game won elsewhere
            await game_service.moves.move(current.owner, "alice", Move(current.game_id, current.version, action))
            current = await game_service.games.game(current.game_id)
        mark = len(t.env.http_requests)
        shown, sent = await click_seen_before(t.env, t.alice, board, draw)
        assert sent.type == UPDATE_MESSAGE and current.game.status is Status.WON
        notes = [entry.json for entry in t.env.http_requests[mark:]
                 if entry.method == "POST" and entry.path.startswith("/webhooks/")]
        assert [(note or {}).get("content") for note in notes] == [error_text(OutOfDate(current), "en")]
        assert all(((note or {}).get("flags") or 0) & 64 for note in notes)


async def test_a_tap_about_another_game_leaves_the_tapped_board_alone(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client can send any ``custom_id`` against any message: Bob's own Draw sent against Alice's board draws
    in Bob's game, on Bob's board; Alice's board is not edited and is not recorded as Bob's."""
    async with table(game_service, monkeypatch) as t:
        alices, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        bobs, _ = await slash(t.env, t.bob, t.channel, "tripeaks new", code=CODE)
        before = text_of(alices)
        mark = len(t.env.http_requests)
        _, sent = await click_seen_before(t.env, t.bob, alices, button(bobs, label="Draw")["custom_id"])
        assert sent.type == DEFERRED_UPDATE  # acknowledged; nothing shown in the tapped message's place
        assert not any(entry.method == "PATCH" and str(alices.id) in entry.path
                       for entry in t.env.http_requests[mark:])
        bob = await t.current(t.bob)
        assert bob.game.moves == 1 and bob.board is not None and bob.board.message_id == str(bobs.id)
        assert "Moves: 1" in text_of(message_in(t.channel, bobs.id))
        assert text_of(message_in(t.channel, alices.id)) == before and (await t.current()).game.moves == 0


def message_in(channel: Any, message_id: int) -> Any:
    return next(m for m in channel.history() if m.id == message_id)


# --- the ranked daily attempt is private ----------------------------------------------------------------------


async def test_the_daily_attempt_in_a_server_is_for_its_player_alone(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/tripeaks daily`` in a server: the ranked attempt's board is ephemeral, so a member who has not played
    cannot watch its cards turn; every tap edits that ephemeral board; the leaderboard still lists the attempt, and
    the practice game after it is public."""
    async with table(game_service, monkeypatch) as t:
        public = len(t.public_messages())
        board, sent = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True) and "Daily deal" in text_of(board)
        assert len(t.public_messages()) == public  # nothing in the channel for bob to read
        with pytest.raises(simcord.SetupError, match="not visible"):
            await click(t.env, t.bob, board, button(board, label="Draw"))
        game = Game.from_code(DAILY)
        for action in winning_line(DAILY):
            board, sent = await click(t.env, t.alice, board, button(board, command=str(action)))
            assert sent.type == UPDATE_MESSAGE  # the ephemeral board itself, edited by the tap's response
            game.apply(action)
        assert game.status is Status.WON and "You won!" in text_of(board)
        assert len(t.public_messages()) == public

        ranking, sent = await slash(t.env, t.bob, t.channel, "tripeaks leaderboard")
        assert not sent.ephemeral and "alice" in text_of(ranking) and str(game.score) in text_of(ranking)
        practice, sent = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        assert "practice, unranked" in text_of(practice)


async def test_the_daily_attempt_in_a_dm_is_an_ordinary_message(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        board, sent = await slash(t.env, t.alice.user, None, "tripeaks daily")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True) and "Daily deal" in text_of(board)


async def test_a_card_played_by_name_in_the_daily_attempt_stays_private(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/tripeaks play`` during the attempt in a server: the acknowledgement and the board it redraws are alice's
    alone (the bot's token cannot edit an ephemeral board: a new ephemeral one is sent when it must)."""
    async with table(game_service, monkeypatch) as t:
        public = len(t.public_messages())
        await slash(t.env, t.alice, t.channel, "tripeaks daily")
        game = Game.from_code(DAILY)
        card = next(game.card_at(s) for s in game.playable_slots() if game.fits(s))
        mark = len(t.env.http_requests)
        _, sent = await slash(t.env, t.alice, t.channel, "tripeaks play", card=str(card))
        assert sent.ephemeral
        assert all(((entry.json or {}).get("flags") or 0) & 64 for entry in t.env.http_requests[mark:]
                   if entry.method == "POST" and entry.path.startswith("/webhooks/"))
        assert (await t.current()).game.moves == 1 and len(t.public_messages()) == public


# --- a busy channel ----------------------------------------------------------------------------------------------


async def test_three_players_in_one_channel_each_see_every_move_at_once(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49 on Discord: three players tapping in turn in one channel. Each tap is answered by the interaction's
    own response (type 7, the tapped message updated), which Discord does not count against the channel's edits
    (about 5 every 5 s for the bot's token): no board is edited with the token, so none falls behind its game, and
    each shows every move as it is made."""
    async with table(game_service, monkeypatch) as t:
        carol = t.guild.add_member(t.env.create_user("carol"))
        players = [t.alice, t.bob, carol]
        boards = [(await slash(t.env, player, t.channel, "tripeaks new", code=CODE))[0] for player in players]
        games = [Game.from_code(CODE) for _ in players]
        line = list(winning_line(CODE))[:14]
        mark = len(t.env.http_requests)
        for action in line:
            for n, player in enumerate(players):
                label = {"d": "Draw"}.get(str(action))
                target = button(boards[n], label=label) if label else button(boards[n], command=str(action))
                boards[n], sent = await click(t.env, player, boards[n], target)
                games[n].apply(action)
                assert sent.type == UPDATE_MESSAGE and shows(boards[n], games[n])
        assert not any(entry.method == "PATCH" and "/channels/" in entry.path
                       for entry in t.env.http_requests[mark:])  # no token edit: the channel's limit never met
        for n, player in enumerate(players):
            assert (await t.current(player)).game.actions() == games[n].actions()
            assert shows(t.message(boards[n].id), games[n])

"""A daily nobody can game (issue 24) on Discord: the real discord.py client on SimCord, the real service on SQLite
(the database side of each attack is played on PostgreSQL too in tests/test_daily_fair.py, over Telegram).

Discord only delivers clicks on the components a message has (SimCord refuses any other, as Discord does), so a
forged payload cannot reach the bot here: the forged Undo, Review, Share and Replay are played over Telegram, whose
callback data a modified client can set freely; here the buttons a player gets are checked."""

from __future__ import annotations

import datetime as dt
import json

import discord
import pytest
import simcord

from bot.adapters.discord.views import layout
from bot.app import daily
from bot.app.assembly import App
from bot.app.daily_posts import DailyPoster
from bot.app.model import BoardStyle, PlayerKey
from bot.render.game import HINT_ICON, NEW_GAME_ICON, UNDO_ICON
from bot.render.replies import render_daily
from core.deal import GameCode, Rules
from tests.app_helpers import set_settings
from tests.core_helpers import winning_line
from tests.discord_harness import (
    CHANNEL_MESSAGE,
    UPDATE_MESSAGE,
    Callback,
    button,
    click,
    click_seen_before,
    labels_of,
    slash,
    text_of,
)
from tests.test_daily_discord import executors
from tests.test_daily_fair import CODE, DAY, blocking_line
from tests.test_discord_e2e import game_service, table

__all__ = ["game_service"]  # the fixture, shared with tests/test_discord_e2e.py

pytestmark = pytest.mark.timeout(180)


def said(reply: object) -> str:
    """What a reply says: a plain message's content, or a Components V2 message's texts."""
    return getattr(reply, "content", None) or text_of(reply)


@pytest.fixture(autouse=True)
def on_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today is DAY, whose deal is CODE (the day before's another)."""
    monkeypatch.setattr(daily, "daily_code", lambda day, secret: GameCode.parse(CODE if day == DAY else
                                                                                "TP1-E-AAAAAAD"))
    monkeypatch.setattr(daily, "today", lambda now=None: DAY)


async def test_the_ranked_attempt_has_no_undo_and_a_blocked_attempt_is_over_at_once(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    line = blocking_line(CODE)
    async with table(game_service, monkeypatch) as t:
        board, sent = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)  # the ranked attempt: alice's alone
        assert UNDO_ICON not in labels_of(board) and {"Draw", HINT_ICON, NEW_GAME_ICON} <= set(labels_of(board))
        for action in line:
            board, sent = await click(t.env, t.alice, board, button(board, command=str(action)))
            assert sent.type == UPDATE_MESSAGE
            if "No more possible moves" not in text_of(board):  # while it is played: no Undo, Review, Share
                assert not {UNDO_ICON, "Undo", "Review", "Share", "Replay"} & set(labels_of(board))
        assert "Your daily attempt is over: not won." in text_of(board)
        assert labels_of(board) == ["Share", "Replay", "Review", "New game"]
        assert await game_service.games.current_game(PlayerKey("discord", str(t.alice.id))) is None


async def test_the_days_deal_is_locked_under_either_rule_letter(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    other_letter = str(GameCode(Rules.CLASSIC, GameCode.parse(CODE).number))
    async with table(game_service, monkeypatch) as t:
        for code in (CODE, other_letter):
            reply, sent = await slash(t.env, t.alice, t.channel, "tripeaks new", code=code)
            assert sent.ephemeral and "That code is the daily deal of Dec 2, 2026" in said(reply), code
        assert await game_service.games.current_game(PlayerKey("discord", str(t.alice.id))) is None


async def test_another_players_review_and_share_post_nothing_and_the_review_is_private(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        for action in winning_line(CODE):
            board, _ = await click(t.env, t.alice, board, button(board, command=str(action)))
        # the attempt's board is alice's alone: bob cannot even see it; a tampered client sending its buttons'
        # custom_ids against a message bob sees (the daily post) gets the usual refusal
        with pytest.raises(simcord.SetupError, match="not visible"):
            await click(t.env, t.bob, board, button(board, label="Review"))
        channel = t.env.bot.get_channel(t.channel.id)
        assert isinstance(channel, discord.TextChannel)
        post = await channel.send(view=layout(render_daily(DAY, "en")))
        public = len(t.public_messages())
        for label in ("Review", "Share"):
            reply, sent = await click_seen_before(t.env, t.bob, post, button(board, label=label)["custom_id"])
            assert sent.ephemeral and "This is not your game" in said(reply), label
        assert len(t.public_messages()) == public
        review, sent = await click(t.env, t.alice, board, button(board, label="Review"))
        assert sent.ephemeral and "Review" in said(review)
        assert len(t.public_messages()) == public


async def test_a_finished_dailys_share_names_its_day_and_not_its_code(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared result names the daily by its date: no code under either rule letter and no command naming one;
    its Play button deals the shared game's cards."""
    async with table(game_service, monkeypatch) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        for action in winning_line(CODE):
            board, _ = await click(t.env, t.alice, board, button(board, command=str(action)))
        shared, sent = await click(t.env, t.alice, board, button(board, label="Share"))
        assert not sent.ephemeral and "TriPeaks daily 2026-12-02: score " in said(shared)
        assert "TP1-" not in said(shared) and "code:" not in said(shared)
        assert labels_of(shared) == ["Play this deal"]


async def test_only_todays_daily_can_be_started(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        channel = t.env.bot.get_channel(t.channel.id)
        assert isinstance(channel, discord.TextChannel)
        for back in (1, 30):
            day = DAY - dt.timedelta(days=back)
            post = await channel.send(view=layout(render_daily(day, "en")))
            reply, sent = await click(t.env, t.bob, post, button(post, label="Play"))
            assert sent.ephemeral
            assert f"The daily deal of {day:%b} {day.day}, {day.year} is over" in said(reply)
        assert await game_service.games.current_game(PlayerKey("discord", str(t.bob.id))) is None
        post = await channel.send(view=layout(render_daily(DAY, "en")))
        _, sent = await click(t.env, t.bob, post, button(post, label="Play"))
        current = await game_service.games.current_game(PlayerKey("discord", str(t.bob.id)))
        assert current is not None and current.daily == DAY


async def test_the_attempt_counts_on_the_server_wherever_played_then_daily_is_practice_and_hints_count_once(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        await slash(t.env, t.alice.user, None, "tripeaks daily")  # opened in a direct message first
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks daily")  # then played in the server
        board, _ = await click(t.env, t.alice, board, button(board, command="h"))
        board, _ = await click(t.env, t.alice, board, button(board, command="h"))  # the same advice again
        for action in winning_line(CODE):
            board, _ = await click(t.env, t.alice, board, button(board, command=str(action)))
        leaderboard, _ = await slash(t.env, t.bob, t.channel, "tripeaks leaderboard")
        assert "1\\. alice 💡1\n> \u00a0\u00a0score 752 · " in said(leaderboard)
        replay, _ = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        assert "practice, unranked" in text_of(replay) and UNDO_ICON in labels_of(replay)


def everything_sent(env: simcord.Env) -> str:
    """Everything the bot sent to Discord, as one string: each REST request's path, query and JSON body (messages,
    interaction responses and follow-ups with their texts, every component's custom_id and label, attachments'
    descriptions: the picture's alt text)."""
    return "\n".join(f"{entry.method} {entry.path} " + json.dumps([entry.params, entry.json], ensure_ascii=False,
                                                                  default=str)
                     for entry in env.http_requests)


async def test_the_days_code_reaches_no_player_while_the_day_runs(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a cheating player can read on Discord during the day (every message, ephemeral or not, every button's
    custom_id, the picture's description): the post, the ranked attempt on a picture board, the question before
    abandoning it, its review, share card and replay, practice games, a friend's challenge, the leaderboard and the
    statistics. The day's code is in none of it, under either rule letter. Once the day is over, it is shown."""
    async with table(game_service, monkeypatch) as t:
        alice_key = PlayerKey("discord", str(t.alice.id))
        await set_settings(game_service, alice_key, board=BoardStyle.PICTURE)
        await game_service.subscriptions.subscribe("discord", str(t.channel.id), community=str(t.channel.guild.id), locale="en")
        poster = DailyPoster(game_service.subscriptions, game_service.daily_codes.code, executors(t.env.bot), post_time=dt.time(9),
                             clock=lambda: dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC))
        assert await poster.run_once() == 1
        (post,) = [m for m in t.public_messages() if labels_of(m) == ["Play"]]
        assert "### Daily deal\nDecember 2, 2026\n" in text_of(post)

        # the ranked attempt on a picture board: the day and the rules; a hint, a few moves
        line = winning_line(CODE)
        board, _ = await click(t.env, t.alice, post, button(post, label="Play"))
        assert "\nDaily deal · Dec 2, 2026\nEasy · ranked attempt: no undo\n" in text_of(board)
        board, _ = await click(t.env, t.alice, board, button(board, command="h"))
        for action in line[:3]:
            board, _ = await click(t.env, t.alice, board, button(board, command=str(action)))
        # a new game would abandon it: the question names it by its day; No, then back to it
        question, _ = await slash(t.env, t.alice, t.channel, "tripeaks new")
        assert "(daily deal of Dec 2, 2026, score" in text_of(question)
        kept, _ = await click(t.env, t.alice, question, button(question, label="Keep playing"))
        old = board
        board, _ = await click(t.env, t.alice, kept, button(kept, label="Back to the game"))
        for action in line[3:]:
            board, _ = await click(t.env, t.alice, board, button(board, command=str(action)))
        assert "You won!" in text_of(board)

        # once over: review, share card, replay (practice)
        review, _ = await click(t.env, t.alice, board, button(board, label="Review"))
        assert "### Review · Daily deal\nDec 2, 2026\n" in text_of(review)
        card, _ = await click(t.env, t.alice, board, button(board, label="Share"))
        practice, _ = await click(t.env, t.alice, board, button(board, label="Replay"))
        assert "\nDaily deal · Dec 2, 2026\npractice, unranked · Easy\n" in text_of(practice)
        practice, _ = await click(t.env, t.alice, practice, button(practice, command="d"))
        # a new game asks first, naming the practice game by its day; Yes; then Replay under the review asks,
        # by the day, and Yes deals the practice game again
        question, _ = await slash(t.env, t.alice, t.channel, "tripeaks new")
        assert "(daily deal of Dec 2, 2026, score" in text_of(question)
        other, _ = await click(t.env, t.alice, question, button(question, label="Yes, start"))
        other, _ = await click(t.env, t.alice, other, button(other, command="d"))
        question, _ = await click(t.env, t.alice, review, button(review, label="Replay"))
        assert "Start the daily deal?" in text_of(question)
        practice, _ = await click(t.env, t.alice, question, button(question, label="Yes, start"))
        assert "practice, unranked" in text_of(practice)
        # a click on the attempt's board from before "Back to the game" points at the practice game, by its day
        note, _ = await click(t.env, t.alice, old, button(old, command="d"))
        assert "your current game, the daily deal of Dec 2, 2026, has its own board" in said(note)

        # Bob takes the challenge: refused until his own attempt is over, then a practice game of the day
        play = button(card, label="Play this deal")
        refused, _ = await click(t.env, t.bob, card, play)
        assert "This is the daily deal of Dec 2, 2026: finish your own attempt first" in said(refused)
        attempt, _ = await slash(t.env, t.bob, t.channel, "tripeaks daily")
        for action in blocking_line(CODE):
            attempt, _ = await click(t.env, t.bob, attempt, button(attempt, command=str(action)))
        answered, _ = await click(t.env, t.bob, card, play)
        assert "practice, unranked" in text_of(answered)
        await slash(t.env, t.bob, t.channel, "tripeaks leaderboard")
        await slash(t.env, t.alice, t.channel, "tripeaks stats")

        sent = everything_sent(t.env)
        for seen in ("Daily deal · Dec 2, 2026", "Review · Daily deal", "Daily leaderboard",
                     '"description": "Face-up cards: ', "tp:b:x:"):
            assert seen in sent, seen  # what was read covers the paths above
        number = GameCode.parse(CODE).number
        for code in (GameCode(Rules.EASY, number), GameCode(Rules.CLASSIC, number)):
            assert str(code).lower() not in sent.lower(), code

        # the next day the code may be shown: the review of yesterday's attempt names it
        monkeypatch.setattr(daily, "today", lambda now=None: DAY + dt.timedelta(days=1))
        again, _ = await click(t.env, t.bob, attempt, button(attempt, label="Review"))
        assert f"Review: {CODE}" in text_of(again)


async def test_an_attempt_still_open_at_midnight_takes_no_more_moves(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 43: past midnight (UTC) the day's code may be out, so a tap on the attempt still open plays nothing:
    the attempt ends as it stands, its board says the day is over (issue 49: not "abandoned") and a private line
    says so too (not "out of date")."""
    async with table(game_service, monkeypatch) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        board, _ = await click(t.env, t.alice, board, button(board, command="d"))
        player = PlayerKey("discord", str(t.alice.id))
        playing = await game_service.games.current_game(player)
        assert playing is not None and playing.game.moves == 1
        monkeypatch.setattr(daily, "today", lambda now=None: DAY + dt.timedelta(days=1))
        mark = len(t.env.http_requests)
        shown, sent = await click(t.env, t.alice, board, button(board, command="d"))
        assert sent.type == UPDATE_MESSAGE and "The day is over: this attempt ended as it stood" in text_of(shown)
        assert "abandoned" not in text_of(shown) and labels_of(shown) == []
        notes = [(entry.json or {}).get("content", "") for entry in t.env.http_requests[mark:]
                 if entry.method == "POST" and entry.path.startswith("/webhooks/")]
        assert notes == [f"The daily deal of {DAY:%b} {DAY.day}, {DAY.year} is over: only today's can be played"]
        ended = await game_service.games.game(playing.game_id)
        assert ended.abandoned and ended.game.moves == 1
        assert await game_service.games.current_game(player) is None

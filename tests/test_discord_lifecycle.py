"""A game's life on Discord, on SimCord (issues 15, 16 and 18): quick and double clicks, old boards, the question
before a game with moves is abandoned (every way to start one, another channel, Yes and No), finished boards
(Replay, Share, Review), the daily again, /tripeaks new winnable, and the bot's ten languages.

Each test checks what a player sees: the messages in the channel, the message an interaction answered with (a new
one, type 4, or the clicked one edited, type 7), whether it was ephemeral, and where the service says the live
board is.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import discord
import pytest
import simcord

from bot.adapters.discord.translator import DISCORD_LOCALES, valid_name
from bot.adapters.discord.views import layout
from bot.app import daily
from bot.app.assembly import App
from bot.app.commands import AskHint, Move, NewGame, Replay, Review, Share
from bot.app.model import BoardRef, GameSnapshot, PlayerKey
from bot.i18n import translator
from bot.render.commands import COMMAND_DESCRIPTIONS, command_names, rules_name
from bot.render.replies import render_daily
from bot.render.view import unbroken
from core.deal import GameCode, Rules
from core.game import DRAW, Game, Tap
from tests.app_helpers import TapTimes, act
from tests.core_helpers import winning_line
from tests.discord_harness import (
    CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    UPDATE_MESSAGE,
    Callback,
    Locales,
    SlowApp,
    button,
    callbacks_since,
    click,
    components_of,
    heading,
    labels_of,
    lines_since,
    make_bot,
    open_service,
    shows,
    slash,
    text_of,
)

pytestmark = pytest.mark.timeout(60)

CODE = "TP1-E-AAAAAAB"
OTHER = "TP1-E-AAAAAAC"
DAY = dt.date(2026, 11, 29)
DAILY = "TP1-E-AAAAAAD"
YES = "Yes, start"
NO = "Keep playing"


@pytest.fixture
async def game_service(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[App]:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db") as service:
        yield service


@pytest.fixture(autouse=True)
def pinned_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daily, "daily_code", lambda day, secret: GameCode.parse(DAILY))
    monkeypatch.setattr(daily, "today", lambda now=None: DAY)


@dataclass
class Table:
    env: simcord.Env
    guild: Any
    channel: Any
    alice: Any
    bob: Any
    locales: Locales
    service: App

    def public_messages(self) -> list[discord.Message]:
        messages: list[discord.Message] = self.channel.history()
        return messages

    def message(self, message_id: int, channel: Any = None) -> discord.Message:
        messages: list[discord.Message] = (channel or self.channel).history()
        return next(m for m in messages if m.id == message_id)

    async def new_game(self, code: str = CODE, channel: Any = None) -> simcord.ResponseMessage:
        result, sent = await slash(self.env, self.alice, channel or self.channel, "tripeaks new", code=code)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        return result

    async def current(self, user: Any = None) -> GameSnapshot:
        snapshot = await self.service.games.current_game(PlayerKey("discord", str((user or self.alice).id)))
        assert snapshot is not None
        return snapshot

    async def move(self, board: Any) -> simcord.ResponseMessage:
        """Play the first card that fits (else draw) on ``board``: a game with moves."""
        game = (await self.current()).game
        fitting = [s for s in game.playable_slots() if game.fits(s)]
        result, sent = await click(self.env, self.alice, board,
                                   button(board, command=str(fitting[0]) if fitting else "d"))
        assert sent.type == UPDATE_MESSAGE and "Moves: 1" in text_of(result)
        return result


#: Each of two quick clicks waits this long before it reaches the service: longer than SimCord runs the bot's
#: timers on its own after a click (5 s), so the second click comes before the first is answered. The bot
#: acknowledges each click after ``defer_after`` (a deferred update) and edits the answer in when it comes.
CLICK_DELAY = 10.0


async def quick_clicks(t: Table, board: Any, *custom_ids: str) -> None:
    """Click ``custom_ids`` on ``board`` one right after the other, each before the previous one is answered."""
    for custom_id in custom_ids:
        await t.alice.click(board, custom_id=custom_id)
    await t.env.advance_time(CLICK_DELAY * 3)


def followups_since(t: Table, mark: int) -> list[bool]:
    """The follow-up messages the bot sent after ``mark`` (a length of ``env.http_requests``): ephemeral or not."""
    return [bool(((entry.json or {}).get("flags") or 0) & 64) for entry in t.env.http_requests[mark:]
            if entry.method == "POST" and entry.path.startswith("/webhooks/")]


@asynccontextmanager
async def table(service: App, monkeypatch: pytest.MonkeyPatch, *, slowed: bool = False) -> AsyncIterator[Table]:
    locales = Locales(monkeypatch)
    bot_service = cast(App, SlowApp(service, CLICK_DELAY, only=(Move, AskHint, NewGame, Replay, Review, Share))) if slowed else service
    async with simcord.run(make_bot(bot_service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice = guild.add_member(env.create_user("alice"))
        bob = guild.add_member(env.create_user("bob"))
        yield Table(env, guild, channel, alice, bob, locales, service)


def fitting_pair(game: Game) -> tuple[int, int]:
    """Two free cards: the first fits the waste card, the second fits the first."""
    for a in game.playable_slots():
        if not game.fits(a):
            continue
        after = game.copy()
        after.apply(Tap(a))
        for b in game.playable_slots():
            if b != a and after.fits(b):
                return a, b
    raise AssertionError("no such pair in this deal")


# --- quick and double clicks --------------------------------------------------------------------------------------


async def test_two_quick_card_taps_from_one_board_both_apply(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    first, second = fitting_pair(game)
    async with table(game_service, monkeypatch, slowed=True) as t:
        board = await t.new_game()
        ids = [button(board, command=str(slot))["custom_id"] for slot in (first, second)]
        assert all(":0:" in custom_id for custom_id in ids)  # both from the board at version 0
        # the second click leaves before the first one's answer has redrawn the board
        mark = len(t.env.http_requests)
        await quick_clicks(t, board, *ids)
        assert [c.type for c in callbacks_since(t.env, mark)] == [DEFERRED_UPDATE, DEFERRED_UPDATE]
        game.apply(Tap(first))
        game.apply(Tap(second))
        current = await t.current()
        assert current.game.moves == 2 and current.game.actions() == game.actions()
        shown = t.message(board.id)
        assert "Score: 498 · Moves: 2" in text_of(shown) and shows(shown, game)
        assert len(t.public_messages()) == 1


async def test_a_double_click_on_new_game_with_moves_only_asks(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        board = await t.move(await t.new_game())
        playing = await t.current()
        before = components_of(t.message(board.id))
        question, sent = await click(t.env, t.alice, board, button(board, command="n"))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        assert f"({unbroken(CODE)}, score 499, 1 move) will be abandoned" in text_of(question)
        assert labels_of(question) == [YES, NO]
        questions = [question]
        # the second click of the double click: acknowledged, and the one question stands
        mark = len(t.env.http_requests)
        await t.alice.click(board, custom_id=button(board, command="n")["custom_id"])
        assert [c.type for c in callbacks_since(t.env, mark)] == [DEFERRED_UPDATE]
        # neither click started anything, and the board still shows the game
        assert (await t.current()).game_id == playing.game_id
        assert components_of(t.message(board.id)) == before and len(t.public_messages()) == 1

        # Yes: the new game is a new public message, recorded as the live board; the old board is closed
        result, sent = await click(t.env, t.alice, questions[0], button(questions[0], label=YES))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        assert "Score: 500 · Moves: 0" in text_of(result) and result.id != board.id
        started = await t.current()
        assert started.game_id != playing.game_id
        assert started.board == BoardRef(str(t.channel.id), str(result.id))
        closed = t.message(board.id)
        assert "This game was abandoned" in text_of(closed) and labels_of(closed) == []
        assert CODE in heading(closed) and "Moves: 1" in heading(closed)
        # the question's Yes tapped again starts nothing more, and says so in a private line (not silence)
        mark = len(t.public_messages())
        mark_requests = len(t.env.http_requests)
        await t.alice.click(questions[0], custom_id=button(questions[0], label=YES)["custom_id"])
        assert callbacks_since(t.env, mark_requests) == [Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)]
        assert lines_since(t.env, mark_requests) == ["Started already: the first tap started the game"]
        assert len(t.public_messages()) == mark and (await t.current()).game_id == started.game_id


async def test_a_double_click_on_new_game_without_moves_starts_one_game(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch, slowed=True) as t:
        board = await t.new_game()
        new_game = button(board, command="n")["custom_id"]
        mark = len(t.env.http_requests)
        await quick_clicks(t, board, new_game, new_game)
        # the first click's new game is a public message; the second click gets a private note
        assert [c.type for c in callbacks_since(t.env, mark)] == [DEFERRED_UPDATE, DEFERRED_UPDATE]
        assert followups_since(t, mark) == [False, True]
        messages = t.public_messages()
        assert len(messages) == 2  # the first board and one new game
        started = await t.current()
        assert started.game.code != GameCode.parse(CODE)
        assert started.board == BoardRef(str(t.channel.id), str(max(m.id for m in messages)))
        # the first board never became another game: it still shows its deal, closed
        first = t.message(board.id)
        assert CODE in heading(first) and shows(first, Game.from_code(CODE)) and labels_of(first) == []


# --- asking first -------------------------------------------------------------------------------------------------


async def _start_by(way: str, t: Table, board: Any) -> tuple[simcord.ResponseMessage, Callback]:
    if way == "slash new":
        return await slash(t.env, t.alice, t.channel, "tripeaks new", code=OTHER)
    if way == "slash daily":
        return await slash(t.env, t.alice, t.channel, "tripeaks daily")
    if way == "daily post":
        channel = t.env.bot.get_channel(t.channel.id)
        assert isinstance(channel, discord.TextChannel)
        post = await channel.send(view=layout(render_daily(DAY, "en")))
        return await click(t.env, t.alice, post, button(post, label="Play"))
    return await click(t.env, t.alice, board, button(board, command="n"))


@pytest.mark.parametrize("way", ["slash new", "slash daily", "daily post", "board"])
async def test_every_way_to_start_asks_first_over_a_game_with_moves(
        way: str, game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        board = await t.move(await t.new_game())
        playing = await t.current()
        question, sent = await _start_by(way, t, board)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        assert f"({unbroken(CODE)}, score 499, 1 move) will be abandoned" in text_of(question)
        assert "another chat" not in text_of(question)
        assert (await t.current()).game_id == playing.game_id
        public = len(t.public_messages())

        # No: the question says the game goes on, and nothing else changes
        kept, sent = await click(t.env, t.alice, question, button(question, label=NO))
        assert sent == Callback(UPDATE_MESSAGE, ephemeral=False, v2=True) and kept.id == question.id
        assert text_of(kept).startswith("### Your game goes on") and labels_of(kept) == ["Back to the game"]
        assert (await t.current()).game_id == playing.game_id and len(t.public_messages()) == public

        # asked again, Yes: the new game in a new message (public; the ranked daily attempt the player's alone),
        # the old board closed
        question, _ = await _start_by(way, t, board)
        result, sent = await click(t.env, t.alice, question, button(question, label=YES))
        daily_attempt = way in ("slash daily", "daily post")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=daily_attempt, v2=True)
        expected = DAILY if daily_attempt else None if way == "board" else OTHER
        started = await t.current()
        if expected is not None:  # the daily deal's board names its day, not its code
            assert str(started.game.code) == expected
            assert (expected in heading(result)) is (expected == OTHER)
        assert started.game_id != playing.game_id and started.game.moves == 0
        assert started.board == BoardRef(str(t.channel.id), str(result.id))
        assert "This game was abandoned" in text_of(t.message(board.id)) and labels_of(t.message(board.id)) == []


async def test_the_question_says_when_the_game_is_in_another_channel(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        board = await t.move(await t.new_game())
        elsewhere = t.guild.create_text_channel("games")
        question, sent = await slash(t.env, t.alice, elsewhere, "tripeaks new", code=OTHER)
        assert sent.ephemeral and "That game is in another chat." in text_of(question)
        result, _ = await click(t.env, t.alice, question, button(question, label=YES))
        assert OTHER in heading(result) and result.channel_id == elsewhere.id
        # the board in the first channel is closed, through the channel's message
        assert "This game was abandoned" in text_of(t.message(board.id))
        assert (await t.current()).board == BoardRef(str(elsewhere.id), str(result.id))


# --- finished games -----------------------------------------------------------------------------------------------


async def test_a_finished_board_keeps_its_result_replay_share_and_review(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    line = winning_line(CODE)
    won = Game.from_code(CODE)
    for action in line:
        won.apply(action)
    async with table(game_service, monkeypatch) as t:
        await t.new_game()
        player = PlayerKey("discord", str(t.alice.id))
        game = await t.current()
        for action in line[:-1]:  # the game up to its last move, then that move on the board
            game = await act(game_service, player, "alice", _command(game, action))
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks resume")
        last = line[-1]
        assert isinstance(last, Tap)
        result, sent = await click(t.env, t.alice, board, button(board, command=str(last.slot)))
        assert sent.type == UPDATE_MESSAGE and "You won!" in text_of(result) and shows(result, won)
        assert labels_of(result) == ["Share", "Replay", "Review", "New game"]

        # Replay: the same deal from the start as a new message; the won board keeps its result
        replay, sent = await click(t.env, t.alice, result, button(result, label="Replay"))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True) and replay.id != board.id
        assert CODE in heading(replay) and "Moves: 0" in heading(replay) and shows(replay, Game.from_code(CODE))
        finished = t.message(board.id)
        assert "You won!" in text_of(finished) and shows(finished, won)
        assert labels_of(finished) == ["Share", "Review"]

        # Share: a public message with the result and Play this deal, which deals the same cards as a challenge (by
        # reference: no code)
        shared, sent = await click(t.env, t.alice, finished, button(finished, label="Share"))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        assert text_of(shared).startswith("### alice's result") and labels_of(shared) == ["Play this deal"]
        assert CODE not in text_of(shared) and "score 750" in text_of(shared)
        assert not any(label in text_of(shared) for label in ("♠", "♥", "♦", "♣"))  # no card given away

        # Review: the solver's account, only to the player
        review, sent = await click(t.env, t.alice, finished, button(finished, label="Review"))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        assert text_of(review).startswith(f"### Review: {CODE}") and "Final score: 750" in text_of(review)
        # Share and Review clicked again: nothing more is posted or reviewed, and a private line says so (issue
        # 49: a click met with silence looks lost)
        for label, line in (("Share", "Shared already: the first tap posted it"),
                            ("Review", "Your review is shown already: the first tap asked for it")):
            note, sent = await click(t.env, t.alice, finished, button(finished, label=label))
            assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False) and note.content == line
        # someone else's Share is theirs to make
        note, sent = await click(t.env, t.bob, finished, button(finished, label="Share"))
        assert sent.ephemeral and note.content.startswith("This is not your game")
        assert len(t.public_messages()) == 4  # the first board, the won board, the replay, the share


def _command(game: GameSnapshot, action: Any) -> Any:
    from bot.app.codec import game_command

    return game_command(game.game_id, game.version, str(action) if action != DRAW else "d")


# --- the daily again, winnable deals, DMs -------------------------------------------------------------------------


async def test_the_daily_started_again_shows_the_attempt_again(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        first, sent = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)  # the ranked attempt: the player's alone
        await t.move(first)
        attempt = await t.current()
        again, sent = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        # no question, no new game: the same attempt, as it stands, on a new board that is now the live one
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        assert "Moves: 1" in heading(again) and "Daily deal · " in heading(again) and DAILY not in heading(again)
        now = await t.current()
        assert now.game_id == attempt.game_id and now.daily == DAY
        assert now.board == BoardRef(str(t.channel.id), str(again.id))


@pytest.mark.parametrize(("rules", "winnable"), [("easy", True), ("classic", False)])
async def test_new_takes_a_winnable_option(rules: str, winnable: bool, game_service: App,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks new", rules=rules, winnable=winnable)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        started = await t.current()
        # the option wins over the default (Classic deals are winnable-only unless the player says otherwise)
        assert started.game.rules is Rules(rules) and started.dealt_winnable is winnable
        assert ("winnable" in heading(result)) is winnable
        if winnable:  # the stand-in solver proves deals whose number is a multiple of 7
            assert started.game.code is not None and started.game.code.number % 7 == 0


async def test_a_board_in_dms_carries_no_name_and_one_in_a_server_does(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        carol = t.env.create_user("carol")
        in_dm, _ = await slash(t.env, carol, None, "tripeaks new", code=CODE)
        assert "carol" not in heading(in_dm) and heading(in_dm).startswith(f"### {CODE}")
        in_server = await t.new_game()
        assert heading(in_server).startswith("### alice")


# --- languages ----------------------------------------------------------------------------------------------------

NEW_LANGUAGES = {
    discord.Locale.german: "de",
    discord.Locale.french: "fr",
    discord.Locale.spain_spanish: "es",
    discord.Locale.latin_american_spanish: "es",
    discord.Locale.brazil_portuguese: "pt_BR",
    discord.Locale.polish: "pl",
    discord.Locale.turkish: "tr",
}


def test_discord_locales_cover_the_ten_languages() -> None:
    assert {**NEW_LANGUAGES, discord.Locale.ukrainian: "uk", discord.Locale.russian: "ru",
                               discord.Locale.japanese: "ja"} == DISCORD_LOCALES


async def test_a_brazilian_client_gets_portuguese(game_service: App,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    tr = translator("pt_BR")
    async with table(game_service, monkeypatch) as t:
        t.locales.set(t.alice, "pt-BR")
        board = await t.new_game()
        easy = rules_name(Rules.EASY, "pt_BR")
        assert easy != "Easy" and f"{CODE} · {easy}" in heading(board)
        assert tr.pgettext("button", "Draw") in labels_of(board) and "Draw" not in labels_of(board)
        # a server whose community language is Brazilian Portuguese gets its daily posts in it
        t.locales.guild = "pt-BR"
        manager = t.guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
        mod = t.guild.add_member(t.env.create_user("mod"), roles=[manager])
        await slash(t.env, mod, t.channel, "tripeaks subscribe")
        (subscription,) = await game_service.subscriptions.all()
        assert subscription.locale == "pt_BR"


async def test_the_command_tree_is_localised_for_the_new_languages(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        bot = t.env.bot
        assert isinstance(bot, discord.ext.commands.Bot)
        (group,) = [command for command in await bot.tree.fetch_commands()  # as Discord stored them at the sync
                    if command.name == "tripeaks"]
        subcommands = {o.name: o for o in group.options if isinstance(o, discord.app_commands.AppCommandGroup)}
        for locale, language in NEW_LANGUAGES.items():
            names = command_names(language)
            assert subcommands["new"].name_localizations.get(locale) == names["new"] != "new"
            for key, described in subcommands.items():
                english = COMMAND_DESCRIPTIONS[key]
                translated = translator(language).gettext(english)
                assert described.description_localizations.get(locale) == (
                    translated if translated != english else None)
                localized = described.name_localizations.get(locale)
                if names[key] != key and valid_name(names[key]):
                    assert localized == names[key]
        spanish = subcommands["new"].name_localizations
        assert spanish[discord.Locale.spain_spanish] == spanish[discord.Locale.latin_american_spanish] == \
            command_names("es")["new"]
        assert subcommands["new"].name_localizations[discord.Locale.brazil_portuguese] == "novo"


async def test_quick_clicks_are_answered_once_each(game_service: App,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every click of a double tap gets exactly one interaction response (Discord shows an error otherwise)."""
    TapTimes(game_service)  # the two clicks come at one moment: a double tap
    async with table(game_service, monkeypatch, slowed=True) as t:
        board = await t.new_game()
        draw = button(board, label="Draw")["custom_id"]
        mark = len(t.env.http_requests)
        await quick_clicks(t, board, draw, draw)
        assert [c.type for c in callbacks_since(t.env, mark)] == [DEFERRED_UPDATE, DEFERRED_UPDATE]
        assert (await t.current()).game.moves == 1  # Draw twice from the same board draws once
        drawn = Game.from_code(CODE)
        drawn.apply(DRAW)
        assert shows(t.message(board.id), drawn) and "Moves: 1" in text_of(t.message(board.id))

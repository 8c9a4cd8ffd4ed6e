"""Discord's side of issue 28, on SimCord: the command tree installs to servers and to players' own accounts (a user
app) and works in servers, DMs and group DMs; what a user-installed app cannot do (post the daily deal to a channel)
is refused with a line; Share posts a card with Play this deal, and a second player who taps it (asked first, as
they have a game with moves) plays the same deal to the comparison with the shared game; a daily game's challenge
names no code and waits until the tapper's own attempt at the day's deal is over."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import simcord

from bot.adapters.discord.executor import outbox_executor
from bot.app import daily
from bot.app.assembly import App
from bot.app.effects import Effect, Executor, Report
from bot.app.errors import DailyCodeLocked
from bot.app.model import PlayerKey
from bot.app.outbox import LEASE, Outbox
from bot.i18n import translator
from bot.render.endings import compared_line
from bot.render.replies import DailyNotice, daily_notice, error_text
from bot.render.view import named_title
from core.deal import GameCode
from core.game import Tap
from tests.core_helpers import winning_line
from tests.discord_harness import (
    CHANNEL_MESSAGE,
    Callback,
    Installs,
    Locales,
    button,
    click,
    labels_of,
    make_bot,
    open_service,
    slash,
    text_of,
)
from tests.test_telegram_inline import another_winning_line, final_score

WIN_CODE = "TP1-E-AAAAAAC"
OTHER = "TP1-E-AAAAAAB"
DAY = dt.date(2026, 11, 29)


@pytest.fixture
async def game_service(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[App]:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db") as service:
        yield service


def command_of(action: object) -> str:
    return str(action) if isinstance(action, Tap) else "d"


async def play_line(env: simcord.Env, actor: object, message: simcord.ResponseMessage,
                    line: tuple[object, ...]) -> simcord.ResponseMessage:
    for action in line:
        message, _ = await click(env, actor, message, button(message, command=command_of(action)))
    return message


async def test_the_command_tree_installs_to_servers_and_players_everywhere(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    Locales(monkeypatch)
    async with simcord.run(make_bot(game_service)) as env:
        env.create_guild()
        # as the bot synced its tree with Discord: installable to a server (0) and to a player's account (1); usable
        # in servers (0), the bot's DMs (1) and group DMs and DMs between others (2)
        group = env.backend.find_command("tripeaks", None)
        assert group is not None
        assert sorted(group["integration_types"]) == [0, 1]
        assert sorted(group["contexts"]) == [0, 1, 2]


async def test_a_user_installed_app_cannot_subscribe_a_channel_and_says_so(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    Locales(monkeypatch)
    installs = Installs(monkeypatch)
    async with simcord.run(make_bot(game_service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        owner = guild.add_member(env.create_user("olena"))
        installs.user_only.add(owner.id)
        reply, sent = await slash(env, owner, channel, "tripeaks subscribe")
        assert sent.ephemeral
        assert reply.content == daily_notice(DailyNotice.NEEDS_SERVER_INSTALL, "en")
        # a game works all the same: the interaction's answer is the bot's message
        reply, sent = await slash(env, owner, channel, "tripeaks new", code=WIN_CODE)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True) and WIN_CODE in text_of(reply)


async def test_share_posts_a_challenge_a_second_player_plays_to_the_comparison(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    Locales(monkeypatch)
    async with simcord.run(make_bot(game_service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice = guild.add_member(env.create_user("alice"))
        bob = guild.add_member(env.create_user("bob"))

        board, _ = await slash(env, alice, channel, "tripeaks new", code=WIN_CODE)
        board = await play_line(env, alice, board, winning_line(WIN_CODE))
        alice_score = final_score(WIN_CODE, winning_line(WIN_CODE))
        card, sent = await click(env, alice, board, button(board, label="Share"))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        assert f"score {alice_score}" in text_of(card) and labels_of(card) == ["Play this deal"]

        # Bob has a game with moves: asked first, privately
        own, _ = await slash(env, bob, channel, "tripeaks new", code="TP1-E-AAAAAAB")
        await click(env, bob, own, button(own, command="d"))
        # the challenge goes by reference: neither the card, its button nor the question names the code
        assert WIN_CODE not in text_of(card) + button(card, label="Play this deal")["custom_id"]
        question, sent = await click(env, bob, card, button(card, label="Play this deal"))
        assert sent.ephemeral and "Take up the challenge?" in text_of(question) and WIN_CODE not in text_of(question)
        board, sent = await click(env, bob, question, button(question, label="Yes, start"))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        assert f"To beat: {alice_score} (alice)" in text_of(board) and WIN_CODE not in text_of(board)

        line = another_winning_line(WIN_CODE)
        told_before = len(channel.history())
        board = await play_line(env, bob, board, line)
        bob_score = final_score(WIN_CODE, line)
        diff = bob_score - alice_score
        expected = (f"You beat alice's {alice_score} by {diff}" if diff > 0 else
                    f"alice's {alice_score} beats yours by {-diff}" if diff < 0 else
                    f"You tied with alice: {alice_score} each")
        assert expected in text_of(board) and WIN_CODE in text_of(board)  # over: the code may be shown
        # alice is told, once, in the channel where she played the deal (and shared it): the outbox delivers it
        assert await game_service.outbox.deliver({"discord": outbox_executor(env.bot.ctx)}) == 1
        (told,) = [message for message in channel.history()[told_before:] if "You vs bob" in text_of(message)]
        theirs = (f"You beat bob's {bob_score} by {-diff}" if diff < 0 else
                  f"bob's {bob_score} beats yours by {diff}" if diff > 0 else f"You tied with bob: {bob_score} each")
        assert theirs in text_of(told)


async def test_a_daily_challenge_waits_for_the_tappers_own_attempt(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    # which deal a day gets is bot.app.daily's business: here today is DAY, whose deal is WIN_CODE
    monkeypatch.setattr(daily, "today", lambda now=None: DAY)
    monkeypatch.setattr(daily, "daily_code", lambda day, *secret: GameCode.parse(WIN_CODE if day == DAY else OTHER))
    Locales(monkeypatch)
    async with simcord.run(make_bot(game_service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice = guild.add_member(env.create_user("alice"))
        bob = guild.add_member(env.create_user("bob"))

        board, _ = await slash(env, alice, channel, "tripeaks daily")
        board = await play_line(env, alice, board, winning_line(WIN_CODE))
        card, _ = await click(env, alice, board, button(board, label="Share"))
        play = button(card, label="Play this deal")
        assert WIN_CODE not in play["custom_id"]  # the challenge of a daily game names no code

        # Bob has not played today's daily: the challenge is refused, privately, and starts nothing
        refused, sent = await click(env, bob, card, play)
        assert sent.ephemeral
        assert refused.content == error_text(DailyCodeLocked(game_service.daily_codes.today(), shared=True), "en",
                                             "/tripeaks new")
        assert "code" not in refused.content  # he saw a shared result, not a code
        assert await game_service.games.current_game(PlayerKey("discord", str(bob.id))) is None

        # once his own attempt is over, the same button deals it as a practice game, compared with Alice's
        attempt, _ = await slash(env, bob, channel, "tripeaks daily")
        await play_line(env, bob, attempt, another_winning_line(WIN_CODE))
        practice, sent = await click(env, bob, card, play)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        assert "practice, unranked" in text_of(practice) and WIN_CODE not in text_of(practice)
        practice = await play_line(env, bob, practice, winning_line(WIN_CODE))
        assert f"You tied with alice: {final_score(WIN_CODE, winning_line(WIN_CODE))} each" in text_of(practice)


async def test_a_challenger_who_set_no_language_is_told_in_their_discords(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Alice's Discord client speaks Russian and she chose no language; Bob's speaks English. When Bob finishes
    Alice's challenge, Alice is told in Russian (her client's as last seen), not in Bob's English."""
    locales = Locales(monkeypatch)
    ru = translator("ru")
    async with simcord.run(make_bot(game_service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice = guild.add_member(env.create_user("alice"))
        bob = guild.add_member(env.create_user("bob"))
        locales.set(alice, "ru")
        locales.set(bob, "en-US")

        board, _ = await slash(env, alice, channel, "tripeaks new", code=WIN_CODE)
        board = await play_line(env, alice, board, winning_line(WIN_CODE))
        card, _ = await click(env, alice, board, button(board, label=ru.pgettext("button", "Share")))
        board, _ = await click(env, bob, card, button(card, label=ru.pgettext("button", "Play this deal")))
        assert "To beat:" in text_of(board)  # Bob's board, in his English
        told_before = len(channel.history())
        line = another_winning_line(WIN_CODE)
        await play_line(env, bob, board, line)
        assert await game_service.outbox.deliver({"discord": outbox_executor(env.bot.ctx)}) == 1
        title = named_title(ru.pgettext("title", "You vs {name}"), "bob")
        (told,) = [message for message in channel.history()[told_before:] if title in text_of(message)]
        alice_score, bob_score = final_score(WIN_CODE, winning_line(WIN_CODE)), final_score(WIN_CODE, line)
        assert compared_line(alice_score, "bob", bob_score, ru) in text_of(told)


async def shared_at_the_table(env: Any, game_service: App) -> Any:
    """Alice wins a game in a server's channel and shares it at the table: the result waits in the outbox, to be
    posted in that channel; the channel."""
    guild = env.create_guild()
    channel = guild.create_text_channel("general")
    alice = guild.add_member(env.create_user("alice"))
    board, _ = await slash(env, alice, channel, "tripeaks new", code=WIN_CODE)
    await play_line(env, alice, board, winning_line(WIN_CODE))
    won = await game_service.games.latest_game(PlayerKey("discord", str(alice.id)))
    assert won is not None and won.game.is_over
    assert await game_service.outbox.ask_share(won, "en", within=0)
    return channel


def after_the_lease(game_service: App) -> Outbox:
    """The outbox as another process sees it once the lease on a claimed row has run out."""
    return Outbox(game_service.db, game_service.daily_codes.today, sign=game_service.outbox.sign,
                  clock=lambda: dt.datetime.now(dt.UTC) + dt.timedelta(seconds=LEASE + 1))


def posts_since(env: Any, mark: int, channel: Any) -> list[dict[str, Any]]:
    """The bodies of the messages the bot posted in ``channel`` since request ``mark``, failed tries included."""
    return [entry.json or {} for entry in env.http_requests[mark:]
            if entry.method == "POST" and entry.path == f"/channels/{channel.id}/messages"]


async def test_a_result_sent_again_after_a_stop_carries_the_same_nonce(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A result shared at the table, taken by Discord, whose process stopped before the outbox marked it delivered,
    is sent again with the nonce of its first try, enforced: Discord posts a message sent again with the same nonce
    within a few minutes once. SimCord keeps no nonces (it ignores them), so there both tries show: what is checked
    is what Discord dedups by."""
    Locales(monkeypatch)
    async with simcord.run(make_bot(game_service)) as env:
        channel = await shared_at_the_table(env, game_service)
        executor_for = outbox_executor(env.bot.ctx)

        def stopping(locale: str | None) -> Executor:
            class TakenThenStopped:
                async def run(self, effects: list[Effect]) -> list[Report]:
                    await executor_for(locale).run(effects)
                    raise RuntimeError("stopped after Discord took the message")

            return TakenThenStopped()

        mark = len(env.http_requests)
        assert await game_service.outbox.deliver({"discord": stopping}) == 0
        assert await after_the_lease(game_service).deliver({"discord": executor_for}) == 1
        sent = posts_since(env, mark, channel)
        assert len(sent) == 2
        assert sent[0]["nonce"] == sent[1]["nonce"] and sent[0]["enforce_nonce"] is True
        assert sent[0]["components"] == sent[1]["components"]  # the same message
        assert await game_service.outbox.undelivered() == []


async def test_a_result_discord_failed_to_take_is_sent_again_with_its_nonce(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord failing (5xx) through all of discord.py's own tries leaves the shared result undelivered, not lost:
    the outbox's next delivery sends it, with the same nonce (one message, should the first have been taken)."""
    Locales(monkeypatch)
    async with simcord.run(make_bot(game_service)) as env:
        channel = await shared_at_the_table(env, game_service)
        executor_for = outbox_executor(env.bot.ctx)
        mark, posted = len(env.http_requests), len(channel.history())
        env.inject_error("POST", f"/channels/{channel.id}/messages", status=500, times=None)
        assert await game_service.outbox.deliver({"discord": executor_for}) == 0
        assert len(await game_service.outbox.undelivered()) == 1
        env.backend.faults.clear()
        assert await after_the_lease(game_service).deliver({"discord": executor_for}) == 1
        sent = posts_since(env, mark, channel)
        assert len(sent) >= 2 and len({entry["nonce"] for entry in sent}) == 1  # every try, one key
        assert len(channel.history()) == posted + 1
        assert await game_service.outbox.undelivered() == []

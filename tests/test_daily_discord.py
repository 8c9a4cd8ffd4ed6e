"""The daily deal on Discord, on SimCord: a member with Manage Server subscribes a channel, the poster posts the
day's deal (its date, never its code) with a Play button at its time (once, also after a restart), Play starts the deal on the server's
leaderboard, and /tripeaks leaderboard shows it."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.adapters.discord.executor import outbox_executor
from bot.app import daily
from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.daily_posts import DailyPoster
from bot.app.effects import ExecutorFor
from bot.app.model import GameSnapshot, PlayerKey
from core.deal import GameCode
from tests.app_helpers import act
from tests.core_helpers import winning_line
from tests.discord_harness import (
    CHANNEL_MESSAGE,
    button,
    click,
    labels_of,
    make_bot,
    open_service,
    slash,
    text_of,
)
from tests.test_daily import CODE, DAY, POST_TIME, Clock, at

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def pinned_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daily, "daily_code", lambda day, secret: GameCode.parse(CODE))
    monkeypatch.setattr(daily, "today", lambda now=None: DAY)


@pytest.fixture
async def service(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[App]:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db") as opened:
        yield opened


def executors(bot: Any) -> dict[str, ExecutorFor]:
    """The Discord executor of ``bot`` (a bot process), which carries the posts out."""
    return {"discord": outbox_executor(bot.ctx)}


def poster(service: App, bot: discord.Client, clock: Clock) -> DailyPoster:
    return DailyPoster(service.subscriptions, service.daily_codes.code, executors(bot), post_time=POST_TIME,
                       clock=clock, sleep=clock.sleep)


def daily_posts(channel: simcord.ChannelHandle) -> list[discord.Message]:
    return [m for m in channel.history() if m.author.bot and text_of(m).startswith("### Daily deal")]


def server(env: simcord.Env) -> tuple[Any, simcord.ChannelHandle, Any, Any]:
    """A server, its channel, a member who may manage the server (mod) and one who may not (bob)."""
    guild = env.create_guild()
    channel = guild.create_text_channel("general")
    manager_role = guild.create_role("mods", permissions=discord.Permissions(manage_guild=True))
    return (guild, channel, guild.add_member(env.create_user("mod"), roles=[manager_role]),
            guild.add_member(env.create_user("bob")))


async def win_the_daily(service: App, member: Any) -> GameSnapshot:
    """``member``'s daily attempt in progress, played to a win."""
    player = PlayerKey("discord", str(member.id))
    game = await service.games.current_game(player)
    assert game is not None
    for action in winning_line(CODE):
        game = await act(service, player, "bob", game_command(game.game_id, game.version, str(action)))
    return game


async def test_subscribe_post_play_and_leaderboard(service: App) -> None:
    async with simcord.run(make_bot(service)) as env:
        guild, channel, mod, bob = server(env)

        refused, sent = await slash(env, bob, channel, "tripeaks subscribe")
        assert sent.ephemeral and refused.content == (
            "Only a member with the Manage Server permission can change the daily posts")
        assert await service.subscriptions.all() == []
        done, sent = await slash(env, mod, channel, "tripeaks subscribe")
        assert "every day at 09:00 UTC" in text_of(done)
        (subscription,) = await service.subscriptions.all()
        assert subscription.channel_id == str(channel.id) and subscription.community == str(guild.id)

        clock = at(8, 0)
        assert await poster(service, env.bot, clock).run_once() == 0
        clock.at(9, 30)
        assert await poster(service, env.bot, clock).run_once() == 1
        (post,) = daily_posts(channel)
        assert "### Daily deal\nNovember 29, 2026" in text_of(post) and CODE not in text_of(post)

        result, _ = await click(env, bob, post, button(post, label="Play"))
        header = text_of(result).split("```")[0]
        assert "\nDaily deal · Nov 29, 2026\nEasy · ranked attempt: no undo\n" in header and CODE not in header  # the day and the rules
        game = await win_the_daily(service, bob)
        board, sent = await slash(env, bob, channel, "tripeaks leaderboard")
        assert not sent.ephemeral
        # Discord shows "1. bob": the dot escaped (so the line is no numbered list), not the number
        assert f"1\\. bob\n> \u00a0\u00a0score {game.game.score} · {game.game.moves} moves · " in text_of(board)
        assert "\\1." not in text_of(board)
        # Play under the leaderboard, as under the daily post: for whoever reads it, today's deal
        assert labels_of(board) == ["Play"]
        mod_board, sent = await click(env, mod, board, button(board, label="Play"))
        assert sent.type == CHANNEL_MESSAGE and "Daily deal · Nov 29, 2026" in text_of(mod_board)

        # a restart: the new bot process does not post the day again
        await env.restart_bot(make_bot(service))
        assert await poster(service, env.bot, clock).run_once() == 0
        assert len(daily_posts(channel)) == 1

        gone, _ = await slash(env, mod, channel, "tripeaks unsubscribe")
        assert "no longer" in text_of(gone)
        assert await service.subscriptions.all() == []


async def test_the_leaderboard_in_a_dm_is_the_players_own_place(service: App) -> None:
    """``/tripeaks leaderboard`` in a DM: the player's place among everyone who played today's daily on this bot,
    privately and naming nobody; before playing, how many have, and Play."""
    async with simcord.run(make_bot(service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        bob_user, ann = env.create_user("bob"), env.create_user("ann")
        bob = guild.add_member(bob_user)
        await slash(env, bob, channel, "tripeaks daily")
        await win_the_daily(service, bob)
        mine, sent = await slash(env, bob_user, None, "tripeaks leaderboard")
        assert "Your place today: 1 of 1 player" in text_of(mine)
        theirs, sent = await slash(env, ann, None, "tripeaks leaderboard")
        assert "1 player has played today's daily deal" in text_of(theirs) and "bob" not in text_of(theirs)
        assert labels_of(theirs) == ["Play"]


async def test_the_next_days_post_gives_the_day_befores_code_and_result(service: App) -> None:
    async with simcord.run(make_bot(service)) as env:
        _, channel, mod, bob = server(env)
        await slash(env, mod, channel, "tripeaks subscribe")
        await slash(env, bob, channel, "tripeaks daily")
        game = await win_the_daily(service, bob)
        clock = at(9, 30, day=DAY + dt.timedelta(days=1))
        recapped = DailyPoster(service.subscriptions, service.daily_codes.code, executors(env.bot),
                               post_time=POST_TIME, clock=clock, sleep=clock.sleep, recap=service.leaderboards.recap)
        assert await recapped.run_once() == 1
        (post,) = daily_posts(channel)
        assert f"Yesterday's deal: {CODE}" in text_of(post)
        assert f"1 player here, best: {game.game.score} (bob)" in text_of(post)

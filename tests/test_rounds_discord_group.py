"""A live round and the commands where the bot is no member of the chat (issue 51), on SimCord: a group DM where
the app is installed to its players' own accounts, and the bot's DM with a user-installed app. In a group DM the
bot may only answer interactions: the round message is ``/tripeaks round``'s response, its standings and results are
edited in through that interaction's webhook (its token kept with the round, in the database: any process can make
the edit), within the token's 15 minutes, so such a round lasts at most 10; Join answers with an ephemeral board.
SimCord has no group DM: :class:`tests.discord_harness.GroupDm` stands one in."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import simcord
from sqlalchemy import update

from bot.app.assembly import App
from bot.store.schema import rounds
from core.game import Game
from tests.discord_harness import (
    CHANNEL_MESSAGE,
    UPDATE_MESSAGE,
    GroupDm,
    Installs,
    button,
    buttons_of,
    click,
    heading,
    make_bot,
    open_service,
    slash,
    text_of,
)
from tests.test_rounds_discord import bot_of, round_message, until

pytestmark = pytest.mark.timeout(90)

#: Discord's integration types (a server install, a user install) and contexts (a server, the bot's DM, a private
#: channel: a group DM or another DM).
GUILD_INSTALL, USER_INSTALL = 0, 1
GUILD, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2


@pytest.fixture
async def service(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[App]:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db") as opened:
        yield opened


def ephemeral_followups(env: simcord.Env, mark: int) -> list[str]:
    """The text of each ephemeral followup the bot sent through an interaction's webhook after ``mark``."""
    return [str(entry.json.get("content")) for entry in env.http_requests[mark:]
            if entry.method == "POST" and entry.path.startswith("/webhooks/") and entry.json
            and int(entry.json.get("flags") or 0) & 64]


async def end_now(service: App) -> None:
    """The round's time is up (the database's clock is the real one, SimCord's is virtual)."""
    async with service.db.transaction() as tx:
        await tx.execute(update(rounds).values(ends_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)))


async def test_a_round_in_a_group_dm_from_start_to_results(service: App, monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bot")
    async with simcord.run(make_bot(service)) as env:
        alice, bob = env.create_user("alice"), env.create_user("bob")
        group = GroupDm(env, monkeypatch, [alice, bob])

        posted, sent = await slash(env, alice, None, "tripeaks round", minutes=4)
        assert sent.type == CHANNEL_MESSAGE and not sent.ephemeral
        assert "TriPeaks round · Easy\n4 min" in text_of(posted)
        join = button(posted, label="Join")
        round_id = int(join["custom_id"].rpartition(":")[2])
        code = str((await service.flow.rounds.now(round_id)).code)
        token = await service.flow.rounds.reply_token(round_id)
        assert token is not None and token.startswith("simcord_interaction_")  # alice's command's, to edit it with

        board, sent = await click(env, alice, posted, join)
        assert sent.ephemeral and "live round: no undo" in text_of(board) and code not in text_of(board)
        bob_board, sent = await click(env, bob, round_message(group.channel), join)
        assert sent.ephemeral  # bob's cards are his alone, in the group too

        game = Game.from_code(code)
        fitting = [slot for slot in game.playable_slots() if game.fits(slot)]
        board, sent = await click(env, alice, board, button(board, command=str(fitting[0]) if fitting else "d"))
        assert sent.type == UPDATE_MESSAGE  # the ephemeral board edited in place
        bob_board, _ = await click(env, bob, bob_board, button(bob_board, command="d"))
        await until(env, lambda: "alice" in text_of(round_message(group.channel))
                    and "bob" in text_of(round_message(group.channel)), "the standings to show both players")
        assert code not in text_of(round_message(group.channel))

        await end_now(service)
        await bot_of(env).ctx.rounds.tick()  # the loop's look, which the runner makes every second
        await until(env, lambda: "The round is over" in text_of(round_message(group.channel)), "the results")
        results = text_of(round_message(group.channel))
        assert "Winner: alice" in results and code in results
        assert buttons_of(round_message(group.channel)) == []  # no Join any more
        assert await service.flow.rounds.reply_token(round_id) is None  # the secret is forgotten once used up

        # everything went through the interactions: the bot never asked the group's channel for anything
        assert group.bot_requests(env) == []
        edits = [entry for entry in env.http_requests if entry.method == "PATCH"
                 and entry.path.startswith(f"/webhooks/{env.backend.application_id}/{token}/messages/")]
        assert len(edits) >= 2  # the standings, then the results
    assert token not in caplog.text


async def test_a_round_asked_for_longer_than_its_token_lives_runs_ten_minutes(
        service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord takes edits with an interaction's token for 15 minutes: a round in a group DM runs at most 10, which
    its host is told privately; its results land at its end. A round whose token has run out (a process down past
    it) gives its results up rather than trying for ever, and posts nothing in the channel."""
    async with simcord.run(make_bot(service)) as env:
        alice, bob = env.create_user("alice"), env.create_user("bob")
        group = GroupDm(env, monkeypatch, [alice, bob])

        mark = len(env.http_requests)
        posted, _ = await slash(env, alice, None, "tripeaks round", minutes=45)
        assert "TriPeaks round · Easy\n10 min" in text_of(posted)
        assert ephemeral_followups(env, mark) == ["Here a round lasts at most 10 minutes, so this one runs 10"]
        round_id = int(button(posted, label="Join")["custom_id"].rpartition(":")[2])
        assert (await service.flow.rounds.now(round_id)).minutes == 10

        await click(env, bob, posted, button(posted, label="Join"))
        await env.advance_time(10 * 60 + 5)  # the round's 10 minutes on SimCord's clock, which the token runs on
        await end_now(service)
        await bot_of(env).ctx.rounds.tick()
        await until(env, lambda: "The round is over" in text_of(round_message(group.channel)), "the results")

        late, _ = await slash(env, bob, None, "tripeaks round", minutes=5)
        late_id = int(button(late, label="Join")["custom_id"].rpartition(":")[2])
        await click(env, alice, late, button(late, label="Join"))
        await env.advance_time(16 * 60)  # its token has run out
        await end_now(service)
        await bot_of(env).ctx.rounds.tick()
        await bot_of(env).ctx.rounds.settled()
        assert "The round is over" not in text_of(round_message(group.channel, late))
        assert await service.flow.rounds.due("discord") == []  # given up, not tried again
        assert await service.flow.rounds.reply_token(late_id) is None
        assert group.bot_requests(env) == []


async def test_a_round_in_a_server_where_the_app_is_installed_to_the_player_only(
        service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server without the bot, the app installed to alice's account: the same as a group DM, the round message
    the command's response, edited through it, at most 10 minutes."""
    installs = Installs(monkeypatch)
    async with simcord.run(make_bot(service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice = guild.add_member(env.create_user("alice"))
        installs.user_only.add(alice.id)
        posted, sent = await slash(env, alice, channel, "tripeaks round", minutes=20)
        assert not sent.ephemeral and "10 min" in text_of(posted)
        round_id = int(button(posted, label="Join")["custom_id"].rpartition(":")[2])
        assert await service.flow.rounds.reply_token(round_id) is not None


async def test_the_commands_in_the_bots_dm_with_a_user_installed_app(service: App,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``/tripeaks`` is declared for both installs and every context; in the bot's DM with the app installed to the
    player's account a game is played as anywhere (public board, taps edit it), a round is refused (a round is for a
    group) and the leaderboard is the player's own standing."""
    installs = Installs(monkeypatch)
    async with simcord.run(make_bot(service)) as env:
        registered = [command for commands in env.backend.commands.values() for command in commands.values()
                      if command["name"] == "tripeaks"]
        assert len(registered) == 1
        assert sorted(registered[0]["integration_types"]) == [GUILD_INSTALL, USER_INSTALL]
        assert sorted(registered[0]["contexts"]) == [GUILD, BOT_DM, PRIVATE_CHANNEL]

        alice = env.create_user("alice")
        installs.user_only.add(alice.id)
        board, sent = await slash(env, alice, None, "tripeaks new", code="TP1-E-AAAAAAB")
        assert sent.type == CHANNEL_MESSAGE and not sent.ephemeral and "TP1-E-AAAAAAB" in text_of(board)
        edited, sent = await click(env, alice, board, button(board, command="d"))
        assert sent.type == UPDATE_MESSAGE and "Moves: 1" in text_of(edited)

        refused, sent = await slash(env, alice, None, "tripeaks round")
        assert sent.ephemeral and "Start a round in a group" in text_of(refused) + str(refused.content)
        standing, sent = await slash(env, alice, None, "tripeaks leaderboard")
        assert sent.ephemeral
        rules, sent = await slash(env, alice, None, "tripeaks rules")
        assert sent.ephemeral and text_of(rules)


async def test_the_commands_in_a_group_dm_answer_through_the_interactions(service: App,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """In a group DM every answer is the interaction's own: a game is a public board its taps edit in place, the
    leaderboard is the group's (a community of its own) for all to read, the daily posts are refused (no bot is a
    member of a group DM), the rules are private; the bot never asks the channel for anything."""
    async with simcord.run(make_bot(service)) as env:
        alice, bob = env.create_user("alice"), env.create_user("bob")
        group = GroupDm(env, monkeypatch, [alice, bob])

        board, sent = await slash(env, alice, None, "tripeaks new", code="TP1-E-AAAAAAB")
        assert sent.type == CHANNEL_MESSAGE and not sent.ephemeral and "TP1-E-AAAAAAB" in text_of(board)
        assert heading(board).startswith("### alice's game\n")  # whose board it is, as in a server
        edited, sent = await click(env, alice, board, button(board, command="d"))
        assert sent.type == UPDATE_MESSAGE and "Moves: 1" in text_of(edited)
        other, sent = await click(env, bob, edited, button(edited, command="d"))
        assert sent.ephemeral and str(other.content).startswith("This is not your game")

        standing, sent = await slash(env, bob, None, "tripeaks leaderboard")
        assert sent.type == CHANNEL_MESSAGE and not sent.ephemeral
        refused, sent = await slash(env, alice, None, "tripeaks subscribe")
        assert sent.ephemeral and "a server the bot has been added to" in str(refused.content)
        rules, sent = await slash(env, bob, None, "tripeaks rules")
        assert sent.ephemeral and text_of(rules)
        assert group.bot_requests(env) == []

"""The owner's commands on Discord, on SimCord: ``/tripeaks-owner`` hidden from a server's ordinary members
(administrators only by default), answered privately to the owner in a DM or a server, refused to an administrator
who is not the owner; a blocked account answered one private line, with nothing stored from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.app.model import PlayerKey
from tests.discord_harness import CHANNEL_MESSAGE, Callback, make_bot, open_service, slash, text_of
from tests.test_owner import rows

pytestmark = pytest.mark.timeout(60)

#: How the bot answers with a line: a message of its own only the player sees.
PRIVATE = Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)


def line_of(message: Any) -> str:
    """A line's text (a board is drawn in components instead)."""
    return str(message.content or "")


async def test_the_owner_command_is_the_owners_alone(sqlite_template: Path, tmp_path: Path) -> None:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db") as service, \
            simcord.run(make_bot(service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        admins = guild.create_role("admins", permissions=discord.Permissions(administrator=True))
        olga_user, carol_user = env.create_user("olga"), env.create_user("carol")
        olga = guild.add_member(olga_user, roles=[admins])
        ann = guild.add_member(env.create_user("ann"), roles=[admins])  # a server's administrator, not the owner
        bob = guild.add_member(env.create_user("bob"))
        carol = guild.add_member(carol_user)
        service.owners.owner_ids = frozenset({PlayerKey("discord", str(olga_user.id))})

        assert not any(name.startswith("tripeaks-owner") for name in bob.available_commands(channel))
        assert any(name.startswith("tripeaks-owner") for name in ann.available_commands(channel))

        stats, sent = await slash(env, olga_user, None, "tripeaks-owner stats")  # in the owner's DM
        assert sent == PRIVATE and line_of(stats).startswith("The bot in figures\nPlayers: 0\n")
        said, sent = await slash(env, olga, channel, "tripeaks-owner notice", text="Back at 18:00 UTC")
        assert sent == PRIVATE and "📢 Notice from the bot's owner: Back at 18:00 UTC" in line_of(said)
        board, _ = await slash(env, bob, channel, "tripeaks new")
        assert "📢 Notice from the bot's owner: Back at 18:00 UTC" in text_of(board)
        await slash(env, olga, channel, "tripeaks-owner notice", text="off")

        refused, sent = await slash(env, ann, channel, "tripeaks-owner block", account=f"discord:{bob.id}")
        assert sent == PRIVATE and line_of(refused) == "This command is not available to you."

        blocked, sent = await slash(env, olga, channel, "tripeaks-owner block", account=f"discord:{carol.id}")
        assert sent == PRIVATE and line_of(blocked) == f"discord:{carol.id} is blocked: its commands are refused."
        before = await rows(service.db)
        for command, options in (("tripeaks new", {}), ("tripeaks daily", {}), ("tripeaks stats", {}),
                                 ("tripeaks play", {"card": "7h"})):
            answer, sent = await slash(env, carol, channel, command, **options)
            assert sent == PRIVATE and line_of(answer) == "This bot is not available to you.", command
        answer, _ = await slash(env, carol_user, None, "tripeaks new")
        assert line_of(answer) == "This bot is not available to you."
        assert await rows(service.db) == before  # no player, no game, no community seen

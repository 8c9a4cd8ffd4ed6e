"""A live round on Discord, on SimCord (issue 51): ``/tripeaks round`` in a server's channel posts the round
message with Join; a click answers with the player's own board, ephemeral; their moves bring the round message up
to date; when the time is up the results replace it, with the deal's code, which no message carried while the
round ran."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import simcord
from sqlalchemy import update

from bot.adapters.discord.client import TriPeaksBot
from bot.app.assembly import App
from bot.render.tableau import narrow_tableau_text
from bot.store.schema import rounds
from core.game import Game
from tests.discord_harness import (
    button,
    buttons_of,
    click,
    click_seen_before,
    make_bot,
    open_service,
    slash,
    text_of,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def service(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[App]:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db") as opened:
        yield opened


def round_message(channel: simcord.ChannelHandle, shown: Any = None) -> Any:
    """The round message in the channel as it is now (the one the response ``shown`` showed, if given)."""
    found = [m for m in channel.history() if m.author.bot and "TriPeaks round" in text_of(m)
             and (shown is None or m.id == shown.id)]
    assert len(found) == 1, [text_of(m) for m in channel.history()]
    return found[0]


def bot_of(env: simcord.Env) -> TriPeaksBot:
    assert isinstance(env.bot, TriPeaksBot)
    return env.bot


async def until(env: simcord.Env, shown: Any, what: str) -> None:
    """Let the bot's clock run (SimCord's virtual time) until ``shown()`` holds: at most a minute of it. Each look
    first waits for the round messages' edits under way (their reads of the database take real time, which
    SimCord's clock does not wait for: without it the minute could pass before an edit was made)."""
    for _ in range(120):
        await bot_of(env).ctx.rounds.settled()
        if shown():
            return
        await env.advance_time(0.5)
    last = [f"{entry.method} {entry.path.split('/simcord_interaction_')[0]}" for entry in env.http_requests[-6:]]
    raise AssertionError(f"never happened: {what}; the bot's last requests: {last}")


def every_request_text(env: simcord.Env) -> str:
    return "\n".join(json.dumps(entry.json, ensure_ascii=False, default=str) for entry in env.http_requests
                     if entry.json is not None)


async def test_a_round_on_discord_from_start_to_results(service: App) -> None:
    async with simcord.run(make_bot(service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice = guild.add_member(env.create_user("alice"))
        bob = guild.add_member(env.create_user("bob"))

        posted, sent = await slash(env, alice, channel, "tripeaks round", minutes=3)
        assert not sent.ephemeral and "TriPeaks round · Easy\n3 min" in text_of(posted)
        join = button(posted, label="Join")
        round_id = int(join["custom_id"].rpartition(":")[2])
        code = str((await service.flow.rounds.now(round_id)).code)
        assert code not in text_of(posted)

        board, sent = await click(env, alice, posted, join)
        assert sent.ephemeral and "live round: no undo" in text_of(board) and code not in text_of(board)
        assert "↶" not in [b["label"] for b in buttons_of(board)]
        bob_board, _ = await click(env, bob, round_message(channel), join)

        game = Game.from_code(code)
        fitting = [slot for slot in game.playable_slots() if game.fits(slot)]
        board, _ = await click(env, alice, board, button(board, command=str(fitting[0]) if fitting else "d"))
        for _ in range(2):
            bob_board, _ = await click(env, bob, bob_board, button(bob_board, command="d"))
        await until(env, lambda: "alice" in text_of(round_message(channel)) and "498" in text_of(
            round_message(channel)), "the standings to show both players")
        standings = text_of(round_message(channel))
        assert standings.index("alice") < standings.index("bob")
        assert code not in every_request_text(env)

        async with service.db.transaction() as tx:
            await tx.execute(update(rounds).values(ends_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)))
        await bot_of(env).ctx.rounds.tick()  # the loop's look, which the runner makes every second
        await until(env, lambda: "The round is over" in text_of(round_message(channel)), "the results")
        results = text_of(round_message(channel))
        assert "Winner: alice, score 499" in results and code in results
        assert buttons_of(round_message(channel)) == []  # no Join any more


def boards_in(message: Any) -> list[str]:
    """The code blocks of a message: the boards a watcher sees."""
    return re.findall(r"```\n(.*?)\n```", text_of(message), re.S)


async def board_now(service: App, round_id: int, name: str) -> str:
    """A player's board of the round as that player sees it (face-down cards as backs), as the watcher's view
    draws it."""
    entry = next(e for e in (await service.flow.rounds.read(round_id)).entries if e.name == name)
    assert entry.game is not None
    return narrow_tableau_text(entry.game)


async def test_a_member_not_in_the_round_watches_it_live(service: App) -> None:
    """👀 Watch under the round message: carol, who did not join, sees the standings and each player's board as that
    player sees it, privately, and bob's later move on it without tapping again; alice, who still plays, gets the
    standings alone; a payload forged in another channel for this round learns nothing of it."""
    async with simcord.run(make_bot(service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        elsewhere = guild.create_text_channel("random")
        alice, bob, carol, dave = (guild.add_member(env.create_user(name)) for name in ("alice", "bob", "carol", "dave"))

        posted, _ = await slash(env, alice, channel, "tripeaks round", minutes=5)
        watch = button(posted, label="👀 Watch")
        round_id = int(button(posted, label="Join")["custom_id"].rpartition(":")[2])
        assert watch["custom_id"] == f"tp:w:{round_id}"
        code = str((await service.flow.rounds.now(round_id)).code)
        alice_board, _ = await click(env, alice, posted, button(posted, label="Join"))
        bob_board, _ = await click(env, bob, round_message(channel), button(posted, label="Join"))
        bob_board, _ = await click(env, bob, bob_board, button(bob_board, command="d"))

        seen, sent = await click(env, carol, round_message(channel), watch)
        assert sent.ephemeral and "TriPeaks round" in text_of(seen) and "alice" in text_of(seen)
        assert boards_in(seen) == [await board_now(service, round_id, "alice"), await board_now(service, round_id, "bob")]
        assert "▒▒" in boards_in(seen)[0] and code not in text_of(seen)

        before = boards_in(seen)[1]
        bob_board, _ = await click(env, bob, bob_board, button(bob_board, command="d"))  # a later move, shown live
        moved = await board_now(service, round_id, "bob")
        assert moved != before
        await until(env, lambda: moved in boards_in(seen), "the watcher's view to show bob's move")
        assert "No longer updated" not in text_of(seen)

        standings, sent = await click(env, alice, round_message(channel), watch)  # alice's game goes on
        assert sent.ephemeral and "bob" in text_of(standings) and boards_in(standings) == []
        assert "the others' boards show once it ends" in text_of(standings)

        other, _ = await slash(env, dave, elsewhere, "tripeaks round", minutes=5)
        forged, sent = await click_seen_before(env, carol, other, f"tp:w:{round_id}")
        assert sent.ephemeral and "That round does not exist" in text_of(forged) + str(forged.content)
        assert "alice" not in text_of(forged) + str(forged.content)


async def test_a_watchers_view_says_when_it_is_no_longer_updated(service: App) -> None:
    """Discord takes edits through the Watch click's interaction for 15 minutes: after 13 of a 30-minute round the
    view is edited a last time, saying so (a later move no longer reaches it); a new Watch sees the round live
    again."""
    async with simcord.run(make_bot(service)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice, carol = (guild.add_member(env.create_user(name)) for name in ("alice", "carol"))
        posted, _ = await slash(env, alice, channel, "tripeaks round", minutes=30)
        round_id = int(button(posted, label="Join")["custom_id"].rpartition(":")[2])
        board, _ = await click(env, alice, posted, button(posted, label="Join"))
        seen, _ = await click(env, carol, round_message(channel), button(posted, label="👀 Watch"))
        assert boards_in(seen) == [await board_now(service, round_id, "alice")]

        await env.advance_time(13 * 60)
        await bot_of(env).ctx.rounds.tick()  # the loop's look: the time left redrawn, the view's last edit with it
        await until(env, lambda: "No longer updated: tap 👀 Watch under the round" in text_of(seen), "the last edit")
        last = text_of(seen)
        board, _ = await click(env, alice, board, button(board, command="d"))
        await bot_of(env).ctx.rounds.settled()  # the round message's edit for the draw made
        assert text_of(seen) == last and await board_now(service, round_id, "alice") not in boards_in(seen)

        again, _ = await click(env, carol, round_message(channel), button(posted, label="👀 Watch"))
        assert boards_in(again) == [await board_now(service, round_id, "alice")]
        assert "No longer updated" not in text_of(again)

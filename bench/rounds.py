"""A live round on Telegram under flood control: 50 players in one round tapping every 1.5 s. Run by hand:

    .venv/bin/python bench/rounds.py [--players 50] [--taps 16] [--interval 1.5] [--json]

The fake Bot API of the tests with Telegram's flood limits on (about one message a second in a chat, 20 a minute
in a group, edits counting as sends, 429 with ``retry_after`` past them) and the real python-telegram-bot
Application of the bot at its production pace, in the bench's event loop, on a fresh SQLite database (text
boards). Two scenarios with the same players, tapping on schedule (a fitting card, else Draw) in their private
chats, each tap carrying the version of the game as it stands (a player reading the toast, not waiting for the
board):

- ``round``: ``/round 10 <code>`` in a group (a code: the bench's solver proves no random deal winnable), every player joins with its link (``/start round-<id>``) and plays the
  round's deal; the round message in the group shows everyone's score, edited at the group's pace;
- ``alone``: the same players, each with an ordinary game (``/tripeaks``), no round.

Measured: per-player tap latency (press to toast, p50 and p99) in both; in the round, the lag from a move to the
round message showing it (press to the first edit of the round message whose line for that player shows that
move's score or a later one: scores never repeat within a game), p50 and p99 over the moves shown, the round
message's edits and the 429s met in the group (none: the pace keeps under the limits).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.flood import choose
from bench.load import fresh_database, percentile, serve_telegram
from bot.app.codec import decode, encode, game_command
from bot.app.commands import Move
from core.deal import DEAL_COUNT, GameCode, Rules
from core.game import Game

#: How long to wait for anything the bot should answer (seconds).
LIMIT = 120.0


@dataclass
class RoundPlayer:
    user: Any
    chat: Any
    rng: random.Random
    name: str
    message_id: int = 0
    game_id: int = 0
    version: int = 0
    game: Game | None = None
    #: (pressed, score after the tap, version after the tap) for each tap
    taps: list[tuple[float, int, int]] = field(default_factory=list)
    #: seconds from press to toast
    toasts: list[float] = field(default_factory=list)


def read_board(player: RoundPlayer, reply: Any, code: str) -> None:
    player.message_id = reply.message_id
    player.game = Game.from_code(code)
    for _, data in reply.buttons:
        command = decode(data) if data else None
        if isinstance(command, Move):
            player.game_id, player.version = command.game_id, command.version
            return
    raise RuntimeError("the board carries no move")


async def tap_on_schedule(api: Any, player: RoundPlayer, begin: float, interval: float, taps: int) -> None:
    loop = asyncio.get_running_loop()
    for index in range(taps):
        assert player.game is not None
        action = choose(player.game, player.rng)
        if action is None:
            return
        delay = begin + index * interval - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        data = encode(game_command(player.game_id, player.version, str(action)))
        pressed = time.time()
        press = api.press(player.user, player.chat, player.message_id, data, check_button=False)
        await press.answer(timeout=LIMIT)
        player.toasts.append(time.time() - pressed)
        player.game.push(action)
        player.version += 1
        player.taps.append((pressed, player.game.score, player.version))


def standings_lags(api: Any, group: Any, message_id: int, players: list[RoundPlayer]) -> list[float]:
    """For each tap, seconds from its press until an edit of the round message showed that player's score after it
    (or a later one)."""
    edits = [(request.time, request.params.get("text") or "") for request in api.requests
             if request.method == "editMessageText" and request.ok and request.chat_id == group.id
             and request.params.get("message_id") == message_id]
    lags = []
    for player in players:
        versions = {score: version for _, score, version in player.taps}
        line = re.compile(rf"\d+\. {re.escape(player.name)}: .* · (\d+)")
        shown = []  # (when, version shown)
        for at, text in edits:
            found = line.search(text)
            if found is not None and int(found.group(1)) in versions:
                shown.append((at, versions[int(found.group(1))]))
        for pressed, _, version in player.taps:
            seen = next((at for at, later in shown if later >= version and at >= pressed), None)
            if seen is not None:
                lags.append(seen - pressed)
    return lags


async def play(api: Any, players: list[RoundPlayer], interval: float, taps: int) -> None:
    loop = asyncio.get_running_loop()
    begin = loop.time() + 0.5
    await asyncio.gather(*(tap_on_schedule(api, player, begin + n * interval / len(players), interval, taps)
                           for n, player in enumerate(players)))


def figures(values: list[float]) -> dict[str, float]:
    return {"p50_s": round(percentile(values, 0.50), 3), "p99_s": round(percentile(values, 0.99), 3)}


@asynccontextmanager
async def bot_on_fake(limits: Any) -> AsyncIterator[tuple[Any, Any]]:
    """A fresh SQLite database, the fake Bot API with ``limits``, and the bot serving it (its production pace)."""
    from tests.fakes.telegram_bot_api import FakeBotAPI

    async with fresh_database("sqlite") as url, FakeBotAPI(flood_control=limits) as api:
        stopping, started = asyncio.Event(), asyncio.Event()
        bot = asyncio.create_task(serve_telegram(url, api.base_url, api.token, until=stopping.wait,
                                                 ready=started.set, board="text"))
        await asyncio.wait([bot, asyncio.create_task(started.wait())], return_when=asyncio.FIRST_COMPLETED)
        if bot.done():
            bot.result()
        try:
            yield api, url
        finally:
            stopping.set()
            await bot


async def in_a_round(limits: Any, count: int, taps: int, interval: float, seed: int) -> dict[str, Any]:
    async with bot_on_fake(limits) as (api, url):
        users = [api.user(f"P{n:02d}") for n in range(count)]
        host = api.user("Host")
        group = api.group("Round", members=[host, *users])
        # a code given: the bench's solver answers nothing, so no random deal is proved winnable
        dealt = GameCode(Rules.EASY, random.Random(seed).randrange(DEAL_COUNT))
        posted = await api.send_text(host, group, f"/round 10 {dealt}").reply(timeout=LIMIT)
        link = next(url for _, url in posted.links if "start=round-" in url)
        round_id = int(link.rpartition("-")[2])
        players = [RoundPlayer(user, api.private_chat(user), random.Random(seed * 31 + n), user.first_name)
                   for n, user in enumerate(users)]
        code = _code_of(str(url.database), round_id)
        for player in players:
            reply = await api.send_text(player.user, player.chat, f"/start round-{round_id}").reply(timeout=LIMIT)
            read_board(player, reply, code)
        since = len(api.requests)
        await play(api, players, interval, taps)
        # the round message's next turns (3.5 s apart) show the last moves
        await api.wait_until(lambda: len(standings_lags(api, group, posted.message_id, players)) >= sum(
            len(p.taps) for p in players), timeout=LIMIT, what="the standings to show every move")
        lags = standings_lags(api, group, posted.message_id, players)
        # the time is up: the results land
        ended = time.time()
        _time_is_up(str(url.database), round_id)
        await api.wait_until(lambda: "The round is over" in api.message(group, posted.message_id).text,
                             timeout=LIMIT, what="the round's results")
        results_after = time.time() - ended
        later = api.requests[since:]
        edits = [r for r in later if r.method == "editMessageText" and r.ok and r.chat_id == group.id]
        span = max(r.time for r in edits) - min(r.time for r in edits) if len(edits) > 1 else 0.0
        return {
            "taps": sum(len(p.toasts) for p in players), "toast": figures([t for p in players for t in p.toasts]),
            "standings_lag": figures(lags), "moves_shown": len(lags), "round_message_edits": len(edits),
            "edits_per_minute": round((len(edits) - 1) * 60 / span, 1) if span else None,
            "group_429": sum(1 for r in later if r.status == 429 and r.chat_id == group.id),
            "all_429": sum(1 for r in later if r.status == 429), "results_after_s": round(results_after, 2),
        }


async def alone(limits: Any, count: int, taps: int, interval: float, seed: int) -> dict[str, Any]:
    async with bot_on_fake(limits) as (api, _):
        players = [RoundPlayer(user, api.private_chat(user), random.Random(seed * 31 + n), user.first_name)
                   for n, user in enumerate(api.user(f"P{n:02d}") for n in range(count))]
        dealt = str(GameCode(Rules.EASY, random.Random(seed).randrange(DEAL_COUNT)))
        for player in players:
            reply = await api.send_text(player.user, player.chat, f"/tripeaks {dealt}").reply(timeout=LIMIT)
            read_board(player, reply, dealt)
        since = len(api.requests)
        await play(api, players, interval, taps)
        return {"taps": sum(len(p.toasts) for p in players),
                "toast": figures([t for p in players for t in p.toasts]),
                "all_429": sum(1 for r in api.requests[since:] if r.status == 429)}


async def run(count: int, taps: int, interval: float, seed: int) -> dict[str, Any]:
    """The round and the same players alone, under Telegram's limits, then with the bot-wide limit (30 messages a
    second in all, which 50 boards edited every 1.5 s pass by themselves) lifted: the group's own limits only."""
    from tests.fakes.telegram_bot_api import FloodLimits

    telegram, per_chat = FloodLimits(), FloodLimits(total_per_second=10**6)
    return {
        "players": count, "interval_s": interval, "taps_each": taps,
        "round": await in_a_round(telegram, count, taps, interval, seed),
        "alone": await alone(telegram, count, taps, interval, seed),
        "round_chat_limits_only": await in_a_round(per_chat, count, taps, interval, seed),
        "alone_chat_limits_only": await alone(per_chat, count, taps, interval, seed),
    }


def _code_of(path: str, round_id: int) -> str:
    """The round's deal, read from the bench's SQLite file (the bench plays it as the players' engine copy)."""
    with sqlite3.connect(path) as connection:
        (code,) = connection.execute("SELECT code FROM rounds WHERE id = ?", (round_id,)).fetchone()
    return str(code)


def _time_is_up(path: str, round_id: int) -> None:
    """The round's time ends now (as its clock would), in the bench's SQLite file."""
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE rounds SET ends_at = '2000-01-01 00:00:00.000000' WHERE id = ?", (round_id,))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--taps", type=int, default=16, help="taps of each player in each scenario")
    parser.add_argument("--interval", type=float, default=1.5, help="seconds between one player's taps")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.players, args.taps, args.interval, args.seed))
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()

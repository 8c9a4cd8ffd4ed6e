"""A live round on Telegram under flood control: 50 players in one round tapping every 1.5 s. Run by hand:

    .venv/bin/python bench/rounds.py [--players 50] [--taps 16] [--interval 1.5] [--json]

The fake Bot API of the tests with Telegram's flood limits on (about one message a second in a chat, 20 a minute
in a group, edits counting as sends, 429 with ``retry_after`` past them) and the real python-telegram-bot
Application of the bot at its production pace, in the bench's event loop, on a fresh SQLite database (text
boards). Two scenarios with the same players, tapping on schedule (a fitting card, else Draw) in their private
chats, each tap carrying the version of the game as it stands (a player reading the toast, not waiting for the
board):

- ``round``: ``/round 10`` in a group, every player joins with its link (``/start round-<id>``) and plays the
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
import time
from dataclasses import dataclass, field
from typing import Any

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


async def run(count: int, taps: int, interval: float, seed: int) -> dict[str, Any]:
    from tests.fakes.telegram_bot_api import FakeBotAPI, FloodLimits

    async with fresh_database("sqlite") as url, FakeBotAPI(flood_control=FloodLimits()) as api:
        stopping, started = asyncio.Event(), asyncio.Event()
        bot = asyncio.create_task(serve_telegram(url, api.base_url, api.token, until=stopping.wait,
                                                 ready=started.set, board="text"))
        await asyncio.wait([bot, asyncio.create_task(started.wait())], return_when=asyncio.FIRST_COMPLETED)
        if bot.done():
            bot.result()
        try:
            users = [api.user(f"P{n:02d}") for n in range(count)]
            host = api.user("Host")
            group = api.group("Round", members=[host, *users])
            # the round: posted, then everyone joins from their private chat
            posted = await api.send_text(host, group, "/round 10").reply(timeout=LIMIT)
            link = next(url for _, url in posted.links if "start=round-" in url)
            round_id = int(link.rpartition("-")[2])
            in_round = [RoundPlayer(user, api.private_chat(user), random.Random(seed * 31 + n), user.first_name)
                        for n, user in enumerate(users)]
            code = _code_of(str(url.database), round_id)
            for player in in_round:
                reply = await api.send_text(player.user, player.chat, f"/start round-{round_id}").reply(
                    timeout=LIMIT)
                read_board(player, reply, code)
            since = len(api.requests)
            await play(api, in_round, interval, taps)
            await asyncio.sleep(8)  # the round message's next turns (3.5 s apart) show the last moves
            lags = standings_lags(api, group, posted.message_id, in_round)
            later = api.requests[since:]
            round_edits = sum(1 for r in later if r.method == "editMessageText" and r.ok and r.chat_id == group.id)
            group_429 = sum(1 for r in later if r.status == 429 and r.chat_id == group.id)
            minutes = max(r.time for r in later) - min(r.time for r in later)
            # the same players alone: an ordinary game each, no round
            alone = [RoundPlayer(player.user, player.chat, random.Random(seed * 31 + n), player.name)
                     for n, player in enumerate(in_round)]
            for player in alone:
                dealt = str(GameCode(Rules.EASY, player.rng.randrange(DEAL_COUNT)))
                reply = await api.send_text(player.user, player.chat, f"/tripeaks {dealt}").reply(timeout=LIMIT)
                read_board(player, reply, dealt)
            await play(api, alone, interval, taps)
            return {
                "players": count, "interval_s": interval, "taps_each": taps,
                "round_taps": sum(len(p.toasts) for p in in_round),
                "round_toast": figures([t for p in in_round for t in p.toasts]),
                "alone_toast": figures([t for p in alone for t in p.toasts]),
                "standings_lag": figures(lags), "moves_shown": len(lags),
                "round_message_edits": round_edits, "edits_per_minute": round(round_edits * 60 / minutes, 1),
                "group_429": group_429, "all_429": sum(1 for r in api.requests if r.status == 429),
            }
        finally:
            stopping.set()
            await bot


def _code_of(path: str, round_id: int) -> str:
    """The round's deal, read from the bench's SQLite file (the bench plays it as the players' engine copy)."""
    with sqlite3.connect(path) as connection:
        (code,) = connection.execute("SELECT code FROM rounds WHERE id = ?", (round_id,)).fetchone()
    return str(code)


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

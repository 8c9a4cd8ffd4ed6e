"""Playing at a player's pace under Telegram's flood control: how long after a tap the board shows it. Run by hand:

    .venv/bin/python bench/load.py --telegram --flood [--taps 20] [--scenario group:3:1.5 ...] [--json]

The fake Bot API of the tests with Telegram's flood limits on (``FloodLimits``: about one message a second in a
chat, 20 a minute in a group, edits counting as sends, 429 with ``retry_after`` past them) and the real
python-telegram-bot Application of the bot at its production pace (``bot.adapters.telegram.pacing``), in the
bench's event loop, on a fresh SQLite database. In each scenario the players start a game with ``/tripeaks`` and
tap every ``interval`` seconds on schedule (a fitting card, else Draw, as bench/load.py's players choose), each tap
carrying the version of the game as it stands (a player reading the toast, not waiting for the board): a private
chat and a group with one player at 1 tap/s and at 1 tap/1.5 s, a group with two players at 1 tap/s each, and
groups of two and three players at 1 tap/1.5 s each (``--scenario WHERE:PLAYERS:INTERVAL``, repeated, picks some).

A tap's delay runs from its press until the fake records an edit of the board whose buttons carry that tap's
version or a later one (the board showing it); the figures are its p50, p99 and max over the taps, the 429s the
bot met, and the edits made (fewer than taps: the taps made while a board waits for its turn are shown by one
edit). A player's catch-up runs from their last tap until their board shows it; the figure is the longest.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

from bot.app.codec import decode, encode, game_command
from bot.app.commands import Move
from core.deal import DEAL_COUNT, GameCode, Rules
from core.game import DRAW, Action, Game, Tap

#: How long the bench waits for the last board to catch up before it calls the scenario stuck (seconds).
CATCH_UP_LIMIT = 120.0
#: The scenarios: where, how many players, seconds between one player's taps.
SCENARIOS: tuple[tuple[str, int, float], ...] = (
    ("private", 1, 1.0), ("private", 1, 1.5), ("group", 1, 1.0), ("group", 1, 1.5), ("group", 2, 1.0),
    ("group", 2, 1.5), ("group", 3, 1.5))


@dataclass
class FloodPlayer:
    """One player: their chat, the board message, their engine copy, and when each version was tapped."""

    user: Any
    chat: Any
    rng: random.Random
    message_id: int = 0
    game_id: int = 0
    version: int = 0
    game: Game | None = None
    #: version after the tap -> when it was pressed (time.time(), the fake's clock)
    tapped: dict[int, float] = field(default_factory=dict)


def shown_version(params: dict[str, Any]) -> int | None:
    """The version a board's edit shows: that its buttons carry; a large number for an ended game (no moves)."""
    markup = params.get("reply_markup")
    if not isinstance(markup, dict):
        return None
    for row in markup.get("inline_keyboard", []):
        for button in row:
            try:
                command = decode(button.get("callback_data") or "")
            except Exception:
                continue
            if isinstance(command, Move):
                return command.version
    return 1 << 30


async def start(api: Any, player: FloodPlayer) -> None:
    code = GameCode(Rules.EASY, player.rng.randrange(DEAL_COUNT))
    handle = api.send_text(player.user, player.chat, f"/tripeaks {code}")
    reply = await handle.reply(timeout=CATCH_UP_LIMIT)
    player.message_id = reply.message_id
    player.game = Game.from_code(str(code))
    for _, data in reply.buttons:
        command = decode(data) if data else None
        if isinstance(command, Move):
            player.game_id, player.version = command.game_id, command.version
            return
    raise RuntimeError("the game message carries no move")


def choose(game: Game, rng: random.Random) -> Action | None:
    """A fitting card, else Draw; None once the game is over or nothing is left."""
    if game.is_over:
        return None
    fits = [slot for slot in game.playable_slots() if game.fits(slot)]
    if fits:
        return Tap(rng.choice(fits))
    return DRAW if game.stock_left else None


async def tap_on_schedule(api: Any, player: FloodPlayer, begin: float, interval: float, taps: int) -> None:
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
        await press.answer(timeout=CATCH_UP_LIMIT)  # the toast: the tap counted
        player.game.push(action)
        player.version += 1
        player.tapped[player.version] = pressed


def delays(api: Any, player: FloodPlayer) -> list[float]:
    """For each tap, seconds from its press until an edit of the board showed its version or a later one."""
    edits = board_edits(api, player)
    found = []
    for version, pressed in sorted(player.tapped.items()):
        shown = next((at for at, seen in edits if seen is not None and seen >= version and at >= pressed), None)
        if shown is None:
            raise RuntimeError(f"the board of game {player.game_id} never showed version {version}")
        found.append(shown - pressed)
    return found


async def scenario(api: Any, where: str, count: int, interval: float, taps: int, seed: int) -> dict[str, Any]:
    from bench.load import percentile
    from tests.fakes.telegram_bot_api import FloodLimits

    users = [api.user(f"Flood {where} {count} {interval} {n}") for n in range(count)]
    chats = [api.private_chat(user) for user in users] if where == "private" else \
        [api.group(f"Flood {count} {interval}", members=users)] * count
    players = [FloodPlayer(user, chat, random.Random(seed * 7919 + n)) for n, (user, chat) in
               enumerate(zip(users, chats, strict=True))]
    api.flood_control = None  # the games start unhurried; the taps meet the limits
    for player in players:
        await start(api, player)
    api.flood_control = FloodLimits()
    since = len(api.requests)
    loop = asyncio.get_running_loop()
    begin = loop.time() + 0.5
    await asyncio.gather(*(tap_on_schedule(api, player, begin + n * interval / count, interval, taps)
                           for n, player in enumerate(players)))
    await api.wait_until(lambda: all(last_shown(api, player) >= player.version for player in players),
                         timeout=CATCH_UP_LIMIT, what="every board to show its last tap")
    found = [delay for player in players for delay in delays(api, player)]
    found.sort()
    catch_up = max(delays(api, player)[-1] for player in players if player.tapped)
    chat_ids = {player.chat.id for player in players}
    later = api.requests[since:]
    return {
        "chat": where, "players": count, "interval_s": interval, "taps": len(found),
        "p50_s": round(percentile(found, 0.50), 2), "p99_s": round(percentile(found, 0.99), 2),
        "max_s": round(found[-1], 2), "catch_up_s": round(catch_up, 2),
        "edits": sum(1 for r in later if r.method.startswith("editMessage") and r.ok and r.chat_id in chat_ids),
        "flood_429": sum(1 for r in later if r.status == 429 and r.chat_id in chat_ids),
    }


def board_edits(api: Any, player: FloodPlayer) -> list[tuple[float, int | None]]:
    """Each edit of the player's board made: when (the fake's clock) and the version it shows."""
    return [(request.time, shown_version(request.params)) for request in api.requests
            if request.method.startswith("editMessage") and request.ok
            and request.params.get("message_id") == player.message_id and request.chat_id == player.chat.id]


def last_shown(api: Any, player: FloodPlayer) -> int:
    versions = [version for _, version in board_edits(api, player)]
    return max((v for v in versions if v is not None), default=player.version - len(player.tapped))


async def run_flood(taps: int, seed: int, scenarios: tuple[tuple[str, int, float], ...] = SCENARIOS,
                    ) -> list[dict[str, Any]]:
    """Each scenario, one after the other, on one bot and one fake server."""
    from bench.load import fresh_database, serve_telegram
    from tests.fakes.telegram_bot_api import FakeBotAPI

    async with fresh_database("sqlite") as url, FakeBotAPI() as api:
        stopping, started = asyncio.Event(), asyncio.Event()
        bot = asyncio.create_task(serve_telegram(url, api.base_url, api.token, until=stopping.wait,
                                                 ready=started.set))
        await asyncio.wait([bot, asyncio.create_task(started.wait())], return_when=asyncio.FIRST_COMPLETED)
        if bot.done():
            bot.result()
        try:
            return [await scenario(api, where, count, interval, taps, seed)
                    for where, count, interval in scenarios]
        finally:
            stopping.set()
            await bot


def parse_scenario(text: str) -> tuple[str, int, float]:
    """``group:3:1.5``: where, how many players, seconds between one player's taps."""
    where, count, interval = text.split(":")
    if where not in ("private", "group") or (where == "private" and int(count) != 1):
        raise ValueError(f"not a scenario: {text} (private:1:S or group:N:S)")
    return where, int(count), float(interval)


def show_flood(rows: list[dict[str, Any]]) -> str:
    lines = ["| chat | players | a tap every | taps | p50 | p99 | max | catch-up | edits | 429s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['chat']} | {row['players']} | {row['interval_s']:g} s | {row['taps']} | "
                     f"{row['p50_s']:.2f} s | {row['p99_s']:.2f} s | {row['max_s']:.2f} s | {row['catch_up_s']:.2f} s | "
                     f"{row['edits']} | "
                     f"{row['flood_429']} |")
    return "\n".join(lines)

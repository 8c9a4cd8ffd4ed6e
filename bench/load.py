"""A player's tap under load: N players playing whole games at once through the service layer, on SQLite or
PostgreSQL. Run by hand:

    .venv/bin/python bench/load.py [--players 1000] [--rate 500] [--seconds 20] [--db sqlite|postgres]
                                   [--processes 1] [--hint-every 0] [--json] [--sweep] [--memory]
                                   [--telegram [--bot-in-process] [--board picture|text]]
                                   [--telegram --flood [--taps 20] [--scenario group:3:1.5 ...]]

Open loop: the taps arrive at ``--rate`` a second in all, whether or not earlier ones have been answered, as real
players' taps do. Each player taps every ``players / rate`` seconds (players staggered evenly); a tap's latency
runs from its scheduled arrival to its reply being ready, so a reply that comes late also delays (and is charged
to) that player's next tap, never hidden. Each player plays a real game: from their own copy of the engine they
pick a fitting card to tap (else draw; once the game is won or blocked, a new game with ``n``), send it with the
version they know, and update their copy from the reply.

Afterwards every game of the run is read back and compared with a replay of the actions its player got a reply
for: ``lost`` counts acknowledged actions missing from the stored game, ``doubled`` stored actions beyond them
(an action applied twice, or applied without a reply), ``mismatched`` games whose version or moves disagree.

``--processes P`` runs P OS processes, each with its own App on the one database, the players split
between them; their figures are aggregated. ``--sweep`` runs the bench at rising rates (a fresh database each)
and reports the highest one whose p99 stays within 30 ms. ``--memory`` reports the resident memory of a service
holding 10,000 stored games with 1,000 players playing.

Each run uses a fresh database: a SQLite file in a temporary folder, or ``tripeaks_bench_<pid>`` created on the
PostgreSQL server of ``--postgres-url`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``) and dropped
afterwards. The solver is replaced by one that answers nothing at once, so only the tap path is measured.

``--telegram`` plays the same open-loop load end to end through Telegram: the bench starts the fake Bot API server
of the tests (``tests/fakes/telegram_bot_api.py``) and the real python-telegram-bot Application of the bot
(``bot/telegram/app.py``, long polling, ``concurrent_updates``) against it, by default in a process of its own (the
bot gets its own core; ``--bot-in-process`` runs it in the bench's event loop instead, beside the fake). Each player
is a Telegram user in a private chat: ``/tripeaks CODE`` (a random deal) starts their game, and each tap is a press
of the button of the game message whose callback_data (``tp:g:<game>:<version>:<slot|d|n>``) carries the action
the player's engine copy picked. A tap's latency runs from its scheduled arrival until the fake has recorded both
the bot's answerCallbackQuery and its edit of the game message (what the player sees). The output adds
``"mode": "telegram"`` and the CPU time of the bench process (the fake server and the simulated players) and of
the bot's process; the consistency check reads the bot's database as above. ``--board picture`` (the default, as
for a new player) makes each board a photo (sendPhoto) and each tap an editMessageMedia with a new PNG drawn in a
worker thread; ``--board text`` gives the players the text board (editMessageText), for comparison.

``--telegram --flood`` plays at a player's pace under Telegram's flood control instead (bench/flood.py): for a
private chat and a group at 1 tap/s and 1 tap/1.5 s and groups of two and three players, the delay from a tap to
the board showing it, the catch-up after the last tap and the 429s met.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import multiprocessing
import os
import random
import re
import resource
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import select
from sqlalchemy.engine import URL, make_url

from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.commands import Actor, AskHint, Command
from bot.app.effects import Answer, EditBoard, Problem, SendBoard
from bot.app.model import DealVerdict, GameSnapshot, Hint, PlayerKey
from bot.app.solver_pool import Workers
from bot.store.database import open_database
from bot.store.migrate import upgrade_database
from bot.store.schema import ABANDONED, WON, games, players
from core.deal import DEAL_COUNT, GameCode, Rules
from core.game import Action, Game
from core.layout import SLOT_COUNT, STOCK_SIZE

PLATFORM = "bench"
TELEGRAM = "telegram"  # the platform the Telegram adapter stores its players under
DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
P99_TARGET_MS = 30.0
#: The webhook's secret when the bench runs the bot in webhook mode (bench/crowd.py --processes).
WEBHOOK_SECRET = "bench-webhook-secret"


# --- a solver that answers nothing, at once ------------------------------------------------------------------------

def no_verdict(code: str, budget: float, best: bool) -> DealVerdict | None:
    return None  # the service then stores nothing: no verdict write competes with the taps


def no_hint(state: str, budget: float) -> Hint:
    return Hint(None, None, None)


# --- databases ---------------------------------------------------------------------------------------------------

@contextlib.asynccontextmanager
async def fresh_database(kind: str, postgres_url: str = DEFAULT_POSTGRES_URL) -> AsyncIterator[URL]:
    """A migrated, empty database of ``kind``, removed afterwards."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="tripeaks-bench-") as folder:
            url = make_url(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}")
            await upgrade_database(url)
            yield url
        return
    import asyncpg

    admin = make_url(postgres_url).set(drivername="postgresql+asyncpg")
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"tripeaks_bench_{os.getpid()}"
    connection = await asyncpg.connect(dsn, timeout=10)
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    url = admin.set(database=name)
    try:
        await upgrade_database(url)
        yield url
    finally:
        connection = await asyncpg.connect(dsn, timeout=10)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()


class Refused(Exception):
    """The one door answered a tap with a private line (why it did nothing), not a board."""


async def tap(service: App, player: Any, command: Command) -> GameSnapshot:
    """``command`` from ``player`` through the application's one door, as a chat adapter sends it: the game the
    board now shows, or :class:`Refused` (named after the reason) when the tap did nothing."""
    effects = await service.flow.handle(Actor(player.key, player.name), command)
    for effect in effects:
        if isinstance(effect, EditBoard) and effect.notice is None or isinstance(effect, SendBoard):
            return effect.snapshot
        reason = effect.notice.error if isinstance(effect, EditBoard) and effect.notice is not None else (
            effect.content.error if isinstance(effect, Answer) and isinstance(effect.content, Problem) else effect)
        raise Refused(type(reason).__name__)
    raise Refused("nothing")


def open_service(db: Any, hints: bool = False) -> tuple[App, ThreadPoolExecutor]:
    """The service on ``db``: the solver answering nothing at once, or with ``hints`` the real fair advisor in one
    worker process for hints (the verdicts still answer nothing)."""
    executor = ThreadPoolExecutor(1)
    if hints:
        service = App(db, workers=Workers(interactive=1, background=1),
                      verdict_function=no_verdict)  # type: ignore[arg-type]
        service.solver.start()
        return service, executor
    service = App(db, executor=executor, hint_function=no_hint,
                          verdict_function=no_verdict)  # type: ignore[arg-type]
    return service, executor


async def ask_hint(service: App, player: Any, outcome: Outcome, due: float) -> None:
    """Hint pressed on the player's board: answered (advice shown), busy, or refused (counted by reason)."""
    loop = asyncio.get_running_loop()
    outcome.hints += 1
    effects = await service.flow.handle(Actor(player.key, player.name), AskHint(player.game_id, player.version))
    for effect in effects:
        if isinstance(effect, EditBoard) and effect.notice is None and effect.snapshot.hint is not None:
            if effect.snapshot.hint.busy:
                outcome.hints_busy += 1
            else:
                outcome.hint_latencies.append(loop.time() - due)
            return
    outcome.hints_refused += 1


# --- the players -------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    """What one process saw: latencies (seconds) of the taps answered, errors, and the acknowledged actions of
    every game it played (by game id, oldest first)."""

    latencies: list[float] = dataclasses.field(default_factory=list)
    errors: int = 0
    error_kinds: dict[str, int] = dataclasses.field(default_factory=dict)
    acked: dict[int, list[str]] = dataclasses.field(default_factory=dict)
    #: an action whose tap failed: it may or may not have been applied (game id -> action)
    uncertain: dict[int, str] = dataclasses.field(default_factory=dict)
    elapsed: float = 0.0
    #: hints pressed, and of them: answered (their latencies), busy, refused (one at a time, a share used up)
    hints: int = 0
    hint_latencies: list[float] = dataclasses.field(default_factory=list)
    hints_busy: int = 0
    hints_refused: int = 0

    def merge(self, other: Outcome) -> None:
        self.latencies += other.latencies
        self.hints += other.hints
        self.hint_latencies += other.hint_latencies
        self.hints_busy += other.hints_busy
        self.hints_refused += other.hints_refused
        self.errors += other.errors
        for kind, count in other.error_kinds.items():
            self.error_kinds[kind] = self.error_kinds.get(kind, 0) + count
        self.acked.update(other.acked)
        self.uncertain.update(other.uncertain)
        self.elapsed = max(self.elapsed, other.elapsed)


class Player:
    def __init__(self, index: int, seed: int) -> None:
        self.key = PlayerKey(PLATFORM, str(index))
        self.name = f"Bench {index}"
        self.rng = random.Random(seed * 1_000_003 + index)
        self.game_id = 0
        self.version = 0
        self.game: Game | None = None

    def follow(self, snapshot: GameSnapshot, outcome: Outcome) -> None:
        if snapshot.game_id != self.game_id:
            outcome.acked.setdefault(snapshot.game_id, [])
        self.game_id, self.version, self.game = snapshot.game_id, snapshot.version, snapshot.game.copy()

    def choose(self) -> str:
        assert self.game is not None
        return choose(self.game, self.rng)


def choose(game: Game, rng: random.Random) -> str:
    """A legal command from the player's own copy: a random fitting card, else draw; a new game once over."""
    if game.is_over:
        return "n"
    fitting = [s for s in range(SLOT_COUNT) if game.is_playable(s) and game.fits(s)]
    if fitting:
        return str(rng.choice(fitting))
    assert game.drawn < STOCK_SIZE
    return "d"


async def play(service: App, indices: list[int], total_players: int, rate: float, seconds: float,
               seed: int, ready: Any = None, hint_every: int = 0) -> Outcome:
    """Players ``indices`` (of ``total_players``) each start a game, then tap on schedule for ``seconds``; with
    ``hint_every`` n, every n-th action of a player is a press of Hint instead."""
    outcome = Outcome()
    people = [Player(i, seed) for i in indices]
    semaphore = asyncio.Semaphore(50)

    async def start(player: Player) -> None:
        async with semaphore:
            player.follow(await service.starts.new_game(player.key, player.name), outcome)

    await asyncio.gather(*(start(p) for p in people))
    if ready is not None:
        ready.wait()  # a multiprocessing barrier: every process starts its clock together
    loop = asyncio.get_running_loop()
    begin = loop.time() + 0.2
    end = begin + seconds
    period = total_players / rate

    async def run(player: Player, index: int) -> None:
        due = begin + (index % total_players) / rate
        action = index
        while due < end:
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            action += 1
            if hint_every and action % hint_every == 0 and player.game is not None and not player.game.is_over:
                await ask_hint(service, player, outcome, due)
                due += period
                continue
            command = player.choose()
            game_id = player.game_id
            try:
                snapshot = await tap(service, player, game_command(game_id, player.version, command))
            except Exception as error:  # counted, and the player picks up from the game as stored
                outcome.errors += 1
                kind = str(error) if isinstance(error, Refused) else type(error).__name__
                outcome.error_kinds[kind] = outcome.error_kinds.get(kind, 0) + 1
                if command != "n":
                    outcome.uncertain[game_id] = command
                with contextlib.suppress(Exception):
                    stored = await service.games.game(game_id)
                    player.version, player.game = stored.version, stored.game.copy()
            else:
                outcome.latencies.append(loop.time() - due)
                if command != "n":
                    if snapshot.outcome is None or not snapshot.outcome.ok:
                        raise AssertionError(f"a legal action was refused: {command} -> {snapshot.outcome}")
                    outcome.acked[game_id].append(command)
                player.follow(snapshot, outcome)
            due += period

    await asyncio.gather(*(run(p, i) for p, i in zip(people, indices, strict=True)))
    outcome.elapsed = max(seconds, loop.time() - begin)
    return outcome


# --- the consistency check ----------------------------------------------------------------------------------------

@dataclasses.dataclass
class Check:
    games: int = 0
    lost: int = 0
    doubled: int = 0
    mismatched: int = 0

    @property
    def consistent(self) -> bool:
        return self.lost == self.doubled == self.mismatched == 0


def compare(stored_state: str, version: int, status: str, active: bool, acked: list[str],
            uncertain: str | None = None) -> Check:
    """One stored game against the actions acknowledged to its player (see the module docstring)."""
    check = Check(games=1)
    stored = Game.from_text(stored_state)
    applied = [str(action) for action in stored.actions()]
    if uncertain is not None and applied == [*acked, uncertain]:
        acked = [*acked, uncertain]  # a failed tap that did commit: neither lost nor doubled
    common = 0
    for left, right in zip(applied, acked, strict=False):
        if left != right:
            break
        common += 1
    check.lost = len(acked) - common
    check.doubled = len(applied) - common
    expected = Game(stored.deal, stored.rules, stored.code)  # the deal as dealt, replayed
    for word in acked:
        if not expected.apply(Action.parse(word)).ok:
            check.mismatched = 1
            break
    else:
        if check.consistent and expected != stored:
            check.mismatched = 1
    bumps = 0 if active or status == WON else 1  # a game replaced by a new one (abandoned, or blocked) moved on
    if version != len(acked) + bumps or stored.moves != len(applied):
        check.mismatched = 1
    if status == ABANDONED and active:
        check.mismatched = 1
    return check


async def check_consistency(url: URL, acked: dict[int, list[str]],
                            uncertain: dict[int, str] | None = None, platform: str = PLATFORM) -> Check:
    """Every stored game of the bench's players (those of ``platform``) against a replay of its acknowledged
    actions."""
    uncertain = uncertain or {}
    db = await open_database(url, migrate=False)
    try:
        async with db.engine.connect() as connection:
            rows = (await connection.execute(
                select(games.c.id, games.c.state, games.c.version, games.c.status, games.c.active)
                .join_from(games, players, games.c.player_id == players.c.id)
                .where(players.c.platform == platform))).all()
    finally:
        await db.close()
    total = Check()
    seen = set()
    for row in rows:
        seen.add(row.id)
        one = compare(row.state, row.version, row.status, bool(row.active), acked.get(row.id, []),
                      uncertain.get(row.id))
        total.games += 1
        total.lost += one.lost
        total.doubled += one.doubled
        total.mismatched += one.mismatched
    missing = set(acked) - seen
    total.lost += sum(len(acked[game_id]) for game_id in missing)
    total.mismatched += len(missing)
    return total


# --- running it ---------------------------------------------------------------------------------------------------

def _child(url: str, indices: list[int], total: int, rate: float, seconds: float, seed: int, barrier: Any,
           results: Any, hint_every: int = 0) -> None:
    async def main() -> Outcome:
        db = await open_database(url, migrate=False)
        service, executor = open_service(db, hints=hint_every > 0)
        try:
            return await play(service, indices, total, rate, seconds, seed, barrier, hint_every)
        finally:
            await service.close()
            await db.close()
            executor.shutdown()

    try:
        results.put(dataclasses.asdict(asyncio.run(main())))
    except BaseException as error:
        results.put({"failed": repr(error)})
        raise


async def run_once(kind: str, total_players: int, rate: float, seconds: float, processes: int, seed: int,
                   postgres_url: str, tamper: bool = False, hint_every: int = 0) -> dict[str, Any]:
    async with fresh_database(kind, postgres_url) as url:
        outcome = Outcome()
        shares = [list(range(k, total_players, processes)) for k in range(processes)]
        if processes == 1:
            db = await open_database(url, migrate=False)
            service, executor = open_service(db, hints=hint_every > 0)
            try:
                outcome = await play(service, shares[0], total_players, rate, seconds, seed, hint_every=hint_every)
            finally:
                await service.close()
                await db.close()
                executor.shutdown()
        else:
            context = multiprocessing.get_context("spawn")
            barrier = context.Barrier(processes)
            results = context.Queue()
            rendered = url.render_as_string(hide_password=False)
            children = [context.Process(target=_child, args=(rendered, share, total_players, rate, seconds, seed,
                                                             barrier, results, hint_every))
                        for share in shares]
            for child in children:
                child.start()
            loop = asyncio.get_running_loop()
            for _ in children:
                got = await loop.run_in_executor(None, results.get)
                if "failed" in got:
                    raise RuntimeError(f"a bench process failed: {got['failed']}")
                part = Outcome(**got)
                part.acked = {int(k): v for k, v in part.acked.items()}
                part.uncertain = {int(k): v for k, v in part.uncertain.items()}
                outcome.merge(part)
            for child in children:
                await loop.run_in_executor(None, child.join)
        if tamper:
            await tamper_one(url, outcome.acked)
        check = await check_consistency(url, outcome.acked, outcome.uncertain)
    return summarise(kind, total_players, rate, seconds, processes, outcome, check)


async def tamper_one(url: URL, acked: dict[int, list[str]]) -> None:
    """Apply one extra action to a stored game behind the service's back (to show the check catches it)."""
    from sqlalchemy import update

    game_id = max(acked, key=lambda key: len(acked[key]))
    db = await open_database(url, migrate=False)
    try:
        async with db.engine.begin() as connection:
            state = (await connection.execute(select(games.c.state).where(games.c.id == game_id))).scalar_one()
            game = Game.from_text(state)
            action = next(a for a in game.legal_actions() if str(a) != "u")
            game.push(action)
            await connection.execute(update(games).where(games.c.id == game_id).values(state=game.to_text()))
    finally:
        await db.close()


# --- end to end through Telegram -----------------------------------------------------------------------------------

#: a game button's callback_data (see bot/payload.py)
GAME_PAYLOAD_RE = re.compile(r"^tp:g:(\d+):(\d+):(\d{1,2}|[dunh])$")
GAME_CODE_RE = re.compile(r"\bTP1-[ECN]-[A-Z]{7}\b")
#: how long a player waits for the bot's reply before counting the tap as failed
REPLY_TIMEOUT = 10.0


@dataclasses.dataclass
class _Expected:
    """What one player waits for from the bot: a new message in their chat (``query_id`` None), or the answer to
    the button press ``query_id`` and the edit of ``message_id``. ``done`` gets the loop time of the last of them."""

    done: asyncio.Future[float]
    query_id: str | None = None
    message_id: int = 0
    answered: float | None = None
    edited: float | None = None
    #: a toast with text is the whole answer (a refusal that edits nothing: bench/crowd.py's hints)
    toast_ends: bool = False

    def check(self) -> None:
        if self.answered is not None and self.edited is not None and not self.done.done():
            self.done.set_result(max(self.answered, self.edited))


def timed_bot_api() -> Any:
    """The fake Bot API of the tests, telling each waiting player the moment it records the bot's reply (the
    fake's own ``wait_until`` re-checks every waiter on every request: too slow for hundreds of players)."""
    from tests.fakes.telegram_bot_api import FakeBotAPI

    class TimedBotAPI(FakeBotAPI):
        def __init__(self) -> None:
            super().__init__()
            #: by chat id: what its player waits for
            self.expected: dict[int, _Expected] = {}

        def expect(self, chat_id: int, message_id: int = 0) -> _Expected:
            expected = _Expected(asyncio.get_running_loop().create_future(), message_id=message_id)
            self.expected[chat_id] = expected
            return expected

        def _sent(self, result: dict[str, Any]) -> dict[str, Any]:
            expected = self.expected.get(int(result["chat"]["id"]))
            if expected is not None and expected.query_id is None and not expected.done.done():
                expected.message_id = int(result["message_id"])
                expected.done.set_result(asyncio.get_running_loop().time())
            return result

        async def _m_send_message(self, params: Any) -> dict[str, Any]:
            return self._sent(await super()._m_send_message(params))

        async def _m_send_photo(self, params: Any) -> dict[str, Any]:
            return self._sent(await super()._m_send_photo(params))

        async def _m_answer_callback_query(self, params: Any) -> bool:
            result: bool = await super()._m_answer_callback_query(params)
            record = self.callback_queries[str(params.get("callback_query_id"))]
            expected = self.expected.get(record.chat.id)
            if expected is not None and expected.query_id == record.id:
                expected.answered = asyncio.get_running_loop().time()
                if expected.toast_ends and params.get("text"):
                    expected.edited = expected.answered
                expected.check()
            return result

        def _apply_edit(self, message: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
            result: dict[str, Any] = super()._apply_edit(message, *args, **kwargs)
            expected = self.expected.get(message.chat.id)
            if expected is not None and expected.query_id is not None and expected.message_id == message.message_id:
                expected.edited = asyncio.get_running_loop().time()
                expected.check()
            return result

    return TimedBotAPI()


class TelegramPlayer:
    """A Telegram user playing in their private chat with the bot, from their own copy of the engine and the
    buttons of the game message as the fake shows it."""

    def __init__(self, api: Any, index: int, seed: int) -> None:
        self.api = api
        self.user = api.user(f"Bench {index}", language_code="en")
        self.chat = api.private_chat(self.user)
        self.rng = random.Random(seed * 1_000_003 + index)
        self.message_id = 0
        self.game_id = 0
        self.version = 0
        self.game: Game | None = None
        #: command -> callback_data of the game message's buttons
        self.buttons: dict[str, str] = {}
        self.stopped = False

    def read(self, message: Any) -> None:
        """The game, version and buttons the message shows."""
        self.buttons = {}
        for _, data in message.buttons:
            match = GAME_PAYLOAD_RE.match(data or "")
            if match:
                self.game_id, self.version = int(match.group(1)), int(match.group(2))
                self.buttons[match.group(3)] = data

    def new_game(self, message: Any, outcome: Outcome) -> bool:
        """Follow a new game shown in ``message``: the engine copy from the code in its header."""
        found = GAME_CODE_RE.search(message.text)
        if found is None:
            return False
        self.game = Game.from_code(found.group())
        outcome.acked.setdefault(self.game_id, [])
        return True

    def fail(self, outcome: Outcome, kind: str, command: str | None = None) -> None:
        """Count an error; the player stops (what the bot did with the tap is left to the consistency check)."""
        outcome.errors += 1
        outcome.error_kinds[kind] = outcome.error_kinds.get(kind, 0) + 1
        if command is not None and command != "n" and self.game_id:
            outcome.uncertain[self.game_id] = command
        self.stopped = True

    async def start(self, outcome: Outcome, timeout: float) -> None:
        """``/tripeaks CODE`` with a random deal; the bot's reply is the game message."""
        code = str(GameCode(Rules.EASY, self.rng.randrange(DEAL_COUNT)))
        expected = self.api.expect(self.chat.id)
        self.api.send_text(self.user, self.chat, f"/tripeaks {code}")
        try:
            await asyncio.wait_for(asyncio.shield(expected.done), timeout)
        except TimeoutError:
            self.fail(outcome, "NoGameMessage")
            return
        self.message_id = expected.message_id
        message = self.api.message(self.chat, self.message_id)
        self.read(message)
        if not self.buttons or not self.new_game(message, outcome):
            self.fail(outcome, "BadGameMessage")

    async def tap(self, due: float, outcome: Outcome, timeout: float) -> None:
        """Press the button carrying the action the engine copy picks; wait for the answer and the edit."""
        assert self.game is not None
        loop = asyncio.get_running_loop()
        command = choose(self.game, self.rng)
        data = self.buttons.get(command)
        if data is None:
            self.fail(outcome, "NoButton")
            return
        game_id, version = self.game_id, self.version
        expected = self.api.expect(self.chat.id, self.message_id)
        expected.query_id = self.api.press(self.user, self.chat, self.message_id, data).query_id
        try:
            done = await asyncio.wait_for(asyncio.shield(expected.done), max(0.0, due + timeout - loop.time()))
        except TimeoutError:
            self.fail(outcome, "Timeout", command)
            return
        message = self.api.message(self.chat, self.message_id)
        self.read(message)
        if command == "n":
            if self.game_id == game_id or not self.new_game(message, outcome):
                self.fail(outcome, "NoNewGame")
                return
        else:
            if (self.game_id, self.version) != (game_id, version + 1):  # refused, or an older board shown since
                self.fail(outcome, "Refused", command)
                return
            if not self.game.apply(Action.parse(command)).ok:
                raise AssertionError(f"the bench's engine copy refused its own choice {command}")
            outcome.acked[game_id].append(command)
        outcome.latencies.append(done - due)


async def play_telegram(api: Any, total_players: int, rate: float, seconds: float, seed: int,
                        timeout: float = REPLY_TIMEOUT, clock: Callable[[], None] = lambda: None) -> Outcome:
    """Every player starts a game, then taps on schedule for ``seconds``; ``clock()`` is called as the taps'
    clock starts (after the games have started)."""
    outcome = Outcome()
    people = [TelegramPlayer(api, i, seed) for i in range(total_players)]
    semaphore = asyncio.Semaphore(50)

    async def start(player: TelegramPlayer) -> None:
        async with semaphore:
            await player.start(outcome, timeout)

    await asyncio.gather(*(start(p) for p in people))
    loop = asyncio.get_running_loop()
    begin = loop.time() + 0.2
    end = begin + seconds
    period = total_players / rate
    clock()

    async def run(player: TelegramPlayer, index: int) -> None:
        due = begin + index / rate
        while due < end and not player.stopped:
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            await player.tap(due, outcome, timeout)
            due += period

    await asyncio.gather(*(run(p, i) for i, p in enumerate(people)))
    outcome.elapsed = max(seconds, loop.time() - begin)
    return outcome


async def run_application(service: App, api_url: str, token: str, until: Callable[[], Awaitable[Any]],
                          ready: Callable[[], None], webhook: tuple[str, int] | None = None) -> None:
    """The bot's Telegram adapter over ``service`` as ``tripeaks run`` starts it (long polling; with ``webhook``, the
    public URL and the local port, a webhook as behind a reverse proxy), until ``until()`` returns."""
    from bot.adapters.telegram.app import build_application, start, stop
    from bot.config import Config

    hook = {} if webhook is None else {
        "telegram_webhook_url": webhook[0], "telegram_webhook_secret": WEBHOOK_SECRET,
        "telegram_webhook_listen": "127.0.0.1", "telegram_webhook_port": webhook[1]}
    application = build_application(service.flow, Config(telegram_token=token, telegram_api_url=api_url, **hook))
    try:
        await start(application)
        ready()
        await until()
    finally:
        await stop(application)


async def serve_telegram(url: str | URL, api_url: str, token: str, until: Callable[[], Awaitable[Any]],
                         ready: Callable[[], None] = lambda: None, board: str = "picture") -> None:
    """The bot's Telegram adapter on the bench's service (the solver answering nothing), until ``until()``
    returns; its new players have the ``board`` setting (picture or text)."""
    from bot.store import players

    players.NEW_PLAYER["board_style"] = board

    db = await open_database(url, migrate=False)
    service, executor = open_service(db)
    try:
        await run_application(service, api_url, token, until, ready)
    finally:
        await service.close()
        await db.close()
        executor.shutdown()


def _telegram_child(url: str, api_url: str, token: str, board: str, ready: Any, stop: Any) -> None:
    """The bot's own process: serve until the bench sets ``stop``."""
    logging.basicConfig(level=logging.WARNING, format="bot process: %(levelname)s %(name)s: %(message)s")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        await serve_telegram(url, api_url, token, until=lambda: loop.run_in_executor(None, stop.wait),
                             ready=ready.set, board=board)

    asyncio.run(main())


@contextlib.asynccontextmanager
async def bot_process(target: Callable[..., None], *args: Any) -> AsyncIterator[multiprocessing.Process]:
    """``target(*args, ready, stop)`` in a process of its own (spawned), once it has set ``ready``; on leaving,
    ``stop`` is set and the process waited for (:class:`RuntimeError` unless it ends well)."""
    loop = asyncio.get_running_loop()
    context = multiprocessing.get_context("spawn")
    ready, stop = context.Event(), context.Event()
    child = context.Process(target=target, name="tripeaks bench bot", args=(*args, ready, stop))
    child.start()
    try:
        while not await loop.run_in_executor(None, ready.wait, 0.2):
            if not child.is_alive():
                raise RuntimeError(f"the bot process failed to start (exit code {child.exitcode})")
        yield child
    finally:
        stop.set()
        await loop.run_in_executor(None, child.join, 30)
        if child.is_alive():
            child.terminate()
            await loop.run_in_executor(None, child.join)
    if child.exitcode != 0:
        raise RuntimeError(f"the bot process ended with exit code {child.exitcode}")


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process ``pid`` so far (None if it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run_telegram(kind: str, total_players: int, rate: float, seconds: float, seed: int, postgres_url: str,
                       in_process: bool = False, timeout: float = REPLY_TIMEOUT,
                       board: str = "picture") -> dict[str, Any]:
    """One run of the Telegram mode (see the module docstring)."""
    cpu: dict[str, float | None] = {}

    def measure(when: str, pid: int | None = None) -> None:
        cpu[f"bench_{when}"] = time.process_time()  # all of this process's threads
        cpu[f"bot_{when}"] = None if pid is None else cpu_seconds(pid)

    async with fresh_database(kind, postgres_url) as url:
        api = timed_bot_api()
        await api.start()
        try:
            if in_process:
                stopping = asyncio.Event()
                started = asyncio.Event()
                bot = asyncio.create_task(serve_telegram(url, api.base_url, api.token, until=stopping.wait,
                                                         ready=started.set, board=board))
                await asyncio.wait([bot, asyncio.create_task(started.wait())], return_when=asyncio.FIRST_COMPLETED)
                if bot.done():
                    bot.result()  # raises what stopped it
                try:
                    outcome = await play_telegram(api, total_players, rate, seconds, seed, timeout,
                                                  clock=lambda: measure("begin"))
                    measure("end")
                finally:
                    stopping.set()
                    await bot
            else:
                async with bot_process(_telegram_child, url.render_as_string(hide_password=False), api.base_url,
                                       api.token, board) as child:
                    pid = child.pid
                    outcome = await play_telegram(api, total_players, rate, seconds, seed, timeout,
                                                  clock=lambda: measure("begin", pid))
                    measure("end", pid)
        finally:
            await api.stop()
        check = await check_consistency(url, outcome.acked, outcome.uncertain, platform=TELEGRAM)
    result = summarise(kind, total_players, rate, seconds, 1, outcome, check, mode=TELEGRAM)
    result["bot"] = "in-process" if in_process else "own process"
    result["board"] = board
    bench_cpu = (cpu["bench_end"] or 0.0) - (cpu["bench_begin"] or 0.0)
    bot_end, bot_begin = cpu["bot_end"], cpu["bot_begin"]
    bot_cpu = None if bot_end is None or bot_begin is None else bot_end - bot_begin
    result["bench_cpu_s"] = round(bench_cpu, 2)
    result["bench_cpu_percent"] = round(100 * bench_cpu / outcome.elapsed, 1)
    result["bot_cpu_s"] = None if bot_cpu is None else round(bot_cpu, 2)
    result["bot_cpu_percent"] = None if bot_cpu is None else round(100 * bot_cpu / outcome.elapsed, 1)
    taps = max(1, len(outcome.latencies))
    result["bench_cpu_ms_per_tap"] = round(1000 * bench_cpu / taps, 2)
    result["bot_cpu_ms_per_tap"] = None if bot_cpu is None else round(1000 * bot_cpu / taps, 2)
    result["unanswered"] = len(api.unanswered_callbacks())
    return result


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def summarise(kind: str, total_players: int, rate: float, seconds: float, processes: int, outcome: Outcome,
              check: Check, mode: str = "service") -> dict[str, Any]:
    taps = len(outcome.latencies)
    return {
        "mode": mode, "db": kind, "players": total_players, "taps": taps,
        "taps_per_s": round(taps / outcome.elapsed, 1) if outcome.elapsed else 0.0,
        "p50_ms": round(percentile(outcome.latencies, 0.50) * 1000, 2),
        "p95_ms": round(percentile(outcome.latencies, 0.95) * 1000, 2),
        "p99_ms": round(percentile(outcome.latencies, 0.99) * 1000, 2),
        "errors": outcome.errors, "lost": check.lost, "doubled": check.doubled,
        "mismatched": check.mismatched, "games_checked": check.games, "consistent": check.consistent,
        "rate": rate, "seconds": seconds, "processes": processes, "error_kinds": outcome.error_kinds,
        "hints": outcome.hints, "hints_answered": len(outcome.hint_latencies), "hints_busy": outcome.hints_busy,
        "hints_refused": outcome.hints_refused,
        "hint_p50_ms": round(percentile(outcome.hint_latencies, 0.50) * 1000, 1),
        "hint_p99_ms": round(percentile(outcome.hint_latencies, 0.99) * 1000, 1),
        "load_average": [round(load, 2) for load in os.getloadavg()],
    }


def show(result: dict[str, Any]) -> str:
    if result.get("mode") == TELEGRAM:
        where = "bot in the bench's process" if result["bot"] == "in-process" else "bot in its own process"
        bot_cpu = "" if result["bot_cpu_s"] is None else (
            f", bot {result['bot_cpu_s']:.1f} s ({result['bot_cpu_percent']:.0f}% of a core)")
        inside = "fake Bot API + players + bot" if result["bot"] == "in-process" else "fake Bot API + players"
        return (f"telegram ({where}, {result['board']} board), {result['db']}, {show_taps(result)}; CPU: bench ({inside}) "
                f"{result['bench_cpu_s']:.1f} s ({result['bench_cpu_percent']:.0f}% of a core){bot_cpu}")
    hints = "" if not result.get("hints") else (
        f"; hints {result['hints']}: answered {result['hints_answered']} (p50 {result['hint_p50_ms']:.0f} ms, p99 "
        f"{result['hint_p99_ms']:.0f} ms), busy {result['hints_busy']}, refused {result['hints_refused']}")
    return (f"{result['db']}, {result['processes']} process(es), {show_taps(result)}{hints}; load average "
            f"{' '.join(f'{load:g}' for load in result['load_average'])}")


def show_taps(result: dict[str, Any]) -> str:
    return (f"{result['players']} players, offered "
            f"{result['rate']:g} taps/s for {result['seconds']:g} s: {result['taps']} taps, "
            f"{result['taps_per_s']:.0f} taps/s; latency p50 {result['p50_ms']:.1f} ms, p95 {result['p95_ms']:.1f} "
            f"ms, p99 {result['p99_ms']:.1f} ms; errors {result['errors']}"
            f"{' ' + str(result['error_kinds']) if result['error_kinds'] else ''}; consistency over "
            f"{result['games_checked']} games: lost {result['lost']}, doubled {result['doubled']}, mismatched "
            f"{result['mismatched']} ({'OK' if result['consistent'] else 'FAILED'})")


def sweep_rates(start: float) -> Iterable[float]:
    rate = start
    while True:
        yield rate
        rate = max(rate + 25, round(rate * 1.25 / 25) * 25)  # 25 at least: from 50, 62.5 would round back down


async def sweep(args: argparse.Namespace) -> dict[str, Any]:
    """Rising rates until one fails p99 <= 30 ms in each of ``--tries`` runs (the machine is shared: a run may be
    slowed by others' work); the highest rate that held, with its best run."""
    best: dict[str, Any] | None = None
    for rate in sweep_rates(args.sweep_from):
        held: dict[str, Any] | None = None
        for _ in range(args.tries):
            result = await run_args(args, rate)
            if not args.json:
                print(show(result), flush=True)
            if result["errors"] or not result["consistent"]:
                break
            if result["p99_ms"] <= P99_TARGET_MS and result["taps_per_s"] >= 0.95 * rate:
                held = result
                break
        if held is None:
            break
        best = held
    return {"mode": TELEGRAM if args.telegram else "service", "db": args.db, "processes": args.processes,
            "players": args.players, "max_rate_p99_30ms": best["rate"] if best else None, "at_max": best}


async def run_args(args: argparse.Namespace, rate: float) -> dict[str, Any]:
    """One run as the command line asks, at ``rate``."""
    if args.telegram:
        return await run_telegram(args.db, args.players, rate, args.seconds, args.seed, args.postgres_url,
                                  in_process=args.bot_in_process, board=args.board)
    return await run_once(args.db, args.players, rate, args.seconds, args.processes, args.seed, args.postgres_url,
                          hint_every=args.hint_every)


# --- memory -------------------------------------------------------------------------------------------------------

def rss_mib() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MiB."""
    found = {"VmRSS": 0.0, "VmHWM": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    with contextlib.suppress(OSError), open("/proc/self/status") as status:
        for line in status:
            key = line.split(":")[0]
            if key in found:
                found[key] = int(line.split()[1]) / 1024
    return found["VmRSS"], found["VmHWM"]


async def memory(args: argparse.Namespace) -> dict[str, Any]:
    """10,000 stored games (ten a player, nine of them ended), 1,000 players playing for ``--seconds``."""
    before = rss_mib()[0]
    async with fresh_database(args.db, args.postgres_url) as url:
        db = await open_database(url, migrate=False)
        service, executor = open_service(db)
        try:
            semaphore = asyncio.Semaphore(50)

            async def games_of(index: int) -> None:
                async with semaphore:
                    for _ in range(9):
                        await service.starts.new_game(PlayerKey(PLATFORM, str(index)), f"Bench {index}")

            await asyncio.gather(*(games_of(i) for i in range(1000)))
            outcome = await play(service, list(range(1000)), 1000, args.rate, args.seconds, args.seed)
            async with db.engine.connect() as connection:
                stored = len((await connection.execute(select(games.c.id))).all())
            current, peak = rss_mib()
        finally:
            await service.close()
            await db.close()
            executor.shutdown()
    return {"db": args.db, "stored_games": stored, "active_players": 1000, "taps": len(outcome.latencies),
            "rss_mib": round(current, 1), "peak_rss_mib": round(peak, 1), "rss_before_mib": round(before, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=500.0, help="taps a second offered, all players together")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long taps are offered")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--processes", type=int, default=1, help="bot processes, each with its own service")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL,
                        help="a database on the server where the bench creates its own")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hint-every", type=int, default=0,
                        help="every n-th action of a player is a press of Hint, answered by the real fair advisor "
                             "(one solver worker in each process); 0: no hints")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--sweep", action="store_true",
                        help=f"raise the rate until p99 exceeds {P99_TARGET_MS:g} ms; report the highest that held")
    parser.add_argument("--sweep-from", type=float, default=300.0, help="the sweep's first rate")
    parser.add_argument("--tries", type=int, default=2, help="runs at a rate before the sweep gives it up")
    parser.add_argument("--memory", action="store_true",
                        help="resident memory with 10,000 stored games and 1,000 players playing")
    parser.add_argument("--telegram", action="store_true",
                        help="end to end: the real Telegram Application against the fake Bot API, players pressing "
                             "buttons")
    parser.add_argument("--board", choices=("picture", "text"), default="picture",
                        help="with --telegram: the players' board setting (default picture, as for a new player: "
                             "each board a photo, each tap an editMessageMedia)")
    parser.add_argument("--flood", action="store_true",
                        help="with --telegram: a few players under Telegram's flood control, the delay from a tap to "
                             "the board showing it (bench/flood.py)")
    parser.add_argument("--taps", type=int, default=20, help="with --flood: taps of each player in each scenario")
    parser.add_argument("--scenario", action="append", default=[], metavar="WHERE:PLAYERS:INTERVAL",
                        help="with --flood: only this scenario (repeatable), e.g. group:3:1.5")
    parser.add_argument("--bot-in-process", action="store_true",
                        help="with --telegram: run the bot in the bench's event loop, beside the fake server "
                             "(default: a process of its own)")
    args = parser.parse_args()
    if args.telegram and (args.processes != 1 or args.memory):
        parser.error("--telegram runs one bot process: no --processes or --memory")
    if args.flood:
        if not args.telegram:
            parser.error("--flood goes with --telegram")
        from bench.flood import SCENARIOS, parse_scenario, run_flood, show_flood

        chosen = tuple(parse_scenario(text) for text in args.scenario) or SCENARIOS
        rows = asyncio.run(run_flood(args.taps, args.seed, chosen))
        print(json.dumps(rows) if args.json else show_flood(rows))
        return
    if args.memory:
        result = asyncio.run(memory(args))
        print(json.dumps(result) if args.json else
              f"{result['db']}: {result['stored_games']} stored games, {result['active_players']} players "
              f"playing ({result['taps']} taps): RSS {result['rss_mib']:.1f} MiB (peak {result['peak_rss_mib']:.1f}"
              f" MiB; {result['rss_before_mib']:.1f} MiB before the service opened)")
        return
    if args.sweep:
        result = asyncio.run(sweep(args))
        print(json.dumps(result) if args.json else
              f"highest rate with p99 <= {P99_TARGET_MS:g} ms: {result['max_rate_p99_30ms']} taps/s")
        return
    result = asyncio.run(run_args(args, args.rate))
    print(json.dumps(result) if args.json else show(result))
    if not result["consistent"] or result["errors"]:
        sys.exit(1)


if __name__ == "__main__":
    main()

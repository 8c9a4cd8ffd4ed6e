"""Issue 38, point 6: reading never waits behind a write, the statistics are counted by the database, and every
statement of the hot paths finds its rows through an index."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random
import re
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, event, insert, select, text
from sqlalchemy.exc import DBAPIError

from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.commands import ExplainRefusals
from bot.app.model import PlayerKey, Stats
from bot.app.players import Players
from bot.store.engine import Database
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, WON, games, players, utcnow
from core.deal import GameCode
from core.game import DRAW
from tests.app_helpers import act, challenge

ALICE = PlayerKey("telegram", "1")
BOB = PlayerKey("telegram", "2")
DAY = dt.date(2026, 12, 3)
GROUP = "-100"
#: A failure bound only (a read queued behind the writer would never end): nothing waits for it to pass.
DEADLOCK = 30


async def test_a_read_completes_while_a_write_transaction_is_open(database: Database) -> None:
    """A settings lookup while another transaction of the same process has written and not committed: it
    answers at once, with what was committed (on SQLite it used to queue behind the writer)."""
    players_ = Players(database)
    await players_.change_setting(ALICE, "Alice", ExplainRefusals(True))
    written, read = asyncio.Event(), asyncio.Event()

    async def writer() -> None:
        async with database.transaction() as tx:
            await tx.execute(text("UPDATE players SET explain_refusals = false"))
            written.set()
            await read.wait()  # the write lock is held until the read has finished

    async def reader() -> bool:
        await written.wait()
        explain = (await players_.get_settings(ALICE)).explain_refusals
        read.set()
        return explain

    _, explain = await asyncio.wait_for(asyncio.gather(writer(), reader()), DEADLOCK)
    assert explain is True  # the committed value: the open write is not seen
    assert (await players_.get_settings(ALICE)).explain_refusals is False  # and once committed, it is


@contextlib.contextmanager
def write_lock_held(path: str) -> Iterator[None]:
    """Another connection (as another process would) holds the SQLite file's write lock, with a write pending."""
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("UPDATE players SET display_name = 'changed'")
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_reads_do_not_wait_for_another_connections_write_lock(service: App) -> None:
    """Settings, the current game, the statistics and the leaderboard answer while another connection holds the
    write lock: reads take no lock (they used to wait the busy timeout and fail with "database is locked")."""
    service.daily_codes.clock = lambda: dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
    started = await service.starts.new_daily_game(ALICE, "Alice", DAY, community=GROUP)
    await act(service, ALICE, "Alice", game_command(started.game_id, started.version, str(DRAW)))
    path = service.db.url.database
    assert path is not None
    with write_lock_held(path):
        with pytest.raises(sqlite3.OperationalError, match="locked"):  # the lock is real: no other writer gets it
            sqlite3.connect(path, timeout=0, isolation_level=None).execute("BEGIN IMMEDIATE")
        settings = await asyncio.wait_for(service.players.get_settings(ALICE), DEADLOCK)
        current = await asyncio.wait_for(service.games.current_game(ALICE), DEADLOCK)
        stats = await asyncio.wait_for(service.players.stats(ALICE), DEADLOCK)
        board = await asyncio.wait_for(service.leaderboards.of("telegram", GROUP, DAY), DEADLOCK)
    assert settings.explain_refusals and current is not None and current.game.moves == 1
    assert stats == Stats(games=0, wins=0, best_score=None, current_streak=0, longest_streak=0)
    assert [(r.name, r.moves) for r in board] == [("Alice", 1)]


async def test_a_read_only_transaction_refuses_to_write(database: Database) -> None:
    with pytest.raises(DBAPIError):
        async with database.reading() as tx:
            await tx.execute(insert(players).values(platform="telegram", user_id="9", created_at=utcnow()))
    async with database.transaction() as tx:  # the connection it used writes again afterwards
        await tx.execute(insert(players).values(platform="telegram", user_id="9", created_at=utcnow()))
    async with database.reading() as tx:
        assert (await tx.execute(select(players.c.user_id))).scalars().all() == ["9"]


# --- the statistics, counted by the database -------------------------------------------------------------------


def python_stats(rows: list[tuple[str, int, int]]) -> Stats:
    """The statistics as the bot computed them before, from every ended game ``(status, score, moves)`` in the
    order they ended, read one by one: the reference."""
    played = wins = best_run = run = 0
    best: int | None = None
    for status, score, moves in rows:
        if moves == 0:
            continue
        played += 1
        if status == WON:
            wins += 1
            run += 1
            best_run = max(best_run, run)
        else:
            run = 0
        if status in (WON, BLOCKED):
            best = score if best is None else max(best, score)
    return Stats(games=played, wins=wins, best_score=best, current_streak=run, longest_streak=best_run)


def random_history(rng: random.Random, player_id: int) -> list[dict[str, Any]]:
    """A player's games: wins in runs, losses, games abandoned with and without a move, one still playing; end
    times with ties (the game's id then orders them), in an order unrelated to the ids."""
    start = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    rows = []
    for _ in range(rng.randrange(0, 40)):
        status = rng.choice([WON, WON, WON, BLOCKED, ABANDONED])
        moves = 0 if status == ABANDONED and rng.random() < 0.4 else rng.randrange(1, 80)
        finished = start + dt.timedelta(minutes=rng.randrange(0, 60))
        rows.append({"player_id": player_id, "code": "TP1-E-AAAAAAB", "rules": "easy", "state": "-",
                     "status": status, "active": False, "score": rng.randrange(300, 1200), "moves": moves,
                     "started_at": start, "updated_at": finished, "finished_at": finished})
    if rng.random() < 0.5:
        rows.append({"player_id": player_id, "code": "TP1-E-AAAAAAB", "rules": "easy", "state": "-",
                     "status": PLAYING, "active": True, "score": 480, "moves": 20, "started_at": start,
                     "updated_at": start, "finished_at": None})
    rng.shuffle(rows)
    return rows


async def test_the_statistics_counted_by_the_database_are_the_old_computations(database: Database) -> None:
    rng = random.Random(38)
    keys = [PlayerKey("discord", str(n)) for n in range(40)]
    async with database.transaction() as tx:
        for key in keys:
            player_id = (await tx.execute(insert(players).values(
                platform=key.platform, user_id=key.user_id, created_at=utcnow()).returning(players.c.id))).scalar_one()
            history = random_history(rng, player_id)
            if history:
                await tx.execute(insert(games), history)
    players_ = Players(database)
    checked = set()
    for key in keys:
        async with database.reading() as tx:
            rows = (await tx.execute(
                select(games.c.status, games.c.score, games.c.moves)
                .join_from(games, players, games.c.player_id == players.c.id)
                .where(players.c.user_id == key.user_id, games.c.status != PLAYING)
                .order_by(games.c.finished_at, games.c.id))).all()
        expected = python_stats([(row.status, row.score, row.moves) for row in rows])
        assert await players_.stats(key) == expected, key
        checked.add((expected.games > 0, expected.current_streak > 0, expected.longest_streak > 1))
    assert len(checked) >= 4  # empty histories, runs still going and runs broken were all among them
    assert await players_.stats(PlayerKey("discord", "nobody")) == python_stats([])


# --- every statement of the hot paths has an index to use -----------------------------------------------------


@contextlib.contextmanager
def statements_of(db: Database) -> Iterator[list[tuple[str, Any]]]:
    """Every statement ``db`` runs inside the block, with its parameters."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Connection, _cursor: Any, statement: str, parameters: Any, _context: Any,
               executemany: bool) -> None:
        seen.append((statement, parameters[0] if executemany else parameters))

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)


#: The tables (and their aliases in the store's statements) a hot path must never read whole.
_TABLES = r"(games|players|community_players|challenged|challenger)"


def reads_too_much(statement: str, step: str) -> bool:
    """Whether a step of SQLite's plan reads a table (or an index) whole, searches players by platform alone
    (every player of a platform), or sorts for a LIMIT what an index could have given in order."""
    return bool(re.match(rf"SCAN {_TABLES}\b", step) or re.search(r"\(platform=\?\)", step)
                or ("LIMIT" in statement and "TEMP B-TREE FOR ORDER BY" in step))


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_every_statement_of_the_hot_paths_searches_an_index(service: App) -> None:
    """Settings and locale lookups, the current and the latest game, a game by id, a challenge started and shown,
    the statistics, the leaderboard, a daily attempt started and a tap: SQLite's plan for each statement they run reads no table whole and sorts
    nothing an index orders."""
    service.daily_codes.clock = lambda: dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
    service.daily_codes.function = lambda day, secret: GameCode.parse("TP1-E-AAAAAAC")
    attempt = await service.starts.new_daily_game(ALICE, "Alice", DAY, community=GROUP)
    await act(service, ALICE, "Alice", game_command(attempt.game_id, attempt.version, str(DRAW)))
    shared = await service.starts.new_game(ALICE, "Alice", code="TP1-E-AAAAAAB")
    await act(service, ALICE, "Alice", game_command(shared.game_id, shared.version, str(DRAW)))
    with statements_of(service.db) as seen:
        await service.players.get_settings(ALICE)
        await service.games.current_game(ALICE)
        await service.games.latest_game(ALICE)  # the invitations read the latest game
        await service.games.game(attempt.game_id)
        challenged = await service.starts.start(BOB, "Bob", await challenge(service, shared.game_id))
        await service.games.game(challenged.game_id)
        await service.players.stats(ALICE)
        await service.leaderboards.of("telegram", GROUP, DAY)
        daily = await service.starts.new_daily_game(BOB, "Bob", DAY, community=GROUP)  # the attempt looked up, started
        await act(service, BOB, "Bob", game_command(daily.game_id, daily.version, str(DRAW)))  # and a tap
    plans = []
    async with service.db.reading() as tx:
        for statement, parameters in seen:
            if not statement.lstrip().upper().startswith(("SELECT", "WITH", "UPDATE", "DELETE", "INSERT")):
                continue
            steps = (await tx.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)).all()
            plans.append((statement, [str(step[-1]) for step in steps]))
    assert any("tripeaks" not in s and "ORDER BY games.id DESC" in s for s, _ in plans)  # latest_of was run
    assert any("OVER (ORDER BY" in s for s, _ in plans)  # the statistics were counted by the database
    slow = [(statement, steps) for statement, steps in plans if any(reads_too_much(statement, step) for step in steps)]
    assert not slow, "\n\n".join(f"{s}\n  {steps}" for s, steps in slow)

"""Issue 38, point 6: reading never waits behind a write, and the statistics are counted by the database."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import insert, select, text
from sqlalchemy.exc import DBAPIError

from bot.app.codec import game_command
from bot.app.model import PlayerKey, Stats
from bot.app.players import Players
from bot.app.service import GameService
from bot.store.engine import Database
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, WON, games, players, utcnow
from core.game import DRAW

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
    await players_.update_settings(ALICE, name="Alice", explain_refusals=True)
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
async def test_reads_do_not_wait_for_another_connections_write_lock(service: GameService) -> None:
    """Settings, the current game, the statistics and the leaderboard answer while another connection holds the
    write lock: reads take no lock (they used to wait the busy timeout and fail with "database is locked")."""
    service.daily_codes.clock = lambda: dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
    started = await service.new_daily_game(ALICE, "Alice", DAY, community=GROUP)
    await service.act(ALICE, "Alice", game_command(started.game_id, started.version, str(DRAW)))
    path = service.db.url.database
    assert path is not None
    with write_lock_held(path):
        with pytest.raises(sqlite3.OperationalError, match="locked"):  # the lock is real: no other writer gets it
            sqlite3.connect(path, timeout=0, isolation_level=None).execute("BEGIN IMMEDIATE")
        settings = await asyncio.wait_for(service.get_settings(ALICE), DEADLOCK)
        current = await asyncio.wait_for(service.current_game(ALICE), DEADLOCK)
        stats = await asyncio.wait_for(service.stats(ALICE), DEADLOCK)
        board = await asyncio.wait_for(service.daily_leaderboard("telegram", GROUP, DAY), DEADLOCK)
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

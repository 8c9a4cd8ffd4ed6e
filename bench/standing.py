"""A private ``/leaderboard``: the player's place among everyone's attempts at today's daily deal, counted by the
database (:mod:`bot.store.standing`) against the way it was counted before, every attempt of the day read and
sorted in Python. Run by hand:

    .venv/bin/python bench/standing.py [--attempts 10000] [--db sqlite|postgres] [--repeat 20] [--seed 1]

A fresh database (bench/load.py's) gets ``--attempts`` random attempts at one day's deal (:func:`add_attempts`:
ties on every column, times close to whole seconds, some attempts without a move); then each way answers the same
players' places ``--repeat`` times, and the bench prints each way's median time a place in milliseconds (a figure,
never a check) and whether the two ways gave the same places.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert, select

from bot.app.daily import Standing
from bot.app.leaderboards import Leaderboards, _result
from bot.app.model import PlayerKey
from bot.store import daily as stored_daily
from bot.store.engine import Database
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, WON, games, players

DAY = dt.date(2026, 12, 7)
_START = dt.datetime(2026, 12, 7, 8, tzinfo=dt.UTC)


def _elapsed(rng: random.Random) -> dt.timedelta:
    """A time from start to end, often a microsecond either side of a whole second (where a float rounds wrong),
    now and then below zero (a clock set back)."""
    seconds = rng.choice((0, 1, 2, 59, 60, 61, 3599, 86399, 86400)) if rng.random() < 0.5 else rng.randrange(900)
    micros = rng.choice((0, 1, 999_999, 500_000, rng.randrange(1_000_000)))
    sign = -1 if rng.random() < 0.03 else 1
    return sign * dt.timedelta(seconds=seconds, microseconds=micros)


async def add_attempts(db: Database, count: int, rng: random.Random, day: dt.date = DAY) -> list[PlayerKey]:
    """``count`` players on both platforms, each with a random attempt at ``day``'s deal (few distinct values, so
    many ties; one in ten without a move); their keys, in the order added."""
    keys = [PlayerKey(rng.choice(("telegram", "discord")), f"u{n}") for n in range(count)]
    now = dt.datetime.now(dt.UTC)
    async with db.transaction() as tx:
        await tx.execute(insert(players), [{"platform": key.platform, "user_id": key.user_id,
                                            "display_name": key.user_id, "created_at": now} for key in keys])
        ids = {user_id: id_ for user_id, id_ in (await tx.execute(select(players.c.user_id, players.c.id))).all()}
        rows = []
        for key in keys:
            started = _START + dt.timedelta(seconds=rng.randrange(3600), microseconds=rng.randrange(1_000_000))
            status = rng.choice((WON, WON, BLOCKED, ABANDONED, PLAYING))
            ended = started + _elapsed(rng)
            rows.append({
                "player_id": ids[key.user_id], "code": "TP1-E-AAAAAAB", "rules": "easy", "state": "",
                "status": status, "active": False, "score": rng.choice((480, 500, 620, 750)),
                "moves": 0 if rng.random() < 0.1 else rng.randrange(1, 60), "daily": day,
                "hints_used": rng.randrange(3), "undos_used": rng.randrange(3), "started_at": started,
                "finished_at": None if status == PLAYING else ended,
                "updated_at": ended if status == PLAYING else ended + dt.timedelta(seconds=rng.randrange(-5, 5))})
        await tx.execute(insert(games), rows)
    return keys


async def standing_in_python(db: Database, player: PlayerKey, day: dt.date) -> Standing:
    """The place as it was counted before the database counted it: every attempt of the day read, the played
    ones sorted by the leaderboard's key (the read order, by row id, breaking ties)."""
    async with db.reading() as tx:
        records = await stored_daily.daily_games(tx, None, day, None)
    played = sorted((record for record in records if record.moves > 0), key=lambda r: _result(r).rank_key())
    place = next((at for at, record in enumerate(played, start=1)
                  if (record.platform, record.user_id) == (player.platform, player.user_id)), None)
    return Standing(place, len(played))


async def run(kind: str, attempts: int, repeat: int, seed: int) -> dict[str, object]:
    from bench.load import fresh_database
    from bot.store.database import open_database

    rng = random.Random(seed)
    async with fresh_database(kind) as url:
        db = await open_database(url, migrate=False)
        try:
            keys = await add_attempts(db, attempts, rng)
            boards = Leaderboards(db, None)  # type: ignore[arg-type]  # standing() needs no daily codes
            asked = [rng.choice(keys) for _ in range(repeat)]
            times: dict[str, list[float]] = {"python": [], "sql": []}
            answers: dict[str, list[Standing]] = {"python": [], "sql": []}
            for key in asked:
                for way, count in (("python", standing_in_python(db, key, DAY)),
                                   ("sql", boards.standing(key, DAY))):
                    began = time.perf_counter()
                    answers[way].append(await count)
                    times[way].append(time.perf_counter() - began)
        finally:
            await db.close()
    return {"db": kind, "attempts": attempts, "asked": repeat,
            "python_ms": round(statistics.median(times["python"]) * 1000, 1),
            "sql_ms": round(statistics.median(times["sql"]) * 1000, 1),
            "same": answers["python"] == answers["sql"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attempts", type=int, default=10_000)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.db, args.attempts, args.repeat, args.seed))))


if __name__ == "__main__":
    main()

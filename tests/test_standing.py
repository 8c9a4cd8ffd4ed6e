"""A private ``/leaderboard`` counts the player's place in the database (bot/store/standing.py): over many random
attempts, ties on every column and times a microsecond either side of a whole second among them, each player gets
the place the leaderboard's own order gives them, as sorting every attempt in Python did."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.standing import DAY, add_attempts, standing_in_python  # noqa: E402
from bot.app.daily import Standing  # noqa: E402
from bot.app.leaderboards import Leaderboards, _result  # noqa: E402
from bot.app.model import PlayerKey  # noqa: E402
from bot.store import daily as stored_daily  # noqa: E402
from bot.store.engine import Database  # noqa: E402


async def test_the_counted_place_is_the_sorted_place_for_every_player(database: Database) -> None:
    keys = await add_attempts(database, 200, random.Random(44))
    async with database.reading() as tx:
        records = await stored_daily.daily_games(tx, None, DAY, None)
    tied = Counter(_result(record).rank_key() for record in records if record.moves > 0)
    assert max(tied.values()) > 1  # ties happen, so the tie-break is tested too
    boards = Leaderboards(database, None)  # type: ignore[arg-type]  # standing() needs no daily codes
    stranger = PlayerKey("telegram", "never-played")
    counted = [await boards.standing(key, DAY) for key in [*keys, stranger]]
    sorted_ = [await standing_in_python(database, key, DAY) for key in [*keys, stranger]]
    assert counted == sorted_
    played = sum(record.moves > 0 for record in records)
    assert counted[-1] == Standing(None, played)
    assert sorted(s.place for s in counted if s.place is not None) == list(range(1, played + 1))

"""Every migration step, up and down, keeps every row its target schema can hold (SQLite and PostgreSQL).

Generic over the revisions: a database is filled through the game service at the latest schema (players with
their settings, games playing, won, blocked and abandoned, daily attempts on leaderboards, subscriptions and their
posts), then taken down one step at a time to each older revision and back up to the latest, one step at a time.
Each step is compared with the rows before it: on every table both schemas have, the rows projected on the columns
both have must be the same. A step down must also leave exactly the schema the same revision has on the way up (but
for the deployment's table, with its daily secret, which no step drops), so "what the target schema can hold" is
that revision's own schema, not whatever the step left; and what a step down drops must be what its revision says
it drops (``downgrade_drops``, which ``tripeaks db downgrade`` asks about). A revision added later is covered
without touching this test.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import inspect
from sqlalchemy.engine import URL

from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.model import PlayerKey
from bot.store.database import open_database
from bot.store.engine import create_engine
from bot.store.migrate import downgrade_database, revisions, upgrade_database
from core.game import DRAW, Action, Game, Status, Tap
from tests.app_helpers import act, set_settings
from tests.conftest import fake_hint, fake_verdict

Schema = dict[str, tuple[str, ...]]
Rows = dict[str, Counter[tuple[Any, ...]]]
DAY = dt.date(2026, 12, 1)
#: The columns a step down renames (their values kept): no drop.
RENAMED = {"0006": {"games.community", "daily_subscriptions.community"}}
#: What a step down drops that is a row of the deployment's, not a table or a column (test_migrations checks it).
ROWS_DROPPED = {"0015_owner": {"the owner's notice"}}


async def snapshot(url: URL) -> tuple[Schema, dict[str, list[tuple[Any, ...]]]]:
    """Every application table's columns and rows (as the driver returns them, in no particular order)."""
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            def read(sync: Any) -> tuple[Schema, dict[str, list[tuple[Any, ...]]]]:
                inspector = inspect(sync)
                schema: Schema = {}
                rows: dict[str, list[tuple[Any, ...]]] = {}
                for table in inspector.get_table_names():
                    if table == "alembic_version":
                        continue
                    columns = tuple(sorted(column["name"] for column in inspector.get_columns(table)))
                    schema[table] = columns
                    quoted = ", ".join(f'"{name}"' for name in columns)
                    rows[table] = [tuple(row) for row in sync.exec_driver_sql(f'SELECT {quoted} FROM "{table}"')]
                return schema, rows
            return await connection.run_sync(read)
    finally:
        await engine.dispose()


def projected(schema: Schema, rows: dict[str, list[tuple[Any, ...]]], other: Schema) -> Rows:
    """The rows of each table ``other`` also has, on the columns both have."""
    kept: Rows = {}
    for table, columns in schema.items():
        if table not in other:
            continue
        common = [i for i, name in enumerate(columns) if name in other[table]]
        kept[table] = Counter(tuple(row[i] for i in common) for row in rows[table])
    return kept


async def fill(url: URL) -> None:
    """Players, games in every state, daily attempts on two boards, subscriptions and their posts, through the
    service as the bot writes them."""
    db = await open_database(url, migrate=False)
    try:
        with ThreadPoolExecutor(2) as executor:
            async with App(db, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                                   clock=lambda: dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)) as service:
                await _fill(service)
    finally:
        await db.close()


async def _play(service: App, player: PlayerKey, snapshot: Any, words: list[str]) -> Any:
    for word in words:
        snapshot = await act(service, player, player.user_id, game_command(snapshot.game_id, snapshot.version, word))
    return snapshot


def _line_to_the_end(code: str) -> list[str]:
    """Draw the stock, playing what fits: a game played to its end (won or blocked)."""
    game = Game.from_code(code)
    words: list[str] = []
    while game.status is Status.PLAYING:
        fits = [Tap(slot) for slot in game.playable_slots() if game.fits(slot)]
        action: Action = fits[0] if fits else DRAW
        game.push(action)
        words.append(str(action))
    return words


async def _fill(service: App) -> None:
    names = ["ann", "bob", "cy", "dee", "eve", "fay"]
    for platform in ("telegram", "discord"):
        for i, name in enumerate(names):
            player = PlayerKey(platform, f"{platform[0]}{i}")
            await set_settings(service, player, name=f"{name} {platform}", language=["uk", "ja", None][i % 3],
                                          explain_refusals=i % 2 == 0, default_rules=["easy", "classic"][i % 2])
            code = f"TP1-{'EC'[i % 2]}-AAAAAA{'BCDEFG'[i]}"
            finished = await service.starts.new_game(player, player.user_id, code=code, chat_id=f"chat{i}")
            await _play(service, player, finished, ["d", "u"] + _line_to_the_end(code))
            board = "-100" if i % 2 else "-200"
            attempt = await service.starts.new_daily_game(player, player.user_id, DAY, chat_id=board, community=board)
            attempt = await _play(service, player, attempt, ["h", "d"] + (["d"] * (i + 1)))  # no undo in the daily
            if i % 3 == 0:  # abandoned for another game, which stays in progress with a few moves
                playing = await service.starts.new_game(player, player.user_id, code="TP1-E-AAAABAA")
                await _play(service, player, playing, ["d", "d", "u"])
        for i in range(3):
            channel = f"-10{i}"
            await service.subscriptions.subscribe(platform, channel, community=channel, locale=["en", "de", "pt_BR"][i], by=f"admin{i}")
            subscription = next(found for found in await service.subscriptions.all((platform,))
                                if found.channel_id == channel)
            now = dt.datetime(2026, 12, 1, 9, i, tzinfo=dt.UTC)
            assert await service.subscriptions.claim(subscription.id, DAY, now, dt.timedelta(minutes=5))
            if i == 0:
                await service.subscriptions.finish(subscription.id, DAY, now, message_id="77")
            elif i == 1:
                await service.subscriptions.finish(subscription.id, DAY, now, error="chat not found")


async def test_every_step_up_and_down_keeps_the_rows_its_schema_can_hold(fresh_url: URL) -> None:
    chain = revisions()
    assert len(chain) >= 3
    schemas: dict[str, Schema] = {}
    for revision in chain:  # each revision's own schema, from an empty database up
        await upgrade_database(fresh_url, revision)
        schemas[revision] = (await snapshot(fresh_url))[0]
    await fill(fresh_url)
    schema, rows = await snapshot(fresh_url)
    filled = {table: len(found) for table, found in rows.items()}
    assert min(filled[table] for table in ("players", "games", "daily_subscriptions", "daily_posts")) >= 3, filled
    assert sum(1 for row in rows["games"] if row[schema["games"].index("daily")] is not None) >= 6

    head = len(chain) - 1
    after_schema, after_rows = schema, rows  # nothing writes between two steps: each starts where the last ended
    for lowest in range(head - 1, -1, -1):  # down to each older revision, and back up
        steps = [(chain[i], chain[i - 1], "down") for i in range(head, lowest, -1)]
        steps += [(chain[i], chain[i + 1], "up") for i in range(lowest, head)]
        for start, target, direction in steps:
            before_schema, before_rows = after_schema, after_rows
            dropped: list[str] = []
            if direction == "down":
                dropped = await downgrade_database(fresh_url, target)
            else:
                await upgrade_database(fresh_url, target)
            after_schema, after_rows = await snapshot(fresh_url)
            assert after_schema == {**schemas[target], "deployment": schema["deployment"]}, \
                f"{start} -> {target}: not the schema of {target}"
            vanished = {table for table in before_schema if table not in after_schema} | {
                f"{table}.{column}" for table, columns in before_schema.items() if table in after_schema
                for column in columns if column not in after_schema[table]}
            assert set(dropped) - ROWS_DROPPED.get(start, set()) == (
                vanished - RENAMED.get(start, set()) if direction == "down" else set()), \
                f"{start} -> {target}: dropped {sorted(vanished)}, said {dropped}"
            kept = projected(after_schema, after_rows, before_schema)
            expected = projected(before_schema, before_rows, after_schema)
            for table, wanted in expected.items():
                lost, gained = wanted - kept[table], kept[table] - wanted
                assert not lost and not gained, (f"{direction} {start} -> {target}: {table} lost {len(lost)} rows, "
                                                 f"gained {len(gained)}: {list(lost)[:2]} / {list(gained)[:2]}")

    # back at the latest revision: every player and game is still there
    final_schema, final_rows = await snapshot(fresh_url)
    assert {table: len(found) for table, found in final_rows.items() if table in ("players", "games")} == \
        {"players": filled["players"], "games": filled["games"]}

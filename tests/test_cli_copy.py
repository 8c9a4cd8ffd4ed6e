"""`tripeaks db copy --to URL` moves a whole deployment: every row of every table (players and their settings, games
in every state, daily attempts and the boards they count on, subscriptions and their posts, the daily secret), from
SQLite to PostgreSQL and back, so every player finds their games and every day keeps its deal; a target that
already holds players or subscriptions is refused in one line, and left as it was."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import URL, make_url

from bot.app.assembly import App
from bot.app.commands import Actor, Begin, RoundDeal, StartRound, Surface
from bot.app.effects import PostRound
from bot.app.model import GameSnapshot, PlayerKey
from bot.cli import main
from bot.store.database import open_database
from bot.store.schema import metadata
from tests.conftest import PostgresServer, fake_hint, fake_verdict
from tests.test_migration_data import fill

DAYS = ("2026-12-01", "2026-12-24", "2027-03-15")


def tripeaks(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: URL | str,
             *args: str) -> tuple[int, str, str]:
    """``tripeaks ARGS`` with ``DATABASE_URL`` set to ``url``, in this process."""
    shown = url.render_as_string(hide_password=False) if isinstance(url, URL) else url
    monkeypatch.setenv("DATABASE_URL", shown)
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def daily_codes(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: URL) -> list[str]:
    codes = []
    for day in DAYS:
        status, out, err = tripeaks(monkeypatch, capsys, url, "daily", day, "--json")
        assert status == 0, err
        codes.append(json.loads(out)["code"])
    return codes


async def every_row(url: URL) -> dict[str, list[dict[str, Any]]]:
    """Every table's rows as the schema types them, in primary key order (times in UTC: SQLite keeps no zone)."""
    db = await open_database(url, migrate=False)
    try:
        async with db.transaction() as tx:
            found = {}
            for table in metadata.sorted_tables:
                rows = (await tx.execute(select(table).order_by(*table.primary_key.columns))).mappings()
                found[table.name] = [{name: _utc(value) for name, value in row.items()} for row in rows]
            return found
    finally:
        await db.close()


def _utc(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value


@pytest.fixture
def deployment(tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch) -> URL:
    """A SQLite deployment in use, a row in every table: players, games, daily attempts, subscriptions and posts,
    once-only marks (the scratch folder is the current directory, with no .env and no token)."""
    for name in ("DATABASE_URL", "TRIPEAKS_HOME", "DISCORD_TOKEN", "TELEGRAM_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(sqlite_template, tmp_path / "games.db")
    url = make_url(f"sqlite+aiosqlite:///{tmp_path / 'games.db'}")
    asyncio.run(fill(url))
    asyncio.run(_share_and_keep(url))
    return url


async def _share_and_keep(url: URL) -> None:
    """What the fill leaves out: a game shared, and one kept on under the question (the once-only marks), a
    board waiting in the outbox to be redrawn, a round, and an account the owner blocked."""
    db = await open_database(url, migrate=False)
    try:
        async with App(db, hint_function=fake_hint, verdict_function=fake_verdict) as app:
            assert await app.once.claim_share(1, within=60)
            await app.once.keep(2)
            await app.outbox.ask_boards([(1, None)], "en")  # a table's move waiting for the chat's board
            await app.owners.block(PlayerKey("discord", "666"), True)
            # a live round in a group, joined by a player (its game names it)
            host = Actor(PlayerKey("telegram", "t1"), "t1", "-100", "-100")
            (posted,) = await app.flow.handle(host, StartRound(code="TP1-E-AAAAAAB"), Surface(platform="telegram"))
            assert isinstance(posted, PostRound)
            await app.flow.handle(Actor(PlayerKey("telegram", "t1"), "t1", "t1"), Begin(RoundDeal(posted.round.round_id)),
                                  Surface(platform="telegram"))
    finally:
        await db.close()


def test_a_deployment_goes_to_a_new_sqlite_file_whole(deployment: URL, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    before, codes = asyncio.run(every_row(deployment)), daily_codes(monkeypatch, capsys, deployment)
    assert all(before.values()), {name: len(rows) for name, rows in before.items()}  # every table has rows
    status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy", "--to", "moved/tripeaks.db")
    assert status == 0, err
    moved = make_url(f"sqlite+aiosqlite:///{tmp_path / 'moved' / 'tripeaks.db'}")
    assert out.startswith(f"copied {tmp_path / 'games.db'} to {tmp_path / 'moved' / 'tripeaks.db'}: "
                          f"players {len(before['players'])}, games {len(before['games'])}, ")
    assert asyncio.run(every_row(moved)) == before
    assert daily_codes(monkeypatch, capsys, moved) == codes


def test_a_target_with_players_is_refused_in_one_line_and_left_alone(
        deployment: URL, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.db"
    shutil.copyfile(tmp_path / "games.db", other)
    other_url = make_url(f"sqlite+aiosqlite:///{other}")
    asyncio.run(_start_a_game(other_url, PlayerKey("telegram", "42")))
    held = asyncio.run(every_row(other_url))
    status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy", "--to", str(other))
    assert status == 2 and out == ""
    assert err == (f"tripeaks: db copy: the target {other} already holds players: copy only into a new, empty "
                   "database\n")
    assert asyncio.run(every_row(other_url)) == held
    status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy", "--to", "games.db")
    assert (status, err) == (2, "tripeaks: db copy: the target is the database itself\n")
    status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy")
    assert status == 2 and err.startswith("tripeaks: db copy needs --to URL")


def test_a_copy_is_refused_while_the_bot_holds_the_sqlite_file(
        deployment: URL, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """As a restore is: a copy taken while games are played would miss their last moves (issue 54)."""
    import subprocess
    import sys

    # another process holds it as the running bot does: WAL mode, open (file locks are per process)
    holder = ("import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\n"
              "print(c.execute('PRAGMA journal_mode = WAL').fetchone()[0], flush=True)\nsys.stdin.read()\n")
    live = subprocess.Popen([sys.executable, "-c", holder, str(tmp_path / "games.db")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert live.stdout is not None and live.stdout.readline().strip() == "wal"
        status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy", "--to", "moved.db")
        assert (status, out) == (2, "")
        assert err.startswith(f"tripeaks: db copy: the database {tmp_path / 'games.db'} is in use") and \
            err.count("\n") == 1
        assert not (tmp_path / "moved.db").exists()
    finally:
        live.communicate("", timeout=60)
    status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy", "--to", "moved.db")
    assert status == 0, err


async def _start_a_game(url: URL, player: PlayerKey) -> int:
    """A new player starts a game: the id it gets (a copied database must hand out ids of its own)."""
    db = await open_database(url, migrate=False)
    try:
        async with App(db, hint_function=fake_hint, verdict_function=fake_verdict) as app:
            started = await app.starts.new_game(player, player.user_id, code="TP1-E-AAAAAAB")
            assert isinstance(started, GameSnapshot), started
            return started.game_id
    finally:
        await db.close()


@pytest.mark.postgres
def test_a_deployment_goes_to_postgresql_and_back_with_its_daily_deals(
        deployment: URL, tmp_path: Path, postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    before, codes = asyncio.run(every_row(deployment)), daily_codes(monkeypatch, capsys, deployment)
    postgres = postgres_server.create_database("copy")  # new and empty: not even the tables
    shown = postgres.render_as_string(hide_password=False)

    status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy", "--to", shown)
    assert status == 0, err
    assert asyncio.run(every_row(postgres)) == before
    assert daily_codes(monkeypatch, capsys, postgres) == codes

    status, out, err = tripeaks(monkeypatch, capsys, postgres, "db", "copy", "--to", "back.db")
    assert status == 0, err
    back = make_url(f"sqlite+aiosqlite:///{tmp_path / 'back.db'}")
    assert asyncio.run(every_row(back)) == before
    assert daily_codes(monkeypatch, capsys, back) == codes

    # the copy goes on: a new player's game gets a new id on PostgreSQL too
    highest = max(row["id"] for row in before["games"])
    assert asyncio.run(_start_a_game(postgres, PlayerKey("discord", "new"))) > highest
    # and a second copy into it is refused
    status, out, err = tripeaks(monkeypatch, capsys, deployment, "db", "copy", "--to", shown)
    assert status == 2 and "already holds players" in err

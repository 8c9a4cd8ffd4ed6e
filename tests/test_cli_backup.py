"""`tripeaks db backup` and `tripeaks db restore` as an operator types them: a consistent copy of a SQLite database
while it is written to, never an overwritten file, no restore over a database in use, the old database kept; for
PostgreSQL the pg_dump and pg_restore commands without the password. And `db current` run in the wrong folder
creates nothing."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from bot.store.engine import create_engine
from bot.store.migrate import upgrade_database
from tests.conftest import PostgresServer, run_sync
from tests.test_cli_db import REPO, tripeaks


def players(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as connection:  # closed now, not when collected
        return int(connection.execute("SELECT count(*) FROM players").fetchone()[0])


def add_players(connection: sqlite3.Connection, first: int, count: int = 10) -> None:
    """``count`` players in one transaction."""
    with connection:
        connection.executemany(
            "INSERT INTO players (platform, user_id, display_name, explain_refusals, default_rules, created_at) "
            "VALUES ('telegram', ?, 'someone', 1, 'easy', '2026-12-01 00:00:00')",
            [(str(first + i),) for i in range(count)])


@pytest.fixture
def live(tmp_path: Path, sqlite_template: Path) -> Iterator[sqlite3.Connection]:
    """The database migrated, and a connection as the running bot holds one: WAL mode, open, with committed rows
    still only in the write-ahead log (no checkpoint yet)."""
    shutil.copyfile(sqlite_template, tmp_path / "games.db")
    connection = sqlite3.connect(tmp_path / "games.db", check_same_thread=False)
    assert connection.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    add_players(connection, 0, 30)
    assert (tmp_path / "games.db-wal").stat().st_size > 0
    yield connection
    connection.close()


def test_a_backup_of_a_live_database_is_one_consistent_file(tmp_path: Path, live: sqlite3.Connection) -> None:
    stop = threading.Event()
    written = [30]

    def write() -> None:  # the bot keeps writing, ten players a transaction, while the backup runs
        while not stop.is_set():
            add_players(live, written[0])
            written[0] += 10

    writer = threading.Thread(target=write)
    writer.start()
    try:
        done = tripeaks(tmp_path, "db", "backup", "backups/copy.db")
    finally:
        stop.set()
        writer.join()
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "backups" / "copy.db"
    assert sorted(path.name for path in copy.parent.iterdir()) == ["copy.db"]  # the one file, nothing beside it
    count = players(copy)
    assert count >= 30 and count % 10 == 0 and count <= written[0]  # what was committed, whole transactions
    with contextlib.closing(sqlite3.connect(copy)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    size = copy.stat().st_size
    assert re.fullmatch(rf"backed up {re.escape(str(tmp_path / 'games.db'))} to {re.escape(str(copy))}: "
                        rf"[\d.]+ [kMG]B \({size:,} bytes\), revision \w+, {count:,} players, 0 games\n", done.stdout)


def test_a_backup_never_overwrites_a_file(tmp_path: Path, live: sqlite3.Connection) -> None:
    (tmp_path / "copy.db").write_text("keep me")
    done = tripeaks(tmp_path, "db", "backup", "copy.db")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "already exists" in done.stderr
    assert (tmp_path / "copy.db").read_text() == "keep me"


def test_a_restore_is_refused_while_the_database_is_in_use_and_keeps_the_old_file(
        tmp_path: Path, live: sqlite3.Connection) -> None:
    assert tripeaks(tmp_path, "db", "backup", "thirty.db").returncode == 0
    add_players(live, 30)  # forty now, the last ten only in the write-ahead log
    done = tripeaks(tmp_path, "db", "restore", "thirty.db")
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1 and "in use" in done.stderr and "nothing was changed" in done.stderr
    assert players(tmp_path / "games.db") == 40
    assert sorted(path.name for path in tmp_path.glob("games.db*")) == ["games.db", "games.db-shm", "games.db-wal"]

    live.close()  # the bot stopped
    done = tripeaks(tmp_path, "db", "restore", "thirty.db")
    assert done.returncode == 0, done.stderr
    assert players(tmp_path / "games.db") == 30
    kept = re.search(r"the database it replaced is kept as (\S+)\n", done.stdout)
    assert kept is not None, done.stdout
    assert players(Path(kept.group(1))) == 40 and Path(kept.group(1)).parent == tmp_path
    assert not list(tmp_path.glob("*-shm"))  # issue 54: the old file's shared-memory index was left beside it
    assert not (tmp_path / "games.db-wal").exists() or (tmp_path / "games.db-wal").stat().st_size == 0
    assert tripeaks(tmp_path, "db", "current").stdout.startswith("database at revision ")


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 100])
def test_a_restore_of_something_else_changes_nothing(tmp_path: Path, live: sqlite3.Connection,
                                                     content: bytes) -> None:
    live.close()
    (tmp_path / "other.db").write_bytes(content)
    done = tripeaks(tmp_path, "db", "restore", "other.db")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert players(tmp_path / "games.db") == 30
    assert not list(tmp_path.glob("games.db.*"))


def test_postgres_backup_and_restore_print_the_commands_without_the_password(tmp_path: Path) -> None:
    url = "postgresql+asyncpg://tripeaks:s3cret-pw@db.example.org:5433/games"
    for action, tool in (("backup", "pg_dump --format=custom --file=games.dump"),
                         ("restore", "pg_restore --clean --if-exists --no-owner")):
        done = tripeaks(tmp_path, "db", action, "games.dump", env_extra={"DATABASE_URL": url})
        assert done.returncode == 0, done.stderr
        assert "s3cret" not in done.stdout + done.stderr
        assert f"  {tool} " in done.stdout
        assert "--host=db.example.org --port=5433 --username=tripeaks --dbname=games" in done.stdout
    assert not list(tmp_path.iterdir())


def test_db_current_outside_the_project_creates_nothing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "TRIPEAKS_"))}
    for args in (("db", "current"), ("db", "downgrade", "-1"), ("db", "backup", "copy.db")):
        done = subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, text=True, capture_output=True,
                              env=env | {"PYTHONPATH": str(REPO)}, timeout=120, check=False)
        assert done.returncode == 2, done.stdout
        assert done.stderr == f"tripeaks: no database at {tmp_path / 'data' / 'tripeaks.db'} (DATABASE_URL, " \
                              "relative to TRIPEAKS_HOME or the folder of .env): `tripeaks db upgrade` creates it\n"
        assert not list(tmp_path.iterdir())


@pytest.mark.postgres
def test_the_printed_pg_dump_and_pg_restore_commands_work(tmp_path: Path, postgres_server: PostgresServer) -> None:
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are not installed")
    source, target = postgres_server.create_database("dump"), postgres_server.create_database("restore")
    run_sync(upgrade_database(source))
    run_sync(_add_a_player(source))

    def printed(action: str, url: URL) -> list[str]:
        done = tripeaks(tmp_path, "db", action, str(tmp_path / "games.dump"),
                        env_extra={"DATABASE_URL": url.render_as_string(hide_password=False)})
        assert done.returncode == 0, done.stderr
        return shlex.split(done.stdout.splitlines()[1])

    for command in (printed("backup", source), printed("restore", target)):
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
    assert run_sync(_player_names(target)) == ["ann"]


async def _add_a_player(url: URL) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO players (platform, user_id, display_name, created_at) "
                "VALUES ('telegram', '1', 'ann', now())")
    finally:
        await engine.dispose()


async def _player_names(url: URL) -> list[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return [name for (name,) in await connection.exec_driver_sql("SELECT display_name FROM players")]
    finally:
        await engine.dispose()


def test_a_damaged_database_can_be_replaced_by_its_backup(tmp_path: Path, live: sqlite3.Connection) -> None:
    assert tripeaks(tmp_path, "db", "backup", "thirty.db").returncode == 0
    live.close()
    damaged = b"SQLite format 3\0" + b"\xff" * 4000
    (tmp_path / "games.db").write_bytes(damaged)
    done = tripeaks(tmp_path, "db", "restore", "thirty.db")
    assert done.returncode == 0, done.stderr
    assert players(tmp_path / "games.db") == 30
    kept = next(tmp_path.glob("games.db.before-restore-*"))
    assert kept.read_bytes() == damaged


def test_no_downgrade_while_the_bot_holds_the_sqlite_database(tmp_path: Path, live: sqlite3.Connection) -> None:
    """As restore: a downgrade under a running bot would fail every command of it until a restart."""
    at = tripeaks(tmp_path, "db", "current").stdout
    done = tripeaks(tmp_path, "db", "downgrade", "-1", "--yes")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "in use" in done.stderr and "nothing was changed" in done.stderr
    assert tripeaks(tmp_path, "db", "current").stdout == at
    live.close()  # the bot stopped
    assert tripeaks(tmp_path, "db", "downgrade", "-1", "--yes").returncode == 0
    assert tripeaks(tmp_path, "db", "current").stdout != at


@pytest.mark.postgres
async def test_no_downgrade_while_the_bot_is_connected_to_postgresql(tmp_path: Path,
                                                                     postgres_server: PostgresServer) -> None:
    url = postgres_server.create_database("downgrade")
    await upgrade_database(url)
    env = {"DATABASE_URL": url.render_as_string(hide_password=False)}
    engine = create_engine(url)  # the bot's own engine, as a running bot holds a connection of its pool
    try:
        async with engine.connect():
            done = await asyncio.to_thread(tripeaks, tmp_path, "db", "downgrade", "-1", "--yes", env_extra=env)
            assert done.returncode == 2 and "in use" in done.stderr and "nothing was changed" in done.stderr
    finally:
        await engine.dispose()
    done = await asyncio.to_thread(tripeaks, tmp_path, "db", "downgrade", "-1", "--yes", env_extra=env)
    assert done.returncode == 0, done.stderr

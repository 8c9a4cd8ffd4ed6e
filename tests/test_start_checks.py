"""A database the bot cannot use is found at start, in one line with exit status 2, never tap by tap: a damaged
SQLite file (its quick integrity check), a read-only one and a read-only PostgreSQL database (a write rolled
back). And the same error again and again logs its traceback once, not an 8 KB traceback a tap."""

from __future__ import annotations

import io
import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from bot import logs
from bot.config import Config
from bot.store.database import open_database
from bot.store.probe import DatabaseUnusable
from tests.terminal import seed_game

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(120)


def console(tmp_path: Path, url: str, typed: str = "d\nd\n") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "LOG_"))}
    env |= {"DATABASE_URL": url, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "bot.cli", "console", "--user", "ann"], input=typed, text=True,
                          capture_output=True, cwd=tmp_path, env=env, timeout=90, check=False)


def played_database(tmp_path: Path) -> Path:
    """A database with a game in it, as a console session leaves it (started by the service in this process: the
    start that fails is the test's)."""
    seed_game(tmp_path, "ann", "TP1-E-AAAAAAB")
    return tmp_path / "games.db"


def damage_page(path: Path, table: str) -> None:
    """Overwrite the inside of the b-tree page where ``table`` (a table or an index) starts, as a bad disk sector
    or a torn copy would."""
    with sqlite3.connect(path) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        (root,) = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    connection.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size + 8)
        file.write(b"\xff" * (page_size // 2))


@pytest.mark.parametrize("table", ["ix_games_daily_community", "players"])
def test_a_damaged_sqlite_file_is_one_line_at_start(tmp_path: Path, table: str) -> None:
    path = played_database(tmp_path)
    damage_page(path, table)
    done = console(tmp_path, f"sqlite+aiosqlite:///{path}")
    assert done.returncode == 2, done.stdout[-500:] + done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    # SQLite's integrity check names the page; damage it meets on the way there is "database disk image is malformed"
    assert done.stderr.startswith(f"tripeaks: the database {path} is damaged (")
    assert done.stderr.rstrip().endswith("restore it from a backup")
    assert "Draw" not in done.stdout  # no board was shown before it failed


def test_a_file_that_is_no_database_is_one_line_at_start(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 200)
    done = console(tmp_path, f"sqlite+aiosqlite:///{path}")
    assert done.returncode == 2
    assert done.stderr == f"tripeaks: the database {path} is damaged (file is not a database): restore it from a backup\n"


def test_a_read_only_sqlite_file_is_one_line_at_start(tmp_path: Path) -> None:
    """Opened read-only (as a read-only file, folder or volume is): the board used to show, then the first tap
    failed."""
    path = played_database(tmp_path)
    done = console(tmp_path, f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true")
    assert done.returncode == 2, done.stdout[-500:] + done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "cannot be written (attempt to write a readonly database): the bot needs to write to it" in done.stderr
    assert "Draw" not in done.stdout


@pytest.mark.postgres
async def test_a_read_only_postgresql_database_is_found_at_start(postgres_server: object) -> None:
    from tests.conftest import PostgresServer

    assert isinstance(postgres_server, PostgresServer)
    url: URL = postgres_server.create_database("readonly")
    try:
        await postgres_server._admin(f'ALTER DATABASE "{url.database}" SET default_transaction_read_only = on')
        with pytest.raises(DatabaseUnusable) as raised:
            await open_database(url)
        message = str(raised.value)
        assert message.startswith(f"the database postgresql+asyncpg://{url.username}")
        assert "cannot be written (" in message and "read-only transaction" in message
    finally:
        postgres_server.drop_database(url)


def test_the_same_error_again_logs_its_traceback_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A database that fails every tap: each tap is still logged (one line with its ids), the traceback only the
    first time the error is seen (and again after a while)."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    stream = io.StringIO()
    logs.configure_logging(Config(log_level="INFO"), stream)
    log = logging.getLogger("tripeaks.test")
    for update in range(1, 6):
        try:
            raise OSError("disk I/O error")
        except OSError:
            log.error("error handling update %d in chat 7", update, exc_info=True)
    try:
        raise ValueError("another error")
    except ValueError:
        log.error("error handling update 6 in chat 7", exc_info=True)
    entries = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [entry["message"].split(" (")[0] for entry in entries] == [
        f"error handling update {n} in chat 7" for n in range(1, 7)]
    with_traceback = [entry for entry in entries if "exception" in entry]
    assert [entry["message"] for entry in with_traceback] == ["error handling update 1 in chat 7",
                                                              "error handling update 6 in chat 7"]
    assert entries[1]["message"] == "error handling update 2 in chat 7 (OSError: disk I/O error, as before: traceback " \
                                    "not repeated)"


async def test_a_database_another_process_is_writing_is_busy_not_read_only(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot starting while another process holds SQLite's write lock past the busy timeout starts all the same:
    the write check finds the database busy, which is no reason to stop."""
    from bot.store import engine as engine_module
    from bot.store.probe import check_writable

    monkeypatch.setattr(engine_module, "SQLITE_BUSY_TIMEOUT_MS", 200)
    path = tmp_path / "busy.db"
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("CREATE TABLE t (x)")
        writer.execute("BEGIN EXCLUSIVE")
        url = engine_module.database_url(f"sqlite+aiosqlite:///{path}")
        db = engine_module.Database(url, engine_module.create_engine(url))
        try:
            await check_writable(db)
        finally:
            await db.close()
    finally:
        writer.close()

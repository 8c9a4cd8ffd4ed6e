"""Backing up and restoring the database: ``tripeaks db backup FILE`` and ``tripeaks db restore FILE``.

SQLite: a backup is made with SQLite's online backup API, so it is a consistent copy even while the bot writes (in
WAL mode readers never wait for the writer, and the writer never waits for the backup). The copy is one
self-contained file (its journal mode set back to DELETE), checked before it takes its name. A restore refuses to
replace a database another process has open (the bot, a console game: every connection to a WAL database holds a
lock on the file while it is open), and keeps the database it replaces beside it, renamed; a damaged database can
be replaced too.

PostgreSQL: the server's own tools do it; :func:`pg_dump_command` and :func:`pg_restore_command` spell them out for
the configured URL, without its password.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shlex
import sqlite3
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL


class BackupError(Exception):
    """A backup or restore that cannot be done; the message is one line for the operator, and nothing changed."""


@dataclass(frozen=True)
class DatabaseSummary:
    """What a SQLite database file holds, as a backup or restore reports it."""

    path: Path
    size: int  # bytes
    revision: str | None
    players: int
    games: int

    def describe(self) -> str:
        """``12.3 MB (12,345,678 bytes), revision 0003, 40 players, 1,234 games``."""
        return (f"{human_size(self.size)} ({self.size:,} bytes), revision {self.revision}, {self.players:,} players, "
                f"{self.games:,} games")


def human_size(size: int) -> str:
    """Bytes for a person, in powers of 1000.

    >>> human_size(999), human_size(1_234_567)
    ('999 bytes', '1.2 MB')
    """
    value = float(size)
    for unit in ("bytes", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


@contextlib.contextmanager
def _open(path: Path, mode: str, *, timeout: float = 10.0) -> Iterator[sqlite3.Connection]:
    """An existing database file (never created here): ``mode`` ``ro`` or ``rw``; sqlite3's errors become
    :class:`BackupError`."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, timeout=timeout,
                                     isolation_level=None)
    except sqlite3.Error as error:
        raise BackupError(f"cannot open {path}: {error}") from None
    try:
        yield connection
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path}: {error}") from None
    finally:
        connection.close()


def _summary(connection: sqlite3.Connection, path: Path) -> DatabaseSummary:
    tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def scalar(sql: str, table: str) -> Any:
        return connection.execute(sql).fetchone()[0] if table in tables else None

    revision = scalar("SELECT max(version_num) FROM alembic_version", "alembic_version")
    return DatabaseSummary(path, path.stat().st_size, None if revision is None else str(revision),
                           scalar("SELECT count(*) FROM players", "players") or 0,
                           scalar("SELECT count(*) FROM games", "games") or 0)


def _copy(source: Path, target: Path) -> DatabaseSummary:
    """A consistent copy of ``source`` at ``target`` (written under a temporary name, checked, then renamed)."""
    partial = target.with_name(f"{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        with _open(source, "ro") as reader:
            copy = sqlite3.connect(partial, isolation_level=None)
            try:
                reader.backup(copy)
                copy.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
                check = copy.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    raise BackupError(f"the copy of {source} fails SQLite's check ({check}): not kept")
            finally:
                copy.close()
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    with _open(target, "ro") as copied:
        return _summary(copied, target)


def backup_sqlite(source: Path, target: Path) -> DatabaseSummary:
    """Copy the database at ``source`` to the new file ``target`` (its folder created if need be), safe while the
    bot runs; what the copy holds.
    :class:`BackupError` (and nothing written) when there is no database or ``target`` already exists."""
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    if target.exists():
        raise BackupError(f"{target} already exists: give a new file name (a backup never overwrites)")
    target.parent.mkdir(parents=True, exist_ok=True)
    return _copy(source, target)


#: Where SQLite's unix locking protocol puts its shared locks: 510 bytes from 2 bytes past the 1 GiB mark. Every
#: connection to a WAL database holds a read lock there for as long as it is open, idle or not.
_SHARED_FIRST, _SHARED_SIZE = 0x40000000 + 2, 510
_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")


def in_use(path: Path) -> bool:
    """Whether another process has the SQLite database at ``path`` open (read from the file's locks, so a damaged
    file too)."""
    import fcntl

    descriptor = os.open(path, os.O_RDWR)
    try:
        fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB, _SHARED_SIZE, _SHARED_FIRST)
    except OSError:
        return True
    finally:
        os.close(descriptor)  # also lets go of the lock just taken
    return False


def _take_over(target: Path) -> None:
    """Make sure no other process has ``target`` open, and fold its write-ahead log into it (so the file alone is
    the whole database): :class:`BackupError` when it is in use. A damaged database is left as it is (it is kept
    beside the restored one, with its log)."""
    busy = BackupError(f"the database {target} is in use (is the bot or a console game running? stop it first): "
                       "nothing was changed")
    if in_use(target):
        raise busy
    try:
        with contextlib.closing(sqlite3.connect(f"{target.resolve().as_uri()}?mode=rw", uri=True, timeout=0,
                                                isolation_level=None)) as connection:
            connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            connection.execute("BEGIN EXCLUSIVE")  # SQLite's own say, should a process have opened it meanwhile
            connection.execute("COMMIT")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.DatabaseError as error:
        if getattr(error, "sqlite_errorname", "") in _BUSY:
            raise busy from None


@dataclass(frozen=True)
class Restored:
    database: DatabaseSummary
    #: Where the database that was replaced is kept (None when there was none).
    kept: Path | None


def restore_sqlite(backup: Path, target: Path, known_revisions: Collection[str],
                   now: dt.datetime | None = None) -> Restored:
    """Put the backup ``backup`` in place of the database at ``target``, keeping the replaced file as
    ``<target>.before-restore-<UTC time>``. :class:`BackupError`, and nothing changed, when the backup is no
    readable tripeaks database, is from a newer version of the bot (a revision not in ``known_revisions``), or the
    database is in use."""
    if not backup.is_file():
        raise BackupError(f"no backup at {backup}")
    if target.exists() and backup.resolve() == target.resolve():
        raise BackupError(f"{backup} is the database itself")
    with _open(backup, "ro") as reader:
        check = reader.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise BackupError(f"{backup} fails SQLite's check ({check})")
        found = _summary(reader, backup)
    if found.revision is None:
        raise BackupError(f"{backup} is no tripeaks database (it has no migration revision)")
    if found.revision not in known_revisions:
        raise BackupError(f"{backup} is at revision {found.revision}, which this version of the bot does not know "
                          "(a backup from a newer version?)")
    target.parent.mkdir(parents=True, exist_ok=True)
    incoming = target.with_name(f"{target.name}.restoring")
    _copy(backup, incoming)
    kept = None
    try:
        if target.exists():
            _take_over(target)
            stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%SZ")
            kept = target.with_name(f"{target.name}.before-restore-{stamp}")
            os.replace(target, kept)
            log = target.with_name(target.name + "-wal")  # none should be left; never let an old log meet the new file
            if log.exists():
                os.replace(log, kept.with_name(kept.name + "-wal"))
            # the shared-memory index holds no data (the log is folded in, no one has the file open): not kept
            target.with_name(target.name + "-shm").unlink(missing_ok=True)
        os.replace(incoming, target)
    finally:
        incoming.unlink(missing_ok=True)
    with _open(target, "ro") as restored:
        return Restored(_summary(restored, target), kept)


def _pg_connection_options(url: URL) -> list[str]:
    options = [f"--host={url.host}"] if url.host else []
    if url.port:
        options.append(f"--port={url.port}")
    if url.username:
        options.append(f"--username={url.username}")
    return options


def pg_dump_command(url: URL, file: str) -> str:
    """The ``pg_dump`` command that backs up the database of ``url`` to ``file`` (custom format, for pg_restore);
    the password is never part of it (pg_dump asks, or reads ``PGPASSWORD`` or ``~/.pgpass``)."""
    return shlex.join(["pg_dump", "--format=custom", f"--file={file}", *_pg_connection_options(url),
                       f"--dbname={url.database or ''}"])


def pg_restore_command(url: URL, file: str) -> str:
    """The ``pg_restore`` command that puts ``file`` (made by :func:`pg_dump_command`) back into the database of
    ``url``, replacing what is there; no password in it."""
    return shlex.join(["pg_restore", "--clean", "--if-exists", "--no-owner", *_pg_connection_options(url),
                       f"--dbname={url.database or ''}", file])

"""The Alembic migrations: applying them, undoing them, and reading the revision a database is at."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, event, inspect, text
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.store.engine import APPLICATION_NAME, create_engine, sqlite_file


class MigrationError(Exception):
    """An unknown revision, a move that is not possible from the database's revision (Alembic's message), or a
    migration that would leave rows pointing at nothing."""


class DowngradeDrops(MigrationError):
    """A downgrade refused, nothing changed, because it would drop columns or tables with their values: each
    revision lists what its downgrade drops (``downgrade_drops`` in its script: ``table.column`` or a table). The
    deployment's daily secret is never among them: no revision drops it."""

    def __init__(self, drops: list[str]) -> None:
        self.drops = drops
        super().__init__(f"it would drop {', '.join(drops)} with their values; nothing was changed")


class NewerDatabase(MigrationError):
    """The database was upgraded by a newer version of the bot than this one: this code cannot run on it."""

    def __init__(self, recorded: str, latest: str | None) -> None:
        super().__init__(
            f"the database is at revision {recorded}, which a newer version of the bot wrote (this one knows up to "
            f"{latest}): run the newer version, or first downgrade the database with it "
            f"(tripeaks db downgrade {latest}), then start this one")


log = logging.getLogger(__name__)

#: The PostgreSQL advisory lock key held while migrating ("tripeaks" in ASCII, as a 64-bit number).
MIGRATION_LOCK = int.from_bytes(b"tripeaks", "big")

#: Where the Alembic scripts live: the repository's ``migrations`` folder, found from this file so that
#: ``tripeaks db upgrade`` works from any directory (see :func:`migrations_dir` for installed copies).
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def migrations_dir() -> Path:
    """The ``migrations`` folder: beside the ``bot`` package (a checkout or an editable install), else in the
    working directory (an image that copied the repository and installed it with ``pip install .``)."""
    for candidate in (MIGRATIONS_DIR, Path.cwd() / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError(f"no Alembic migrations folder at {MIGRATIONS_DIR} or {Path.cwd() / 'migrations'}")


def alembic_config() -> Any:
    """An Alembic ``Config`` built in code: no ``alembic.ini`` needed, whatever the working directory."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def revisions() -> list[str]:
    """Every revision this version of the bot knows, from the first to the latest."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    return [revision.revision for revision in reversed(list(script.walk_revisions()))]


#: A revision script's own revision and the one it follows, as Alembic's template writes them.
_REVISION_LINE = re.compile(r"""^(revision|down_revision)\b[^=]*= *(None|"([^"]+)"|'([^']+)')\s*$""", re.M)


def latest_revision() -> str | None:
    """The latest revision, read from the scripts' text without Alembic (which takes a good part of a second to
    import and read them): the one revision no other script follows. None when the scripts are not one plain
    line (a merge, a branch, a line written another way): the caller then asks Alembic."""
    revisions: dict[str, str | None] = {}
    for script in migrations_dir().joinpath("versions").glob("*.py"):
        if script.name.startswith("__"):
            continue
        found = {name: own or other or None for name, _, own, other in _REVISION_LINE.findall(script.read_text())}
        if found.get("revision") is None or "down_revision" not in found:
            return None
        revisions[str(found["revision"])] = found["down_revision"]
    heads = set(revisions) - set(revisions.values())
    if len(heads) != 1 or sum(1 for down in revisions.values() if down is None) != 1:
        return None
    return heads.pop()


def _recorded_revisions(connection: Connection) -> list[str]:
    """The revisions the database's ``alembic_version`` table holds (none for a database without one)."""
    if not inspect(connection).has_table("alembic_version"):
        return []
    return [str(row[0]) for row in connection.exec_driver_sql("SELECT version_num FROM alembic_version")]


def _run_alembic(connection: Connection, command_name: str, revision: str) -> list[str]:
    """Run the Alembic command on ``connection``; returns what the revisions it undid drop (a downgrade's
    ``downgrade_drops``, see :class:`DowngradeDrops`), from the newest."""
    if command_name == "upgrade" and revision == "head":
        latest = latest_revision()
        if latest is not None and _recorded_revisions(connection) == [latest]:
            return []  # up to date: what Alembic would find, without importing it (every start of the bot asks)
    from alembic import command
    from alembic.script import ScriptDirectory
    from alembic.util.exc import CommandError

    config = alembic_config()
    # migrations/env.py runs on this connection (and inside its transaction) when it is given one
    config.attributes["connection"] = connection
    before = _recorded_revisions(connection)
    known = revisions()
    if unknown := [revision for revision in before if revision not in known]:
        raise NewerDatabase(unknown[0], known[-1] if known else None)
    try:
        getattr(command, command_name)(config, revision)
    except CommandError as error:
        raise MigrationError(str(error)) from error
    if command_name != "downgrade" or not before:
        return []
    after = _recorded_revisions(connection)
    undone = ScriptDirectory.from_config(config).iterate_revisions(before[0], after[0] if after else "base")
    return [dropped for script in undone for dropped in getattr(script.module, "downgrade_drops", ())]


async def _take_migration_lock(connection: AsyncConnection) -> None:
    """On PostgreSQL, hold :data:`MIGRATION_LOCK` until the transaction ends: processes starting together migrate
    one after the other (the later ones then find the schema up to date). SQLite needs nothing: its migration
    transaction starts with ``BEGIN IMMEDIATE``, which takes the database's write lock."""
    if connection.dialect.name != "postgresql":
        return
    if not (await connection.execute(text("SELECT pg_try_advisory_xact_lock(:key)"),
                                     {"key": MIGRATION_LOCK})).scalar():
        log.info("another process is migrating the database: waiting for it")
        await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})


def migration_engine(url: str | URL | None) -> AsyncEngine:
    """An engine to migrate with: on SQLite its connections start with foreign keys off, as SQLite's own procedure
    for changing a table asks. Batch mode rebuilds a table (copy, drop the old, rename); with foreign keys on,
    dropping ``players`` would delete every game through ``ON DELETE CASCADE``. The pragma cannot change inside a
    transaction, so it is set as each connection opens (after the engine's own settings turned it on). End the
    migration with :func:`check_foreign_keys`."""
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine.sync_engine, "connect")
        def _off(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys = OFF")
            cursor.close()

    return engine


def check_foreign_keys(connection: Connection) -> None:
    """At the end of a migration on SQLite (run with foreign keys off): refuse (roll back) a result where a row
    points at a row that is not there. Nothing to do elsewhere: PostgreSQL checks every statement."""
    if connection.dialect.name != "sqlite":
        return
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        tables = sorted({str(row[0]) for row in broken})
        raise MigrationError(f"the migration would leave {len(broken)} rows of {', '.join(tables)} pointing at "
                             "nothing: rolled back")


async def _migrate(url: str | URL | None, command_name: str, revision: str, *, allow_drops: bool = True) -> list[str]:
    """Run the command in one transaction; a downgrade that drops something is rolled back unless ``allow_drops``
    (:class:`DowngradeDrops`). Returns what was dropped."""
    engine = migration_engine(url)
    try:
        async with engine.begin() as connection:
            await _take_migration_lock(connection)
            drops = await connection.run_sync(_run_alembic, command_name, revision)
            if drops and not allow_drops:
                raise DowngradeDrops(drops)
            await connection.run_sync(check_foreign_keys)
        return drops
    finally:
        await engine.dispose()


async def upgrade_database(url: str | URL | None = None, revision: str = "head") -> None:
    """Apply the migrations up to ``revision`` (default: the latest), creating the database file if needed, under
    the migration lock (see :func:`_take_migration_lock`). This is what ``tripeaks db upgrade`` and every start
    of the bot run."""
    await _migrate(url, "upgrade", revision)


async def downgrade_database(url: str | URL | None = None, revision: str = "base", *,
                             allow_drops: bool = True) -> list[str]:
    """Undo the migrations down to ``revision`` (default: an empty database but for the deployment's secret), under
    the migration lock; returns the columns (``table.column``) and tables dropped with their values. Without
    ``allow_drops`` a downgrade that would drop any is refused and nothing changes (:class:`DowngradeDrops`)."""
    return await _migrate(url, "downgrade", revision, allow_drops=allow_drops)


async def in_use(url: str | URL | None = None) -> bool:
    """Whether another process (the bot, a console game) has the database open: SQLite's file locks, or on
    PostgreSQL a connection of the bot's name (:data:`~bot.store.engine.APPLICATION_NAME`) other than this one."""
    from bot.store.backup import in_use as file_in_use

    path = sqlite_file(url)
    if path is not None:
        return path.is_file() and file_in_use(path)
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            others = await connection.scalar(text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND application_name = :name AND pid <> pg_backend_pid()"), {"name": APPLICATION_NAME})
            return bool(others)
    finally:
        await engine.dispose()


async def current_revision(url: str | URL | None = None) -> str | None:
    """The revision the database is at, or None for an empty one."""
    from alembic.runtime.migration import MigrationContext

    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision())
    finally:
        await engine.dispose()


# --- the daily deal: subscriptions and posts (migration 0002) ----------------------------------------------------

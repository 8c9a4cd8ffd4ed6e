"""Alembic migrations: an empty database goes up to the latest schema and back down to nothing."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import URL

from bot.store import migrate
from bot.store.engine import create_engine
from bot.store.migrate import (
    DowngradeDrops,
    alembic_config,
    current_revision,
    downgrade_database,
    latest_revision,
    migrations_dir,
    revisions,
    upgrade_database,
)

REPO = Path(__file__).resolve().parents[1]
APP_TABLES = {"players", "games"}


async def _tables(url: URL) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


async def _indexes(url: URL, table: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            found = await connection.run_sync(lambda sync: inspect(sync).get_indexes(table))
            return {index["name"] for index in found if index["name"]}
    finally:
        await engine.dispose()


async def _columns(url: URL, table: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            found = await connection.run_sync(lambda sync: inspect(sync).get_columns(table))
            return {column["name"] for column in found}
    finally:
        await engine.dispose()


async def _secret(url: URL) -> str:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return str((await connection.exec_driver_sql(
                "SELECT value FROM deployment WHERE name = 'daily_secret'")).scalar_one())
    finally:
        await engine.dispose()


def test_the_migrations_form_one_line() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert Path(script.dir) == migrations_dir() == REPO / "migrations"
    assert len(script.get_heads()) == 1
    assert [rev.down_revision for rev in script.walk_revisions()][-1] is None


def test_the_latest_revision_read_without_alembic_is_alembics_head(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every start reads the latest revision from the scripts' text to see whether there is anything to do (see
    migrate._run_alembic); it must be Alembic's head, and a script it cannot read plainly leaves it to Alembic."""
    assert latest_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()
    copy = tmp_path / "migrations"
    shutil.copytree(migrations_dir(), copy)
    (copy / "versions" / "0099_merge.py").write_text('revision = "0099"\ndown_revision = ("0006", "0007")\n')
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", copy)
    assert latest_revision() is None


async def test_upgrade_an_empty_database_to_head_and_back(fresh_url: URL) -> None:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert await current_revision(fresh_url) is None
    assert not (await _tables(fresh_url)) & APP_TABLES

    await upgrade_database(fresh_url)
    assert await current_revision(fresh_url) == head
    assert await _tables(fresh_url) >= APP_TABLES
    assert "uq_games_active_player_id" in await _indexes(fresh_url, "games")
    await upgrade_database(fresh_url)  # already there: nothing to do, no error
    assert await current_revision(fresh_url) == head

    await downgrade_database(fresh_url)
    assert await current_revision(fresh_url) is None
    assert not (await _tables(fresh_url)) & APP_TABLES

    await upgrade_database(fresh_url)  # and up again, from a downgraded database
    assert await _tables(fresh_url) >= APP_TABLES


async def test_migrations_run_from_any_working_directory(fresh_url: URL, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    await upgrade_database(fresh_url)
    assert await _tables(fresh_url) >= APP_TABLES


def test_the_alembic_command_uses_the_same_migrations(tmp_path: Path) -> None:
    """``alembic upgrade head`` with the repository's alembic.ini, run elsewhere, reads DATABASE_URL."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'by-alembic.db'}"
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(REPO)}
    for args in (["upgrade", "head"], ["current"]):
        done = subprocess.run([sys.executable, "-m", "alembic", "-c", str(REPO / "alembic.ini"), *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert f"{head} (head)" in done.stdout
    assert (tmp_path / "by-alembic.db").is_file()


def test_the_alembic_command_downgrades_without_losing_games(tmp_path: Path) -> None:
    """`alembic downgrade -1` (the developers' way in) migrates as the bot does: no table rebuild cascades."""
    path = tmp_path / "by-alembic.db"
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{path}", "PYTHONPATH": str(REPO)}

    def alembic(*args: str) -> None:
        done = subprocess.run([sys.executable, "-m", "alembic", "-c", str(REPO / "alembic.ini"), *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr

    alembic("upgrade", "head")
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("INSERT INTO players (id, platform, user_id, created_at) VALUES (1, 'telegram', '7', "
                           "'2026-12-01 00:00:00')")
        connection.execute("INSERT INTO games (player_id, code, rules, state, score, started_at, updated_at) VALUES "
                           "(1, 'TP1-E-AAAAAAB', 'easy', '1;TP1-E-AAAAAAB', 500, '2026-12-01 00:00:00', "
                           "'2026-12-01 00:00:00')")
    alembic("downgrade", "-1")
    with contextlib.closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT count(*) FROM games").fetchone()[0] == 1


async def test_the_community_column_keeps_its_values_renamed_and_back(fresh_url: URL) -> None:
    """Migration 0006 renames ``board`` (the server or group a daily attempt counts in, a subscribed channel's) to
    ``community``: each value stays with its row, up and down (the generic data test compares only the columns a
    step keeps the names of)."""
    engine = create_engine(fresh_url)

    async def values(column: str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        async with engine.connect() as connection:
            games = (await connection.exec_driver_sql(f"SELECT id, {column} FROM games ORDER BY id")).all()
            subscribed = (await connection.exec_driver_sql(
                f"SELECT channel_id, {column} FROM daily_subscriptions ORDER BY id")).all()
        return [tuple(row) for row in games], [tuple(row) for row in subscribed]

    try:
        await upgrade_database(fresh_url, "0005")
        async with engine.begin() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO players (platform, user_id, created_at) VALUES ('telegram', '7', '2026-12-01')")
            for daily, board in (("'2026-12-01'", "'-100'"), ("'2026-12-02'", "NULL"), ("NULL", "NULL")):
                await connection.exec_driver_sql(
                    "INSERT INTO games (player_id, code, rules, state, score, active, daily, board, started_at, "
                    "updated_at) SELECT id, 'TP1-E-AAAAAAB', 'easy', '1;TP1-E-AAAAAAB', 500, false, "
                    f"{daily}, {board}, '2026-12-01', '2026-12-01' FROM players")
            await connection.exec_driver_sql(
                "INSERT INTO daily_subscriptions (platform, channel_id, board, locale, created_by, created_at) "
                "VALUES ('discord', '55', '44', 'en', '', '2026-12-01'), ('telegram', '-100', '-100', 'en', '', "
                "'2026-12-01')")
        before = await values("board")
        await upgrade_database(fresh_url, "0006")
        assert await values("community") == before
        assert "ix_games_daily_community" in await _indexes(fresh_url, "games")
        await downgrade_database(fresh_url, "0005")
        assert await values("board") == before
        assert "ix_games_daily_board" in await _indexes(fresh_url, "games")
    finally:
        await engine.dispose()


async def test_the_daily_secret_outlives_every_downgrade(fresh_url: URL) -> None:
    """Issue 43, point 3: the deployment's secret (every day's daily deal depends on it) is kept by a downgrade to
    any revision, base included, and the upgrade after it keeps it: the days keep their deals."""
    await upgrade_database(fresh_url)
    secret = await _secret(fresh_url)
    for target in [*reversed(revisions()[:-1]), "base"]:
        await downgrade_database(fresh_url, target)
        await upgrade_database(fresh_url)
        assert await _secret(fresh_url) == secret, target


async def test_a_downgrade_that_would_drop_columns_is_refused_and_changes_nothing(fresh_url: URL) -> None:
    await upgrade_database(fresh_url)
    head = await current_revision(fresh_url)
    with pytest.raises(DowngradeDrops) as refused:
        await downgrade_database(fresh_url, "0006", allow_drops=False)
    assert refused.value.drops == ["kept_answers", "rounds.reply_token", "outbox.attempted_seq", "blocked_accounts",
                                    "the owner's notice", "player_shares", "rounds", "games.round_id", "outbox",
                                    "players.seen_locale",
                                    "board_relay", "once_marks", "games.hinted_version",
                                    "games.practice_of",
                                    "community_players"]
    assert await current_revision(fresh_url) == head
    assert {"hinted_version", "practice_of"} <= await _columns(fresh_url, "games")
    assert "community_players" in await _tables(fresh_url)
    # the answers kept, a round reply's token, the outbox's attempts, the owner's blocks and notice, the shares, the
    # rounds, the outbox, the seen locales, the relay's waiting requests and the once-only marks
    assert await downgrade_database(fresh_url, "0008") == ["kept_answers", "rounds.reply_token",
                                                           "outbox.attempted_seq", "blocked_accounts",
                                                           "the owner's notice", "player_shares", "rounds",
                                                           "games.round_id", "outbox", "players.seen_locale",
                                                           "board_relay", "once_marks"]
    assert await downgrade_database(fresh_url, "0007", allow_drops=False) == []  # indexes only: nothing to ask
    assert await current_revision(fresh_url) == "0007"


async def test_0013_adds_rounds_and_its_downgrade_keeps_their_games(fresh_url: URL) -> None:
    """Live rounds come with 0013 (issue 51): a round and its games' link to it; downgrading to 0011 drops both and
    keeps the games, as ordinary games; upgrading again brings the table and the column back, empty."""
    await upgrade_database(fresh_url)
    assert "round_id" in await _columns(fresh_url, "games")
    engine = create_engine(fresh_url)
    try:
        async with engine.begin() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO players (platform, user_id, display_name, created_at) "
                "VALUES ('telegram', '7', 'Mara', CURRENT_TIMESTAMP)")
            await connection.exec_driver_sql(
                "INSERT INTO rounds (platform, chat_id, code, chosen, minutes, started_at, ends_at) "
                "VALUES ('telegram', '-5', 'TP1-E-AAAAAAB', false, 5, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
            await connection.exec_driver_sql(
                "INSERT INTO games (player_id, code, rules, state, score, started_at, updated_at, round_id) "
                "SELECT id, 'TP1-E-AAAAAAB', 'easy', 's', 500, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 1 FROM players")
        await downgrade_database(fresh_url, "0013")  # the later revisions' drops first
        assert await downgrade_database(fresh_url, "0012") == ["rounds", "games.round_id"]
        assert "rounds" not in await _tables(fresh_url)
        assert "round_id" not in await _columns(fresh_url, "games")
        async with engine.connect() as connection:
            kept = (await connection.exec_driver_sql("SELECT code FROM games")).all()
        assert [tuple(row) for row in kept] == [("TP1-E-AAAAAAB",)]
        await upgrade_database(fresh_url)
        assert "round_id" in await _columns(fresh_url, "games") and "rounds" in await _tables(fresh_url)
    finally:
        await engine.dispose()


async def test_0011_adds_the_seen_locale_and_its_downgrade_drops_only_that(fresh_url: URL) -> None:
    """A player's last seen locale comes with 0011; downgrading to 0010 drops the column and keeps the player with
    their own settings; upgrading again brings the column back, empty until the player is seen again."""
    await upgrade_database(fresh_url)
    assert "seen_locale" in await _columns(fresh_url, "players")
    engine = create_engine(fresh_url)
    try:
        async with engine.begin() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO players (platform, user_id, display_name, language, seen_locale, created_at) "
                "VALUES ('telegram', '7', 'Mara', 'de', 'ru', CURRENT_TIMESTAMP)")
        await downgrade_database(fresh_url, "0011")  # the later revisions' drops first
        assert await downgrade_database(fresh_url, "0010") == ["players.seen_locale"]
        assert await current_revision(fresh_url) == "0010"
        assert "seen_locale" not in await _columns(fresh_url, "players")
        async with engine.connect() as connection:
            kept = (await connection.exec_driver_sql("SELECT display_name, language FROM players")).all()
        assert [tuple(row) for row in kept] == [("Mara", "de")]
        await upgrade_database(fresh_url)
        async with engine.connect() as connection:
            seen = (await connection.exec_driver_sql("SELECT seen_locale FROM players")).all()
        assert [tuple(row) for row in seen] == [(None,)]
    finally:
        await engine.dispose()


async def test_0012_puts_the_outbox_in_place_of_the_relay_and_back(fresh_url: URL) -> None:
    """0012 makes the outbox and drops the relay's requests; downgrading to 0011 drops the outbox (asked first) and
    brings the relay's table back, empty; upgrading again makes an empty outbox."""
    await upgrade_database(fresh_url)
    assert "outbox" in await _tables(fresh_url) and "board_relay" not in await _tables(fresh_url)
    engine = create_engine(fresh_url)
    try:
        await downgrade_database(fresh_url, "0012")  # the later revisions' drops first
        with pytest.raises(DowngradeDrops):
            await downgrade_database(fresh_url, "0011", allow_drops=False)
        assert await downgrade_database(fresh_url, "0011") == ["outbox"]
        assert await current_revision(fresh_url) == "0011"
        assert "outbox" not in await _tables(fresh_url) and "board_relay" in await _tables(fresh_url)
        await upgrade_database(fresh_url)
        async with engine.connect() as connection:
            assert (await connection.exec_driver_sql("SELECT count(*) FROM outbox")).scalar() == 0
    finally:
        await engine.dispose()


async def test_0014_keeps_the_players_shares_and_its_downgrade_drops_only_them(fresh_url: URL) -> None:
    """The shares of new solver questions come with 0014; downgrading to 0013 drops the table and
    nothing else (the shares start full again, in each process's memory), and upgrading brings it back empty."""
    await upgrade_database(fresh_url, "0014")
    assert "player_shares" in await _tables(fresh_url)
    await downgrade_database(fresh_url, "0014", allow_drops=True)  # the later revisions' drops first
    assert await downgrade_database(fresh_url, "0013") == ["player_shares"]
    assert "player_shares" not in await _tables(fresh_url) and "seen_locale" in await _columns(fresh_url, "players")
    await upgrade_database(fresh_url)
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert await current_revision(fresh_url) == head and "player_shares" in await _tables(fresh_url)


async def test_0015_owner_keeps_the_blocked_accounts_and_its_downgrade_drops_them_and_the_notice(
        fresh_url: URL) -> None:
    """The owner's blocked accounts come with 0015_owner; downgrading drops them and the owner's notice (asked
    first), never the daily secret; upgrading again brings the table back, empty."""
    await upgrade_database(fresh_url)
    engine = create_engine(fresh_url)
    try:
        async with engine.begin() as connection:
            await connection.exec_driver_sql("INSERT INTO blocked_accounts (platform, user_id, blocked_at) "
                                             "VALUES ('telegram', '7', CURRENT_TIMESTAMP)")
            await connection.exec_driver_sql("INSERT INTO deployment (name, value) VALUES ('owner_notice', 'Soon')")
    finally:
        await engine.dispose()
    await downgrade_database(fresh_url, "0015_owner", allow_drops=True)  # the later revisions' drops first
    with pytest.raises(DowngradeDrops):
        await downgrade_database(fresh_url, "0014", allow_drops=False)
    assert await downgrade_database(fresh_url, "0014", allow_drops=True) == ["blocked_accounts", "the owner's notice"]
    assert "blocked_accounts" not in await _tables(fresh_url)
    engine = create_engine(fresh_url)
    try:
        async with engine.connect() as connection:
            names = {row[0] for row in await connection.exec_driver_sql("SELECT name FROM deployment")}
    finally:
        await engine.dispose()
    assert names == {"daily_secret"}
    await upgrade_database(fresh_url)
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert await current_revision(fresh_url) == head and "blocked_accounts" in await _tables(fresh_url)


async def test_0016_notes_the_outboxs_attempts_and_its_downgrade_drops_only_that(fresh_url: URL) -> None:
    """The outbox's ``attempted_seq`` comes with 0016_door; downgrading to 0015_owner drops that column alone (a row
    waiting to be delivered again is then sent as a first try), and upgrading brings it back."""
    await upgrade_database(fresh_url)
    await downgrade_database(fresh_url, "0016_door")  # the later revisions' drops first
    assert "attempted_seq" in await _columns(fresh_url, "outbox")
    assert await downgrade_database(fresh_url, "0015_owner") == ["outbox.attempted_seq"]
    assert await _columns(fresh_url, "outbox") >= {"seq", "claimed_until", "delivered_at"}
    assert "attempted_seq" not in await _columns(fresh_url, "outbox") and "blocked_accounts" in await _tables(fresh_url)
    await upgrade_database(fresh_url)
    assert "attempted_seq" in await _columns(fresh_url, "outbox")


async def test_0017_keeps_the_rounds_reply_tokens_and_its_downgrade_drops_only_them(fresh_url: URL) -> None:
    """The token a round message that is an interaction's response is edited with comes with 0017_dms; downgrading
    to 0016_door drops that column and nothing else of the rounds, and upgrading brings it back, empty."""
    await upgrade_database(fresh_url)
    await downgrade_database(fresh_url, "0017_dms")  # the later revisions' drops first
    assert "reply_token" in await _columns(fresh_url, "rounds")
    assert await downgrade_database(fresh_url, "0016_door") == ["rounds.reply_token"]
    assert await _columns(fresh_url, "rounds") >= {"message_id", "results_at"}
    assert "reply_token" not in await _columns(fresh_url, "rounds")
    await upgrade_database(fresh_url)
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert await current_revision(fresh_url) == head and "reply_token" in await _columns(fresh_url, "rounds")


async def test_0018_keeps_the_answers_for_every_process_and_its_downgrade_drops_only_them(fresh_url: URL) -> None:
    """The answers kept for every process come with 0018_scale (issue 53); downgrading to 0017_dms drops that table
    and nothing else (each process keeps its own answers in memory again), and upgrading brings it back empty."""
    await upgrade_database(fresh_url)
    assert "kept_answers" in await _tables(fresh_url)
    assert await downgrade_database(fresh_url, "0017_dms") == ["kept_answers"]
    assert "kept_answers" not in await _tables(fresh_url) and "player_shares" in await _tables(fresh_url)
    await upgrade_database(fresh_url)
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert await current_revision(fresh_url) == head and "kept_answers" in await _tables(fresh_url)


def test_operating_guide_names_what_each_downgrade_drops() -> None:
    """docs/operating.md lists, for every revision whose downgrade drops values, what it drops: an operator reads it
    before ``tripeaks db downgrade --yes``."""
    from alembic.script import ScriptDirectory

    guide = (Path(__file__).resolve().parents[1] / "docs" / "operating.md").read_text()
    listed = set(re.findall(r"^\| (\d{4}) \|", guide, re.M))
    script = ScriptDirectory.from_config(alembic_config())
    dropping = {revision.revision[:4] for revision in script.walk_revisions()
                if getattr(revision.module, "downgrade_drops", ())}
    assert dropping and dropping == listed

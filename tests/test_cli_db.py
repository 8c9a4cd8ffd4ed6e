"""`tripeaks db` as an operator types it: no table is dropped without an explicit target (and --yes for base), a
wrong revision is one line and exit status 2; and any command's output into a closed pipe ends quietly."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.daily import daily_code

REPO = Path(__file__).resolve().parent.parent


def tripeaks(tmp_path: Path, *args: str, env_extra: dict[str, str] | None = None,
             **options: object) -> subprocess.CompletedProcess[str]:
    """``tripeaks ARGS`` in ``tmp_path`` on the database ``games.db`` there (``env_extra`` wins)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
    env |= {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'games.db'}", "PYTHONPATH": str(REPO)}
    env |= env_extra or {}
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE} | options
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], text=True, cwd=tmp_path, env=env, timeout=120,
                          check=False, **streams)  # type: ignore[call-overload]


def tables(tmp_path: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(tmp_path / "games.db")) as connection, connection:
        return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def revision(tmp_path: Path) -> str | None:
    with contextlib.closing(sqlite3.connect(tmp_path / "games.db")) as connection, connection:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if row is None else str(row[0])


@pytest.fixture
def migrated(tmp_path: Path, sqlite_template: Path) -> Path:
    """A folder whose ``games.db`` is at the latest revision: a copy of the session's database migrated by
    ``upgrade_database``, which is what ``tripeaks db upgrade`` runs (its own tests below run the command)."""
    shutil.copyfile(sqlite_template, tmp_path / "games.db")
    assert {"games", "players"} <= tables(tmp_path)
    return tmp_path


@pytest.mark.parametrize("args", [("db", "downgrade"), ("db", "downgrade", "base")])
def test_a_downgrade_without_an_explicit_target_drops_nothing(migrated: Path, args: tuple[str, ...]) -> None:
    before, at = tables(migrated), revision(migrated)
    done = tripeaks(migrated, *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert ("--yes" in done.stderr) and ("base" in done.stderr)
    assert tables(migrated) == before and revision(migrated) == at


@pytest.mark.parametrize("target", ["9999", "head", "+1", "-9"])
def test_an_unknown_revision_or_an_impossible_move_is_one_line(migrated: Path, target: str) -> None:
    if target == "head":  # from the first revision, "down to head" is no move at all
        assert tripeaks(migrated, "db", "downgrade", "0001", "--yes").returncode == 0
    before, at = tables(migrated), revision(migrated)
    done = tripeaks(migrated, "db", "downgrade", target)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"tripeaks: db downgrade {target}: ")
    assert tables(migrated) == before and revision(migrated) == at


def test_one_step_down_then_up_and_base_with_yes(migrated: Path) -> None:
    head = revision(migrated)
    refused = tripeaks(migrated, "db", "downgrade", "-1")  # the newest step drops the answers kept: asked first
    assert refused.returncode == 2 and "it would drop kept_answers" in refused.stderr
    assert revision(migrated) == head
    done = tripeaks(migrated, "db", "downgrade", "-1", "--yes")
    assert done.returncode == 0, done.stderr
    assert revision(migrated) != head and "games" in tables(migrated)
    assert tripeaks(migrated, "db", "upgrade").returncode == 0 and revision(migrated) == head
    done = tripeaks(migrated, "db", "downgrade", "base", "--yes")
    assert done.returncode == 0, done.stderr
    said, at = done.stdout.splitlines()
    assert said.startswith("dropped ") and {"players", "games"} <= set(said.removeprefix("dropped ").split(", "))
    assert at == "database at base: no tables of the bot (`tripeaks db upgrade` makes them)"  # not "revision None"
    assert "games" not in tables(migrated)


def test_an_unknown_upgrade_target_is_one_line(migrated: Path) -> None:
    done = tripeaks(migrated, "db", "upgrade", "zzzz")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`tripeaks ... | head -3` where the reader has gone before the first line: no BrokenPipeError, nothing on
    stderr, exit status 141 (128 + SIGPIPE, as a shell reports a command killed by SIGPIPE)."""
    assert tripeaks(tmp_path, "db", "upgrade").returncode == 0  # the daily's code needs the database's secret
    for args in (("deal", "TP1-E-AAAAAAB"), ("play", "TP1-E-AAAAAAB", "d", "d", "u", "--json"),
                 ("daily", "2026-01-01")):
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader is gone: the first write fails with EPIPE
        try:
            done = tripeaks(tmp_path, *args, stdout=write_end)
        finally:
            os.close(write_end)
        assert done.returncode == 141, done.stderr
        assert done.stderr == "", done.stderr


def test_one_step_down_and_up_keeps_the_games(migrated: Path) -> None:
    """The reported loss: `db downgrade -1` on SQLite deleted every game (a table rebuild cascading into games)."""
    with contextlib.closing(sqlite3.connect(migrated / "games.db")) as connection, connection:
        connection.execute("INSERT INTO players (id, platform, user_id, created_at) VALUES (1, 'telegram', '7', "
                           "'2026-12-01 00:00:00')")
        connection.execute("INSERT INTO games (player_id, code, rules, state, score, started_at, updated_at) VALUES "
                           "(1, 'TP1-E-AAAAAAB', 'easy', '1;TP1-E-AAAAAAB', 500, '2026-12-01 00:00:00', "
                           "'2026-12-01 00:00:00')")
    connection.close()
    for args in (("db", "downgrade", "-1", "--yes"), ("db", "upgrade")):
        done = tripeaks(migrated, *args)
        assert done.returncode == 0, done.stderr
        with contextlib.closing(sqlite3.connect(migrated / "games.db")) as connection:
            assert connection.execute("SELECT count(*) FROM games").fetchone()[0] == 1, args


def test_the_daily_code_is_the_deployments_and_no_other_machine_can_compute_it(tmp_path: Path) -> None:
    """Issue 24, point 3: tomorrow's daily cannot be computed without the operator's database. ``tripeaks daily``
    reads the secret its migration generated; another database (another machine) gets other deals, and a folder
    without a database is told so instead of given a code."""
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    missing = tripeaks(ours, "daily", "2026-12-02")
    assert missing.returncode == 2 and "no database at" in missing.stderr and missing.stdout == ""
    days = ["2026-12-02", "2026-12-03", "2026-12-04"]
    codes = {}
    for folder in (ours, theirs):
        assert tripeaks(folder, "db", "upgrade").returncode == 0
        codes[folder] = [json.loads(tripeaks(folder, "daily", day, "--json").stdout)["code"] for day in days]
    with contextlib.closing(sqlite3.connect(ours / "games.db")) as connection, connection:
        (secret,) = connection.execute("SELECT value FROM deployment WHERE name = 'daily_secret'").fetchone()
    assert len(secret) == 64
    assert codes[ours] == [str(daily_code(dt.date.fromisoformat(day), secret)) for day in days]
    assert codes[ours] != codes[theirs]
    again = tripeaks(ours, "daily", days[0])  # the same database, the same code: the secret is kept
    assert again.stdout.split() == [days[0], codes[ours][0]]


def columns(tmp_path: Path, table: str) -> set[str]:
    with contextlib.closing(sqlite3.connect(tmp_path / "games.db")) as connection:
        return {str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})")}


def test_a_downgrade_that_drops_columns_asks_first_and_the_daily_deals_outlive_it(migrated: Path) -> None:
    """Issue 43, point 3: a downgrade that drops columns (0007's ``practice_of`` and ``hinted_version``, and the
    players each community saw) names them and changes nothing without --yes; with it, it says what it dropped;
    and neither it nor a downgrade to base changes a day's daily deal once upgraded again (the secret is kept)."""
    days = ["2026-12-06", "2026-12-07"]

    def codes() -> list[str]:
        return [json.loads(tripeaks(migrated, "daily", day, "--json").stdout)["code"] for day in days]

    before, head, held = codes(), revision(migrated), (tables(migrated), columns(migrated, "games"))
    refused = tripeaks(migrated, "db", "downgrade", "0006")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith("tripeaks: db downgrade 0006: it would drop kept_answers, "
                                     "rounds.reply_token, outbox.attempted_seq, blocked_accounts, "
                                     "the owner's notice, player_shares, rounds, games.round_id, outbox, "
                                     "players.seen_locale, board_relay, once_marks, "
                                     "games.hinted_version, games.practice_of, community_players with their values")
    assert refused.stderr.rstrip().endswith("add --yes if you mean it") and refused.stdout == ""
    assert revision(migrated) == head and (tables(migrated), columns(migrated, "games")) == held

    done = tripeaks(migrated, "db", "downgrade", "0006", "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("dropped kept_answers, rounds.reply_token, outbox.attempted_seq, blocked_accounts, "
                           "the owner's notice, player_shares, rounds, games.round_id, outbox, "
                           "players.seen_locale, board_relay, once_marks, games.hinted_version, games.practice_of, "
                           "community_players\ndatabase at revision 0006\n")
    assert "practice_of" not in columns(migrated, "games") and "deployment" in tables(migrated)
    assert tripeaks(migrated, "db", "upgrade").returncode == 0 and revision(migrated) == head
    assert codes() == before
    assert tripeaks(migrated, "db", "downgrade", "base", "--yes").returncode == 0
    assert tables(migrated) == {"alembic_version", "deployment"}
    assert tripeaks(migrated, "db", "upgrade").returncode == 0
    assert codes() == before

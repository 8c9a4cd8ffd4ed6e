"""The console session's surroundings, as real processes: `--lang` wins over a saved language for the session,
the database is named in one line at the start, and a relative SQLite path means the same file from any folder
(TRIPEAKS_HOME, else the folder of the .env in use)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from bot.app.assembly import App
from bot.app.model import PlayerKey
from bot.store.database import open_database
from tests.app_helpers import set_settings

REPO = Path(__file__).resolve().parent.parent


def console(cwd: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "LOG_LEVEL", "TRIPEAKS_HOME"))}
    full |= {"PYTHONPATH": str(REPO)} | env
    return subprocess.run([sys.executable, "-m", "bot.cli", "console", "--user", "olena", *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd, env=full, timeout=120, check=False)


async def save_language(url: str, language: str) -> None:
    async with App(await open_database(url), owns_database=True) as service:
        await set_settings(service, PlayerKey("console", "olena"), name="olena", language=language)


def test_lang_wins_over_the_saved_language_for_the_session(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    asyncio.run(save_language(url, "ru"))
    saved = console(tmp_path, stdin="rules\n", DATABASE_URL=url)
    chosen = console(tmp_path, "--lang", "uk", stdin="rules\n", DATABASE_URL=url)
    assert saved.returncode == 0 and chosen.returncode == 0, saved.stderr + chosen.stderr
    assert saved.stdout.rstrip().endswith("До свидания! Ваша игра сохранена.")  # the saved language
    assert chosen.stdout.rstrip().endswith("До побачення! Вашу гру збережено.")  # --lang, for this session
    again = console(tmp_path, stdin="rules\n", DATABASE_URL=url)
    assert again.stdout.rstrip().endswith("До свидания! Ваша игра сохранена.")  # the saved one is unchanged


def test_the_database_is_named_at_the_start_without_its_password(tmp_path: Path) -> None:
    done = console(tmp_path, DATABASE_URL="postgresql+asyncpg://bot:Pa55word@127.0.0.1:9/none")
    assert done.returncode == 2
    assert done.stdout.splitlines()[0] == "Games are saved in postgresql+asyncpg://bot:***@127.0.0.1:9/none"
    assert "Pa55word" not in done.stdout + done.stderr


def test_a_relative_sqlite_path_is_the_same_file_from_any_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / ".env").write_text("DATABASE_URL=sqlite+aiosqlite:///data/tripeaks.db\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # from the project and from a folder below it: the file beside the .env
    for cwd in (project, project / "sub"):
        done = console(cwd)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0] == f"Games are saved in {project / 'data' / 'tripeaks.db'}"
    # TRIPEAKS_HOME names the folder from anywhere
    done = console(elsewhere, DATABASE_URL="sqlite+aiosqlite:///data/tripeaks.db", TRIPEAKS_HOME=str(project))
    assert done.stdout.splitlines()[0] == f"Games are saved in {project / 'data' / 'tripeaks.db'}"
    assert not (project / "sub" / "data").exists() and not (elsewhere / "data").exists()


def test_database_url_takes_a_plain_file_path_from_the_current_folder(tmp_path: Path) -> None:
    done = console(tmp_path, "--database-url", "mygames.db", stdin="d\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"Games are saved in {tmp_path / 'mygames.db'}"
    with contextlib.closing(sqlite3.connect(tmp_path / "mygames.db")) as connection:
        assert connection.execute("SELECT count(*) FROM games WHERE moves = 1").fetchone()[0] == 1


def test_brazilian_portuguese_is_accepted_as_the_readme_writes_it(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    by_setting = console(tmp_path, stdin="rules\n", DATABASE_URL=url, DEFAULT_LOCALE="pt_BR")
    by_option = console(tmp_path, "--lang", "pt-br", stdin="rules\n", DATABASE_URL=url)
    english = console(tmp_path, "--lang", "en", stdin="rules\n", DATABASE_URL=url)
    assert by_setting.returncode == by_option.returncode == english.returncode == 0, by_setting.stderr
    assert by_setting.stdout == by_option.stdout != english.stdout

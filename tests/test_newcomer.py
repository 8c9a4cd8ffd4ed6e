"""What a newcomer following the README tripped over (issue 54): settings that do nothing together are said at
start, discord.py's voice warnings are not, a plain SQLite path is a database URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot.config import load_config, start_warnings

REPO = Path(__file__).resolve().parent.parent
CLIENT = {"DISCORD_CLIENT_ID": "123456789012345678", "DISCORD_CLIENT_SECRET": "s" * 32}


def test_an_activity_without_public_url_is_warned_of(tmp_path: Path) -> None:
    env = {"TRIPEAKS_HOME": str(tmp_path)}
    assert start_warnings(load_config(env | CLIENT))[0].startswith(
        "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET are set but PUBLIC_URL is not")
    assert start_warnings(load_config(env | CLIENT | {"PUBLIC_URL": "https://tripeaks.example"})) == []
    assert start_warnings(load_config(env)) == []


def test_discord_start_logs_no_voice_library_warnings() -> None:
    """discord.py warns at every client it makes that PyNaCl and davey are missing; the bot plays no voice."""
    code = ("import logging; logging.basicConfig(level=logging.WARNING)\n"
            "import discord, bot.adapters.discord.client\n"
            "discord.Client(intents=discord.Intents.none())\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60,
                          env=os.environ | {"PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert "voice will NOT be supported" not in done.stderr, done.stderr


def test_a_plain_path_is_a_sqlite_database(tmp_path: Path) -> None:
    """``DATABASE_URL=data/x.db`` was refused; it is that SQLite file, relative to the bot's home folder."""
    env = {"TRIPEAKS_HOME": str(tmp_path)}
    assert load_config(env | {"DATABASE_URL": "data/x.db"}).database_url == f"sqlite+aiosqlite:///{tmp_path}/data/x.db"
    assert load_config(env | {"DATABASE_URL": str(tmp_path / "y.db")}).database_url == \
        f"sqlite+aiosqlite:///{tmp_path}/y.db"

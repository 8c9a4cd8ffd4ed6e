"""`tripeaks owner` as the operator types it at the shell, on the database the bot runs on: the figures (as text and
JSON), a notice and a block the running bot shows and enforces; a mistyped one, or a malformed OWNER_IDS, is one
line and exit status 2."""

from __future__ import annotations

import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.app.assembly import App
from bot.app.commands import Actor, Begin, RandomDeal
from bot.app.effects import SendBoard
from bot.app.errors import Blocked
from bot.app.model import PlayerKey
from bot.app.owner import FRESH
from bot.config import ConfigError, load_config
from bot.store.database import open_database
from tests.conftest import fake_hint, fake_verdict
from tests.test_cli_db import tripeaks
from tests.test_owner import Ticking, refused

CAROL = Actor(PlayerKey("telegram", "7"), "Carol")
ANN = Actor(PlayerKey("discord", "100"), "Ann")


@pytest.fixture
def migrated(tmp_path: Path, sqlite_template: Path) -> Path:
    shutil.copyfile(sqlite_template, tmp_path / "games.db")
    return tmp_path


async def test_the_operators_block_and_notice_reach_the_running_bot(migrated: Path) -> None:
    db = await open_database(f"sqlite+aiosqlite:///{migrated / 'games.db'}", migrate=False)
    with ThreadPoolExecutor(2) as executor:
        async with App(db, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict) as bot:
            ticking = bot.owners.monotonic = Ticking()
            (board,) = await bot.flow.handle(ANN, Begin(RandomDeal()))  # the bot reads the blocks and the notice
            assert isinstance(board, SendBoard)

            blocked = tripeaks(migrated, "owner", "block", "telegram:7")
            assert (blocked.returncode, blocked.stdout, blocked.stderr) == \
                (0, "telegram:7 is blocked: its commands are refused.\n", "")
            noticed = tripeaks(migrated, "owner", "notice", "Back", "at", "18:00", "UTC")
            assert noticed.returncode == 0 and "Back at 18:00 UTC" in noticed.stdout

            ticking.now += FRESH  # what it read is that old: it reads them again
            assert refused(await bot.flow.handle(CAROL, Begin(RandomDeal())), Blocked)
            (board,) = await bot.flow.handle(ANN, Begin(RandomDeal()))
            assert isinstance(board, SendBoard) and board.snapshot.owner_notice == "Back at 18:00 UTC"
    await db.close()

    stats = tripeaks(migrated, "owner", "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    figures = json.loads(stats.stdout)
    assert figures == {"players": 1, "games_today": 2, "games_total": 2, "wins": 0, "dailies_today": 0,
                       "live_rounds": 0, "outbox_backlog": 0, "blocked": 1, "notice": "Back at 18:00 UTC"}
    text = tripeaks(migrated, "owner", "stats")
    assert text.stdout.startswith("The bot in figures\nPlayers: 1\nGames today: 2, in all: 2\n")

    unblocked = tripeaks(migrated, "owner", "unblock", "telegram:7")
    assert unblocked.stdout == "telegram:7 is unblocked.\n"
    assert tripeaks(migrated, "owner", "notice", "off").stdout == "The notice is off: players no longer see it.\n"
    assert json.loads(tripeaks(migrated, "owner", "stats", "--json").stdout)["blocked"] == 0


@pytest.mark.parametrize(("args", "said"), [
    (("owner", "block", "icq:1"), "tripeaks: owner block: write it as block platform:id (telegram:123, discord:456)"),
    (("owner", "block"), "tripeaks: owner: stats | notice TEXT... | notice off | block PLATFORM:ID | unblock "
                         "PLATFORM:ID"),
    (("owner", "notice", "x" * 121), "tripeaks: owner notice: write it as notice <text of 1-120 characters> | "
                                     "notice off"),
])
def test_a_mistyped_owner_command_is_one_line(migrated: Path, args: tuple[str, ...], said: str) -> None:
    done = tripeaks(migrated, *args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", said + "\n")


@pytest.mark.parametrize("command", [("owner", "stats"), ("run",)])
def test_a_malformed_owner_ids_is_one_line_and_exit_status_2(migrated: Path, command: tuple[str, ...]) -> None:
    """At the shell and at the bot's start alike, as any other bad setting."""
    done = tripeaks(migrated, *command, env_extra={"OWNER_IDS": "telegram:1,123"}, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("tripeaks: OWNER_IDS must be comma-separated platform:id (telegram:123,discord:456), "
                           "not '123'\n")
    assert load_config({"OWNER_IDS": " telegram:1 , discord:22,"}).owner_ids == \
        {PlayerKey("telegram", "1"), PlayerKey("discord", "22")}
    with pytest.raises(ConfigError, match="OWNER_IDS"):
        load_config({"OWNER_IDS": "slack:U1"})

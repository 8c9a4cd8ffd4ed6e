"""`tripeaks health`: the running bot's heartbeat says it is up; a stopped, stuck or half-up bot is not healthy.

The real bot (`tripeaks run` against the fake Telegram Bot API) writes the heartbeat while it serves, `tripeaks
health` then exits 0; after SIGTERM the heartbeat is gone and `tripeaks health` exits 1. The staleness and a part
that is down are checked on the file itself, with a given clock."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from bot.heartbeat import HEARTBEAT_STALE, beat_until_cancelled, check_health, write_beat
from core.solver import solver_description
from tests.fakes.telegram_bot_api import FakeBotAPI

REPO = Path(__file__).resolve().parent.parent


def test_a_recent_beat_with_every_part_up_is_healthy(tmp_path: Path) -> None:
    beat = tmp_path / "heartbeat"
    write_beat(beat, {"database": True, "telegram": True}, now=1000.0)
    assert check_health(beat, now=1004.0) == check_health(beat, now=1004.2)
    health = check_health(beat, now=1004.0)
    assert health.healthy and health.message == "up: database, telegram (last heartbeat 4 s ago)"


def test_a_stale_beat_a_part_down_or_no_beat_is_not_healthy(tmp_path: Path) -> None:
    beat = tmp_path / "heartbeat"
    assert check_health(beat, now=0).message == f"no heartbeat at {beat}: the bot is not running"
    write_beat(beat, {"database": True, "discord": True}, now=1000.0)
    stale = check_health(beat, now=1001.0 + HEARTBEAT_STALE)
    assert not stale.healthy and "stuck or stopped" in stale.message
    write_beat(beat, {"database": False, "discord": True, "telegram": False}, now=1000.0)
    assert check_health(beat, now=1000.0) == check_health(beat, now=1000.0)
    assert check_health(beat, now=1000.0).message == "not up: database, telegram"
    beat.write_text("{half a fi")
    assert not check_health(beat, now=1000.0).healthy


async def test_the_beat_is_rewritten_while_running_and_removed_when_cancelled(tmp_path: Path) -> None:
    beat = tmp_path / "run" / "heartbeat"
    asked = 0
    second = asyncio.Event()

    async def parts() -> dict[str, bool]:
        nonlocal asked
        asked += 1
        if asked == 2:  # the first beat is written by now
            second.set()
        return {"database": True}

    task = asyncio.create_task(beat_until_cancelled(beat, parts, interval=0))
    await asyncio.wait_for(second.wait(), timeout=10)
    assert json.loads(beat.read_text())["up"] == {"database": True}
    assert json.loads(beat.read_text())["pid"] == os.getpid()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not beat.exists() and not list(beat.parent.iterdir())


async def _tripeaks(cwd: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", *args, cwd=cwd, env=env,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, out.decode() + err.decode()


async def test_the_running_bot_is_healthy_and_a_stopped_one_is_not(tmp_path: Path) -> None:
    beat = tmp_path / "heartbeat"
    async with FakeBotAPI() as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
        env |= {"TELEGRAM_TOKEN": api.token, "TELEGRAM_API_URL": api.base_url, "PYTHONPATH": str(REPO),
                "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}", "HEARTBEAT_FILE": str(beat)}
        status, said = await _tripeaks(tmp_path, env, "health")
        assert (status, said) == (1, f"no heartbeat at {beat}: the bot is not running\nsolver: {solver_description()}\n")

        bot = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            ann = api.user("Ann")
            reply = await api.send_text(ann, api.private_chat(ann), "/tripeaks TP1-E-AAAAAAB").reply(timeout=60)
            assert "TP1-E-AAAAAAB" in reply.text  # the bot serves
            deadline = time.monotonic() + 30
            while not beat.exists() and time.monotonic() < deadline:  # its first beat follows its start at once
                await asyncio.sleep(0.05)
            status, said = await _tripeaks(tmp_path, env, "health")
            assert status == 0, said
            assert said.startswith("up: database, telegram (last heartbeat ")
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(bot.communicate(), timeout=60)
        assert bot.returncode == 143, err.decode()
        assert not beat.exists()
        status, said = await _tripeaks(tmp_path, env, "health")
        assert (status, said) == (1, f"no heartbeat at {beat}: the bot is not running\nsolver: {solver_description()}\n")


async def test_health_without_a_heartbeat_file_says_so(tmp_path: Path) -> None:
    """Exit status 1 (not known to be up), as the README says health exits 0 or 1: never a usage error's 2."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEARTBEAT_")} | {"PYTHONPATH": str(REPO)}
    status, said = await _tripeaks(tmp_path, env, "health")
    assert status == 1 and said.startswith("tripeaks: HEARTBEAT_FILE is not set") and said.count("\n") == 1

"""`tripeaks run` as an operator starts it: a real process with a Telegram token, talking to a local Bot API
server; a player taps; SIGTERM (or SIGINT) stops it cleanly with the game saved, exit status 143 (130), no
traceback, no process of ours left behind (solver workers, the resource tracker), and no log line holds the token.
How long a stop takes is no assertion here (a loaded machine makes it slow); the process must end, and does."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from bot.app.assembly import App
from bot.app.model import PlayerKey
from bot.store.database import open_database
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.processes import descendants, still_running

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
async def test_run_serves_telegram_and_stops_cleanly(tmp_path: Path, stop_signal: signal.Signals) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    async with FakeBotAPI() as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
        env |= {"TELEGRAM_TOKEN": api.token, "TELEGRAM_API_URL": api.base_url, "DATABASE_URL": database,
                "LOG_LEVEL": "DEBUG", "PYTHONPATH": str(REPO)}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True)  # a process group of its own, as a terminal's foreground job
        try:
            ann = api.user("Ann", language_code="uk")
            chat = api.private_chat(ann)
            game_message = await api.send_text(ann, chat, "/tripeaks TP1-E-AAAAAAB").reply(timeout=60)
            assert "TP1-E-AAAAAAB" in game_message.text and "Рахунок: 500" in game_message.text
            draw = next(data for _, data in sum(game_message.keyboard, []) if data.endswith(":d"))
            press = api.press(ann, chat, game_message.message_id, draw)
            await press.answer()
            assert "Рахунок: 499" in (await press.edited()).text
            ours = descendants(process.pid)
            assert ours, "the solver workers run in processes of their own"
        finally:
            if process.returncode is None:
                if stop_signal == signal.SIGINT:  # Ctrl-C: the terminal signals the whole group, workers too
                    os.killpg(process.pid, stop_signal)
                else:
                    process.send_signal(stop_signal)
            out, err = await asyncio.wait_for(process.communicate(), timeout=60)  # it stops

    assert process.returncode == 128 + stop_signal, err.decode()
    assert still_running(ours) == {}
    log = err.decode()
    assert "Traceback" not in log
    assert api.token not in log and api.token.split(":")[1] not in log + out.decode()
    entries = [json.loads(line) for line in log.splitlines() if line.strip()]
    assert {"time", "level", "logger", "message"} <= set(entries[0])
    assert any(entry["message"] == "stopped" for entry in entries)
    # the tap is on disk after the stop
    async with App(await open_database(database, migrate=False), owns_database=True) as service:
        stored = await service.games.current_game(PlayerKey("telegram", str(ann.id)))
    assert stored is not None and stored.game.moves == 1 and stored.game.score == 499

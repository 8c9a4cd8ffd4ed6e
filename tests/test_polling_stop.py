"""A SIGTERM while `tripeaks run` long-polls a Telegram that holds getUpdates as the real one does: the poll is
held open (timeout 10 s), and a getUpdates repeated within 3 s with the same offset is held 3 s too
(``FakeBotAPI(hold_repeated_polls=True)``). The bot stops cleanly and soon: exit status 143, no ERROR line, no
traceback, well under PTB's 5-s read timeout."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.telegram_bot_api import FakeBotAPI

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parent.parent

#: Generous: the stop takes about a second on an idle machine; PTB's read timeout (5 s) is what it must not wait.
STOP_WITHIN = 3.0


def polling(api: FakeBotAPI, offset: int, held_for: float) -> bool:
    """True while a long poll with ``offset`` (the updates before it confirmed) has been held open ``held_for``."""
    return any(request.method == "getUpdates" and not request.done and int(request.params.get("offset") or 0) == offset
               and float(request.params.get("timeout") or 0) > 0 and time.time() - request.time >= held_for
               for request in api.requests)


# the stop right after the long poll went out (the bot cannot know Telegram has it: it confirms again, briefly),
# and a while after (Telegram has it: nothing to confirm)
@pytest.mark.parametrize("held_for", [0.0, 1.5])
async def test_sigterm_while_long_polling_stops_at_once_and_quietly(tmp_path: Path, held_for: float) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    async with FakeBotAPI(hold_repeated_polls=True) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
        env |= {"TELEGRAM_TOKEN": api.token, "TELEGRAM_API_URL": api.base_url, "DATABASE_URL": database,
                "PYTHONPATH": str(REPO)}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
        try:
            ann = api.user("Ann")
            chat = api.private_chat(ann)
            sent = api.send_text(ann, chat, "/tripeaks TP1-E-AAAAAAB")
            assert "TP1-E-AAAAAAB" in (await sent.reply(timeout=60)).text
            await api.wait_until(lambda: polling(api, sent.update_id + 1, held_for), what="the next long poll")
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(process.communicate(), timeout=60)
            took = time.monotonic() - started
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        log = err.decode()
        assert process.returncode == 128 + signal.SIGTERM, log
        entries = [json.loads(line) for line in log.splitlines() if line.strip()]
        assert [entry for entry in entries if entry["level"] in ("ERROR", "CRITICAL")] == [], log
        assert "Traceback" not in log
        assert any(entry["message"] == "stopped" for entry in entries)
        assert took < STOP_WITHIN, f"the stop took {took:.2f} s"
        print(f"SIGTERM to exit, the long poll held {held_for} s: {took:.2f} s")

"""A SIGTERM while `tripeaks run` long-polls a Telegram that holds getUpdates as the real one does: the poll is
held open (timeout 10 s), and a getUpdates repeated within 3 s with the same offset is held 3 s too
(``FakeBotAPI(hold_repeated_polls=True)``). The bot stops cleanly and soon: exit status 143, no ERROR line, no
traceback, well under PTB's 5-s read timeout."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import pytest

from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_outbox_crash import bot_process

pytestmark = pytest.mark.timeout(180)

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
    async with FakeBotAPI(hold_repeated_polls=True) as api, bot_process(api, database, tmp_path) as process:
        ann = api.user("Ann")
        chat = api.private_chat(ann)
        sent = api.send_text(ann, chat, "/tripeaks TP1-E-AAAAAAB")
        assert "TP1-E-AAAAAAB" in (await sent.reply(timeout=60)).text
        await api.wait_until(lambda: polling(api, sent.update_id + 1, held_for), what="the next long poll")
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
        took = time.monotonic() - started
        log = err.decode()
        assert process.returncode == 128 + signal.SIGTERM, log
        entries = [json.loads(line) for line in log.splitlines() if line.strip()]
        assert [entry for entry in entries if entry["level"] in ("ERROR", "CRITICAL")] == [], log
        assert "Traceback" not in log
        assert any(entry["message"] == "stopped" for entry in entries)
        assert took < STOP_WITHIN, f"the stop took {took:.2f} s"
        print(f"SIGTERM to exit, the long poll held {held_for} s: {took:.2f} s")

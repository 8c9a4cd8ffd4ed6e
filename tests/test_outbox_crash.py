"""The outbox survives a crash: a real `tripeaks run` process (Telegram, on the fake Bot API) commits the end of a
game started from a challenge, with its challenger's message in the outbox, and is killed (SIGKILL, its whole
process group) while that message is on its way, before Telegram took it (the attempt noted before the send).
Started again, the bot delivers it, once, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from bot.app.assembly import App
from bot.app.commands import Actor, Begin
from bot.app.model import PlayerKey
from bot.render.endings import challenge_of
from bot.store.database import open_database
from core.game import Game, Tap
from tests.conftest import fake_hint, fake_verdict
from tests.core_helpers import winning_line
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_service import WIN_CODE, play

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parent.parent


@contextlib.asynccontextmanager
async def bot_process(api: FakeBotAPI, database: str, cwd: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    """`tripeaks run` with Telegram on ``api`` and the database at ``database``, in a process group of its own;
    stopped with SIGTERM on leaving unless it was killed."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "PUBLIC_URL", "WEB_"))}
    env |= {"TELEGRAM_TOKEN": api.token, "TELEGRAM_API_URL": api.base_url, "DATABASE_URL": database,
            "PYTHONPATH": str(REPO)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", cwd=cwd, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    try:
        yield process
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.communicate(), timeout=60)


async def told_rows(url: str, attempted: bool = False) -> list[tuple[str, bool]]:
    """The outbox's challenger messages: (chat, delivered), or (``attempted``) (chat, handed to the platform)."""
    db = await open_database(url, migrate=False)
    said = "attempted_seq = seq" if attempted else "delivered_at IS NOT NULL"
    try:
        async with db.reading() as tx:
            rows = await tx.exec_driver_sql(f"SELECT chat_id, {said} FROM outbox WHERE kind = 'tell'")
            return [(str(chat), bool(done)) for chat, done in rows]
    finally:
        await db.close()


async def test_a_message_committed_then_cut_off_by_a_kill_is_delivered_once_after_the_restart(
        db_url: URL, tmp_path: Path) -> None:
    url = db_url.render_as_string(hide_password=False)
    async with FakeBotAPI() as api:
        alice, bob = api.user("Alice"), api.user("Bob")
        alice_chat, bob_chat = api.private_chat(alice), api.private_chat(bob)
        ann, ben = PlayerKey("telegram", str(alice.id)), PlayerKey("telegram", str(bob.id))
        line = winning_line(WIN_CODE)
        # Alice won the deal in her chat; Bob took up her challenge and is one card from winning it
        async with App(await open_database(url, migrate=False), hint_function=fake_hint,
                       verdict_function=fake_verdict, owns_database=True) as service:
            shared = await service.starts.new_game(ann, "Alice", code=WIN_CODE, chat_id=str(alice.id))
            await play(service, ann, shared.game_id, shared.version, list(line))
            challenge = challenge_of(await service.challenges.signed(await service.games.game(shared.game_id)))
            assert challenge is not None
            await service.flow.handle(Actor(ben, "Bob", chat_id=str(bob.id)), Begin(challenge))
            taken = await service.games.current_game(ben)
            assert taken is not None
            await play(service, ben, taken.game_id, taken.version, list(line[:-1]))
        last = line[-1]
        assert isinstance(last, Tap)
        game = Game.from_code(WIN_CODE)
        for action in line[:-1]:
            game.apply(action)
        card = game.card_at(last.slot)

        # the first process: Bob's last card wins; Alice's message is committed with it, and held on its way
        api.delay_next("sendMessage", chat=alice_chat, seconds=3600)
        async with bot_process(api, url, tmp_path) as first:
            await api.send_text(bob, bob_chat, f"/play {card}").reply(timeout=60)
            await api.wait_until(lambda: api.in_flight("sendMessage") != [], timeout=60,
                                 what="Alice's message on its way")
            os.killpg(first.pid, signal.SIGKILL)  # the process and its solver workers, mid-send
            await first.wait()
        assert first.returncode == -signal.SIGKILL
        assert api.bot_messages(alice_chat) == []  # Telegram never took it
        assert await told_rows(url) == [(str(alice.id), False)]  # but it is committed, waiting
        assert await told_rows(url, attempted=True) == [(str(alice.id), True)]  # noted before the send

        # started again: delivered (once the dead process's claim has run out), once
        async with bot_process(api, url, tmp_path) as second:
            await api.wait_until(lambda: api.bot_messages(alice_chat) != [], timeout=90,
                                 what="Alice to be told after the restart")
            for _ in range(600):  # until the process has marked it delivered: nothing more will come
                if await told_rows(url) == [(str(alice.id), True)]:
                    break
                await asyncio.sleep(0.1)
            assert await told_rows(url) == [(str(alice.id), True)]
        assert second.returncode == 128 + signal.SIGTERM
        (told,) = api.bot_messages(alice_chat)
        assert told.text.startswith("You vs Bob") and "Bob" in told.text.splitlines()[-1]

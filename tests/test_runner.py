"""`tripeaks run` as an operator starts it: a real process with a Telegram token, talking to a local Bot API
server; a player taps; SIGTERM (or SIGINT) stops it cleanly with the game saved, exit status 143 (130), no
traceback, no process of ours left behind (solver workers, the resource tracker), and no log line holds the token.
How long a stop takes is no assertion here (a loaded machine makes it slow); the process must end, and does.

Coming back: a platform or the PostgreSQL server that cannot be reached at start (an address that refuses
connections, as with the network down at boot) is waited out, logged once, and the bot serves as soon as it comes
up; a refused token then still stops the bot at once. And `make run` ends quietly on Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot import reachable, runner
from bot.app.assembly import App
from bot.app.model import PlayerKey
from bot.config import Config, TokenRejected
from bot.store.database import open_database
from tests.conftest import PostgresServer
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.processes import descendants, in_group, still_running
from tests.terminal import PROMPT, Terminal
from tests.test_secrets import DISCORD_TOKEN, discord_rejecting  # noqa: F401 - a fixture used below

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
    # the fake's bot has no inline mode (BotFather's /setinline): the log says so, and what to do
    assert any(entry["message"].startswith("telegram started, inline mode off (@BotFather /setinline")
               for entry in entries)
    # the tap is on disk after the stop
    async with App(await open_database(database, migrate=False), owns_database=True) as service:
        stored = await service.games.current_game(PlayerKey("telegram", str(ann.id)))
    assert stored is not None and stored.game.moves == 1 and stored.game.score == 499


# --- a platform that is not up yet -----------------------------------------------------------------------------


def refusing_port() -> int:
    """A port of 127.0.0.1 where nothing listens (yet): a connection there is refused, as with the network down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.asynccontextmanager
async def forwarding(port: int, to: int) -> AsyncIterator[None]:
    """From now on, ``port`` answers: every connection to it is passed through to ``to`` (the platform comes up)."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", to)
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer), return_exceptions=True)

    server = await asyncio.start_server(connect, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()


@pytest.mark.parametrize("absent", ["telegram", pytest.param("database", marks=pytest.mark.postgres)])
async def test_what_is_not_up_at_start_is_waited_out_and_then_the_bot_serves(
        tmp_path: Path, absent: str, request: pytest.FixtureRequest) -> None:
    """Telegram's Bot API, or the PostgreSQL server, refuses connections when the bot starts (the network is not
    up yet): the bot logs it once and tries again (each try a debug line) until it answers, then serves."""
    port = refusing_port()
    if absent == "database":
        server: PostgresServer = request.getfixturevalue("postgres_server")
        real = server.create_database("comeback")
        database, to = real.set(host="127.0.0.1", port=port), real.port or 5432
    else:
        database = make_url(f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")
    async with FakeBotAPI(supports_inline_queries=True) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
        env |= {"TELEGRAM_TOKEN": api.token, "DATABASE_URL": database.render_as_string(hide_password=False),
                "TELEGRAM_API_URL": f"http://127.0.0.1:{port}/bot" if absent == "telegram" else api.base_url,
                "LOG_LEVEL": "DEBUG", "PYTHONPATH": str(REPO)}
        if absent == "telegram":
            to = api.port
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
        assert process.stderr is not None
        seen: list[str] = []
        try:
            while not any(f"{absent}: try 2 failed" in line for line in seen):  # it tried twice and goes on
                line = (await asyncio.wait_for(process.stderr.readline(), timeout=60)).decode()
                assert line, "the bot ended: " + "".join(seen)
                seen.append(line)
            async with forwarding(port, to):
                ann = api.user("Ann")
                reply = await api.send_text(ann, api.private_chat(ann), "/tripeaks TP1-E-AAAAAAB").reply(timeout=60)
                assert "TP1-E-AAAAAAB" in reply.text
                process.send_signal(signal.SIGTERM)
                _, rest = await asyncio.wait_for(process.communicate(), timeout=60)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert process.returncode == 143
    entries = [json.loads(line) for line in "".join(seen).splitlines() + rest.decode().splitlines()]
    warnings = [entry["message"] for entry in entries if entry["level"] == "WARNING"]
    said = "Telegram cannot be reached (" if absent == "telegram" else "the database postgresql+asyncpg://"
    assert len(warnings) == 1 and warnings[0].startswith(said), warnings
    assert any(entry["message"].startswith(f"{absent} reached at try ") for entry in entries)
    assert not any("Traceback" in entry.get("exception", "") for entry in entries)
    started = next(entry["message"] for entry in entries if entry["message"].startswith("telegram started"))
    assert started == "telegram started, inline mode on"  # the README's step 2.4 tells to look for this line
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "then restart the bot (it reads the setting when it starts, and logs `telegram started, inline mode on`" \
        in readme


async def test_a_discord_that_cannot_be_reached_is_waited_out_and_a_refused_token_then_stops_at_once(
        tmp_path: Path, discord_rejecting: list[str], monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        caplog: pytest.LogCaptureFixture) -> None:
    import discord.http

    rejecting_port = int(discord.http.Route.BASE.split(":")[2].split("/")[0])
    port = refusing_port()
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    monkeypatch.setattr(reachable, "RETRY_PAUSES", (0.01, 0.02))
    third_try = asyncio.Event()

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("discord: try 3 failed"):
                third_try.set()

    watch = Watch()
    logging.getLogger("tripeaks").addHandler(watch)
    caplog.set_level(logging.DEBUG, logger="tripeaks")
    config = Config(discord_token=DISCORD_TOKEN, database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")
    running = asyncio.ensure_future(runner.run_bot(config))
    try:
        await asyncio.wait_for(third_try.wait(), timeout=60)
        assert not running.done() and discord_rejecting == []
        async with forwarding(port, rejecting_port):
            with pytest.raises(TokenRejected, match="^DISCORD_TOKEN was rejected by Discord$"):
                await asyncio.wait_for(running, timeout=60)
    finally:
        logging.getLogger("tripeaks").removeHandler(watch)
        running.cancel()
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].startswith("Discord cannot be reached ("), warnings
    assert discord_rejecting == ["GET /api/v10/users/@me"]
    assert not [record for record in caplog.records if "Unclosed" in record.getMessage()]


# --- make run --------------------------------------------------------------------------------------------------


def test_make_run_ends_quietly_on_ctrl_c(tmp_path: Path) -> None:
    """`make run` without tokens is the console game; Ctrl-C there (the terminal signals its whole foreground group:
    make, the recipe's shell and the bot) ends it without make's "*** [run] Error 130", and nothing is left."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    terminal = Terminal(tmp_path, command=["make", "--no-print-directory", "run"], cwd=REPO,
                        env={"DISCORD_TOKEN": "", "TELEGRAM_TOKEN": ""})  # over any .env of the project folder
    try:
        terminal.wait_for(PROMPT)  # the console waits for a move
        terminal.ctrl_c()
        status = terminal.wait()
    finally:
        terminal.close()
    screen = terminal.screen
    assert "make:" not in screen and "Error" not in screen and "Traceback" not in screen, screen[-1500:]
    assert status == 128 + signal.SIGINT  # make ends as any program Ctrl-C stopped
    assert still_running(in_group(terminal.process.pid)) == {}

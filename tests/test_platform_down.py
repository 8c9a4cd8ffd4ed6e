"""One platform down leaves the rest up (issue 53): with both tokens set and Discord out of reach at start, Telegram
and the table serve at once; ``GET /readyz`` and ``tripeaks health`` say which part is down, ``GET /healthz`` that
the process is alive; a busy WEB_PORT is named with its setting."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import bot.platforms
from bot import runner
from bot.config import Config, PortTaken, Unreachable
from bot.heartbeat import check_ready
from tests.fakes.telegram_bot_api import FakeBotAPI


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class DiscordAway:
    """Discord as the bot meets it with the network to it down: every try to connect is :class:`Unreachable`."""

    name = "discord"
    boards: Any = None

    def __init__(self) -> None:
        self.tries = 0
        self.tried = asyncio.Event()

    def sender(self) -> Any:
        raise AssertionError("a platform that is not up posts nothing")

    async def start(self) -> None:
        self.tries += 1
        self.tried.set()
        raise Unreachable("Discord cannot be reached (the test's network is down)")

    async def stop(self) -> None:
        pass

    def up(self) -> tuple[str, bool]:
        return self.name, False


@pytest.fixture
def discord_away(monkeypatch: pytest.MonkeyPatch) -> Iterator[DiscordAway]:
    away = DiscordAway()
    real = bot.platforms.platforms_of

    def platforms_of(service: Any, config: Config) -> Iterator[Any]:
        yield from real(service, dataclasses.replace(config, discord_token=None))
        yield away

    monkeypatch.setattr(bot.platforms, "platforms_of", platforms_of)
    yield away


async def test_discord_out_of_reach_holds_up_neither_telegram_nor_the_table(tmp_path: Path,
                                                                             discord_away: DiscordAway) -> None:
    port = free_port()
    async with FakeBotAPI() as api:
        config = Config(telegram_token=api.token, telegram_api_url=api.base_url, discord_token="discord token",
                        database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}", web_port=port,
                        web_port_set=True, public_url=f"http://127.0.0.1:{port}")
        stop = runner.StopSignals()
        serving = asyncio.create_task(runner._serve(config, stop))
        try:
            await asyncio.wait_for(discord_away.tried.wait(), 60)
            ann = api.user("Ann")
            reply = await api.send_text(ann, api.private_chat(ann), "/tripeaks TP1-E-AAAAAAB").reply(timeout=60)
            assert "TP1-E-AAAAAAB" in reply.text  # Telegram serves while Discord is away
            async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as http:
                async with http.get("/healthz") as alive:
                    assert alive.status == 200
                async with http.get("/readyz") as ready:
                    assert ready.status == 503
                    assert await ready.json() == {"database": True, "telegram": True, "discord": False,
                                                  "table": True}
                async with http.get("/api/words?lang=en") as page:
                    assert page.status == 200  # the table serves
            health = await asyncio.to_thread(check_ready, f"http://127.0.0.1:{port}/readyz")
            assert not health.healthy and health.message == "not up: discord"
            assert not serving.done()
        finally:
            stop.event.set()
            status = await asyncio.wait_for(serving, 60)
    assert status == 0


async def test_every_part_up_is_ready(tmp_path: Path) -> None:
    port = free_port()
    async with FakeBotAPI() as api:
        config = Config(telegram_token=api.token, telegram_api_url=api.base_url, web_port=port, web_port_set=True,
                        database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")
        stop = runner.StopSignals()
        serving = asyncio.create_task(runner._serve(config, stop))
        try:
            ann = api.user("Ann")
            await api.send_text(ann, api.private_chat(ann), "/tripeaks TP1-E-AAAAAAB").reply(timeout=60)
            health = await asyncio.to_thread(check_ready, f"http://127.0.0.1:{port}/readyz")
            assert health.healthy and health.message == "up: database, telegram, table"
        finally:
            stop.event.set()
            await asyncio.wait_for(serving, 60)
    health = await asyncio.to_thread(check_ready, f"http://127.0.0.1:{port}/readyz")
    assert not health.healthy and health.message.endswith("the bot is not running")


async def test_a_busy_web_port_is_named_with_its_setting(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with FakeBotAPI() as api:
            config = Config(telegram_token=api.token, telegram_api_url=api.base_url, web_port=port,
                            web_port_set=True, database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")
            with pytest.raises(PortTaken) as error:
                await asyncio.wait_for(runner._serve(config, runner.StopSignals()), 60)
    said = str(error.value)
    assert said.startswith(f"WEB_PORT {port} on WEB_HOST 127.0.0.1 cannot be listened on") and "database" not in said
    assert json.dumps(said).count("\\n") == 0


def test_a_busy_web_port_exits_with_a_status_the_service_restarts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """One line naming the port and its setting, and exit status 1: the unit restarts it (the program holding the
    port may be the bot's previous run, still stopping), unlike its settings' 2."""
    from bot.cli import EXIT_USAGE, main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for name in ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "PUBLIC_URL", "HEARTBEAT_FILE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")
        monkeypatch.setenv("WEB_PORT", str(port))
        monkeypatch.setenv("TELEGRAM_TOKEN", "123456:" + "A" * 35)
        monkeypatch.setenv("TELEGRAM_API_URL", "http://127.0.0.1:9/bot")  # out of reach: tried again meanwhile
        status = main(["run"])
    said = capsys.readouterr().err.strip().splitlines()
    assert status == 1 != EXIT_USAGE
    assert said[-1].startswith(f"tripeaks: WEB_PORT {port} on WEB_HOST 127.0.0.1 cannot be listened on")

"""``GET /metrics`` (issue 53): what an operator watches, in Prometheus's format, counted where it happens: taps
and commands by platform and kind with their handling time (and a line at INFO each), hints, the table's streams,
the database pool, the solver's waits and busy answers, Telegram's flood control."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families
from telegram.error import RetryAfter

from bot.adapters.telegram.sending import persist
from bot.adapters.web.auth import Signer
from bot.adapters.web.server import TableServer
from bot.app.assembly import App
from bot.app.model import PlayerKey
from bot.app.solver_pool import INTERACTIVE, SolverPool, Workers
from tests.web_harness import TOKEN, init_data_header


@pytest.fixture
async def client(service: App) -> AsyncIterator[TestClient[Any, Any]]:
    server = TableServer(service.flow, Signer(b"s" * 32), telegram_token=TOKEN)
    async with TestClient(TestServer(server.application())) as test_client:
        yield test_client


async def samples(client: TestClient[Any, Any]) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = await client.get("/metrics")
    assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/plain")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(await answer.text()) for sample in family.samples}


def value(found: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_taps_hints_and_streams_are_counted_and_each_command_logged(
        client: TestClient[Any, Any], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "tripeaks.commands")
    before = await samples(client)
    table = await (await client.get("/api/table", headers=init_data_header(7))).json()
    board = table["board"]
    await client.post("/api/act", json={"payload": board["stock"]["payload"]}, headers=init_data_header(7))
    version = board["version"] + 1
    await client.post("/api/act", json={"payload": f"tp:g:{board['game']}:{version}:h"},
                      headers=init_data_header(7))
    async with client.get("/api/events", headers=init_data_header(7)) as stream:
        await stream.content.readuntil(b"\n\n")
        during = await samples(client)
    after = await samples(client)
    moves = ("tripeaks_commands_total", {"platform": "telegram", "kind": "Move"})
    assert value(after, moves[0], **moves[1]) == value(before, moves[0], **moves[1]) + 1
    assert value(after, "tripeaks_command_seconds_count", platform="telegram", kind="Move") >= 1
    assert value(after, "tripeaks_commands_total", platform="telegram", kind="AskHint") >= 1
    assert value(after, "tripeaks_hints_total") == value(before, "tripeaks_hints_total") + 1
    assert value(during, "tripeaks_event_streams_open") == value(before, "tripeaks_event_streams_open") + 1
    assert value(after, "tripeaks_database_pool_size") >= 1
    lines = [record.getMessage() for record in caplog.records if record.name == "tripeaks.commands"]
    assert any(line.startswith("telegram Move ") and line.endswith(" ms") for line in lines), lines


async def test_telegrams_flood_control_is_counted_with_its_pause(client: TestClient[Any, Any]) -> None:
    before = await samples(client)
    tries = 0

    async def send() -> str:
        nonlocal tries
        tries += 1
        if tries == 1:
            raise RetryAfter(0)
        return "sent"

    assert await persist(send) == "sent"
    after = await samples(client)
    assert value(after, "tripeaks_telegram_429_total") == value(before, "tripeaks_telegram_429_total") + 1


async def test_a_solver_call_no_worker_takes_is_counted_busy(client: TestClient[Any, Any]) -> None:
    before = await samples(client)
    blocker = asyncio.Event()
    with ThreadPoolExecutor(1) as executor:
        pool = SolverPool(executor, Workers(1, 1))
        holding = asyncio.create_task(pool.run_for("ann", INTERACTIVE, 5, 30, _wait_for, blocker))
        await asyncio.sleep(0)
        assert await pool.run_for("bob", INTERACTIVE, 0.01, 1, _wait_for, None) is None  # the one worker is held
        blocker.set()
        await holding
        pool.close()
    after = await samples(client)
    busy = ("tripeaks_solver_busy_total", {"purpose": INTERACTIVE})
    assert value(after, busy[0], **busy[1]) == value(before, busy[0], **busy[1]) + 1
    assert value(after, "tripeaks_solver_wait_seconds_count", purpose=INTERACTIVE) >= 1


def _wait_for(event: Any) -> str:
    """A solver call that holds its worker until ``event`` is set (None: at once)."""
    while event is not None and not event.is_set():
        time.sleep(0.001)
    return "done"


async def test_the_outbox_backlog_is_read_from_the_database_at_each_scrape(
        client: TestClient[Any, Any], service: App) -> None:
    """A chat board waiting in the outbox (a move at the table, no process delivering Telegram yet) shows as one row
    undelivered, its age growing; delivered, none."""
    game = await service.starts.new_game(PlayerKey("telegram", "7"), "Ann")
    now = [service.outbox.now()]
    service.outbox.clock = lambda: dt.datetime.fromtimestamp(now[0], dt.UTC)
    await service.outbox.ask_boards([(game.game_id, "7")], "en")
    now[0] += 42
    waiting = await samples(client)
    assert value(waiting, "tripeaks_outbox_undelivered", platform="telegram") == 1
    assert value(waiting, "tripeaks_outbox_oldest_seconds", platform="telegram") == pytest.approx(42, abs=1)
    assert value(waiting, "tripeaks_outbox_undelivered", platform="discord") == 0  # reported, not left out
    for delivery in await service.outbox.take(["telegram"]):
        await service.outbox.done(delivery.row)
    delivered = await samples(client)
    assert value(delivered, "tripeaks_outbox_undelivered", platform="telegram") == 0
    assert value(delivered, "tripeaks_outbox_oldest_seconds", platform="telegram") == 0

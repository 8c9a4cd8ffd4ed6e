"""The table's event streams and connections under attack (issues 53 and 55): a stream ends with its client, is
pushed when its game changes (one watcher for the process, not a read per stream), a player holds a few streams
(their oldest closed past them) and the process a bounded number; the process refuses connections past its cap with
a clear answer, logged once; a player's requests come out of their share while others play on."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from bot.adapters.web.auth import Signer
from bot.adapters.web.server import STREAMS_PER_PLAYER, TableServer
from bot.app.assembly import App
from bot.app.codec import decode
from bot.app.commands import Actor, Move, Resume, Surface
from bot.app.model import PlayerKey
from bot.app.questions import DatabaseShares
from core.game import Draw
from tests.web_harness import TOKEN, init_data_header

ANN = PlayerKey("telegram", "7")
#: How long a test waits for what the server does on its own (seconds); never reached when it works.
PATIENCE = 20.0


async def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds (the server acts on its own: a stream ended, a connection closed)."""
    async with asyncio.timeout(PATIENCE):
        while not condition():
            await asyncio.sleep(0.005)


class Fast:
    """A clock the test moves: the requests share refills when the test says."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    def runs(self, service: App) -> None:
        """The requests share is taken by this clock, in this process and in the deployment's (the database)."""
        service.questions.clock = self
        assert isinstance(service.questions.shared, DatabaseShares)  # no REDIS_URL in the tests' App
        service.questions.shared.clock = self


@pytest.fixture
def connections() -> int:
    """The most connections the test's server takes."""
    return 200


@pytest.fixture
async def server(service: App, connections: int) -> AsyncIterator[TableServer]:
    table = TableServer(service.flow, Signer(b"s" * 32), telegram_token=TOKEN, port=0, connections=connections)
    await table.start()
    try:
        yield table
    finally:
        await table.stop()


@pytest.fixture
async def http(server: TableServer) -> AsyncIterator[aiohttp.ClientSession]:
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    async with aiohttp.ClientSession(f"http://127.0.0.1:{server.port}", connector=connector) as session:
        yield session


async def first_event(stream: aiohttp.ClientResponse) -> dict[str, Any]:
    """The next ``data:`` event of ``stream`` (comment lines skipped)."""
    while True:
        event = await stream.content.readuntil(b"\n\n")
        if event.startswith(b"data: "):
            return dict(json.loads(event[len(b"data: "):]))


async def open_stream(http: aiohttp.ClientSession, user: int) -> aiohttp.ClientResponse:
    stream = await http.get("/api/events", headers=init_data_header(user))
    assert stream.status == 200, await stream.text()
    return stream


async def open_table(http: aiohttp.ClientSession, user: int) -> tuple[aiohttp.ClientResponse, dict[str, Any]]:
    """The table opened as the page opens it (its game dealt when it has none), then its stream: the stream, and
    the board it sent first."""
    async with http.get("/api/table", headers=init_data_header(user)) as answer:
        assert answer.status == 200, await answer.text()
    stream = await open_stream(http, user)
    return stream, await first_event(stream)


async def draw_in_the_chat(service: App, board: dict[str, Any], player: PlayerKey = ANN) -> None:
    """A Draw tapped on the player's chat board (not at the table)."""
    command = decode(f"tp:g:{board['game']}:{board['version']}:d")
    await service.flow.handle(Actor(player, "Ann"), command, Surface(platform=player.platform))


def counting_handles(service: App, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, object]]:
    """Every command through the door from now on, with its player's id."""
    handled: list[tuple[str, object]] = []
    real: Callable[..., Awaitable[Any]] = service.flow.handle

    async def handle(actor: Actor, command: object, *args: Any, **kwargs: Any) -> Any:
        handled.append((actor.player.user_id, command))
        return await real(actor, command, *args, **kwargs)

    monkeypatch.setattr(service.flow, "handle", handle)
    return handled


async def test_a_stream_ends_with_its_client_and_leaves_nothing_to_do(server: TableServer, service: App,
                                                                       http: aiohttp.ClientSession) -> None:
    """300 streams opened and dropped: each ends the moment its client goes, and no watch or read is left."""
    following = service.games.following
    following.every = 0.01
    clock = Fast()
    clock.runs(service)
    (await open_table(http, 7))[0].close()
    for _ in range(300):
        clock.now += 1.0
        stream = await open_stream(http, 7)
        await first_event(stream)
        stream.close()  # the page went away without a word
        await until(lambda: server.streams_open == 0)
    assert len(following) == 0
    looks, rounds = following.looks, following.rounds
    await until(lambda: following.rounds >= rounds + 10)
    assert following.looks == looks  # nobody follows: the watcher reads nothing


@pytest.mark.parametrize("announced", [True, False], ids=["notified", "looked"])
async def test_a_stream_is_pushed_when_its_game_changes_and_costs_nothing_while_it_stands(
        server: TableServer, service: App, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch,
        announced: bool) -> None:
    """50 players' tables open and quiet: the watcher reads all their games at once, nobody's game is read through
    the door; a Draw in Ann's chat reaches her table alone (on PostgreSQL at once, by the database's notification:
    the watcher's own look is a minute away)."""
    following = service.games.following
    if announced and service.db.is_sqlite:
        pytest.skip("SQLite announces nothing: the watcher looks now and then (the other case)")
    following.every = 60.0 if announced else 0.05
    opened = [await open_table(http, 7 + user) for user in range(50)]
    streams, boards = [stream for stream, _ in opened], [board for _, board in opened]
    handled = counting_handles(service, monkeypatch)
    if not announced:
        looks = following.looks
        await until(lambda: following.looks >= looks + 5)
        assert handled == []  # five looks at 50 games: no game read for a stream
    await draw_in_the_chat(service, boards[0])
    moved = await first_event(streams[0])
    assert (moved["game"], moved["version"]) == (boards[0]["game"], boards[0]["version"] + 1)
    await until(lambda: len(handled) >= 2)
    assert handled == [("7", Move(boards[0]["game"], boards[0]["version"], Draw())), ("7", Resume())], handled
    for stream in streams:
        stream.close()
    await until(lambda: server.streams_open == 0 and len(following) == 0)


async def test_a_thousand_streams_from_one_account_leave_it_three(server: TableServer, service: App,
                                                                  http: aiohttp.ClientSession) -> None:
    """One account opening 1,000 streams (its share refilled each time): it holds its newest few, each older one is
    closed by the server, and another player's stream and taps go on as before."""
    clock = Fast()
    clock.runs(service)
    bob, bob_board = await open_table(http, 8)
    held = [(await open_table(http, 7))[0]]
    for _ in range(1000):
        clock.now += 1.0
        held.append(await open_stream(http, 7))
        await first_event(held[-1])
        if len(held) > STREAMS_PER_PLAYER:
            oldest = held.pop(0)
            assert b"data:" not in await oldest.content.read()  # ended by the server: end of stream
            oldest.close()
    assert server.streams_open == STREAMS_PER_PLAYER + 1
    await draw_in_the_chat(service, bob_board, PlayerKey("telegram", "8"))
    assert (await first_event(bob))["version"] == bob_board["version"] + 1
    for stream in [*held, bob]:
        stream.close()
    await until(lambda: server.streams_open == 0)


@pytest.mark.parametrize("connections", [40])
async def test_past_the_streams_cap_a_new_player_is_refused_clearly(server: TableServer,
                                                                    http: aiohttp.ClientSession) -> None:
    streams = [(await open_table(http, 100 + user))[0] for user in range(server.streams_cap)]
    refused = await http.get("/api/events", headers=init_data_header(999))
    assert refused.status == 503 and refused.headers["Retry-After"] == "10"
    assert "too many tables open" in await refused.text()
    streams[0].close()
    await until(lambda: server.streams_open == server.streams_cap - 1)
    (await open_stream(http, 999)).close()
    for stream in streams[1:]:
        stream.close()


@pytest.mark.parametrize("connections", [40])
async def test_connections_past_the_cap_are_told_so_and_logged_once(server: TableServer,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    """More connections than the process takes (an account holding sockets open): the process keeps its files,
    each connection past the cap is answered 503 and closed, one warning says so, and once some close the table
    takes connections again."""
    caplog.set_level(logging.INFO, "tripeaks.web")
    held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(server.connections_cap)]
    await until(lambda: server._gate is not None and server._gate.open == server.connections_cap)
    for _ in range(20):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        assert (await reader.read()).startswith(b"HTTP/1.1 503 Service Unavailable")
        writer.close()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "refusing new ones" in warnings[0].getMessage()
    for _, writer in held:
        writer.close()
    await until(lambda: server._gate is not None and server._gate.open == 0)
    async with aiohttp.ClientSession() as session, \
            session.get(f"http://127.0.0.1:{server.port}/api/words?lang=en") as answer:
        assert answer.status == 200
    assert any("takes connections again (20 refused" in r.getMessage() for r in caplog.records)


async def test_a_flood_of_requests_comes_out_of_its_players_share(server: TableServer, service: App,
                                                                  http: aiohttp.ClientSession) -> None:
    """300 requests in a burst from one account: past its share they are refused with when to come back, before
    anything is read; another player is served meanwhile, and the account is served again once its share refills."""
    clock = Fast()
    clock.runs(service)
    handled: list[int] = []
    for _ in range(300):
        async with http.get("/api/table", headers=init_data_header(7)) as answer:
            handled.append(answer.status)
            if answer.status == 429:
                assert int(answer.headers["Retry-After"]) >= 1
    assert handled.count(200) == 60 and handled.count(429) == 240
    async with http.get("/api/table", headers=init_data_header(8)) as other:
        assert other.status == 200
    clock.now += 1.0
    async with http.get("/api/table", headers=init_data_header(7)) as again:
        assert again.status == 200

"""Live rounds at the table (issue 51): a round watched live through its event stream (a finished player or any
member; a player still playing sees the standings alone, never a card), and the Discord Activity instance's round,
which every player who opens the Activity in that instance joins without a command (on SQLite and PostgreSQL)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from sqlalchemy import update

from bot.adapters.web.auth import SESSION_LIFETIME, Signer, WebUser
from bot.adapters.web.discord_auth import ActivityInstances
from bot.adapters.web.screens import round_event
from bot.adapters.web.server import STREAMS_PER_PLAYER, TableServer
from bot.app.assembly import App
from bot.app.commands import StartRound
from bot.app.model import PlayerKey
from bot.app.rounds import MINUTES_DEFAULT, Rounds, instance_chat
from bot.store import rounds as stored_rounds
from bot.store.schema import rounds
from core.deal import GameCode, Rules
from core.game import Draw
from tests.core_helpers import winning_line
from tests.test_rounds import ALICE, BOB, WIN_CODE, edited, join, start_round, tap
from tests.test_web_streams import until
from tests.web_harness import TOKEN, init_data_header

SIGNER = Signer(b"s" * 32)


class Members:
    """Discord's answer to who is in an Activity instance, as the test sets it; and the questions asked."""

    def __init__(self, members: dict[str, set[str]]) -> None:
        self.members = members
        self.asked: list[tuple[str, str]] = []

    async def __call__(self, instance_id: str, user_id: str) -> bool:
        self.asked.append((instance_id, user_id))
        return user_id in self.members.get(instance_id, set())


@pytest.fixture
def members() -> Members:
    return Members({"i-1-gc-5": {"11", "12"}})


@pytest.fixture
async def server(service: App, members: Members) -> AsyncIterator[TableServer]:
    """The table, its Discord Activity instances as :class:`Members` says."""
    table = TableServer(service.flow, SIGNER, telegram_token=TOKEN, port=0, instances=members)
    await table.start()
    try:
        yield table
    finally:
        await table.stop()


@pytest.fixture
async def http(server: TableServer) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(f"http://127.0.0.1:{server.port}",
                                     connector=aiohttp.TCPConnector(limit=0, force_close=True)) as session:
        yield session


async def next_event(stream: aiohttp.ClientResponse) -> bytes:
    """The next ``data:`` event of ``stream``, as its bytes (comment lines skipped)."""
    while True:
        event = await stream.content.readuntil(b"\n\n")
        if event.startswith(b"data: "):
            return event


def decoded(event: bytes) -> dict[str, Any]:
    return dict(json.loads(event[len(b"data: "):]))


def discord_header(user_id: str, name: str) -> dict[str, str]:
    """A Discord Activity player's session (as ``POST /api/discord/session`` signs it)."""
    session = SIGNER.sign(WebUser(PlayerKey("discord", user_id), name, "en"), "session", SESSION_LIFETIME)
    return {"Authorization": f"Bearer {session}"}


async def test_a_finished_player_watches_the_others_live_and_one_still_playing_is_refused(
        service: App, http: aiohttp.ClientSession) -> None:
    """Alice finishes; her watch stream shows Bob's table, and Bob's next move arrives on it without a reload, the
    bytes the page gets being those of the round as it stands. Bob, still playing, may not watch the tables, but
    sees the standings beside his own (names, cards left, score: no card)."""
    round = await start_round(service, StartRound(code=WIN_CODE))
    alice, _ = await join(service, ALICE, round)
    bob, _ = await join(service, BOB, round)
    for action in winning_line(WIN_CODE):
        alice = edited(await tap(service, ALICE, alice, action))
    assert alice.game.is_over

    refused = await http.get(f"/api/round/events?id={round.round_id}", headers=init_data_header(2))
    assert refused.status == 403
    async with http.get(f"/api/round/events?id={round.round_id}", headers=init_data_header(1)) as watching:
        assert watching.status == 200
        first = await next_event(watching)
        assert first == round_event(await service.flow.rounds.read(round.round_id), "en",
                                    viewer=PlayerKey("telegram", "1"))
        seen = decoded(first)
        assert {player["name"]: player["table"]["stock"] for player in seen["players"]}["Bob"] == 23
        assert "payload" not in first.decode()  # read only

        bob = edited(await tap(service, BOB, bob, Draw()))
        service.flow.games.following.wake()
        moved = decoded(await next_event(watching))
        assert {player["name"]: player["table"]["stock"] for player in moved["players"]}["Bob"] == 22

    async with http.get(f"/api/round/events?id={round.round_id}&view=standings",
                        headers=init_data_header(2)) as beside:
        assert beside.status == 200
        standings = decoded(await next_event(beside))
        assert [(p["name"], p["you"], p["table"]) for p in standings["players"]] == [
            ("Alice", False, None), ("Bob", True, None)]
        assert {p["name"]: p["cards_left"] for p in standings["players"]} == {"Alice": 0, "Bob": 28}

    member = await http.get(f"/api/round/events?id={round.round_id}", headers=init_data_header(3))
    assert member.status == 200  # anyone signed in, who plays no game of the round
    member.close()
    assert (await http.get("/api/round/events?id=424242", headers=init_data_header(3))).status == 404


async def test_round_streams_count_with_the_players_own_against_the_cap(
        service: App, server: TableServer, http: aiohttp.ClientSession) -> None:
    round = await start_round(service, StartRound(code=WIN_CODE))
    streams = [await http.get(f"/api/round/events?id={round.round_id}", headers=init_data_header(3))
               for _ in range(STREAMS_PER_PLAYER)]
    own = await http.get("/api/events", headers=init_data_header(3))
    assert own.status == 200
    assert await streams[0].content.read() is not None  # the oldest gave way: its stream ended
    await until(lambda: server.streams_open == STREAMS_PER_PLAYER)
    for stream in [*streams, own]:
        stream.close()


async def test_players_in_one_activity_instance_play_one_round_and_see_each_others_progress(
        service: App, http: aiohttp.ClientSession, members: Members) -> None:
    """Two players open the Activity in one instance: the first starts its round, the second joins it (the same
    deal, ranked), and each sees the other's progress beside the table as it moves. A player Discord does not list
    in the instance joins nothing."""
    dana, eve = discord_header("11", "Dana"), discord_header("12", "Eve")
    first = await (await http.get("/api/table?instance=i-1-gc-5", headers=dana)).json()
    second = await (await http.get("/api/table?instance=i-1-gc-5", headers=eve)).json()
    assert first["board"]["round"] is not None and first["board"]["round"] == second["board"]["round"]
    assert "live round: no undo" in first["board"]["header"]
    round = await service.flow.rounds.read(first["board"]["round"])
    assert round.minutes == MINUTES_DEFAULT and not round.chosen and round.message is None
    assert {entry.name for entry in round.entries} == {"Dana", "Eve"}
    assert members.asked == [("i-1-gc-5", "11"), ("i-1-gc-5", "12")]

    again = await (await http.get("/api/table?instance=i-1-gc-5", headers=dana)).json()
    assert again["board"]["game"] == first["board"]["game"]  # one entry a player: opened again, the same game

    forged = await http.get("/api/table?instance=i-1-gc-5", headers=discord_header("13", "Mallory"))
    assert forged.status == 403
    assert len((await service.flow.rounds.read(round.round_id)).entries) == 2

    async with http.get(f"/api/round/events?id={round.round_id}&view=standings", headers=dana) as beside:
        shown = decoded(await next_event(beside))
        assert [p["cards_left"] for p in shown["players"]] == [28, 28] and '"rank"' not in json.dumps(shown)
        draw = second["board"]["stock"]["payload"]
        assert (await http.post("/api/act", json={"payload": draw}, headers=eve)).status == 200
        moved = decoded(await next_event(beside))
        assert {p["name"]: p["table"] for p in moved["players"]} == {"Dana": None, "Eve": None}
        assert moved != shown

    # its time up, the next player to open the Activity there starts the next round
    async with service.db.transaction() as tx:
        await tx.execute(update(rounds).values(ends_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)))
    await service.flow.rounds.due("discord")
    later = await (await http.get("/api/table?instance=i-1-gc-5", headers=eve)).json()
    assert later["board"]["round"] not in (None, round.round_id)


async def test_opening_the_activity_at_once_starts_one_round(service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many players opening one instance together: one round, started once in the database; this process searches
    for its deal once, not once a player."""
    import asyncio

    searches: list[PlayerKey] = []
    search = service.flow.rounds.verdicts.winnable_code

    async def counted(rules: Rules, budget: float, owner: PlayerKey) -> GameCode:
        searches.append(owner)
        return await search(rules, budget, owner)

    monkeypatch.setattr(service.flow.rounds.verdicts, "winnable_code", counted)
    players = [PlayerKey("discord", str(n)) for n in range(20, 28)]
    found = await asyncio.gather(*(service.flow.rounds.in_instance("i-2", player, "P", "en") for player in players))
    assert len(set(found)) == 1 and len(searches) == 1
    # two processes (each its own Rounds over the one database) opening another instance at once: one round
    processes = [Rounds(service.db, service.flow.rounds.verdicts) for _ in range(2)]
    found = await asyncio.gather(*(processes[n % 2].in_instance("i-3", player, "P", "en")
                                   for n, player in enumerate(players)))
    assert len(set(found)) == 1 and len(searches) <= 3  # at most a search a process; one round started
    async with service.db.transaction() as tx:
        assert (await stored_rounds.running_in(tx, "discord", instance_chat("i-3"), dt.datetime.now(dt.UTC))
                is not None)


async def test_discords_list_of_an_instances_users_decides_who_is_in_it() -> None:
    """:class:`ActivityInstances` asks Discord's API with the bot's token and reads its users."""
    asked: list[tuple[str, str]] = []

    async def instance(request: web.Request) -> web.StreamResponse:
        asked.append((request.match_info["instance"], request.headers.get("Authorization", "")))
        if request.match_info["instance"] != "i-1":
            return web.json_response({"message": "Unknown"}, status=404)
        return web.json_response({"application_id": "99", "instance_id": "i-1", "launch_id": "1",
                                  "location": {"id": "gc-1", "kind": "gc", "channel_id": "5"}, "users": ["11"]})

    app = web.Application()
    app.router.add_get("/applications/99/activity-instances/{instance}", instance)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        check = ActivityInstances("99", "bot-token", f"http://127.0.0.1:{port}")
        assert await check("i-1", "11") and not await check("i-1", "12") and not await check("i-2", "11")
        assert not await check("../users/@me", "11")  # no other path is asked
        assert asked == [("i-1", "Bot bot-token")] * 2 + [("i-2", "Bot bot-token")]
    finally:
        await runner.cleanup()

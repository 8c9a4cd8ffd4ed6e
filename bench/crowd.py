"""A crowd at the table (issue 39): honest players playing with hints while one hostile account floods the bot, end
to end through Telegram, with the real solver. Run by hand:

    .venv/bin/python bench/crowd.py [--players 10] [--period 2] [--hint-every 5] [--phase 15] [--flood 30]
                                    [--workers N] [--capacity-players 6] [--json]
                                    [--table-flood streams|requests] [--files 1024]
                                    [--processes 1] [--db sqlite|postgres] [--postgres-url URL]

The bench starts the fake Bot API server of the tests (``tests/fakes/telegram_bot_api.py``) and the bot in a process
of its own (its Telegram Application long polling the fake, the real solver in ``--workers`` worker processes: by
default as the bot sizes them, every core but one). Each honest player is a Telegram user in a private chat playing
a real game (as in ``bench/load.py --telegram``), one action every ``--period`` seconds, open loop: every
``--hint-every``-th action is a press of Hint (💡), the others a tap of the player's choice. A tap's latency runs
from its scheduled time until the fake has the bot's answer and its edit of the board; a hint is *answered* when the
edited board shows advice (not "busy", not a refusal), and its latency is measured the same way.

Three phases of ``--phase`` seconds: before, during and after the flood. During it, one hostile account (which has
played a game to its end first) sends ``--flood`` updates a second, in turn: ``/start review-<its finished game>``,
a press of Hint on its current board, and an inline query (``@bot``: offers with a new winnable deal). The bench
prints, for each phase, the honest players' tap latency p50/p99 and their hints: the share answered, the share
answered within 2 s, and the answered ones' latency p50/p99; and whether the aims hold: during the flood the taps'
p99 within 3x their p99 before it, and 99% of the hints answered within 2 s.

With ``--table-flood`` the hostile account floods the table in the browser instead (issue 53), which the bot's
process then serves too (its Mini App's launch data signed for the fake's token): ``streams`` opens event streams at
``--flood`` a second (default 50; 1,000 at most) and holds every one open without reading; ``requests`` sends
``--flood`` requests a second (default 300) for its table. The aims are then the taps' p90 during the flood within
3x their p90 before it, and the hints answered. ``--files`` gives the bot's process that many open files and no
more (systemd's default is 1,024): the table's connections are capped below it.

With ``--processes N`` (on ``--db postgres``: one PostgreSQL database for all) the bot runs as N processes, as
behind nginx (docs/operating.md): each serves Telegram's webhook and the table on ports of its own, and the bench
puts a round-robin balancer in front of each (a connection to the next process in turn: each update the fake
delivers, each request at the table), so one player's updates reach every process. Afterwards every game of the
run is read back and compared with the taps acknowledged (``lost``, ``doubled``, ``mismatched``, as in
bench/load.py).

Last, with no flood, ``--capacity-players`` players ask for hints as fast as they are answered (a move, a hint,
a move...) for ``--phase`` seconds: the hints a second the bot sustains, and that divided by its solver workers
(hints a second per core). The bench's own process (the fake server and every player) shares the machine with the
bot: on a 2-core machine the figures are what the bot does with the core it gets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import itertools
import json
import logging
import os
import resource
import socket
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import (
    DEFAULT_POSTGRES_URL,
    REPLY_TIMEOUT,
    TELEGRAM,
    Outcome,
    TelegramPlayer,
    bot_process,
    check_consistency,
    cpu_seconds,
    fresh_database,
    percentile,
    run_application,
    timed_bot_api,
)
from bot.config import default_solver_workers, machine_cores

#: What the board says of a hint the solver had no time for (English: the bench's players read English).
BUSY_TEXT = "Too many hints are being worked out"
#: How a refused question's toast begins (one at a time, a share used up): a hint's toast carries its words instead.
REFUSED_TEXTS = ("One at a time", "Too many requests")
#: A hint answered within this many seconds meets the aim.
HINT_AIM = 2.0
#: During the flood, the honest taps' p99 may be at most this many times their p99 before it.
TAP_AIM = 3.0
PHASES = ("before", "flood", "after")


@dataclasses.dataclass
class Phase:
    """What the honest players saw in one phase: tap latencies, and their hints."""

    taps: list[float] = dataclasses.field(default_factory=list)
    hint_latencies: list[float] = dataclasses.field(default_factory=list)  # the answered ones
    hints: int = 0
    busy: int = 0
    refused: int = 0
    failed: int = 0

    def summary(self) -> dict[str, Any]:
        answered = len(self.hint_latencies)
        return {
            "taps": len(self.taps),
            "tap_p50_ms": round(percentile(self.taps, 0.50) * 1000, 1),
            "tap_p90_ms": round(percentile(self.taps, 0.90) * 1000, 1),
            "tap_p99_ms": round(percentile(self.taps, 0.99) * 1000, 1),
            "hints": self.hints, "hints_busy": self.busy, "hints_refused": self.refused, "hints_failed": self.failed,
            "hints_answered_share": round(answered / self.hints, 3) if self.hints else None,
            "hints_within_2s_share": (round(sum(t <= HINT_AIM for t in self.hint_latencies) / self.hints, 3)
                                      if self.hints else None),
            "hint_p50_ms": round(percentile(self.hint_latencies, 0.50) * 1000, 1),
            "hint_p99_ms": round(percentile(self.hint_latencies, 0.99) * 1000, 1),
        }


class CrowdPlayer(TelegramPlayer):
    """A player who also presses Hint, and starts a new game by command once one is over. ``own`` is what the
    player's own taps saw (players tap side by side: a tap's latency is found there)."""

    def __init__(self, api: Any, index: int, seed: int) -> None:
        super().__init__(api, index, seed)
        self.own = Outcome()

    async def move(self, due: float, outcome: Outcome, timeout: float) -> None:
        """A tap of the player's choice, or ``/tripeaks CODE`` once the game is over (not timed)."""
        assert self.game is not None
        if self.game.is_over:
            await self.start(outcome, timeout)
        else:
            await self.tap(due, outcome, timeout)

    async def hint(self, due: float, phase: Phase, timeout: float) -> None:
        """Press Hint on the game message; the answer is the board edited with advice, or with "busy", or a toast
        saying why not (asking too much)."""
        data = self.buttons.get("h")
        if data is None:
            phase.failed += 1
            return
        loop = asyncio.get_running_loop()
        phase.hints += 1
        expected = self.api.expect(self.chat.id, self.message_id)
        expected.toast_ends = True
        handle = self.api.press(self.user, self.chat, self.message_id, data)
        expected.query_id = handle.query_id
        try:
            done = await asyncio.wait_for(asyncio.shield(expected.done), max(0.0, due + timeout - loop.time()))
        except TimeoutError:
            phase.failed += 1
            return
        toast = handle.record.answer.text if handle.record.answer is not None else None
        if toast and toast.startswith(REFUSED_TEXTS):  # asking too much: the toast says why, the board stays
            phase.refused += 1
            return
        message = self.api.message(self.chat, self.message_id)
        self.read(message)
        if BUSY_TEXT in message.text or (toast and BUSY_TEXT in toast):
            phase.busy += 1
        else:  # the hint, on the board and (its words) in the toast
            phase.hint_latencies.append(done - due)


async def finish_a_game(player: CrowdPlayer, outcome: Outcome, timeout: float) -> int:
    """Play ``player``'s game to its end (won or blocked) and start another; the finished game's id."""
    loop = asyncio.get_running_loop()
    assert player.game is not None
    while not player.game.is_over and not player.stopped:
        await player.move(loop.time(), outcome, timeout)
    finished = player.game_id
    await player.move(loop.time(), outcome, timeout)  # a new game
    if player.stopped:
        raise RuntimeError(f"the hostile account could not play: {outcome.error_kinds}")
    return finished


async def flood(api: Any, hostile: CrowdPlayer, finished: int, rate: float, start: float, end: float) -> int:
    """Reviews, hints and inline queries from ``hostile`` at ``rate`` a second in all, from ``start`` to ``end``
    (loop times), not waiting for any answer; how many were sent."""
    loop = asyncio.get_running_loop()
    sent = 0
    due = start
    while due < end:
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        kind = sent % 3
        if kind == 0:
            api.send_text(hostile.user, hostile.chat, f"/start review-{finished}")
        elif kind == 1:
            api.press(hostile.user, hostile.chat, hostile.message_id, hostile.buttons["h"], check_button=False)
        else:
            api.inline_query(hostile.user, "")
        sent += 1
        due += 1 / rate
    return sent


#: The most event streams the hostile account opens (``--table-flood streams``).
STREAMS_MOST = 1000


class TableFlood:
    """The hostile account at the table of the bot's process on ``port``: what it sent and what it was answered."""

    def __init__(self, port: int, token: str, user_id: int) -> None:
        from bot.adapters.web.auth import sign_init_data

        self.url = f"http://127.0.0.1:{port}"
        user = json.dumps({"id": user_id, "first_name": "Mallory", "language_code": "en"})
        self.token = token
        self.user = user
        self.sign = sign_init_data
        self.statuses: dict[str, int] = {}

    def headers(self) -> dict[str, str]:
        data = self.sign({"auth_date": str(int(time.time())), "query_id": "AAH", "user": self.user}, self.token)
        return {"Authorization": f"tma {data}"}

    def answered(self, status: int | str) -> None:
        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1

    async def streams(self, rate: float, start: float, end: float) -> int:
        """Event streams opened at ``rate`` a second from ``start`` (at most :data:`STREAMS_MOST`), every one held
        open, never read, until ``end``; how many were opened."""
        import aiohttp

        loop = asyncio.get_running_loop()
        held: list[Any] = []
        connector = aiohttp.TCPConnector(limit=0, force_close=True)
        async with aiohttp.ClientSession(self.url, connector=connector) as session:
            async def one() -> None:
                try:
                    response = await session.get("/api/events", headers=self.headers())
                except aiohttp.ClientError as error:
                    self.answered(type(error).__name__)
                    return
                self.answered(response.status)
                held.append(response)

            opening: list[asyncio.Task[None]] = []
            due = start
            while due < end and len(opening) < STREAMS_MOST:
                await asyncio.sleep(max(0.0, due - loop.time()))
                opening.append(asyncio.create_task(one()))
                due += 1 / rate
            await asyncio.gather(*opening)
            await asyncio.sleep(max(0.0, end - loop.time()))
            for response in held:
                response.close()
        return len(opening)

    async def requests(self, rate: float, start: float, end: float) -> int:
        """Requests for the account's table at ``rate`` a second from ``start`` to ``end``, none waited for before
        the next is sent; how many were sent."""
        import aiohttp

        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession(self.url, connector=aiohttp.TCPConnector(limit=0)) as session:
            async def one() -> None:
                try:
                    async with session.get("/api/table", headers=self.headers()) as response:
                        await response.read()
                        self.answered(response.status)
                except aiohttp.ClientError as error:
                    self.answered(type(error).__name__)

            sending: list[asyncio.Task[None]] = []
            due = start
            while due < end:
                await asyncio.sleep(max(0.0, due - loop.time()))
                sending.append(asyncio.create_task(one()))
                due += 1 / rate
            await asyncio.gather(*sending)
        return len(sending)


async def play_crowd(api: Any, args: argparse.Namespace, table_port: int | None = None) -> dict[str, Any]:
    """The honest players and the hostile account through the three phases, then the capacity run."""
    loop = asyncio.get_running_loop()
    honest = [CrowdPlayer(api, i, args.seed) for i in range(args.players)]
    hostile = CrowdPlayer(api, 100_000, args.seed)
    for player in [*honest, hostile]:
        await player.start(player.own, REPLY_TIMEOUT)
    finished = await finish_a_game(hostile, hostile.own, REPLY_TIMEOUT)
    phases = {name: Phase() for name in PHASES}
    begin = loop.time() + 0.5
    end = begin + 3 * args.phase

    def phase_at(when: float) -> Phase:
        return phases[PHASES[min(2, int((when - begin) // args.phase))]]

    async def run(player: CrowdPlayer, index: int) -> None:
        due = begin + index * args.period / len(honest)
        action = index  # the players' hints are spread out too
        while due < end and not player.stopped:
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            phase = phase_at(due)
            assert player.game is not None
            if action % args.hint_every == args.hint_every - 1 and not player.game.is_over:
                await player.hint(due, phase, REPLY_TIMEOUT)
            else:
                seen = len(player.own.latencies)
                await player.move(due, player.own, REPLY_TIMEOUT)
                phase.taps += player.own.latencies[seen:]
            action += 1
            due += args.period

    table: TableFlood | None = None
    if args.table_flood is None:
        flooding = loop.create_task(flood(api, hostile, finished, args.flood, begin + args.phase,
                                          begin + 2 * args.phase))
    else:
        assert table_port is not None
        table = TableFlood(table_port, api.token, hostile.user.id)
        attack = table.streams if args.table_flood == "streams" else table.requests
        flooding = loop.create_task(attack(args.flood, begin + args.phase, begin + 2 * args.phase))
    await asyncio.gather(*(run(player, i) for i, player in enumerate(honest)))
    sent = await flooding
    capacity = await hints_capacity(api, args)
    result: dict[str, Any] = {name: phase.summary() for name, phase in phases.items()}
    everyone = Outcome()
    for player in [*honest, hostile]:
        everyone.merge(player.own)
    errors = dict(everyone.error_kinds)
    # the capacity players tap the moment a hint's toast comes, which may be before the hint's own edit of the
    # board: a board at the version before their tap is theirs to read again, counted apart
    capacity_outcome: Outcome = capacity.pop("outcome")
    everyone.merge(capacity_outcome)
    result.update(flood_sent=sent, errors=sum(errors.values()), error_kinds=errors, outcome=everyone,
                  capacity_errors=capacity_outcome.error_kinds, **capacity)
    if table is not None:
        result["flood_answers"] = table.statuses
    return result


async def hints_capacity(api: Any, args: argparse.Namespace) -> dict[str, Any]:
    """``--capacity-players`` players asking for hints as fast as they are answered, a move between two, for
    ``--phase`` seconds."""
    loop = asyncio.get_running_loop()
    outcome = Outcome()
    players = [CrowdPlayer(api, 200_000 + i, args.seed) for i in range(args.capacity_players)]
    for player in players:
        await player.start(outcome, REPLY_TIMEOUT)
    phase = Phase()
    begin = loop.time()
    end = begin + args.phase

    async def run(player: CrowdPlayer) -> None:
        while loop.time() < end and not player.stopped:
            assert player.game is not None
            await player.move(loop.time(), outcome, REPLY_TIMEOUT)  # a new position (or a new game)
            if not player.game.is_over and loop.time() < end:
                await player.hint(loop.time(), phase, REPLY_TIMEOUT)

    await asyncio.gather(*(run(player) for player in players))
    elapsed = loop.time() - begin
    per_second = len(phase.hint_latencies) / elapsed
    return {"capacity_hints_per_s": round(per_second, 1),
            "capacity_hints_per_s_per_worker": round(per_second / (args.workers * args.processes), 1),
            "capacity_hints_busy": phase.busy, "capacity_hint_p50_ms": round(percentile(phase.hint_latencies, 0.5) * 1000, 1),
            "outcome": outcome}


async def serve(url: str, api_url: str, token: str, workers: int, until: Any, ready: Any,
                table_port: int | None = None, webhook: tuple[str, int] | None = None) -> None:
    """The bot as ``tripeaks run`` starts it on Telegram, the real solver in ``workers`` worker processes; with
    ``table_port``, the table served there too (as with PUBLIC_URL set); with ``webhook`` (its public URL, the local
    port), a webhook instead of long polling."""
    from bot.adapters.web.auth import Signer
    from bot.adapters.web.gate import connections_cap, raise_open_files_limit
    from bot.adapters.web.server import TableServer
    from bot.app.assembly import App
    from bot.app.solver_pool import Workers

    service = await App.open(url, workers=Workers(interactive=workers, background=1))
    table = None
    try:
        if table_port is not None:
            table = TableServer(service.flow, Signer(b"crowd bench secret" * 2), telegram_token=token,
                                port=table_port, connections=connections_cap(raise_open_files_limit()))
            await table.start()
        await run_application(service, api_url, token, until, ready, webhook)
    finally:
        if table is not None:
            await table.stop()
        await service.close()


def _bot_process(url: str, api_url: str, token: str, workers: int, table_port: int | None, files: int | None,
                 webhook: tuple[str, int] | None, ready: Any, stop: Any) -> None:
    logging.basicConfig(level=logging.ERROR, format="bot process: %(levelname)s %(name)s: %(message)s")
    if files is not None:  # as a service whose unit allows this many open files, and no more
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        await serve(url, api_url, token, workers, until=lambda: loop.run_in_executor(None, stop.wait),
                    ready=ready.set, table_port=table_port, webhook=webhook)

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RoundRobin:
    """A balancer on a port of its own: each connection goes to the next of ``ports`` in turn, bytes piped both
    ways (as nginx's upstream with several servers, without keep-alive to the clients)."""

    def __init__(self, ports: list[int]) -> None:
        self.port = free_port()
        self._next = itertools.cycle(ports)
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> RoundRobin:
        self._server = await asyncio.start_server(self._pass, "127.0.0.1", self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _pass(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", next(self._next))
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    with contextlib.suppress(OSError):
        writer.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """One run of the bench (see the module docstring)."""
    async with fresh_database(args.db, args.postgres_url) as url, contextlib.AsyncExitStack() as stack:
        api = timed_bot_api()
        await api.start()
        stack.push_async_callback(api.stop)
        rendered = url.render_as_string(hide_password=False)
        if args.processes == 1:
            table_port = None if args.table_flood is None else free_port()
            places: list[tuple[int | None, tuple[str, int] | None]] = [(table_port, None)]
        else:
            hooks, tables = [free_port() for _ in range(args.processes)], [free_port() for _ in range(args.processes)]
            hook = await stack.enter_async_context(RoundRobin(hooks))
            table = await stack.enter_async_context(RoundRobin(tables))
            table_port = table.port
            places = [(tables[k], (f"http://127.0.0.1:{hook.port}/hook", hooks[k])) for k in range(args.processes)]
        children = [await stack.enter_async_context(bot_process(
            _bot_process, rendered, api.base_url, api.token, args.workers, place_table, args.files, place_hook))
            for place_table, place_hook in places]
        pids = [child.pid for child in children if child.pid is not None]
        bot_cpu = sum(cpu_seconds(pid) or 0.0 for pid in pids)
        result = await play_crowd(api, args, table_port)
        result["bot_cpu_s"] = round(sum(cpu_seconds(pid) or 0.0 for pid in pids) - bot_cpu, 1)
        await stack.aclose()  # the bot processes stopped: every tap they acknowledged is in the database
        outcome: Outcome = result.pop("outcome")
        check = await check_consistency(url, outcome.acked, outcome.uncertain, platform=TELEGRAM)
    result.update(games_checked=check.games, lost=check.lost, doubled=check.doubled, mismatched=check.mismatched,
                  consistent=check.consistent, processes=args.processes, db=args.db)
    before, during = result["before"], result["flood"]
    tail = "tap_p99_ms" if args.table_flood is None else "tap_p90_ms"
    result["aim_taps_within_3x"] = during[tail] <= TAP_AIM * before[tail]
    result["aim_hints_99_within_2s"] = (during["hints_within_2s_share"] or 0.0) >= 0.99
    result.update(players=args.players, period_s=args.period, hint_every=args.hint_every, phase_s=args.phase,
                  flood_per_s=args.flood, table_flood=args.table_flood, files=args.files, workers=args.workers, cores=machine_cores(),
                  load_average=round(os.getloadavg()[0], 1))
    result["errors"] += 0 if check.consistent else 1
    return result


def show(result: dict[str, Any]) -> str:
    kind = "chat" if result["table_flood"] is None else f"table {result['table_flood']}"
    lines = [f"{result['players']} honest players, an action every {result['period_s']:g} s (every "
             f"{result['hint_every']}th a hint); a {kind} flood of {result['flood_per_s']:g}/s "
             f"({result['flood_sent']} sent{', answered ' + str(result['flood_answers']) if 'flood_answers' in result else ''}"
             f"{', the bot allowed ' + str(result['files']) + ' open files' if result['files'] else ''}); "
             f"{result['workers']} solver worker(s) in each of {result['processes']} bot process(es) on "
             f"{result['cores']} cores, {result['db']} (load average {result['load_average']:g})"]
    for name in PHASES:
        phase = result[name]
        share = "-" if phase["hints_answered_share"] is None else f"{100 * phase['hints_answered_share']:.0f}%"
        within = "-" if phase["hints_within_2s_share"] is None else f"{100 * phase['hints_within_2s_share']:.0f}%"
        lines.append(f"  {name:6}: taps p50 {phase['tap_p50_ms']:.0f} ms, p90 {phase['tap_p90_ms']:.0f} ms, "
                     f"p99 {phase['tap_p99_ms']:.0f} ms "
                     f"({phase['taps']}); hints answered {share} ({phase['hints']}; busy {phase['hints_busy']}, "
                     f"refused {phase['hints_refused']}, failed {phase['hints_failed']}), within 2 s {within}, "
                     f"p50 {phase['hint_p50_ms']:.0f} ms, p99 {phase['hint_p99_ms']:.0f} ms")
    tail = "p99" if result["table_flood"] is None else "p90"
    lines.append(f"  aims during the flood: taps {tail} within 3x before {'yes' if result['aim_taps_within_3x'] else 'NO'}"
                 f"; 99% of hints within 2 s {'yes' if result['aim_hints_99_within_2s'] else 'NO'}")
    lines.append(f"  no flood: {result['capacity_hints_per_s']:g} hints/s sustained, "
                 f"{result['capacity_hints_per_s_per_worker']:g} per solver worker (p50 "
                 f"{result['capacity_hint_p50_ms']:.0f} ms, busy {result['capacity_hints_busy']})")
    lines.append(f"  consistency over {result['games_checked']} games: lost {result['lost']}, doubled "
                 f"{result['doubled']}, mismatched {result['mismatched']} "
                 f"({'OK' if result['consistent'] else 'FAILED'}); the bot processes' CPU {result['bot_cpu_s']:g} s; "
                 f"errors {result['errors']} {result['error_kinds'] or ''}, the capacity players' "
                 f"{result['capacity_errors'] or 'none'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=10, help="honest players")
    parser.add_argument("--period", type=float, default=2.0, help="seconds between two actions of a player")
    parser.add_argument("--hint-every", type=int, default=5, help="every n-th action of a player is a hint")
    parser.add_argument("--phase", type=float, default=15.0, help="seconds of each phase")
    parser.add_argument("--flood", type=float, default=None,
                        help="the hostile account's updates a second (default 30; with --table-flood: streams 50, "
                             "requests 300)")
    parser.add_argument("--table-flood", choices=("streams", "requests"), default=None,
                        help="flood the table in the browser instead of the chat")
    parser.add_argument("--files", type=int, default=None,
                        help="open files the bot's process may have (systemd's default: 1024)")
    parser.add_argument("--workers", type=int, default=default_solver_workers(machine_cores())[0],
                        help="the bot's solver workers for what players wait on (default: as the bot sizes them)")
    parser.add_argument("--capacity-players", type=int, default=6,
                        help="players asking for hints as fast as they are answered, at the end")
    parser.add_argument("--processes", type=int, default=1,
                        help="bot processes behind a round-robin balancer (webhook and table); more than 1 needs "
                             "--db postgres")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL,
                        help="the PostgreSQL server on which the bench's database is created (and dropped after)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.processes > 1 and args.db != "postgres":
        parser.error("--processes above 1 needs --db postgres (processes share one PostgreSQL database)")
    if args.flood is None:
        args.flood = {None: 30.0, "streams": 50.0, "requests": 300.0}[args.table_flood]
    result = asyncio.run(run(args))
    print(json.dumps(result) if args.json else show(result))
    if result["errors"]:
        sys.exit(1)


if __name__ == "__main__":
    main()

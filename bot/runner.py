"""``tripeaks run``: read the settings, migrate the database, and run Discord and Telegram (whichever have tokens)
in one process, or the console chat when neither has. Also the console session of ``tripeaks console``.

Stopping: SIGINT (Ctrl-C, sent to the whole process group) and SIGTERM end the bot or the console in a moment: the
chats stop taking updates, those in hand are finished, the solver workers stopped, and the process exits with 128 +
the signal's number (130, 143), no traceback. Every action was committed before it was acknowledged.

Coming back: a platform or database server out of reach at start (the network not up yet at boot) is tried again
with growing pauses, logged once (:mod:`bot.reachable`); a token the platform refuses ends it at once (exit 2).

Logs: JSON lines for the bot, plain lines for the console game, all redacted (:mod:`bot.logs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import os
import signal
import socket
import stat
import sys
from typing import TYPE_CHECKING, Any, TextIO, cast

from bot.adapters.stdin import is_terminal
from bot.config import Config, ConfigError, TokenRejected, Unreachable, redact_url, start_warnings
from bot.logs import configure_logging
from bot.reachable import when_reachable
from core.solver import solver_description

if TYPE_CHECKING:
    from bot.app.assembly import App
    from bot.app.effects import ExecutorFor
    from bot.app.model import PlayerKey

log = logging.getLogger("tripeaks")

#: The signals that stop the bot and the console, and the exit status each gives (128 + its number).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


# --- stopping on signals -----------------------------------------------------------------------------------------


class StopSignals:
    """While installed, SIGINT and SIGTERM set :attr:`event` and record which came first (see :attr:`status`)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.signum: int | None = None
        self._installed: list[int] = []

    def install(self) -> StopSignals:
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self._received, signum)
                self._installed.append(signum)
        return self

    def _received(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
            log.info("stopping on %s", signal.Signals(signum).name)
        self.event.set()

    def remove(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in self._installed:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
        self._installed.clear()

    @property
    def status(self) -> int:
        """The exit status: 128 + the signal's number, or 0 when none came."""
        return 0 if self.signum is None else 128 + self.signum


#: A stop during start-up waits this long for the database to be open, so it is closed cleanly rather than cut off.
OPEN_GRACE = 1.5


async def _first_of(stop: asyncio.Event, *tasks: asyncio.Future[Any]) -> set[asyncio.Future[Any]]:
    """Wait until one of ``tasks`` is done or ``stop`` is set; returns the tasks done (none: the stop came first).
    The tasks go on running either way."""
    waiter = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait({waiter, *tasks}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    return done - {waiter}


async def _cancel(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` unless it is done, and wait until it has ended (its cleanup run). Whatever it ended with is
    left in it, for a caller that needs it to read."""
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def _close_when_open(opening: asyncio.Future[App]) -> None:
    """A stop came while the service was opening: let it finish opening (a cancelled migration or connection would
    leave tracebacks behind), then close it; cancel it only past :data:`OPEN_GRACE`."""
    try:
        service = await asyncio.wait_for(asyncio.shield(opening), OPEN_GRACE)
    except TimeoutError:
        await _cancel(opening)
        return
    except Exception:
        return
    await service.close()


async def _open_service(database_url: str, stop: StopSignals, stack: contextlib.AsyncExitStack, *,
                        post_time: dt.time = dt.time(9, 0), workers: tuple[int, int] = (1, 1),
                        owner_ids: frozenset[PlayerKey] = frozenset(), redis_url: str | None = None) -> App | None:
    """Open the service (migrating the database, starting ``workers`` solver workers for players and the background)
    and have ``stack`` close it; None when a stop comes first (then closed once open: :func:`_close_when_open`)."""
    from bot.app.assembly import App
    from bot.app.solver_pool import Workers

    opening = asyncio.ensure_future(App.open(database_url, post_time=post_time, workers=Workers(*workers),
                                             owner_ids=owner_ids, redis_url=redis_url))
    if not await _first_of(stop.event, opening):
        await _close_when_open(opening)
        return None
    return await stack.enter_async_context(opening.result())


# --- the console game --------------------------------------------------------------------------------------------


def describe_database(url: str) -> str:
    """Where the games are, for a person: a SQLite file's path, else the URL without its password."""
    for prefix in ("sqlite+aiosqlite:///", "sqlite:///"):
        if url.startswith(prefix):
            return url[len(prefix):].partition("?")[0]
    return redact_url(url)


def stdin_can_play(stream: TextIO) -> bool:
    """Whether ``stream`` can feed a console game: a terminal, a pipe or a file, not ``/dev/null`` or a closed
    descriptor (a container or a service started without a terminal, where the game would end at once)."""
    try:
        fd = stream.fileno()
        if os.isatty(fd):
            return True
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):
        return True  # not a real file (a test's StringIO): it plays
    return not stat.S_ISCHR(mode)


async def run_console_session(database_url: str, *, locale: str, lang: str | None = None, user: str | None = None,
                              stream: TextIO = sys.stdin, out: TextIO = sys.stdout, table: Config | None = None) -> int:
    """The console game on ``database_url`` until the end of input, ``quit`` (0) or a stop signal (130, 143): then
    the game is cancelled, its cleanup awaited (closing the service commits the actions in hand and stops the solver
    workers). ``lang`` (``--lang``) wins over the player's saved language for this session. ``table``: also serve
    the table in the browser, as these settings say, with a one-time link printed."""
    from bot.adapters.console import console_player, run_console

    print(f"Games are saved in {describe_database(database_url)}", file=out, flush=True)
    stop = StopSignals().install()
    try:
        async with contextlib.AsyncExitStack() as stack:
            service = await _open_service(database_url, stop, stack)
            if service is None:
                return stop.status
            if table is not None:
                from bot.adapters.web.running import start_console_table

                stack.push_async_callback((await start_console_table(service.flow, table, *console_player(user),
                                                                     out)).stop)
            session = asyncio.ensure_future(run_console(service.flow, stream=stream, out=out, locale=lang or locale,
                                                        user=user, session_locale=lang))
            stack.push_async_callback(_cancel, session)
            if not await _first_of(stop.event, session):
                # the stop may cut a statement short; the pool then reports closing that connection: no error now
                logging.getLogger("sqlalchemy.pool").setLevel(logging.CRITICAL)
        # the game is cancelled (if still on) and the service closed; a stop that came meanwhile wins over the end
        # of input it came with
        if session.cancelled() or (stop.event.is_set() and session.exception() is None):
            return stop.status
        return session.result()
    finally:
        stop.remove()


# --- the bot -----------------------------------------------------------------------------------------------------


NO_TOKEN_NOTICE = ("No DISCORD_TOKEN or TELEGRAM_TOKEN set: starting a console game instead "
                   "(see .env.example to connect the bot to a chat).")
NO_TOKEN_NO_TERMINAL = ("DISCORD_TOKEN and TELEGRAM_TOKEN are both unset, and there is no terminal for a console "
                        "game: set at least one of them (see .env.example)")


async def run_bot(config: Config, *, console_input: TextIO = sys.stdin, console_output: TextIO = sys.stdout) -> int:
    """Run until stopped; returns the exit status. Raises :class:`ConfigError` (exit status 2) when there is nothing
    to run, and :class:`TokenRejected` when a platform refuses its token."""
    if not (config.discord_token or config.telegram_token):
        if not stdin_can_play(console_input):
            raise ConfigError(NO_TOKEN_NO_TERMINAL)
        configure_logging(config, console=True)
        print(NO_TOKEN_NOTICE, file=console_output, flush=True)
        # the table in the browser too, for a player at a terminal (or where WEB_PORT asks for it)
        table = config if config.web_port_set or is_terminal(console_input) else None
        return await run_console_session(config.database_url, locale=config.default_locale,
                                         stream=console_input, out=console_output, table=table)

    log.info("starting")
    log.info("solver %s, %d worker(s) for players, %d in the background", solver_description(),
             config.solver_workers, config.solver_background_workers)
    log.info("database %s", redact_url(config.database_url))
    for warning in start_warnings(config):
        log.warning("%s", warning)
    stop = StopSignals().install()
    try:
        return await _serve(config, stop)
    finally:
        stop.remove()


#: How a database server that cannot be reached fails: refused, reset or timed out, or a name not found.
_DATABASE_UNREACHABLE = (ConnectionError, TimeoutError, socket.gaierror)


async def _open_bot_service(config: Config, stop: StopSignals, stack: contextlib.AsyncExitStack) -> App | None:
    """:func:`_open_service`, a database server that cannot be reached being :class:`Unreachable`."""
    try:
        return await _open_service(config.database_url, stop, stack, post_time=config.daily_post_time,
                                   workers=(config.solver_workers, config.solver_background_workers),
                                   owner_ids=config.owner_ids, redis_url=config.redis_url)
    except _DATABASE_UNREACHABLE as error:
        raise Unreachable(f"the database {redact_url(config.database_url)} cannot be reached ({error})") from None


async def _serve(config: Config, stop: StopSignals) -> int:
    """Serve until stopped. The table, the outbox, the daily posts and the heartbeat start once the database is open;
    each platform connects on its own (one out of reach holds up neither the others nor the table) and joins them
    once up. Everything started is stopped on the way out, in reverse order, the service last."""
    from bot.app.daily_posts import DailyPoster
    from bot.heartbeat import readiness, start_heartbeat
    from bot.platforms import platforms_of

    async with contextlib.AsyncExitStack() as stack:
        service = await when_reachable("database", lambda: _open_bot_service(config, stop, stack), stop.event)
        if service is None:  # stopped while waiting for it, migrating or starting the workers
            return stop.status
        stack.callback(log.info, "stopped")
        platforms = list(platforms_of(service, config))
        for platform in platforms:
            stack.push_async_callback(platform.stop)
        table = None
        parts = readiness(service.db.ping, [platform.up for platform in platforms], lambda: table)
        if config.public_url or config.web_port_set:  # the board in the browser, and /healthz and /readyz
            from bot.adapters.web.running import start_table

            table = await start_table(service.flow, config, ready=parts)
            stack.push_async_callback(table.stop)
        # what must reach a chat of a platform up here, from any process: delivered here, once it is up
        executors: dict[str, ExecutorFor] = {}
        stack.push_async_callback(_cancel, asyncio.create_task(service.outbox.run(executors, stop.event),
                                                               name="outbox"))
        # the daily posts: today's missed ones at once, then every day at DAILY_POST_TIME (UTC)
        poster = DailyPoster(service.subscriptions, service.daily_codes.code, {}, post_time=config.daily_post_time,
                             recap=service.leaderboards.recap)
        stack.push_async_callback(_cancel, asyncio.create_task(poster.run(stop.event), name="daily posts"))
        # the daily attempts still open at midnight end with their day
        stack.push_async_callback(_cancel, asyncio.create_task(service.day_end.run(stop.event), name="day end"))
        beat_now = asyncio.Event()  # a platform came up: the heartbeat says so at once
        if config.heartbeat_file is not None:  # stopped before the rest: the bot is no longer up
            stack.push_async_callback(_cancel, start_heartbeat(config.heartbeat_file, parts, beat_now))
        starting = {asyncio.ensure_future(when_reachable(platform.name, platform.start, stop.event)): platform
                    for platform in platforms}
        for task in starting:  # the first stopped: no platform comes up while the rest stops
            stack.push_async_callback(_cancel, task)
        waiting: set[asyncio.Future[Any]] = set(starting)
        while waiting and (done := await _first_of(stop.event, *waiting)) and not stop.event.is_set():
            waiting -= done
            for ended in done:
                if isinstance(error := ended.exception(), TokenRejected):
                    raise TokenRejected(str(error)) from None
                if ended not in starting:  # a connection that ended
                    if error is not None:
                        log.error("%s stopped: %s", cast(asyncio.Task[None], ended).get_name(), error)
                        return 1
                    return stop.status
                if error is not None:
                    raise error
                platform = starting[ended]
                executors[platform.name] = executor = platform.outbox_executor()
                poster.add(platform.name, executor)
                if (connection := ended.result()) is not None:
                    waiting.add(connection)
                beat_now.set()
        if not stop.event.is_set():
            await stop.event.wait()
        log.info("stopping")
        return stop.status

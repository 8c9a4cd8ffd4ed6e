"""What the running bot counts, for Prometheus (``GET /metrics`` on the web port, :mod:`bot.adapters.web.server`):
commands handled by platform and kind and how long they took, the solver's queue waits and busy answers, hints,
Telegram's flood control met and waited out, the table's event streams and connections, the database pool in use,
the outbox's backlog (read from the database at each scrape).
Each process counts its own: Prometheus adds them up across processes. Every command handled is also one line at
INFO (``tripeaks.commands``): platform, kind, milliseconds."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

log = logging.getLogger("tripeaks.commands")

#: Latency buckets (seconds): a tap is tens of milliseconds, a hint up to its budget, a review or a search seconds.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

COMMANDS = Counter("tripeaks_commands_total", "Commands handled, by platform and kind (Move is a tap)",
                   ["platform", "kind"])
COMMAND_SECONDS = Histogram("tripeaks_command_seconds", "Time to handle a command, by platform and kind",
                            ["platform", "kind"], buckets=BUCKETS)
SOLVER_WAIT_SECONDS = Histogram("tripeaks_solver_wait_seconds", "Time a solver call waited for a worker, by purpose",
                                ["purpose"], buckets=BUCKETS)
SOLVER_BUSY = Counter("tripeaks_solver_busy_total", "Solver calls no worker took in time (answered busy), by purpose",
                      ["purpose"])
HINTS = Counter("tripeaks_hints_total", "Hints answered (by the solver, or from memory)")
TELEGRAM_FLOOD = Counter("tripeaks_telegram_429_total", "Telegram flood control (429) met")
TELEGRAM_PAUSE_SECONDS = Counter("tripeaks_telegram_pause_seconds_total", "Seconds Telegram's flood control asked for")
STREAMS_OPEN = Gauge("tripeaks_event_streams_open", "The table's event streams open")
CONNECTIONS_OPEN = Gauge("tripeaks_web_connections_open", "The table's connections open")
CONNECTIONS_REFUSED = Counter("tripeaks_web_connections_refused_total", "Connections refused past the table's cap")
REQUESTS_REFUSED = Counter("tripeaks_web_requests_refused_total", "Table requests refused, by reason", ["reason"])
OUTBOX_UNDELIVERED = Gauge("tripeaks_outbox_undelivered", "Outbox rows not yet delivered, by platform (the same in "
                           "every process: take the max, not the sum)", ["platform"])
OUTBOX_OLDEST_SECONDS = Gauge("tripeaks_outbox_oldest_seconds", "Age of the oldest outbox row not yet delivered, by "
                              "platform (0: none waits)", ["platform"])
ANSWERS_SHARED = Counter("tripeaks_answers_shared_total", "Solver questions answered from the answers another "
                         "process kept (database or Redis), the solver not asked")
REDIS_FAILURES = Counter("tripeaks_redis_failures_total", "Calls to Redis that failed (the database answered instead)")
POOL_IN_USE = Gauge("tripeaks_database_pool_in_use", "Database connections taken from the pool")
POOL_SIZE = Gauge("tripeaks_database_pool_size", "Database connections the pool keeps")


@contextlib.contextmanager
def handling(platform: str, kind: str) -> Iterator[None]:
    """Count one command of ``kind`` on ``platform``, time it, and log it at INFO."""
    began = time.perf_counter()
    try:
        yield
    finally:
        took = time.perf_counter() - began
        COMMANDS.labels(platform, kind).inc()
        COMMAND_SECONDS.labels(platform, kind).observe(took)
        log.info("%s %s %.0f ms", platform, kind, took * 1000)


def watch_pool(checked_out: Callable[[], int], size: Callable[[], int]) -> None:
    """Read the database pool's use when scraped."""
    POOL_IN_USE.set_function(lambda: float(checked_out()))
    POOL_SIZE.set_function(lambda: float(size()))


#: The platforms whose outbox backlog is always reported (0 when nothing waits), so that an alert sees them.
OUTBOX_PLATFORMS = ("discord", "telegram")


def outbox_backlog(waiting: dict[str, tuple[int, float]], now: float) -> None:
    """Report the outbox's backlog: by platform, the rows not yet delivered and when the oldest was asked for."""
    for platform in sorted({*OUTBOX_PLATFORMS, *waiting}):
        count, oldest = waiting.get(platform, (0, now))
        OUTBOX_UNDELIVERED.labels(platform).set(count)
        OUTBOX_OLDEST_SECONDS.labels(platform).set(max(0.0, now - oldest))


def exposition() -> tuple[bytes, str]:
    """Every metric in Prometheus's text format, and its content type."""
    return generate_latest(), CONTENT_TYPE_LATEST

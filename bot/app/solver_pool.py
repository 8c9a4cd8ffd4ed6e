"""The solver pool: every solver call of the bot (hints, verdicts, winnable deals, the daily deal's search) runs
here, in worker processes, each with a time budget.

The hint a player gets is :func:`fair_hint`: advice from what they can see, never from the face-down cards.
The solver is CPU-bound; in a thread it would hold the GIL the event loop needs, so it runs in processes: one
single-worker pool for what a player waits on (hints, winnable deals, the daily code) and one for background
verdicts, so a long verdict never delays a hint. A call that fails, or takes longer than its timeout, gives None;
a worker that dies is replaced.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ParamSpec, TypeVar

from bot.app import daily
from bot.app.model import DealVerdict, Hint
from core import solver
from core.advisor import VisiblePosition, advise
from core.deal import GameCode
from core.game import UNDO, Game, Status
from core.review import Review as GameReview
from core.review import review

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: How long :meth:`SolverPool.close` waits for the workers it ended before it kills them (seconds).
STOP_GRACE = 1.0
#: The pool a player waits on, and the one for background work.
INTERACTIVE = "interactive"
BACKGROUND = "background"


# --- the calls, module-level so that a process pool can run them -------------------------------------------------

def fair_hint(state: str, budget: float) -> Hint:
    """The advice for the position ``state`` (``Game.to_text()``) from what the player can see
    (:func:`core.advisor.advise`), with its chance of winning; a blocked game gets Undo, and is lost."""
    game = Game.from_text(state)
    if game.status is Status.BLOCKED:
        return Hint(UNDO if game.undo_depth else None, False, None, 0.0)
    advice = advise(VisiblePosition.of(game), time_budget=budget)
    return Hint(advice.action, None, None, advice.win_chance)


def solver_review(state: str) -> GameReview:
    """The exact review of the line played in ``state`` from its deal's start (:func:`core.review.review`)."""
    game = Game.from_text(state)
    return review(Game(game.deal, game.rules, game.code), game.actions())


def solver_verdict(code: str, budget: float, best: bool) -> DealVerdict:
    """Whether the deal ``code`` can be won from its start and, when ``best``, its best possible score."""
    solution = solver.solve(Game.from_code(code), best=best, time_budget=budget)
    return DealVerdict(solution.winnable, solution.best_score if best and solution.winnable else None)


def daily_code_of(day: dt.date, secret: str) -> GameCode:
    """The daily deal of ``day`` under the deployment's ``secret`` (:func:`bot.app.daily.daily_code`)."""
    return daily.daily_code(day, secret)


HintFunction = Callable[[str, float], Hint]
ReviewFunction = Callable[[str], GameReview]
VerdictFunction = Callable[[str, float, bool], DealVerdict]
DailyCodeFunction = Callable[[dt.date, str], GameCode]


#: How often a worker checks that the bot that started it still runs (seconds).
PARENT_POLL = 0.5


def _worker_init(parent: int) -> None:
    """A worker leaves Ctrl-C to the bot: a terminal sends SIGINT to the whole process group, and the bot stops
    its workers itself. And it watches the bot (``parent``), to end when the bot is gone without stopping it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), name="watch the bot", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """End this worker as soon as the bot that started it is gone (``kill -9``, the OOM killer: it could not stop
    its workers), even in the middle of a search. The worker's parent is then another process (init); comparing
    with the pid the bot gave also covers a bot killed while this worker was still starting."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(0)


class _WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers never see Ctrl-C, not even while they start: a worker process is spawned
    inside ``submit``, and a new interpreter takes seconds to import the solver before :func:`_worker_init` runs.
    SIGINT is blocked in the spawning thread around ``submit``; the new process inherits the blocked signal across
    ``exec``, and a Ctrl-C meant for the bot that comes meanwhile is delivered to it as soon as the block ends."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super().submit(fn, *args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _warm_up() -> None:
    """Run in a new worker so the first real request does not pay for starting it and importing the solver."""


class SolverPool:
    """Runs solver calls in worker processes (or in ``executor``, for tests), with a timeout each."""

    def __init__(self, executor: Executor | None = None) -> None:
        self._executor = executor
        self._pools: dict[str, ProcessPoolExecutor] = {}

    def start(self) -> None:
        """Start the workers now, so the first hint does not wait for a process to start."""
        if self._executor is None:
            for purpose in (INTERACTIVE, BACKGROUND):
                self._pool(purpose).submit(_warm_up)

    def _pool(self, purpose: str) -> Executor:
        if self._executor is not None:
            return self._executor
        pool = self._pools.get(purpose)
        if pool is None:
            pool = self._pools[purpose] = _WorkerPool(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init,
                initargs=(os.getpid(),))
        return pool

    async def run(self, purpose: str, timeout: float, function: Callable[P, T], *args: P.args,
                  **kwargs: P.kwargs) -> T | None:
        """``function(*args)`` in a worker of ``purpose``; None if it fails or takes longer than ``timeout``."""
        assert not kwargs, "pool calls take positional arguments"
        pool = self._pool(purpose)
        future = asyncio.get_running_loop().run_in_executor(pool, function, *args)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            log.warning("the solver took longer than %.2f s", timeout)
        except BrokenProcessPool:
            log.exception("a solver worker died; starting a new one")
            if self._pools.get(purpose) is pool:
                del self._pools[purpose]
                self._pool(purpose).submit(_warm_up)
        except Exception:
            log.exception("the solver failed")
        return None

    def close(self) -> None:
        """Stop the workers: pending calls are cancelled, and a worker busy with a search is ended."""
        for pool in self._pools.values():
            processes = list(getattr(pool, "_processes", {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                if process.is_alive():
                    process.terminate()
            deadline = time.monotonic() + STOP_GRACE
            for process in processes:
                while _running(process.pid) and time.monotonic() < deadline:
                    process.join(timeout=0.05)
            for process in processes:  # a straggler (stuck in C code, say) is killed: nothing of ours outlives us
                if _running(process.pid):
                    log.info("a solver worker did not stop; killing it")
                    process.kill()
                    process.join(timeout=1)
        self._pools.clear()


def _running(pid: int | None) -> bool:
    """Whether the process ``pid`` still runs. Not ``Process.is_alive()``: the pool's own management thread may
    reap a worker first, and a reaped child then looks alive to it."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[-1].split()[0] != b"Z"  # a zombie has ended
    except OSError:
        return True

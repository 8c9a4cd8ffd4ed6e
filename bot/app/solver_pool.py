"""The solver pool: every solver call of the bot (hints, verdicts, winnable deals, the daily deal's search) runs
here, in worker processes, each with a time budget.

The calls themselves, and what a new worker does, are in :mod:`bot.app.solver_calls`. The hint a player gets is
:func:`~bot.app.solver_calls.fair_hint`: advice from what they can see, never from the face-down cards.
The solver is CPU-bound; in a thread it would hold the GIL the event loop needs, so it runs in processes: one
pool for what a player waits on (hints, reviews, winnable deals, the daily code) and one for background verdicts,
so a long verdict never delays a hint; how many workers each has is :class:`Workers` (the settings). A call is
handed to a worker only when one is free, and the calls waiting are taken in turn by owner (round robin: a player
with many calls waiting gets one worker turn in each round, not the worker), so a player flooding the solver
delays the others by at most one call each round. A call that no worker takes within its wait, that fails, or
that takes longer than its timeout gives None; a worker that dies is replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import time
from collections import Counter, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ParamSpec, TypeVar

from bot.app.solver_calls import warm_up, worker_init
from bot.metrics import SOLVER_BUSY, SOLVER_WAIT_SECONDS
from core.solver import pure_solver_reason

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: How long :meth:`SolverPool.close` waits for the workers it ended before it kills them (seconds).
STOP_GRACE = 1.0
#: The pool a player waits on, and the one for background work.
INTERACTIVE = "interactive"
BACKGROUND = "background"
#: The owner of the bot's own calls (verdicts, the daily code), taking their turns as one more player.
BOT = "bot"


@dataclass(frozen=True)
class Workers:
    """How many worker processes the solver has: for what a player waits on, and for background verdicts (the
    settings' ``SOLVER_WORKERS`` and ``SOLVER_BACKGROUND_WORKERS``)."""

    interactive: int = 1
    background: int = 1


#: One worker for each kind of work (the tests' default).
ONE_EACH = Workers()


@dataclass
class _Call:
    """A call waiting for a worker, then running: ``started`` is set when a worker takes it, ``done`` gets its
    result (None when it failed)."""

    run: Callable[[], Any]
    started: asyncio.Future[None]
    done: asyncio.Future[Any]


@dataclass
class _Lane:
    """The calls of one purpose: ``free`` workers, the calls waiting for one by owner, and how many are running by
    owner. ``turns`` numbers the last turn of each owner with calls waiting or running: an owner just served waits
    behind every other one."""

    free: int
    waiting: dict[Hashable, deque[_Call]] = field(default_factory=dict)
    running: Counter[Hashable] = field(default_factory=Counter)
    turns: dict[Hashable, int] = field(default_factory=dict)
    turn: int = 0

    def add(self, owner: Hashable, call: _Call) -> None:
        self.waiting.setdefault(owner, deque()).append(call)

    def discard(self, owner: Hashable, call: _Call) -> None:
        calls = self.waiting.get(owner)
        if calls is not None and call in calls:
            calls.remove(call)
            if not calls:
                del self.waiting[owner]
                self._forget(owner)

    def next_call(self) -> tuple[Hashable, _Call] | None:
        """The oldest call of the owner whose turn it is: the one served longest ago (one not served yet first,
        in the order they came)."""
        if not self.waiting:
            return None
        owner = min(self.waiting, key=lambda waiting: self.turns.get(waiting, -1))
        calls = self.waiting[owner]
        call = calls.popleft()
        if not calls:
            del self.waiting[owner]
        self.turn += 1
        self.turns[owner] = self.turn
        self.running[owner] += 1
        return owner, call

    def ended(self, owner: Hashable) -> None:
        """A call of ``owner`` has ended: its worker is free."""
        self.free += 1
        self.running[owner] -= 1
        self._forget(owner)

    def _forget(self, owner: Hashable) -> None:
        """An owner with nothing waiting or running starts afresh next time (its turns are not kept forever)."""
        if owner not in self.waiting and self.running[owner] <= 0:
            del self.running[owner]
            self.turns.pop(owner, None)


class _WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers never see Ctrl-C, not even while they start: a worker process is spawned
    inside ``submit``, and a new interpreter takes seconds to import the solver before
    :func:`~bot.app.solver_calls.worker_init` runs. SIGINT is blocked in the spawning thread around ``submit``; the new process inherits the blocked signal across
    ``exec``, and a Ctrl-C meant for the bot that comes meanwhile is delivered to it as soon as the block ends."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super().submit(fn, *args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class SolverPool:
    """Runs solver calls in worker processes (or in ``executor``, for tests), ``workers`` of them, each call with a
    timeout, taken in turn by owner."""

    def __init__(self, executor: Executor | None = None, workers: Workers = ONE_EACH) -> None:
        self._executor = executor
        self.workers = workers
        self._pools: dict[str, ProcessPoolExecutor] = {}
        self._lanes = {INTERACTIVE: _Lane(workers.interactive), BACKGROUND: _Lane(workers.background)}
        self._running: set[asyncio.Task[None]] = set()
        self._closed = False

    def _count(self, purpose: str) -> int:
        return self.workers.interactive if purpose == INTERACTIVE else self.workers.background

    def start(self) -> None:
        """Start the workers now, so the first hint does not wait for a process to start."""
        if self._executor is None:
            for purpose in (INTERACTIVE, BACKGROUND):
                for _ in range(self._count(purpose)):
                    self._pool(purpose).submit(warm_up)

    def _pool(self, purpose: str) -> Executor:
        if self._executor is not None:
            return self._executor
        pool = self._pools.get(purpose)
        if pool is None:
            pool = self._pools[purpose] = _WorkerPool(
                max_workers=self._count(purpose), mp_context=multiprocessing.get_context("spawn"), initializer=worker_init,
                initargs=(os.getpid(), pure_solver_reason()))
        return pool

    async def run(self, purpose: str, timeout: float, function: Callable[P, T], *args: P.args,
                  **kwargs: P.kwargs) -> T | None:
        """``function(*args)`` for the bot itself (:data:`BOT`), waiting and running ``timeout`` seconds at most
        each (:meth:`run_for`)."""
        return await self.run_for(BOT, purpose, timeout, timeout, function, *args, **kwargs)

    async def run_for(self, owner: Hashable, purpose: str, wait: float, timeout: float, function: Callable[P, T],
                      *args: P.args, **kwargs: P.kwargs) -> T | None:
        """``function(*args)`` in a worker of ``purpose``, in ``owner``'s turn; None if no worker takes it within
        ``wait`` seconds (it is then dropped, never run), or it fails, or it runs longer than ``timeout``."""
        assert not kwargs, "pool calls take positional arguments"
        if self._closed:
            return None
        loop = asyncio.get_running_loop()
        call = _Call(partial(function, *args), loop.create_future(), loop.create_future())
        lane = self._lanes[purpose]
        lane.add(owner, call)
        self._dispatch(purpose)
        queued = loop.time()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(call.started), wait)
        finally:
            lane.discard(owner, call)
        if not call.started.done():
            SOLVER_BUSY.labels(purpose).inc()
            log.warning("no solver worker was free within %.2f s", wait)
            return None
        SOLVER_WAIT_SECONDS.labels(purpose).observe(loop.time() - queued)
        try:
            result: T | None = await asyncio.wait_for(asyncio.shield(call.done), timeout)
        except TimeoutError:
            log.warning("the solver took longer than %.2f s", timeout)
            return None
        return result

    def _dispatch(self, purpose: str) -> None:
        """Hand waiting calls to the free workers of ``purpose``, in turn."""
        lane = self._lanes[purpose]
        while lane.free > 0 and (turn := lane.next_call()) is not None:
            owner, call = turn
            lane.free -= 1
            call.started.set_result(None)
            task = asyncio.get_running_loop().create_task(self._work(purpose, owner, call))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _work(self, purpose: str, owner: Hashable, call: _Call) -> None:
        """Run ``call`` in a worker; the worker is free again only when the call has ended, whoever still waits."""
        pool = self._pool(purpose)
        result: Any = None
        try:
            result = await asyncio.get_running_loop().run_in_executor(pool, call.run)
        except BrokenProcessPool:
            if not self._closed:
                log.exception("a solver worker died; starting a new one")
                if self._pools.get(purpose) is pool:
                    del self._pools[purpose]
                    self._pool(purpose).submit(warm_up)
        except Exception:
            if not self._closed:
                log.exception("the solver failed")
        finally:
            if not call.done.done():
                call.done.set_result(result)
            self._lanes[purpose].ended(owner)
            if not self._closed:
                self._dispatch(purpose)

    def close(self) -> None:
        """Stop the workers: pending calls are cancelled (their callers get None), and a worker busy with a search
        is ended."""
        self._closed = True
        for lane in self._lanes.values():
            for calls in lane.waiting.values():
                for call in calls:
                    call.started.set_result(None)
                    call.done.set_result(None)
            lane.waiting.clear()
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
            # the pool's management thread closes its wake-up pipe as it ends; should the interpreter exit while it
            # is ending, CPython's exit hook writes to that pipe as it closes (EBADF, a traceback on the terminal)
            manager = getattr(pool, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(timeout=STOP_GRACE)
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

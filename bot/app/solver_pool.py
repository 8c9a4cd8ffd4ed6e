"""The solver pool: every solver call of the bot (hints, verdicts, winnable deals, the daily deal's search) runs
here, in worker processes, each with a time budget.

The calls themselves, and what a new worker does, are in :mod:`bot.app.solver_calls`. The hint a player gets is
:func:`~bot.app.solver_calls.fair_hint`: advice from what they can see, never from the face-down cards.
The solver is CPU-bound; in a thread it would hold the GIL the event loop needs, so it runs in processes: one
single-worker pool for what a player waits on (hints, winnable deals, the daily code) and one for background
verdicts, so a long verdict never delays a hint. A call that fails, or takes longer than its timeout, gives None;
a worker that dies is replaced.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ParamSpec, TypeVar

from bot.app.solver_calls import warm_up, worker_init
from core.solver import pure_solver_reason

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: How long :meth:`SolverPool.close` waits for the workers it ended before it kills them (seconds).
STOP_GRACE = 1.0
#: The pool a player waits on, and the one for background work.
INTERACTIVE = "interactive"
BACKGROUND = "background"


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
    """Runs solver calls in worker processes (or in ``executor``, for tests), with a timeout each."""

    def __init__(self, executor: Executor | None = None) -> None:
        self._executor = executor
        self._pools: dict[str, ProcessPoolExecutor] = {}

    def start(self) -> None:
        """Start the workers now, so the first hint does not wait for a process to start."""
        if self._executor is None:
            for purpose in (INTERACTIVE, BACKGROUND):
                self._pool(purpose).submit(warm_up)

    def _pool(self, purpose: str) -> Executor:
        if self._executor is not None:
            return self._executor
        pool = self._pools.get(purpose)
        if pool is None:
            pool = self._pools[purpose] = _WorkerPool(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=worker_init,
                initargs=(os.getpid(), pure_solver_reason()))
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
                self._pool(purpose).submit(warm_up)
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

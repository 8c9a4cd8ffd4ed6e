"""The solver calls that run in the worker processes of :mod:`bot.app.solver_pool`, and what a worker does as it
starts. Module-level functions, so that a process pool can run them: a new worker imports this module to find
them, and with it only the engine (no event loop, no database, no platform library), so it is ready sooner.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import threading
import time
from collections.abc import Callable

from bot.app import daily
from bot.app.model import DealVerdict, Hint
from core import solver
from core.advisor import VisiblePosition, advise
from core.deal import GameCode
from core.game import UNDO, Game, Status
from core.review import Review as GameReview
from core.review import review


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


def worker_init(parent: int, pure_solver: str | None = None) -> None:
    """A worker leaves Ctrl-C to the bot: a terminal sends SIGINT to the whole process group, and the bot stops
    its workers itself. And it watches the bot (``parent``), to end when the bot is gone without stopping it. It runs
    the solver the bot runs: the pure one when the bot does (``pure_solver``: why)."""
    if pure_solver is not None:
        solver.use_pure_solver(pure_solver)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=watch_parent, args=(parent,), name="watch the bot", daemon=True).start()


def watch_parent(parent: int) -> None:
    """End this worker as soon as the bot that started it is gone (``kill -9``, the OOM killer: it could not stop
    its workers), even in the middle of a search. The worker's parent is then another process (init); comparing
    with the pid the bot gave also covers a bot killed while this worker was still starting."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(0)


def warm_up() -> None:
    """Run in a new worker so the first real request does not pay for starting it and importing the solver."""

"""Solver speed: the native kernel, the pure solver and the plain baseline, on the same deals under both rule sets,
in one run. Run by hand:

    .venv/bin/python bench/solver.py [--deals 1000] [--first 0] [--no-baseline] [--no-pure]

For deals ``first`` .. ``first + deals - 1`` from their start, under Easy and Classic rules, it times per deal the
winnability (``solve``) and the best score (``solve(best=True)``) of the native kernel and of the pure solver
(core/solver.py with the kernel switched off), and the same two answers from the plain baseline (a memoised
depth-first search over removed cards, cards drawn and waste rank). It prints the winnable share and the mean,
median, p99 and max milliseconds per deal of each (wall clock, then CPU time of this process), the pure/native and
baseline/native ratios, and every deal where they disagree (exit status 1 then). Wall-clock times on a shared
machine are noisy (CPU time less so): the load average is printed before and after. The baseline takes about an
hour for 1,000 deals of each rule set; ``--no-baseline`` leaves it out, ``--no-pure`` the pure solver.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core.solver  # noqa: E402
from core.deal import GameCode, Rules  # noqa: E402
from core.game import Game  # noqa: E402
from core.solver import Solution, solve, solver_description  # noqa: E402
from core.solver_baseline import baseline_solve  # noqa: E402

Method = Callable[[Game], Solution]


def pure(method: Method) -> Method:
    """The method with the native kernel switched off for its call."""
    def run(game: Game) -> Solution:
        native, core.solver._native = core.solver._native, None
        try:
            return method(game)
        finally:
            core.solver._native = native
    return run


METHODS: dict[str, Method] = {
    "native winnable": lambda game: solve(game),
    "native best": lambda game: solve(game, best=True),
    "pure winnable": pure(lambda game: solve(game)),
    "pure best": pure(lambda game: solve(game, best=True)),
    "baseline winnable": lambda game: baseline_solve(game),
    "baseline best": lambda game: baseline_solve(game, best=True),
}


@dataclass
class Timings:
    seconds: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        self.seconds.append(value)

    def summary(self) -> dict[str, float]:
        ordered = sorted(self.seconds)
        if not ordered:
            return {"mean": 0.0, "median": 0.0, "p99": 0.0, "max": 0.0}
        return {
            "mean": statistics.fmean(ordered),
            "median": statistics.median(ordered),
            "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1],
        }


def ms(value: float) -> str:
    return f"{value * 1000:9.1f}"


def bench(rules: Rules, numbers: range, methods: list[str]) -> int:
    """Time every method on every deal; print the table; return the number of disagreements."""
    timings = {name: Timings() for name in methods}
    cpu = {name: Timings() for name in methods}
    winnable = 0
    disagreements = 0
    for number in numbers:
        answers: dict[str, Solution] = {}
        for name in methods:
            game = Game.from_code(GameCode(rules, number))
            gc.collect()  # no garbage of the previous method is collected on this one's time
            started, started_cpu = time.perf_counter(), time.process_time()
            answers[name] = METHODS[name](game)
            timings[name].add(time.perf_counter() - started)
            cpu[name].add(time.process_time() - started_cpu)
        verdicts = {a.winnable for a in answers.values()}
        scores = {a.best_score for name, a in answers.items() if name.endswith("best")}
        if len(verdicts) != 1 or None in verdicts or len(scores) != 1:
            disagreements += 1
            print(f"  DISAGREE {GameCode(rules, number)}: "
                  + ", ".join(f"{name} {a.winnable}/{a.best_score}" for name, a in answers.items()))
        winnable += bool(answers[methods[0]].winnable)
    print(f"\n{rules.value}: {len(numbers)} deals ({numbers.start}-{numbers.stop - 1}), "
          f"winnable {winnable / len(numbers):.1%}")
    for clock, table in (("wall", timings), ("cpu", cpu)):
        print(f"  {'ms per deal, ' + clock:<22}{'mean':>9}{'median':>9}{'p99':>9}{'max':>9}")
        summaries = {name: table[name].summary() for name in methods}
        for name in methods:
            s = summaries[name]
            print(f"  {name:<22}{ms(s['mean'])}{ms(s['median'])}{ms(s['p99'])}{ms(s['max'])}")
        for other in ("pure", "baseline"):
            for kind in ("winnable", "best"):
                if f"{other} {kind}" in summaries:
                    slow, fast = summaries[f"{other} {kind}"], summaries[f"native {kind}"]
                    ratios = "".join(f"{slow[k] / fast[k]:8.1f}x" for k in ("mean", "median", "p99", "max"))
                    print(f"  {other + '/native ' + kind:<22}{ratios}")
    return disagreements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="how many deals per rule set (default 1000)")
    parser.add_argument("--first", type=int, default=0, help="the first deal number (default 0)")
    parser.add_argument("--no-baseline", action="store_true", help="leave the plain baseline out")
    parser.add_argument("--no-pure", action="store_true", help="leave the pure solver out")
    args = parser.parse_args()
    if core.solver._native is None:
        sys.exit(f"no native kernel to time: the solver is {solver_description()}")
    left_out = ("baseline",) * args.no_baseline + ("pure",) * args.no_pure
    methods = [name for name in METHODS if not name.startswith(left_out)]
    numbers = range(args.first, args.first + args.deals)
    print(f"load average before: {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; Python {sys.version.split()[0]}; "
          f"solver: {solver_description()}")
    started = time.perf_counter()
    disagreements = sum(bench(rules, numbers, methods) for rules in (Rules.EASY, Rules.CLASSIC))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; total {time.perf_counter() - started:.0f} s; "
          f"disagreements: {disagreements}")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()

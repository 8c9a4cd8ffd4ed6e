"""The fair advisor against a greedy player and the omniscient solver. Run by hand:

    .venv/bin/python bench/advisor.py [--deals 100] [--first 0] [--samples 48] [--jobs 1] [--json]

For deals ``first`` .. ``first + deals - 1`` from their start, under Easy and Classic rules, it plays each deal to
its end three ways and prints the win rates with 95% Wilson intervals:

- advisor: every action is :func:`core.advisor.advise`'s choice for the position the player sees (seed: the deal
  number); a forced action (only the draw is legal) is played without asking;
- greedy: a fitting card when there is one, preferring one whose removal turns a card face up (then the lower slot),
  otherwise the draw;
- omniscient: whether the exact solver, which sees every card, can win the deal (the upper bound of any player).

It also prints the advisor's time per decision (wall clock and CPU: median, p99, max) over the decisions with a
choice (a busy machine stretches the wall clock; the CPU time is what a hint costs a worker), and
for each deal the advisor lost that could be won, the decision that lost it: the last position that could still
be won (solved exactly afterwards), the advisor's chance for its choice and for each action that would have kept
the game winnable. ``--jobs 2`` plays deals in two processes (the times are then measured with both cores busy).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.advisor import DEFAULT_SAMPLES, VisiblePosition, advise  # noqa: E402
from core.deal import Deal, Rules  # noqa: E402
from core.game import DRAW, Draw, Game, Status, Tap  # noqa: E402
from core.layout import COVER_MASKS, COVERS  # noqa: E402
from core.solver import solve  # noqa: E402


def wilson(wins: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if total == 0:
        return 0.0, 1.0
    p = wins / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def greedy_action(game: Game) -> Tap | Draw:
    taps = [Tap(slot) for slot in game.playable_slots() if game.fits(slot)]
    if not taps:
        return DRAW

    def uncovers(tap: Tap) -> bool:
        after = game.removed | 1 << tap.slot
        return any(after & COVER_MASKS[c] == COVER_MASKS[c] for c in COVERS[tap.slot])

    return next((tap for tap in taps if uncovers(tap)), taps[0])


@dataclass
class Lost:
    """The decision that lost a winnable deal: the actions before it, the choice, and the chances the advisor gave."""

    deal: int
    move: int
    chosen: str
    chosen_chance: float
    winning_actions: dict[str, float]


@dataclass
class DealResult:
    number: int
    omniscient: bool
    greedy: bool
    advisor: bool
    decision_seconds: list[float] = field(default_factory=list)
    decision_cpu_seconds: list[float] = field(default_factory=list)
    forced: int = 0
    cut: int = 0
    lost: Lost | None = None


def play_advisor(game: Game, number: int, samples: int) -> tuple[list[float], list[float], int, int,
                                                                 list[tuple[str, dict[str, float]]]]:
    """Play ``game`` to its end by the advisor; the wall-clock and CPU times of the decisions, the forced moves,
    the decisions the node budget cut short, and each move's chances (action to chance)."""
    seconds: list[float] = []
    cpu_seconds: list[float] = []
    forced = cut = 0
    chances: list[tuple[str, dict[str, float]]] = []
    while game.status is Status.PLAYING:
        position = VisiblePosition.of(game)
        legal = position.legal_actions()
        if len(legal) == 1:
            forced += 1
            game.push(legal[0])
            chances.append((str(legal[0]), {}))
            continue
        started, started_cpu = time.perf_counter(), time.process_time()
        advice = advise(position, samples=samples, seed=number)
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - started_cpu)
        cut += advice.samples_used < samples and not advice.exact
        chances.append((str(advice.action), {str(a): advice.chance(a) for a, _ in advice.wins}))
        game.push(advice.action)
    return seconds, cpu_seconds, forced, cut, chances


def losing_decision(start: Game, number: int, moves: list[tuple[str, dict[str, float]]]) -> Lost | None:
    """The first move after which the deal could no longer be won, with the advisor's chances there."""
    game = start.copy()
    for index, (word, chances) in enumerate(moves):
        action = DRAW if word == "d" else Tap(int(word))
        after = game.copy()
        after.push(action)
        if not solve(after).winnable:
            winning = {}
            for other in list(game.legal_actions()):
                if isinstance(other, Tap | Draw) and other != action:
                    trial = game.copy()
                    trial.push(other)
                    if solve(trial).winnable:
                        winning[str(other)] = chances.get(str(other), 1.0)
            return Lost(number, index, word, chances.get(word, 1.0), winning)
        game = after
    return None


def play_deal(task: tuple[Rules, int, int]) -> DealResult:
    rules, number, samples = task
    deal = Deal.from_number(number)
    omniscient = bool(solve(Game(deal, rules)).winnable)
    greedy = Game(deal, rules)
    while greedy.status is Status.PLAYING:
        greedy.push(greedy_action(greedy))
    game = Game(deal, rules)
    seconds, cpu_seconds, forced, cut, moves = play_advisor(game, number, samples)
    won = game.status is Status.WON
    lost = losing_decision(Game(deal, rules), number, moves) if omniscient and not won else None
    return DealResult(number, omniscient, greedy.status is Status.WON, won, seconds, cpu_seconds, forced, cut, lost)


def rate(wins: int, total: int) -> dict[str, float]:
    low, high = wilson(wins, total)
    return {"wins": wins, "deals": total, "rate": wins / total if total else 0.0, "low": low, "high": high}


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"median": 0.0, "p99": 0.0, "max": 0.0, "mean": 0.0}
    return {"median": statistics.median(ordered), "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1], "mean": statistics.fmean(ordered)}


def summarise(rules: Rules, results: list[DealResult], samples: int) -> dict[str, object]:
    seconds = [s for r in results for s in r.decision_seconds]
    n = len(results)
    return {
        "rules": rules.value,
        "samples": samples,
        "omniscient": rate(sum(r.omniscient for r in results), n),
        "advisor": rate(sum(r.advisor for r in results), n),
        "greedy": rate(sum(r.greedy for r in results), n),
        "decisions": len(seconds),
        "forced_moves": sum(r.forced for r in results),
        "cut_by_budget": sum(r.cut for r in results),
        "decision_seconds": percentiles(seconds),
        "decision_cpu_seconds": percentiles([s for r in results for s in r.decision_cpu_seconds]),
        "lost_winnable": [asdict(r.lost) for r in results if r.lost is not None],
    }


def show(summary: dict[str, object]) -> None:
    print(f"== {summary['rules']}  ({summary['samples']} samples a decision)")
    for name in ("omniscient", "advisor", "greedy"):
        r = summary[name]
        assert isinstance(r, dict)
        print(f"  {name:<10} {r['wins']:>4}/{r['deals']:<4} {100 * r['rate']:5.1f}%  "
              f"95% CI {100 * r['low']:5.1f}-{100 * r['high']:5.1f}%")
    print(f"  advisor: {summary['decisions']} decisions, {summary['forced_moves']} forced moves not asked, "
          f"{summary['cut_by_budget']} decisions cut by the node budget")
    for key, name in (("decision_seconds", "wall clock"), ("decision_cpu_seconds", "CPU")):
        t = summary[key]
        assert isinstance(t, dict)
        print(f"  time per decision, {name}: median {1000 * t['median']:.0f} ms, p99 {1000 * t['p99']:.0f} ms, "
              f"max {1000 * t['max']:.0f} ms")
    lost = summary["lost_winnable"]
    assert isinstance(lost, list)
    for item in lost:
        others = ", ".join(f"{a} {c:.2f}" for a, c in item["winning_actions"].items()) or "none"
        print(f"  lost deal {item['deal']} at move {item['move']}: chose {item['chosen']} "
              f"(chance {item['chosen_chance']:.2f}); actions that kept it winnable: {others}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    summaries = []
    for rules in (Rules.EASY, Rules.CLASSIC):
        tasks = [(rules, n, args.samples) for n in range(args.first, args.first + args.deals)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                results = list(pool.map(play_deal, tasks))
        else:
            results = [play_deal(task) for task in tasks]
        summary = summarise(rules, results, args.samples)
        summaries.append(summary)
        if not args.json:
            show(summary)
            sys.stdout.flush()
    if args.json:
        print(json.dumps(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())

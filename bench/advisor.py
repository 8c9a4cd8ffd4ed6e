"""The fair advisor against today's, a greedy player and the omniscient solver, and how true its chance comes.

    .venv/bin/python bench/advisor.py [--first 0] [--deals 300] [--samples 64] [--node-budget 320000]
        [--no-today] [--lost] [--jobs 1] [--log FILE] [--against FILE] [--pairs FILE] [--json]

For deals ``first`` .. ``first + deals - 1`` from their start, under Easy and Classic rules (taken in turn, so a
run stopped early is balanced), it plays each deal to its end:

- advisor: every action is :func:`core.advisor.advise`'s choice for the position the player sees (seed: the deal
  number); a forced action (only the draw is legal) is played without asking;
- today: the advisor as it was before its second look, its tie-break toward turning cards face up and its draw
  margin (``advise(..., second_look=False, prefer_reveals=False, draw_margin=False)``), on the same deals
  (``--no-today`` leaves it out);
- greedy: a fitting card when there is one, preferring one whose removal turns a card face up (then the lower slot),
  otherwise the draw;
- omniscient: whether the exact solver, which sees every card, can win the deal (the upper bound of any player).

It prints the win rates with 95% Wilson intervals, the deals only one of the two advisors won (with the exact
McNemar p-value: per rule set, then over both), the time per decision of both advisors (wall clock and CPU:
median, p99, max; a busy machine stretches the wall clock, the CPU time is what a hint costs a worker), the samples
solved per decision and the mean standard error of the raw share they give (how steady the hint is), and how
true the shown chance comes: at the first move, the mean chance shown against the share of deals won; over every
decision, deciles of the shown chance (decisions, mean shown, share won from there) and the Brier score of the shown
chance beside the raw share's. The shown chance is the shipped calibration's (:mod:`core.calibration_table`), which
was fitted on deals 100000-100239 and 300-599 (bench/calibrate.py): report it on others. ``--lost`` adds, for
each deal the advisor lost that could be won, the decision that lost it (the advisor's chance for its choice and for
each action that kept the deal winnable; a few exact solves a deal).

``--log FILE`` appends each played deal as a JSON line and reuses the deals already there (a long run can be stopped
and resumed, and summarised again at once; a deal logged with ``--no-today`` gets only today's advisor played);
``--against FILE`` compares the advisor with the one logged in another run's log on the same deals (other samples
or node budget): the deals only one of the two won, with the McNemar p-value (``against`` in the JSON);
``--pairs FILE`` writes the advisor's decisions as CSV for ``bench/calibrate.py``. ``--json`` prints one JSON object
as the last line: ``runs`` (per rule set), ``games`` (``code``, ``rules``, ``won``, ``shown_at_start``) and
``calibration`` (``bins``, ``brier``, ``brier_raw``).
``--jobs 2`` plays deals in two processes (the times are then measured with both cores busy).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.calibrate import reliability, show_reliability  # noqa: E402
from core.advisor import DEFAULT_NODE_BUDGET, DEFAULT_SAMPLES, VisiblePosition, advise, shown_chance  # noqa: E402
from core.deal import Deal, GameCode, Rules  # noqa: E402
from core.game import DRAW, Draw, Game, Status, Tap  # noqa: E402
from core.layout import turned_up  # noqa: E402
from core.solver import solve  # noqa: E402

T = TypeVar("T")
#: The columns of a ``--pairs`` file: one advised decision a row.
PAIR_FIELDS = ("rules", "deal", "stock_left", "face_down", "wins", "samples", "certain", "start", "won")


@dataclass(frozen=True)
class Task:
    """A deal to play, and how: ``logged`` is the deal's logged record to add today's advisor to (None: play it
    every way)."""

    rules: Rules
    number: int
    samples: int
    node_budget: int
    with_today: bool
    with_lost: bool
    logged: dict[str, Any] | None = None


def wilson(wins: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if total == 0:
        return 0.0, 1.0
    p = wins / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar(only_first: int, only_second: int) -> float:
    """The exact two-sided McNemar p-value of two players on the same deals, from the deals only one of them won:
    how likely a split at least this uneven is when both are equally strong (each such deal a fair coin)."""
    deals = only_first + only_second
    tail = sum(math.comb(deals, k) for k in range(min(only_first, only_second) + 1))
    return min(1.0, 2 * tail / (1 << deals))


def paired(records: list[dict[str, Any]], other: str = "today") -> dict[str, Any] | None:
    """The deals of ``records`` only the advisor won and only the ``other`` player won (today's advisor, or
    ``"against"``: the advisor of the ``--against`` log), with their McNemar p-value (None when it did not play)."""
    if not all(other in r for r in records):
        return None
    ahead = sum(r["advisor"]["won"] and not r[other]["won"] for r in records)
    behind = sum(r[other]["won"] and not r["advisor"]["won"] for r in records)
    return {"advisor_only": ahead, f"{other}_only": behind, "p": mcnemar(ahead, behind)}


def paired_text(counts: dict[str, Any], other: str = "today") -> str:
    """The line that reports :func:`paired`'s counts."""
    name = "today's" if other == "today" else "the --against log's"
    return (f"deals only one advisor won: advisor {counts['advisor_only']}, {name} {counts[f'{other}_only']} "
            f"(exact McNemar p {counts['p']:.3f})")


def greedy_action(game: Game) -> Tap | Draw:
    taps = [Tap(slot) for slot in game.playable_slots() if game.fits(slot)]
    if not taps:
        return DRAW

    return next((tap for tap in taps if turned_up(tap.slot, game.removed)), taps[0])


def play_advisor(game: Game, number: int, samples: int, node_budget: int, today: bool) -> dict[str, Any]:
    """Play ``game`` to its end by the advisor (today's when ``today``): whether it won, each advised decision (the
    cards in the stock and face down, the raw wins of the action chosen, the samples, whether that raw share is
    certain),
    the wall-clock and CPU time of each, the forced moves, the decisions the node budget cut short, and the
    actions with the chances the advisor gave them."""
    decisions: list[list[int]] = []
    seconds: list[float] = []
    cpu: list[float] = []
    forced = cut = 0
    moves: list[tuple[str, dict[str, float]]] = []
    while game.status is Status.PLAYING:
        position = VisiblePosition.of(game)
        legal = position.legal_actions()
        if len(legal) == 1:
            forced += 1
            game.push(legal[0])
            moves.append((str(legal[0]), {}))
            continue
        started, started_cpu = time.perf_counter(), time.process_time()
        advice = advise(position, samples=samples, seed=number, node_budget=node_budget,
                        second_look=not today, prefer_reveals=not today, draw_margin=not today)
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        assert advice.action is not None  # no time budget: at least one sample is solved
        cut += advice.samples_used < samples and not advice.exact
        best = dict(advice.wins)[advice.action]
        decisions.append([position.stock_left, len(position.face_down_slots()), best, advice.samples_used,
                          int(advice.certain)])
        moves.append((str(advice.action), {str(a): advice.chance(a) for a, _ in advice.wins}))
        game.push(advice.action)
    return {"won": game.status is Status.WON, "decisions": decisions, "seconds": seconds, "cpu": cpu,
            "forced": forced, "cut": cut, "moves": moves}


def losing_decision(start: Game, moves: list[tuple[str, dict[str, float]]]) -> dict[str, Any] | None:
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
            return {"move": index, "chosen": word, "chosen_chance": chances.get(word, 1.0),
                    "winning_actions": winning}
        game = after
    return None


def play_deal(task: Task) -> dict[str, Any]:
    """One deal played every way; a JSON-ready record (the log's line). Given the logged record of the deal played
    without today's advisor, only today's is played and added to it (both advisors play a deal the same way every
    time: seeded by the deal number, stopped by the node budget alone)."""
    rules, number, samples, node_budget = task.rules, task.number, task.samples, task.node_budget
    deal = Deal.from_number(number)
    if task.logged is not None:
        today = play_advisor(Game(deal, rules), number, samples, node_budget, today=True)
        today.pop("moves")
        return {**task.logged, "today": today}
    omniscient = bool(solve(Game(deal, rules)).winnable)
    greedy = Game(deal, rules)
    while greedy.status is Status.PLAYING:
        greedy.push(greedy_action(greedy))
    record: dict[str, Any] = {"code": str(GameCode(rules, number)), "rules": rules.value, "number": number,
                              "samples": samples, "node_budget": node_budget, "omniscient": omniscient,
                              "greedy": greedy.status is Status.WON}
    for name in ("advisor", "today") if task.with_today else ("advisor",):
        played = play_advisor(Game(deal, rules), number, samples, node_budget, today=name == "today")
        moves = played.pop("moves")
        if name == "advisor" and task.with_lost and omniscient and not played["won"]:
            played["lost"] = losing_decision(Game(deal, rules), moves)
        record[name] = played
    return record


def rate(wins: int, total: int) -> dict[str, float]:
    low, high = wilson(wins, total)
    return {"wins": wins, "deals": total, "rate": wins / total if total else 0.0, "low": low, "high": high}


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"median": 0.0, "p99": 0.0, "max": 0.0, "mean": 0.0}
    return {"median": statistics.median(ordered), "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1], "mean": statistics.fmean(ordered)}


def at_start(index: int) -> bool:
    """Whether a game's ``index``-th advised decision is at the start, where no card is removed yet and the hint
    maps the chance by the start's own table: the first (only forced draws come before it). A voluntary draw before
    the first removal, about one first decision in 40, leaves the next one at the start too; the log does not tell
    it apart, and counts it in its stage of unseen cards."""
    return index == 0


def shown_of(rules: Rules, index: int, decision: list[int]) -> tuple[float, float]:
    """The raw and the shown chance of a game's ``index``-th recorded decision."""
    stock_left, face_down, wins, used, certain = decision
    raw = wins / used
    return raw, shown_chance(raw, rules, stock_left, face_down, certain=bool(certain),
                             start=at_start(index))


def shown_at_start(record: dict[str, Any]) -> float | None:
    """The chance the hint showed at a played deal's first advised decision (None when every move was forced)."""
    decisions = record["advisor"]["decisions"]
    return shown_of(Rules(record["rules"]), 0, decisions[0])[1] if decisions else None


def standard_error(decision: list[int]) -> float:
    """The sampling error of a recorded decision's raw share (its standard error; 0 when it is certain)."""
    _, _, wins, used, certain = decision
    share = wins / used
    return 0.0 if certain else math.sqrt(share * (1 - share) / used)


def summarise(rules: Rules, records: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(records)
    summary: dict[str, Any] = {"rules": rules.value, "deals": n,
                               "omniscient": rate(sum(r["omniscient"] for r in records), n),
                               "greedy": rate(sum(r["greedy"] for r in records), n)}
    for name in ("advisor", "today"):
        played = [r[name] for r in records if name in r]
        if len(played) != n:
            continue
        summary[name] = {**rate(sum(p["won"] for p in played), n),
                         "decisions": sum(len(p["seconds"]) for p in played),
                         "forced_moves": sum(p["forced"] for p in played),
                         "cut_by_budget": sum(p["cut"] for p in played),
                         "decision_seconds": percentiles([s for p in played for s in p["seconds"]]),
                         "decision_cpu_seconds": percentiles([s for p in played for s in p["cpu"]]),
                         "samples_per_decision": percentiles([d[3] for p in played for d in p["decisions"]]),
                         "standard_error": statistics.fmean(standard_error(d) for p in played
                                                            for d in p["decisions"]) if played else 0.0}
    if "today" in summary:
        summary["paired"] = paired(records)
    if records and "against" in records[0]:
        summary["against"] = paired(records, "against")
    starts = [shown for shown in map(shown_at_start, records) if shown is not None]
    summary["first_move"] = {"mean_shown": statistics.fmean(starts) if starts else None,
                             "win_rate": summary["advisor"]["rate"], "deals": len(starts)}
    summary["lost_winnable"] = [{"deal": r["number"], **r["advisor"]["lost"]} for r in records
                                if r["advisor"].get("lost")]
    return summary


def calibration(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Deciles of the shown chance over every advised decision, with the share won from there, and Brier scores."""
    return reliability((*shown_of(Rules(record["rules"]), index, decision), record["advisor"]["won"])
                       for record in records for index, decision in enumerate(record["advisor"]["decisions"]))


def show(summary: dict[str, Any]) -> None:
    print(f"== {summary['rules']}  ({summary['deals']} deals)")
    for name in ("omniscient", "advisor", "today", "greedy"):
        if name in summary:
            r = summary[name]
            print(f"  {name:<10} {r['wins']:>4}/{r['deals']:<4} {100 * r['rate']:5.1f}%  "
                  f"95% CI {100 * r['low']:5.1f}-{100 * r['high']:5.1f}%")
    for name in ("advisor", "today"):
        if name not in summary:
            continue
        r = summary[name]
        print(f"  {name}: {r['decisions']} decisions, {r['forced_moves']} forced moves not asked, "
              f"{r['cut_by_budget']} decisions cut by the node budget")
        print(f"    samples per decision: median {r['samples_per_decision']['median']:.0f}, mean "
              f"{r['samples_per_decision']['mean']:.1f}; standard error of the raw share, mean "
              f"{100 * r['standard_error']:.1f} points")
        for key, label in (("decision_seconds", "wall clock"), ("decision_cpu_seconds", "CPU")):
            t = r[key]
            print(f"    time per decision, {label}: median {1000 * t['median']:.0f} ms, p99 {1000 * t['p99']:.0f} "
                  f"ms, max {1000 * t['max']:.0f} ms")
    if "paired" in summary:
        print(f"  {paired_text(summary['paired'])}")
    if "against" in summary:
        print(f"  {paired_text(summary['against'], 'against')}")
    first = summary["first_move"]
    if first["mean_shown"] is not None:
        print(f"  first move: mean chance shown {100 * first['mean_shown']:.1f}%, advisor won "
              f"{100 * first['win_rate']:.1f}%")
    for item in summary["lost_winnable"]:
        others = ", ".join(f"{a} {c:.2f}" for a, c in item["winning_actions"].items()) or "none"
        print(f"  lost deal {item['deal']} at move {item['move']}: chose {item['chosen']} "
              f"(chance {item['chosen_chance']:.2f}); actions that kept it winnable: {others}")


def read_log(path: Path | None) -> dict[tuple[str, int], dict[str, Any]]:
    if path is None or not path.exists():
        return {}
    records = {}
    for line in path.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            records[record["rules"], record["number"]] = record
    return records


def in_processes(play: Callable[[T], dict[str, Any]], tasks: list[T], jobs: int) -> Iterator[dict[str, Any]]:
    """``play`` of each task in turn, in ``jobs`` processes when more than one (in the order of ``tasks``)."""
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            yield from pool.map(play, tasks)
    else:
        yield from map(play, tasks)


def write_pairs(path: Path, records: list[dict[str, Any]]) -> None:
    with path.open("w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(PAIR_FIELDS)
        for record in records:
            won = int(record["advisor"]["won"])
            for index, decision in enumerate(record["advisor"]["decisions"]):
                writer.writerow([record["rules"], record["number"], *decision, int(at_start(index)), won])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--node-budget", type=int, default=DEFAULT_NODE_BUDGET)
    parser.add_argument("--no-today", action="store_true", help="leave today's advisor out")
    parser.add_argument("--lost", action="store_true", help="find the decision that lost each lost winnable deal")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--log", type=Path, help="append each deal played as a JSON line; reuse those there")
    parser.add_argument("--pairs", type=Path, help="write the advisor's decisions as CSV (for bench/calibrate.py)")
    parser.add_argument("--against", type=Path,
                        help="a log of another advisor's games on the same deals: the deals only one of them won")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    wanted = [(rules, number) for number in range(args.first, args.first + args.deals) for rules in Rules]
    known = read_log(args.log)
    against = read_log(args.against)
    if args.against and any((rules.value, number) not in against for rules, number in wanted):
        parser.error(f"{args.against} lacks some of these deals")

    def fits(record: dict[str, Any], *, today: bool = not args.no_today) -> bool:
        return (record["samples"], record["node_budget"]) == (args.samples, args.node_budget) and (
            not today or "today" in record) and (not args.lost or "lost" in record["advisor"]
                                                 or record["advisor"]["won"] or not record["omniscient"])

    tasks: list[Task] = []
    for rules, number in wanted:
        record = known.get((rules.value, number))
        if record is not None and fits(record):
            continue
        logged = record if record is not None and fits(record, today=False) else None  # it lacks today's only
        tasks.append(Task(rules, number, args.samples, args.node_budget, not args.no_today, args.lost, logged))
    log = args.log.open("a") if args.log else None
    try:
        for record in in_processes(play_deal, tasks, args.jobs):
            known[record["rules"], record["number"]] = record
            if log:
                log.write(json.dumps(record) + "\n")
                log.flush()
    finally:
        if log:
            log.close()
    records = [known[rules.value, number] for rules, number in wanted]
    if args.against:
        records = [{**r, "against": against[r["rules"], r["number"]]["advisor"]} for r in records]
    if args.pairs:
        write_pairs(args.pairs, records)
    summaries = [summarise(rules, [r for r in records if r["rules"] == rules.value]) for rules in Rules]
    table = calibration(records)
    both = paired(records)
    versus = paired(records, "against")
    if args.json:
        games = [{"code": r["code"], "rules": r["rules"], "won": r["advisor"]["won"],
                  "shown_at_start": shown_at_start(r)} for r in records]
        print(json.dumps({"runs": summaries, "games": games, "calibration": table, "paired": both,
                          "against": versus}))
    else:
        for summary in summaries:
            show(summary)
        if both:
            print(f"both rule sets: {paired_text(both)}")
        if versus:
            print(f"both rule sets: {paired_text(versus, 'against')}")
        show_reliability("how true the shown chance comes (every advised decision)", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fit the calibration map of the fair hint's chance and write it as :mod:`core.calibration_table`. Run by hand:

    .venv/bin/python bench/advisor.py --first 100000 --deals 240 --no-today --samples 64 --node-budget 240000 \\
        --log bench/logs/advisor-100000-240k.jsonl --pairs fit_pairs.csv    # record the advisor's decisions
    .venv/bin/python bench/advisor.py --first 300 --deals 300 --samples 64 --node-budget 240000 \\
        --log bench/logs/advisor-0-240k.jsonl --pairs more_pairs.csv         # and more (header dropped, appended)
    .venv/bin/python bench/advisor.py --first 200000 --deals 300 \\
        --log bench/logs/advisor-200000-320k.jsonl --pairs new_pairs.csv     # the advisor at 320,000 (appended)
    .venv/bin/python bench/calibrate.py [--pairs bench/advisor_pairs.csv] [--check] [--cross-check]

The shipped pairs are the games of the advisor at its node budget of 240,000 on deals 100000-100239 and 300-599 of
each rule set (540 games a rule set, 31,310 decisions), and, since the budget became 320,000 (issue 40), its games
at 320,000 on deals 200000-200299 (300 a rule set, 16,225 decisions): on those deals, in two folds (odd and even
deals, each mapped by a fit on the other), the map fitted with the older games as well came truer (the worst decile
7.7 points off, Brier 0.1825) than the map fitted on the new games alone (9.6, 0.1882) and the map fitted on the
older ones alone, as shipped before (8.4, 0.1823); deals 300000-300299, never used to fit or choose, report it
(docs/benchmarks.md). Cross-checked on all the pairs (``--cross-check``, 840 games a rule set): the first move 57.3% shown
against 57.1% won in Easy and 27.9% against 27.9% in Classic, every decile within 2.8 points, Brier 0.178. The
earlier history: the chance shown is how often the advisor wins from there, so its own games are fitted (those at
240,000 and 320,000 differ in a few deals in a hundred: bench/advisor.py --against); an earlier run at a budget of
60,000 (a weaker advisor, 52% of Easy deals won against 58%) pulled the middle of the Easy map down by up to 9
points on the held-out deals 0-299. Deals 300-599 joined the fit after they were played as held-out deals for the
map fitted on 100000-100239 alone, which showed 29.9% at the first move of Classic where 21.0% were won (a hard set:
65% of its deals can be won, 70% of all deals) and 34.6% where 24.6% were won in the 30-40% decile: 240 games a rule
set were too few. A game's first decision is the stage "start" (no card removed yet): fitted with the later
decisions that still see as many cards unseen, the first move showed 3 points more than was won; on its own
(``--cross-check``, 540 games a rule set) 56.2% against 56.5% in Easy and 25.1% against 25.4% in Classic, every
decile within 4.5 points, Brier 0.176. On deals 600-1499, played after this fit
(``bench/logs/advisor-600-240k.jsonl``): 56.8% against 55.9% and 26.0% against 26.6%, every decile within 2.4
points.

The pairs (one advised decision a row: the rule set, the cards in the stock and face down, the samples that win
after the action chosen, the samples solved, whether nothing was hidden, whether it is at the start, whether the
advisor won the game) come from advisor games on deals 100000-100239, 300-599 and 200000-200299: a report of
``bench/advisor.py`` on the shown chance is a fair one on other deals only. Decisions whose raw share is certain (every arrangement of
the unseen cards solved, and only one or none wins) are left out: their chance is shown as it is. The fit
(:func:`core.calibration.fit`): for each rule set and stage of the game (the start, then the unseen cards by
:data:`EDGES`), the isotonic map from the raw share to the share of games won. ``--check`` writes nothing and exits 1
when the shipped table differs from the fit; ``--cross-check`` writes nothing and shows how true the chance comes on
deals left out of the fit (two folds: odd and even deals).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.advisor import shown_chance  # noqa: E402
from core.calibration import Calibration, Decision, fit, shipped  # noqa: E402
from core.deal import Rules  # noqa: E402

#: The stages of a game by its unseen cards (face down and in the stock): 41 at the start, none at the end.
EDGES = (40, 34, 28, 22, 16, 8, 0)
PAIRS = ROOT / "bench" / "advisor_pairs.csv"
TABLE = ROOT / "core" / "calibration_table.py"


def read_rows(path: Path) -> list[tuple[int, Decision, bool, bool]]:
    """The rows of a pairs file: the deal number, the decision, whether its raw share is certain, whether it is its
    game's first (a game's rows come one after the other; the same deal may be played again later in the file)."""
    rows = []
    previous = None
    with path.open(newline="") as source:
        for row in csv.DictReader(source):
            game = (row["rules"], row["deal"])
            rows.append((int(row["deal"]), Decision(Rules(row["rules"]), int(row["wins"]) / int(row["samples"]),
                                                    int(row["stock_left"]), int(row["face_down"]), row["won"] == "1",
                                                    row["start"] == "1"),
                         row["certain"] == "1", game != previous))
            previous = game
    return rows


def read_pairs(path: Path) -> list[Decision]:
    """The decisions of a pairs file, leaving out those whose raw share is certain."""
    return [decision for _, decision, certain, _ in read_rows(path) if not certain]


def reliability(decisions: Iterable[tuple[float, float, bool]]) -> dict[str, Any]:
    """Of (raw, shown, won) decisions: the deciles of the shown chance (decisions, mean shown, share won from
    there) and the Brier scores of the shown chance and of the raw share."""
    bins = [[0, 0.0, 0] for _ in range(10)]  # decisions, sum shown, won
    brier = brier_raw = 0.0
    total = 0
    for raw, shown, won in decisions:
        cell = bins[min(9, int(shown * 10))]
        cell[0] += 1
        cell[1] += shown
        cell[2] += won
        brier += (shown - won) ** 2
        brier_raw += (raw - won) ** 2
        total += 1
    return {"bins": [{"range": [i / 10, (i + 1) / 10], "decisions": count,
                      "shown": shown / count if count else None, "observed": won / count if count else None}
                     for i, (count, shown, won) in enumerate(bins)],
            "brier": brier / total if total else None, "brier_raw": brier_raw / total if total else None}


def show_reliability(title: str, table: dict[str, Any]) -> None:
    print(f"== {title}")
    print("  shown      decisions  mean shown  won from there")
    for cell in table["bins"]:
        if cell["decisions"]:
            low, high = cell["range"]
            print(f"  {100 * low:3.0f}-{100 * high:3.0f}%  {cell['decisions']:>9}  {100 * cell['shown']:9.1f}%  "
                  f"{100 * cell['observed']:13.1f}%")
    if table["brier"] is not None:
        print(f"  Brier score: shown {table['brier']:.4f}, raw share {table['brier_raw']:.4f}")


def cross_check(path: Path) -> None:
    """Two-fold check on the pairs: fit on the odd deals and show the even ones, then the other way round; the
    reliability of the shown chance on deals not used for its fit, and at each rule set's first move the mean chance
    shown against the share of games won."""
    rows = read_rows(path)
    triples = []
    starts: dict[str, list[tuple[float, bool]]] = {}
    for parity in (0, 1):
        table = fit((decision for deal, decision, certain, _ in rows if deal % 2 != parity and not certain), EDGES)
        for deal, decision, certain, first in rows:
            if deal % 2 != parity:
                continue
            shown = shown_chance(decision.raw, decision.rules, decision.stock_left, decision.face_down,
                                 certain=certain, start=decision.start, table=table)
            triples.append((decision.raw, shown, decision.won))
            if first:
                starts.setdefault(decision.rules.value, []).append((shown, decision.won))
    show_reliability("two-fold cross-check: the chance shown on deals not used for the fit", reliability(triples))
    for rules, pairs in starts.items():
        print(f"  {rules}: first move, mean shown {100 * statistics.fmean(s for s, _ in pairs):.1f}%, won "
              f"{100 * statistics.fmean(w for _, w in pairs):.1f}% of {len(pairs)} games")


def table_text(table: Calibration) -> str:
    """The module :mod:`core.calibration_table` holding ``table``."""
    lines = ['"""The calibration map of the fair hint\'s chance, written by ``bench/calibrate.py`` from',
             '``bench/advisor_pairs.csv`` (do not edit by hand)."""', "",
             f"EDGES: tuple[int, ...] = {table.edges!r}",
             "STEPS: dict[tuple[str, int], tuple[tuple[float, float], ...]] = {"]
    for key, steps in table.steps.items():
        lines.append(f"    {key!r}: (")
        row = "       "
        for step in steps:
            item = f" {step!r},"
            if len(row) + len(item) > 118:
                lines.append(row)
                row = "       "
            row += item
        lines.append(row)
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--check", action="store_true", help="only compare the fit with the shipped table")
    parser.add_argument("--cross-check", action="store_true",
                        help="only show the two-fold check (fit on odd deals, shown on even ones, and back)")
    args = parser.parse_args()
    if args.cross_check:
        cross_check(args.pairs)
        return 0
    table = fit(read_pairs(args.pairs), EDGES)
    if args.check:
        if table != shipped():
            print("the shipped calibration table differs from the fit of", args.pairs)
            return 1
        print("the shipped calibration table is the fit of", args.pairs)
        return 0
    TABLE.write_text(table_text(table))
    for (rules, stage), steps in table.steps.items():
        where = "the start" if stage == 0 else f"unseen >= {table.edges[stage - 1]}"
        print(rules, f"stage {stage} ({where}):",
              " ".join(f"<={raw:.3f}:{shown:.2f}" for raw, shown in steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())

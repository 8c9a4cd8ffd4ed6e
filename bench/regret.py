"""How much the fair advisor loses to the best fair play, where the best fair play can be computed exactly.

    .venv/bin/python bench/regret.py [--first 1500] [--deals 60] [--max-unseen 10] [--node-budget 300000]
        [--samples 64] [--advisor-budget 320000] [--jobs 1] [--json]

The advisor (:func:`core.advisor.advise`) judges each action by the share of random arrangements of the unseen
cards in which it can still be won, every arrangement solved as if its hidden cards were known: a hindsight
judgement, which can prefer an action whose wins need different follow-ups in different arrangements (strategy
fusion). When few cards are unseen, the best a player who sees only what is face up can do is computed exactly by
:func:`fair_values`: the chance of winning after each action when every later choice is the best one knowing
only what has been turned up by then, each unseen card being equally likely to come next (expectimax over the
player's information; no hidden card is read).

For deals ``first`` .. ``first + deals - 1`` of each rule set, played to the end by the advisor (seed: the deal
number, as in bench/advisor.py), it computes at every decision with at most ``max-unseen`` unseen cards the
advisor's *regret*: the best action's exact chance less the exact chance of the action the advisor chose. A
deal's regrets summed estimate how much more often the best fair play would win from the first such position on
(V*(s) - V(s) = the expected sum of the regrets along the advisor's play); their mean over the deals is the
win rate the advisor leaves there, in points, with its standard error. A decision whose exact values need more
than ``node-budget`` information states is left out (counted as ``unsolved``: its regret is at least 0, so the
figure is a lower bound when there are any). ``--json`` prints one JSON object as the last line: ``runs`` (per
rule set) with ``regrets`` (every decision with a regret above zero).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.advisor import in_processes  # noqa: E402
from core.advisor import DEFAULT_NODE_BUDGET, DEFAULT_SAMPLES, VisiblePosition, advise  # noqa: E402
from core.cards import Card  # noqa: E402
from core.deal import Deal, Rules  # noqa: E402
from core.game import DRAW, Draw, Game, Status, Tap  # noqa: E402
from core.layout import ALL_SLOTS_MASK, turned_up  # noqa: E402

#: Ranks run 1-13; index 0 of a rank count is unused, and rank 0 in a slot means no card is seen there.
_RANKS = range(1, 14)


class OutOfBudget(Exception):
    """More information states than the node budget allows."""


@dataclass(frozen=True)
class _Information:
    """What a player knows, on ranks: the rank of each face-up card (0 for a slot removed or face down), the
    removed slots, the waste rank, how many cards of each rank are unseen and how many of them are in the stock."""

    ranks: tuple[int, ...]
    removed: int
    waste: int
    unseen: tuple[int, ...]
    stock_left: int

    @classmethod
    def of(cls, position: VisiblePosition) -> _Information:
        counts = [0] * 14
        for card in position.unseen():
            counts[int(card.rank)] += 1
        ranks = tuple(int(seen.rank) if isinstance(seen, Card) else 0 for seen in position.slots)
        return cls(ranks, position.removed_mask, int(position.waste.rank), tuple(counts), position.stock_left)


class _FairSearch:
    """Expectimax over a player's information, memoised: the value of a state is the best action's chance, the
    chance of an action the mean over what it turns up (each unseen card equally likely)."""

    def __init__(self, rules: Rules, node_budget: int) -> None:
        self.fits = [[bool(a and b) and rules.adjacent(a, b) for b in range(14)] for a in range(14)]
        self.node_budget = node_budget
        self.nodes = 0
        self.memo: dict[_Information, float] = {}

    def actions(self, state: _Information) -> list[Tap | Draw]:
        taps: list[Tap | Draw] = [Tap(slot) for slot, rank in enumerate(state.ranks)
                                  if rank and self.fits[rank][state.waste]]
        return taps + ([DRAW] if state.stock_left else [])

    def value(self, state: _Information) -> float:
        if state.removed == ALL_SLOTS_MASK:
            return 1.0
        known = self.memo.get(state)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.node_budget:
            raise OutOfBudget
        best = 0.0
        for action in self.actions(state):
            best = max(best, self.chance(state, action))
            if best == 1.0:
                break
        self.memo[state] = best
        return best

    def chance(self, state: _Information, action: Tap | Draw) -> float:
        if isinstance(action, Draw):
            return self._turn_up(state, (None,))
        ranks = list(state.ranks)
        ranks[action.slot] = 0
        moved = _Information(tuple(ranks), state.removed | 1 << action.slot, state.ranks[action.slot],
                             state.unseen, state.stock_left)
        return self._turn_up(moved, turned_up(action.slot, state.removed))

    def _turn_up(self, state: _Information, slots: tuple[int | None, ...]) -> float:
        """The mean value over the ranks the first of ``slots`` may turn up (None: the next stock card)."""
        if not slots:
            return self.value(state)
        slot, rest = slots[0], slots[1:]
        total = 0.0
        for rank in _RANKS:
            count = state.unseen[rank]
            if not count:
                continue
            unseen = list(state.unseen)
            unseen[rank] -= 1
            if slot is None:
                turned = _Information(state.ranks, state.removed, rank, tuple(unseen), state.stock_left - 1)
            else:
                ranks = list(state.ranks)
                ranks[slot] = rank
                turned = _Information(tuple(ranks), state.removed, state.waste, tuple(unseen), state.stock_left)
            total += count * self._turn_up(turned, rest)
        return total / sum(state.unseen)


def fair_values(position: VisiblePosition, *, node_budget: int) -> dict[Tap | Draw, float]:
    """The exact chance of winning after each legal action when every later choice is the best a player can make
    seeing only what is face up. Raise :class:`OutOfBudget` past ``node_budget`` information states.

    Classic rules, the waste a 7, one card left: a 6 face up over a face-down top card. A 5 and an 8 are unseen,
    one face down and one in the stock. Taking the 6 turns up the 5 (which fits it: won) or the 8 (the 5 drawn then
    fits nothing: lost); drawing first loses either way.

    >>> from core.advisor import SlotState
    >>> from core.cards import FULL_DECK
    >>> slots = [SlotState.REMOVED] * 28
    >>> slots[0], slots[3] = SlotState.FACE_DOWN, Card.parse("6S")
    >>> hidden = {Card.parse("5H"), Card.parse("8D"), Card.parse("6S")}
    >>> seen = VisiblePosition(Rules.CLASSIC, tuple(slots), Card.parse("7C"), 1,
    ...                        tuple(card for card in FULL_DECK if card not in hidden))
    >>> fair_values(seen, node_budget=100)
    {Tap(slot=3): 0.5, Draw(): 0.0}
    """
    search = _FairSearch(position.rules, node_budget)
    state = _Information.of(position)
    return {action: search.chance(state, action) for action in search.actions(state)}


@dataclass(frozen=True)
class Task:
    """A deal to play by the advisor, measuring its regret where at most ``max_unseen`` cards are unseen."""

    rules: Rules
    number: int
    max_unseen: int
    node_budget: int
    samples: int
    advisor_budget: int


def play_deal(task: Task) -> dict[str, Any]:
    """Play the deal to its end by the advisor: whether it won, and for each decision measured the unseen cards,
    the best action's exact chance and that of the advisor's choice (None for both when out of budget)."""
    game = Game(Deal.from_number(task.number), task.rules)
    decisions: list[dict[str, float | None]] = []
    while game.status is Status.PLAYING:
        position = VisiblePosition.of(game)
        legal = position.legal_actions()
        action = legal[0] if len(legal) == 1 else advise(position, samples=task.samples, seed=task.number,
                                                         node_budget=task.advisor_budget).action
        assert action is not None  # no time budget: at least one sample is solved
        unseen = len(position.unseen())
        if len(legal) > 1 and unseen <= task.max_unseen:
            try:
                values = fair_values(position, node_budget=task.node_budget)
                decisions.append({"unseen": unseen, "best": max(values.values()), "chosen": values[action]})
            except OutOfBudget:
                decisions.append({"unseen": unseen, "best": None, "chosen": None})
        game.push(action)
    return {"rules": task.rules.value, "number": task.number, "won": game.status is Status.WON,
            "decisions": decisions}


def summarise(rules: Rules, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The regret per deal (mean and standard error, in points), the decisions measured and left unsolved, and
    every decision with a regret above zero."""
    per_deal, regrets, solved, unsolved = [], [], 0, 0
    for record in records:
        total = 0.0
        for decision in record["decisions"]:
            if decision["best"] is None:
                unsolved += 1
                continue
            solved += 1
            regret = decision["best"] - decision["chosen"]
            total += regret
            if regret > 1e-12:
                regrets.append({"number": record["number"], "unseen": decision["unseen"],
                                "best": decision["best"], "chosen": decision["chosen"]})
        per_deal.append(total)
    error = statistics.stdev(per_deal) / math.sqrt(len(per_deal)) if len(per_deal) > 1 else 0.0
    return {"rules": rules.value, "deals": len(records), "won": sum(r["won"] for r in records),
            "solved": solved, "unsolved": unsolved, "regret_points": 100 * statistics.fmean(per_deal),
            "error_points": 100 * error, "regrets": regrets}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=int, default=1500)
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--max-unseen", type=int, default=10)
    parser.add_argument("--node-budget", type=int, default=300_000)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--advisor-budget", type=int, default=DEFAULT_NODE_BUDGET)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    tasks = [Task(rules, number, args.max_unseen, args.node_budget, args.samples, args.advisor_budget)
             for number in range(args.first, args.first + args.deals) for rules in Rules]
    records = list(in_processes(play_deal, tasks, args.jobs))
    runs = [summarise(rules, [r for r in records if r["rules"] == rules.value]) for rules in Rules]
    if args.json:
        print(json.dumps({"runs": runs}))
        return 0
    for run in runs:
        print(f"{run['rules']}: {run['deals']} deals, {run['won']} won by the advisor; decisions with at most "
              f"{args.max_unseen} cards unseen: {run['solved']} measured, {run['unsolved']} "
              f"over the node budget; regret {run['regret_points']:.2f} points a deal "
              f"(standard error {run['error_points']:.2f}), {len(run['regrets'])} decisions with any")
    return 0


if __name__ == "__main__":
    sys.exit(main())

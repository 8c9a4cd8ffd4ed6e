"""bench/advisor.py's report: one JSON object on its last line with the games (the chance shown at the first move,
won or not) and the reliability of the shown chance; a log that a second run reuses; pairs for bench/calibrate.py."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from bench.advisor import mcnemar
from core.advisor import VisiblePosition, advise
from core.deal import Deal, Rules
from core.game import Game

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--first", "3", "--deals", "1", "--samples", "4", "--node-budget", "3000"]


def bench(*args: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "advisor.py"), *ARGS, *args], capture_output=True,
                          text=True, check=True, timeout=600)
    return done.stdout


def test_the_json_report_its_log_and_its_pairs(tmp_path: Path) -> None:
    log, pairs = tmp_path / "log.jsonl", tmp_path / "pairs.csv"
    report = json.loads(bench("--json", "--log", str(log), "--pairs", str(pairs)).splitlines()[-1])
    assert [(g["code"], g["rules"]) for g in report["games"]] == [("TP1-E-AAAAAAD", "easy"),
                                                                   ("TP1-C-AAAAAAD", "classic")]
    for game in report["games"]:
        assert isinstance(game["won"], bool) and 0.0 <= game["shown_at_start"] <= 1.0
        start = advise(VisiblePosition.of(Game(Deal.from_number(3), Rules(game["rules"]))), samples=4, seed=3,
                       node_budget=3000)
        assert game["shown_at_start"] == start.win_chance  # what the hint showed at the first move
    table = report["calibration"]
    assert len(table["bins"]) == 10 and 0.0 <= table["brier"] <= 1.0 and 0.0 <= table["brier_raw"] <= 1.0
    decisions = sum(cell["decisions"] for cell in table["bins"])
    runs = {run["rules"]: run for run in report["runs"]}
    assert decisions == sum(run["advisor"]["decisions"] for run in runs.values())
    assert set(runs) == {"easy", "classic"} and all("today" in run for run in runs.values())
    for run in runs.values():
        samples = run["advisor"]["samples_per_decision"]  # 4 a decision, 8 after a second look, fewer when cut
        assert 1 <= samples["median"] <= samples["max"] <= 8
        assert 0.0 <= run["advisor"]["standard_error"] <= 0.5
    for run in runs.values():  # the deals only one advisor won account for the gap between their wins
        paired = run["paired"]
        assert paired["advisor_only"] - paired["today_only"] == run["advisor"]["wins"] - run["today"]["wins"]
        assert paired["advisor_only"] + paired["today_only"] <= 1 and 0.0 < paired["p"] <= 1.0
    assert report["paired"]["advisor_only"] == sum(run["paired"]["advisor_only"] for run in runs.values())
    assert report["paired"]["today_only"] == sum(run["paired"]["today_only"] for run in runs.values())
    with pairs.open() as source:
        rows = list(csv.DictReader(source))
    assert len(rows) == decisions
    assert {row["won"] for row in rows if row["rules"] == "easy"} == {str(int(report["games"][0]["won"]))}
    for rules in ("easy", "classic"):  # a game's first decision is at the start (no card removed yet)
        game_rows = [row for row in rows if row["rules"] == rules]
        assert [row["start"] for row in game_rows] == ["1"] + ["0"] * (len(game_rows) - 1)
    # a second run reuses the log: the same report, nothing played again
    assert len(log.read_text().splitlines()) == 2
    again = json.loads(bench("--json", "--log", str(log)).splitlines()[-1])
    assert again["games"] == report["games"] and again["calibration"] == table
    assert len(log.read_text().splitlines()) == 2


def test_the_mcnemar_p_value_is_the_chance_of_a_split_at_least_as_uneven() -> None:
    assert mcnemar(0, 0) == 1.0  # no deal told them apart
    assert mcnemar(3, 3) == 1.0
    assert mcnemar(5, 0) == mcnemar(0, 5) == 2 / 2 ** 5  # five heads, or five tails, in five fair tosses
    assert mcnemar(6, 1) == 2 * (1 + 7) / 2 ** 7  # at most one of seven tosses the other way, either way
    assert 0.13 < mcnemar(39, 26) < 0.14


def test_a_deal_logged_without_todays_advisor_gets_only_todays_played(tmp_path: Path) -> None:
    log, fresh = tmp_path / "log.jsonl", tmp_path / "fresh.jsonl"
    bench("--no-today", "--log", str(log))
    alone = [json.loads(line) for line in log.read_text().splitlines()]
    assert [("today" in record) for record in alone] == [False, False]
    bench("--log", str(log))  # today's is added to each logged deal; the advisor's play is kept as logged
    added = [json.loads(line) for line in log.read_text().splitlines()][2:]
    assert [{k: v for k, v in record.items() if k != "today"} for record in added] == alone
    bench("--log", str(fresh))  # both advisors played from scratch: the same games, move for move
    played = [json.loads(line) for line in fresh.read_text().splitlines()]
    for record, whole in zip(added, played, strict=True):
        for name in ("advisor", "today"):
            assert record[name]["won"] == whole[name]["won"]
            assert record[name]["decisions"] == whole[name]["decisions"]


def test_against_another_advisors_log_counts_the_deals_only_one_of_them_won(tmp_path: Path) -> None:
    weak, strong = tmp_path / "weak.jsonl", tmp_path / "strong.jsonl"
    alone = json.loads(bench("--no-today", "--samples", "1", "--log", str(weak), "--json").splitlines()[-1])
    report = json.loads(bench("--no-today", "--log", str(strong), "--against", str(weak), "--json").splitlines()[-1])
    for run, before in zip(report["runs"], alone["runs"], strict=True):
        versus = run["against"]
        assert versus["advisor_only"] - versus["against_only"] == run["advisor"]["wins"] - before["advisor"]["wins"]
    assert report["against"]["advisor_only"] == sum(run["against"]["advisor_only"] for run in report["runs"])
    itself = json.loads(bench("--no-today", "--log", str(strong), "--against", str(strong), "--json").splitlines()[-1])
    assert (itself["against"]["advisor_only"], itself["against"]["against_only"]) == (0, 0)
    missing = subprocess.run([sys.executable, str(ROOT / "bench" / "advisor.py"), *ARGS, "--first", "4", "--no-today",
                              "--against", str(weak)], capture_output=True, text=True, timeout=600)
    assert missing.returncode == 2 and "lacks some of these deals" in missing.stderr

"""The picture board's cost: drawing and encoding one board, over many positions of many deals. Run by hand:

    .venv/bin/python bench/render.py [--deals 50] [--four-colour] [--json]

For deals ``0 .. deals - 1`` under Easy and Classic rules it plays each deal from its start to its end by a fixed
random policy (a fitting card when one fits, mostly, else a draw), and at every position seen (hints marked now and
then) times what a tap costs the bot: the seen table, the board's PNG (pastes of cached card images and one
encode) and its alt text. Every card image the positions need is drawn and cached first (that one-off cost is printed apart). It
prints the p50, p99 and max milliseconds a board, wall clock and this thread's CPU time (less noisy on a shared
machine), and the PNG's bytes (mean, max); ``--json`` prints the same as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render.picture import HEIGHT, MAX_BYTES, WIDTH, draw_table, png_size  # noqa: E402
from bot.render.table import seen_table, table_alt  # noqa: E402
from core.deal import GameCode, Rules  # noqa: E402
from core.game import Draw, Game, Tap  # noqa: E402


def positions(deals: int) -> list[tuple[Game, object]]:
    """Every position of each deal played to its end by a fixed random policy, with a hint now and then."""
    rng = random.Random(23)
    found: list[tuple[Game, object]] = []
    for number in range(deals):
        for rules in Rules:
            game = Game.from_code(GameCode(rules, number))
            while not game.is_over:
                taps = [action for action in game.legal_actions() if isinstance(action, Tap)]
                hinted = rng.choice([*taps, Draw()]) if rng.random() < 0.2 else None
                found.append((game.copy(), hinted))
                game.push(rng.choice(taps) if taps and rng.random() < 0.9 else Draw() if game.stock_left else taps[0])
            found.append((game.copy(), None))
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--four-colour", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    games = positions(args.deals)
    started = time.perf_counter()
    for game, hinted in games:  # a first pass: every card image these positions need is drawn and cached
        draw_table(seen_table(game, hinted, four_colour=args.four_colour))
    warm = time.perf_counter() - started

    wall: list[float] = []
    cpu: list[float] = []
    sizes: list[int] = []
    for game, hinted in games:
        w0, c0 = time.perf_counter(), time.thread_time()
        table = seen_table(game, hinted, four_colour=args.four_colour)
        png = draw_table(table)
        table_alt(table, "en")
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - w0)
        sizes.append(len(png))
        assert png_size(png) == (WIDTH, HEIGHT)
    result = {
        "boards": len(games), "deals": args.deals * len(Rules), "width": WIDTH, "height": HEIGHT,
        "wall_ms": {"p50": round(percentile(wall, 0.5) * 1e3, 3), "p99": round(percentile(wall, 0.99) * 1e3, 3),
                    "max": round(max(wall) * 1e3, 3)},
        "cpu_ms": {"p50": round(percentile(cpu, 0.5) * 1e3, 3), "p99": round(percentile(cpu, 0.99) * 1e3, 3),
                   "max": round(max(cpu) * 1e3, 3)},
        "bytes": {"mean": round(sum(sizes) / len(sizes)), "max": max(sizes), "limit": MAX_BYTES},
        "first_pass_s": round(warm, 3),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['boards']} boards of {result['deals']} deals, {WIDTH} x {HEIGHT} px "
              f"(a first pass over them all drew and cached every card image: {warm:.2f} s)")
        for name in ("wall_ms", "cpu_ms"):
            t = result[name]
            print(f"  {name[:-3]:>4}: p50 {t['p50']:.2f} ms  p99 {t['p99']:.2f} ms  max {t['max']:.2f} ms")
        print(f"  PNG: mean {result['bytes']['mean']} bytes, max {result['bytes']['max']} (limit {MAX_BYTES})")
    return 0 if max(sizes) < MAX_BYTES else 1


if __name__ == "__main__":
    raise SystemExit(main())

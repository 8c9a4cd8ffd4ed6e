"""Engine throughput: actions a second, and serialise/deserialise a second. Run by hand:

    .venv/bin/python bench/engine.py [--games 2000]
"""

from __future__ import annotations

import argparse
import random
import time

from core.deal import GameCode, Rules
from core.game import DRAW, Game, Tap


def play_greedily(game: Game, rng: random.Random) -> int:
    """Tap a random fitting card, else draw, until the game ends; return the number of actions applied."""
    count = 0
    while not game.is_over:
        fitting = [s for s in range(28) if game.is_playable(s) and game.fits(s)]
        game.push(Tap(rng.choice(fitting)) if fitting else DRAW)
        count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(1)
    games = [Game.from_code(GameCode(Rules.EASY, n)) for n in range(args.games)]

    start = time.perf_counter()
    actions = sum(play_greedily(game, rng) for game in games)
    elapsed = time.perf_counter() - start
    print(f"actions: {actions} in {elapsed:.2f} s = {actions / elapsed:,.0f} actions/s "
          "(each with its legality check and status)")

    texts = [game.to_text() for game in games]
    start = time.perf_counter()
    for game in games:
        game.to_text()
    ser = time.perf_counter() - start
    start = time.perf_counter()
    for text in texts:
        Game.from_text(text)
    de = time.perf_counter() - start
    mean_len = sum(map(len, texts)) / len(texts)
    print(f"serialise: {len(games) / ser:,.0f}/s; deserialise (with replay): {len(games) / de:,.0f}/s; "
          f"mean size {mean_len:.0f} bytes")


if __name__ == "__main__":
    main()

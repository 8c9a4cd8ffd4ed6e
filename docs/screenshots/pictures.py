"""Redraw the picture boards in this folder (no browser needed):

    .venv/bin/python docs/screenshots/pictures.py

It writes ``picture-STATE.png`` (720 px wide, as Discord and Telegram get it) and ``picture-360-STATE.png`` (the
same scaled to 360 px, as a phone shows it at its size) for STATE in ``fresh`` (TP1-E-AAAAAAB), ``midgame`` (the
first eleven moves of the solver's winning line, as in ``capture.py``), ``hint`` (then the hinted move: the
solver's next one, outlined blue), ``won`` (the line played to the win), ``blocked`` (a Classic deal played greedily until no card fits and the stock is empty), and
``four-colour`` (the mid-game board with the four-colour deck). Look at them: every card should read at a glance
at 360 px.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from bot.render.picture import draw_table  # noqa: E402
from bot.render.table import seen_table  # noqa: E402
from core.deal import GameCode, Rules  # noqa: E402
from core.game import Draw, Game, Status, Tap  # noqa: E402
from core.solver import solve  # noqa: E402

HERE = Path(__file__).resolve().parent


def save(name: str, png: bytes) -> None:
    path = HERE / f"picture-{name}.png"
    path.write_bytes(png)
    image = Image.open(path).convert("RGB")
    image.resize((360, image.height * 360 // image.width), Image.Resampling.LANCZOS).save(
        HERE / f"picture-360-{name}.png", optimize=True)
    print(f"{path.name}: {image.width} x {image.height}, {len(png)} bytes")


def main() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    line = solve(game).line
    assert line is not None
    save("fresh", draw_table(seen_table(game)))
    for action in line[:11]:
        game.push(action)
    save("midgame", draw_table(seen_table(game)))
    save("four-colour", draw_table(seen_table(game, four_colour=True)))
    save("hint", draw_table(seen_table(game, line[11])))
    for action in line[11:]:
        game.push(action)
    save("won", draw_table(seen_table(game)))
    save("blocked", draw_table(seen_table(blocked_game())))


def blocked_game() -> Game:
    """The first Classic deal that a greedy player (the first fitting card, else a draw) plays to a block with a
    peak or two half cleared."""
    for number in range(100):
        game = Game.from_code(GameCode(Rules.CLASSIC, number))
        while not game.is_over:
            taps = [action for action in game.legal_actions() if isinstance(action, Tap)]
            game.push(taps[0] if taps else Draw())
        if game.status is Status.BLOCKED and game.cards_left <= 18:
            return game
    raise AssertionError("no such deal")


if __name__ == "__main__":
    main()

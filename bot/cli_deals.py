"""The engine on the command line: show a deal, apply actions, solve, hint, advise, review, and show a game
message as a platform would send it. Every mistake in the input is a :class:`UsageError` (one line, status 2)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from core.deal import Deal, GameCode, Rules
from core.errors import TriPeaksError
from core.game import Action, Game
from core.layout import ROWS


class UsageError(Exception):
    """Bad input on the command line: printed as one line, exit status 2."""


def _game_json(game: Game) -> dict[str, Any]:
    return {
        "code": str(game.code) if game.code else None,
        "rules": game.rules.value,
        "status": game.status.value,
        "score": game.score,
        "moves": game.moves,
        "waste": str(game.waste),
        "stock_left": game.stock_left,
        "tableau": [
            {"card": str(game.card_at(s)), "face_up": game.is_face_up(s), "removed": game.is_removed(s)}
            for s in range(28)
        ],
    }


def _parse_code(text: str) -> GameCode:
    try:
        return GameCode.parse(text)
    except TriPeaksError as error:
        raise UsageError(str(error)) from None


def _parse_actions(words: Sequence[str]) -> list[Action]:
    try:
        return [Action.parse(word) for word in words]
    except TriPeaksError as error:
        raise UsageError(str(error)) from None


def text_tableau(game: Game) -> str:
    """A plain picture of the position with slot numbers, for typing actions: ``[22]7H`` is slot 22, the 7 of
    hearts, free to play; ``##`` is face down; ``..`` is removed."""
    lines = []
    for row, indent in zip(ROWS, (9, 6, 3, 0), strict=True):
        cells = []
        for slot in row:
            if game.is_removed(slot):
                cells.append(f"{'':>4}..")
            elif game.is_face_up(slot):
                cells.append(f"{slot:>3}:{game.card_at(slot)}")
            else:
                cells.append(f"{slot:>3}:##")
        lines.append(" " * indent + " ".join(cells))
    lines.append(f"waste {game.waste}   stock {game.stock_left}")
    return "\n".join(lines)


def cmd_deal(args: argparse.Namespace) -> int:
    code = _parse_code(args.code)
    deal = code.deal()
    if args.json:
        print(json.dumps({
            "code": str(code),
            "rules": code.rules.value,
            "tableau": [str(c) for c in deal.tableau],
            "waste": str(deal.waste),
            "stock": [str(c) for c in deal.stock],
        }))
    else:
        game = Game.from_code(code)
        print(f"{code}  ({code.rules.value})")
        print(text_tableau(game))
        print("stock (next first): " + " ".join(c.symbol() for c in deal.stock))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    code = _parse_code(args.code)
    actions = _parse_actions(args.actions)
    game = Game.from_code(code)
    log = []
    for action in actions:
        outcome = game.apply(action)
        log.append({"action": str(action), "ok": outcome.ok,
                    "reason": outcome.reason.value if outcome.reason else None})
    if args.json:
        print(json.dumps(_game_json(game) | {"log": log}))
    else:
        for entry in log:
            if not entry["ok"]:
                print(f"{entry['action']}: refused ({entry['reason']})")
        print(f"{code}  {game.rules.value}  {game.status.value}  score {game.score}  moves {game.moves}")
        print(text_tableau(game))
    return 0


def _start_game(args: argparse.Namespace) -> Game:
    """The deal a command starts from: a code, or a typed-in layout with ``--rules``."""
    layout, rules = getattr(args, "layout", None), getattr(args, "rules", None)
    if layout is not None:
        if args.code is not None:
            raise UsageError("give a game code or --layout, not both")
        try:
            game = Game(Deal.parse(layout), Rules.parse(rules or "easy"))
        except TriPeaksError as error:
            raise UsageError(f"bad layout: {error}") from None
    elif args.code is None:
        raise UsageError("give a game code or --layout CARDS")
    elif rules is not None:
        raise UsageError("--rules goes with --layout; a game code names its rules")
    else:
        game = Game.from_code(_parse_code(args.code))
    return game


def _solver_game(args: argparse.Namespace) -> Game:
    """The position ``solve`` and ``hint`` work on: a code or a typed-in layout, then the actions after it."""
    game = _start_game(args)
    for action in _parse_actions(args.actions):
        reason = game.check(action)
        if reason is not None:
            raise UsageError(f"action {action} refused: {reason.value}")
        game.apply(action)
    return game


def cmd_solve(args: argparse.Namespace) -> int:
    from core.solver import solve

    game = _solver_game(args)
    solution = solve(game, best=args.best, time_budget=args.time_budget)
    line = None if solution.line is None else [str(action) for action in solution.line]
    if args.json:
        print(json.dumps({
            "code": str(game.code) if game.code else None,
            "rules": game.rules.value,
            "winnable": solution.winnable,
            "line": line,
            "min_draws": solution.min_draws,
            "best_score": solution.best_score,
            "nodes": solution.nodes,
            "seconds": round(solution.seconds, 6),
        }))
    else:
        verdict = {True: "winnable", False: "cannot be won", None: "unknown (out of time)"}[solution.winnable]
        best = f"  best score {solution.best_score} ({solution.min_draws} more draws)" if solution.best_score else ""
        print(f"{game.code or 'layout'}  {game.rules.value}  {verdict}{best}  ({solution.seconds:.3f} s)")
        if line is not None:
            print("line: " + " ".join(line))
    return 0


def cmd_hint(args: argparse.Namespace) -> int:
    from core.solver import hint

    game = _solver_game(args)
    advice = hint(game, time_budget=args.time_budget)
    action = None if advice.action is None else str(advice.action)
    if args.json:
        print(json.dumps({"action": action, "winnable": advice.winnable, "best_score": advice.best_score}))
    else:
        verdict = {True: "winnable", False: "cannot be won any more", None: "unknown (out of time)"}[advice.winnable]
        best = f", best score {advice.best_score}" if advice.best_score is not None else ""
        print(f"{action or 'no action'}  ({verdict}{best})")
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    from core.advisor import DEFAULT_SAMPLES, VisiblePosition, advise

    game = _solver_game(args)
    samples = DEFAULT_SAMPLES if args.samples is None else args.samples
    if samples < 1:
        raise UsageError(f"--samples must be at least 1, not {samples}")
    try:
        advice = advise(VisiblePosition.of(game), samples=samples, seed=args.seed, time_budget=args.time_budget)
    except TriPeaksError as error:  # the game is won or blocked
        raise UsageError(str(error)) from None
    if args.json:
        print(json.dumps({"action": None if advice.action is None else str(advice.action),
                          "win_chance": advice.win_chance, "raw_chance": advice.raw_chance,
                          "samples": advice.samples_used}))
    elif advice.action is None or advice.win_chance is None or advice.raw_chance is None:
        print("no advice: no arrangement of the unseen cards was solved in time")
    else:
        every = ", every one" if advice.exact else ""
        print(f"{advice.action}  (about {advice.win_chance:.0%} to win; wins in {advice.raw_chance:.0%} of "
              f"{advice.samples_used} arrangements of the unseen cards{every})")
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from core.game import IllegalActionError
    from core.review import review

    game = Game.from_code(_parse_code(args.code))
    try:
        result = review(game, _parse_actions(args.actions))
    except IllegalActionError as error:
        raise UsageError(f"action {error.action} refused: {error.reason.value}") from None
    if args.json:
        print(json.dumps({"won": result.won, "score": result.score, "best_score": result.best_score,
                          "winnable_at_start": result.winnable_at_start, "lost_at": result.lost_at,
                          "longest_chain": result.longest_chain}))
        return 0
    best = "cannot be won" if result.best_score is None else f"best possible {result.best_score}"
    print(f"{game.code}  {game.rules.value}  {'won' if result.won else 'not won'}  score {result.score}  ({best})")
    print(f"longest chain {result.longest_chain}")
    if result.lost_at is not None and result.losing_card is not None:
        card = result.losing_card.symbol()
        what = f"slot {result.losing_action}, {card}, {result.losing_peak_name} peak" if result.losing_peak_name \
            else f"draw, {card}"
        print(f"lost by action {result.lost_at} ({what})")
        print(f"best line from before it (score {result.best_line_score}): "
              + " ".join(str(action) for action in result.best_line or ()))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """The game message exactly as a platform's adapter sends it, built without a database: the adapters' own text
    functions, :mod:`bot.render.platforms`' rows, labels and colour names and :mod:`bot.render.console`'s text; with the picture board, the PNG the
    platform would get (``--image``) and its size and alt text (``"image"`` in the JSON)."""
    from bot.app.abilities import CONSOLE, DISCORD_DM, TELEGRAM_PRIVATE
    from bot.app.model import BoardStyle, GameSnapshot, PlayerKey, Settings
    from bot.i18n import SUPPORTED_LOCALES
    from bot.render import console, platforms
    from bot.render.game import render_game
    from bot.render.picture import draw_table, png_size

    if args.lang not in SUPPORTED_LOCALES:
        raise UsageError(f"--lang must be one of {', '.join(SUPPORTED_LOCALES)}, not {args.lang!r}")
    style = BoardStyle(args.board)
    abilities = {"console": CONSOLE, "discord": DISCORD_DM, "telegram": TELEGRAM_PRIVATE}[args.platform]
    pictured = style is BoardStyle.PICTURE and abilities.pictures
    if args.image is not None and not pictured:
        raise UsageError("--image needs the picture board: --board picture on discord or telegram")
    game = _start_game(args)
    outcome = None
    for action in _parse_actions([*args.moves, *args.actions]):
        outcome = game.apply(action)  # a refused action changes nothing; the view says why
    settings = Settings(board=style, four_colour=args.four_colour)
    snapshot = GameSnapshot(0, game.moves, PlayerKey(args.platform, "0"), "", game, outcome=outcome,
                            settings=settings)
    view = render_game(snapshot, args.lang, settings, fixed_header=abilities.fixed_header)
    image: dict[str, object] | None = None
    if pictured and view.table is not None:
        png = draw_table(view.table)
        width, height = png_size(png)
        image = {"width": width, "height": height, "bytes": len(png), "alt": view.table_alt}
        if args.image is not None:
            try:
                with open(args.image, "wb") as out:
                    out.write(png)
            except OSError as error:
                raise UsageError(f"cannot write {args.image}: {error.strerror}") from None
    buttons: list[list[dict[str, object]]]
    board: str | None = None
    under: str | None = None  # Discord: the texts under the buttons
    if args.platform == "telegram":
        from bot.adapters.telegram.keyboard import caption_text, message_text

        # a picture board is a photo, the header and status its caption
        text, rows = caption_text(view) if pictured else message_text(view), platforms.telegram_rows(view)
        buttons = [[{"label": b.label, "style": b.style} for b in row] for row in rows]
    elif args.platform == "discord":
        from bot.adapters.discord.views import code_block, header_text, tableau_of, under_buttons

        board = None if pictured else tableau_of(view)  # a picture board is the media gallery instead
        parts = [header_text(view.header, board=True), *([code_block(board or "")] if not pictured else [])]
        text = "\n".join(parts)
        under = "\n".join(under_buttons(view))
        buttons = [[{"menu": [{"label": o.label, "chosen": o.chosen} for o in row.options]}]
                   if isinstance(row, platforms.ShownMenu) else
                   [{"label": b.label, "style": b.style, "disabled": b.disabled} for b in row]
                   for row in platforms.discord_rows(view)]
    else:
        text = console.console_text(view)
        buttons = [[{"label": console.console_button(key, b, colour=False),
                     "style": None if b.style.value == "secondary" else b.style.value} for key, b in row]
                   for row in console.console_rows(view)]
    if args.platform == "console" or (args.platform == "telegram" and not pictured):
        board = view.tableau
    shown: dict[str, object] = {"platform": args.platform, "board": style.value if pictured else "text",
                                "text": text, "tableau": board.split("\n") if board else [], "buttons": buttons,
                                "notice": view.notice}
    if under is not None:
        shown["under_buttons"] = under
    if image is not None:
        shown["image"] = image
    print(json.dumps(shown, ensure_ascii=False))
    return 0

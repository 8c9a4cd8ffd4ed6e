"""The picture board (bot/render/picture.py), checked without eyes: every face-up card is drawn at its slot, every
face-down card is a back, every removed card leaves the felt; the picture shows nothing hidden (positions that differ
only in face-down or undrawn cards give the same bytes); its size; its alt text; and the setting that chooses it."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from PIL import Image

from bot.app.assembly import App
from bot.app.model import BoardStyle, GameSnapshot, PlayerKey, Settings
from bot.i18n import SUPPORTED_LOCALES
from bot.render.game import render_game
from bot.render.picture import (
    BANNER,
    CARD_H,
    CARD_W,
    FELT,
    HEIGHT,
    MAX_BYTES,
    PALETTE,
    PILE_Y,
    STOCK_X,
    WASTE_X,
    WIDTH,
    Tile,
    back_tile,
    banner_tile,
    compose,
    draw_table,
    face_tile,
    fan_shown,
    fanned,
    png_size,
    slot_box,
    stock_tile,
)
from bot.render.table import seen_table, table_alt
from bot.render.view import ButtonStyle, SlotState, Table
from core.cards import FULL_DECK, Card
from core.deal import Deal, GameCode, Rules
from core.game import Draw, Game, Status, Tap
from core.layout import ROWS, SLOT_COUNT
from core.solver import solve
from tests.app_helpers import set_settings

ALICE = PlayerKey("telegram", "1")


def played(number: int, rules: Rules, seed: int) -> Iterator[tuple[Game, Tap | Draw | None]]:
    """Every position of a deal played to its end by a random policy, with a random hint now and then."""
    rng = random.Random(seed)
    game = Game.from_code(GameCode(rules, number))
    while True:
        taps = [action for action in game.legal_actions() if isinstance(action, Tap)]
        hinted: Tap | Draw | None = rng.choice([*taps, Draw()]) if rng.random() < 0.3 else None
        yield game.copy(), hinted
        if game.is_over:
            return
        game.push(rng.choice(taps) if taps and (rng.random() < 0.8 or not game.stock_left) else Draw())


def positions(deals: int) -> list[tuple[Game, Tap | Draw | None]]:
    return [position for number in range(deals) for rules in Rules for position in played(number, rules, number)]


def region(board: Image.Image, x: int, y: int) -> Image.Image:
    return board.crop((x, y, x + CARD_W, y + CARD_H))


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs(a[0] - b[0]) < CARD_W and abs(a[1] - b[1]) < CARD_H


def visible_mask(tile_mask: Image.Image, at: tuple[int, int], over: list[tuple[int, int]]) -> Image.Image:
    """Where a card at ``at`` shows: its shape, less the cards drawn over it (at ``over``)."""
    mask = tile_mask.convert("L")
    for x, y in over:
        mask.paste(0, (x - at[0], y - at[1], x - at[0] + CARD_W, y - at[1] + CARD_H))
    return mask.convert("1")


def shows(board: Image.Image, at: tuple[int, int], tile: Tile, over: list[tuple[int, int]]) -> bool:
    """Whether the board shows ``tile`` at ``at`` wherever no card drawn later covers it."""
    seen = region(board, *at)
    mask = visible_mask(tile.mask, at, over)
    return Image.composite(tile.image, seen, mask).tobytes() == seen.tobytes()


def felt_index() -> int:
    return PALETTE.index(FELT)


def check_won(table: Table) -> None:
    """A won table: the last twenty cards played, in order, each whole (all 29-51 in two rows were slivers), and
    the banner with the score."""
    board = compose(table)
    assert table.score is not None and board.size == (WIDTH, HEIGHT)
    shown = fan_shown(table.played)
    assert shown == table.played[-20:] and shown[-1] == table.played[-1]
    places = fanned(shown)
    for index, (card, at) in enumerate(zip(shown, places, strict=True)):
        assert not [place for place in places if place != at and overlaps(place, at)], f"{index}: {card} covered"
        assert shows(board, at, face_tile(card, None, table.four_colour), []), f"{index}: {card}"
    banner = board.crop(BANNER)
    assert banner.tobytes() == banner_tile(table.score).tobytes()


def check_board(table: Table) -> None:
    four_colour = table.four_colour
    if table.played:
        check_won(table)
        return
    board = compose(table)
    assert board.size == (WIDTH, HEIGHT)
    order = [slot for row in ROWS for slot in row]
    present = [slot for slot in order if table.slots[slot].state is not SlotState.GONE]
    for slot in order:
        seen = table.slots[slot]
        at = slot_box(slot)
        later = [slot_box(other) for other in present[present.index(slot) + 1:]] if slot in present else []
        covering = [box for box in later if overlaps(box, at)]
        if seen.state is SlotState.UP:
            assert seen.card is not None
            assert not covering, f"slot {slot}: a face-up card is never covered"
            assert shows(board, at, face_tile(seen.card, seen.mark, four_colour), []), f"slot {slot}: {seen.card}"
        elif seen.state is SlotState.DOWN:
            assert shows(board, at, back_tile(), covering), f"slot {slot}: not a back"
        else:  # the felt, wherever no other card lies
            others = [slot_box(other) for other in present if overlaps(slot_box(other), at)]
            mask = visible_mask(Image.new("1", (CARD_W, CARD_H), 1), at, others)
            felt = Image.new("P", (CARD_W, CARD_H), felt_index())
            seen_region = region(board, *at)
            assert Image.composite(felt, seen_region, mask).tobytes() == seen_region.tobytes(), f"slot {slot}"
    assert shows(board, (STOCK_X, PILE_Y), stock_tile(table.stock_left, table.draw_hinted), [])
    assert shows(board, (WASTE_X, PILE_Y), face_tile(table.waste, None, four_colour), [])


def test_every_card_is_drawn_at_its_slot_over_whole_games() -> None:
    for game, hinted in positions(4):
        check_board(seen_table(game, hinted))


def test_the_four_colour_deck_is_drawn_the_same_way() -> None:
    for game, hinted in positions(2):
        check_board(seen_table(game, hinted, four_colour=True))


def test_the_tiles_differ_where_a_player_must_tell_them_apart() -> None:
    """Every face differs from every other and from the back; a mark changes the card's image; the four-colour deck
    changes only clubs and diamonds."""
    faces = {card: face_tile(card).image.tobytes() for card in FULL_DECK}
    assert len(set(faces.values())) == 52 and back_tile().image.tobytes() not in faces.values()
    card = Card.parse("10H")
    marked = {face_tile(card, mark).image.tobytes() for mark in (None, ButtonStyle.SUCCESS, ButtonStyle.PRIMARY)}
    assert len(marked) == 3
    for c in FULL_DECK:
        changed = face_tile(c, four_colour=True).image.tobytes() != faces[c]
        assert changed == (c.suit.letter in "CD")
    assert len({stock_tile(n).image.tobytes() for n in range(24)}) == 24  # each count reads differently


def hidden_shuffled(game: Game, rng: random.Random) -> Game:
    """The same position with the face-down and undrawn cards dealt differently."""
    tableau = list(game.deal.tableau)
    stock = list(game.deal.stock)
    down = [slot for slot in range(SLOT_COUNT) if not game.is_removed(slot) and not game.is_face_up(slot)]
    hidden = [tableau[slot] for slot in down] + stock[game.drawn:]
    rng.shuffle(hidden)
    for slot in down:
        tableau[slot] = hidden.pop()
    stock[game.drawn:] = hidden
    other = Game.replay(Deal.from_cards([*tableau, game.deal.waste, *stock]), game.rules, game.actions())
    assert other.removed == game.removed and other.waste == game.waste
    return other


def test_the_picture_reveals_nothing_hidden() -> None:
    """Positions that differ only in the face-down and undrawn cards give the same PNG bytes and alt text, in
    every position of many games."""
    rng = random.Random(23)
    checked = 0
    for game, hinted in positions(5):
        if isinstance(hinted, Tap) and not game.is_face_up(hinted.slot):
            continue
        png = draw_table(seen_table(game, hinted))
        alt = table_alt(seen_table(game, hinted), "en")
        for _ in range(2):
            other = hidden_shuffled(game, rng)
            assert draw_table(seen_table(other, hinted)) == png
            assert table_alt(seen_table(other, hinted), "en") == alt
            checked += 1
    assert checked > 300


def won_game(code: str = "TP1-E-AAAAAAC") -> Game:
    game = Game.from_code(code)
    line = solve(game, best=True).line
    assert line is not None
    for action in line:
        game.push(action)
    assert game.status is Status.WON and game.stock_left > 0
    return game


def test_a_won_table_shows_the_cards_played_and_the_score_and_nothing_hidden() -> None:
    """No empty felt when the game is won: every card played, fanned in the order played, over a banner with the
    score; the cards still in the stock change nothing (they were never seen), in either deck."""
    game = won_game()
    table = seen_table(game)
    assert table.played == tuple(game.pile) and len(table.played) == 1 + 28 + game.drawn
    assert table.score == game.score and seen_table(Game.from_code("TP1-E-AAAAAAC")).played == ()
    check_won(table)
    check_won(seen_table(game, four_colour=True))
    assert compose(table).tobytes() != compose(dataclasses.replace(table, played=(), score=None)).tobytes()
    assert banner_tile(game.score).tobytes() != banner_tile(game.score - 1).tobytes()  # the score is drawn
    rng = random.Random(5)
    for _ in range(3):
        assert draw_table(seen_table(hidden_shuffled(game, rng))) == draw_table(table)
    assert len(draw_table(table)) < MAX_BYTES


def test_a_board_is_phone_sized_and_small() -> None:
    sizes = []
    for game, hinted in positions(6):
        png = draw_table(seen_table(game, hinted))
        assert png_size(png) == (WIDTH, HEIGHT)
        sizes.append(len(png))
    assert WIDTH == 720 and HEIGHT <= WIDTH
    assert max(sizes) < MAX_BYTES == 40_000


def test_the_view_carries_the_table_and_its_alt_in_every_language() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    snapshot = GameSnapshot(1, 0, ALICE, "ann", game)
    english = render_game(snapshot, "en", Settings())
    assert english.table == seen_table(game) and english.table_alt == table_alt(seen_table(game), "en")
    assert english.table_alt is not None and "Q♣" in english.table_alt and "18" in english.table_alt
    for locale in SUPPORTED_LOCALES:
        alt = render_game(snapshot, locale, Settings()).table_alt
        assert alt is not None and "Q♣" in alt and "K♣" in alt
        assert (alt == english.table_alt) == (locale == "en"), locale
    assert render_game(snapshot, "en", Settings(board=BoardStyle.TEXT)).table is None  # the text board
    four = render_game(snapshot, "en", Settings(four_colour=True)).table
    assert four is not None and four.four_colour and draw_table(four) != draw_table(seen_table(game))
    assert table_alt(seen_table(game, Draw()), "en").endswith("Stock: 23 (hint: draw). Waste card: Q♣.")
    assert "K♣ (hint)" in table_alt(seen_table(game, Tap(21)), "en")


async def test_the_board_setting_round_trips(service: App) -> None:
    assert (await service.players.get_settings(ALICE)).board is BoardStyle.PICTURE  # the default
    settings = await set_settings(service, ALICE, board=BoardStyle.TEXT, four_colour=True)
    assert settings.board is BoardStyle.TEXT and settings.four_colour
    assert await service.players.get_settings(ALICE) == settings
    snapshot = await service.starts.new_game(ALICE, "Alice")
    assert snapshot.settings.board is BoardStyle.TEXT and snapshot.settings.four_colour  # read with the game
    assert (await set_settings(service, ALICE, board="picture")).board is BoardStyle.PICTURE

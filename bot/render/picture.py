"""The picture board: a PNG of the table drawn with Pillow from a :class:`~bot.render.table.Table`.

Sized for a phone: :data:`WIDTH` (720) pixels wide, a 360-pixel screen at double density, and
:data:`HEIGHT` high. The three peaks are drawn as the cards lie, each row half a card step to the right of the row
below and overlapping it by half a card's height; the stock (a back with its count, or an empty place) and the
waste card sit on a row of their own below. Face-up cards show a large rank (``10`` for a ten) and their suit drawn
as a shape (polygons and circles, so no glyph can be missing), red or black, or in the four-colour deck clubs orange
and diamonds blue. A face-down card is one back, the same for every card; a removed card leaves the felt. A card
that fits the waste card is outlined thick green and the hinted move thick blue: the button's colours.

A won game's table is no empty felt: the last cards the player played, in the order they went onto the waste
(every one of them seen; the cards left in the stock stay unseen), over a gold banner with the three peaks and the
final score. No words, so it reads the same in every language (the caption says "You won").

Every card image (each face with each mark, the back, the stock with each count) is drawn once, anti-aliased at
four times the size, reduced to one fixed palette and cached (:func:`face_tile`, :func:`back_tile`,
:func:`stock_tile`); a board is then pastes of cached tiles onto the felt and one PNG encode (a palette PNG of
15-25 KB). The font is the scalable one Pillow ships (``ImageFont.load_default(size=...)``): nothing is read from the
system or downloaded.

The picture depends only on the :class:`~bot.render.table.Table`, which holds only what the player may see.

>>> from core.game import Game
>>> from bot.render.table import seen_table
>>> png = draw_table(seen_table(Game.from_code("TP1-E-AAAAAAB")))
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n", png_size(png) == (WIDTH, HEIGHT), len(png) < MAX_BYTES
(True, True, True)
"""

from __future__ import annotations

import functools
import io
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from bot.render.tableau import narrow_slot_column
from bot.render.view import ButtonStyle, SlotState, Table
from core.cards import Card, Rank, Suit
from core.layout import ROWS

# --- geometry (pixels of the final picture) ---------------------------------------------------------------------

WIDTH = 720
CARD_W = 64
CARD_H = 90
GAP = 6
MARGIN = (WIDTH - 10 * CARD_W - 9 * GAP) // 2  # 13: ten bottom cards fill the width
HALF_STEP = (CARD_W + GAP) // 2  # 35: a row sits half a card step to the right of the row below
ROW_STEP = 45  # each row overlaps the row below by half a card's height
TOP = 12
PILE_GAP = 14  # between the bottom row and the stock's row
HEIGHT = TOP + 3 * ROW_STEP + CARD_H + PILE_GAP + CARD_H + TOP
#: The stock and the waste card, side by side under the middle of the board.
STOCK_X = WIDTH // 2 - CARD_W - 10
WASTE_X = WIDTH // 2 + 10
PILE_Y = TOP + 3 * ROW_STEP + CARD_H + PILE_GAP
RADIUS = 6
MARK_WIDTH = 6  # the fits / hint outline, inside the card's edge
#: A board is always smaller than this (a test checks it over many positions).
MAX_BYTES = 40_000

#: Drawn this many times larger, then reduced: smooth edges.
_SCALE = 4

# --- colours ------------------------------------------------------------------------------------------------------

Colour = tuple[int, int, int]


def _hex(text: str) -> Colour:
    value = int(text.lstrip("#"), 16)
    return value >> 16, value >> 8 & 0xFF, value & 0xFF


FELT = _hex("#35654D")  # a mid green: neither Discord's dark nor its light theme, nor Telegram's
FACE = _hex("#FFFFFF")
EDGE = _hex("#9E9E9E")
RED = _hex("#D32F2F")
BLACK = _hex("#212121")
#: four-colour deck: clubs, orange (a green would melt into the felt and the green "fits" outline)
ORANGE = _hex("#E65100")
BLUE = _hex("#1565C0")  # four-colour deck: diamonds
BACK = _hex("#A3303A")
BACK_LINE = _hex("#C25660")
FITS = _hex("#00C853")
HINT = _hex("#2962FF")
PILL = _hex("#1B1B1B")
GOLD = _hex("#FFC107")  # the won table's banner
EMPTY = _hex("#2A5440")
EMPTY_LINE = _hex("#5D8C73")

#: Colour pairs that meet at an anti-aliased edge: the palette holds the steps between each pair.
_EDGES: tuple[tuple[Colour, Colour], ...] = (
    (FACE, RED), (FACE, BLACK), (FACE, ORANGE), (FACE, BLUE), (FACE, EDGE), (FACE, FITS), (FACE, HINT),
    (FELT, FACE), (FELT, EDGE), (FELT, BACK), (FELT, FITS), (FELT, HINT), (FELT, EMPTY), (FELT, EMPTY_LINE),
    (EMPTY, EMPTY_LINE), (BACK, FACE), (BACK, BACK_LINE), (BACK, PILL), (PILL, FACE), (BACK, HINT),
    (EDGE, FITS), (EDGE, HINT), (FACE, PILL), (EMPTY, HINT), (FELT, GOLD), (GOLD, BLACK),
)
_STEPS = 8


def _palette() -> list[Colour]:
    colours: list[Colour] = [FELT]
    for a, b in _EDGES:
        for i in range(_STEPS + 1):
            t = i / _STEPS
            colour = tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))
            if colour not in colours:
                colours.append(colour)  # type: ignore[arg-type]
    assert len(colours) <= 256
    return colours


PALETTE = _palette()


@functools.cache
def _palette_image() -> Image.Image:
    image = Image.new("P", (1, 1))
    image.putpalette([c for colour in PALETTE for c in colour] + [0, 0, 0] * (256 - len(PALETTE)))
    return image


def suit_colour(suit: Suit, four_colour: bool = False) -> Colour:
    if four_colour and suit is Suit.CLUBS:
        return ORANGE
    if four_colour and suit is Suit.DIAMONDS:
        return BLUE
    return RED if suit.is_red else BLACK


# --- shapes -------------------------------------------------------------------------------------------------------

Box = tuple[float, float, float, float]


def _circle(draw: ImageDraw.ImageDraw, box: Box, cx: float, cy: float, r: float, fill: Colour) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    draw.ellipse((x0 + (cx - r) * w, y0 + (cy - r) * h, x0 + (cx + r) * w, y0 + (cy + r) * h), fill=fill)


def _polygon(draw: ImageDraw.ImageDraw, box: Box, points: Sequence[tuple[float, float]], fill: Colour) -> None:
    x0, y0, x1, y1 = box
    draw.polygon([(x0 + x * (x1 - x0), y0 + y * (y1 - y0)) for x, y in points], fill=fill)


def draw_suit(draw: ImageDraw.ImageDraw, suit: Suit, box: Box, fill: Colour) -> None:
    """``suit`` as a shape filling ``box`` (left, top, right, bottom)."""
    if suit is Suit.DIAMONDS:
        _polygon(draw, box, [(0.5, 0.0), (0.92, 0.5), (0.5, 1.0), (0.08, 0.5)], fill)
    elif suit is Suit.HEARTS:
        _circle(draw, box, 0.28, 0.3, 0.26, fill)
        _circle(draw, box, 0.72, 0.3, 0.26, fill)
        _polygon(draw, box, [(0.035, 0.4), (0.965, 0.4), (0.5, 0.97)], fill)
        _polygon(draw, box, [(0.3, 0.25), (0.7, 0.25), (0.5, 0.6)], fill)
    elif suit is Suit.SPADES:
        _circle(draw, box, 0.28, 0.6, 0.22, fill)
        _circle(draw, box, 0.72, 0.6, 0.22, fill)
        _polygon(draw, box, [(0.07, 0.56), (0.93, 0.56), (0.5, 0.0)], fill)
        _polygon(draw, box, [(0.5, 0.55), (0.32, 1.0), (0.68, 1.0)], fill)
    else:
        _circle(draw, box, 0.5, 0.27, 0.22, fill)
        _circle(draw, box, 0.25, 0.6, 0.22, fill)
        _circle(draw, box, 0.75, 0.6, 0.22, fill)
        _polygon(draw, box, [(0.5, 0.3), (0.3, 0.6), (0.7, 0.6)], fill)
        _polygon(draw, box, [(0.5, 0.5), (0.32, 1.0), (0.68, 1.0)], fill)


# --- tiles --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tile:
    """A cached card image in the board's palette, and the mask of its rounded shape."""

    image: Image.Image
    mask: Image.Image


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _canvas() -> tuple[Image.Image, Image.Image, ImageDraw.ImageDraw]:
    """A card-sized drawing at :data:`_SCALE` times the size, its shape mask, and a pen on it."""
    size = (CARD_W * _SCALE, CARD_H * _SCALE)
    image = Image.new("RGB", size, FELT)
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), RADIUS * _SCALE, fill=255)
    return image, mask, ImageDraw.Draw(image)


def _outline(draw: ImageDraw.ImageDraw, colour: Colour, width: float) -> None:
    s = _SCALE
    draw.rounded_rectangle((0, 0, CARD_W * s - 1, CARD_H * s - 1), RADIUS * s, outline=colour,
                           width=round(width * s))


def _finish(image: Image.Image, mask: Image.Image) -> Tile:
    """Reduce to the final size over the felt, map to the palette, and keep the shape as a 1-bit mask."""
    felt = Image.new("RGB", image.size, FELT)
    image = Image.composite(image, felt, mask).resize((CARD_W, CARD_H), Image.Resampling.LANCZOS)
    small_mask = mask.resize((CARD_W, CARD_H), Image.Resampling.BOX).point(lambda v: 255 if v >= 128 else 0)
    return Tile(image.quantize(palette=_palette_image(), dither=Image.Dither.NONE), small_mask.convert("1"))


def _mark_colour(mark: ButtonStyle | None) -> Colour | None:
    return {ButtonStyle.SUCCESS: FITS, ButtonStyle.PRIMARY: HINT}.get(mark) if mark is not None else None


def _draw_text(draw: ImageDraw.ImageDraw, text: str, centre_x: float, top: float, size: int, fill: Colour,
               bold: int = 0) -> None:
    """``text`` centred on ``centre_x``, its capitals' top at ``top`` (sizes in final pixels)."""
    font = _font(size * _SCALE)
    left, cap_top, right, _ = draw.textbbox((0, 0), text, font=font, stroke_width=bold * _SCALE)
    draw.text((centre_x * _SCALE - (left + right) / 2, top * _SCALE - cap_top), text, font=font, fill=fill,
              stroke_width=bold * _SCALE, stroke_fill=fill)


#: The rank's font size: capitals about 32 px high, 16 px on a 360-pixel phone (11 in a Discord gallery there).
RANK_SIZE = 46
RANK_TOP = 6
#: The suit's box on the face, in final pixels: under the rank.
SUIT_BOX = (16, 48, 48, 83)


@functools.cache
def face_tile(card: Card, mark: ButtonStyle | None = None, four_colour: bool = False) -> Tile:
    """A face-up card: its rank (``10`` for a ten) and its suit, outlined when it fits or is hinted."""
    image, mask, draw = _canvas()
    s = _SCALE
    draw.rounded_rectangle((0, 0, CARD_W * s - 1, CARD_H * s - 1), RADIUS * s, fill=FACE)
    _outline(draw, EDGE, 1)
    colour = suit_colour(card.suit, four_colour)
    rank = card.rank.label
    _draw_text(draw, rank, CARD_W / 2, RANK_TOP, RANK_SIZE if card.rank is not Rank.TEN else RANK_SIZE - 2,
               colour, bold=1)
    draw_suit(draw, card.suit, tuple(v * s for v in SUIT_BOX), colour)  # type: ignore[arg-type]
    marked = _mark_colour(mark)
    if marked is not None:
        _outline(draw, marked, MARK_WIDTH)
    return _finish(image, mask)


def _back(draw: ImageDraw.ImageDraw) -> None:
    s = _SCALE
    w, h = CARD_W * s, CARD_H * s
    draw.rounded_rectangle((0, 0, w - 1, h - 1), RADIUS * s, fill=FACE)
    inset = 4 * s
    draw.rounded_rectangle((inset, inset, w - 1 - inset, h - 1 - inset), (RADIUS - 2) * s, fill=BACK)
    step = 10 * s
    for x in range(-h, w + h, step):  # a lattice of thin diagonals
        draw.line((x, inset, x + h, inset + h), fill=BACK_LINE, width=s)
        draw.line((x, inset, x - h, inset + h), fill=BACK_LINE, width=s)
    draw.rounded_rectangle((inset, inset, w - 1 - inset, h - 1 - inset), (RADIUS - 2) * s, outline=BACK,
                           width=2 * s)
    _outline(draw, EDGE, 1)


@functools.cache
def back_tile() -> Tile:
    """A face-down card: the same back for every card."""
    image, mask, draw = _canvas()
    _back(draw)
    return _finish(image, mask)


@functools.cache
def stock_tile(count: int, hinted: bool = False) -> Tile:
    """The stock: a back with its count on it (outlined blue when the hint is to draw), or an empty place."""
    image, mask, draw = _canvas()
    s = _SCALE
    if count:
        _back(draw)
        text = str(count)
        font = _font(30 * s)
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
        pill_w, pill_h = (right - left) / s + 14, 34
        x0, y0 = (CARD_W - pill_w) / 2, (CARD_H - pill_h) / 2
        draw.rounded_rectangle((x0 * s, y0 * s, (x0 + pill_w) * s, (y0 + pill_h) * s), 8 * s, fill=PILL)
        _draw_text(draw, text, CARD_W / 2, y0 + (pill_h - 21) / 2, 30, FACE, bold=0)
    else:
        draw.rounded_rectangle((0, 0, CARD_W * s - 1, CARD_H * s - 1), RADIUS * s, fill=EMPTY)
        _outline(draw, EMPTY_LINE, 2)
    if hinted:
        _outline(draw, HINT, MARK_WIDTH)
    return _finish(image, mask)


# --- the board ----------------------------------------------------------------------------------------------------


_ROW_OF = {slot: number for number, row in enumerate(ROWS) for slot in row}


def slot_box(slot: int) -> tuple[int, int]:
    """The top-left corner of ``slot``'s card: bottom card j at column 2j (in half card steps), a card above
    centred over the two that cover it."""
    return MARGIN + HALF_STEP * narrow_slot_column(slot), TOP + ROW_STEP * _ROW_OF[slot]


def tiles(table: Table) -> Iterator[tuple[tuple[int, int], Tile]]:
    """Each card's tile and where it goes, in drawing order: the top row first (a lower row overlaps the row
    above), then the stock and the waste card."""
    four_colour = table.four_colour
    for row in ROWS:
        for slot in row:
            seen = table.slots[slot]
            if seen.state is SlotState.DOWN:
                yield slot_box(slot), back_tile()
            elif seen.state is SlotState.UP:
                assert seen.card is not None
                yield slot_box(slot), face_tile(seen.card, seen.mark, four_colour)
    yield (STOCK_X, PILE_Y), stock_tile(table.stock_left, table.draw_hinted)
    yield (WASTE_X, PILE_Y), face_tile(table.waste, None, four_colour)


#: The won table: the last cards played in two rows of ten, each whole (as the bottom row's cards stand), and the
#: banner where the stock and the waste were. All 29-51 cards in two rows showed as unreadable slivers.
FAN_TOPS = (TOP + 18, TOP + 18 + CARD_H + 20)
FAN_ROW = 10
BANNER = (MARGIN, PILE_Y, WIDTH - MARGIN, PILE_Y + CARD_H)
SCORE_SIZE = 64


def fan_shown(played: Sequence[Card]) -> tuple[Card, ...]:
    """The cards the won table shows: the last ones played, as many as its two rows hold, in the order played."""
    return tuple(played[-FAN_ROW * len(FAN_TOPS):])


def fanned(shown: Sequence[Card]) -> list[tuple[int, int]]:
    """Where each card shown (:func:`fan_shown`) goes on the won table: left to right, ten a row, each whole."""
    return [(MARGIN + (index % FAN_ROW) * (CARD_W + GAP), FAN_TOPS[index // FAN_ROW]) for index in range(len(shown))]


@functools.cache
def banner_tile(score: int) -> Image.Image:
    """The won table's gold banner: the three peaks, cleared, and the final score."""
    s = _SCALE
    left, top, right, bottom = BANNER
    w, h = right - left, bottom - top
    image = Image.new("RGB", (w * s, h * s), FELT)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, w * s - 1, h * s - 1), 14 * s, fill=GOLD)
    peak_w, peak_h, base = 58, 50, h / 2 + 25
    for number in range(3):
        x = 24 + number * (peak_w - 8)
        draw.polygon([(x * s, base * s), ((x + peak_w / 2) * s, (base - peak_h) * s), ((x + peak_w) * s, base * s)],
                     fill=FELT)
    _draw_text(draw, str(score), w / 2 + 40, (h - SCORE_SIZE * 0.7) / 2, SCORE_SIZE, BLACK, bold=1)
    small = image.resize((w, h), Image.Resampling.LANCZOS)
    return small.quantize(palette=_palette_image(), dither=Image.Dither.NONE)


def compose(table: Table) -> Image.Image:
    """The board as a palette image: the felt, then the cached tiles pasted in order; a won game's table instead
    shows the cards played and the banner."""
    board = Image.new("P", (WIDTH, HEIGHT), 0)
    board.putpalette(_palette_image().getpalette() or [])
    if table.played and table.score is not None:
        shown = fan_shown(table.played)
        for card, place in zip(shown, fanned(shown), strict=True):
            tile = face_tile(card, None, table.four_colour)
            board.paste(tile.image, place, tile.mask)
        board.paste(banner_tile(table.score), BANNER[:2])
        return board
    for (x, y), tile in tiles(table):
        board.paste(tile.image, (x, y), tile.mask)
    return board


#: zlib's effort: 3 encodes a board in about a fifth of the time of 6 (Pillow's default), for some 25% more bytes.
COMPRESS_LEVEL = 3


def encode_png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=COMPRESS_LEVEL)
    return out.getvalue()


def draw_table(table: Table) -> bytes:
    """The board's PNG. Pure and thread-safe once the tiles are cached; call it off the event loop."""
    return encode_png(compose(table))


def png_size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height, read from its header."""
    width, height = struct.unpack(">II", png[16:24])
    return width, height

"""The table's executor: the effects of one request (:mod:`bot.app.effects`) as the JSON the page draws.

A board is drawn from the same view as the chats' (:func:`bot.render.effects.draw`): the header, the status lines
(a cleared peak, the hint and its chance, the end of the game), the buttons, and the table as the picture board
has it (:class:`~bot.render.view.Table`: only what the player may see: a face-down card is ``down`` and no more,
the stock a count). Each card the player may tap carries its payload (:func:`bot.app.codec.encode`), which the page
sends back as it is; the server decodes it and the flow decides, as for a chat's button.

The table reports no live board: it is no chat message, so a card played by name in the chat edits the chat's board
as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, assert_never

from bot.app.abilities import TABLE
from bot.app.codec import encode, share_query
from bot.app.commands import AskHint, Begin, Blank, ButtonCommand, DailyDeal, Move, NewGame, RandomDeal
from bot.app.effects import (
    Answer,
    Board,
    Data,
    EditBoard,
    EditMessage,
    Effect,
    GameSnapshot,
    NoticeOf,
    OwnerAnswer,
    PlayAck,
    PlayerKey,
    PointerOf,
    Post,
    PostRound,
    PostTo,
    Problem,
    RedrawBoard,
    RedrawRound,
    Reply,
    RoundSnapshot,
    SendBoard,
    ShareOf,
    Tell,
    settings_of,
)
from bot.i18n import Translator, language_code, resolve_locale, translator
from bot.render.effects import draw, line
from bot.render.endings import shared_in_chat
from bot.render.game import RULE_NAMES, daily_title
from bot.render.picture import (
    BANNER,
    CARD_H,
    CARD_W,
    HEIGHT,
    MARGIN,
    PILE_Y,
    STOCK_X,
    TOP,
    WASTE_X,
    WIDTH,
    fan_shown,
    fanned,
    slot_box,
)
from bot.render.rounds import render_round
from bot.render.table import seen_table, table_alt
from bot.render.tableau import narrow_slot_column
from bot.render.view import Button, ButtonStyle, SeenSlot, SlotState, View, strip_variation
from core.cards import Card
from core.deal import Rules
from core.game import Draw, Tap, Undo
from core.layout import ROWS, SLOT_COUNT

JSON = dict[str, Any]

#: The picture board's geometry (pixels of the picture), and each slot's place in the peaks (``grid``: its column in
#: half card steps and its row): the page lays the peaks out from the grid at the size the screen allows.
LAYOUT: JSON = {
    "width": WIDTH, "height": HEIGHT, "card": [CARD_W, CARD_H],
    "slots": [slot_box(slot) for slot in range(SLOT_COUNT)], "stock": [STOCK_X, PILE_Y], "waste": [WASTE_X, PILE_Y],
    "grid": [[narrow_slot_column(slot), row] for row, slots in enumerate(ROWS) for slot in slots],
    "margin": MARGIN, "top": TOP,
}


def card_json(card: Card) -> JSON:
    """A face-up card: its rank as printed (``10`` for a ten) and its suit's letter."""
    return {"rank": card.rank.label, "suit": card.suit.letter}


def _mark(style: ButtonStyle | None) -> str | None:
    return {ButtonStyle.SUCCESS: "fits", ButtonStyle.PRIMARY: "hint"}.get(style) if style else None


def _payload(command: ButtonCommand | None) -> str | None:
    return None if command is None or isinstance(command, Blank) else encode(command)


def board_json(snapshot: GameSnapshot, locale: str) -> JSON:
    """The board of ``snapshot`` in ``locale``: what the page draws, nothing the player may not see."""
    tr = translator(locale)
    view = draw(Board(snapshot), locale, TABLE)
    # the table as the picture board shows it, whichever board the player has in the chat
    hinted = snapshot.hint.action if snapshot.hint is not None and not snapshot.game.is_over else None
    table = seen_table(snapshot.game, hinted, four_colour=snapshot.settings.four_colour)
    taps = {button.command.action.slot: button for button in view.all_buttons()
            if isinstance(button.command, Move) and isinstance(button.command.action, Tap)}
    slots = [_slot_json(seen, taps.get(slot), tr.gettext) for slot, seen in enumerate(table.slots)]
    draw_button = next((b for b in view.all_buttons() if _is_draw(b)), None)
    # TRANSLATORS: for screen readers: the cards left in the stock ({n} from 23 down to 0: a label and a count)
    stock_label = tr.gettext("Stock: {n}.").format(n=table.stock_left)
    if table.draw_hinted:
        # TRANSLATORS: for screen readers: the stock when the hint is to draw from it ({n} as in "Stock: {n}.")
        stock_label = tr.gettext("Stock: {n} (hint).").format(n=table.stock_left)
    # the stock is the table's Draw: named so, and marked blue when it is the move to make, as the chat's Draw is
    draw_word = tr.pgettext("button", "Draw")
    drawable = draw_button is not None and not draw_button.disabled
    outcome = snapshot.outcome
    controls = [_button_json(button, tr) for button in view.all_buttons()
                if button.card is None and not button.blank and not _is_draw(button)]
    return {
        "game": snapshot.game_id, "version": snapshot.version, "header": view.header, "status": view.status,
        "notice": view.notice, "slots": slots, "four_colour": table.four_colour,
        "stock": {"left": table.stock_left, "hinted": table.draw_hinted, "label": f"{draw_word}. {stock_label}",
                  "word": draw_word, "payload": _payload(draw_button.command) if drawable and draw_button else None,
                  "marked": drawable and draw_button is not None and draw_button.style is ButtonStyle.PRIMARY},
        # the peak (0-2) the last move emptied, for the page to give it its moment; the last tap refused
        "cleared": outcome.cleared_peak if outcome is not None and outcome.ok else None,
        "refused": outcome is not None and not outcome.ok,
        "waste": {**card_json(table.waste),
                  "label": tr.gettext("Waste card: {card}.").format(card=table.waste.symbol())},
        "buttons": controls, "over": snapshot.game.is_over, "daily": snapshot.daily is not None,
        "round": snapshot.round_id,
        # a won table, as the picture draws it: the last cards played, each whole, and the banner with the score
        "won": {"played": [{**card_json(card), "at": list(at)} for card, at in zip(fan_shown(table.played),
                                                                                   fanned(fan_shown(table.played)),
                                                                                   strict=True)],
                "score": table.score, "banner": list(BANNER)} if table.played and table.score is not None else None,
        "alt": table_alt(table, locale),
    }


def watch_json(round: RoundSnapshot, locale: str, *, tables: bool = True, viewer: PlayerKey | None = None) -> JSON:
    """A round as a watcher sees it, read only: its message (the standings; the results once it ended) and each
    player's table as that player sees it (face-down cards as backs, the stock as a count): nothing hidden.
    ``tables`` False: the standings alone (names, cards left, score: never a card), for a player beside their own
    table; ``viewer``: the player who looks, whose line is marked ``you``."""
    view = render_round(round, locale)
    players = []
    for entry in round.entries:
        table = seen_table(entry.game) if entry.game is not None and tables else None
        players.append({
            "name": entry.name, "cleared": entry.cleared, "cards_left": entry.cards_left, "peaks": entry.peaks,
            "score": entry.score, "won": entry.won, "finished": entry.finished, "you": entry.player == viewer,
            "table": None if table is None else {
                "slots": [{"state": seen.state.value, **(card_json(seen.card) if seen.card is not None else {})}
                          for seen in table.slots],
                "stock": table.stock_left, "waste": card_json(table.waste),
                "alt": table_alt(table, locale)},
        })
    return {"round": round.round_id, "ended": round.ended, "seconds_left": round.seconds_left,
            "header": view.header, "status": view.status, "players": players, "words": watch_words(locale)}


def round_event(round: RoundSnapshot, locale: str, *, tables: bool = True, viewer: PlayerKey | None = None) -> bytes:
    """One event of a round's stream (``GET /api/round/events``): the bytes the page receives, as
    :func:`watch_json` draws the round."""
    return f"data: {json.dumps(watch_json(round, locale, tables=tables, viewer=viewer))}\n\n".encode()


def watch_words(locale: str) -> JSON:
    """What the watcher's page and the standings beside a round's table say of their own, in ``locale``."""
    tr = translator(locale)
    return {
        # the round's clock, as its message says it ({time}: the page counts it down), and its end
        "time": tr.gettext("Time left: {time}"), "over": tr.gettext("The round is over"),
        # TRANSLATORS: the board in the browser, after the player's game of a live round ended: a button that shows
        # the other players' boards live (read only). At most 18 columns
        "watch": tr.gettext("👀 Watch the others"),
        # TRANSLATORS: the board in the browser, watching a live round: the button back to the player's own board.
        # At most 18 columns
        "back": tr.gettext("↩ My board"),
        # TRANSLATORS: watching a live round in the browser: one player's line over their board: cards left in the
        # peaks ({left}, 0-28) and score ({score}). At most 24 columns
        "line": tr.gettext("{left} left · {score} pts"),
    }


def _is_draw(button: Button) -> bool:
    return isinstance(button.command, Move) and isinstance(button.command.action, Draw)


def _slot_json(seen: SeenSlot, button: Button | None, gettext: Callable[[str], str]) -> JSON:
    if seen.state is not SlotState.UP:
        # TRANSLATORS: for screen readers: a card lying face down in the peaks of the board in the browser
        return {"state": seen.state.value, **({"label": gettext("Face-down card")} if seen.state is SlotState.DOWN
                                                else {})}
    assert seen.card is not None
    name = strip_variation(seen.card.symbol())
    mark = _mark(seen.mark)
    label = name
    if mark == "hint":
        label = gettext("{card} (hint)").format(card=name)
    elif mark == "fits":
        label = gettext("{card} (fits)").format(card=name)
    return {"state": "up", **card_json(seen.card), "mark": mark, "label": label,
            "payload": _payload(button.command) if button is not None else None}


def _button_json(button: Button, tr: Translator) -> JSON:
    """A control under the table (Undo, Hint, New game; a finished game's Share, Replay, Review), its icon named in
    words for screen readers."""
    command = button.command
    words = kind = None
    if isinstance(command, Move) and isinstance(command.action, Undo):
        words, kind = tr.pgettext("button", "Undo"), "undo"
    elif isinstance(command, AskHint):
        # TRANSLATORS: the board in the browser: the hint button's name for screen readers (it shows 💡)
        words, kind = tr.pgettext("button", "Hint"), "hint"
    elif isinstance(command, NewGame):
        words, kind = tr.pgettext("button", "New game"), "new"
    # ``kind``: the controls that keep a fixed place on the page (Undo, Hint, New game), in play and after it
    return {"label": button.label, "aria": words or button.label, "payload": _payload(command),
            "style": button.style.value, "disabled": button.disabled, "kind": kind}


def _view_json(view: View, tr: Translator) -> JSON:
    """A message of its own (the question before abandoning a game, a review, a shared result, the rules)."""
    return {"header": view.header, "text": view.status, "tableau": view.tableau,
            "buttons": [_button_json(button, tr) for button in view.all_buttons()
                        if button.command is not None and not button.blank]}


def respond(effects: list[Effect], platform_locale: str | None, *, inline: bool = False) -> JSON:
    """What the page is told of ``effects``, in the player's language (their setting, else ``platform_locale``):
    the board as it now stands (``board``), a line (``notice``), a message of its own (``message``: a question with
    its buttons, a review, a shared result), each when there is one, and the language (``locale``). ``inline``: the
    player's chats take the bot's inline queries (Telegram): a shared result comes with the way to send its
    challenge to a chat they pick, as Share does in the chat (``share``: the inline query and its button's label)."""
    answer: JSON = {"board": None, "notice": None, "message": None, "locale": resolve_locale(None, platform_locale),
                    "share": None}
    for effect in effects:
        match effect:
            case SendBoard(snapshot) | EditBoard(snapshot) | RedrawBoard(snapshot):
                locale = answer["locale"] = resolve_locale(snapshot.settings.language, platform_locale)
                answer["board"] = board_json(snapshot, locale)
                if isinstance(effect, EditBoard) and effect.notice is not None:
                    answer["notice"] = line(effect.notice, locale, None)
            case Answer(content) | Reply(content) | Post(content) | EditMessage(content):
                if isinstance(content, Data):  # what one chat platform draws itself (Telegram's inline mode...)
                    continue
                locale = answer["locale"] = resolve_locale(settings_of(content).language, platform_locale)
                if isinstance(content, Problem | PlayAck | NoticeOf | PointerOf | OwnerAnswer):
                    answer["notice"] = line(content, locale, None)
                elif isinstance(content, Board):
                    answer["board"] = board_json(content.snapshot, locale)
                else:
                    if isinstance(content, ShareOf) and content.in_chat:
                        answer["notice"] = shared_in_chat(locale)
                    if isinstance(content, ShareOf) and inline:
                        answer["share"] = {"query": share_query(content.snapshot.game_id),
                                           "label": translator(locale).pgettext("button", "Share")}
                    answer["message"] = _view_json(draw(content, locale, TABLE, replay=None), translator(locale))
            case Tell() | PostTo():
                pass  # messages to a chat (a challenger told through the outbox, a daily post), never the page's
            case PostRound() | RedrawRound():
                pass  # the table starts no round; a round's message is its chat's
            case unhandled:
                assert_never(unhandled)
    return answer


def strings(locale: str) -> JSON:
    """The words the page shows of its own, in ``locale``: the ways to start a game (a payload each)."""
    tr = translator(locale)
    starts = [(daily_title(tr), Begin(DailyDeal())), (tr.gettext(RULE_NAMES[Rules.EASY]), Begin(RandomDeal(Rules.EASY))),
              (tr.gettext(RULE_NAMES[Rules.CLASSIC]), Begin(RandomDeal(Rules.CLASSIC)))]
    return {"lang": language_code(locale), "title": "TriPeaks",
            # TRANSLATORS: the board in the browser: the name, for screen readers, of the × that closes a message
            "close": tr.gettext("Close"),
            "watch": watch_words(locale)["watch"],
            **failure_words(tr),
            "starts": [{"label": label, "payload": encode(command)} for label, command in starts]}


def failure_words(tr: Translator) -> JSON:
    """What the page says when a request fails: no answer at all (``offline``), or the server's error (``server``)."""
    # TRANSLATORS: the board in the browser: a tap got no answer (the phone's network is down or changed)
    offline = tr.gettext("No connection: check your network and tap again")
    # TRANSLATORS: the board in the browser: the server answered a tap with an error (it may be restarting)
    server = tr.gettext("The server could not answer: try again in a moment")
    return {"offline": offline, "server": server}


def refusal_words(locale: str) -> JSON:
    """What the page says to a visitor it does not know (no launch data, an expired link), for each surface it may be
    opened from (``telegram``: a Mini App whose launch data is refused; ``discord``: inside a Discord Activity,
    Discord's sign-in declined or refused; ``browser``: a link expired or used; ``refused``: none of these), and
    its failures (:func:`failure_words`), in ``locale``."""
    tr = translator(locale)
    # TRANSLATORS: the board in the browser, opened without the bot's link (or with an expired one): where to open
    # it from ("Open the board" is the button under the game in the chat: the same words)
    text = tr.gettext("Open the board with the “Open the board” button under your game in the chat")
    # TRANSLATORS: the board opened inside Discord (a Discord Activity), when Discord did not vouch for the player
    # (they declined to authorise the app, or Discord refused the sign-in); TriPeaks is the app's name
    discord = tr.gettext("Discord did not confirm who you are: close TriPeaks and start it again")
    # TRANSLATORS: the board opened as a Telegram Mini App whose launch data the server refused (too old, or
    # altered): close it and open it again from the bot's chat (its menu button or the button under the game)
    telegram = tr.gettext("Telegram did not confirm who you are: close the board and open it again from the chat")
    # TRANSLATORS: the board opened in a browser with a link that expired (links last a quarter of an hour) or was
    # already used; a new link comes from the game, in Discord with /tripeaks board
    browser = tr.gettext("This link has expired or was already used: open the board again from your game")
    return {"lang": language_code(locale), "refused": text, "discord": discord, "telegram": telegram,
            "browser": browser, **failure_words(tr)}

"""The Telegram executor: the effects of :mod:`bot.app.flow` carried out for one command or one tap, and what it did
reported back (:class:`~bot.app.effects.BoardAt`: the message that now shows a game, which the flow records).

- a board sent answers the command or the tapped message (quoting it in groups); with ``reuse`` the tapped message
  itself is redrawn into it (Yes under the question, New game on a board with no move yet). It is reported as the
  game's live board, and the replaced game's board is redrawn as no longer the latest;
- in a group an answered question leaves: No redraws it into the game's board when that board is in the group (as
  Back would), Yes into the new game's; one a picture cannot be drawn into is deleted, and so is "your game goes
  on" (a game whose board is elsewhere, or played in private) once Back to the game has been tapped on it;
- a board edited is the tapped message, at the chat's pace, drawing the game as it stands when the edit is sent
  (:class:`~bot.adapters.telegram.boards.BoardEdits`: taps meanwhile coalesce into one edit; never back to an older
  version of the game); the tap's toast is answered first, at once: what the tap did (the card played or drawn, a
  refusal's reason), so the player knows it counted while the board catches up; a refusal on a board that shows
  the game as it stands edits nothing; a message that can no longer be edited is followed by a new one;
- a private line is the tap's toast, or a short reply to a command; the question is a reply (Telegram has no message
  only one member of a group sees); a review, the settings and the ranked daily attempt asked for in a group go to
  the player's private chat with the bot (when the bot may not write there first, a ``t.me/<bot>?start=...`` link
  opens that chat and shows them there; the settings then stay in the group); in a private chat they take the
  board's place in its own message (a photo's caption: the picture stays), Back brings the board;
- a post is a message of its own in the chat (the shared result, with its challenge link); a reply answers the
  command for the chat to see (the leaderboard, a subscription);
- a card played by name (``/play 7h``, ``7h``) redraws the live board; when that board is in the same chat, the
  typed message is deleted where the bot may (any in a private chat, in a group only as an admin), else a short
  acknowledgement answers it;
- a daily post (:class:`~bot.app.effects.PostTo`) is a message of its own in the subscribed group, tried once:
  what Telegram answered is reported (:func:`~bot.adapters.telegram.sending.post_once`) for the poster to act on;
- a board redrawn where it is: a text board cannot become a picture (nor the other way round), so after a change
  of board style it is sent anew, and the old one loses its buttons.

Every tap is answered exactly once, so the player's client stops spinning.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable
from typing import assert_never

from telegram import Bot, CallbackQuery, Message, User
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

from bot.adapters.telegram.base import (
    TelegramContext,
    edit_view,
    game_key,
    group_chat_id,
    in_group,
    message_ref,
)
from bot.adapters.telegram.drawing import TelegramDrawing, anchored
from bot.adapters.telegram.inline import bot_link
from bot.adapters.telegram.keyboard import keyboard, message_text, toast
from bot.adapters.telegram.sending import is_not_modified, persist, post_once
from bot.adapters.telegram.tapped import buttons_of, in_place_of_board, shown_game
from bot.app.abilities import telegram
from bot.app.codec import BadPayload, review_parameter
from bot.app.commands import DailyDeal, Resume
from bot.app.effects import (
    Answer,
    Board,
    BoardAt,
    BoardRef,
    ChallengeAnswered,
    DailyPost,
    Data,
    EditBoard,
    EditMessage,
    Effect,
    ExecutorFor,
    GameSnapshot,
    Kept,
    Note,
    PlayAck,
    Post,
    Posted,
    PostedTo,
    PostTo,
    Problem,
    RedrawBoard,
    Reply,
    Report,
    ReviewOf,
    SendBoard,
    Settings,
    SettingsOf,
    Tell,
)
from bot.render.endings import review_sent_privately
from bot.render.lifecycle import daily_sent_privately, render_daily_in_private
from bot.render.replies import render_daily
from bot.render.view import View

log = logging.getLogger(__name__)

#: How long the edit of a tapped message waits for the toast to be answered first (seconds); past it, both go on.
TOAST_FIRST_WAIT = 1.0


class TelegramExecutor:
    """Carries out effects for ``user``'s command (``anchor`` is its message) or tap (``query``; ``anchor`` is the
    tapped message, None when Telegram no longer hands it over); or, with no user, what the outbox delivers
    (:func:`outbox_executor`: a board redrawn where it is, a challenger told), drawn for readers of
    ``language_code`` where the player chose no language."""

    def __init__(self, tg: TelegramContext, bot: Bot, user: User | None, anchor: Message | None,
                 query: CallbackQuery | None = None, *, language_code: str | None = None) -> None:
        self.tg = tg
        self.bot = bot
        self.user = user
        self.anchor = anchor
        self.query = query
        self._answered = False
        #: a link the tap's answer opens (the private chat with the bot, to show a review there)
        self._open_url: str | None = None
        #: what was done, for the flow to record
        self._reports: list[Report] = []
        drawing = TelegramDrawing(tg, bot, user.language_code if user is not None else language_code, anchor)
        self.draw, self.board, self.line, self.told = drawing.draw, drawing.board, drawing.line, drawing.told
        self.locale = drawing.locale
        #: what Telegram can do where the command or tap came from (a group routes the player's own to private)
        self.place = telegram(self.in_group())

    async def run(self, effects: list[Effect]) -> list[Report]:
        """Carry out ``effects`` in order; a tap is answered (with the toast an effect gave, if any) by the end.
        Returns where boards now are."""
        notice: str | None = None
        typed_move: PlayAck | None = None
        try:
            for effect in await self.tg.rounds.carry_out(self.bot, self.anchor, effects, self._reports):
                match effect:
                    case SendBoard(snapshot, reuse) if snapshot.private and self.place.private_routing:
                        notice = await self.board_in_private(snapshot, reuse=reuse)
                        await self.retire_kept_note()
                    case SendBoard(snapshot, reuse):
                        await self.send_board(snapshot, reuse=reuse)
                        await self.retire_kept_note()
                    case EditBoard(snapshot, problem):
                        await self.edit_board(snapshot, problem)
                    case RedrawBoard(snapshot, latest, chat_id):
                        await self.redraw(snapshot, latest=latest, chat_id=chat_id)
                    case Answer(PlayAck(snapshot) as ack) if self.query is None and self.place.private_routing and (
                            snapshot.private or not self.board_here(snapshot)):  # a refused /play too: the player's
                        await self.delete_typed()  # the ranked attempt's cards stay out of the group, the answer too
                        await self.send_privately(View(header=self.line(ack)))
                    case Answer(PlayAck(snapshot) as ack) if self.query is None and self.board_here(snapshot):
                        typed_move = ack  # the board, redrawn after this, shows it: the typed message goes then
                    case Answer(ReviewOf() as review) if self.place.private_routing:
                        notice = await self.review_in_private(review)
                    case Answer(SettingsOf() as shown) if self.query is None and self.place.private_routing:
                        await self.settings_in_private(shown)
                    case Answer(content) | Reply(content):
                        if isinstance(content, Data):
                            continue  # inline mode draws the offers itself (:mod:`bot.adapters.telegram.inline`)
                        if not isinstance(content, Note):
                            await self.tg.reply(self.need_anchor(), self.draw(content))
                        elif isinstance(effect, Answer) and self.query is not None and self.place.toasts:
                            notice = self.line(content)
                        else:
                            await self.tg.reply_text(self.need_anchor(), self.line(content))
                    case Post(shown):
                        await self.post(self.draw(shown))
                    case EditMessage(SettingsOf() as shown, where) if where is not None:
                        await self.in_live_board(shown, where)
                    case EditMessage(ReviewOf(in_board=Board()) | SettingsOf(in_board=int()) as shown):
                        await self.toast_first(None, self.in_tapped_board(shown))
                    case EditMessage(Kept(game) as kept) if self.question_becomes_board(game):
                        await self.send_board(game, reuse=True)  # No in a group: the question becomes the board
                        notice = self.draw(kept).header  # "your game goes on", as a toast
                    case EditMessage(Board(snapshot, latest)):  # Back to a board no longer the latest
                        view = self.board(snapshot, self.tapped_in_group(), latest=latest)
                        await self.toast_first(None, self.edit_tapped(view, None))
                    case EditMessage(shown):
                        await self.toast_first(None, self.edit_tapped(self.draw(shown), None))
                    case Tell(chat_id, ChallengeAnswered() as told):
                        await self.tg.tell(self.bot, chat_id, self.told(told))
                    case Tell(chat_id, shown):
                        await self.tg.tell(self.bot, chat_id, self.draw(shown))
                    case PostTo(chat_id, post):
                        self._reports.append(PostedTo(chat_id, await self.post_to(chat_id, post)))
                    case unhandled:
                        assert_never(unhandled)
            if typed_move is not None and not await self.delete_typed():
                await self.tg.reply_text(self.need_anchor(), self.line(typed_move))
        except BadPayload as error:  # the tapped message is too old for Telegram to hand over
            notice = self.line(Problem(error, Settings()))
        await self.answer(notice)
        return self._reports

    # --- messages -----------------------------------------------------------------------------------------------

    def acting(self) -> User:
        """The user whose command this is (none for what the outbox delivers)."""
        assert self.user is not None, "no user acts in what the outbox delivers"
        return self.user

    def need_anchor(self) -> Message:
        """The message to answer; a tapped message too old for Telegram to hand over is refused."""
        return anchored(self.anchor)

    def board_here(self, snapshot: GameSnapshot) -> bool:
        """Whether the card named was played on a board the player sees in this chat (the live board here, or
        none, so one is sent here): then the board says what happened."""
        played = snapshot.outcome is not None and snapshot.outcome.ok
        return played and (snapshot.board is None or snapshot.board.chat_id == str(self.need_anchor().chat_id))

    def question_becomes_board(self, game: GameSnapshot) -> bool:
        """No tapped in a group on the question (still at hand) while ``game``'s live board is in that group (or it
        has none yet): the question is redrawn into the board, rather than left in the group as an answer."""
        anchor = self.anchor if self.query is not None else None
        return (anchor is not None and in_group(anchor.chat) and not game.private
                and (game.board is None or game.board.chat_id == str(anchor.chat_id)))

    async def delete_typed(self) -> bool:
        """Delete the command's message where the Bot API lets a bot: any incoming message in a private chat, in a
        group only as an admin allowed to delete (tried: a refusal costs one call and changes nothing)."""
        try:
            return await self.need_anchor().delete()
        except TelegramError as error:
            log.info("could not delete a typed command: %s", error.message)
            return False

    def in_group(self) -> bool:
        """Whether the command or the tap came from a group."""
        message = self.anchor or (self.query.message if self.query is not None else None)
        return message is not None and in_group(message.chat)

    async def review_in_private(self, review: ReviewOf) -> str | None:
        """The review in the player's private chat with the bot (the toast says so); when the bot may not write
        there first, the tap's answer opens that chat with a link that shows the review there (no toast)."""
        if await self.send_privately(self.draw(review)) is None:
            self._open_url = f"https://t.me/{self.bot.username}?start={review_parameter(review.snapshot.game_id)}"
            return None
        return review_sent_privately(self.locale(review.snapshot.settings))

    async def settings_in_private(self, settings: SettingsOf) -> None:
        """/settings typed in a group: the settings message in the player's private chat, so no board in the group
        is pushed away (the typed command deleted too where the bot may); when the bot may not write there first,
        the group gets it as before."""
        if await self.send_privately(self.draw(settings)) is not None:
            await self.delete_typed()
        else:
            await self.tg.reply(self.need_anchor(), self.draw(settings))

    async def in_live_board(self, shown: SettingsOf, where: BoardRef) -> None:
        """/settings typed in a private chat: the live board's message shows them, in place of the board, and the
        typed command goes where the bot may; where that message cannot be edited, a new message as before."""
        anchor = self.need_anchor()
        if where.chat_id == str(anchor.chat_id) and await self.tg.edit_in_place(self.bot, where, self.draw(shown),
                                                                                photo=None):
            await self.delete_typed()
        else:
            await self.tg.reply(anchor, self.draw(SettingsOf(shown.settings)))

    async def in_tapped_board(self, shown: ReviewOf | SettingsOf) -> None:
        """The tapped board's message shows ``shown`` in place of the board (a photo keeps its picture); where it
        cannot (a review longer than a caption may be, a message too old to edit), a new message as before."""
        message = self.query.message if self.query is not None else None
        if isinstance(message, Message) and await self.tg.edit_in_place(self.bot, message_ref(message),
                                                                        self.draw(shown), photo=bool(message.photo)):
            return
        await self.tg.reply(self.need_anchor(), self.draw(dataclasses.replace(shown, in_board=None)))

    async def send_privately(self, view: View) -> Message | None:
        """Send ``view`` to the player's private chat with the bot; None when the bot may not write there first
        (the player never started it) or is blocked."""
        return await self.tg.tell(self.bot, str(self.acting().id), view)

    async def board_in_private(self, snapshot: GameSnapshot, *, reuse: bool) -> str | None:
        """A private board (the ranked daily attempt) asked for in a group: sent to the player's private chat with
        the bot, never to the group; a tap's toast says so, a command is answered in the group with a button that
        opens that chat. When the bot may not write there first (the player never started it), the tap's answer
        opens the chat with the link ``t.me/<bot>?start=daily``, which shows the attempt there (the command's
        button is that link). A tapped question (Yes) loses its buttons."""
        link = bot_link(self.bot.username, DailyDeal())
        locale = self.locale(snapshot.settings)
        sent = await self.send_privately(self.board(snapshot, False))
        if sent is not None:
            self._reports.append(BoardAt(snapshot.game_id, message_ref(sent)))
            await self.close(snapshot.replaced, keep=message_ref(sent))
        if reuse and self.anchor is not None:
            await self.retire_question(snapshot.game_id)
        if self.query is not None:
            if sent is None:
                self._open_url = link
                return None
            return daily_sent_privately(locale)
        await self.tg.reply(self.need_anchor(), render_daily_in_private(locale, self.tg.name(self.acting()), link))
        return None

    def tapped_in_group(self) -> bool:
        message = self.query.message if self.query is not None else None
        return message is not None and in_group(message.chat)

    async def answer(self, text: str | None) -> None:
        """Answer the tap (once): the toast. One that cannot be sent is logged, never raised: the board is edited
        all the same."""
        if self.query is None or self._answered:
            return
        self._answered = True
        query = self.query
        try:
            await persist(lambda: query.answer(toast(text) if self._open_url is None else None, url=self._open_url))
        except TelegramError as error:  # too old, answered already, or Telegram kept failing: only the toast is lost
            log.info("could not answer callback query %s: %s", query.id, error.message)

    async def toast_first(self, text: str | None, edit: Awaitable[None]) -> None:
        """The toast first, as long as Telegram answers it at once; one that fails or hangs goes on being tried
        while the tapped message is edited: it neither holds the edit back for long nor prevents it."""
        answering = asyncio.ensure_future(self.answer(text))
        await asyncio.wait({answering}, timeout=TOAST_FIRST_WAIT)
        try:
            await edit
        finally:
            await answering

    async def post(self, view: View) -> None:
        """A message of its own in the chat (not a reply)."""
        await self.tg.send(view, self.need_anchor().chat)

    async def post_to(self, chat_id: str, post: DailyPost) -> Posted:
        """The daily post in the chat ``chat_id``, tried once (the poster keeps the pace and tries again)."""
        view = render_daily(post.day, post.locale, post.recap)
        return await post_once(lambda: self.bot.send_message(int(chat_id), message_text(view),
                                                             parse_mode=ParseMode.HTML, reply_markup=keyboard(view)))

    async def send_board(self, snapshot: GameSnapshot, *, reuse: bool) -> None:
        """A game just started (or resumed) as its live board: the tapped message redrawn (``reuse``) or a new
        message answering the anchor; the service is told where it is, and the replaced game's board closed. A
        text message (the question, under a Yes) cannot become a picture board: the board is a new photo, and the
        question loses its buttons."""
        anchor = self.need_anchor()
        view = self.board(snapshot, in_group(anchor.chat))
        shown = anchor
        photo = view.table is not None
        if not reuse or photo != bool(anchor.photo) or not await self.tg.edit_message(
                self.bot, message_ref(anchor), view, game_key(snapshot)):
            shown = await self.tg.reply(anchor, view)
            if reuse and photo != bool(anchor.photo):
                await self.retire_question(snapshot.game_id)
        self._reports.append(BoardAt(snapshot.game_id, message_ref(shown)))
        await self.close(snapshot.replaced, keep=message_ref(shown))
        await self.close(snapshot, keep=message_ref(shown))  # its older board (/resume): one live board

    async def retire_question(self, game_id: int) -> None:
        """The tapped question, answered and not redrawn into the board: deleted in a group, where answered
        questions would pile up among everyone's messages (its buttons taken off where it cannot be deleted); in a
        private chat it stays, without buttons, as the player's record of what they chose."""
        if not (self.tapped_in_group() and await self.delete_typed()):
            await self.take_buttons_off(message_ref(self.need_anchor()), game_id)

    async def retire_kept_note(self) -> None:
        """Back to the game tapped on "Your game goes on" in a group: the board is shown, so the note goes."""
        if self.tapped_in_group() and buttons_of(self.anchor) == (Resume(),):
            await self.delete_typed()

    async def take_buttons_off(self, where: BoardRef, game_id: int) -> None:
        """The message at ``where`` keeps its text but no buttons (best effort)."""
        try:
            await persist(lambda: self.bot.edit_message_reply_markup(int(where.chat_id), int(where.message_id),
                                                                     reply_markup=None),
                          paced=(self.tg.pace, int(where.chat_id)))
        except TelegramError as error:
            log.info("could not take the buttons off message %s (game %s): %s", where.message_id, game_id,
                     error.message)

    async def close(self, replaced: GameSnapshot | None, keep: BoardRef | None) -> None:
        """The board of the game a new one replaced, redrawn as no longer the latest (no buttons when abandoned,
        Share and Review when finished), unless it is ``keep``. Best effort: a board that cannot be edited any more
        stays as it is."""
        if replaced is None or replaced.board is None or replaced.board == keep:
            return
        view = self.board(replaced, group_chat_id(replaced.board.chat_id), latest=False)
        try:
            await self.tg.edit_message(self.bot, replaced.board, view, game_key(replaced))
        except TelegramError as error:
            log.info("could not close the board of game %s: %s", replaced.game_id, error.message)

    async def edit_board(self, snapshot: GameSnapshot, problem: Problem | None) -> None:
        """The tap answered at once (why it did nothing, what it did, or a refusal's reason), then the tapped board
        brought to the game as it stands, at the chat's pace; a refusal on a board already showing this version
        edits nothing."""
        group = self.tapped_in_group()
        refused = snapshot.outcome is not None and not snapshot.outcome.ok
        text: str | None
        if problem is not None:
            text = self.line(problem)
        else:
            text = self.board(snapshot, group).notice if refused else self.line(PlayAck(snapshot)) or None
        message = self.query.message if self.query is not None else None
        if not isinstance(message, Message):  # too old for Telegram to say which message it was
            await self.toast_first(text, self.edit_tapped(self.board(snapshot, group), snapshot))
            return
        if refused and shown_game(message) == game_key(snapshot):
            await self.answer(text)
            return
        await self.toast_first(text, self.bring_up(message_ref(message), snapshot, group, redraw=not refused,
                                                   replaced=in_place_of_board(message)))

    async def bring_up(self, where: BoardRef, snapshot: GameSnapshot, group: bool, *, redraw: bool = True,
                       replaced: bool = False) -> None:
        """The board at ``where`` brought to ``snapshot`` or later (:class:`~bot.adapters.telegram.boards.BoardEdits`);
        one that can no longer be edited is sent anew answering the anchor (and the message at ``where`` goes, when
        it showed the settings or a review in the board's place: ``replaced``). Either becomes the live board when
        it was not."""
        shown = where
        if not await self.tg.boards.show(where, snapshot, lambda later: self.board(later, group), self.edit_to,
                                         redraw=redraw):
            anchor = self.need_anchor()
            sent = await self.tg.reply(anchor, self.board(await self.tg.flow.game_now(snapshot.game_id),
                                                          in_group(anchor.chat)))
            shown = message_ref(sent)
            if replaced and not await self.delete_typed():  # the anchor: the message Back was tapped on
                await self.take_buttons_off(where, snapshot.game_id)
        if shown != snapshot.board:
            # the board was sent anew, or the player played on an older board of the game (after /resume, say):
            # the board they play on is the live one, which /play edits
            self._reports.append(BoardAt(snapshot.game_id, shown))

    async def edit_to(self, where: BoardRef, view: View, game: tuple[int, int]) -> bool:
        return await self.tg.edit_message(self.bot, where, view, game)

    async def edit_tapped(self, view: View, snapshot: GameSnapshot | None) -> None:
        """Edit the tapped message to ``view`` (a board of ``snapshot``: never back to an older version, and noted
        as the live board); a message that can no longer be edited is followed by a new one."""
        assert self.query is not None
        query = self.query
        message = query.message
        if not isinstance(message, Message):  # too old for Telegram to say which message it was
            try:
                await edit_view(view, query, share_inline=self.tg.inline)
            except BadRequest as error:
                if not is_not_modified(error):
                    raise
            return
        shown = message
        game = game_key(snapshot) if snapshot is not None else None
        if not await self.tg.edit_message(self.bot, message_ref(message), view, game):
            # the message is gone or can no longer be edited: show the result in a new one
            shown = await self.tg.send(view, message.chat)
        if snapshot is not None and message_ref(shown) != snapshot.board:
            # the board was sent anew, or the player played on an older board of the game (after /resume, say):
            # the board they play on is the live one, which /play edits
            self._reports.append(BoardAt(snapshot.game_id, message_ref(shown)))

    async def redraw(self, snapshot: GameSnapshot, *, latest: bool = True, chat_id: str | None = None) -> None:
        """The game's live board edited to ``snapshot`` (``latest=False``: closed, where it is, nothing sent); when
        there is none any more (or it cannot be edited: a text board that must become a picture), the board is sent
        anew answering the anchor, or with none (the outbox's) in ``chat_id`` or the old board's chat, and becomes
        the live one, and the old one loses its buttons."""
        where = snapshot.board
        if not latest:
            await self.close(snapshot, keep=None)
            return
        if where is not None:
            group = group_chat_id(where.chat_id)
            if await self.tg.boards.show(where, snapshot, lambda later: self.board(later, group), self.edit_to):
                return
        if self.anchor is not None:
            sent: Message | None = await self.tg.reply(self.anchor, self.board(snapshot, in_group(self.anchor.chat)))
        else:
            chat = chat_id or (where.chat_id if where is not None else None)
            if chat is None:
                return  # never shown in a chat: nowhere to show it
            now = await self.tg.flow.game_now(snapshot.game_id)
            sent = await self.tg.tell(self.bot, chat, self.board(now, group_chat_id(chat)))
        if sent is None:
            return
        self._reports.append(BoardAt(snapshot.game_id, message_ref(sent)))
        if where is not None:
            await self.take_buttons_off(where, snapshot.game_id)


def outbox_executor(tg: TelegramContext, bot: Bot) -> ExecutorFor:
    """The executor of what reaches a chat outside a command on Telegram (the outbox's, the daily posts), drawing in a
    given language where the player chose none."""
    return lambda language_code: TelegramExecutor(tg, bot, None, None, language_code=language_code)

"""Games on Telegram: ``/tripeaks``, ``/daily``, ``/resume``, ``/play``, ``/start`` (the welcome, or a challenge
link's deal), and every tap on an inline button.

Each handler reads the update, asks the game flow (:mod:`bot.app.flow`) what to do and hands the effects to a
:class:`~bot.adapters.telegram.executor.TelegramExecutor`. What a tap leaves behind on Telegram:

- a card, Draw, Undo, Hint: the board edited in place (never back to an older version); a tap from an old board
  of the same game refreshes it;
- a tap on the board of a game that is no longer the player's latest: a private toast, the message left as it is;
- New game on the board of a game in progress: drawn into the same message when the game has no move yet, else the
  question first (a double tap asks once); on a finished board a new message, the finished board kept as it ended;
- Replay: the same deal in a new message; Share: a result line to forward, with a link that deals the same cards;
  Review: the solver's account as a new message (in a group: in the player's private chat with the bot);
- Yes: the question becomes the new game's board; No: it says the game goes on.
"""

from __future__ import annotations

from telegram import Message, Update, User

from bot.adapters.telegram.base import NEW_COMMAND, Context, TelegramContext
from bot.adapters.telegram.executor import REVIEW_START, TelegramExecutor
from bot.adapters.telegram.info import on_settings_tap
from bot.app.codec import decode, start_request
from bot.app.commands import (
    AskHint,
    Begin,
    Blank,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    KeepPlaying,
    Move,
    NewGame,
    PlayDaily,
    RandomDeal,
    Replay,
    Resume,
    Review,
    Share,
    ShowRules,
    StartRequest,
)
from bot.app.effects import Effect
from bot.app.errors import BadPayload, BotError
from bot.render.lifecycle import render_welcome
from bot.render.replies import error_text, render_rules, text_pointer
from core.cards import Card, Rank
from core.deal import GameCode, Rules
from core.errors import InvalidCodeError, TriPeaksError


async def cmd_new(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/tripeaks``: a new game under the player's default rules; ``/tripeaks classic``/``easy``: under those
    rules; ``/tripeaks CODE``: that deal."""
    args = context.args or []
    request: StartRequest = RandomDeal()
    if args:
        try:
            request = RandomDeal(Rules.parse(args[0]))
        except InvalidCodeError:
            request = DealByCode(" ".join(args))
    await start(tg, update, context, request)


async def cmd_start(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/start``: the short welcome with Play, Daily and Rules; ``/start <code>`` (a link
    ``t.me/<bot>?start=<code>``): that deal; ``/start x<game>_<code>`` (Play under a challenge): that game's deal,
    compared with it at the end. Both asked first when they would abandon a game in progress. ``/start
    review-<game>`` (the link a review asked for in a group opens): that review, to its player only."""
    args = context.args or []
    problem: InvalidCodeError | None = None
    if args and args[0].startswith(REVIEW_START) and args[0][len(REVIEW_START):].isdigit():
        game_id = int(args[0][len(REVIEW_START):])

        async def show_review(message: Message, user: User) -> None:
            effects = await tg.flow.review(tg.actor(user, message.chat), game_id)
            await TelegramExecutor(tg, context.bot, user, message).run(effects)

        await tg.command(update, show_review)
        return
    if args:
        request = start_request(args[0])
        if isinstance(request, DealByCode):
            try:
                GameCode.parse(request.code)
            except InvalidCodeError as error:  # a damaged link: say so, and welcome the player all the same
                problem = error
        if problem is None:
            await start(tg, update, context, request)
            return

    async def work(message: Message, user: User) -> None:
        locale = await tg.user_locale(user)
        if problem is not None:
            await tg.reply_text(message, error_text(problem, locale, NEW_COMMAND))
        await tg.reply(message, render_welcome(locale))

    await tg.command(update, work)


async def cmd_daily(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/daily``: today's deal, the same for everyone (asked first when it would abandon a game). The first
    ``/daily`` of a day starts the player's attempt; while it is open, ``/daily`` again shows it again as a new
    message, which becomes its live board."""
    await start(tg, update, context, DailyDeal())


async def start(tg: TelegramContext, update: Update, context: Context, request: StartRequest) -> None:
    """Start ``request`` for the command's sender: the new board answering the command, or the question first."""

    async def work(message: Message, user: User) -> None:
        effects = await tg.flow.start(tg.actor(user, message.chat), request)
        await TelegramExecutor(tg, context.bot, user, message).run(effects)

    await tg.command(update, work)


async def cmd_resume(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/resume``: the player's game in progress, as a new message (the live board from now on)."""

    async def work(message: Message, user: User) -> None:
        effects = await tg.flow.resume(tg.actor(user, message.chat))
        await TelegramExecutor(tg, context.bot, user, message).run(effects)

    await tg.command(update, work)


def names_a_card(text: str) -> bool:
    """Whether ``text`` is a card's name (``7h``, ``10♥``) or a rank alone (``k``), as /play takes."""
    cleaned = text.strip().replace("\ufe0f", "").replace("\ufe0e", "")
    for parse in (Card.parse, Rank.parse):
        try:
            parse(cleaned)
        except TriPeaksError:
            continue
        return True
    return False


async def on_text(tg: TelegramContext, update: Update, context: Context) -> None:
    """A message in a private chat that is no command: a card's name (``7h``, ``k``) plays it, as ``/play``
    does; anything else gets a one-line pointer to /help."""
    text = update.message.text if update.message is not None else None
    if not text:
        return

    async def work(message: Message, user: User) -> None:
        if names_a_card(text):
            effects = await tg.flow.play(tg.actor(user, message.chat), text.strip())
            await TelegramExecutor(tg, context.bot, user, message).run(effects)
        else:
            await tg.reply_text(message, text_pointer(await tg.user_locale(user)))

    await tg.command(update, work)


async def cmd_play(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/play 7h``: tap the free card of that name in the current game. The command gets a short acknowledgement
    and the live board is edited in place; words that name no card and cards not in play are explained."""
    args = context.args or []

    async def work(message: Message, user: User) -> None:
        effects = await tg.flow.play(tg.actor(user, message.chat), "".join(args))
        await TelegramExecutor(tg, context.bot, user, message).run(effects)

    await tg.command(update, work)


async def on_callback(tg: TelegramContext, update: Update, context: Context) -> None:
    """A tap: the flow's effects carried out, the tap answered (its toast) in any case."""
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    anchor = query.message if isinstance(query.message, Message) else None
    executor = TelegramExecutor(tg, context.bot, user, anchor, query)
    try:
        await executor.run(await tap_effects(tg, executor, query.data or ""))
    except Exception:
        # whatever failed, the tap is answered, so the player's client stops spinning
        await executor.answer(error_text(RuntimeError(), await tg.safe_locale(user), NEW_COMMAND))
        raise


async def tap_effects(tg: TelegramContext, executor: TelegramExecutor, data: str) -> list[Effect]:
    """What the tapped button asks for, as effects (the welcome's Rules and the settings buttons are answered
    here: they are no game)."""
    user, query = executor.user, executor.query
    assert query is not None
    actor = tg.actor(user, query.message.chat if query.message is not None else None)
    try:
        command = decode(data)
    except BadPayload as error:
        return await tg.flow.problem(actor.player, error)
    match command:
        case Move() | AskHint() | NewGame() | Replay() | Review() | Share():
            return await tg.flow.tap(actor, command)
        case ConfirmStart():
            return await tg.flow.start(actor, command, reuse=True)
        case KeepPlaying():
            return await tg.flow.keep(actor, command)
        case Begin(request):
            return await tg.flow.start(actor, request)
        case PlayDaily(day):
            # everyone who taps Play under a daily post gets their own game, in a new message
            return await tg.flow.start(actor, DailyDeal(day))
        case Blank():  # an empty place among the cards: the tap is answered, silently
            return []
        case Resume():
            return await tg.flow.resume(actor)
    try:
        if isinstance(command, ShowRules):
            # the rules from the welcome's button: with Play under them
            await tg.reply(executor.need_anchor(), render_rules(await tg.user_locale(user), play=True))
        else:
            await on_settings_tap(tg, executor, command)
    except BotError as error:
        return await tg.flow.problem(actor.player, error)
    return []

"""Telegram's commands, taps and words, each read into a typed command (:mod:`bot.app.commands`) and handed to the
one door (:meth:`bot.app.flow.Flow.handle`); its effects are carried out by a
:class:`~bot.adapters.telegram.executor.TelegramExecutor`, whose report the flow records.

What a player does, and the command it becomes:

- ``/tripeaks`` (a new deal under the default rules), ``/tripeaks classic``/``easy``, ``/tripeaks CODE``: a start;
  ``/daily``: today's deal; ``/resume``: the game in progress as a new message; ``/play 7h``: a card by its name;
- ``/start``: the welcome; ``/start <parameter>`` (a link ``t.me/<bot>?start=...``): a deal, a challenge, today's
  daily deal or a review, read by the flow;
- ``/help``, ``/rules``, ``/stats``, ``/settings``, ``/winnable [on|off]``; ``/leaderboard``, ``/subscribe``,
  ``/unsubscribe`` (a group's administrators only: Telegram says who is one);
- a tap on an inline button: its payload (:mod:`bot.app.codec`), with the commands the tapped message's buttons
  carry (a tap about another game than the message shows, a forged one, changes nothing); a tapped message in a
  group that answers another member's command (their settings) is theirs alone;
- words in a private chat: a card's name plays it, anything else points to /help;
- ``/owner stats``, ``/owner notice <text>`` / ``off``, ``/owner block <platform:id>``, ``/owner unblock ...``:
  the deployment owner's commands, in a private chat only and out of the command menu (anyone else is refused by
  the flow; in a group the bot does not know the command);
- a command sent on behalf of a chat (an anonymous group administrator, a channel's post: Telegram gives every
  such sender one and the same user) is answered and played by nobody.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from telegram import Chat, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType

from bot.adapters.telegram.base import NEW_COMMAND, PLATFORM, Context, TelegramContext
from bot.adapters.telegram.executor import TelegramExecutor
from bot.adapters.telegram.tapped import buttons_of
from bot.app.codec import RESUME_START, BadPayload, decode
from bot.app.commands import (
    Begin,
    Command,
    DailyDeal,
    DealByCode,
    Move,
    OnBehalf,
    OpenLink,
    OwnerBlock,
    OwnerHelp,
    OwnerNotice,
    OwnerStats,
    PlayCard,
    RandomDeal,
    Resume,
    ShowHelp,
    ShowLeaderboard,
    ShowRules,
    ShowSettings,
    ShowStats,
    StartRound,
    Subscribe,
    SwitchWinnable,
    Unreadable,
    Welcome,
)
from bot.app.effects import PlayerKey
from bot.render.replies import error_text
from core.deal import Rules
from core.errors import InvalidCodeError

#: What ``/winnable on`` and ``/winnable off`` may say.
SWITCH_WORDS = {"on": True, "off": False}

#: A command's words read into what it asks for.
Reader = Callable[[list[str]], Command]


def read_new(args: list[str]) -> Command:
    """``/tripeaks``: a new game under the player's default rules; ``/tripeaks classic``/``easy``: under those
    rules; ``/tripeaks CODE``: that deal."""
    if not args:
        return Begin(RandomDeal())
    try:
        return Begin(RandomDeal(Rules.parse(args[0])))
    except InvalidCodeError:
        return Begin(DealByCode(" ".join(args)))


def read_start(args: list[str]) -> Command:
    """``/start``: the welcome; ``/start resume``: the game in progress brought here (the link a busy group's board
    offers); ``/start <parameter>``: what the link says."""
    if args and args[0] == RESUME_START:
        return Resume()
    return OpenLink(args[0]) if args else Welcome()


def read_round(args: list[str]) -> Command:
    """``/round [minutes] [classic | easy | a code]``, in any order: a live round in the group (5 minutes and a
    random winnable deal under Easy rules unless said)."""
    round = StartRound()
    for word in args:
        if word.isdigit():
            round = dataclasses.replace(round, minutes=int(word[:4]))
            continue
        try:
            round = dataclasses.replace(round, rules=Rules.parse(word))
        except InvalidCodeError:
            round = dataclasses.replace(round, code=word)
    return round


def read_winnable(args: list[str]) -> Command:
    """``/winnable``: the other way round from now; ``/winnable on``, ``/winnable off``: that."""
    if not args:
        return SwitchWinnable()
    word = args[0].lower()
    if word not in SWITCH_WORDS:
        return Unreadable(f"/winnable takes on or off, not {word[:20]!r}")
    return SwitchWinnable(SWITCH_WORDS[word])


def read_owner(args: list[str]) -> Command:
    """``/owner`` (``stats``): the bot-wide figures; ``notice <text>``, ``notice off``; ``block <platform:id>``,
    ``unblock <platform:id>``; anything else: how they are written (to the owner alone).

    >>> read_owner([]), read_owner(["notice", "Back", "at", "6"]), read_owner(["unblock", "telegram:5"])
    (OwnerStats(), OwnerNotice(text='Back at 6'), OwnerBlock(account='telegram:5', on=False))
    >>> read_owner(["block"]), read_owner(["stats", "now"])
    (OwnerHelp(), OwnerHelp())
    """
    verb, rest = (args[0].lower(), " ".join(args[1:])) if args else ("stats", "")
    match verb, rest:
        case "stats", "":
            return OwnerStats()
        case "notice", "off":
            return OwnerNotice(None)
        case "notice", text if text:
            return OwnerNotice(text)
        case "block" | "unblock", account if account:
            return OwnerBlock(account, verb == "block")
    return OwnerHelp()


#: Every command, by the name Telegram sends.
READERS: dict[str, Reader] = {
    "tripeaks": read_new,
    "daily": lambda args: Begin(DailyDeal()),
    "resume": lambda args: Resume(),
    "play": lambda args: PlayCard("".join(args)),
    "start": read_start,
    "rules": lambda args: ShowRules(),
    "stats": lambda args: ShowStats(),
    "settings": lambda args: ShowSettings(),
    "winnable": read_winnable,
    "help": lambda args: ShowHelp(),
    "leaderboard": lambda args: ShowLeaderboard(),
    "subscribe": lambda args: Subscribe(True),
    "unsubscribe": lambda args: Subscribe(False),
    "round": read_round,
}


async def on_command(tg: TelegramContext, update: Update, context: Context) -> None:
    """A slash command: read by its name, handed to the flow; the effects answer the command's message."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or not message.text:
        return
    name = message.text.split()[0][1:].partition("@")[0].lower()
    reader = READERS.get(name)
    if reader is None:
        return
    command = reader(list(context.args or []))
    if message.sender_chat is not None:  # sent as the group (an anonymous admin) or as a channel: no player
        command = OnBehalf()
    admin = isinstance(command, Subscribe) and await is_admin(context, message, user)
    await serve(tg, context, user, message, command, admin=admin)


async def on_owner(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/owner ...`` in a private chat (the only place it is registered): the owner's command, for the flow to
    refuse to anyone else."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    await serve(tg, context, user, message, read_owner(list(context.args or [])))


async def on_text(tg: TelegramContext, update: Update, context: Context) -> None:
    """Words in a private chat that are no command: a card's name plays it (as ``/play`` does); anything else gets
    a one-line pointer to /help."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or not message.text:
        return
    await serve(tg, context, user, message, PlayCard(message.text.strip(), loose=True))


async def on_callback(tg: TelegramContext, update: Update, context: Context) -> None:
    """A tap: its payload read and handed to the flow; the tap is answered (its toast) in any case."""
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    anchor = query.message if isinstance(query.message, Message) else None
    executor = TelegramExecutor(tg, context.bot, user, anchor, query)
    try:
        try:
            command: Command = decode(query.data or "")
        except BadPayload as error:
            command = Unreadable(str(error))
        if query.message is None:
            # a message sent through inline mode: the bot gives those link buttons only, so the tap is a modified
            # client's, and whatever it names is neither drawn into that message nor played
            command = Unreadable("a tap on a message sent through inline mode")
        if isinstance(command, Move) and query.message is not None:  # which board: a double tap is on one
            command = dataclasses.replace(command, board=f"{query.message.chat.id}/{query.message.message_id}")
        chat = query.message.chat if query.message is not None else None
        surface = tg.surface(user, chat, addressee=addressee(anchor, chat), buttons=buttons_of(anchor))
        effects = await tg.flow.handle(tg.actor(user, chat), command, surface)
        await tg.flow.record(await executor.run(effects))
    except Exception:
        # whatever failed, the tap is answered, so the player's client stops spinning
        await executor.answer(error_text(RuntimeError(), tg.locale(user, None), NEW_COMMAND))
        raise


async def serve(tg: TelegramContext, context: Context, user: User, message: Message, command: Command, *,
                admin: bool = False) -> None:
    """``command`` from ``user`` answering ``message``: through the one door, and the effects carried out."""
    surface = tg.surface(user, message.chat, admin=admin)
    effects = await tg.flow.handle(tg.actor(user, message.chat), command, surface)
    await tg.flow.record(await TelegramExecutor(tg, context.bot, user, message).run(effects))


async def is_admin(context: Context, message: Message, user: User) -> bool:
    """Whether ``user`` administers the group ``message`` is in (a private chat has none)."""
    if message.chat.type == ChatType.PRIVATE:
        return False
    member = await context.bot.get_chat_member(message.chat_id, user.id)
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


#: Whom a group's message answers when Telegram no longer says (the command it answered was deleted, or the message
#: is too old to be handed over): no player, so its settings buttons are nobody's.
NOBODY = PlayerKey(PLATFORM, "")


def addressee(message: Message | None, chat: Chat | None) -> PlayerKey | None:
    """In a group, the player whose command the tapped message answered (their settings), :data:`NOBODY` when
    Telegram no longer says; None in a private chat."""
    if chat is None or chat.type == ChatType.PRIVATE:
        return None
    replied = message.reply_to_message if message is not None else None
    if replied is None or replied.from_user is None:
        return NOBODY
    return TelegramContext.player(replied.from_user)

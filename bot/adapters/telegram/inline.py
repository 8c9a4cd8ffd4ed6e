"""Telegram's inline mode: ``@<bot>`` typed in any chat offers the player's invitations to play
(:func:`bot.render.offers.render_offers`): a challenge with their current or last deal, a new deal proved winnable,
and today's daily deal (a link only). The chosen one is sent to the chat as the player's message, with a link
button that opens the bot with that deal (``t.me/<bot>?start=...``). Share on a finished board opens the same
choice (``switch_inline_query``) with that board's game as the challenge, so the player picks the chat. Inline mode must be enabled with BotFather
(``/setinline``); without it Share posts the result in the chat as before.
"""

from __future__ import annotations

import logging

from telegram import InlineQueryResultArticle, InputTextMessageContent, Update
from telegram.constants import ParseMode

from bot.adapters.telegram.base import Context, TelegramContext
from bot.adapters.telegram.keyboard import keyboard, message_text
from bot.app.codec import invite_of, start_parameter
from bot.app.commands import ChallengeDeal, DailyDeal, DealByCode
from bot.app.effects import Answer, GameSnapshot, OffersOf
from bot.render.endings import challenge_of
from bot.render.offers import render_offers

log = logging.getLogger(__name__)

#: Telegram's most results an inline query may be answered with.
MAX_RESULTS = 50
#: Seconds Telegram may show the same answer again to the same player (the results are personal): short, as the
#: player's game moves on and a new winnable deal is welcome.
CACHE_SECONDS = 5


def bot_link(username: str, request: ChallengeDeal | DealByCode | DailyDeal) -> str:
    """The link that opens the bot and starts ``request`` (``/start`` reads it: :func:`bot.app.codec.start_request`)."""
    return f"https://t.me/{username}?start={start_parameter(request)}"


def deal_link(username: str, snapshot: GameSnapshot) -> str:
    """The link that deals ``snapshot``'s cards as a challenge (compared with it at the end)."""
    challenge = challenge_of(snapshot)
    return bot_link(username, challenge if challenge is not None else DealByCode(str(snapshot.game.code)))


async def on_inline_query(tg: TelegramContext, update: Update, context: Context) -> None:
    """``@<bot>`` in a chat: the player's invitations, in their language, marked personal."""
    query = update.inline_query
    if query is None:
        return
    user = query.from_user
    try:
        effects = await tg.flow.handle(tg.actor(user, None), invite_of(query.query), tg.surface(user, None))
    except Exception:
        log.exception("inline query %s could not be answered", query.id)
        effects = None
    if effects == []:  # one query too many of a flood: not answered at all
        return
    offered = [effect.content for effect in effects or () if isinstance(effect, Answer)
               and isinstance(effect.content, OffersOf)]
    if not offered:  # the flow could not make the offers (a fault, logged): nothing to choose from, not cached
        await query.answer([], cache_time=0, is_personal=True)
        return
    (offers,) = offered
    locale = tg.locale(user, offers.settings)
    username = context.bot.username
    results = [
        InlineQueryResultArticle(
            id=offer.key, title=offer.title, description=offer.description,
            input_message_content=InputTextMessageContent(message_text(offer.message), parse_mode=ParseMode.HTML),
            reply_markup=keyboard(offer.message))
        for offer in render_offers(offers.offers, locale, lambda request: bot_link(username, request))
    ]
    await query.answer(results[:MAX_RESULTS], cache_time=CACHE_SECONDS, is_personal=True)

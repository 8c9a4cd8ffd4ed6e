"""The channels and groups the daily deal is posted to: the subscriptions, and the claims that keep each day's post
to one per channel across processes (:mod:`bot.app.daily_posts` makes the posts); who may subscribe a chat."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from bot.app.commands import Actor, Surface
from bot.app.daily import DailyNotice, Subscription
from bot.app.effects import Answer, Effect, NoticeOf, Reply
from bot.app.model import Settings
from bot.i18n import resolve_locale
from bot.store import daily as stored_daily
from bot.store.engine import Database
from bot.store.schema import utcnow

#: Telegram's name: where daily posts and leaderboards are is a group there (a server on Discord).
TELEGRAM = "telegram"


def community_needed(platform: str) -> DailyNotice:
    """What a subscription command in a private chat is told: daily posts are for groups (servers); the
    leaderboard there is the player's own place (:meth:`bot.app.leaderboards.Leaderboards.standing`)."""
    return DailyNotice.NEEDS_GROUP if platform == TELEGRAM else DailyNotice.NEEDS_SERVER


@dataclass(frozen=True)
class SubscriptionChange:
    """What ``/subscribe`` or ``/unsubscribe`` did: ``notice`` says it; ``done`` False when it was refused."""

    notice: DailyNotice
    done: bool = True


def _subscription(record: stored_daily.SubscriptionRecord) -> Subscription:
    return Subscription(record.id, record.platform, record.channel_id, record.community, record.locale)


class Subscriptions:
    """Subscribing channels to the daily posts, and claiming each day's post before it is sent."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def subscribe(self, platform: str, channel_id: str, *, community: str | None, locale: str,
                        by: str = "") -> bool:
        """Have the daily deal posted to ``channel_id`` (of the server or group ``community``) in ``locale``;
        False if it already was (its language is then updated)."""
        async with self.db.transaction() as tx:
            return await stored_daily.subscribe(tx, platform, channel_id, community, locale, by, utcnow())

    async def unsubscribe(self, platform: str, channel_id: str) -> bool:
        """Stop the daily posts to ``channel_id``; False if it was not subscribed."""
        async with self.db.transaction() as tx:
            return await stored_daily.unsubscribe(tx, platform, channel_id)

    async def all(self, platforms: tuple[str, ...] | None = None) -> list[Subscription]:
        """Every subscription (of ``platforms``, when given), oldest first."""
        async with self.db.transaction() as tx:
            return [_subscription(record) for record in await stored_daily.subscriptions(tx, platforms)]

    async def answered(self, actor: Actor, on: bool, surface: Surface, settings: Settings,
                       post_time: dt.time) -> list[Effect]:
        """``/subscribe`` or ``/unsubscribe``: the daily posts changed (a public answer) or refused (a private one);
        they speak the server's language, else the subscriber's (whose ``settings`` these are)."""
        locale = surface.chat_locale or resolve_locale(settings.language, surface.platform_locale)
        change = await self.change(actor, on, surface, locale)
        if not change.done:
            return [Answer(NoticeOf(change.notice, settings))]
        if not on:
            return [Reply(NoticeOf(change.notice, settings))]
        return [Reply(NoticeOf(change.notice, replace(settings, language=locale), post_time))]

    async def change(self, actor: Actor, on: bool, surface: Surface, locale: str) -> SubscriptionChange:
        """``/subscribe`` (``on``) or ``/unsubscribe`` in the actor's chat: for a server's or group's administrators
        only, with the bot a member of it; the posts in ``locale``."""
        platform = actor.player.platform
        if actor.community is None or actor.chat_id is None:
            return SubscriptionChange(community_needed(surface.platform), done=False)
        if not surface.installed:
            return SubscriptionChange(DailyNotice.NEEDS_SERVER_INSTALL, done=False)
        if not surface.admin:
            needs = DailyNotice.NEEDS_GROUP_ADMIN if surface.platform == TELEGRAM else DailyNotice.NEEDS_MANAGE_SERVER
            return SubscriptionChange(needs, done=False)
        if not on:
            removed = await self.unsubscribe(platform, actor.chat_id)
            return SubscriptionChange(DailyNotice.UNSUBSCRIBED if removed else DailyNotice.NOT_SUBSCRIBED)
        new = await self.subscribe(platform, actor.chat_id, community=actor.community, locale=locale,
                                   by=actor.player.user_id)
        return SubscriptionChange(DailyNotice.SUBSCRIBED if new else DailyNotice.ALREADY_SUBSCRIBED)

    async def unsent(self, day: dt.date, platforms: tuple[str, ...]) -> list[Subscription]:
        """The subscriptions of ``platforms`` with no post of ``day`` sent or given up."""
        async with self.db.transaction() as tx:
            return [_subscription(record) for record in await stored_daily.subscriptions(tx, platforms, day)]

    async def claim(self, subscription_id: int, day: dt.date, now: dt.datetime, lease: dt.timedelta) -> bool:
        """Claim the post of ``day`` to a subscription before sending it: True for the one caller that may send
        it. A claim older than ``lease`` that was never marked sent (its process died) can be claimed again."""
        async with self.db.transaction() as tx:
            return await stored_daily.claim_post(tx, subscription_id, day, now, lease)

    async def finish(self, subscription_id: int, day: dt.date, now: dt.datetime, *, message_id: str | None = None,
                     error: str | None = None) -> None:
        """Mark a claimed post sent (or, with ``error``, given up for good: the channel is gone or closed)."""
        async with self.db.transaction() as tx:
            await stored_daily.finish_post(tx, subscription_id, day, now, message_id, error)

    async def release(self, subscription_id: int, day: dt.date) -> None:
        """Drop a claim whose sending failed for now, so the next round tries again."""
        async with self.db.transaction() as tx:
            await stored_daily.release_post(tx, subscription_id, day)

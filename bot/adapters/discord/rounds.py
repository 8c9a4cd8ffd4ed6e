"""Live rounds' messages on Discord: posted in the channel as the command's answer, with a Join button (its click
answers with the player's board, ephemeral in a server and a group DM); then edited with the bot's token, the moves
made meanwhile coalescing into one edit that draws the round as the database has it then; and the loop that ends
the rounds whose time is up (once, in the database) and shows their results.

Where the bot is no member of the chat (a group DM, or a server, where the app is installed to a player's own account
only) it cannot edit a channel's message: the round message is the command's response, edited through the
interaction's webhook with the interaction's token (kept with the round in the database, so any process can make
the edit; Discord takes it for 15 minutes, so such a round lasts at most 10: :data:`bot.app.rounds.REPLY_MINUTES_MAX`).

A member's 👀 Watch answers with the round as they may watch it (:class:`~bot.app.round_effects.RoundWatched`),
ephemeral, which this process then edits with each edit of the round message, through the click's interaction: until
the round ends, or until that interaction's 15 minutes are nearly up, when the last edit says it is no longer updated.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from typing import Any

import discord

from bot.adapters.discord.views import layout
from bot.app.commands import WatchRound
from bot.app.effects import BoardRef, RedrawRound, RoundSnapshot, RoundWatched
from bot.app.flow import Flow
from bot.render.rounds import render_round, render_watch
from bot.render.view import View

log = logging.getLogger(__name__)

PLATFORM = "discord"
#: Seconds between two looks for rounds whose time is up, between two edits of one round's message, and between
#: two redraws of a running round's time left when nobody moves.
DUE_EVERY, EDIT_EVERY, CLOCK_EVERY = 1.0, 1.5, 60.0
#: What Discord answers an edit through an interaction's webhook whose token ran out (401 Invalid Webhook Token; 404
#: Unknown Webhook) or whose message is gone (404) or closed (403): no later try can land.
OUT_OF_REACH = frozenset({401, 403, 404})
#: Seconds a watcher's view is kept up to date: Discord takes an interaction's edits for 15 minutes, and the last
#: one (saying so) must land within them, a minute's redraw of the time left at the latest.
WATCH_FOR = 13 * 60.0
#: The most watchers of one round this process keeps up to date (each an edit with each of the round's): past it a
#: watcher's view is the round as it stands, saying it is not updated.
WATCHERS_MAX = 25


def round_view(round: RoundSnapshot) -> View:
    """The round's message: its Join button joins where it is clicked, its Watch button shows the round privately."""
    return render_round(round, round.locale, watch=WatchRound(round.round_id), command="/tripeaks new")


@dataclass
class Watcher:
    """A member's view of a round (an ephemeral answer to their Watch), edited through their click's interaction
    (``message_id``: the answer's) until ``until`` (the event loop's time), in ``locale``."""

    watched: RoundWatched
    interaction: discord.Interaction[Any]
    message_id: int
    locale: str
    until: float


class DiscordRounds:
    """The round messages this process brings up to date, one writer a round, and the clock's loop."""

    def __init__(self, flow: Flow, client: discord.Client) -> None:
        self.flow = flow
        self.client = client
        self._stale: set[int] = set()
        #: each round's watchers, kept up to date with its message
        self._watchers: dict[int, list[Watcher]] = {}
        self._writers: dict[int, asyncio.Task[None]] = {}
        self._clocks: dict[int, float] = {}
        self._loop: asyncio.Task[None] | None = None
        self._stopping = False

    def redraw(self, effect: RedrawRound) -> None:
        """Bring the round's message up to date (in the background: a click is never held by it)."""
        self._stale.add(effect.round_id)
        if effect.round_id not in self._writers and not self._stopping:
            self._writers[effect.round_id] = asyncio.ensure_future(self._write(effect.round_id))

    async def settled(self) -> None:
        """Wait until no round message is being brought up to date."""
        while self._writers:
            await asyncio.gather(*self._writers.values(), return_exceptions=True)

    async def _write(self, round_id: int) -> None:
        try:
            while round_id in self._stale:
                self._stale.discard(round_id)
                round = await self.flow.rounds.now(round_id)
                await self._show_watchers(round)
                if round.message is None:
                    break  # not posted yet: the post draws it as it stands
                await self._show(round.message, round)
                await asyncio.sleep(EDIT_EVERY)  # the channel's edits stay few; moves meanwhile make one edit
        except Exception:
            log.exception("could not bring the message of round %s up to date", round_id)
        finally:
            del self._writers[round_id]
            if round_id in self._stale and not self._stopping:
                self._writers[round_id] = asyncio.ensure_future(self._write(round_id))

    async def _show(self, where: BoardRef, round: RoundSnapshot) -> None:
        if round.ended:
            self._clocks.pop(round.round_id, None)
        else:
            self._clocks[round.round_id] = asyncio.get_running_loop().time()
        token = await self.flow.rounds.reply_token(round.round_id)
        if token is not None:
            await self._show_reply(token, where, round)
            return
        channel = self.client.get_partial_messageable(int(where.chat_id))
        try:
            await channel.get_partial_message(int(where.message_id)).edit(view=layout(round_view(round)))
        except discord.NotFound:
            if not round.ended:
                return
            await channel.send(view=layout(round_view(round)))  # the results must land: posted anew
        if round.ended:
            await self.flow.rounds.results_shown(round.round_id)

    async def _show_reply(self, token: str, where: BoardRef, round: RoundSnapshot) -> None:
        """Edit the round message that is an interaction's response, through that interaction's webhook. Once the
        token has run out (or the message is gone) nothing can edit it: the results are given up, not tried again."""
        assert self.client.application_id is not None, "the client has not logged in"
        webhook = discord.Webhook.partial(self.client.application_id, token, client=self.client)
        try:
            await webhook.edit_message(int(where.message_id), view=layout(round_view(round)))
        except discord.HTTPException as error:  # its text never holds the token
            if error.status not in OUT_OF_REACH:
                raise  # a 5xx, a rate limit: the results are tried again (Rounds.due)
            log.info("could not edit the message of round %s through its interaction: %s", round.round_id, error)
            if not round.ended:
                return
        if round.ended:
            await self.flow.rounds.results_shown(round.round_id)

    def room_for(self, watched: RoundWatched) -> bool:
        """Whether this process can keep the view ``watched`` up to date (a viewer's new Watch takes the place of
        their older one), or need not: the round has ended."""
        return watched.round.ended or len(self._others(watched)) < WATCHERS_MAX

    def follow(self, watched: RoundWatched, interaction: discord.Interaction[Any], message_id: int,
               locale: str) -> None:
        """Keep the view ``watched``, which answered ``interaction`` as the message ``message_id``, up to date with
        the round (:meth:`room_for` said there is room)."""
        round = watched.round
        if round.ended:
            return
        now = asyncio.get_running_loop().time()  # moments after the click: its interaction's 15 minutes began then
        self._watchers[round.round_id] = [*self._others(watched),
                                          Watcher(watched, interaction, message_id, locale, now + WATCH_FOR)]
        self._clocks.setdefault(round.round_id, now)  # its time left, once a minute

    def _others(self, watched: RoundWatched) -> list[Watcher]:
        """The round's watchers but the viewer of ``watched``."""
        return [kept for kept in self._watchers.get(watched.round.round_id, [])
                if kept.watched.viewer != watched.viewer]

    async def _show_watchers(self, round: RoundSnapshot) -> None:
        """Each watcher's view of ``round`` brought up to date; a watcher whose interaction's time is nearly up is
        told the view is no longer updated, and let go, as every one once the round has ended."""
        watchers = self._watchers.pop(round.round_id, [])
        if not watchers:
            return
        now = asyncio.get_running_loop().time()
        kept = [watcher for watcher in watchers if not round.ended and now < watcher.until]
        if kept:
            self._watchers[round.round_id] = kept
        await asyncio.gather(*(self._show_watcher(watcher, round, stopped=watcher not in kept)
                               for watcher in watchers))

    async def _show_watcher(self, watcher: Watcher, round: RoundSnapshot, *, stopped: bool) -> None:
        watched = replace(RoundWatched.of(round, watcher.watched.viewer, watcher.watched.settings),
                          stopped=stopped and not round.ended)
        try:
            await watcher.interaction.followup.edit_message(watcher.message_id,
                                                            view=layout(render_watch(watched, watcher.locale)))
        except discord.HTTPException as error:  # its text never holds the token
            log.info("could not bring a watcher's view of round %s up to date: %s", round.round_id, error)
            if error.status in OUT_OF_REACH:
                self._let_go(watcher, round.round_id)

    def _let_go(self, watcher: Watcher, round_id: int) -> None:
        watchers = [kept for kept in self._watchers.get(round_id, []) if kept is not watcher]
        if watchers:
            self._watchers[round_id] = watchers
        else:
            self._watchers.pop(round_id, None)

    def start(self) -> None:
        """Start the loop that ends rounds whose time is up and keeps the time left of running ones current (the
        runner starts it with the gateway)."""
        if self._loop is None:
            self._loop = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        self._stopping = True
        tasks = [task for task in (self._loop, *self._writers.values()) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._loop = None

    async def tick(self) -> None:
        """One look: the rounds whose time is up ended and their results shown; the time left of running ones
        redrawn once a minute."""
        for effect in await self.flow.rounds.due(PLATFORM):
            if isinstance(effect, RedrawRound):
                self.redraw(effect)
        now = asyncio.get_running_loop().time()
        for round_id, at in list(self._clocks.items()):
            if now - at >= CLOCK_EVERY:
                self.redraw(RedrawRound(round_id))

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("could not end the rounds whose time is up")
            await asyncio.sleep(DUE_EVERY)

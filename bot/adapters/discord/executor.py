"""The Discord executor: the effects of :mod:`bot.app.flow` carried out for one interaction, and what it did
reported back (:class:`~bot.app.effects.BoardAt`: the message that now shows a game, which the flow records).

- a board sent is a new public message in the channel (the interaction's response), reported as the game's live
  board (the ranked daily attempt in a server: an ephemeral message, so members who have not played cannot watch
  it), and the replaced game's board (wherever it is) is redrawn as no longer the latest. Discord
  never redraws the tapped message into a new game (``reuse``): the question is an ephemeral message;
- a board edited is the clicked message (response type 7), reported as the live board when it was another one;
  why the tap did nothing follows as a private line, but not for a double tap: the board it shows says it all;
- a private answer is ephemeral: a line for an error (with a link to the live board for a tap on an old one) and
  the play-by-name acknowledgement, a message for the question and the review;
- a post is a public new message: the shared result, with ``/tripeaks new code:...`` as the sharer's client
  names it, and Play this deal: whoever taps it gets their own game of the deal, compared with the shared one;
- a daily post (:class:`~bot.app.effects.PostTo`) is a new message in the subscribed channel, tried once: what
  Discord answered is reported (:func:`~bot.adapters.discord.base.post_once`) for the poster to act on.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import assert_never

import discord

from bot.adapters.discord.base import (
    GROUP,
    BotContext,
    Interaction,
    bot_in_chat,
    here,
    locale_for,
    new_command,
    player_of,
    post_once,
    quiet,
    read_by_others,
    show_error,
    show_new,
    show_update,
    tell,
    told_locale,
)
from bot.adapters.discord.rounds import round_view
from bot.adapters.discord.views import files_of, layout
from bot.adapters.web.links import table_link
from bot.app.abilities import DISCORD_SERVER, Abilities
from bot.app.abilities import discord as discord_abilities
from bot.app.effects import (
    Answer,
    Board,
    BoardAt,
    BoardLinkOf,
    BoardRef,
    ChallengeAnswered,
    DailyPost,
    Data,
    EditBoard,
    EditMessage,
    Effect,
    ExecutorFor,
    GameSnapshot,
    Note,
    OldBoard,
    OutOfDate,
    Post,
    PostedTo,
    PostRound,
    PostTo,
    Problem,
    Question,
    RedrawBoard,
    RedrawRound,
    Reply,
    Report,
    RoundAt,
    RoundWatched,
    SendBoard,
    Settings,
    ShareOf,
    Shown,
    Tell,
    settings_of,
)
from bot.i18n import resolve_locale
from bot.render.effects import draw, line
from bot.render.replies import render_daily
from bot.render.table_button import board_link_view
from bot.render.view import View

log = logging.getLogger(__name__)


class DiscordExecutor:
    """Carries out effects in answer to ``interaction``; or, with none, what the outbox delivers
    (:func:`outbox_executor`: a board redrawn where it is, a challenger told), drawn for readers of ``locale`` where
    the player chose no language."""

    def __init__(self, ctx: BotContext, interaction: Interaction | None, *, locale: str | None = None) -> None:
        self.ctx = ctx
        self._interaction = interaction
        self.locale = locale

    @property
    def interaction(self) -> Interaction:
        assert self._interaction is not None, "no interaction in what the outbox delivers"
        return self._interaction

    async def run(self, effects: list[Effect]) -> list[Report]:
        """Carry out ``effects`` in order; returns where boards now are."""
        if self._interaction is None:
            return await self.deliver(effects)
        interaction = self.interaction
        reports: list[Report] = []
        for effect in effects:
            match effect:
                case SendBoard(snapshot):
                    message_id = await show_new(interaction, self.board(snapshot), ephemeral=self.private(snapshot))
                    shown = here(interaction, message_id) if message_id is not None else None
                    if shown is not None:
                        reports.append(BoardAt(snapshot.game_id, shown))
                    await self.close(snapshot.replaced, keep=shown)
                    if shown is not None:  # its older board (/tripeaks resume): one live board
                        await self.close(snapshot, keep=shown)
                case EditBoard(snapshot, notice):
                    await show_update(interaction, self.board(snapshot))
                    if notice is not None and not repeated(notice):
                        # no toasts on Discord: why the tap changed nothing, privately
                        await interaction.followup.send(self.line(notice), ephemeral=True)
                    message = interaction.message
                    if (message is not None and not message.flags.ephemeral
                            and snapshot.board != here(interaction, message.id)):
                        # the player plays on another board of the game (after /tripeaks resume, say)
                        reports.append(BoardAt(snapshot.game_id, here(interaction, message.id)))
                case RedrawBoard(snapshot, _, _):
                    board = snapshot.board
                    if board is not None and await self.edit(board, self.board(snapshot, board.chat_id)):
                        await self.caught_up(snapshot, board)
                    else:
                        message_id = await show_new(interaction, self.board(snapshot),
                                                    ephemeral=self.private(snapshot))
                        if message_id is not None:
                            reports.append(BoardAt(snapshot.game_id, here(interaction, message_id)))
                case Answer(BoardLinkOf(settings)):
                    await show_new(interaction, self.board_link(settings), ephemeral=True)
                case Answer(RoundWatched() as watched):  # Watch under a round: privately, then kept up to date
                    locale = locale_for(interaction, watched.settings)
                    room = self.ctx.rounds.room_for(watched)
                    told = watched if room else replace(watched, stopped=True)
                    message_id = await show_new(interaction, draw(told, locale), ephemeral=True)
                    if room and message_id is not None:
                        self.ctx.rounds.follow(watched, interaction, message_id, locale)
                case Answer(content) | Reply(content):
                    if isinstance(content, Data):
                        continue  # autocomplete reads its choices itself
                    public = isinstance(effect, Reply)
                    if isinstance(content, Note):
                        if public:
                            await show_new(interaction, View(header=self.line(content)))
                        else:
                            await show_error(interaction, self.line(content))
                    else:
                        await show_new(interaction, self.draw(content), ephemeral=not public)
                case Post(shown):
                    await show_new(interaction, self.draw(shown))
                case EditMessage(shown):
                    await show_update(interaction, self.draw(shown))
                case Tell(chat_id, ChallengeAnswered() as told):
                    await tell(self.ctx.client, chat_id, draw(told, told_locale(told, str(interaction.locale))))
                case Tell(chat_id, shown):
                    await tell(self.ctx.client, chat_id, self.draw(shown))
                case PostTo(chat_id, post):
                    reports.append(await self.post_to(chat_id, post))
                case PostRound(round):  # a live round's message, with Join
                    message_id = await show_new(interaction, round_view(round))
                    if message_id is not None:  # where the bot is no member, only the interaction's token edits it
                        token = None if bot_in_chat(interaction) else interaction.token
                        reports.append(RoundAt(round.round_id, here(interaction, message_id), token))
                case RedrawRound():
                    self.ctx.rounds.redraw(effect)
                case unhandled:
                    assert_never(unhandled)
        if interaction.type is not discord.InteractionType.autocomplete and (
                not effects or not interaction.response.is_done()):
            # nothing shown in answer (a double tap; a tap about another message, whose board was edited where it
            # is): the click is acknowledged, the tapped message unchanged
            await quiet(interaction)
        return reports

    async def deliver(self, effects: list[Effect]) -> list[Report]:
        """What the outbox delivers, with the bot's token (a REST call: any process with the token can make it,
        whichever shards it runs): a board edited where it is (closed, ``latest=False``), else sent anew in its
        chat (never an ephemeral one: the ranked attempt's, which belongs to its interaction, stays as it was);
        a challenger told, a result shared at the table; a daily post."""
        reports: list[Report] = []
        for effect in effects:
            match effect:
                case RedrawBoard(snapshot, latest, chat_id):
                    where = snapshot.board
                    if where is not None and await self.edit(where, await self.drawn(snapshot, where.chat_id, latest)):
                        if latest:
                            await self.caught_up(snapshot, where)
                        continue
                    chat = chat_id or (where.chat_id if where is not None else None)
                    if not latest or snapshot.private or chat is None:
                        continue
                    now = await self.ctx.flow.game_now(snapshot.game_id)
                    channel = self.ctx.client.get_partial_messageable(int(chat))
                    try:
                        view = await self.drawn(now, chat, True)
                        message = await channel.send(view=layout(view), files=await files_of(view))
                    except (discord.HTTPException, ValueError) as error:
                        log.info("could not send the board of game %s anew: %s", snapshot.game_id, error)
                        continue
                    reports.append(BoardAt(snapshot.game_id, BoardRef(chat, str(message.id))))
                    if where is not None:
                        await self.edit(where, await self.drawn(snapshot, where.chat_id, False))
                case Tell(chat_id, ChallengeAnswered() as told, key):  # sent again after a stop: posted once
                    await tell(self.ctx.client, chat_id, draw(told, told_locale(told, self.locale)), key)
                case Tell(chat_id, ShareOf(snapshot) as shown, key):  # a result shared at the table, in its chat
                    await tell(self.ctx.client, chat_id,
                               shared_view(shown, resolve_locale(snapshot.settings.language, self.locale)), key)
                case PostTo(chat_id, post):
                    reports.append(await self.post_to(chat_id, post))
                case _:
                    log.warning("the outbox has no chat for %s", type(effect).__name__)
        return reports

    async def post_to(self, chat_id: str, post: DailyPost) -> PostedTo:
        """The daily post in the channel ``chat_id``, tried once (the poster keeps the pace and tries again)."""
        return PostedTo(chat_id, await post_once(self.ctx.client, chat_id, render_daily(post.day, post.locale,
                                                                                         post.recap)))

    async def drawn(self, snapshot: GameSnapshot, chat_id: str, latest: bool) -> View:
        """The board of ``snapshot`` in ``chat_id`` for what the outbox delivers: in its player's language, else
        :attr:`locale`; named in a server."""
        place = discord_abilities(await self.server_channel(chat_id))
        return draw(Board(snapshot, latest), resolve_locale(snapshot.settings.language, self.locale), place,
                    named=place.shared)

    async def server_channel(self, chat_id: str) -> bool:
        """Whether ``chat_id`` is a server's channel (its boards carry their player's name): from this process's
        cache, else from Discord (a server of another process's shards, a DM not seen since this process started)."""
        channel = self.ctx.client.get_channel(int(chat_id))
        if channel is None:
            try:
                channel = await self.ctx.client.fetch_channel(int(chat_id))
            except discord.HTTPException:
                return False
        return getattr(channel, "guild", None) is not None

    # --- drawing ------------------------------------------------------------------------------------------------

    def draw(self, content: Shown) -> View:
        interaction = self.interaction
        locale = locale_for(interaction, settings_of(content))
        match content:
            case Board(snapshot):
                return self.board(snapshot)
            case Question(current):
                elsewhere = current.board is not None and current.board.chat_id != str(interaction.channel_id)
                return draw(content, locale, self.place, elsewhere=elsewhere)
            case ShareOf():
                return shared_view(content, locale)
        return draw(content, locale, self.place)

    def board_link(self, settings: Settings) -> View:
        """The player's own link to the board in the browser, signed for them alone."""
        player, name = player_of(self.interaction)
        locale = locale_for(self.interaction, settings)
        return board_link_view(locale, table_link(self.ctx.config, player, name, locale))

    def board(self, snapshot: GameSnapshot, chat_id: str | None = None, *, latest: bool = True) -> View:
        """The board of ``snapshot`` in the acting player's language, named in servers."""
        place = discord_abilities(self.in_server(chat_id))
        return draw(Board(snapshot, latest), locale_for(self.interaction, snapshot.settings), place,
                    named=place.shared)

    def line(self, note: Note) -> str:
        locale = locale_for(self.interaction, settings_of(note))
        text = line(note, locale, new_command(locale))
        if isinstance(note, Problem) and isinstance(note.error, OldBoard):
            # a tap on an old board: a link to the live board, when there is one
            current = note.error.current
            if current is not None and current.board is not None and not current.game.is_over:
                link = self.jump_url(current.board)
                if link is not None:
                    text += "\n" + link
        return text

    def private(self, snapshot: GameSnapshot) -> bool:
        """Whether the board of ``snapshot`` is sent as an ephemeral message: the ranked daily attempt or a round's
        game in play, in a server or a group DM (an ephemeral board is edited by each tap's own response, as any
        other)."""
        return snapshot.private and self.place.shared

    @property
    def place(self) -> Abilities:
        """What Discord can do where the interaction happened (a DM's for what the outbox delivers)."""
        return discord_abilities(self._interaction is not None and read_by_others(self._interaction))

    # --- messages elsewhere -------------------------------------------------------------------------------------

    def in_server(self, chat_id: str | None = None) -> bool:
        """Whether a board in ``chat_id`` (default: where the interaction happened) is in a server channel (or, where
        the interaction happened, a group DM), where the board carries the player's name, rather than a DM."""
        interaction = self.interaction
        if chat_id is None or chat_id == str(interaction.channel_id):
            return read_by_others(interaction)
        channel = self.ctx.client.get_channel(int(chat_id))
        return getattr(channel, "guild", None) is not None if channel is not None else interaction.guild_id is not None

    def jump_url(self, board: BoardRef) -> str | None:
        """The link Discord shows as a jump to the message ``board``; None when its server cannot be told."""
        if board.chat_id == str(self.interaction.channel_id):
            guild: int | None = self.interaction.guild_id
        else:
            channel = self.ctx.client.get_channel(int(board.chat_id))
            if channel is None:
                return None
            server = getattr(channel, "guild", None)
            guild = server.id if server is not None else None
        return f"https://discord.com/channels/{guild or '@me'}/{board.chat_id}/{board.message_id}"

    async def edit(self, board: BoardRef, view: View) -> bool:
        """Edit the bot's message ``board`` (wherever it is) to ``view`` with the bot's token; False when Discord
        refuses (the message is gone, the channel out of reach), which is logged and otherwise ignored."""
        channel = self.ctx.client.get_partial_messageable(int(board.chat_id))
        try:
            files = await files_of(view)
            await channel.get_partial_message(int(board.message_id)).edit(view=layout(view), attachments=files)
        except (discord.HTTPException, ValueError) as error:
            log.info("could not edit the board %s/%s: %s", board.chat_id, board.message_id, error)
            return False
        return True

    async def caught_up(self, drawn: GameSnapshot, board: BoardRef) -> None:
        """After an edit of the live board ``board`` to ``drawn``, outside a tap's own response: when the game moved
        on meanwhile (through another process, whose edit of the move may have reached Discord first, and been drawn
        over), the board is drawn again as the game stands, until it shows the latest version. One read of the
        game's version an edit; a game that did not move is not drawn twice."""
        flow = self.ctx.flow
        while await flow.game_version(drawn.game_id) > drawn.version:
            drawn = await flow.game_now(drawn.game_id)
            if drawn.board != board:
                return  # the live board is another message now: whoever moved it there draws it
            view = (self.board(drawn, board.chat_id) if self._interaction is not None
                    else await self.drawn(drawn, board.chat_id, True))
            if not await self.edit(board, view):
                return

    async def close(self, replaced: GameSnapshot | None, *, keep: BoardRef | None = None) -> None:
        """The board of the game a new one replaced, redrawn as no longer the latest (an abandoned game: no
        buttons; a finished one: Share and Review only), where it is known and Discord lets the bot edit it."""
        if replaced is None or replaced.board is None or replaced.board == keep:
            return
        board = replaced.board
        await self.edit(board, self.board(replaced, board.chat_id, latest=False))


def shared_view(content: ShareOf, locale: str) -> View:
    """A shared result as a channel reads it: with Play this deal, and the command that deals the same cards by its
    canonical name (the readers' Discord clients may speak other languages); none for a daily deal, whose code would
    give the day's cards away (its Play button deals them)."""
    code = content.snapshot.shared_code
    return draw(content, locale, DISCORD_SERVER, replay=None if code is None else f"/{GROUP} new code:{code}")


def outbox_executor(ctx: BotContext) -> ExecutorFor:
    """The executor of what reaches a chat outside a command on Discord (the outbox's, the daily posts), drawing in
    a given language where the player chose none."""
    return lambda locale: DiscordExecutor(ctx, None, locale=locale)


def repeated(notice: Problem) -> bool:
    """Whether ``notice`` answers a double tap of Draw or Undo: the board, edited in answer, shows what the first tap
    did, and a line under it would only push it up."""
    return isinstance(notice.error, OutOfDate) and notice.error.repeat is not None

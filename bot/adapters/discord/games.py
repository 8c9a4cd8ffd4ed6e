"""Games on Discord: ``/tripeaks new``, ``daily``, ``resume`` and ``play``, and every button the bot sends.

Each handler reads the interaction, asks the game flow (:mod:`bot.app.flow`) what to do, within Discord's deadline
(:func:`~bot.adapters.discord.base.in_time`), and hands the effects to the
:class:`~bot.adapters.discord.executor.DiscordExecutor`. How each interaction is answered:

- a tap on a board edits that board in place (response type 7), refusals included: the renderer puts the
  explanation in the status line, so the channel gets no extra message;
- a game that starts is a new public message (type 4), and the board of the game it replaced is closed;
- a question, someone else's tap, a tap on an old game's board and every error is an ephemeral reply that changes
  nothing else.
"""

from __future__ import annotations

from discord import app_commands

from bot.adapters.discord.base import (
    BotContext,
    Interaction,
    actor_of,
    explain,
    guarded,
    in_time,
    own_locale,
    player_of,
    quiet,
    show_error,
)
from bot.adapters.discord.executor import DiscordExecutor
from bot.adapters.discord.info import on_settings_button, rules
from bot.app.codec import decode
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
from bot.app.errors import BadPayload
from bot.render.tableau import card_label
from core.cards import Card
from core.deal import Rules

#: Autocomplete shows at most this many choices (Discord's limit).
AUTOCOMPLETE_MAX = 25


async def carry_out(ctx: BotContext, interaction: Interaction, effects: list[Effect]) -> None:
    await DiscordExecutor(ctx, interaction).run(effects)


async def launch(ctx: BotContext, interaction: Interaction, request: StartRequest | ConfirmStart) -> None:
    """Start ``request`` for the player who acted: the new board as a new public message, or the question first."""
    await carry_out(ctx, interaction, await in_time(ctx, interaction, ctx.flow.start(actor_of(interaction), request)))


@guarded
async def new_game(ctx: BotContext, interaction: Interaction, code: str | None = None, rules: str | None = None,
                   winnable: bool | None = None) -> None:
    """``/tripeaks new [code] [rules] [winnable]``: a new game message in the channel (the question first when a
    game with moves would be abandoned)."""
    request: StartRequest
    if code and code.strip():
        request = DealByCode(code.strip())
    else:
        request = RandomDeal(Rules(rules) if rules else None, winnable)
    await launch(ctx, interaction, request)


@guarded
async def start_daily(ctx: BotContext, interaction: Interaction) -> None:
    """``/tripeaks daily``: today's deal as a new game message; the attempt counts on the server's leaderboard;
    while it is open, starting it again shows it again."""
    await launch(ctx, interaction, DailyDeal())


@guarded
async def resume(ctx: BotContext, interaction: Interaction) -> None:
    """``/tripeaks resume``: the game in progress, as a new message that becomes its live board."""
    await carry_out(ctx, interaction, await in_time(ctx, interaction, ctx.flow.resume(actor_of(interaction))))


@guarded
async def play(ctx: BotContext, interaction: Interaction, card: str) -> None:
    """``/tripeaks play <card>``, for keyboard users: the same as tapping that card's button. The command gets a
    short private acknowledgement (the card played, or why not) and the live board is edited in place; should it
    be out of reach, the board is posted anew and becomes the live one."""
    effects = await in_time(ctx, interaction, ctx.flow.play(actor_of(interaction), card), ephemeral=True)
    await carry_out(ctx, interaction, effects)


async def free_cards(ctx: BotContext, interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for ``play``: the cards free to play now that start like what was typed (``k``, ``10``,
    ``7♠``), or all of them when none does."""
    player, _ = player_of(interaction)
    snapshot = await ctx.service.current_game(player)
    if snapshot is None:
        return []
    game = snapshot.game
    cards = [game.card_at(slot) for slot in game.playable_slots()]
    wanted = typed.strip().upper().replace("\ufe0f", "").replace("\ufe0e", "")

    def matches(card: Card) -> bool:
        return str(card).startswith(wanted.replace("10", "T")) or card.symbol().upper().startswith(wanted)

    shown = [card for card in cards if matches(card)] or cards
    return [app_commands.Choice(name=card_label(c), value=str(c)) for c in shown[:AUTOCOMPLETE_MAX]]


@guarded
async def on_button(ctx: BotContext, interaction: Interaction, custom_id: str) -> None:
    """A click on any of the bot's buttons, by its payload."""
    try:
        command = decode(custom_id)
    except BadPayload as error:
        await show_error(interaction, explain(error, await own_locale(ctx, interaction)))
        return
    actor = actor_of(interaction)
    match command:
        case Move() | AskHint() | NewGame() | Replay() | Review() | Share():
            await carry_out(ctx, interaction, await in_time(ctx, interaction, ctx.flow.tap(actor, command)))
        case ConfirmStart():
            await launch(ctx, interaction, command)
        case KeepPlaying():
            await carry_out(ctx, interaction, await in_time(ctx, interaction, ctx.flow.keep(actor, command)))
        case Begin(request):
            await launch(ctx, interaction, request)
        case ShowRules():
            await rules(ctx, interaction, play=True)
        case PlayDaily(day):
            await launch(ctx, interaction, DailyDeal(day))
        case Resume():
            await carry_out(ctx, interaction, await in_time(ctx, interaction, ctx.flow.resume(actor)))
        case Blank():  # an empty place among the cards (disabled, so only a tampered client gets here): nothing
            await quiet(interaction)
        case _:
            await on_settings_button(ctx, interaction, command)

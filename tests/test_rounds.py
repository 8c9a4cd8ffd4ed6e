"""Live rounds through the one door (issue 51), on SQLite and PostgreSQL: a round started in a group, joined once by
each player, played ranked (no undo, hints counted), its random deal's code in no message until it ends, ended once
in the database (time up, or everyone finished) with its results ranked, a join after the end answered with them,
and the players' statistics counting rounds played and won."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update

from bot.app.assembly import App
from bot.app.codec import start_parameter
from bot.app.commands import (
    Actor,
    Begin,
    Move,
    OpenLink,
    RoundDeal,
    ShowStats,
    StartRound,
    Surface,
)
from bot.app.effects import (
    Answer,
    Board,
    EditBoard,
    Effect,
    PostRound,
    Problem,
    RedrawRound,
    RoundAt,
    RoundOf,
    SendBoard,
    StatsOf,
)
from bot.app.errors import (
    NotYourGame,
    NoUndoInRound,
    RoundMinutes,
    RoundMinutesCut,
    RoundOver,
    RoundsInGroupsOnly,
)
from bot.app.model import BoardRef, GameSnapshot, PlayerKey, RoundSnapshot
from bot.render.effects import draw
from bot.render.replies import error_text
from bot.store.schema import rounds
from core.deal import Rules
from core.game import Action, Draw, Game, Tap, Undo
from tests.core_helpers import winning_line

GROUP = "-100"
SURFACE = Surface(platform="telegram", platform_locale="en")
ALICE, BOB, CAROL = (PlayerKey("telegram", str(n)) for n in (1, 2, 3))
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}
WIN_CODE = "TP1-E-AAAAAAC"


def in_group(player: PlayerKey) -> Actor:
    return Actor(player, NAMES[player], GROUP, GROUP)


def in_private(player: PlayerKey) -> Actor:
    return Actor(player, NAMES[player], player.user_id, None)


async def start_round(app: App, command: StartRound = StartRound()) -> RoundSnapshot:  # noqa: B008 - frozen
    effects = await app.flow.handle(in_group(ALICE), command, SURFACE)
    assert len(effects) == 1 and isinstance(effects[0], PostRound), effects
    return effects[0].round


async def join(app: App, player: PlayerKey, round: RoundSnapshot) -> tuple[GameSnapshot, list[Effect]]:
    """The player opens the round's link in their private chat: their board, and the round message redrawn."""
    effects = await app.flow.handle(in_private(player), OpenLink(start_parameter(RoundDeal(round.round_id))),
                                    SURFACE)
    sent = [effect for effect in effects if isinstance(effect, SendBoard)]
    assert len(sent) == 1, effects
    assert RedrawRound(round.round_id) in effects
    return sent[0].snapshot, effects


async def tap(app: App, player: PlayerKey, game: GameSnapshot, action: Action) -> list[Effect]:
    assert isinstance(action, Tap | Draw | Undo)
    return await app.flow.handle(in_private(player), Move(game.game_id, game.version, action), SURFACE)


def edited(effects: list[Effect]) -> GameSnapshot:
    boards = [effect.snapshot for effect in effects if isinstance(effect, EditBoard)]
    assert len(boards) == 1, effects
    return boards[0]


def every_text(effects: list[Effect], round: RoundSnapshot | None = None) -> str:
    """Everything the effects' messages say, drawn in English (and the round's own message)."""
    texts = []
    for effect in effects:
        content = getattr(effect, "content", None)
        snapshot = getattr(effect, "snapshot", None)
        if snapshot is not None:
            content = Board(snapshot)
        if content is not None and not isinstance(content, Problem):
            view = draw(content, "en")
            texts.append("\n".join(part for part in (view.header, view.tableau, view.status) if part))
    if round is not None:
        view = draw(RoundOf(round), "en")
        texts.append(f"{view.header}\n{view.status}")
    return "\n".join(texts)


async def test_a_round_from_start_to_results_when_time_is_up(service: App) -> None:
    round = await start_round(service)
    code = str(round.code)
    assert round.code_hidden and not round.entries and code not in every_text([], round)

    alice, effects = await join(service, ALICE, round)
    assert str(alice.game.code) == code and alice.code_hidden and alice.round_id == round.round_id
    assert code not in every_text(effects, await service.flow.rounds.now(round.round_id))
    bob, _ = await join(service, BOB, round)

    # one entry a player: the link again gives the same game
    again, _ = await join(service, ALICE, round)
    assert again.game_id == alice.game_id

    # ranked: no undo, hints counted
    fitting = [slot for slot in alice.game.playable_slots() if alice.game.fits(slot)]
    effects = await tap(service, ALICE, alice, Tap(fitting[0]) if fitting else Draw())
    alice = edited(effects)
    assert RedrawRound(round.round_id) in effects
    undo = await tap(service, ALICE, alice, Undo())
    assert [e for e in undo if isinstance(e, Answer) and isinstance(e.content, Problem)
            and isinstance(e.content.error, NoUndoInRound)], undo
    effects = await tap(service, BOB, bob, Draw())
    bob = edited(effects)
    assert code not in every_text(effects, await service.flow.rounds.now(round.round_id))

    # a forged tap on another player's round game changes nothing
    forged = await service.flow.handle(in_private(BOB), Move(alice.game_id, alice.version, Draw()), SURFACE)
    assert [type(e.content.error) for e in forged if isinstance(e, Answer) and isinstance(e.content, Problem)] \
        == [NotYourGame]

    standing = await service.flow.rounds.now(round.round_id)
    assert [(e.name, e.cleared, e.score) for e in standing.entries] == [("Alice", int(bool(fitting)), 499),
                                                                       ("Bob", 0, 499)]
    assert not standing.ended

    # time is up: ended once, whichever process asks first; the games end as they stand
    async with service.db.transaction() as tx:
        await tx.execute(update(rounds).values(ends_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)))
    late = await tap(service, ALICE, alice, Draw())  # after the time: nothing applies
    assert edited(late).version == alice.version
    assert await service.flow.rounds.due("telegram") == [RedrawRound(round.round_id)]
    assert await service.flow.rounds.due("telegram") == []
    results = await service.flow.rounds.now(round.round_id)
    assert results.ended and not results.code_hidden and results.winner is not None
    assert results.winner.name == "Alice"  # level on score, moves and end: who joined first
    shown = every_text([], results)
    assert code in shown and "Winner: Alice, score 499" in shown

    # a join after the end: the results, no game
    effects = await service.flow.handle(in_private(CAROL), OpenLink(start_parameter(RoundDeal(round.round_id))),
                                        SURFACE)
    assert len(effects) == 1 and isinstance(effects[0], Answer) and isinstance(effects[0].content, Problem)
    over = effects[0].content.error
    assert isinstance(over, RoundOver) and over.round.ended and code in error_text(over, "en")

    # statistics: rounds played and won
    stats = await service.flow.handle(in_group(ALICE), ShowStats(), SURFACE)
    assert isinstance(stats[0], Answer) and isinstance(stats[0].content, StatsOf)
    assert (stats[0].content.stats.rounds_played, stats[0].content.stats.rounds_won) == (1, 1)
    bob_stats = await service.flow.handle(in_group(BOB), ShowStats(), SURFACE)
    assert isinstance(bob_stats[0], Answer) and isinstance(bob_stats[0].content, StatsOf)
    assert (bob_stats[0].content.stats.rounds_played, bob_stats[0].content.stats.rounds_won) == (1, 0)


async def test_a_round_ends_when_everyone_who_joined_has_finished(service: App) -> None:
    round = await start_round(service, StartRound(code=WIN_CODE))
    assert not round.code_hidden  # a code given: it is no secret
    alice, _ = await join(service, ALICE, round)
    for action in winning_line(WIN_CODE):
        alice = edited(await tap(service, ALICE, alice, action))
    assert alice.game.is_over
    results = await service.flow.rounds.now(round.round_id)
    assert results.ended and results.winner is not None and results.winner.won
    # Replay of a game of an ended round is allowed again; a late join is refused with the results
    effects = await service.flow.handle(in_private(BOB), Begin(RoundDeal(round.round_id)), SURFACE)
    assert isinstance(effects[0], Answer) and isinstance(effects[0].content, Problem)
    assert isinstance(effects[0].content.error, RoundOver)


async def test_ranking_won_then_score_then_moves_then_who_finished_first() -> None:
    from bot.app.model import RoundEntry
    from bot.app.rounds import ranked
    at = dt.datetime(2026, 12, 7, tzinfo=dt.UTC)

    def entry(name: str, won: bool, score: int, moves: int, finished: int | None, game_id: int) -> RoundEntry:
        return RoundEntry(PlayerKey("t", name), name, game_id, 0, 0, score, moves, 0, won, finished is not None,
                          at + dt.timedelta(seconds=finished) if finished is not None else None)

    entries = [entry("open", False, 600, 10, None, 1), entry("lost", False, 600, 10, 5, 2),
               entry("won-late", True, 700, 40, 50, 3), entry("won-early", True, 700, 40, 30, 4),
               entry("won-fewer", True, 700, 35, 90, 5), entry("won-best", True, 750, 60, 99, 6)]
    assert [e.name for e in ranked(entries)] == ["won-best", "won-fewer", "won-early", "won-late", "lost", "open"]


async def test_a_round_is_started_in_a_group_for_one_to_sixty_minutes(service: App) -> None:
    private = await service.flow.handle(in_private(ALICE), StartRound(), SURFACE)
    assert isinstance(private[0], Answer) and isinstance(private[0].content, Problem)
    assert isinstance(private[0].content.error, RoundsInGroupsOnly)
    for minutes in (0, 61):
        refused = await service.flow.handle(in_group(ALICE), StartRound(minutes), SURFACE)
        assert isinstance(refused[0], Answer) and isinstance(refused[0].content, Problem)
        assert isinstance(refused[0].content.error, RoundMinutes)
    classic = await start_round(service, StartRound(60, Rules.CLASSIC))
    assert classic.code.rules is Rules.CLASSIC and classic.minutes == 60


async def test_results_that_never_landed_are_shown_again(service: App) -> None:
    """A process that stopped between ending a round and the last edit of its message: another (or the next) shows
    the results, until one reports them shown."""
    round = await start_round(service)
    await service.flow.record([RoundAt(round.round_id, BoardRef(GROUP, "77"))])
    async with service.db.transaction() as tx:
        await tx.execute(update(rounds).values(ends_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)))
    assert await service.flow.rounds.due("telegram") == [RedrawRound(round.round_id)]
    assert await service.flow.rounds.due("telegram") == []  # being shown: not asked again at once
    async with service.db.transaction() as tx:
        await tx.execute(update(rounds).values(ended_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)))
    assert await service.flow.rounds.due("telegram") == [RedrawRound(round.round_id)]
    await service.flow.rounds.results_shown(round.round_id)
    assert await service.flow.rounds.due("telegram") == []
    assert (await service.flow.rounds.now(round.round_id)).message == BoardRef(GROUP, "77")


def test_the_round_message_fits_a_phone_and_telegram_in_every_language() -> None:
    """The round message with fifty players of long names, running and ended, in every language: its title within
    Discord's heading on a phone, its buttons within a phone's row on both platforms, its text within Telegram's
    4,096 characters; and a round game's board fits a phone as any board does."""
    from bot.adapters.telegram.keyboard import message_text
    from bot.app.model import RoundEntry
    from bot.i18n import SUPPORTED_LOCALES
    from bot.render.game import render_game
    from bot.render.platforms import (
        DISCORD_HEADING_COLUMNS,
        DISCORD_TEXT_COLUMNS,
        discord_header,
        discord_row_fits,
        discord_rows,
        telegram_row_fits,
        telegram_rows,
    )
    from bot.render.rounds import render_round
    from bot.render.view import display_width
    from core.deal import GameCode
    from tests.test_phone_width import LONG_NAMES, check_phone

    at = dt.datetime(2026, 12, 7, 22, tzinfo=dt.UTC)
    entries = tuple(RoundEntry(PlayerKey("telegram", str(n)), LONG_NAMES[n % len(LONG_NAMES)], n, 28, 3, 772, 28, 9,
                               True, True, at) for n in range(50))
    for locale in SUPPORTED_LOCALES:
        for ended in (False, True):
            round = RoundSnapshot(10**17, "telegram", "-1", BoardRef("-1", "1"), GameCode.parse("TP1-C-ZZZZZZZ"),
                                  False, "Host", locale, 60, at, ended, at, entries, 772)
            for view in (render_round(round, locale, join="https://t.me/tripeaks_bot?start=round-1",
                                      table="https://t.me/tripeaks_bot/table?startapp=round-1",
                                      watch="https://t.me/tripeaks_bot/table?startapp=watch-1"),
                         render_round(round, locale)):
                heading, under = discord_header(view.header)
                assert display_width(heading) <= DISCORD_HEADING_COLUMNS, (locale, heading)
                assert all(display_width(line) <= DISCORD_TEXT_COLUMNS for line in under.split("\n")), under
                assert all(telegram_row_fits([b.label for b in row]) for row in telegram_rows(view)), locale
                assert all(discord_row_fits([b.label for b in row]) for row in discord_rows(view)), locale
                assert len(message_text(view)) <= 4096, (locale, len(message_text(view)))
        game = Game.from_code("TP1-C-ZZZZZZZ")
        game.apply(Draw())
        snapshot = GameSnapshot(10**17, 1, PlayerKey("telegram", "1"), LONG_NAMES[1], game, hints_used=51,
                                round_id=10**17, code_hidden=True)
        for fixed in (False, True):
            check_phone(render_game(snapshot, locale, snapshot.settings, owner_label=True, fixed_header=fixed),
                        fixed=fixed)


def test_round_is_read_from_its_words() -> None:
    from bot.adapters.telegram.commands import read_round

    assert read_round([]) == StartRound()
    assert read_round(["10", "classic"]) == StartRound(10, Rules.CLASSIC)
    assert read_round(["TP1-E-AAAAAAB", "3"]) == StartRound(3, code="TP1-E-AAAAAAB")


async def test_a_round_edited_as_a_reply_runs_ten_minutes_and_keeps_its_token_secret(service: App) -> None:
    """Where the bot is no member of the chat (Discord: a group DM, or a server, where the app is installed to a
    player's own account), the round message is the command's response, edited with the interaction's token for its
    15 minutes: a round there lasts at most 10 (its host told when they asked for more); the token, kept with the
    round for any process to use, is in no value's repr and forgotten once the results landed."""
    discord_group = Surface(platform="discord", platform_locale="en", installed=False)
    asked = await service.flow.handle(in_group(ALICE), StartRound(45), discord_group)
    assert isinstance(asked[0], PostRound) and asked[0].round.minutes == 10
    told = asked[1]
    assert isinstance(told, Answer) and isinstance(told.content, Problem)
    assert isinstance(told.content.error, RoundMinutesCut)
    assert error_text(told.content.error, "en") == "Here a round lasts at most 10 minutes, so this one runs 10"
    within = await service.flow.handle(in_group(BOB), StartRound(7), discord_group)
    assert [type(effect) for effect in within] == [PostRound]
    assert isinstance(within[0], PostRound) and within[0].round.minutes == 7

    round = asked[0].round
    token = "interaction-token-not-for-the-logs"
    shown = RoundAt(round.round_id, BoardRef(GROUP, "78"), token)
    assert token not in repr(shown)
    await service.flow.record([shown])
    assert await service.flow.rounds.reply_token(round.round_id) == token
    assert token not in repr(await service.flow.rounds.now(round.round_id))
    assert await service.flow.rounds.reply_token(within[0].round.round_id) is None  # not shown yet
    await service.flow.rounds.results_shown(round.round_id)
    assert await service.flow.rounds.reply_token(round.round_id) is None

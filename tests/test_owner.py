"""The deployment owner's commands (OWNER_IDS) through the one door, on SQLite and PostgreSQL: the bot-wide figures
from the database, a notice every player sees on their boards, and a blocked account refused with nothing stored
from it; anyone else asking is refused, telling nothing. Two apps on one database stand for two processes: what one
stores the other shows within :data:`bot.app.owner.FRESH` seconds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.commands import (
    Actor,
    AskHint,
    Begin,
    DealByCode,
    Invite,
    OpenLink,
    OwnerBlock,
    OwnerCommand,
    OwnerHelp,
    OwnerNotice,
    OwnerStats,
    PlayCard,
    RandomDeal,
    Resume,
    ShowSettings,
    ShowStats,
    Subscribe,
    Surface,
)
from bot.app.effects import Answer, Board, Effect, OwnerAnswer, Problem, SendBoard
from bot.app.errors import BadOwnerCommand, Blocked, NotOwner
from bot.app.model import PlayerKey
from bot.app.owner import FRESH, NOTICE_MAX, BlockChanged, NoticeSet, OwnerFigures, OwnerResult
from bot.i18n import SUPPORTED_LOCALES
from bot.render.effects import draw, line
from bot.render.view import display_width
from bot.store import schema
from bot.store.engine import Database
from tests.conftest import fake_hint, fake_verdict
from tests.test_service import ALICE, WIN_CODE, win_game

OWNER = PlayerKey("telegram", "42")
OLGA = Actor(OWNER, "Olga")
ANN = Actor(ALICE, "Ann", chat_id="1")
CAROL = Actor(PlayerKey("telegram", "7"), "Carol", chat_id="7")
#: Every table a command could write to.
TABLES = (schema.players, schema.games, schema.community_players, schema.once_marks, schema.outbox,
          schema.player_shares, schema.daily_subscriptions, schema.daily_posts, schema.rounds)
#: The widest a line of the owner's answers may be to fit a phone's chat bubble unbroken (columns).
PHONE_LINE = 44


class Ticking:
    """A monotonic clock a test moves on."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def apps(database: Database) -> AsyncIterator[tuple[App, App]]:
    """Two apps on one database (two processes), OWNER the owner of both."""
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                       hint_budget=30, owner_ids=frozenset({OWNER})) as first, \
                App(database, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                    hint_budget=30, owner_ids=frozenset({OWNER})) as second:
            yield first, second


async def owner(app: App, command: OwnerCommand, actor: Actor = OLGA) -> OwnerResult:
    (answer,) = await app.flow.handle(actor, command)
    assert isinstance(answer, Answer) and isinstance(answer.content, OwnerAnswer), answer
    return answer.content.result


def refused(effects: list[Effect], why: type[Exception]) -> bool:
    """Whether ``effects`` are only the private line telling ``why``."""
    return (len(effects) == 1 and isinstance(effects[0], Answer) and isinstance(effects[0].content, Problem)
            and type(effects[0].content.error) is why)


async def rows(db: Database) -> dict[str, int]:
    async with db.reading() as tx:
        return {table.name: (await tx.execute(select(func.count()).select_from(table))).scalar_one()
                for table in TABLES}


async def test_the_figures_come_from_the_database_whichever_process_is_asked(apps: tuple[App, App]) -> None:
    first, second = apps
    await win_game(second, ALICE)
    await second.flow.handle(ANN, Begin(DealByCode(WIN_CODE)))  # a second game, in progress
    figures = await owner(first, OwnerStats())
    assert isinstance(figures, OwnerFigures)
    assert (figures.games_total, figures.games_today, figures.wins, figures.live_rounds, figures.blocked) == \
        (2, 2, 1, 0, 0)
    assert figures.players == (await rows(first.db))["players"] and figures.notice is None
    assert await owner(second, OwnerStats()) == figures  # the other process answers the same

    text = line(OwnerAnswer(figures, await first.players.get_settings(OWNER)), "en", None)
    assert "Players: " in text and "Games won: 1" in text and "Blocked accounts: 0" in text


async def test_anyone_but_the_owner_is_refused_and_told_nothing(apps: tuple[App, App]) -> None:
    first, _ = apps
    forged = Actor(PlayerKey("discord", OWNER.user_id), "Olga")  # the owner's id on another platform
    for actor in (ANN, forged):
        for command in (OwnerStats(), OwnerNotice("hello"), OwnerBlock("telegram:7", True), OwnerHelp()):
            assert refused(await first.flow.handle(actor, command), NotOwner), (actor, command)
    figures = await owner(first, OwnerStats())
    assert isinstance(figures, OwnerFigures) and figures.blocked == 0 and figures.notice is None
    assert line(Problem(NotOwner(), await first.players.get_settings(ALICE)), "en", None) == \
        "This command is not available to you."


async def test_a_mistyped_owner_command_says_how_it_is_written(apps: tuple[App, App]) -> None:
    first, _ = apps
    for command in (OwnerHelp(), OwnerBlock("icq:1", True), OwnerNotice(" \u200b "), OwnerNotice("x" * 121)):
        effects = await first.flow.handle(OLGA, command)
        assert refused(effects, BadOwnerCommand), command
    figures = await owner(first, OwnerStats())
    assert isinstance(figures, OwnerFigures) and figures.blocked == 0


async def test_a_blocked_account_is_refused_and_nothing_is_stored_from_it(apps: tuple[App, App]) -> None:
    first, _ = apps
    assert await owner(first, OwnerBlock("telegram:7", True)) == BlockChanged(CAROL.player, True, True)
    assert await owner(first, OwnerBlock("telegram:7", True)) == BlockChanged(CAROL.player, True, False)
    before = await rows(first.db)
    group = Actor(CAROL.player, "Carol", chat_id="-5", community="-5")
    commands = [Begin(RandomDeal()), Begin(DealByCode(WIN_CODE)), game_command(1, 0, "d"), AskHint(1, 0),
                PlayCard("7h"), ShowStats(), ShowSettings(), Subscribe(True), OpenLink("TP1-E-AAAAAAB"), Invite(),
                Resume(start_if_none=True)]
    for actor in (CAROL, group):
        for command in commands:
            effects = await first.flow.handle(actor, command, Surface(platform="telegram", platform_locale="uk",
                                                                      admin=True))
            assert refused(effects, Blocked), command
    assert await rows(first.db) == before  # no player row, no game, no mark, no share
    settings = await first.players.get_settings(CAROL.player)
    assert line(Problem(Blocked(), settings), "en", None) == "This bot is not available to you."
    assert line(Problem(Blocked(), settings), "uk", None) != "This bot is not available to you."
    assert not await first.flow.refuses(ALICE) and await first.flow.refuses(CAROL.player)


async def test_a_block_leaves_the_accounts_data_alone_and_unblocking_lets_it_play(apps: tuple[App, App]) -> None:
    first, _ = apps
    (sent,) = await first.flow.handle(ANN, Begin(DealByCode(WIN_CODE)))
    assert isinstance(sent, SendBoard)
    await owner(first, OwnerBlock("discord:100", True))
    assert refused(await first.flow.handle(ANN, Resume()), Blocked)
    current = await first.games.current_game(ALICE)
    assert current is not None and current.game_id == sent.snapshot.game_id  # kept as it was
    assert await owner(first, OwnerBlock("discord:100", False)) == BlockChanged(ALICE, False, True)
    assert await owner(first, OwnerBlock("discord:100", False)) == BlockChanged(ALICE, False, False)
    (resumed,) = await first.flow.handle(ANN, Resume())
    assert isinstance(resumed, SendBoard) and resumed.snapshot.game_id == sent.snapshot.game_id


async def test_a_block_reaches_another_process_within_its_freshness(apps: tuple[App, App]) -> None:
    """The process that blocks refuses at once; another trusts what it read for at most FRESH seconds."""
    first, second = apps
    ticking = Ticking()
    second.owners.monotonic = ticking
    (sent,) = await second.flow.handle(ANN, Begin(RandomDeal()))  # the second process reads the blocks now
    assert isinstance(sent, SendBoard)
    await owner(first, OwnerBlock("discord:100", True))
    assert refused(await first.flow.handle(ANN, Resume()), Blocked)
    ticking.now += FRESH - 0.5
    (still,) = await second.flow.handle(ANN, Resume())
    assert isinstance(still, SendBoard)  # not yet read again
    ticking.now += 0.5
    assert refused(await second.flow.handle(ANN, Resume()), Blocked)


async def test_the_owners_notice_is_on_every_board_in_every_process_until_it_is_off(apps: tuple[App, App]) -> None:
    first, second = apps
    ticking = Ticking()
    second.owners.monotonic = ticking
    (plain,) = await second.flow.handle(ANN, Begin(DealByCode(WIN_CODE)))
    assert isinstance(plain, SendBoard) and plain.snapshot.owner_notice is None

    notice = "Maintenance at 18:00 UTC, back in 10 minutes"
    assert await owner(first, OwnerNotice(f"  {notice}\n")) == NoticeSet(notice)
    (board,) = await first.flow.handle(ANN, Resume())
    assert isinstance(board, SendBoard) and board.snapshot.owner_notice == notice
    assert (await first.flow.game_now(board.snapshot.game_id)).owner_notice == notice  # a redraw at its turn
    view = draw(_board(board), "en")
    assert view.status is not None and f"Notice from the bot's owner: {notice}" in view.status
    ticking.now += FRESH
    (elsewhere,) = await second.flow.handle(ANN, Resume())
    assert isinstance(elsewhere, SendBoard) and elsewhere.snapshot.owner_notice == notice
    figures = await owner(second, OwnerStats())
    assert isinstance(figures, OwnerFigures) and figures.notice == notice

    assert await owner(first, OwnerNotice(None)) == NoticeSet(None)
    (cleared,) = await first.flow.handle(ANN, Resume())
    assert isinstance(cleared, SendBoard) and cleared.snapshot.owner_notice is None


async def test_the_longest_notice_and_the_owners_answers_fit_a_phone_in_every_language(
        apps: tuple[App, App]) -> None:
    first, _ = apps
    notice = "Ш" * NOTICE_MAX
    await owner(first, OwnerNotice(notice))
    figures = await owner(first, OwnerStats())
    (board,) = await first.flow.handle(ANN, Begin(DealByCode(WIN_CODE)))
    settings = await first.players.get_settings(OWNER)
    for locale in SUPPORTED_LOCALES:
        status = draw(_board(board), locale).status or ""
        (noticed,) = [text for text in status.split("\n") if notice in text]
        assert len(noticed) <= NOTICE_MAX + 60, (locale, noticed)  # a few lines of a chat bubble, no more
        for text in line(OwnerAnswer(figures, settings), locale, None).split("\n"):  # each figure a line of its own
            assert notice in text or display_width(text) <= PHONE_LINE, (locale, text)
        answers = [NoticeSet(None), BlockChanged(CAROL.player, True, True), BlockChanged(ALICE, False, False)]
        for said in [*(OwnerAnswer(result, settings) for result in answers),
                     *(Problem(error, settings) for error in (Blocked(), NotOwner(), BadOwnerCommand("block <id>")))]:
            assert display_width(line(said, locale, None)) <= 2 * PHONE_LINE, (locale, said)  # two lines at most


def _board(effect: Effect) -> Board:
    assert isinstance(effect, SendBoard)
    return Board(effect.snapshot)

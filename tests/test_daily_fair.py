"""A daily nobody can game (issue 24), each attack played as a determined player would: through the real bot
(python-telegram-bot's Application over the fake Bot API), on SQLite and PostgreSQL. The Discord side of the same
paths: tests/test_daily_fair_discord.py.

1. the ranked attempt has no Undo (a forged one is refused); Review, Share and Replay only once it is over; a blocked
   attempt is over at once, lost;
2. the lock on the day's deal holds under the other rule letter, by command and by a /start link;
3. (tests/test_cli_db.py) the daily code depends on the deployment's secret; the bot refuses a day to come;
4. any number of concurrent starts, from any process, end on one attempt;
5. nobody else's Review or Share;
6. the attempt counts on every group its player was seen in, wherever played; then /daily gives practice;
7. a hint is counted once per position; the board ranks by what it shows and says so; abandoned is lost;
8. only today's daily can be started;
9. the day's code reaches nobody while the day runs (it deals every card): boards, posts, questions, reviews,
   shares, challenges, inline results and every button's payload name the day instead.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import URL
from telegram import Bot

from bot.app.assembly import App
from bot.app.challenges import challenge_key
from bot.app.codec import encode
from bot.app.commands import AskHint, Begin, DealByCode, Move, PlayDaily, Replay, Review, Share
from bot.app.daily import DailyResult, rank
from bot.app.daily_codes import REMEMBERED_DAYS
from bot.app.daily_posts import DailyPoster
from bot.app.errors import NotYourGame
from bot.app.model import BoardStyle, PlayerKey
from bot.render.game import HINT_ICON, NEW_GAME_ICON, UNDO_ICON
from bot.render.tableau import card_label
from bot.store.database import open_database
from bot.store.schema import games
from core.deal import GameCode, Rules
from core.game import DRAW, Action, Game, Status, Tap, Undo
from tests.app_helpers import act, set_settings
from tests.conftest import fake_hint, fake_verdict
from tests.core_helpers import blocking_line, winning_line
from tests.fakes.telegram_bot_api import FakeBotAPI, FakeChat, FakeUser, StoredMessage
from tests.test_daily import executors
from tests.test_telegram_e2e import HANDLED, command, data_for, fitting, game_of, running_bot, tap

pytestmark = pytest.mark.timeout(180)

DAY = dt.date(2026, 12, 2)
CODE = "TP1-E-AAAAAAC"  # winnable (tests/test_telegram_e2e.py wins it)
OTHER = "TP1-E-AAAAAAB"  # not the day's deal
NOON = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)


def on_day(service: App) -> App:
    """The service at noon of DAY, whose deal is CODE (the day before's another)."""
    service.daily_codes.clock = lambda: NOON
    service.daily_codes.function = lambda day, secret: GameCode.parse(CODE if day == DAY else "TP1-E-AAAAAAD")
    return service


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI() as server:
        yield server


@asynccontextmanager
async def daily_bot(api: FakeBotAPI, url: URL) -> AsyncIterator[App]:
    async with running_bot(api, url.render_as_string(hide_password=False)) as service:
        yield on_day(service)


def labels(message: StoredMessage) -> list[str]:
    return [label for label, _ in message.buttons]


async def play_line(api: FakeBotAPI, user: FakeUser, chat: FakeChat, board: StoredMessage,
                    line: list[Action]) -> StoredMessage:
    for action in line:
        _, board = await tap(api, user, chat, board, data_for(board, action))
    return board


async def attempt_in_private(api: FakeBotAPI, user: FakeUser, group: FakeChat) -> tuple[FakeChat, StoredMessage]:
    """/daily in a group: the group gets a button that opens the private chat with the bot, where the ranked
    attempt's board is (issue 41: nobody watches it); that chat, and the board."""
    private = api.private_chat(user)
    answer = await command(api, user, group, "/daily")
    assert answer.links == [("Play in private", f"https://t.me/{api.bot_username}?start=daily")]
    return private, api.last_message(private)


async def daily_rows(service: App) -> list[tuple[int, int]]:
    """(player id, game id) of every game stored as a daily attempt of DAY."""
    async with service.db.transaction() as tx:
        rows = (await tx.execute(select(games.c.player_id, games.c.id).where(games.c.daily == DAY))).all()
    return [(row.player_id, row.id) for row in rows]


# --- 1. no peeking in the ranked attempt -----------------------------------------------------------------------------


async def test_the_ranked_attempt_has_no_undo_and_a_blocked_attempt_is_over_at_once(
        api: FakeBotAPI, db_url: URL) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    player = PlayerKey("telegram", str(alice.id))
    line = blocking_line(CODE)
    async with daily_bot(api, db_url) as service:
        board = await command(api, alice, chat, "/daily")
        assert UNDO_ICON not in labels(board) and {"Draw", HINT_ICON, NEW_GAME_ICON} <= set(labels(board))
        _, board = await tap(api, alice, chat, board, data_for(board, line[0]))  # a draw: something to undo
        game_id, version = game_of(board)
        # a forged Undo is refused, and the stock and the face-down cards stay unseen
        answer, board = await tap(api, alice, chat, board, encode(Move(game_id, version, Undo())),
                                  check_button=False)
        assert answer.text == "There is no undo in the daily deal"
        snapshot = await service.games.game(game_id)
        assert (snapshot.version, snapshot.undos_used, snapshot.game.moves) == (version, 0, 1)
        # nothing to review, share or replay while the attempt is played
        for forged in (Review(game_id), Share(game_id), Replay(game_id)):
            answer, _ = await tap(api, alice, chat, board, encode(forged), check_button=False)
            assert answer.text == "That game is not over yet", forged
        sent = len(api.bot_messages(chat))
        board = await play_line(api, alice, chat, board, line[1:])
        # blocked: over at once, lost, and said so; no Undo among its buttons
        assert "No more possible moves" in board.text and "Your daily attempt is over: not won." in board.text
        assert labels(board) == ["Share", "Replay", "Review", "New game"]
        assert await service.games.current_game(player) is None
        game_id, version = game_of(board)
        answer, _ = await tap(api, alice, chat, board, encode(Move(game_id, version, Undo())), check_button=False)
        assert answer.text == "There is no undo in the daily deal"
        assert (await service.games.game(game_id)).game.status is Status.BLOCKED
        assert len(api.bot_messages(chat)) == sent
        # a practice game keeps Undo, blocked too
        practice = await command(api, alice, chat, "/tripeaks TP1-E-AAAAAAB")
        assert UNDO_ICON in labels(practice)


# --- 2. the lock holds under the other rule letter ----------------------------------------------------------------


async def test_the_days_deal_is_locked_under_either_rule_letter_until_the_attempt_ends(
        api: FakeBotAPI, db_url: URL) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    other_letter = str(GameCode(Rules.CLASSIC, GameCode.parse(CODE).number))
    locked = "That code is the daily deal of Dec 2, 2026: play it as the daily first, and practise it once your " \
             "attempt is over"
    async with daily_bot(api, db_url) as service:
        for text in (f"/tripeaks {CODE}", f"/tripeaks {other_letter}", f"/start {other_letter}",
                     f"/tripeaks {other_letter.lower()}"):
            reply = await command(api, alice, chat, text)
            assert reply.text == locked, text
        assert await service.games.current_game(PlayerKey("telegram", str(alice.id))) is None
        board = await command(api, alice, chat, "/daily")
        await play_line(api, alice, chat, board, winning_line(CODE))
        practice = await command(api, alice, chat, f"/tripeaks {other_letter}")  # over: practice is open
        # a practice of the day's deal under Classic rules, its code unsaid while the day runs
        assert "Daily deal · Dec 2, 2026\npractice, unranked · Classic\n" in practice.text
        assert other_letter not in practice.text and CODE not in practice.text


# --- 4. one attempt, whatever the taps ----------------------------------------------------------------------------


async def test_a_burst_of_daily_starts_ends_on_one_attempt(api: FakeBotAPI, db_url: URL) -> None:
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group("Club", members=[alice, bob])
    async with daily_bot(api, db_url) as service:
        post = await command(api, alice, group, "/leaderboard")
        # five /daily and five taps of Play under a post, all at once, from each of two players
        handles = []
        for user in (alice, bob):
            for _ in range(5):
                handles.append(api.send_text(user, group, "/daily"))
                handles.append(api.press(user, group, post.message_id, encode(PlayDaily(DAY)), check_button=False))
        await api.wait_until(lambda: all(h.update_id in HANDLED for h in handles), what="every start handled")
        rows = await daily_rows(service)
        assert len(rows) == 2 and len({player for player, _ in rows}) == 2
        for user in (alice, bob):
            current = await service.games.current_game(PlayerKey("telegram", str(user.id)))
            assert current is not None and current.daily == DAY and current.game_id in {game for _, game in rows}
        assert [r.finished for r in await service.leaderboards.of("telegram", str(group.id), DAY)] == [False] * 2


async def test_concurrent_starts_from_two_processes_end_on_one_attempt(db_url: URL) -> None:
    """Two services on two engines (two bot processes) start the daily for the same players at once."""
    first, second = await open_database(db_url, migrate=False), await open_database(db_url, migrate=False)
    try:
        with ThreadPoolExecutor(2) as executor:
            async with App(first, executor=executor, hint_function=fake_hint,
                                   verdict_function=fake_verdict) as one, \
                    App(second, executor=executor, hint_function=fake_hint,
                                verdict_function=fake_verdict) as two:
                players = [PlayerKey("telegram", f"p{i}") for i in range(5)]
                starts = [service.starts.new_daily_game(player, player.user_id, DAY, community="-100")
                          for _ in range(4) for player in players for service in (on_day(one), on_day(two))]
                started = await asyncio.gather(*starts)
                for player in players:
                    assert len({s.game_id for s in started if s.owner == player}) == 1
                rows = await daily_rows(one)
                assert len(rows) == 5 and len({player for player, _ in rows}) == 5
                async with one.db.transaction() as tx:
                    assert (await tx.execute(select(func.count()).select_from(games))).scalar_one() == 5
    finally:
        await first.close()
        await second.close()


# --- 5. nobody else's review or share -----------------------------------------------------------------------------


async def test_another_players_review_and_share_are_refused_and_post_nothing(api: FakeBotAPI, db_url: URL) -> None:
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group("Club", members=[alice, bob])
    async with daily_bot(api, db_url) as service:
        chat, board = await attempt_in_private(api, alice, group)
        board = await play_line(api, alice, chat, board, winning_line(CODE))
        game_id, _ = game_of(board)
        assert "Review" in labels(board)
        sent = len(api.bot_messages(group))
        button = api.bot_messages(group)[-1]  # the group's button to the attempt
        for forged in (Review(game_id), Share(game_id)):
            answer, _ = await tap(api, bob, group, button, encode(forged), check_button=False)
            assert answer.text == "This is not your game; start your own with /tripeaks", forged
        assert len(api.bot_messages(group)) == sent
        assert len(api.bot_messages(api.private_chat(bob))) == 0
        # and the service itself refuses whoever is not the owner
        with pytest.raises(NotYourGame):
            await act(service, PlayerKey("telegram", str(bob.id)), "Bob", Review(game_id))


async def test_a_finished_dailys_share_names_its_day_and_not_its_code(api: FakeBotAPI, db_url: URL) -> None:
    """While the day runs, the day's code would give its cards away to whoever reads the shared result (under
    either rule letter): the share names the daily by its date, and its link opens the shared game's deal."""
    alice = api.user("Alice")
    group = api.group("Club", members=[alice])
    async with daily_bot(api, db_url):
        chat, board = await attempt_in_private(api, alice, group)
        board = await play_line(api, alice, chat, board, winning_line(CODE))
        game_id, _ = game_of(board)
        await tap(api, alice, chat, board, encode(Share(game_id)))
        shared = api.bot_messages(chat)[-1]
        assert shared.text.startswith("Alice's result\nTriPeaks daily 2026-12-02: score ")
        number = GameCode.parse(CODE).number
        for code in (GameCode(Rules.EASY, number), GameCode(Rules.CLASSIC, number)):
            assert str(code) not in shared.text and str(code) not in str(shared.reply_markup), code
        # the challenge by reference: the game and its key
        ((label, link),) = shared.links
        assert label == "Play this deal" and re.fullmatch(rf"https://t\.me/{api.bot_username}\?start=x{game_id}_[a-z2-7]{{16}}",
                                                         link), link


async def test_a_review_asked_for_in_a_group_goes_to_its_player_only(api: FakeBotAPI, db_url: URL) -> None:
    alice, carol, bob = api.user("Alice"), api.user("Carol"), api.user("Bob")
    group = api.group("Club", members=[alice, bob, carol])
    api.private_chat(alice)  # alice has started the bot; carol never has
    async with daily_bot(api, db_url):
        board = await command(api, alice, group, f"/tripeaks {OTHER}")
        board = await play_line(api, alice, group, board, blocking_line(OTHER))
        alice_game, _ = game_of(board)
        carols = await command(api, carol, group, "/tripeaks TP1-E-AAAAAAB")
        carols = await play_line(api, carol, group, carols, blocking_line("TP1-E-AAAAAAB"))
        carol_game, _ = game_of(carols)
        in_group = len(api.bot_messages(group))
        answer, _ = await tap(api, alice, group, board, encode(Review(alice_game)))
        assert answer.text == "Your review is in your private chat with the bot" and answer.url is None
        assert api.last_message(api.private_chat(alice)).text.startswith(f"Review: {OTHER}\n")
        # carol never started the bot: the tap opens her private chat with a link that shows it there
        answer, _ = await tap(api, carol, group, carols, encode(Review(carol_game)))
        assert answer.text is None and answer.url == f"https://t.me/{api.bot_username}?start=review-{carol_game}"
        assert len(api.bot_messages(group)) == in_group
        review = await command(api, carol, api.private_chat(carol), f"/start review-{carol_game}")
        assert review.text.startswith("Review: TP1-E-AAAAAAB")
        # the link is no way into anyone else's review
        refused = await command(api, bob, api.private_chat(bob), f"/start review-{alice_game}")
        assert refused.text == "This is not your game; start your own with /tripeaks"
        assert len(api.bot_messages(group)) == in_group


async def test_a_card_typed_in_the_group_for_the_private_attempt_is_answered_privately(
        api: FakeBotAPI, db_url: URL) -> None:
    """The ranked attempt is played in private: a card of it typed in the group (``/play 7h``) plays it there, and
    what it did (the card, now the waste card) is said in the private chat, never in the group."""
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group("Club", members=[alice, bob])
    async with daily_bot(api, db_url):
        private, board = await attempt_in_private(api, alice, group)
        game = Game.from_code(CODE)
        slot = fitting(game)
        card = game.card_at(slot)
        in_group = len(api.bot_messages(group))
        handle = api.send_text(alice, group, f"/play {card.symbol()}")
        await api.wait_until(lambda: handle.update_id in HANDLED, what="the typed card to be handled")
        assert len(api.bot_messages(group)) == in_group  # nothing of the attempt in the group
        await api.wait_until(lambda: "Moves: 1" in api.message(private, board.message_id).text,
                             what="the private board to show the card played")
        assert api.last_message(private).text.startswith(f"You played {card_label(card)}")


# --- 6. the attempt is the player's, wherever played ----------------------------------------------------------------


async def test_the_attempt_counts_on_every_group_its_player_was_seen_in_and_then_daily_is_practice(
        api: FakeBotAPI, db_url: URL) -> None:
    alice, bob, carol = api.user("Alice"), api.user("Bob"), api.user("Carol")
    group = api.group("Club", members=[alice, bob, carol])
    async with daily_bot(api, db_url) as service:
        # alice opens the daily in her private chat, then asks for it in the group: it is played in private
        await command(api, alice, api.private_chat(alice), "/daily")
        chat, board = await attempt_in_private(api, alice, group)
        board = await play_line(api, alice, chat, board, winning_line(CODE))
        # bob was seen in the group (a game there) and plays his attempt in private
        await command(api, bob, group, "/tripeaks TP1-E-AAAAAAB")
        bobs = await command(api, bob, api.private_chat(bob), "/daily")
        await play_line(api, bob, api.private_chat(bob), bobs, blocking_line(CODE))
        # carol was never seen in the group
        carols = await command(api, carol, api.private_chat(carol), "/daily")
        await play_line(api, carol, api.private_chat(carol), carols, winning_line(CODE))
        leaderboard = await command(api, alice, group, "/leaderboard")
        assert leaderboard.text.count("Alice") == 1 and "Bob" in leaderboard.text and "Carol" not in leaderboard.text
        assert [r.name for r in await service.leaderboards.of("telegram", str(group.id), DAY)] == ["Alice", "Bob"]
        # after the attempt, /daily is a replay that says it counts nowhere, and may be played in the group
        replay = await command(api, alice, group, "/daily")
        assert "practice, unranked" in replay.text and UNDO_ICON in labels(replay)
        replay_id, _ = game_of(replay)
        assert (await service.games.game(replay_id)).daily is None


# --- 7. counts that tell the truth --------------------------------------------------------------------------------


async def test_a_hint_is_counted_once_per_position_and_an_abandoned_attempt_shows_lost(
        api: FakeBotAPI, db_url: URL) -> None:
    alice, bob = api.user("Alice"), api.user("Bob")
    group = api.group("Club", members=[alice, bob])
    async with daily_bot(api, db_url) as service:
        chat, board = await attempt_in_private(api, alice, group)
        game_id, version = game_of(board)
        hint = encode(AskHint(game_id, version))
        first = api.press(alice, chat, board.message_id, hint)
        second = api.press(alice, chat, board.message_id, hint)  # a quick double tap
        await api.wait_until(lambda: {first.update_id, second.update_id} <= HANDLED, what="both hints")
        _, board = await tap(api, alice, chat, board, hint)  # and once more, the same advice
        assert (await service.games.game(game_id)).hints_used == 1
        board = await play_line(api, alice, chat, board, winning_line(CODE)[:1])
        game_id, version = game_of(board)
        await tap(api, alice, chat, board, encode(AskHint(game_id, version)))
        assert (await service.games.game(game_id)).hints_used == 2  # a new position, a new hint
        # bob abandons his attempt for another game: lost, not "still playing" (he never started the bot: the
        # group's button is his way to the attempt)
        await command(api, bob, group, "/daily")
        await command(api, bob, group, "/tripeaks TP1-E-AAAAAAB")
        text = (await command(api, alice, group, "/leaderboard")).text
        alice_line = next(line for line in text.splitlines() if "Alice" in line)
        bob_line = next(line for line in text.splitlines() if "Bob" in line)
        assert "⏳" in alice_line and "💡2" in alice_line
        assert "✗" in bob_line and "⏳" not in bob_line
        assert ("Only each player's first game of the deal counts: a win first, then score, fewer hints, fewer "
                "undos, shorter time.") in text


def test_the_board_ranks_by_what_it_shows_score_hints_undos_then_the_time_shown() -> None:
    t = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC)

    def result(name: str, seconds: float, *, finished_minute: int) -> DailyResult:
        return DailyResult(name, name, 700, 40, True, hints=0, undos=0, seconds=seconds,
                           finished_at=t + dt.timedelta(minutes=finished_minute))

    # 0:13 finished first, 0:12 later: the time shown decides, not who finished first
    assert [r.name for r in rank([result("slow", 13.2, finished_minute=0), result("quick", 12.7,
                                                                                  finished_minute=5)])] == \
        ["quick", "slow"]


# --- 8. only today's daily ------------------------------------------------------------------------------------------


async def test_only_todays_daily_can_be_started(api: FakeBotAPI, db_url: URL) -> None:
    alice = api.user("Alice")
    group = api.group("Club", members=[alice])
    player = PlayerKey("telegram", str(alice.id))
    async with daily_bot(api, db_url) as service:
        post = await command(api, alice, group, "/leaderboard")
        for back in (1, 2, 30, 400):
            day = DAY - dt.timedelta(days=back)
            answer, _ = await tap(api, alice, group, post, encode(PlayDaily(day)), check_button=False)
            assert answer.text == f"The daily deal of {day:%b} {day.day}, {day.year} is over: only today's can be " \
                                  "played"
        answer, _ = await tap(api, alice, group, post, encode(PlayDaily(DAY + dt.timedelta(days=1))),
                              check_button=False)
        assert answer.text == "This button could not be read; start a new game with /tripeaks"
        assert await service.games.current_game(player) is None and await daily_rows(service) == []
        assert len(service.daily_codes._codes) <= REMEMBERED_DAYS
        answer, _ = await tap(api, alice, group, post, encode(PlayDaily(DAY)), check_button=False)
        current = await service.games.current_game(player)
        assert current is not None and current.daily == DAY


# --- 9. the day's code reaches nobody while the day runs -------------------------------------------------------------

#: The day's deal under either rule letter: a code deals every card (``tripeaks solve CODE`` plays it offline).
SECRET = tuple(str(GameCode(rules, GameCode.parse(CODE).number)) for rules in Rules)


def everything_sent(api: FakeBotAPI) -> str:
    """Everything the bot sent, as one string: the parameters of each request it made of the Bot API (texts,
    captions, every button's callback data, link or inline query, toasts and their links, inline results), a
    photo's bytes left out."""
    return "\n".join(request.method + " " + json.dumps(request.params, ensure_ascii=False, default=lambda data: "<bytes>")
                     for request in api.requests if request.method != "getUpdates")


def assert_no_secret(sent: str) -> None:
    for code in SECRET:
        assert code.lower() not in sent.lower(), code


def button_data(message: StoredMessage, label: str) -> str:
    (data,) = [data for text, data in message.buttons if text == label and data is not None]
    return data


async def reply_to_tap(api: FakeBotAPI, user: FakeUser, chat: FakeChat, message: StoredMessage,
                       data: str) -> StoredMessage:
    """Tap a button that makes the bot send a new message to the chat; that message."""
    before = max(sent.message_id for sent in api.bot_messages(chat))
    await tap(api, user, chat, message, data)
    return next(sent for sent in api.bot_messages(chat) if sent.message_id > before)  # the tapped one may be gone


@pytest.mark.parametrize("inline", [False, True], ids=["share-posts", "inline-mode"])
async def test_the_days_code_reaches_no_player_while_the_day_runs(db_url: URL, inline: bool) -> None:
    """A cheating player reads everything the bot sends during the day (texts, captions, every button's payload,
    toasts, links, inline results): the ranked attempt, a question before abandoning it, its review, share and
    replay, practice games, a friend's challenge, the leaderboard and the statistics, on a picture board and a
    text board, in a group and in private. The day's code shows nowhere under either rule letter; boards name the
    day and the rules. A forged payload naming the code is refused as before. Once the day is over, the code is
    shown."""
    HANDLED.clear()
    async with FakeBotAPI(supports_inline_queries=inline) as api:
        alice, bob = api.user("Alice"), api.user("Bob")
        group = api.group("Club", members=[alice, bob], admins=[alice])
        alice_chat, bob_chat = api.private_chat(alice), api.private_chat(bob)
        bob_key = PlayerKey("telegram", str(bob.id))
        async with daily_bot(api, db_url) as service:
            await set_settings(service, bob_key, board=BoardStyle.TEXT)  # Alice has the picture board
            # the day's post in the group
            await command(api, alice, group, "/subscribe")
            async with Bot(api.token, base_url=api.base_url) as client:
                assert await DailyPoster(service.subscriptions, service.daily_codes.code, executors(service, client), post_time=dt.time(9),
                                         clock=lambda: NOON).run_once() == 1
            post = api.bot_messages(group)[-1]
            assert post.text.startswith("Daily deal · December 2, 2026")

            # Bob forges payloads that name the day's deal under either letter: refused, as before his attempt
            for code in SECRET:
                answer, _ = await tap(api, bob, group, post, encode(Begin(DealByCode(code))), check_button=False)
                assert answer.text is not None and answer.text.startswith("That code is the daily deal of Dec 2")
            assert await service.games.current_game(bob_key) is None

            # Alice's ranked attempt, from the group's post: in her private chat, where nobody watches it; the day
            # and the rules on the board, a hint, a few moves
            line = winning_line(CODE)
            in_group = len(api.bot_messages(group))
            await tap(api, alice, group, post, button_data(post, "Play"))
            assert len(api.bot_messages(group)) == in_group
            board = api.last_message(alice_chat)
            assert board.is_photo and board.text.startswith("Daily deal · Dec 2, 2026 · Easy\n")
            attempt_id, version = game_of(board)
            _, board = await tap(api, alice, alice_chat, board, encode(AskHint(attempt_id, version)))
            board = await play_line(api, alice, alice_chat, board, line[:3])
            if inline:  # the deal she is playing, offered to a chat
                offers = await api.inline_query(alice, "").answer()
                assert "The deal you are playing: daily deal of Dec 2, 2026" in str(offers.results)
            # a new game would abandon the attempt: the question names it by its day; No, then back to it
            question = await command(api, alice, group, "/tripeaks")
            assert "(daily deal of Dec 2, 2026, score" in question.text
            _, kept = await tap(api, alice, group, question, button_data(question, "Keep playing"))
            old = board
            await tap(api, alice, group, kept, button_data(kept, "Back to the game"))  # in private, again
            assert api.message(group, kept.message_id).deleted  # the note, answered, leaves the group
            board = api.last_message(alice_chat)
            played = next(action for action in line[:3] if isinstance(action, Tap))
            # that card again from the old board: played already, which only brings the old board up to date
            await tap(api, alice, alice_chat, old, encode(Move(attempt_id, 1, played)), check_button=False)
            board = await play_line(api, alice, alice_chat, board, line[3:])
            assert "You won!" in board.text

            # once over: her review (in private), her share, her replay (practice, unranked)
            await tap(api, alice, alice_chat, board, encode(Review(attempt_id)))
            review = api.last_message(alice_chat)
            assert review.text.startswith("Review · Daily deal · Dec 2, 2026\n")
            if inline:
                offers = await api.inline_query(alice, "").answer()
                api.choose_inline_result(alice, group, offers, f"challenge-{attempt_id}")
            else:
                await tap(api, alice, alice_chat, board, encode(Share(attempt_id)))
            practice = await reply_to_tap(api, alice, alice_chat, board, encode(Replay(attempt_id)))
            assert practice.text.startswith("Daily deal · Dec 2, 2026\npractice, unranked · Easy\n")
            practice = await play_line(api, alice, alice_chat, practice, line[:1])
            # a new game asks first, naming the practice game by its day; Yes
            question = await command(api, alice, group, "/tripeaks")
            assert "(daily deal of Dec 2, 2026, score" in question.text
            other = await reply_to_tap(api, alice, group, question, button_data(question, "Yes, start"))
            other_id, other_version = game_of(other)
            _, other = await tap(api, alice, group, other, data_for(other, DRAW))
            # the day's deal again (in a private chat the review showed in the board's message, and that board, no
            # longer the latest, has no Replay), with that game in progress: asked first, by the day; Yes
            question = await command(api, alice, alice_chat, "/daily")
            assert question.text.startswith("Start the daily deal?")
            practice = await reply_to_tap(api, alice, alice_chat, question, button_data(question, "Yes, start"))
            assert "practice, unranked" in practice.text
            # a tap on the board of the game she left points at the practice game, by its day
            answer, _ = await tap(api, alice, group, other, encode(Move(other_id, other_version, DRAW)),
                                  check_button=False)
            assert answer.text == "That board is from an older game; your current game, the daily deal of Dec 2, " \
                                  "2026, has its own board"
            if inline:
                offers = await api.inline_query(alice, "").answer()
                assert re.search(rf"x{game_of(practice)[0]}_[a-z2-7]{{16}}", str(offers.results))

            # Bob takes Alice's challenge (the link she sent): locked until his own attempt is over, then a practice
            # game of the day
            key = challenge_key(attempt_id, await service.daily_codes.secret())
            challenge = f"/start x{attempt_id}_{key}"
            locked = await command(api, bob, bob_chat, challenge)
            # he saw no code: told it is the daily deal, to finish his attempt first (issue 54)
            assert locked.text.startswith("This is the daily deal of Dec 2, 2026: finish your own attempt first")
            attempt = await command(api, bob, bob_chat, "/daily")
            attempt = await play_line(api, bob, bob_chat, attempt, blocking_line(CODE))
            assert "Your daily attempt is over: not won." in attempt.text
            await tap(api, bob, bob_chat, attempt, encode(Review(game_of(attempt)[0])))
            answered = await command(api, bob, bob_chat, challenge)
            assert answered.text.startswith("Daily deal · Dec 2, 2026\npractice, unranked · Easy\n")
            await command(api, bob, group, "/leaderboard")
            await command(api, alice, group, "/stats")
            await command(api, bob, bob_chat, "/daily")  # practice again: asked first (his challenge has no moves)

            sent = everything_sent(api)
            for seen in ("Daily deal · Dec 2, 2026", "Review · Daily deal · Dec 2, 2026", "Daily leaderboard",
                         "sendPhoto", "editMessageMedia", f"x{attempt_id}_{key}"):
                assert seen in sent, seen  # what was read covers the paths above
            assert ("answerInlineQuery" in sent) is inline
            assert_no_secret(sent)

            # the next day, the code may be shown: the review of yesterday's attempt names it
            service.daily_codes.clock = lambda: NOON + dt.timedelta(days=1)
            review = await command(api, alice, alice_chat, f"/start review-{attempt_id}")
            assert review.text.startswith(f"Review: {CODE}\n")


# --- 10. the attempt ends with its day (issue 43) ---------------------------------------------------------------------


async def test_an_attempt_still_open_at_midnight_takes_no_more_moves(api: FakeBotAPI, db_url: URL) -> None:
    """At 23:57 Alice starts the daily and draws; at 00:01 the day's code may be out, so her next tap plays
    nothing: the toast says the day is over, the board stays as it was, and the attempt ends as it stands."""
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    player = PlayerKey("telegram", str(alice.id))
    async with daily_bot(api, db_url) as service:
        service.daily_codes.clock = lambda: dt.datetime.combine(DAY, dt.time(23, 57), tzinfo=dt.UTC)
        board = await command(api, alice, chat, "/daily")
        _, board = await tap(api, alice, chat, board, data_for(board, DRAW))
        game_id, version = game_of(board)
        service.daily_codes.clock = lambda: dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(0, 1),
                                                                 tzinfo=dt.UTC)
        answer, unchanged = await tap(api, alice, chat, board, data_for(board, DRAW))
        assert answer.text is not None and "is over" in answer.text
        assert unchanged.edit_count == board.edit_count
        ended = await service.games.game(game_id)
        assert ended.abandoned and ended.game.moves == 1 and ended.version == version + 1
        assert await service.games.current_game(player) is None

"""Telegram's inline mode and challenges (issue 28), end to end: the real bot on the fake Bot API with inline mode
on (BotFather's ``/setinline``). Share on a won board opens the inline mode; ``@<bot>`` offers the player's
challenge, a new winnable deal and today's daily deal (its link only), in the player's language, within Telegram's
limits; the challenge sent to a group carries a Play link, and a friend who opens it plays the same deal to the
comparison. The fake's own inline checks are tested first, with a bare python-telegram-bot ``Bot``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineQueryResultArticle, InputTextMessageContent
from telegram.error import BadRequest

from bot.adapters.telegram.inline import CACHE_SECONDS
from bot.app.challenges import challenge_key
from bot.app.model import PlayerKey, Stats
from bot.i18n import translator
from bot.render.endings import compared_line
from bot.render.replies import render_stats
from bot.render.view import named_title
from core.deal import GameCode
from core.game import DRAW, Action, Game
from core.solver import solve
from tests.app_helpers import offers
from tests.core_helpers import winning_line
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_telegram_e2e import (  # noqa: F401  (fixtures)
    HANDLED,
    command,
    data_for,
    db_url,
    no_errors_logged,
    plain,
    running_bot,
    tap,
)

pytestmark = pytest.mark.timeout(90)

WIN_CODE = "TP1-E-AAAAAAC"


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI(supports_inline_queries=True) as server:
        yield server


def another_winning_line(code: str) -> tuple[Action, ...]:
    """A different way to win ``code``: a draw first, then the solver's line from there."""
    game = Game.from_code(code)
    game.push(DRAW)
    solution = solve(game)
    assert solution.winnable and solution.line is not None
    return (DRAW, *solution.line)


def final_score(code: str, line: tuple[Action, ...]) -> int:
    game = Game.from_code(code)
    for action in line:
        game.push(action)
    return game.score


# --- the fake ------------------------------------------------------------------------------------------------------


async def test_the_fake_answers_inline_queries_within_telegrams_limits(api: FakeBotAPI) -> None:
    def article(result_id: str) -> InlineQueryResultArticle:
        return InlineQueryResultArticle(result_id, "Title", InputTextMessageContent("<b>hi</b>", parse_mode="HTML"))

    async with Bot(api.token, base_url=api.base_url) as bot:
        alice = api.user("Alice")
        too_many = api.inline_query(alice, "x")
        with pytest.raises(BadRequest, match="Results_too_much|RESULTS_TOO_MUCH"):
            await bot.answer_inline_query(too_many.record.id, [article(str(n)) for n in range(51)])
        for bad_id in ("", "x" * 65):
            with pytest.raises(BadRequest, match="(?i)result_id_invalid"):
                await bot.answer_inline_query(too_many.record.id, [article(bad_id)])
        with pytest.raises(BadRequest, match="(?i)result_id_duplicate"):
            await bot.answer_inline_query(too_many.record.id, [article("a"), article("a")])
        await bot.answer_inline_query(too_many.record.id, [article(str(n)) for n in range(50)], cache_time=3,
                                      is_personal=True)
        answer = await too_many.answer()
        assert len(answer.results) == 50 and answer.cache_time == 3 and answer.is_personal
        with pytest.raises(BadRequest, match="(?i)query is too old"):  # answered once
            await bot.answer_inline_query(too_many.record.id, [article("1")])


# --- the bot -------------------------------------------------------------------------------------------------------


async def test_share_opens_inline_mode_and_a_friend_plays_the_challenge_to_the_comparison(
        api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:  # noqa: F811
    async with running_bot(api, db_url) as service:
        alice, bob = api.user("Alice"), api.user("Bob")
        alice_chat = api.private_chat(alice)
        board = await command(api, alice, alice_chat, f"/tripeaks {WIN_CODE}")
        for action in winning_line(WIN_CODE):
            _, board = await tap(api, alice, alice_chat, board, data_for(board, action))
        alice_score = final_score(WIN_CODE, winning_line(WIN_CODE))
        # Share opens the inline mode in a chat Alice picks, with the challenge of this board's game
        game_id = (await offers(service, PlayerKey("telegram", str(alice.id)))).latest.game_id  # type: ignore[union-attr]
        share = [button for row in board.reply_markup["inline_keyboard"] for button in row  # type: ignore[index]
                 if button["text"] == "Share"]
        assert share == [{"text": "Share", "switch_inline_query": f"#{game_id}"}]

        handle = api.inline_query(alice, f"#{game_id}", chat_type="group")
        answer = await handle.answer()
        day = service.daily_codes.today()
        assert [result["id"] for result in answer.results][0::2] == [f"challenge-{game_id}", f"daily-{day}"]
        assert answer.results[1]["id"].startswith("fresh-") and len(answer.results) == 3
        assert answer.is_personal and answer.cache_time == CACHE_SECONDS
        fresh_code = GameCode.parse(answer.results[1]["id"].removeprefix("fresh-"))
        assert fresh_code.rules.value == "easy"
        # today's daily: a link that names no deal, nothing that gives it away
        daily = answer.result(f"daily-{day}")
        assert "TP1-" not in str(daily)
        assert daily["reply_markup"]["inline_keyboard"][0][0]["url"] == f"https://t.me/{api.bot_username}?start=daily"

        club = api.group("Club", members=[alice, bob])
        posted = api.choose_inline_result(alice, club, answer, f"challenge-{game_id}")
        # the challenge goes by reference: the game and its key, no code that `tripeaks solve` could play
        key = challenge_key(game_id, await service.daily_codes.secret())
        link = f"https://t.me/{api.bot_username}?start=x{game_id}_{key}"
        assert posted.links == [("Play this deal", link)] and WIN_CODE not in posted.text
        assert posted.text.startswith("Alice's result") and f"score {alice_score}" in posted.text

        # Bob opens the link: /start with its parameter, in his chat with the bot, and wins another way; his board
        # shows the score to beat and not the code while he plays
        bob_chat = api.private_chat(bob)
        board = await command(api, bob, bob_chat, f"/start x{game_id}_{key}")
        assert f"To beat: {alice_score} (Alice)" in board.text and WIN_CODE not in board.text
        told_before = len(api.bot_messages(alice_chat))
        line = another_winning_line(WIN_CODE)
        for action in line:
            _, board = await tap(api, bob, bob_chat, board, data_for(board, action))
        bob_score = final_score(WIN_CODE, line)
        diff = bob_score - alice_score
        expected = (f"You beat Alice's {alice_score} by {diff}" if diff > 0 else
                    f"Alice's {alice_score} beats yours by {-diff}" if diff < 0 else
                    f"You tied with Alice: {alice_score} each")
        assert expected in board.text
        # Alice is told, once, in her chat with the bot, where she played the deal (the outbox delivers it)
        await api.wait_until(lambda: len(api.bot_messages(alice_chat)) > told_before, what="Alice to be told")
        (told,) = api.bot_messages(alice_chat)[told_before:]
        theirs = (f"You beat Bob's {bob_score} by {-diff}" if diff < 0 else
                  f"Bob's {bob_score} beats yours by {diff}" if diff > 0 else f"You tied with Bob: {bob_score} each")
        assert told.text.startswith("You vs Bob") and theirs in told.text
        # an ordinary game in Bob's stats
        stats = await command(api, bob, bob_chat, "/stats")
        assert stats.text == plain(render_stats(Stats(1, 1, bob_score, 1, 1), "en"))


async def test_inline_results_speak_the_players_language(
        api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:  # noqa: F811
    async with running_bot(api, db_url):
        olena = api.user("Olena", language_code="uk")
        answer = await api.inline_query(olena, "").answer()
        tr = translator("uk")
        # no game yet: a new winnable deal and today's daily deal
        assert [result["title"] for result in answer.results][:1] == [tr.gettext("A new winnable deal")]
        assert answer.is_personal


async def test_a_challenger_who_set_no_language_is_told_in_their_telegrams(
        api: FakeBotAPI, db_url: str, no_errors_logged: None) -> None:  # noqa: F811
    """Alice's Telegram speaks Russian and she chose no language; Bob's speaks English. When Bob finishes Alice's
    challenge, Alice is told in Russian (the language Telegram last gave for her), not in Bob's English."""
    async with running_bot(api, db_url) as service:
        alice, bob = api.user("Alice", language_code="ru"), api.user("Bob", language_code="en")
        alice_chat = api.private_chat(alice)
        board = await command(api, alice, alice_chat, f"/tripeaks {WIN_CODE}")
        for action in winning_line(WIN_CODE):
            _, board = await tap(api, alice, alice_chat, board, data_for(board, action))
        game_id = (await offers(service, PlayerKey("telegram", str(alice.id)))).latest.game_id  # type: ignore[union-attr]
        key = challenge_key(game_id, await service.daily_codes.secret())

        bob_chat = api.private_chat(bob)
        board = await command(api, bob, bob_chat, f"/start x{game_id}_{key}")
        assert "To beat:" in board.text  # Bob's board, in his English
        told_before = len(api.bot_messages(alice_chat))
        line = another_winning_line(WIN_CODE)
        for action in line:
            _, board = await tap(api, bob, bob_chat, board, data_for(board, action))
        await api.wait_until(lambda: len(api.bot_messages(alice_chat)) > told_before,
                             what="Alice to be told how her challenge went (the outbox)")
        (told,) = api.bot_messages(alice_chat)[told_before:]
        ru = translator("ru")
        assert told.text.startswith(named_title(ru.pgettext("title", "You vs {name}"), "Bob"))
        alice_score, bob_score = final_score(WIN_CODE, winning_line(WIN_CODE)), final_score(WIN_CODE, line)
        assert compared_line(alice_score, "Bob", bob_score, ru) in told.text


async def test_a_forged_tap_on_a_message_sent_through_inline_mode_changes_nothing(
        api: FakeBotAPI, db_url: str) -> None:  # noqa: F811
    """The bot's inline results carry link buttons only, so a callback from a message sent through inline mode
    (``inline_message_id``, no ``message``) comes from a modified client: it is refused in a toast, the message
    stays as it was, and nothing is started or played, least of all a ranked daily attempt drawn into a group."""
    async with running_bot(api, db_url) as service:
        alice, bob = api.user("Alice"), api.user("Bob")
        alice_chat = api.private_chat(alice)
        board = await command(api, alice, alice_chat, f"/tripeaks {WIN_CODE}")
        game_id = (await offers(service, PlayerKey("telegram", str(alice.id)))).latest.game_id  # type: ignore[union-attr]
        answer = await api.inline_query(alice, "", chat_type="group").answer()
        assert answer.results, answer
        club = api.group("Club", members=[alice, bob])
        posted = api.choose_inline_result(alice, club, answer, answer.results[0]["id"])
        shown = (posted.text, posted.reply_markup)
        today = service.daily_codes.today().isoformat()
        forged = ["tp:b:d:-", f"tp:daily:{today}", "tp:b:n:e:-", data_for(board, DRAW), f"tp:g:{game_id}:0:s",
                  f"tp:y:{game_id}:d:-"]
        for tapper in (bob, alice):
            for data in forged:
                press = api.press_inline(tapper, posted, data)
                toast = await press.answer()
                assert toast.text and "could not be read" in toast.text, (data, toast)
        assert (posted.text, posted.reply_markup) == shown and posted.edit_count == 0
        assert not [request for request in api.requests if "inline_message_id" in request.params]
        assert await service.games.current_game(PlayerKey("telegram", str(bob.id))) is None
        current = await service.games.current_game(PlayerKey("telegram", str(alice.id)))
        assert current is not None and current.game_id == game_id and current.version == 0
        assert not api.bot_messages(club)

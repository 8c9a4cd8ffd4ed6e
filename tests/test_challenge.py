"""Challenges (issue 28) in the service and the renderer: "Play this deal" under a shared game starts the tapper's
own game of that deal, which remembers the shared game and compares with it when it ends ("You beat Alice's 749 by
12"), in the ending and the review; it asks first when the tapper has a game with moves; the daily lock holds (a
daily deal cannot be played this way before the tapper's own attempt is over); stats count it as any game; and a
guessed game number without its code starts nothing. The platforms' side: test_telegram_inline.py and
test_discord_challenge.py."""

from __future__ import annotations

import dataclasses

import pytest

from bot.app import errors
from bot.app.assembly import App
from bot.app.challenges import challenge_key
from bot.app.codec import decode, encode, game_command, invite_of, share_query, start_parameter, start_request
from bot.app.commands import (
    Actor,
    Begin,
    ChallengeDeal,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    Share,
    ShowStats,
    Surface,
)
from bot.app.effects import (
    Answer,
    ChallengeAnswered,
    EditBoard,
    OffersOf,
    Post,
    Problem,
    SendBoard,
    ShareOf,
    Tell,
)
from bot.app.model import Challenge, GameSnapshot, Offers, PlayerKey, Settings, Stats
from bot.app.outcomes import MustConfirm
from bot.i18n import SUPPORTED_LOCALES, translator
from bot.render.challenges import render_answered
from bot.render.effects import draw, line
from bot.render.endings import (
    challenge_line,
    challenge_of,
    deal_name,
    ending_lines,
    render_review,
    render_share,
)
from bot.render.game import render_game
from bot.render.offers import render_offers
from bot.render.replies import error_text
from core.game import DRAW, Game
from tests.app_helpers import act, challenge, offers
from tests.core_helpers import winning_line
from tests.test_lifecycle import DAILY_CODE, DAY, service  # noqa: F401  (the fixture: a fixed day and daily deal)
from tests.test_outbox import Recorded
from tests.test_service import ALICE, BLOCK_CODE, BOB, WIN_CODE, play

CAROL = PlayerKey("telegram", "carol")
#: A challenge key as the application signs one (any 16 base32 letters read as one).
KEY = "abcdefghijklmnop"


async def test_a_challenge_is_its_deal_compared_with_the_shared_game(service: App) -> None:  # noqa: F811
    shared = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE)
    await play(service, ALICE, shared.game_id, shared.version, [DRAW] * 23)
    alice_final = (await service.games.game(shared.game_id)).game.score

    taken = await service.starts.start(BOB, "Bob", await challenge(service, shared.game_id))
    assert str(taken.game.code) == BLOCK_CODE and taken.owner == BOB and taken.daily is None
    assert taken.challenge == Challenge(shared.game_id, "Alice", alice_final, True)
    # Bob clears what he can before drawing: a better score than Alice's draws only
    game = Game.from_code(BLOCK_CODE)
    version = taken.version
    snapshot = taken
    while not game.is_over:
        action = next((a for a in game.legal_actions() if a != DRAW and str(a).isdigit()), DRAW)
        game.push(action)
        snapshot = await act(service, BOB, "Bob", game_command(taken.game_id, version, str(action)))
        version = snapshot.version
    assert snapshot.challenge is not None and snapshot.game.is_over
    diff = snapshot.game.score - alice_final
    assert diff > 0
    tr = translator("en")
    assert f"You beat Alice's {alice_final} by {diff}" in ending_lines(snapshot, tr)
    # the review says it too
    review = await service.advice.review(BOB, taken.game_id)
    assert f"You beat Alice's {alice_final} by {diff}" in (render_review(snapshot, review, "en").status or "")
    # an ordinary game in the stats
    stats = await service.players.stats(BOB)
    assert stats == Stats(games=1, wins=0, best_score=snapshot.game.score, current_streak=0, longest_streak=0)


async def test_the_challenger_tapping_their_own_challenge_replays_it_with_nothing_to_beat(
        service: App) -> None:  # noqa: F811
    """Issue 54: Alice's own Play this deal showed "To beat: 750 (Alice)"; it replays the deal as Replay does."""
    shared = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE)
    await play(service, ALICE, shared.game_id, shared.version, [DRAW] * 23)
    again = await service.starts.start(ALICE, "Alice", await challenge(service, shared.game_id))
    assert isinstance(again, GameSnapshot)
    assert str(again.game.code) == BLOCK_CODE and again.owner == ALICE and again.challenge is None
    assert again.game_id != shared.game_id and again.game.moves == 0
    assert "To beat" not in render_game(again, "en", Settings()).header


async def test_a_guessed_game_number_without_its_key_starts_nothing(service: App) -> None:  # noqa: F811
    shared = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    signed = await challenge(service, shared.game_id)
    for guessed in (ChallengeDeal(shared.game_id, KEY), ChallengeDeal(shared.game_id, None),
                    ChallengeDeal(shared.game_id + 1000, signed.key),  # no such game: the same answer
                    ChallengeDeal(shared.game_id, WIN_CODE), ChallengeDeal(shared.game_id, BLOCK_CODE)):
        with pytest.raises(errors.NotYourGame):
            await service.starts.start(BOB, "Bob", guessed)
    assert await service.games.current_game(BOB) is None


async def test_a_challenge_asks_before_abandoning_a_game_with_moves(service: App) -> None:  # noqa: F811
    shared = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    own = await service.starts.new_game(BOB, "Bob", code=BLOCK_CODE)
    await play(service, BOB, own.game_id, own.version, [DRAW])
    request = await challenge(service, shared.game_id)
    asked = await service.starts.start(BOB, "Bob", request, ask=True)
    assert isinstance(asked, MustConfirm)
    assert asked.current.game_id == own.game_id and asked.request == request
    taken = await service.starts.start(BOB, "Bob", ConfirmStart(own.game_id, request), ask=True)
    assert taken.challenge is not None and taken.challenge.game_id == shared.game_id
    # Alice is still playing: the comparison says so at Bob's end
    await play(service, BOB, taken.game_id, taken.version, winning_line(WIN_CODE))
    done = await service.games.game(taken.game_id)
    assert done.challenge == Challenge(shared.game_id, "Alice", 500, False)
    assert "Alice is still playing this deal: 500 so far" in ending_lines(done, translator("en"))


async def test_a_challenge_of_a_daily_attempt_still_being_played_shows_no_running_score(
        service: App) -> None:  # noqa: F811
    """Bob's attempt is over; a link naming Carol's attempt (ids are sequential), which she is still playing,
    starts nothing and answers as for any game that is not his: her running score is hers."""
    bobs = await service.starts.new_daily_game(BOB, "Bob")
    await play(service, BOB, bobs.game_id, bobs.version, winning_line(DAILY_CODE))
    carol = PlayerKey("telegram", "carol")
    carols = await service.starts.new_daily_game(carol, "Carol")
    await play(service, carol, carols.game_id, carols.version, [DRAW])
    with pytest.raises(errors.NotYourGame) as refused:
        await service.starts.start(BOB, "Bob", ChallengeDeal(carols.game_id, None))
    assert "Carol" not in str(refused.value)
    assert (await service.games.current_game(BOB)) is None


async def test_a_daily_challenge_waits_for_the_tappers_own_attempt(service: App) -> None:  # noqa: F811
    attempt = await service.starts.new_daily_game(ALICE, "Alice", community="g1")
    await play(service, ALICE, attempt.game_id, attempt.version, winning_line(DAILY_CODE))
    finished = await service.challenges.signed(await service.games.game(attempt.game_id))
    challenge = challenge_of(finished)
    assert challenge is not None and challenge.key is not None and DAILY_CODE[6:] not in challenge.key
    assert challenge == ChallengeDeal(attempt.game_id, challenge_key(attempt.game_id,
                                                                     await service.daily_codes.secret()))
    for request in (challenge, start_request(f"x{attempt.game_id}_{DAILY_CODE}")):  # nor does an old link's code
        with pytest.raises(errors.DailyCodeLocked) as locked:
            await service.starts.start(BOB, "Bob", request)
        assert locked.value.day == DAY
    assert await service.games.current_game(BOB) is None
    # with Bob's attempt started and not over, still locked; once it is over, the challenge is a practice game
    bobs = await service.starts.new_daily_game(BOB, "Bob", community="g1")
    with pytest.raises(errors.DailyCodeLocked) as locked:
        await service.starts.start(BOB, "Bob", challenge)
    # Bob saw a shared result, no code: he is told so, not "That code is the daily deal…" (issue 54)
    told = error_text(locked.value, "en", "/tripeaks")
    assert locked.value.shared and "code" not in told and told.startswith("This is the daily deal of ")
    await play(service, BOB, bobs.game_id, bobs.version, winning_line(DAILY_CODE))
    taken = await service.starts.start(BOB, "Bob", challenge)
    assert taken.daily is None and taken.challenge is not None and taken.challenge.name == "Alice"


async def test_the_offers_are_the_latest_game_a_winnable_deal_and_today(service: App) -> None:  # noqa: F811
    empty = await offers(service, BOB)
    assert empty.latest is None and empty.day == DAY
    assert empty.fresh is not None  # the stand-in solver proves every seventh deal
    started = await service.starts.new_game(BOB, "Bob", code=WIN_CODE)
    offered = await offers(service, BOB)
    assert offered.latest is not None and offered.latest.game_id == started.game_id


# --- payloads and texts -------------------------------------------------------------------------------------------


def test_a_challenge_fits_a_button_and_a_start_link() -> None:
    challenge = ChallengeDeal(10**18 - 1, KEY)  # the longest game number a payload carries
    for command in (Begin(challenge), ConfirmStart(10**18 - 1, challenge)):
        payload = encode(command)
        assert decode(payload) == command and len(payload.encode()) <= 64
    parameter = start_parameter(challenge)
    assert start_request(parameter) == challenge and len(parameter) <= 64
    daily = ChallengeDeal(10**18 - 1, None)
    assert decode(encode(Begin(daily))) == Begin(daily) and start_request(start_parameter(daily)) == daily
    assert start_request("TP1-E-AAAAAAB") == DealByCode("TP1-E-AAAAAAB")
    assert start_request(start_parameter(DailyDeal())) == DailyDeal()
    # a link or button made before challenges had keys carried the code: it deals the code, challenging nobody
    assert start_request("x42_TP1-C-ZZZZZZZ") == DealByCode("TP1-C-ZZZZZZZ")
    assert decode("tp:b:x:42:TP1-C-ZZZZZZZ") == Begin(DealByCode("TP1-C-ZZZZZZZ"))
    for tampered in ("tp:b:x:1:TP1-E-", "tp:b:x::TP1-E-AAAAAAB", "tp:b:x:1"):
        with pytest.raises(errors.BadPayload):
            decode(tampered)


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_the_comparison_and_the_invitations_speak_every_language(locale: str) -> None:
    from bot.app.model import GameSnapshot

    game = Game.from_code(BLOCK_CODE)
    for _ in range(23):
        game.push(DRAW)
    tr = translator(locale)
    lines = set()
    for theirs, finished in ((game.score - 12, True), (game.score + 12, True), (game.score, True), (10, False)):
        snapshot = GameSnapshot(9, 23, BOB, "Bob", game, challenge=Challenge(3, "Alice", theirs, finished))
        line = challenge_line(snapshot, tr)
        assert line is not None and "Alice" in line and str(theirs) in line
        lines.add(line)
    assert len(lines) == 4
    shared = GameSnapshot(3, 23, ALICE, "Alice", game, challenge_key=KEY)
    offers = render_offers(Offers(shared, Game.from_code(WIN_CODE).code, DAY), locale,
                           lambda request: f"https://t.me/b?start={start_parameter(request)}")
    assert [offer.key for offer in offers] == ["challenge-3", f"fresh-{WIN_CODE}", f"daily-{DAY.isoformat()}"]
    daily = offers[-1]
    # the daily invitation gives no card away: no code in it, only a link that names no deal
    assert "TP1-" not in daily.message.status + daily.message.header + daily.title + daily.description
    assert [button.url for row in daily.message.buttons for button in row] == ["https://t.me/b?start=daily"]
    # the challenge goes by reference: its link, title, description and message name no code
    assert [button.url for row in offers[0].message.buttons for button in row] == [f"https://t.me/b?start=x3_{KEY}"]
    challenge = offers[0]
    assert BLOCK_CODE not in challenge.message.status + challenge.message.header + challenge.title + \
        challenge.description
    # Discord's share card: a Play this deal button that starts the challenge for whoever taps it
    card = render_share(shared, locale, replay="/tripeaks new", challenge=True)
    assert [button.command for row in card.buttons for button in row] == [Begin(ChallengeDeal(3, KEY))]
    assert BLOCK_CODE not in (card.status or "")


# --- by reference, the score to beat, the challenger told (issue 44) ---------------------------------------------


async def test_a_challenge_goes_by_reference_and_shows_the_score_to_beat(service: App) -> None:  # noqa: F811
    """The shared result, its link and the tapper's board name no code (``tripeaks solve`` gets nothing to play
    offline); the key is the game's, so another game's number with it starts nothing; the tapper's board shows the
    score to beat, and the code once the game is over."""
    shared = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE, chat_id="alice-chat")
    await play(service, ALICE, shared.game_id, shared.version, [DRAW] * 23)
    (post,) = await service.flow.handle(Actor(ALICE, "Alice"), Share(shared.game_id))
    assert isinstance(post, Post) and isinstance(post.content, ShareOf)
    card = render_share(post.content.snapshot, "en", replay=None, challenge=True)
    (challenge,) = [button.command.request for row in card.buttons for button in row
                    if isinstance(button.command, Begin)]
    assert isinstance(challenge, ChallengeDeal) and challenge.game_id == shared.game_id
    assert BLOCK_CODE not in f"{card.header}\n{card.status}\n{start_parameter(challenge)}\n{encode(Begin(challenge))}"
    assert card.status is not None and card.status.startswith("TriPeaks: score 477")

    other = await service.starts.new_game(BOB, "Bob", code=WIN_CODE)
    with pytest.raises(errors.NotYourGame):  # Alice's key does not open Bob's game
        await service.starts.start(CAROL, "Carol", ChallengeDeal(other.game_id, challenge.key))

    taken = await service.starts.start(CAROL, "Carol", challenge)
    assert taken.code_hidden and taken.challenge == Challenge(shared.game_id, "Alice", 477, True)
    header = render_game(taken, "en", taken.settings).header
    assert "To beat: 477 (Alice)" in header and BLOCK_CODE not in header
    assert deal_name(taken, translator("en")) == "Alice's challenge"
    version = await play(service, CAROL, taken.game_id, taken.version, [DRAW] * 23)
    done = await service.games.game(taken.game_id)
    assert done.version == version and done.game.is_over and "To beat" not in render_game(done, "en",
                                                                                          done.settings).header


async def test_an_old_link_with_a_code_deals_the_code_and_opens_nobodys_game(service: App) -> None:  # noqa: F811
    """Links made before challenges had keys carried the game's code: they still deal it, as a game of its own
    that remembers no one (a common code, as the README's, must not show a stranger's game in progress)."""
    shared = await service.starts.new_game(ALICE, "Alice", code=WIN_CODE)
    await play(service, ALICE, shared.game_id, shared.version, winning_line(WIN_CODE)[:3])
    for parameter in (f"x{shared.game_id}_{WIN_CODE}", f"x{shared.game_id + 7}_{WIN_CODE}"):
        taken = await service.starts.start(BOB, "Bob", start_request(parameter))
        assert str(taken.game.code) == WIN_CODE and taken.challenge is None and taken.owner == BOB
        header = render_game(taken, "en", taken.settings).header
        assert "Alice" not in header and "To beat" not in header


async def test_a_guessed_id_of_a_finished_daily_game_answers_as_a_missing_one_and_tells_nobody(
        service: App) -> None:  # noqa: F811
    """``/start x<id>_daily``, the form of links before challenges had keys: Alice's finished attempt is not
    opened, her name and score are shown to nobody, and she is told nothing when the tapper's game ends."""
    attempt = await service.starts.new_daily_game(ALICE, "Alice", chat_id="alice-chat")
    await play(service, ALICE, attempt.game_id, attempt.version, winning_line(DAILY_CODE))
    bobs = await service.starts.new_daily_game(BOB, "Bob")
    await play(service, BOB, bobs.game_id, bobs.version, winning_line(DAILY_CODE))
    bob = Actor(BOB, "Free Stars at t.me/scam_example", chat_id="bob-chat")
    answers = []
    for game_id in (attempt.game_id, attempt.game_id + 1000):  # Alice's finished daily, and no game at all
        (effect,) = await service.flow.handle(bob, Begin(start_request(f"x{game_id}_daily")))
        assert isinstance(effect, Answer) and isinstance(effect.content, Problem)
        answers.append(line(effect.content, "en", "/tripeaks"))
    assert answers[0] == answers[1]
    assert "Alice" not in str(answers[0]) and "Alice" not in str(await service.games.current_game(BOB))


async def tells_delivered(service: App) -> list[Tell]:  # noqa: F811
    """What the outbox delivers now to tell challengers (their platform's executor recorded)."""
    chat = Recorded()
    await service.outbox.deliver({"telegram": chat, "discord": chat, "console": chat})
    return chat.told


async def test_the_challenger_is_told_the_outcome_once_in_their_chat(service: App) -> None:  # noqa: F811
    shared = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE, chat_id="alice-chat")
    await play(service, ALICE, shared.game_id, shared.version, [DRAW] * 23)
    signed = await service.challenges.signed(await service.games.game(shared.game_id))
    challenge = challenge_of(signed)
    assert challenge is not None
    bob = Actor(BOB, "Bob", chat_id="bob-chat")
    (sent,) = await service.flow.handle(bob, Begin(challenge))
    assert isinstance(sent, SendBoard)
    taken = sent.snapshot
    game = Game.from_code(BLOCK_CODE)
    told: list[Tell] = []
    version = taken.version
    while not game.is_over:  # Bob clears what he can before drawing: he beats Alice's draws only
        action = next((a for a in game.legal_actions() if a != DRAW and str(a).isdigit()), DRAW)
        game.push(action)
        effects = await service.flow.handle(bob, game_command(taken.game_id, version, str(action)))
        (board,) = [effect for effect in effects if isinstance(effect, EditBoard)]
        version = board.snapshot.version
    told += await tells_delivered(service)
    (tell,) = told
    assert tell.chat_id == "alice-chat" and isinstance(tell.content, ChallengeAnswered)
    assert tell.content.shared.owner == ALICE and tell.content.answer.owner == BOB
    view = draw(tell.content, "en")
    assert view.header == "You vs Bob"  # told to Alice: headed by who took it up
    diff = game.score - 477
    assert f"Bob's {game.score} beats yours by {diff}" in (view.status or "")
    # an undo out of the block and a second block tell nothing more, in any process: the mark is in the database
    effects = await service.flow.handle(bob, game_command(taken.game_id, version, "u"))
    (board,) = [effect for effect in effects if isinstance(effect, EditBoard)]
    effects = await service.flow.handle(bob, game_command(taken.game_id, board.snapshot.version, str(action)))
    assert [effect for effect in effects if isinstance(effect, EditBoard)][0].snapshot.game.is_over
    assert await tells_delivered(service) == []


async def test_the_locale_a_player_was_last_seen_with_is_written_only_when_it_changes(
        service: App, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A challenger who chose no language is told in their platform's locale as last seen (the chats' side:
    test_telegram_inline.py, test_discord_challenge.py): stored when it changes, not on every tap, and not again by
    another process that finds it stored."""
    from bot.app.players import Players
    from bot.store import players as stored_players

    writes: list[str] = []
    write = stored_players.seen_with

    async def counted(tx: object, platform: str, user_id: str, locale: str) -> None:
        writes.append(locale)
        await write(tx, platform, user_id, locale)  # type: ignore[arg-type]

    monkeypatch.setattr(stored_players, "seen_with", counted)
    shared = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE, chat_id="alice-chat")
    alice = Actor(ALICE, "Alice", chat_id="alice-chat")
    version = shared.version
    for locale in ("ru", "ru", "ru", None, "ru"):  # taps in Russian (None: the platform gave no locale)
        effects = await service.flow.handle(alice, game_command(shared.game_id, version, "d"),
                                            Surface(platform="telegram", platform_locale=locale))
        version = next(e.snapshot.version for e in effects if isinstance(e, EditBoard))
    assert writes == ["ru"]
    await service.flow.handle(alice, ShowStats(), Surface(platform="telegram", platform_locale="en"))
    await Players(service.db).seen(ALICE, "en")  # another process, which finds it stored
    assert writes == ["ru", "en"]
    challenge = challenge_of(await service.challenges.signed(await service.games.game(shared.game_id)))
    assert challenge is not None
    bob = Actor(BOB, "Bob", chat_id="bob-chat")
    (sent,) = await service.flow.handle(bob, Begin(challenge), Surface(platform="telegram", platform_locale="ja"))
    taken, over = sent.snapshot, False  # type: ignore[attr-defined]
    version = taken.version
    while not over:  # Bob draws to the end
        effects = await service.flow.handle(bob, game_command(taken.game_id, version, "d"))
        board = next(e.snapshot for e in effects if isinstance(e, EditBoard))
        version, over = board.version, board.game.is_over
    told = await tells_delivered(service)
    assert isinstance(told[0].content, ChallengeAnswered) and told[0].content.seen_locale == "en"


async def test_a_locale_another_process_stored_is_seen_within_a_few_minutes(service: App) -> None:  # noqa: F811
    """Two processes serve Alice while her app changes language and back: the first, which wrote Russian, trusts
    that for a few minutes only, then finds English stored and writes Russian again."""
    from bot.app.players import SEEN_FRESH, Players
    from bot.store import players as stored_players

    await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE, chat_id="alice-chat")
    now = [0.0]
    first, second = Players(service.db, clock=lambda: now[0]), Players(service.db)

    async def stored() -> str | None:
        async with service.db.reading() as tx:
            return (await stored_players.seen_locale(tx, ALICE.platform, ALICE.user_id))[1]

    await first.seen(ALICE, "ru")
    await second.seen(ALICE, "en")
    await first.seen(ALICE, "ru")  # within the minutes it trusts: nothing read
    assert await stored() == "en"
    now[0] += SEEN_FRESH
    await first.seen(ALICE, "ru")
    assert await stored() == "ru"


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_the_challenger_hears_it_in_every_language(locale: str) -> None:
    from bot.app.model import GameSnapshot

    drawn = Game.from_code(BLOCK_CODE)
    for _ in range(23):
        drawn.push(DRAW)
    shared = GameSnapshot(3, 23, ALICE, "Alice", drawn)
    answer = GameSnapshot(9, 23, BOB, "Bob", drawn, challenge=Challenge(3, "Alice", drawn.score, True))
    lines = set()
    for mine in (drawn, Game.from_code(BLOCK_CODE)):  # Alice's game over (a tie), and still being played
        view = render_answered(dataclasses.replace(shared, game=mine), answer, locale)
        # headed by who took it up, never by Alice's own name (issue 54)
        assert "Alice" not in view.header and "Bob" in view.header, view.header
        assert "Bob" in (view.status or "") and str(drawn.score) in (view.status or "")
        lines.add(view.status)
    assert len(lines) == 2
    header = render_game(dataclasses.replace(answer, game=Game.from_code(BLOCK_CODE)), locale, Settings()).header
    assert str(drawn.score) in header and "Alice" in header


async def test_share_shares_the_game_of_the_board_it_is_on_lost_games_too(service: App) -> None:  # noqa: F811
    """After a finished daily and a New game, Share on the daily's board (by a post, or Telegram's inline mode
    opened with that board's game) shares the daily result, not the new untouched deal; a lost game shares too."""
    alice = Actor(ALICE, "Alice")
    attempt = await service.starts.new_daily_game(ALICE, "Alice")
    await play(service, ALICE, attempt.game_id, attempt.version, winning_line(DAILY_CODE))
    newer = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE)
    old_board = render_game(await service.games.game(attempt.game_id), "en", Settings())
    assert Share(attempt.game_id) in [button.command for button in old_board.all_buttons()]
    (post,) = await service.flow.handle(alice, Share(attempt.game_id))
    assert isinstance(post, Post) and isinstance(post.content, ShareOf)
    assert post.content.snapshot.game_id == attempt.game_id and post.content.snapshot.daily == DAY
    (answer,) = await service.flow.handle(alice, invite_of(share_query(attempt.game_id)))
    assert isinstance(answer, Answer) and isinstance(answer.content, OffersOf)
    latest = answer.content.offers.latest
    assert latest is not None and latest.game_id == attempt.game_id and latest.challenge_key is not None
    # the new game, lost: Share on its board
    await play(service, ALICE, newer.game_id, newer.version, [DRAW] * 23)
    lost = await service.games.game(newer.game_id)
    assert lost.game.is_over and Share(newer.game_id) in [b.command for b in render_game(
        lost, "en", Settings()).all_buttons()]
    (post,) = await service.flow.handle(alice, Share(newer.game_id))
    assert isinstance(post, Post) and isinstance(post.content, ShareOf) and post.content.snapshot.game_id == newer.game_id


async def test_a_player_who_takes_their_own_challenge_is_told_nothing(service: App) -> None:  # noqa: F811
    shared = await service.starts.new_game(ALICE, "Alice", code=BLOCK_CODE, chat_id="alice-chat")
    await play(service, ALICE, shared.game_id, shared.version, [DRAW] * 23)
    challenge = challenge_of(await service.challenges.signed(await service.games.game(shared.game_id)))
    assert challenge is not None
    alice = Actor(ALICE, "Alice", chat_id="alice-chat")
    (sent,) = await service.flow.handle(alice, Begin(challenge))
    assert isinstance(sent, SendBoard)
    version, effects = sent.snapshot.version, []
    for _ in range(23):
        effects = await service.flow.handle(alice, game_command(sent.snapshot.game_id, version, "d"))
        (board,) = [effect for effect in effects if isinstance(effect, EditBoard)]
        version = board.snapshot.version
    assert board.snapshot.game.is_over and await tells_delivered(service) == []

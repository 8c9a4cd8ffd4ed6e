"""The table's server as a player's browser meets it (issue 42): who may play (a Mini App's initData checked as
Telegram specifies, the table's signed links, the console's one-time link), one player never acting on another's
game, the same rules as the chats (the daily attempt without Undo, a hint counted), and answers that carry only
what the player may see."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.web.auth import LINK_LIFETIME, Signer, Unauthorised, WebUser, sign_init_data, telegram_user
from bot.adapters.web.screens import respond
from bot.adapters.web.server import TableServer
from bot.app.assembly import App
from bot.app.effects import EditBoard
from bot.app.model import GameSnapshot, Hint, PlayerKey
from core.deal import Deal
from core.game import Game, Tap
from tests.test_picture import hidden_shuffled, positions
from tests.web_harness import TOKEN, init_data, init_data_header

ANN = PlayerKey("telegram", "7")
BOB = PlayerKey("telegram", "8")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def client(service: App, clock: Clock) -> AsyncIterator[TestClient[Any, Any]]:
    server = TableServer(service.flow, Signer(b"s" * 32, clock), telegram_token=TOKEN)
    async with TestClient(TestServer(server.application())) as test_client:
        test_client.table = server  # type: ignore[attr-defined]
        yield test_client


tma = init_data_header


async def table(client: TestClient[Any, Any], headers: dict[str, str]) -> dict[str, Any]:
    response = await client.get("/api/table", headers=headers)
    assert response.status == 200, await response.text()
    return dict(await response.json())


async def act(client: TestClient[Any, Any], headers: dict[str, str], payload: str) -> dict[str, Any]:
    response = await client.post("/api/act", json={"payload": payload}, headers=headers)
    assert response.status == 200, await response.text()
    return dict(await response.json())


def fitting(board: dict[str, Any]) -> dict[str, Any]:
    return next(slot for slot in board["slots"] if slot.get("mark") == "fits")


def a_move(board: dict[str, Any]) -> str:
    """A card that fits, else a draw."""
    return next((slot["payload"] for slot in board["slots"] if slot.get("mark") == "fits"), board["stock"]["payload"])


async def deal(client: TestClient[Any, Any], headers: dict[str, str], code: str = "TP1-E-AAAAAAB") -> dict[str, Any]:
    """The player's new game of ``code`` (where K♣, K♥ and J♠ fit), as the page starts it."""
    await table(client, headers)
    board = (await act(client, headers, f"tp:b:c:{code}"))["board"]
    assert board is not None
    return dict(board)


# --- who may play ----------------------------------------------------------------------------------------------


async def test_a_mini_app_opens_the_players_game_in_their_language(client: TestClient[Any, Any],
                                                                    service: App) -> None:
    answer = await table(client, tma(7, language="uk"))
    assert "Рахунок: 500" in answer["board"]["header"] and answer["strings"]["lang"] == "uk"
    board = await deal(client, tma(7, language="uk"))
    current = await service.games.current_game(ANN)
    assert current is not None and current.game_id == board["game"]
    assert len(board["slots"]) == 28 and len(answer["layout"]["slots"]) == 28
    played = await act(client, tma(7), fitting(board)["payload"])
    assert played["board"]["version"] == board["version"] + 1
    assert "Score: 499" in played["board"]["header"]  # Ann's language: the platform's, English this time


async def test_the_event_stream_sends_the_game_at_once_and_asks_proxies_not_to_buffer(
        client: TestClient[Any, Any]) -> None:
    """The open table follows moves made elsewhere through a stream: its first event is the game as it stands, and
    the answer tells a buffering proxy (nginx) and any cache to pass the events on as they come."""
    board = await deal(client, tma(7))
    async with client.get("/api/events", headers=tma(7)) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        assert stream.headers["X-Accel-Buffering"] == "no" and stream.headers["Cache-Control"] == "no-store"
        first = await stream.content.readuntil(b"\n\n")
    assert first.startswith(b"data: ")
    sent = json.loads(first[len(b"data: "):])
    assert (sent["game"], sent["version"]) == (board["game"], board["version"])


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "tma "},
    {"Authorization": "tma " + init_data(7).replace("Ann", "Bob")},  # the user changed: the hash no longer fits
    {"Authorization": "tma " + init_data(7, token="654321:" + "B" * 35)},  # signed for another bot
    {"Authorization": "tma " + init_data(7, age=86_400 + 120)},  # more than a day old
    {"Authorization": "Bearer " + init_data(7)},
], ids=["missing", "empty", "tampered", "other bot", "expired", "not a session"])
async def test_missing_tampered_or_expired_init_data_is_refused_and_changes_nothing(
        client: TestClient[Any, Any], service: App, headers: dict[str, str]) -> None:
    for request in (client.get("/api/table", headers=headers),
                    client.post("/api/act", json={"payload": "tp:b:n:-:-"}, headers=headers)):
        response = await request
        assert response.status == 401
    assert await service.games.current_game(ANN) is None
    assert await service.games.current_game(BOB) is None


def test_init_data_is_checked_as_telegram_specifies() -> None:
    """The example of Telegram's documentation, worked by hand: the hash of the sorted data-check-string."""
    import hashlib
    import hmac

    fields = {"query_id": "AAHdF6IQ", "user": '{"id":279058397,"first_name":"Vladislav"}', "auth_date": "1662771648"}
    check = "auth_date=1662771648\nquery_id=AAHdF6IQ\nuser={\"id\":279058397,\"first_name\":\"Vladislav\"}"
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    signed = sign_init_data(fields, TOKEN)
    assert signed.endswith("hash=" + hmac.new(secret, check.encode(), hashlib.sha256).hexdigest())
    user = telegram_user(signed, TOKEN, now=1662771648 + 3600)
    assert user == WebUser(PlayerKey("telegram", "279058397"), "Vladislav", None)
    with pytest.raises(Unauthorised):
        telegram_user(signed, TOKEN, now=1662771648 + 86_400 + 1)


async def test_one_player_never_acts_on_anothers_game(client: TestClient[Any, Any], service: App) -> None:
    ann = await deal(client, tma(7))
    await table(client, tma(8, name="Bob"))
    for payload in (fitting(ann)["payload"], f"tp:g:{ann['game']}:{ann['version']}:d",
                    f"tp:g:{ann['game']}:{ann['version']}:h", f"tp:g:{ann['game']}:{ann['version']}:n"):
        answer = await act(client, tma(8, name="Bob"), payload)
        assert answer["board"] is None and answer["message"] is None
        assert answer["notice"] == "This is not your game; tap 🆕 to start your own"  # the table's 🆕 button
    game = await service.games.current_game(ANN)
    assert game is not None and game.version == ann["version"] and game.game.moves == 0 and game.hints_used == 0


async def test_a_signed_link_opens_a_session_for_its_user_only(client: TestClient[Any, Any], service: App,
                                                               clock: Clock) -> None:
    signer: Signer = client.table.signer  # type: ignore[attr-defined]
    carol = WebUser(PlayerKey("discord", "42"), "Carol", "de")
    link = signer.sign(carol, "link", LINK_LIFETIME)
    payload, _, signature = link.partition(".")
    forged = signer.sign(WebUser(PlayerKey("discord", "43"), "Dan"), "link", LINK_LIFETIME).partition(".")[0]
    for refused in (f"{forged}.{signature}", f"{payload}.{signature[:-2]}AA", "", payload,
                    signer.sign(carol, "session", 3600)):  # a session is no link
        response = await client.post("/api/session", json={"token": refused})
        assert response.status == 401
    response = await client.post("/api/session", json={"token": link})
    assert response.status == 200
    session = {"Authorization": f"Bearer {(await response.json())['session']}"}
    board = (await table(client, session))["board"]
    assert "Punkte: 500" in board["header"]
    current = await service.games.current_game(carol.player)
    assert current is not None and current.owner_name == "Carol"
    clock.now += LINK_LIFETIME + 1
    response = await client.post("/api/session", json={"token": link})
    assert response.status == 401  # expired


async def test_the_consoles_link_opens_one_session(client: TestClient[Any, Any]) -> None:
    server: TableServer = client.table  # type: ignore[attr-defined]
    link = server.one_time_link(WebUser(PlayerKey("console", "olena"), "olena"), "http://127.0.0.1:8080")
    token = link.partition("#token=")[2]
    assert link.startswith("http://127.0.0.1:8080/#token=")
    first = await client.post("/api/session", json={"token": token})
    assert first.status == 200
    again = await client.post("/api/session", json={"token": token})
    assert again.status == 401


# --- the same rules as the chats --------------------------------------------------------------------------------


async def test_the_daily_attempt_has_no_undo_and_a_hint_counts(client: TestClient[Any, Any]) -> None:
    start = (await table(client, tma(7)))["strings"]["starts"][0]
    assert start["label"] == "Daily deal"
    answer = await act(client, tma(7), start["payload"])
    daily = answer["board"]
    assert daily["daily"] and "Daily deal" in daily["header"] and "TP1-" not in json.dumps(answer)
    assert [b["aria"] for b in daily["buttons"]] == ["Hint", "New game"]
    played = await act(client, tma(7), a_move(daily))
    undo = f"tp:g:{daily['game']}:{played['board']['version']}:u"
    refused = await act(client, tma(7), undo)
    assert refused["board"] is None or refused["board"]["version"] == played["board"]["version"]
    hinted = (await act(client, tma(7), f"tp:g:{daily['game']}:{played['board']['version']}:h"))["board"]
    assert "Hints: 1" in hinted["header"]
    assert any(slot.get("mark") == "hint" for slot in hinted["slots"]) or hinted["stock"]["hinted"]


async def test_a_question_comes_with_its_buttons(client: TestClient[Any, Any]) -> None:
    board = await deal(client, tma(7))
    await act(client, tma(7), fitting(board)["payload"])
    new_game = next(b for b in (await table(client, tma(7)))["board"]["buttons"] if b["aria"] == "New game")
    question = (await act(client, tma(7), new_game["payload"]))["message"]
    assert question is not None and [b["style"] for b in question["buttons"]] == ["danger", "primary"]
    started = await act(client, tma(7), question["buttons"][0]["payload"])
    assert started["board"]["game"] != board["game"] and started["board"]["version"] == 0


async def test_a_bad_payload_is_refused_and_the_page_is_served(client: TestClient[Any, Any]) -> None:
    response = await client.post("/api/act", json={"payload": "rm -rf"}, headers=tma(7))
    assert response.status == 400
    page = await client.get("/")
    assert page.status == 200 and "table.js" in await page.text()
    for name in ("table.js", "table.css"):
        assert (await client.get(f"/static/{name}")).status == 200
    words = await (await client.get("/api/words?lang=fr-FR")).json()
    assert words["lang"] == "fr" and "«\u00a0Ouvrir le plateau\u00a0»" in words["refused"]


async def test_every_answer_is_guarded_against_sniffing_framing_and_foreign_scripts(
        client: TestClient[Any, Any]) -> None:
    """The page may be framed only by Discord's clients (the Activity) and Telegram's web clients (the Mini App),
    loads scripts only from itself (and Telegram's Mini App script), and no answer is sniffed as another type;
    refusals and the API too. (test_web_activity.py opens the page framed by Discord's client in a browser.)"""
    answers = [await client.get("/"), await client.get("/static/table.js"), await client.get("/api/table"),
               await client.post("/api/act", json={"payload": "rm -rf"}, headers=tma(7)),
               await client.get("/static/../../etc/passwd")]
    assert [answer.status for answer in answers[:4]] == [200, 200, 401, 400]
    for answer in answers:
        assert answer.headers["X-Content-Type-Options"] == "nosniff", answer.url
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        policy = dict(part.strip().split(" ", 1) for part in answer.headers["Content-Security-Policy"].split(";"))
        assert policy["script-src"] == "'self' https://telegram.org" and policy["object-src"] == "'none'"
        ancestors = policy["frame-ancestors"].split()
        assert "*" not in ancestors and {"https://discord.com", "https://web.telegram.org"} <= set(ancestors)
        assert all(origin == "'self'" or origin.startswith("https://") for origin in ancestors)


# --- only what the player may see ---------------------------------------------------------------------------------


def body_of(game: Game, hint: Hint | None) -> bytes:
    """The body ``/api/act`` answers with the board of ``game``."""
    return json.dumps(respond([EditBoard(GameSnapshot(1, 3, ANN, "Ann", game, hint=hint))], "en")).encode()


def test_the_answer_reveals_nothing_hidden() -> None:
    """Positions that differ only in the face-down and undrawn cards give the same response bytes (the body
    ``/api/act`` answers a tap with), hints included."""
    rng = random.Random(42)
    checked = 0
    for game, hinted in positions(4):
        if isinstance(hinted, Tap) and not game.is_face_up(hinted.slot):
            continue
        custom = Game.replay(Deal.from_cards([*game.deal.tableau, game.deal.waste, *game.deal.stock]), game.rules,
                             game.actions())
        hint = Hint(hinted, None, None, 0.5) if hinted is not None else None
        shown = body_of(custom, hint)
        for _ in range(2):
            assert body_of(hidden_shuffled(custom, rng), hint) == shown
            checked += 1
    assert checked > 200


async def test_a_blocked_game_says_so(client: TestClient[Any, Any]) -> None:
    """Played greedily until no card fits and the stock is empty: the board says so and offers Undo."""
    board = await deal(client, tma(7), "TP1-C-AAAAAAA")
    while not board["over"]:
        board = (await act(client, tma(7), a_move(board)))["board"]
    assert "No more possible moves" in board["status"] and board["stock"]["left"] == 0
    assert [b["aria"] for b in board["buttons"]][0] == "Undo"


# --- the settings -------------------------------------------------------------------------------------------------


def test_the_tables_settings_are_checked_with_one_line_each() -> None:
    from bot.config import ConfigError, load_config

    config = load_config({"PUBLIC_URL": "https://tripeaks.example.org/", "WEB_PORT": "8099",
                          "TELEGRAM_MINI_APP": "table", "WEB_SECRET": "s" * 16})
    assert (config.public_url, config.web_port, config.web_host, config.telegram_mini_app) == (
        "https://tripeaks.example.org", 8099, "127.0.0.1", "table")
    assert load_config({}).public_url is None and not load_config({}).web_port_set
    for env, says in (({"PUBLIC_URL": "tripeaks.example.org"}, "PUBLIC_URL"), ({"WEB_PORT": "80000"}, "WEB_PORT"),
                      ({"TELEGRAM_MINI_APP": "a b"}, "TELEGRAM_MINI_APP"), ({"WEB_SECRET": "short"}, "WEB_SECRET"),
                      ({"DISCORD_CLIENT_ID": "1234"}, "DISCORD_CLIENT_ID"),
                      ({"DISCORD_CLIENT_ID": "app", "DISCORD_CLIENT_SECRET": "s"}, "DISCORD_CLIENT_ID"),
                      ({"DISCORD_API_URL": "discord.com"}, "DISCORD_API_URL")):
        with pytest.raises(ConfigError) as refused:
            load_config(env)
        assert str(refused.value).startswith(says) and "\n" not in str(refused.value)


# --- the console's link -------------------------------------------------------------------------------------------


async def test_the_console_prints_a_one_time_link_to_its_players_game(service: App) -> None:
    import io
    import socket

    import aiohttp

    from bot.adapters.console import console_player
    from bot.adapters.web.running import start_console_table
    from bot.config import load_config

    taken = socket.create_server(("127.0.0.1", 0))  # WEB_PORT taken by something else: any free port instead
    out = io.StringIO()
    player, name = console_player("olena")
    config = load_config({"WEB_PORT": str(taken.getsockname()[1])})
    server = await start_console_table(service.flow, config, player, name, out)
    try:
        printed = out.getvalue()
        assert printed.startswith(f"Play in your browser: http://127.0.0.1:{server.port}/#token=")
        assert server.port != taken.getsockname()[1]
        token = printed.strip().partition("#token=")[2]
        async with aiohttp.ClientSession(f"http://127.0.0.1:{server.port}") as session:
            async with session.post("/api/session", json={"token": token}) as response:
                session_token = (await response.json())["session"]
            async with session.get("/api/table", headers={"Authorization": f"Bearer {session_token}"}) as response:
                board = (await response.json())["board"]
            async with session.post("/api/session", json={"token": token}) as again:
                assert again.status == 401
        current = await service.games.current_game(PlayerKey("console", "olena"))
        assert current is not None and current.game_id == board["game"]
    finally:
        await server.stop()
        taken.close()


# --- a Discord Activity -----------------------------------------------------------------------------------------


async def test_a_discord_activitys_code_is_exchanged_for_its_players_session(service: App) -> None:
    from aiohttp import web

    from bot.adapters.web.discord_auth import DiscordOAuth

    asked: list[dict[str, str]] = []

    async def token(request: web.Request) -> web.Response:
        form = dict(await request.post())
        asked.append({key: str(value) for key, value in form.items()})
        if form.get("code") != "good" or form.get("client_secret") != "the secret":
            return web.json_response({"error": "invalid_grant"}, status=400)
        return web.json_response({"access_token": "access-42", "token_type": "Bearer"})

    async def me(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != "Bearer access-42":
            return web.json_response({"message": "401: Unauthorized"}, status=401)
        return web.json_response({"id": "4242", "username": "carol", "global_name": "Carol", "locale": "fr"})

    api = web.Application()
    api.router.add_post("/api/v10/oauth2/token", token)
    api.router.add_get("/api/v10/users/@me", me)
    async with TestServer(api) as discord_api:
        oauth = DiscordOAuth("1234", "the secret", str(discord_api.make_url("/api/v10")))
        server = TableServer(service.flow, Signer(b"s" * 32), discord=oauth)
        async with TestClient(TestServer(server.application())) as client:
            assert (await (await client.get("/api/discord")).json()) == {"client_id": "1234"}
            refused = await client.post("/api/discord/session", json={"code": "forged"})
            assert refused.status == 401
            answer = await (await client.post("/api/discord/session", json={"code": "good"})).json()
            assert answer["access_token"] == "access-42"
            board = await table(client, {"Authorization": f"Bearer {answer['session']}"})
    assert asked[-1] == {"client_id": "1234", "client_secret": "the secret", "grant_type": "authorization_code",
                         "code": "good"}
    assert "Coups\u00a0: 0" in board["board"]["header"]  # in Carol's language, as Discord says it
    current = await service.games.current_game(PlayerKey("discord", "4242"))
    assert current is not None and current.owner_name == "Carol" and current.game_id == board["board"]["game"]


async def test_a_flood_of_forged_sign_in_codes_reaches_discord_at_a_bounded_rate(service: App) -> None:
    """Sign-ins are anonymous: 300 forged codes at once are forwarded to Discord only as far as the allowance goes
    (the rest answered 429 at once), junk that is no code not at all, and a second later there is room again."""
    from aiohttp import web

    from bot.adapters.web.discord_auth import SIGN_IN_BURST, SIGN_IN_RATE, DiscordOAuth, SignIns

    asked: list[str] = []

    async def token(request: web.Request) -> web.Response:
        asked.append(str((await request.post()).get("code")))
        return web.json_response({"error": "invalid_grant"}, status=400)

    now = [100.0]
    api = web.Application()
    api.router.add_post("/api/v10/oauth2/token", token)
    async with TestServer(api) as discord_api:
        oauth = DiscordOAuth("1234", "the secret", str(discord_api.make_url("/api/v10")))
        server = TableServer(service.flow, Signer(b"s" * 32), discord=oauth, sign_ins=SignIns(lambda: now[0]))
        async with TestClient(TestServer(server.application())) as client:
            junk = [await client.post("/api/discord/session", json={"code": code})
                    for code in ("", "x" * 65, "a b", "<script>", "../../etc")]
            assert [answer.status for answer in junk] == [429] * 5 and asked == []
            statuses = [(await client.post("/api/discord/session", json={"code": f"forged{n}"})).status
                        for n in range(300)]
            assert statuses.count(401) == SIGN_IN_BURST and statuses.count(429) == 300 - SIGN_IN_BURST
            assert len(asked) == SIGN_IN_BURST
            now[0] += 1.0
            again = [(await client.post("/api/discord/session", json={"code": f"later{n}"})).status for n in range(20)]
            assert again.count(401) == int(SIGN_IN_RATE) and len(asked) == SIGN_IN_BURST + int(SIGN_IN_RATE)


async def test_without_a_discord_client_there_is_no_activity(client: TestClient[Any, Any]) -> None:
    assert (await client.get("/api/discord")).status == 404
    assert (await client.post("/api/discord/session", json={"code": "good"})).status == 404


def test_the_board_buttons_label_fits_a_phones_row_in_every_language() -> None:
    from bot.i18n import SUPPORTED_LOCALES
    from bot.render.table_button import open_table_label
    from bot.render.view import label_width

    assert all(label_width(open_table_label(locale)) <= 20 for locale in SUPPORTED_LOCALES)


async def test_a_challenge_ended_at_the_table_tells_the_challenger_in_their_chat(
        service: App, client: TestClient[Any, Any]) -> None:
    """One game everywhere: a game from a challenge played to its end at the table tells its challenger, once, in
    the chat of their game, as the chats do; the moves at the table redraw the chat's board once, as the game
    stands (both through the outbox)."""
    from bot.app.commands import Actor, Begin
    from bot.app.effects import ChallengeAnswered
    from bot.render.endings import challenge_of
    from core.game import DRAW
    from tests.test_outbox import Recorded
    from tests.test_service import BLOCK_CODE, play

    shared = await service.starts.new_game(ANN, "Ann", code=BLOCK_CODE, chat_id="ann-chat")
    await play(service, ANN, shared.game_id, shared.version, [DRAW] * 23)
    challenge = challenge_of(await service.challenges.signed(await service.games.game(shared.game_id)))
    assert challenge is not None
    await service.flow.handle(Actor(BOB, "Bob", chat_id="bob-chat"), Begin(challenge))
    headers = tma(int(BOB.user_id), name="Bob")
    board = (await table(client, headers))["board"]
    while not board["over"]:
        board = (await act(client, headers, f"tp:g:{board['game']}:{board['version']}:d"))["board"]
    chat = Recorded()
    assert await service.outbox.deliver({"telegram": chat}) == 2  # (a process running Telegram delivers them)
    assert chat.redrawn == [(board["game"], board["version"], "en")]
    (tell,) = chat.told
    assert tell.chat_id == "ann-chat" and isinstance(tell.content, ChallengeAnswered)
    assert tell.content.answer.owner == BOB


async def test_a_blocked_account_is_refused_at_the_table_before_anything_is_read(
        client: TestClient[Any, Any], service: App) -> None:
    """Every request of an account the owner blocked: 403 with the one line in its language, nothing stored."""
    board = await deal(client, tma(7))
    await service.owners.block(ANN, True)
    for method, path, body in (("GET", "/api/table", None), ("POST", "/api/act", {"payload": a_move(board)}),
                               ("GET", "/api/events", None), ("GET", "/api/round?id=1", None)):
        response = await client.request(method, path, json=body, headers=tma(7, language="de"))
        assert (response.status, await response.text()) == (403, "Dieser Bot steht dir nicht zur Verfügung."), path
        assert response.headers["X-Refused"] == "blocked"  # the page shows the line itself
    assert (await service.games.game(board["game"])).version == board["version"]  # the game as it was
    await service.owners.block(ANN, False)
    assert (await table(client, tma(7)))["board"]["game"] == board["game"]


async def test_the_owners_notice_is_on_the_tables_board(client: TestClient[Any, Any], service: App) -> None:
    await service.owners.set_notice("Back at 18:00 UTC")
    board = await deal(client, tma(7, language="uk"))
    assert board["status"].endswith("📢 Оголошення від власника бота: Back at 18:00 UTC")
    await service.owners.set_notice(None)
    assert "Back at" not in ((await table(client, tma(7)))["board"]["status"] or "")

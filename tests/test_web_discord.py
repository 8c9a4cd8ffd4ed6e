"""The board in the browser from Discord, end to end (the real bot on SimCord): where Activities are not enabled,
``/tripeaks board`` answers privately with a link for the player alone (signed, short-lived), which opens their
game at the table's server and nobody else's; without PUBLIC_URL there is no such command."""

# ruff: noqa: F811 - the fixture imported from test_discord_e2e is named as a parameter
from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.web.auth import LINK_LIFETIME, Unauthorised, WebUser
from bot.adapters.web.links import table_signer
from bot.adapters.web.server import TableServer
from bot.app.assembly import App
from bot.app.effects import PlayerKey
from bot.config import Config
from tests.discord_harness import buttons_of, slash
from tests.test_discord_e2e import game_service, table  # noqa: F401 - the fixture is used by name

pytestmark = pytest.mark.timeout(120)

PUBLIC_URL = "https://tripeaks.example.org"
SECRET = "a web secret of enough length"


@dataclasses.dataclass
class AtTable:
    """A player at the table's API with their session."""

    client: TestClient[Any, Any]
    headers: dict[str, str]

    async def board(self) -> dict[str, Any]:
        return dict((await (await self.client.get("/api/table", headers=self.headers)).json())["board"])

    async def act(self, payload: str) -> dict[str, Any]:
        answer = await self.client.post("/api/act", headers=self.headers, json={"payload": payload})
        assert answer.status == 200
        return dict(await answer.json())


@contextlib.asynccontextmanager
async def alice_at_the_table(t: Any, service: App) -> AsyncIterator[AtTable]:
    """Alice at the table, through the link ``/tripeaks board`` gave her; its server stopped on leaving."""
    response, _ = await slash(t.env, t.alice, t.channel, "tripeaks board")
    (link,) = [b for b in buttons_of(response) if "url" in b]
    server = TableServer(service.flow, table_signer(Config(public_url=PUBLIC_URL, web_secret=SECRET)))
    async with TestClient(TestServer(server.application())) as client:
        token = link["url"].partition("#token=")[2]
        session = await (await client.post("/api/session", json={"token": token})).json()
        yield AtTable(client, {"Authorization": f"Bearer {session['session']}"})
        await server.stop()


async def test_the_board_command_gives_a_private_link_for_the_player_alone(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch, public_url=PUBLIC_URL, web_secret=SECRET) as t:
        response, sent = await slash(t.env, t.alice, t.channel, "tripeaks board")
        assert sent.ephemeral
        (link,) = [b for b in buttons_of(response) if "url" in b]
        assert link["label"] == "Open the board" and link["url"].startswith(f"{PUBLIC_URL}/#token=")
        token = link["url"].partition("#token=")[2]
        alice = PlayerKey("discord", str(t.alice.id))
        config = Config(public_url=PUBLIC_URL, web_secret=SECRET)
        assert table_signer(config).read(token, "link").player == alice
        with pytest.raises(Unauthorised):  # another deployment's secret
            table_signer(Config(public_url=PUBLIC_URL, web_secret="another secret, long enough")).read(token, "link")
        # the table's server, with the same secret, opens Alice's game for this link and no one else's
        server = TableServer(game_service.flow, table_signer(config))
        async with TestClient(TestServer(server.application())) as client:
            session = await (await client.post("/api/session", json={"token": token})).json()
            answer = await (await client.get("/api/table",
                                             headers={"Authorization": f"Bearer {session['session']}"})).json()
            current = await game_service.games.current_game(alice)
            assert current is not None and current.game_id == answer["board"]["game"]
            assert await game_service.games.current_game(PlayerKey("discord", str(t.bob.id))) is None


def test_with_web_secret_set_every_process_opens_every_link_whatever_tokens_it_has() -> None:
    """The documented two-process layout: the Discord shard-1 process has no Telegram token. With WEB_SECRET set, a
    link one process signs opens on the other, both ways; the tokens sign only where WEB_SECRET is not set."""
    telegram = "123456:AAFakeTokenForTripeaksTestsOnly0000"
    discord = "MTA.fake.discord-token"
    first = Config(public_url=PUBLIC_URL, web_secret=SECRET, telegram_token=telegram, discord_token=discord)
    shard = Config(public_url=PUBLIC_URL, web_secret=SECRET, discord_token=discord)
    alice = PlayerKey("discord", "42")
    for signing, reading in ((first, shard), (shard, first)):
        token = table_signer(signing).sign(WebUser(alice, "Alice", None), "link", LINK_LIFETIME)
        assert table_signer(reading).read(token, "link").player == alice
    unset = Config(public_url=PUBLIC_URL, telegram_token=telegram, discord_token=discord)
    token = table_signer(unset).sign(WebUser(alice, "Alice", None), "link", LINK_LIFETIME)
    assert table_signer(dataclasses.replace(unset)).read(token, "link").player == alice
    with pytest.raises(Unauthorised):  # the tokens, not WEB_SECRET, signed it
        table_signer(first).read(token, "link")


def test_a_link_lasts_a_quarter_of_an_hour() -> None:
    assert LINK_LIFETIME == 15 * 60  # as the answer says ("for the next 15 minutes")


async def test_without_a_public_url_there_is_no_board_command(game_service: App,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        with pytest.raises(Exception) as refused:  # noqa: B017 - SimCord refuses a command the bot did not sync
            await slash(t.env, t.alice, t.channel, "tripeaks board")
        assert "board" in str(refused.value)


@pytest.mark.parametrize("cached", [True, False], ids=["this-shard", "another-shard"])
async def test_a_move_at_the_table_redraws_the_boards_message_in_the_channel(
        game_service: App, monkeypatch: pytest.MonkeyPatch, cached: bool) -> None:
    """One game everywhere: a card played at the table (through the board link) edits the game's board in the
    Discord channel to the game as it stands, with its player's name and its free cards as they now are; also from
    a process whose shards do not hold the channel's server (nothing of it cached: the edit is a REST call)."""
    from bot.adapters.discord.executor import outbox_executor
    from bot.render.tableau import card_label
    from core.game import Game, Tap
    from tests.discord_harness import labels_of, shows, text_of
    from tests.test_discord_e2e import CODE, fitting_slot

    async with table(game_service, monkeypatch, public_url=PUBLIC_URL, web_secret=SECRET) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        response, _ = await slash(t.env, t.alice, t.channel, "tripeaks board")
        (link,) = [b for b in buttons_of(response) if "url" in b]
        server = TableServer(game_service.flow, table_signer(Config(public_url=PUBLIC_URL, web_secret=SECRET)))
        if not cached:
            monkeypatch.setattr(t.env.bot, "get_channel", lambda channel_id: None)
        game = Game.from_code(CODE)
        slot = fitting_slot(game)
        async with TestClient(TestServer(server.application())) as client:
            token = link["url"].partition("#token=")[2]
            session = await (await client.post("/api/session", json={"token": token})).json()
            headers = {"Authorization": f"Bearer {session['session']}"}
            shown = (await (await client.get("/api/table", headers=headers)).json())["board"]
            played = await client.post("/api/act", headers=headers,
                                       json={"payload": f"tp:g:{shown['game']}:{shown['version']}:{slot}"})
            assert played.status == 200
            await server.stop()
        # the process running Discord delivers the outbox's redraw
        assert await game_service.outbox.deliver({"discord": outbox_executor(t.env.bot.ctx)}) == 1
        game.apply(Tap(slot))
        edited = t.message(board.id)
        assert shows(edited, game) and "Moves: 1" in text_of(edited) and text_of(edited).startswith("### alice")
        played = card_label(Game.from_code(CODE).card_at(slot))
        assert played not in labels_of(edited) and "Draw" in labels_of(edited)  # the free cards as they now are


async def test_a_game_started_at_the_table_closes_the_channels_board_and_shows_the_new_one(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """One game everywhere: New game and Yes at the table close the game's board in the channel (no buttons of a
    game in progress) and show the new game there, as the player's live board, through the outbox."""
    from bot.adapters.discord.executor import outbox_executor
    from bot.app.codec import encode
    from bot.app.commands import NewGame
    from tests.discord_harness import labels_of, text_of
    from tests.test_discord_e2e import CODE

    async with table(game_service, monkeypatch, public_url=PUBLIC_URL, web_secret=SECRET) as t:
        old, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        assert "Draw" in labels_of(t.message(old.id))
        async with alice_at_the_table(t, game_service) as alice:
            board = await alice.board()
            board = (await alice.act(f"tp:g:{board['game']}:{board['version']}:d"))["board"]
            asked = await alice.act(encode(NewGame(board["game"], board["version"])))
            (yes,) = [b["payload"] for b in asked["message"]["buttons"] if b["payload"].startswith("tp:y:")]
            started = (await alice.act(yes))["board"]
        before = len(t.channel.history())
        # the process running Discord delivers the outbox: the old board closed, the new game shown
        assert await game_service.outbox.deliver({"discord": outbox_executor(t.env.bot.ctx)}) == 2
        assert "Draw" not in labels_of(t.message(old.id))
        (shown,) = t.channel.history()[before:]
        assert "Moves: 0" in text_of(shown) and "Draw" in labels_of(shown)
        current = await game_service.games.game(started["game"])  # type: ignore[index]
        assert current.board is not None and current.board.message_id == str(shown.id)


async def test_resume_leaves_one_live_board_in_the_channel(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """/tripeaks resume shows the game as a new message and closes its older board: one live board."""
    from tests.discord_harness import labels_of, text_of
    from tests.test_discord_e2e import CODE

    async with table(game_service, monkeypatch) as t:
        old, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        resumed, _ = await slash(t.env, t.alice, t.channel, "tripeaks resume")
        assert resumed.id != old.id and "Draw" in labels_of(t.message(resumed.id))
        assert "Draw" not in labels_of(t.message(old.id)) and "Moves: 0" in text_of(t.message(old.id))
        current = await game_service.games.current_game(PlayerKey("discord", str(t.alice.id)))
        assert current is not None and current.board is not None and current.board.message_id == str(resumed.id)


async def test_share_at_the_table_posts_the_challenge_in_the_games_channel(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Share at the table gives what Share gives in the channel: the result posted there, once (a second tap is a
    double tap), with Play this deal, which deals another member the same cards as a challenge (the table cannot pick
    a channel itself, as Telegram's Mini App picks a chat); the table shows the result too."""
    from bot.adapters.discord.executor import outbox_executor
    from bot.app.codec import encode
    from bot.app.commands import Share
    from tests.discord_harness import button, click, labels_of, text_of
    from tests.test_service import BLOCK_CODE

    async with table(game_service, monkeypatch, public_url=PUBLIC_URL, web_secret=SECRET) as t:
        await slash(t.env, t.alice, t.channel, "tripeaks new", code=BLOCK_CODE)
        async with alice_at_the_table(t, game_service) as alice:
            board = await alice.board()
            while not board["over"]:
                board = (await alice.act(f"tp:g:{board['game']}:{board['version']}:d"))["board"]
            shared = await alice.act(encode(Share(board["game"])))
            assert "alice" in str(shared["message"]) and shared["share"] is None  # no chat picker on Discord
            assert shared["notice"] == "Posted in the channel: anyone there can play this deal"
            assert (await alice.act(encode(Share(board["game"]))))["message"] is None  # a double tap: posted once
        before = len(t.channel.history())
        # the process running Discord delivers the outbox: the board redrawn, the result posted in its channel
        assert await game_service.outbox.deliver({"discord": outbox_executor(t.env.bot.ctx)}) == 2
        (card,) = [m for m in t.channel.history()[before:] if labels_of(m) == ["Play this deal"]]
        assert "score" in text_of(card) and BLOCK_CODE not in text_of(card)  # the challenge goes by reference
        assert await game_service.outbox.deliver({"discord": outbox_executor(t.env.bot.ctx)}) == 0
        dealt, _ = await click(t.env, t.bob, card, button(card, label="Play this deal"))
        assert "To beat:" in text_of(dealt) and "alice" in text_of(dealt)
        bob = await game_service.games.current_game(PlayerKey("discord", str(t.bob.id)))
        assert bob is not None and str(bob.game.code) == BLOCK_CODE

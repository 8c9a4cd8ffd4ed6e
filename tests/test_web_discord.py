"""The board in the browser from Discord, end to end (the real bot on SimCord): where Activities are not enabled,
``/tripeaks board`` answers privately with a link for the player alone (signed, short-lived), which opens their
game at the table's server and nobody else's; without PUBLIC_URL there is no such command."""

# ruff: noqa: F811 - the fixture imported from test_discord_e2e is named as a parameter
from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.web.auth import LINK_LIFETIME, Unauthorised
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
    from bot.adapters.discord.table_boards import DiscordBoards
    from bot.render.tableau import card_label
    from core.game import Game, Tap
    from tests.discord_harness import labels_of, shows, text_of
    from tests.test_discord_e2e import CODE, fitting_slot

    async with table(game_service, monkeypatch, public_url=PUBLIC_URL, web_secret=SECRET) as t:
        board, _ = await slash(t.env, t.alice, t.channel, "tripeaks new", code=CODE)
        response, _ = await slash(t.env, t.alice, t.channel, "tripeaks board")
        (link,) = [b for b in buttons_of(response) if "url" in b]
        server = TableServer(game_service.flow, table_signer(Config(public_url=PUBLIC_URL, web_secret=SECRET)))
        server.follow_chats(DiscordBoards(t.env.bot))
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
            await server.stop()  # the chat's redraw done
        game.apply(Tap(slot))
        edited = t.message(board.id)
        assert shows(edited, game) and "Moves: 1" in text_of(edited) and text_of(edited).startswith("### alice")
        played = card_label(Game.from_code(CODE).card_at(slot))
        assert played not in labels_of(edited) and "Draw" in labels_of(edited)  # the free cards as they now are

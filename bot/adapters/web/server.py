"""The table's web server: the page (static files shipped in the package) and its JSON API, on aiohttp.

Every request but the page's files says who sends it, in its ``Authorization`` header: ``tma <initData>`` from a
Telegram Mini App, or ``Bearer <session>``, a session token the server signed when the page showed it a link's token
(:mod:`bot.adapters.web.auth`). Anything else is 401, and nothing changes.

- ``POST /api/session`` ``{"token": ...}``: an "Open the table" link's token (Discord), or the console's one-time
  token, exchanged for a session token.
- ``GET /api/discord`` (the Activity's client id), ``POST /api/discord/session`` ``{"code": ...}``: a Discord
  Activity's OAuth2 code exchanged for a session token (and the access token the page gives the Embedded App SDK).
- ``GET /api/words?lang=``: what the page says to a visitor it does not know (no credentials needed).
- ``GET /api/table``: the player's game in progress (a new deal when there is none), the page's words in the
  player's language and the picture board's layout.
- ``POST /api/act`` ``{"payload": ...}``: a button's payload, as the table's cards and buttons carry them
  (:mod:`bot.app.codec`): decoded into the typed command and handed to the one door,
  :meth:`bot.app.flow.Flow.handle`, as any chat's tap; the answer is the effects as JSON
  (:func:`bot.adapters.web.screens.respond`).
- ``GET /api/events``: server-sent events, one ``data:`` line of the board (as ``/api/table`` answers it) whenever
  the player's game changes elsewhere (a tap in the chat, another tab, another process): the server reads the game
  every :data:`FOLLOW_EVERY` seconds through the door (``Resume``), so it sees what any process committed.

The server keeps no game: the flow and the database decide everything, as for the chats, so a player's game is the
same in the chat and at the table, and one player can never act on another's (the flow checks every game's owner).
After a move (or a start) at the table, the game's live board in its chat follows it: the command goes through the
door with ``Surface.at_table``, and the flow writes the redraw to the outbox (:mod:`bot.app.outbox`) with the move,
for a process that runs the player's platform to deliver: the table's answer never waits for a chat. Share gives
what it gives in the chat: Telegram's chat picker (the Mini App opens it: ``Surface.picks_chat``), elsewhere the
result with Play this deal posted in the game's chat, through the outbox too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

from bot.adapters.web.auth import SESSION_LIFETIME, Signer, Unauthorised, WebUser, telegram_user
from bot.adapters.web.discord_auth import DiscordOAuth, SignIns
from bot.adapters.web.screens import LAYOUT, refusal_words, respond, strings
from bot.app.codec import BadPayload, decode
from bot.app.commands import Actor, Command, Resume, Surface
from bot.app.flow import Flow
from bot.i18n import resolve_locale

log = logging.getLogger("tripeaks.web")

#: The page and its scripts, shipped in the package.
STATIC = resources.files("bot.adapters.web") / "static"
#: The largest request body the API reads (bytes).
BODY_MAX = 4096
#: How often an open table reads its game again (seconds), to follow moves made elsewhere.
FOLLOW_EVERY = 1.0

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class TableServer:
    """The table for ``flow``: Telegram's ``initData`` checked with ``telegram_token`` (None: no Mini App),
    tokens signed by ``signer``. ``console_user``: the console's player, who gets one-time links."""

    def __init__(self, flow: Flow, signer: Signer, *, telegram_token: str | None = None,
                 host: str = "127.0.0.1", port: int = 8080, discord: DiscordOAuth | None = None,
                 sign_ins: SignIns | None = None) -> None:
        self.flow = flow
        #: the Discord Activity's OAuth2 client (None: no Activity), and the codes it may forward
        self.discord = discord
        self.sign_ins = sign_ins or SignIns()
        self.signer = signer
        self.telegram_token = telegram_token
        self.host = host
        self.port = port
        #: the console's one-time tokens not yet used: the console is one process, and its secret is this
        #: process's own (:func:`bot.adapters.web.auth.derived_secret`), so no other process could read them anyway
        self._one_time: dict[str, WebUser] = {}
        self._runner: web.AppRunner | None = None
        #: set when the server stops: the open event streams end
        self._closing = asyncio.Event()

    def application(self) -> web.Application:
        app = web.Application(client_max_size=BODY_MAX, middlewares=[_no_store])
        app.on_response_prepare.append(_guarded)
        app.router.add_get("/", self._page)
        app.router.add_get("/favicon.ico", self._favicon)
        app.router.add_static("/static/", str(STATIC))
        app.router.add_post("/api/session", self._session)
        app.router.add_get("/api/discord", self._discord_client)
        app.router.add_post("/api/discord/session", self._discord_session)
        app.router.add_get("/api/words", self._words)
        app.router.add_get("/api/table", self._table)
        app.router.add_post("/api/act", self._act)
        app.router.add_get("/api/events", self._events)
        return app

    async def start(self) -> None:
        """Listen on :attr:`host` and :attr:`port` (0: any free port, then set here)."""
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        listening = socket.create_server((self.host, self.port), reuse_port=False)
        self.port = listening.getsockname()[1]
        await web.SockSite(self._runner, listening).start()
        log.info("table served on %s:%d", self.host, self.port)

    async def stop(self) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def one_time_link(self, user: WebUser, base_url: str) -> str:
        """A link that opens the table for ``user`` once (the console's): its token is good for one session."""
        token = secrets.token_urlsafe(24)
        self._one_time[token] = user
        return f"{base_url}/#token={token}"

    # --- the API ------------------------------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=(STATIC / "index.html").read_bytes(), content_type="text/html", charset="utf-8")

    async def _favicon(self, request: web.Request) -> web.StreamResponse:
        """The page's icon where a browser asks for it without reading the page (the page names it itself)."""
        return web.Response(body=(STATIC / "favicon.svg").read_bytes(), content_type="image/svg+xml")

    async def _session(self, request: web.Request) -> web.StreamResponse:
        token = str((await _body(request)).get("token", ""))
        user = self._one_time.pop(token, None)
        if user is None:
            try:
                user = self.signer.read(token, "link")
            except Unauthorised as refused:
                raise _unauthorised(refused) from None
        return web.json_response({"session": self.signer.sign(user, "session", SESSION_LIFETIME)})

    async def _discord_client(self, request: web.Request) -> web.StreamResponse:
        if self.discord is None:
            raise web.HTTPNotFound(text="no Discord Activity here")
        return web.json_response({"client_id": self.discord.client_id})

    async def _discord_session(self, request: web.Request) -> web.StreamResponse:
        if self.discord is None:
            raise web.HTTPNotFound(text="no Discord Activity here")
        code = str((await _body(request)).get("code", ""))
        if not self.sign_ins.take(code):
            raise web.HTTPTooManyRequests(text="too many sign-ins: try again in a moment", headers={"Retry-After": "1"})
        try:
            user, access_token = await self.discord.user(code)
        except Unauthorised as refused:
            raise _unauthorised(refused) from None
        return web.json_response({"session": self.signer.sign(user, "session", SESSION_LIFETIME),
                                  "access_token": access_token})

    async def _words(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(refusal_words(resolve_locale(None, request.query.get("lang"))))

    async def _table(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request)
        answer = await self._through_the_door(user, Resume(start_if_none=True))
        return web.json_response({**answer, "layout": LAYOUT, "strings": strings(answer["locale"])})

    async def _act(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request)
        try:
            command: Command = decode(str((await _body(request)).get("payload", "")))
        except BadPayload:
            raise web.HTTPBadRequest(text="not a payload") from None
        return web.json_response(await self._through_the_door(user, command, moved=True))

    async def _events(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request)
        # X-Accel-Buffering: nginx, which buffers a proxied answer by default, passes each event on as it comes
        stream = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                             "X-Accel-Buffering": "no"})
        await stream.prepare(request)
        shown: tuple[int, int] | None = None
        try:
            while not self._closing.is_set():
                board = (await self._through_the_door(user, Resume()))["board"]
                if board is not None and (board["game"], board["version"]) != shown:
                    shown = board["game"], board["version"]
                    await stream.write(f"data: {json.dumps(board)}\n\n".encode())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._closing.wait(), FOLLOW_EVERY)
        except ConnectionResetError:  # the page went away
            pass
        return stream

    async def _through_the_door(self, user: WebUser, command: Command, *, moved: bool = False) -> dict[str, Any]:
        """``command`` through the one door, its effects as JSON; ``moved``: a tap at the table, which the chat's
        board of the game follows (the console's player has no chat board)."""
        inline = user.player.platform == "telegram"  # the Mini App opens Telegram's chat picker
        surface = Surface(platform=user.player.platform, platform_locale=user.locale,
                          at_table=moved and user.player.platform != "console", picks_chat=inline)
        effects = await self.flow.handle(Actor(user.player, user.name), command, surface)
        return respond(effects, user.locale, inline=inline)

    def _user(self, request: web.Request) -> WebUser:
        scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
        try:
            if scheme == "tma" and self.telegram_token:
                return telegram_user(credentials, self.telegram_token)
            if scheme == "Bearer":
                return self.signer.read(credentials, "session")
        except Unauthorised as refused:
            raise _unauthorised(refused) from None
        raise _unauthorised(Unauthorised("no credentials"))


def _unauthorised(refused: Unauthorised) -> web.HTTPUnauthorized:
    log.info("table request refused: %s", refused)
    return web.HTTPUnauthorized(text="unauthorised")


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.read())
    except ValueError:
        raise web.HTTPBadRequest(text="not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="not a JSON object")
    return body


#: What the table's pages may load and who may frame them: its own files and API only (Telegram's Mini App script
#: too), framed by nothing but Discord's clients (the Activity's iframe) and Telegram's web clients (the Mini App).
CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'", "script-src 'self' https://telegram.org", "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'",
    "frame-ancestors 'self' https://discord.com https://*.discord.com https://*.discordsays.com "
    "https://web.telegram.org https://*.telegram.org"))


async def _guarded(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer, refusals and event streams too, as it is sent: never sniffed as another type, no referrer,
    under :data:`CONTENT_SECURITY_POLICY`."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY


@web.middleware
async def _no_store(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The API's answers are one player's: no cache keeps them."""
    response = await handler(request)
    if request.path.startswith("/api/"):
        response.headers["Cache-Control"] = "no-store"
    return response

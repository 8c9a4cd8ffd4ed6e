"""The table's web server: the page (static files shipped in the package) and its JSON API, on aiohttp.

Every request but the page's files says who sends it, in its ``Authorization`` header: ``tma <initData>`` from a
Telegram Mini App, or ``Bearer <session>``, a session token the server signed when the page showed it a link's token
(:mod:`bot.adapters.web.auth`). Anything else is 401, and nothing changes.

- ``POST /api/session`` ``{"token": ...}``: an "Open the table" link's token (Discord), or the console's one-time
  token, exchanged for a session token.
- ``GET /api/discord`` (the Activity's client id), ``POST /api/discord/session`` ``{"code": ...}``: a Discord
  Activity's OAuth2 code exchanged for a session token (and the access token the page gives the Embedded App SDK).
- ``GET /metrics``: what the bot counts, in Prometheus's format (:mod:`bot.metrics`).
- ``GET /healthz``: 200 while the process answers (a load balancer's liveness check); ``GET /readyz``: each part
  of the bot (database, telegram, discord, table) and whether it is up, as JSON, 200 when every one is, else 503.
- ``GET /api/words?lang=``: what the page says to a visitor it does not know (no credentials needed).
- ``GET /api/table``: the player's game in progress (a new deal when there is none), the page's words in the
  player's language and the picture board's layout.
- ``POST /api/act`` ``{"payload": ...}``: a button's payload, as the table's cards and buttons carry them
  (:mod:`bot.app.codec`): decoded into the typed command and handed to the one door,
  :meth:`bot.app.flow.Flow.handle`, as any chat's tap; the answer is the effects as JSON
  (:func:`bot.adapters.web.screens.respond`).
- ``GET /api/round?id=``: a live round watched, read only (:func:`bot.adapters.web.screens.watch_json`): its
  standings and each player's table as that player sees it; refused to a player of the round still playing.
- ``GET /api/round/events?id=[&view=standings]``: the same, as server-sent events, one whenever the round moves
  (pushed as ``/api/events`` is); ``view=standings``: the standings alone, never a card, for a player beside
  their table. ``GET /api/table?instance=``: a Discord Activity's instance, whose round the player joins (or
  starts) by opening it, once Discord lists them in it (:class:`~bot.adapters.web.discord_auth.ActivityInstances`).
- ``GET /api/events``: server-sent events, one ``data:`` line of the board (as ``/api/table`` answers it) whenever
  the player's game changes elsewhere (a tap in the chat, another tab, another process): one watcher for the whole
  process tells each stream when its game moved (:class:`~bot.app.following.Following`, woken by the database), and
  only then is the game read through the door (``Resume``). A stream ends with its connection; a player holds at
  most :data:`STREAMS_PER_PLAYER` (a new one closes their oldest), the process at most :attr:`TableServer.streams_cap`
  (past it ``503``); a comment line every :data:`HEARTBEAT` seconds keeps proxies from closing a quiet one.

Every request a player sends comes out of their share (:meth:`~bot.app.questions.Questions.request_wait`): past it
``429`` with ``Retry-After``, before anything is read. The process holds at most so many connections
(:mod:`~bot.adapters.web.gate`).

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
import json
import logging
import math
import secrets
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from bot.adapters.web.auth import SESSION_LIFETIME, Signer, Unauthorised, WebUser, telegram_user
from bot.adapters.web.discord_auth import INSTANCE_SHAPE, DiscordOAuth, InstanceCheck, SignIns
from bot.adapters.web.gate import Gate, Seldom, connections_cap, open_files_limit
from bot.adapters.web.screens import LAYOUT, refusal_words, respond, round_event, strings, watch_json
from bot.app.abilities import TABLE
from bot.app.codec import BadPayload, decode, start_request, watched_round
from bot.app.commands import Actor, Begin, Command, Resume, RoundDeal, Surface
from bot.app.effects import PlayerKey, RoundKey, RoundSnapshot
from bot.app.flow import Flow
from bot.i18n import resolve_locale
from bot.metrics import REQUESTS_REFUSED, STREAMS_OPEN, exposition

log = logging.getLogger("tripeaks.web")

#: The page and its scripts, shipped in the package.
STATIC = resources.files("bot.adapters.web") / "static"
#: The largest request body the API reads (bytes).
BODY_MAX = 4096
#: Event streams one player may hold (their tabs and devices): a new one past this closes their oldest.
STREAMS_PER_PLAYER = 3
#: Seconds between two comment lines on a quiet event stream (nginx closes a proxied answer silent for 60 s).
HEARTBEAT = 25.0
#: The header marking a refusal whose text is the player's own line in their language (a blocked account's): the
#: page shows it.
REFUSED_HEADER = "X-Refused"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
#: Each part of the bot (database, telegram, discord, table) and whether it is up.
Ready = Callable[[], Awaitable[dict[str, bool]]]
#: A game as an event stream last sent it: (game id, version), or None.
Shown = tuple[int, int] | None


class TableServer:
    """The table for ``flow``: Telegram's ``initData`` checked with ``telegram_token`` (None: no Mini App),
    tokens signed by ``signer``. ``console_user``: the console's player, who gets one-time links."""

    def __init__(self, flow: Flow, signer: Signer, *, telegram_token: str | None = None,
                 host: str = "127.0.0.1", port: int = 8080, discord: DiscordOAuth | None = None,
                 sign_ins: SignIns | None = None, instances: InstanceCheck | None = None,
                 connections: int | None = None, ready: Ready | None = None) -> None:
        self.flow = flow
        #: who is in a Discord Activity instance (None: no bot token to ask with: the instance named is taken)
        self.instances = instances
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
        self._listening: asyncio.Server | None = None
        #: the connections open, at most ``connections`` (default: as many as the process's open files allow)
        self.connections_cap = connections if connections is not None else connections_cap(open_files_limit())
        self._gate: Gate | None = None
        #: the event streams open, by player, oldest first; at most :attr:`streams_cap` in all
        self._streams: dict[PlayerKey, list[_Stream]] = {}
        self.streams_cap = max(1, self.connections_cap * 3 // 4)
        #: set when the server stops: the open event streams end
        self._closing = False
        #: each part of the bot and whether it is up, for ``GET /readyz`` (None: the table alone)
        self.ready = ready

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
        app.router.add_get("/api/round", self._round)
        app.router.add_get("/api/round/events", self._round_events)
        app.router.add_get("/healthz", self._alive)
        app.router.add_get("/readyz", self._ready)
        app.router.add_get("/metrics", self._metrics)
        return app

    async def start(self) -> None:
        """Listen on :attr:`host` and :attr:`port` (0: any free port, then set here)."""
        listening = socket.create_server((self.host, self.port), reuse_port=False)
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        assert self._runner.server is not None
        self._gate = Gate(self._runner.server, self.connections_cap)
        self._listening = await asyncio.get_running_loop().create_server(self._gate, sock=listening, backlog=128)
        self.port = listening.getsockname()[1]
        log.info("table served on %s:%d (at most %d connections)", self.host, self.port, self.connections_cap)

    async def stop(self) -> None:
        self._closing = True
        for streams in self._streams.values():
            for stream in streams:
                stream.end()
        if self._listening is not None:
            self._listening.close()
            self._listening = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def serving(self) -> bool:
        """Whether the table takes requests."""
        return self._listening is not None and self._listening.is_serving()

    @property
    def streams_open(self) -> int:
        """How many event streams are open."""
        return sum(map(len, self._streams.values()))

    def one_time_link(self, user: WebUser, base_url: str) -> str:
        """A link that opens the table for ``user`` once (the console's): its token is good for one session."""
        token = secrets.token_urlsafe(24)
        self._one_time[token] = user
        return f"{base_url}/#token={token}"

    # --- the API ------------------------------------------------------------------------------------------------

    async def _alive(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text="alive\n")

    async def _ready(self, request: web.Request) -> web.StreamResponse:
        parts = await self.ready() if self.ready is not None else {}
        parts["table"] = True  # it answers this
        return web.json_response(parts, status=200 if all(parts.values()) else 503)

    async def _metrics(self, request: web.Request) -> web.StreamResponse:
        try:
            await self.flow.outbox.measure_backlog()
        except Exception:  # the database away: the other metrics are still worth reading (the backlog as last read)
            log.warning("could not read the outbox's backlog for /metrics", exc_info=True)
        body, content_type = exposition()
        return web.Response(body=body, headers={"Content-Type": content_type})

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
        user = await self._user(request)
        answer: dict[str, Any] = {"board": None}
        joined = _round_started(request) or await self._instance_round(request, user)
        if joined is not None:  # a group's direct link to a round: the player's game of it (one entry a player)
            answer = await self._through_the_door(user, Begin(joined))
        if answer["board"] is None:  # the round is over (its results are the notice), the player is asked first
            # whether to leave their game in progress for it (the question), or no round was asked
            notice, question = answer.get("notice"), answer.get("message")
            answer = await self._through_the_door(user, Resume(start_if_none=True))
            answer["notice"] = answer.get("notice") or notice
            answer["message"] = answer.get("message") or question
        # the round message's Watch link (``startapp=watch-<id>``): the page shows the round watched
        return web.json_response({**answer, "layout": LAYOUT, "strings": strings(answer["locale"]),
                                  "watch": watched_round(_start_param(request))})

    async def _instance_round(self, request: web.Request, user: WebUser) -> RoundDeal | None:
        """The round of the Discord Activity instance the page was opened in (``?instance=``: the Embedded App
        SDK's ``instanceId``), which the player joins by opening it (:meth:`bot.app.rounds.Rounds.in_instance`);
        None for no instance, or one Discord does not list the player in (403 then: nothing is joined)."""
        instance_id = request.query.get("instance", "")
        if not instance_id or user.player.platform != "discord":
            return None
        if not INSTANCE_SHAPE.fullmatch(instance_id):
            raise web.HTTPBadRequest(text="not an instance")
        if self.instances is not None and not await self.instances(instance_id, user.player.user_id):
            _REFUSED.info("table request refused: not in the Activity instance it names")
            raise web.HTTPForbidden(text="not in that Activity")
        locale = resolve_locale(None, user.locale)
        return RoundDeal(await self.flow.rounds.in_instance(instance_id, user.player, user.name, locale))

    async def _act(self, request: web.Request) -> web.StreamResponse:
        user = await self._user(request)
        try:
            command: Command = decode(str((await _body(request)).get("payload", "")))
        except BadPayload:
            raise web.HTTPBadRequest(text="not a payload") from None
        answer = await self._through_the_door(user, command, moved=True)
        self.flow.games.following.wake()  # the player's other tabs follow at once
        return web.json_response(answer)

    async def _round(self, request: web.Request) -> web.StreamResponse:
        """A live round watched (``?id=``), read only: the standings and every player's table as that player sees
        it. Not for a player of the round still playing it (the others' boards show cards of the same deal)."""
        user = await self._user(request)
        round = await self._watched(user, _round_id(request), standings=False)
        return web.json_response(watch_json(round, resolve_locale(None, user.locale), viewer=user.player))

    async def _watched(self, user: WebUser, round_id: int, *, standings: bool) -> RoundSnapshot:
        """The round ``round_id`` as it stands, for ``user`` to watch (404: no such round; 403: its tables, to a
        player of it still playing)."""
        try:
            round = await self.flow.rounds.read(round_id)
        except BadPayload:
            raise web.HTTPNotFound(text="no such round") from None
        if not standings and round.still_playing(user.player):
            raise web.HTTPForbidden(text="finish your own game of the round first")
        return round

    async def _events(self, request: web.Request) -> web.StreamResponse:
        user = await self._user(request)

        async def send(stream: web.StreamResponse, shown: Any) -> Any:
            return await self._send_board(stream, user, shown)

        return await self._stream(request, user, user.player, send)

    async def _round_events(self, request: web.Request) -> web.StreamResponse:
        """A live round followed (``?id=``): an event of it (:func:`~bot.adapters.web.screens.round_event`) whenever
        it moves (a join, a move, its end), pushed as the player's own board is. ``&view=standings``: the standings
        alone (never a card), which a player of the round sees beside their table; else every player's table, as
        ``GET /api/round`` (refused to a player of the round still playing)."""
        user = await self._user(request)
        round_id = _round_id(request)
        standings = request.query.get("view") == "standings"
        await self._watched(user, round_id, standings=standings)
        locale = resolve_locale(None, user.locale)

        async def send(stream: web.StreamResponse, shown: Any) -> Any:
            round = await self.flow.rounds.read(round_id)
            now = (round.ended, len(round.entries), sum(entry.version for entry in round.entries))
            if now != shown:
                # a watcher who joined the round meanwhile sees the standings alone until they finish
                tables = not standings and not round.still_playing(user.player)
                await stream.write(round_event(round, locale, tables=tables, viewer=user.player))
            return now

        return await self._stream(request, user, RoundKey(round_id), send)

    async def _stream(self, request: web.Request, user: WebUser, followed: PlayerKey | RoundKey,
                      send: Callable[[web.StreamResponse, Any], Awaitable[Any]]) -> web.StreamResponse:
        """An event stream of the player ``user``: ``send`` writes what ``followed`` (their game, a round) shows
        now unless the stream shows it already, and answers what it shows; called at once and whenever it moved.
        The player's streams, of their game and of rounds, count together against the caps."""
        following = self.flow.games.following
        own = self._streams.setdefault(user.player, [])
        if len(own) < STREAMS_PER_PLAYER and self.streams_open >= self.streams_cap:
            if not own:
                del self._streams[user.player]
            REQUESTS_REFUSED.labels("streams").inc()
            raise web.HTTPServiceUnavailable(text="too many tables open: try again in a moment",
                                             headers={"Retry-After": "10"})
        opened = _Stream()
        own.append(opened)
        STREAMS_OPEN.inc()
        while len(own) > STREAMS_PER_PLAYER:  # the player's oldest tab or device gives way
            own.pop(0).end()
        try:
            if self._gate is not None:
                self._gate.when_lost(request.transport, opened.end)
            # X-Accel-Buffering: nginx, which buffers a proxied answer by default, passes each event on as it comes
            stream = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                                 "X-Accel-Buffering": "no"})
            stream.force_close()  # a stream's connection is never taken for another request
            await stream.prepare(request)
            shown = await send(stream, None)
            async with following.follow(followed, shown, opened.stirred) as watch:
                while not (opened.ended or self._closing):
                    try:
                        async with asyncio.timeout(HEARTBEAT):
                            await opened.stirred.wait()
                    except TimeoutError:
                        await stream.write(b": still here\n\n")
                        continue
                    opened.stirred.clear()
                    if watch.moved and not opened.ended:
                        watch.saw(shown := await send(stream, shown))
        except ConnectionError:  # the page went away while an event was written
            pass
        finally:
            STREAMS_OPEN.dec()
            opened.end()
            if opened in own:
                own.remove(opened)
            if not own and self._streams.get(user.player) is own:
                del self._streams[user.player]
        return stream

    async def _send_board(self, stream: web.StreamResponse, user: WebUser, shown: Shown) -> Shown:
        """Write the player's board to ``stream`` unless it is the ``shown`` one; what the stream shows now."""
        board = (await self._through_the_door(user, Resume()))["board"]
        now = None if board is None else (int(board["game"]), int(board["version"]))
        if board is not None and now != shown:
            await stream.write(f"data: {json.dumps(board)}\n\n".encode())
        return now

    async def _through_the_door(self, user: WebUser, command: Command, *, moved: bool = False) -> dict[str, Any]:
        """``command`` through the one door, its effects as JSON; ``moved``: a tap at the table, which the chat's
        board of the game follows (the console's player has no chat board)."""
        inline = user.player.platform == "telegram"  # the Mini App opens Telegram's chat picker
        surface = Surface(platform=user.player.platform, abilities=TABLE, platform_locale=user.locale,
                          at_table=moved and user.player.platform != "console", picks_chat=inline)
        effects = await self.flow.handle(Actor(user.player, user.name), command, surface)
        return respond(effects, user.locale, inline=inline)

    async def _user(self, request: web.Request) -> WebUser:
        """Who sends ``request``, which comes out of their share (past it: 429, nothing read); an account the
        deployment's owner blocked is refused (403, nothing read or stored)."""
        user = self._credentials(request)
        if await self.flow.refuses(user.player):
            REQUESTS_REFUSED.labels("blocked").inc()
            refused = await self._through_the_door(user, Resume())  # the door's refusal, in the player's language
            raise web.HTTPForbidden(text=refused["notice"], headers={REFUSED_HEADER: "blocked"})
        wait = await self.flow.questions.request_wait(user.player)
        if wait:
            _TOO_MANY.info("table requests past a player's share: refused for %.1f s", wait)
            REQUESTS_REFUSED.labels("share").inc()
            raise web.HTTPTooManyRequests(text="too many requests: slow down",
                                          headers={"Retry-After": str(max(1, math.ceil(wait)))})
        return user

    def _credentials(self, request: web.Request) -> WebUser:
        scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
        try:
            if scheme == "tma" and self.telegram_token:
                return telegram_user(credentials, self.telegram_token)
            if scheme == "Bearer":
                return self.signer.read(credentials, "session")
        except Unauthorised as refused:
            raise _unauthorised(refused) from None
        raise _unauthorised(Unauthorised("no credentials"))


@dataclass(eq=False)
class _Stream:
    """One open event stream: :attr:`stirred` when its game may have moved or it must end (:attr:`ended`)."""

    stirred: asyncio.Event = field(default_factory=asyncio.Event)
    ended: bool = False

    def end(self) -> None:
        self.ended = True
        self.stirred.set()


#: refused requests, logged seldom: a flood of them is a line a minute
_REFUSED = Seldom()
_TOO_MANY = Seldom()


def _round_id(request: web.Request) -> int:
    """The round a request names (``?id=``): 404 for no number."""
    try:
        return int(request.query.get("id", ""))
    except ValueError:
        raise web.HTTPNotFound(text="no such round") from None


def _start_param(request: web.Request) -> str:
    """A Mini App's signed ``start_param`` (its direct link's ``startapp``; the caller has checked the signature),
    empty for any other opening."""
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    return dict(parse_qsl(credentials)).get("start_param", "") if scheme == "tma" else ""


def _round_started(request: web.Request) -> RoundDeal | None:
    """The round a Mini App was opened for: a group's direct link, ``t.me/<bot>/<app>?startapp=round-<id>``; None
    for any other opening."""
    asked = start_request(_start_param(request))
    return asked if isinstance(asked, RoundDeal) else None


def _unauthorised(refused: Unauthorised) -> web.HTTPUnauthorized:
    _REFUSED.info("table request refused: %s", refused)
    REQUESTS_REFUSED.labels("unauthorised").inc()
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

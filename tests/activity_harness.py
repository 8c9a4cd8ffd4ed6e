"""The table as a Discord Activity in a real browser, with Discord played by the test: the Discord client's page at
``https://discord.com/...`` embeds the table in an iframe at ``https://<client_id>.discordsays.com/`` (Discord's
proxy, which the Activity's URL mapping points at our server) and answers the Embedded App SDK's postMessage
protocol; a local Discord API answers the server's OAuth2 token exchange and ``/users/@me``.

Both addresses are Playwright routes (no DNS, no TLS): the parent page is served from here, and each request of the
iframe is forwarded to the table's server. A route answers with a whole body, so the page's event stream
(``/api/events``, moves made elsewhere) is answered empty: the browser tests of the Mini App cover it.

The SDK (``Discord.mjs`` in the vendored package) talks to ``window.parent`` with ``[opcode, payload]`` messages
(0 HANDSHAKE, 1 FRAME) and accepts only the origins of Discord's clients (``https://discord.com`` among them);
the parent answers the handshake with the READY dispatch and each command with a frame carrying its ``nonce``, as
Discord's client does: AUTHORIZE with a code (or an ERROR when the player declines), AUTHENTICATE with the user the
access token belongs to (or an ERROR for a token Discord did not issue)."""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bot.adapters.web.auth import Signer
from bot.adapters.web.discord_auth import DiscordOAuth
from bot.adapters.web.server import TableServer
from bot.app.flow import Flow
from tests.web_harness import CHROMIUM, PHONE

CLIENT_ID = "1234567890"
CLIENT_SECRET = "the application's client secret"
ORIGIN = f"https://{CLIENT_ID}.discordsays.com"
PARENT = "https://discord.com/activities/tripeaks"
#: what the Activity's iframe is opened with (Discord adds these to the mapped URL)
QUERY = "frame_id=f-1&instance_id=i-1&platform=mobile&guild_id=42&channel_id=43&location_id=gc-42-43"


@dataclass
class DiscordAPI:
    """Discord's OAuth2 token endpoint and ``/users/@me``, for the codes handed out by :meth:`code_for`."""

    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: every token exchange asked, as the form the server sent
    exchanges: list[dict[str, str]] = field(default_factory=list)
    url: str = ""

    def code_for(self, user_id: str, name: str, locale: str = "en-US") -> str:
        """A one-time authorisation code for the user (what the AUTHORIZE command answers the page)."""
        code = secrets.token_hex(8)
        self.codes[code] = {"id": user_id, "username": name.lower(), "global_name": name, "discriminator": "0",
                            "locale": locale, "public_flags": 0, "avatar": None}
        return code

    def token_of(self, user_id: str) -> str | None:
        return next((token for token, user in self.tokens.items() if user["id"] == user_id), None)

    async def _token(self, request: web.Request) -> web.Response:
        form = {key: str(value) for key, value in (await request.post()).items()}
        self.exchanges.append(form)
        user = self.codes.pop(form.get("code", ""), None)
        if (form.get("client_id"), form.get("client_secret"), form.get("grant_type")) != (
                CLIENT_ID, CLIENT_SECRET, "authorization_code"):
            return web.json_response({"error": "invalid_client"}, status=401)
        if user is None:
            return web.json_response({"error": "invalid_grant"}, status=400)
        token = secrets.token_hex(12)
        self.tokens[token] = user
        return web.json_response({"access_token": token, "token_type": "Bearer", "expires_in": 604800,
                                  "scope": "identify"})

    async def _me(self, request: web.Request) -> web.Response:
        user = self.tokens.get(request.headers.get("Authorization", "").removeprefix("Bearer "))
        if user is None:
            return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)
        return web.json_response(user)

    def application(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/api/v10/oauth2/token", self._token)
        app.router.add_get("/api/v10/users/@me", self._me)
        return app


def parent_page(code: str | None) -> str:
    """Discord's client as the Activity sees it: the iframe, and the answers to the SDK. ``code``: what AUTHORIZE
    answers (None: the player declines). What the SDK sent is kept in ``window.sent``, the access tokens Discord
    issued (by the user each names) in ``window.tokens``, and the user Discord authenticated in
    ``window.authenticated``."""
    return f"""<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1">
<style>html, body {{ margin: 0; height: 100%; background: #313338; }}
iframe {{ border: 0; width: 100%; height: 100%; display: block; }}</style></head>
<body><iframe id="activity" src="{ORIGIN}/?{QUERY}" allow="autoplay"></iframe>
<script>
const code = {json.dumps(code)};
window.sent = [];
window.authenticated = null;
window.tokens = {{}};
addEventListener("message", (event) => {{
  if (event.origin !== "{ORIGIN}") return;
  const [opcode, payload] = event.data;
  window.sent.push([opcode, payload]);
  const reply = (frame) => event.source.postMessage([1, frame], event.origin);
  const error = (payload, message) => reply({{ cmd: payload.cmd, evt: "ERROR", nonce: payload.nonce,
                                               data: {{ code: 4002, message }} }});
  if (opcode === 0) {{
    reply({{ cmd: "DISPATCH", evt: "READY", nonce: null,
             data: {{ v: 1, config: {{ api_endpoint: "//discord.com/api", environment: "production",
                                      cdn_host: "cdn.discordapp.com" }} }} }});
  }} else if (opcode === 1 && payload.cmd === "AUTHORIZE") {{
    if (code === null) error(payload, "The user declined");
    else reply({{ cmd: "AUTHORIZE", evt: null, nonce: payload.nonce, data: {{ code }} }});
  }} else if (opcode === 1 && payload.cmd === "AUTHENTICATE") {{
    const user = window.tokens[payload.args.access_token];
    if (!user) {{ error(payload, "Invalid access token"); return; }}
    window.authenticated = user.id;
    reply({{ cmd: "AUTHENTICATE", evt: null, nonce: payload.nonce,
             data: {{ access_token: payload.args.access_token, scopes: ["identify"], expires: "2030-01-01T00:00:00Z",
                     user: {{ id: user.id, username: user.username, discriminator: "0", public_flags: 0,
                              global_name: user.global_name }},
                     application: {{ id: "{CLIENT_ID}", name: "TriPeaks", description: "" }} }} }});
  }}
}});
</script></body></html>"""


@dataclass
class Activity:
    """The table's server with the Activity's OAuth2 client, the local Discord API and a headless chromium."""

    server: TableServer
    api: DiscordAPI
    browser: Any

    async def launch(self, code: str | None, *, device: dict[str, Any] = PHONE, locale: str = "en-US"
                     ) -> tuple[Any, Any]:
        """The Activity opened in Discord's client with AUTHORIZE answering ``code``: the client's page and the
        table's frame, once the table has drawn its first answer (or said it does not know the player)."""
        context = await self.browser.new_context(**device, locale=locale)
        await context.route(f"{PARENT}*", lambda route: self._parent(route, code))
        await context.route(f"{ORIGIN}/**", self._proxy)
        page = await context.new_page()
        await page.goto(PARENT)
        frame = page.frame_locator("#activity")
        await frame.locator("body[data-ready]").wait_for()
        table = next(f for f in page.frames if f.url.startswith(ORIGIN))
        return page, table

    async def _parent(self, route: Any, code: str | None) -> None:
        await route.fulfill(status=200, content_type="text/html", body=parent_page(code))

    async def _proxy(self, route: Any) -> None:
        request = route.request
        path = request.url.removeprefix(ORIGIN)
        if path.startswith(("/api/events", "/api/round/events")):  # a stream: a route cannot forward it (see the
            # module's docstring)
            await route.fulfill(status=204)
            return
        response = await route.fetch(url=f"http://127.0.0.1:{self.server.port}{path}")
        if path.startswith("/api/discord/session") and response.ok:
            # Discord's client knows the tokens its API issued: the parent page is told of this one
            await route.request.frame.page.evaluate("(tokens) => Object.assign(window.tokens, tokens)",
                                                   self.api.tokens)
        await route.fulfill(response=response)


@contextlib.asynccontextmanager
async def activity_in_browser(flow: Flow) -> AsyncIterator[Activity]:
    """The Activity's parts, each on a free port of 127.0.0.1."""
    from aiohttp.test_utils import TestServer
    from playwright.async_api import async_playwright

    api = DiscordAPI()
    async with TestServer(api.application(), host="127.0.0.1") as api_server:
        api.url = str(api_server.make_url("/api/v10"))
        oauth = DiscordOAuth(CLIENT_ID, CLIENT_SECRET, api.url)
        server = TableServer(flow, Signer(b"activity tests " * 3), port=0, discord=oauth)
        await server.start()
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                try:
                    yield Activity(server, api, browser)
                finally:
                    await browser.close()
        finally:
            await server.stop()

"""``catan-play --web``: play Catan against the agents (or watch them) in a browser.

aiohttp serves the page (HTML, script and style ship inside the package: nothing is
fetched from the internet) and one WebSocket per page; it is one small, well-kept library
giving both the HTTP routes and WebSockets on asyncio, with no separate ASGI server to
run.  Binds 127.0.0.1 unless ``--host`` says otherwise.

Who may do what (each page's address carries a secret token, in the fragment ``#token=``:
a browser never sends a fragment to any server, so no Referer, log or proxy sees it; the
page hands it over as a WebSocket subprotocol ``token.<token>`` and, for the record's
download, in an ``X-Catan-Token`` header):
- the **host** (whoever started the server) plays a seat or watches, sets the agents'
  pace and starts new games (only once nobody else's game would be cut short);
- each other **person** plays their own seat and sets the pace;
- **spectators** only watch: a spectator token never plays a seat, in any game.

Every message is validated (shape, size, rate, role, seat, legality): a refused one gets
a one-line reason and changes nothing.  Pages, messages and their rate are capped
(``Limits``).  Agents think in a worker thread, and new games are built there too, so the
page never waits on them.  A person's seat survives a reload or a dropped connection for
``Limits.grace_seconds``; an agents-only game moves only while someone watches.
"""
import asyncio
import json
import logging
import os
import queue
import threading
import webbrowser
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Set, TypeVar

from ... import words as W
from .limits import Limits, RateLimit
from .presence import Presence
from .roles import HOST, PERSON, WATCHER, Tokens, new_token
from .roster import HUMAN, Roster, new_game_settings
from .session import NO_SEAT, WebGame

PROTOCOL = "catan"             # the WebSocket subprotocol the server speaks ...
TOKEN_PROTOCOL = "token."      # ... and the one, offered beside it, that carries the page's token
TOKEN_HEADER = "X-Catan-Token"  # the token of a plain request (the record's download)
# What a page may load and who may frame it: only this server's own script and style
# (inline styles for the board's colours), no frames, and no Referer to anyone.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
                               "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
FILES = {"app.js": "application/javascript", "style.css": "text/css"}
log = logging.getLogger(__package__)
T = TypeVar("T")


class DaemonWorkers:
    """A fixed set of daemon threads fed from one queue: the work done off the event loop
    (an agent thinking, a game being built) reuses them instead of starting a thread a
    call, and, being daemons, they never hold up a server told to stop (a
    ``ThreadPoolExecutor`` joins its threads at exit, however long an agent thinks)."""

    def __init__(self, workers: int = 2) -> None:
        self._jobs: "queue.SimpleQueue[Callable[[], None]]" = queue.SimpleQueue()
        self._started = 0
        self._workers = workers
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], None]) -> None:
        """Queue job; a worker thread runs it (started on first need, at most ``workers``)."""
        with self._lock:
            if self._started < self._workers:
                self._started += 1
                threading.Thread(target=self._work, name=f"catan-web-{self._started}", daemon=True).start()
        self._jobs.put(job)

    def _work(self) -> None:
        while True:
            self._jobs.get()()


WORKERS = DaemonWorkers(2)  # an agent's move and a new game's build can run side by side


def off_loop(fn: Callable[[], T]) -> Awaitable[T]:
    """Run ``fn`` on a worker thread (an agent thinking, a game being built) and await its
    result: the event loop never waits on it, and a server told to stop does not either."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future = loop.create_future()

    def settle(setter: Callable[[Any], None], value: Any) -> None:
        if not future.done():
            setter(value)

    def run() -> None:
        try:
            result = fn()
        except BaseException as e:  # handed to the awaiting coroutine
            outcome: Any = (future.set_exception, e)
        else:
            outcome = (future.set_result, result)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:
            pass  # the loop closed: the server has stopped
    WORKERS.submit(run)
    return future


class Page:
    """One open WebSocket: whose token it carries, its rate, and how much of the game's
    log it has been sent (a reloaded page starts again at 0 and gets the whole history)."""

    __slots__ = ("ws", "token", "rate", "log_sent", "seq")

    def __init__(self, ws: Any, token: str, limits: Limits) -> None:
        self.ws = ws
        self.token = token
        self.rate = RateLimit(limits.messages_per_second, limits.burst)
        self.log_sent = 0
        self.seq = 0  # the last state sent: a move sent with an older one is refused


class PlayServer:
    """The state of one browser-play server: the game now served, its people's pages,
    the agents' pace.  ``app()`` gives the aiohttp application."""

    def __init__(self, game: WebGame, delay: float = 0.4, limits: Optional[Limits] = None,
                 roster: Optional[Roster] = None, host_token: Optional[str] = None,
                 spectator_token: Optional[str] = None) -> None:
        self.limits = limits or Limits()
        self.roster = roster or Roster()
        # the host's token: the first person's seat of the first game, else a watching page
        self.tokens = Tokens(host_token or (game.token(game.people[0]) if game.people else new_token()),
                             spectator_token)
        self.pages: Dict[Any, Page] = {}
        self.delay = float(delay)
        self.paused = False
        self.steps = 0
        self.starting = False  # a new game is being built
        self._wake: Optional[asyncio.Event] = None
        self._tasks: Set[asyncio.Task] = set()
        self._serve(game)

    def _serve(self, game: WebGame) -> None:
        self.game = game
        self.presence = Presence(game.people)
        self.chart: Optional[Dict[str, Any]] = None  # the finished game's win-chance chart
        self._chart_started = False
        self.paused, self.steps = False, 0

    @property
    def host_token(self) -> str:
        """The host page's token."""
        return self.tokens.host

    @property
    def spectator_token(self) -> str:
        """The spectators' token."""
        return self.tokens.spectator

    # ---- who is who
    def role(self, token: Optional[str]) -> Optional[str]:
        """HOST, PERSON or WATCHER for a known token, None for any other."""
        if self.tokens.is_host(token):
            return HOST
        if self.game.seat_of(token) is not None:
            return PERSON
        if self.tokens.watches(token):
            return WATCHER
        return None

    def seat(self, token: str) -> Optional[int]:
        """The seat a token plays in the game now (None: it watches)."""
        return self.game.seat_of(token)

    def addresses(self, base: str) -> List[List[str]]:
        """(label, address) of every page of the game now: the host's, each other
        person's, the spectators'."""
        game = self.game
        host_seat = self.seat(self.host_token)
        out = [[f"host, playing {W.player_name(host_seat)}" if host_seat is not None else "host, watching",
                f"{base}#token={self.host_token}"]]
        out += [[f"{W.player_name(s)}'s seat", f"{base}#token={game.token(s)}"]
                for s in game.people if s != host_seat]
        out.append(["spectators", f"{base}#token={self.spectator_token}"])
        return out

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- sending
    async def _send(self, page: Page, msg: Dict[str, Any]) -> None:
        try:  # a page that stops reading is dropped, not waited for
            await asyncio.wait_for(page.ws.send_json(msg), self.limits.send_seconds)
        except (asyncio.TimeoutError, ConnectionError, RuntimeError):
            self._spawn(page.ws.close())

    async def _send_state(self, page: Page) -> None:
        msg = self.game.state(self.seat(page.token), page.log_sent)
        page.log_sent = msg["log_size"]
        page.seq += 1
        msg.update(seq=page.seq, paused=self.paused, delay=self.delay, role=self.role(page.token),
                   can_start=self._new_game_refusal(page.token) is None)
        await self._send(page, msg)

    async def _send_board(self, page: Page) -> None:
        page.log_sent = 0
        game, seat = self.game, self.seat(page.token)
        msg = game.board(seat)
        msg["agents"] = self.roster.choices()
        msg["labels"] = ["you" if p == seat else "a person" if spec == HUMAN else self.roster.describe(game.labels[p])
                         for p, spec in enumerate(game.players)]
        msg["lineup"] = [HUMAN if spec == HUMAN else self.roster.name_of(game.labels[p]) or ""
                         for p, spec in enumerate(game.players)]
        await self._send(page, msg)

    async def broadcast(self) -> None:
        """Every open page gets the state as its seat sees it (all at once: a slow page
        delays nobody)."""
        await asyncio.gather(*(self._send_state(p) for p in list(self.pages.values()) if not p.ws.closed))
        game = self.game
        if game.over and game.winner >= 0 and not self._chart_started:
            self._chart_started = True
            self._spawn(self._make_chart(game))

    async def _make_chart(self, game: WebGame) -> None:
        """After a won game: each seat's chance to win along it (everything is public now)."""
        from ..win_chart import chart_svg, win_timeline
        try:
            record = game.env.record()
            timeline = await off_loop(lambda: win_timeline(record))
            board = game.board(None)
            chart = {"type": "win_chart", "svg": chart_svg(timeline, board["names"], board["colours"]),
                     "swings": timeline["swings"]}
        except Exception as e:  # shown on the end screen, not hidden
            log.warning("win-chance chart failed: %s", e)
            chart = {"type": "win_chart", "error": f"the win-chance chart could not be drawn: {e}"}
        if game is self.game:
            self.chart = chart
            await asyncio.gather(*(self._send(p, chart) for p in list(self.pages.values())))

    # ---- the agents, and people who leave
    def _wake_agents(self) -> None:
        if self._wake is not None:
            self._wake.set()

    async def _agents(self) -> None:
        assert self._wake is not None
        while True:
            game = self.game
            if self.starting or not self.pages or not game.agent_to_move() or (self.paused and self.steps <= 0):
                self._wake.clear()
                await self._wake.wait()
                continue
            if self.paused:
                self.steps -= 1
            try:
                await off_loop(game.agent_step)
            except Exception:  # an agent's failure is logged and pauses the game
                log.exception("agent failed")
                self.paused, self.steps = True, 0
                reason = (f"{W.player_name(game.decider)}'s agent failed (the server's log says why); "
                          "the game is paused")
                await asyncio.gather(*(self._send(p, {"type": "error", "reason": reason})
                                       for p in list(self.pages.values())))
            if game is self.game:
                await self.broadcast()
            if self.delay > 0:
                await asyncio.sleep(self.delay)

    async def _watch_absence(self) -> None:
        """End the game once every person left for longer than the grace period."""
        while True:
            await asyncio.sleep(min(1.0, max(0.05, self.limits.grace_seconds / 4)))
            game = self.game
            if not game.over and self.presence.everyone_gone(self.limits.grace_seconds):
                game.abandoned = True
                await self.broadcast()

    # ---- the page's messages
    def _new_game_refusal(self, token: str) -> Optional[str]:
        if self.role(token) != HOST:
            return "only the host's page starts a new game"
        if self.starting:
            return "a new game is being set up"
        game, grace = self.game, self.limits.grace_seconds
        others = [s for s in game.people if s != self.seat(self.host_token) and not self.presence.gone(s, grace)]
        if others and not game.over:
            who = ", ".join(W.player_name(s) for s in others)
            return f"{who} still play{'s' if len(others) == 1 else ''} this game: start a new one when it is over"
        return None

    async def handle(self, page: Page, text: str) -> Optional[str]:
        """Apply one page message; the reason it was refused, or None."""
        if len(text.encode("utf-8", "surrogatepass")) > self.limits.message_bytes:
            return f"a message is at most {self.limits.message_bytes} bytes"
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            return "a message is one JSON object"
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            return 'a message is a JSON object with a "type"'
        kind, role = msg["type"], self.role(page.token)
        if role is None:
            return "this page's token is no longer valid"
        if kind in ("act", "discard"):
            seat = self.seat(page.token)
            if seat is None:  # a page that plays no seat is told so, whatever state it answered
                return NO_SEAT
            seen = msg.get("seq")
            if isinstance(seen, bool) or not isinstance(seen, int):
                return f"{kind}: seq, the number of the state the move answers, is required"
            if seen != page.seq:
                return "the game moved on since your page last updated: look again"
            return self.game.play(seat, msg.get("action")) if kind == "act" else \
                self.game.discard(seat, msg.get("cards"))
        if kind == "new_game":
            return await self._new_game(page, msg)
        if kind in ("pause", "step", "speed"):
            if role == WATCHER:
                return "a spectator's page only watches"
            if kind == "pause":
                if not isinstance(msg.get("paused"), bool):
                    return "pause: paused is true or false"
                self.paused, self.steps = msg["paused"], 0
            elif kind == "step":
                if not self.paused:
                    return "one move at a time works while the agents are paused"
                self.steps += 1
            else:
                delay = msg.get("delay")
                if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= 10:
                    return "delay is a number of seconds, 0-10"
                self.delay = float(delay)
            return None
        return f"unknown message type {kind[:40]!r}; a page sends act, discard, new_game, pause, step or speed"

    async def _new_game(self, page: Page, msg: Mapping[str, Any]) -> Optional[str]:
        refusal = self._new_game_refusal(page.token)
        if refusal:
            return refusal
        try:
            settings = new_game_settings(msg, self.roster)
        except ValueError as e:
            return f"new game: {e}"
        you = settings["you"]
        self.starting = True
        try:  # agents load networks and compile: off the event loop
            game = await off_loop(lambda: WebGame(
                settings["players"], seed=settings["seed"], options=settings["options"],
                tokens={} if you is None else {you: self.host_token}, labels=settings["names"]))
        except Exception as e:
            log.exception("new game failed")
            return f"new game: {e}"
        finally:
            self.starting = False
            self._wake_agents()
        old = self.game
        old.abandoned = old.abandoned or not old.over
        self.tokens.retire(old.tokens, game.tokens)
        self._serve(game)
        for p in self.pages.values():
            self.presence.arrive(self.seat(p.token))
        pages = {str(s): f"/#token={game.token(s)}" for s in game.people if s != you}
        await self._send(page, {"type": "new_game", "pages": pages})
        await asyncio.gather(*(self._send_board(p) for p in list(self.pages.values())))
        return None

    # ---- HTTP and WebSocket routes
    def _token(self, request: Any) -> str:
        """The request's token (a WebSocket's ``token.<token>`` subprotocol, else the
        ``X-Catan-Token`` header); 403 for an unknown or missing one.  Never the URL: an
        address's query ends up in logs and Referer headers."""
        from aiohttp import web
        token = request.headers.get(TOKEN_HEADER)
        for offered in request.headers.get("Sec-WebSocket-Protocol", "").split(","):
            offered = offered.strip()
            if offered.startswith(TOKEN_PROTOCOL):
                token = offered[len(TOKEN_PROTOCOL):]
        if self.role(token) is None:
            raise web.HTTPForbidden(text="unknown or missing token")
        return token

    async def _index(self, request: Any) -> Any:
        """The page itself holds no secret (its token stays in the address's fragment)."""
        from aiohttp import web
        with open(os.path.join(STATIC, "index.html"), encoding="utf-8") as f:
            return web.Response(text=f.read(), content_type="text/html")

    async def _static(self, request: Any) -> Any:
        from aiohttp import web
        name = request.match_info["name"]
        if name not in FILES:
            raise web.HTTPNotFound()
        with open(os.path.join(STATIC, name), encoding="utf-8") as f:
            return web.Response(text=f.read(), content_type=FILES[name])

    async def _record(self, request: Any) -> Any:
        from aiohttp import web
        self._token(request)
        try:
            text = self.game.record_json()
        except ValueError as e:
            raise web.HTTPConflict(text=str(e)) from None
        return web.Response(text=text, content_type="application/json",
                            headers={"Content-Disposition": 'attachment; filename="catan-game.json"'})

    def _refuse_page(self, token: str) -> Optional[Any]:
        """The HTTP error for a page beyond the caps, or None."""
        from aiohttp import web
        pages = [p for p in self.pages.values() if not p.ws.closed]
        if len(pages) >= self.limits.pages:
            return web.HTTPServiceUnavailable(text=f"at most {self.limits.pages} pages may be open at once")
        if self.role(token) == WATCHER:
            if sum(self.role(p.token) == WATCHER for p in pages) >= self.limits.watcher_pages:
                return web.HTTPTooManyRequests(text=f"at most {self.limits.watcher_pages} spectator pages")
            if sum(p.token == token for p in pages) >= self.limits.watcher_pages_per_token:
                return web.HTTPTooManyRequests(
                    text=f"at most {self.limits.watcher_pages_per_token} spectator pages per address")
        elif sum(p.token == token for p in pages) >= self.limits.pages_per_token:
            return web.HTTPTooManyRequests(text=f"at most {self.limits.pages_per_token} pages per address")
        return None

    async def _socket(self, request: Any) -> Any:
        from aiohttp import WSMsgType, web
        origin = request.headers.get("Origin")
        if origin is not None and origin not in (f"http://{request.host}", f"https://{request.host}"):
            # another site's page opening a socket here (a browser always names its origin)
            raise web.HTTPForbidden(text=f"pages of {origin[:80]} may not connect here")
        token = self._token(request)
        refused = self._refuse_page(token)
        if refused is not None:
            raise refused
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4 * self.limits.message_bytes, compress=False,
                                   protocols=(PROTOCOL,))
        page = Page(ws, token, self.limits)
        self.pages[ws] = page  # counted before the handshake's await: the caps hold
        seat = self.seat(token)
        game = self.game
        self.presence.arrive(seat)
        try:
            await ws.prepare(request)
            await self._send_board(page)
            if self.chart is not None:
                await self._send(page, self.chart)
            self._wake_agents()
            await self.broadcast()
            async for msg in ws:
                if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    continue
                if not page.rate.allow():
                    if page.rate.refused > self.limits.refused_before_close:
                        await ws.close(message=b"too many messages")
                        break
                    reply: Optional[str] = f"too many messages: at most {self.limits.messages_per_second:g} a second"
                elif msg.type == WSMsgType.BINARY:
                    reply = "binary frames are not accepted: send one JSON object as text"
                else:
                    try:
                        reply = await self.handle(page, msg.data)
                    except Exception as e:  # a message the checks above missed: refused, logged
                        log.exception("message refused")
                        reply = f"the server could not handle that message ({type(e).__name__})"
                if reply is not None:
                    await self._send(page, {"type": "error", "reason": reply})
                    continue
                self._wake_agents()
                await self.broadcast()
        finally:
            self.pages.pop(ws, None)
            if game is self.game:
                self.presence.leave(seat)
        return ws

    async def _start(self, app: Any) -> None:
        self._wake = asyncio.Event()
        self._spawn(self._agents())
        self._spawn(self._watch_absence())

    async def _shutdown(self, app: Any) -> None:
        """Close every page at once, so the server exits promptly (SIGTERM, Ctrl-C)."""
        from aiohttp import WSCloseCode
        # (a page that stopped reading may fail its close: a send that timed out cancelled the
        # socket's shared drain; the server stops all the same, so failures are collected)
        await asyncio.gather(*(asyncio.wait_for(p.ws.close(code=WSCloseCode.GOING_AWAY,
                                                           message=b"server shutting down"), self.limits.send_seconds)
                               for p in list(self.pages.values())), return_exceptions=True)

    async def _stop(self, app: Any) -> None:
        for task in list(self._tasks):
            task.cancel()

    def app(self) -> Any:
        """The aiohttp application serving this server's games."""
        from aiohttp import web

        @web.middleware
        async def headers(request: Any, handler: Any) -> Any:
            try:
                response = await handler(request)
            except web.HTTPException as e:  # refusals carry the headers too
                e.headers.update(SECURITY_HEADERS)
                raise
            if not getattr(response, "prepared", False):  # a WebSocket's were sent at its handshake
                response.headers.update(SECURITY_HEADERS)
            return response

        app = web.Application(client_max_size=self.limits.message_bytes, middlewares=[headers])
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/record.json", self._record)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._shutdown)
        app.on_cleanup.append(self._stop)
        return app


def serve(players: Sequence[str], host: str = "127.0.0.1", port: int = 8765, seed: int = 0,
          delay: float = 0.4, open_browser: bool = False, options: Optional[Dict[str, Any]] = None,
          allow: Optional[Mapping[str, str]] = None, limits: Optional[Limits] = None,
          check: bool = False) -> None:
    """Build the first game, print each page's address and run the server until
    interrupted (``check``: stop after printing, for scripts and the docs' tests)."""
    try:
        from aiohttp import web
    except ImportError:
        raise SystemExit('catan-play --web needs the [web] extra: pip install "catan_env[web]"') from None
    try:
        roster = Roster(allow)
        game = WebGame(players, seed=seed, options=options)
    except ValueError as e:
        raise SystemExit(f"catan-play --web: {e}") from None
    server = PlayServer(game, delay=delay, limits=limits, roster=roster)
    for label, url in server.addresses(f"http://{host}:{port}/"):
        print(f"{label}: {url}", flush=True)
    if check:
        return
    if open_browser:
        webbrowser.open(server.addresses(f"http://{host}:{port}/")[0][1])
    web.run_app(server.app(), host=host, port=port, print=None, shutdown_timeout=2)


__all__ = ["HUMAN", "Limits", "PlayServer", "Roster", "serve"]

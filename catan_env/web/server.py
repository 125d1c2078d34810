"""``catan-play --web``: play Catan against the agents (or watch them) in a browser.

aiohttp serves the page (HTML, script and style ship inside the package: nothing is
fetched from the internet) and one WebSocket per page; it is one small, well-kept
library giving both the HTTP routes and WebSockets on asyncio, with no separate ASGI
server to run.  Binds 127.0.0.1 unless ``--host`` says otherwise.  Each person's seat
has its own secret token in its address; the spectator address has another.  Every
message a page sends is validated (shape, seat, legality): a refused move gets a
one-line reason and changes nothing.  Agents think in a worker thread, so the page
never waits on them; a spectator (or any page) can pause, step and set the speed.
"""
import asyncio
import json
import os
import webbrowser
from typing import Any, Dict, Optional, Sequence

from .session import HUMAN, WebGame, new_game_settings

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
FILES = {"app.js": "application/javascript", "style.css": "text/css"}


def make_app(game: WebGame, delay: float = 0.4) -> Any:
    """The aiohttp application serving ``game``; ``delay``: seconds between agents' moves."""
    from aiohttp import WSMsgType, web

    app = web.Application()
    table = {"game": game}  # the game now served; a page's new-game form replaces it
    sockets: Dict[Any, str] = {}  # socket -> its page's token
    control = {"delay": float(delay), "paused": False, "steps": 0}
    wake = asyncio.Event()
    runner: Dict[str, Any] = {}

    def seat_now(token: str) -> int:
        """A page's seat in the game now: a person's seat, or -1 (watching)."""
        try:
            return table["game"].seat_of(token)
        except ValueError:
            return -1  # a person not seated in this game watches it

    async def send(ws: Any, msg: Dict[str, Any]) -> None:
        try:  # a page that stops reading must not stall the others
            await asyncio.wait_for(ws.send_json(msg), 10)
        except (asyncio.TimeoutError, ConnectionError):
            await ws.close()

    async def broadcast() -> None:
        game = table["game"]
        for ws, token in list(sockets.items()):
            if not ws.closed:
                await send(ws, {**game.state(seat_now(token)), "paused": control["paused"],
                                "delay": control["delay"], "result": game.result() if game.over else None})

    async def send_board(ws: Any, token: str) -> None:
        game, seat = table["game"], seat_now(token)
        board, _ = game.messages(seat)
        await send(ws, {**board, "players_specs": game.players,
                        "names": [f"{n} ({'you' if i == seat else game.players[i]})"
                                  for i, n in enumerate(board["names"])]})

    async def agents() -> None:
        loop = asyncio.get_running_loop()
        while True:
            game = table["game"]
            if not game.agent_to_move() or (control["paused"] and control["steps"] <= 0):
                wake.clear()
                await wake.wait()
                continue
            if control["paused"]:
                control["steps"] -= 1
            await loop.run_in_executor(None, game.agent_step)
            await broadcast()
            if control["delay"] > 0:
                await asyncio.sleep(control["delay"])

    def seat_from(request: Any) -> int:
        try:
            return table["game"].seat_of(request.query.get("token"))
        except ValueError:
            if request.query.get("token") in sockets.values():
                return -1  # a page of an earlier game of this server
            raise web.HTTPForbidden(text="unknown or missing token") from None

    async def index(request: Any) -> Any:
        seat_from(request)
        with open(os.path.join(STATIC, "index.html"), encoding="utf-8") as f:
            return web.Response(text=f.read(), content_type="text/html")

    async def static(request: Any) -> Any:
        name = request.match_info["name"]
        if name not in FILES:
            raise web.HTTPNotFound()
        with open(os.path.join(STATIC, name), encoding="utf-8") as f:
            return web.Response(text=f.read(), content_type=FILES[name])

    async def record(request: Any) -> Any:
        seat_from(request)
        try:
            text = table["game"].record_json()
        except ValueError as e:
            raise web.HTTPConflict(text=str(e)) from None
        return web.Response(text=text, content_type="application/json",
                            headers={"Content-Disposition": 'attachment; filename="catan-game.json"'})

    async def socket(request: Any) -> Any:
        seat_from(request)
        token = request.query["token"]
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        sockets[ws] = token
        await send_board(ws, token)
        await broadcast()
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                before = table["game"]
                reply = handle(token, msg.data)
                if reply is not None:
                    await send(ws, {"type": "error", "reason": reply})
                    continue
                if table["game"] is not before:  # a new game: every page gets its board again
                    game = table["game"]
                    pages = {s: f"/?token={t}" for t, s in game.tokens.items() if t != token}
                    await send(ws, {"type": "new_game", "pages": pages})
                    for other, t in list(sockets.items()):
                        await send_board(other, t)
                wake.set()
                await broadcast()
        finally:
            sockets.pop(ws, None)
            game = table["game"]
            if not any(seat_now(t) >= 0 for t in sockets.values()) and any(p == HUMAN for p in game.players) \
                    and not game.over:
                game.abandoned = True  # the last person's page closed: the game ends cleanly
                wake.set()
        return ws

    def handle(token: str, text: str) -> Optional[str]:
        """Apply one page message; the reason it was refused, or None."""
        try:
            msg = json.loads(text)
        except ValueError:
            return "a message is one JSON object"
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            return 'a message is a JSON object with a "type"'
        kind = msg["type"]
        game = table["game"]
        if kind == "act":
            return game.play(seat_now(token), msg.get("action"))
        if kind == "new_game":
            try:
                settings = new_game_settings(msg)
            except ValueError as e:
                return f"new game: {e}"
            you = settings.pop("you")
            table["game"] = WebGame(settings["players"], seed=settings["seed"], options=settings["options"],
                                    tokens={} if you is None else {you: token},
                                    spectator_token=game.spectator_token)
            return None
        if kind == "speed":
            delay = msg.get("delay")
            if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= 10:
                return "delay is a number of seconds, 0-10"
            control["delay"] = float(delay)
            return None
        if kind == "pause":
            control["paused"] = bool(msg.get("paused", True))
            return None
        if kind == "step":
            control["steps"] += 1
            return None
        return f"unknown message type {kind!r}"

    async def start(app: Any) -> None:
        runner["task"] = asyncio.get_running_loop().create_task(agents())

    async def stop(app: Any) -> None:
        task = runner.get("task")
        if task is not None:
            task.cancel()

    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/ws", socket)
    app.router.add_get("/record.json", record)
    app.on_startup.append(start)
    app.on_cleanup.append(stop)
    return app


def serve(players: Sequence[str], host: str = "127.0.0.1", port: int = 8765, seed: int = 0,
          delay: float = 0.4, open_browser: bool = False, options: Optional[Dict[str, Any]] = None) -> None:
    """Run the server until interrupted, after printing each page's address."""
    try:
        from aiohttp import web
    except ImportError:
        raise SystemExit('catan-play --web needs the [web] extra: pip install "catan_env[web]"') from None
    game = WebGame(players, seed=seed, options=options)
    base = f"http://{host}:{port}/"
    pages = [(f"seat {s} ({game.env.possible_agents[s]})", f"{base}?token={game.token(s)}")
             for s in sorted(game.tokens.values())]
    pages.append(("spectator", f"{base}?token={game.spectator_token}"))
    for label, url in pages:
        print(f"{label}: {url}", flush=True)
    if open_browser:
        webbrowser.open(pages[0][1])
    web.run_app(make_app(game, delay), host=host, port=port, print=None)

"""The browser play server (catan_env.web): messages carry no hidden information, every
request is validated, a whole game is played over the WebSocket, and its record replays.
Needs the [web] extra (aiohttp)."""
import asyncio
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request

import numpy as np
import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer  # noqa: E402

import catan_env  # noqa: E402
from catan_env.core import game as G  # noqa: E402
from catan_env.core import layout as L  # noqa: E402
from catan_env.core.record import GameRecord  # noqa: E402
from catan_env.infoset import InfoSet  # noqa: E402
from catan_env.web.server import make_app  # noqa: E402
from catan_env.web.session import WebGame  # noqa: E402
from catan_env.web.view import board_message, state_message  # noqa: E402


def midgame_state(seed, steps, players=4):
    env = catan_env.raw_env(players=players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return env.game_state.copy()


@pytest.mark.parametrize("seed,steps", [(1, 150), (2, 400), (3, 900)])
def test_messages_are_equal_for_true_states_that_differ_only_in_hidden_information(seed, steps):
    s = midgame_state(seed, steps)
    for seat in range(4):
        hidden = [p for p in range(4) if p != seat]
        # the same game for seat, others' hidden cards (and the dice's RNG) redrawn; prefer a
        # redraw whose hands or development cards differ where seat cannot see
        others = [G.determinize(s, seat, k) for k in range(30)]
        other = next((o for o in others if not np.array_equal(L.view(s, "hand")[hidden], L.view(o, "hand")[hidden])
                      or not np.array_equal(L.view(s, "dev_hand")[hidden], L.view(o, "dev_hand")[hidden])),
                     others[0])
        assert not np.array_equal(s, other)
        for spectator in (False, True):
            a = state_message(InfoSet(s, seat, 1), [], spectator)
            b = state_message(InfoSet(other, seat, 2), [], spectator)
            assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
        assert board_message(InfoSet(s, seat, 1)) == board_message(InfoSet(other, seat, 2))
        own = state_message(InfoSet(s, seat, 1), [])
        assert own["hand"] == L.view(s, "hand")[seat].tolist()  # the seat's own cards are there
        assert set(own["players"][0]) == {"vp", "cards", "devs", "knights", "road", "longest_road",
                                          "largest_army", "pieces_left"}  # counts only for others


def run(coro):
    return asyncio.run(coro)


async def connect(client, game, seat):
    ws = await client.ws_connect(f"/ws?token={game.token(seat) if seat >= 0 else game.spectator_token}")
    board = await ws.receive_json()
    assert board["type"] == "board" and len(board["vertices"]) == 54
    return ws


async def next_state(ws):
    while True:
        msg = await ws.receive_json()
        if msg["type"] in ("state", "error"):
            return msg


def test_tokens_and_bad_requests_are_refused_with_a_reason_and_change_nothing():
    async def go():
        game = WebGame(["human", "random", "human"], seed=5)
        async with TestClient(TestServer(make_app(game, delay=0))) as client:
            assert (await client.get("/")).status == 403
            assert (await client.get("/?token=nope")).status == 403
            assert (await client.get(f"/?token={game.token(0)}")).status == 200
            assert (await client.get(f"/static/app.js?token={game.token(0)}")).status == 200
            assert (await client.get("/static/../session.py")).status == 404
            assert (await client.get(f"/record.json?token={game.token(0)}")).status == 409  # not over yet
            me = await connect(client, game, 0)
            other = await connect(client, game, 2)
            watcher = await connect(client, game, -1)
            state = await next_state(me)
            assert state["decider"] == 0 and state["legal"]
            before = game.env.game_state.copy()
            for bad, reason in ((b"{", "JSON"), ({"action": 1}, "type"), ({"type": "act", "action": "74"}, "integer"),
                                ({"type": "act", "action": 1}, "not legal"), ({"type": "act", "action": 9999}, "integer"),
                                ({"type": "fly"}, "unknown message")):
                await (me.send_bytes(bad) if isinstance(bad, bytes) else me.send_json(bad))
                if isinstance(bad, bytes):  # a binary frame is ignored; say it as text
                    await me.send_str(bad.decode())
                assert reason in (await next_error(me))["reason"]
            legal = state["legal"][0]["id"]
            await other.send_json({"type": "act", "action": legal})
            assert "not your move" in (await next_error(other))["reason"]
            await watcher.send_json({"type": "act", "action": legal})
            assert "does not play a seat" in (await next_error(watcher))["reason"]
            assert np.array_equal(game.env.game_state, before)  # nothing changed
            await me.send_json({"type": "act", "action": legal})
            await asyncio.sleep(0.05)
            assert game.log[0]["action"] == state["legal"][0]["name"]
            for ws in (me, other, watcher):
                await ws.close()
            await asyncio.sleep(0.05)
            assert game.over and game.result()["abandoned"]  # the people left: the game ended
    run(go())


def test_a_person_plays_a_whole_game_against_random_and_its_record_replays(tmp_path):
    async def go():
        game = WebGame(["human", "random"], seed=11)
        async with TestClient(TestServer(make_app(game, delay=0))) as client:
            me = await connect(client, game, 0)
            rng = np.random.default_rng(0)
            moves = 0
            while True:
                msg = await next_state(me)
                if msg["type"] == "error":
                    continue  # a stale page (two states queued) may be refused: nothing changes
                if msg["result"]:
                    break
                if msg["decider"] == 0 and msg["legal"] and msg["seat"] == 0:
                    await me.send_json({"type": "act", "action": int(rng.choice([a["id"] for a in msg["legal"]]))})
                    moves += 1
            result = msg["result"]
            assert moves > 50 and result["winner"] in (0, 1) and not result["abandoned"]
            rolls = [m for m in msg["log"] if m["action"] == "ROLL"]
            assert rolls and all(2 <= m["roll"] <= 12 and len(m["gains"]) == 2 for m in rolls)
            assert any(sum(map(sum, m["gains"])) > 0 for m in rolls)  # production shown with the dice
            watcher = await connect(client, game, -1)  # (a page that reads nothing would stall its socket)
            seen = await next_state(watcher)
            assert seen["seat"] is None and seen["hand"] is None and seen["legal"] == []
            text = await (await client.get(f"/record.json?token={game.spectator_token}")).text()
            record = GameRecord.from_json(text)
            assert np.array_equal(record.final_state(), game.env.game_state)
            assert int(record.final_state()[L.WINNER]) == result["winner"]
            from catan_env.html_replay import write_html
            write_html(record, tmp_path / "game.html")  # what catan-render --html does with it
            assert "ROLL" in (tmp_path / "game.html").read_text()
            await me.close()
            await watcher.close()
    run(go())


def test_spectators_pause_step_and_set_the_speed():
    async def go():
        game = WebGame(["random", "random", "random"], seed=2)
        async with TestClient(TestServer(make_app(game, delay=0.05))) as client:
            ws = await connect(client, game, -1)
            await ws.send_json({"type": "pause", "paused": True})
            await asyncio.sleep(0.3)
            frozen = len(game.log)
            await asyncio.sleep(0.3)
            assert len(game.log) == frozen  # paused
            await ws.send_json({"type": "step"})
            await asyncio.sleep(0.3)
            assert len(game.log) == frozen + 1  # one move
            await ws.send_json({"type": "speed", "delay": "fast"})
            assert "delay" in (await next_error(ws))["reason"]
            await ws.send_json({"type": "speed", "delay": 0})
            await ws.send_json({"type": "pause", "paused": False})
            await asyncio.sleep(0.5)
            assert len(game.log) > frozen + 5  # it runs again
            await ws.close()
    run(go())


async def next_error(ws):
    while True:
        msg = await ws.receive_json()
        if msg["type"] == "error":
            return msg


def test_catan_play_web_binds_localhost_and_prints_a_page_per_person():
    import socket
    import time
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "catan_env.agents.terminal_play", "--web", "--players",
                             "human,random", "--port", str(port), "--vp", "6", "--no-trade", "--board",
                             "beginner"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        assert lines[0].startswith(f"seat 0 (player_0): http://127.0.0.1:{port}/?token=")
        assert lines[1].startswith(f"spectator: http://127.0.0.1:{port}/?token=")
        url = lines[0].split(": ", 1)[1].strip()
        for _ in range(100):  # until the server listens
            try:
                page = urllib.request.urlopen(url, timeout=5).read().decode()
                break
            except urllib.error.URLError:
                time.sleep(0.1)
        assert "static/app.js" in page
        with pytest.raises(urllib.error.HTTPError, match="403"):
            urllib.request.urlopen(re.sub(r"token=.*", "token=wrong", url), timeout=5)
        with pytest.raises(ValueError):
            WebGame(["human"])  # a game has 2-4 players
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_new_game_form_is_validated_and_starts_the_game_asked_for():
    async def go():
        game = WebGame(["human", "random"], seed=1)
        async with TestClient(TestServer(make_app(game, delay=0))) as client:
            me = await connect(client, game, 0)
            watcher = await connect(client, game, -1)
            for bad, reason in (({"players": ["human"]}, "players"),
                                ({"players": ["human", "nobody"]}, "nobody"),
                                ({"players": ["human", "random"], "you": 1}, "you"),
                                ({"players": ["human", "random"], "you": 0, "vp_to_win": 2}, "vp_to_win"),
                                ({"players": ["human", "random"], "you": 0, "board": "moon"}, "board"),
                                ({"players": ["human", "random"], "you": 0, "seed": -4}, "seed")):
                await me.send_json({"type": "new_game", **bad})
                assert reason in (await next_error(me))["reason"]
            await me.send_json({"type": "new_game", "players": ["random", "human", "human"], "you": 1,
                                "vp_to_win": 5, "domestic_trade": False, "board": "beginner", "seed": 3})
            msg = await me.receive_json()
            while msg["type"] != "new_game":
                msg = await me.receive_json()
            assert list(msg["pages"]) == ["2"]  # the other person's page address, to share
            other_token = msg["pages"]["2"].split("token=")[1]
            msg = await me.receive_json()
            while msg["type"] != "board":
                msg = await me.receive_json()
            assert msg["names"][1].endswith("(you)") and len(msg["names"]) == 3
            while True:
                state = await next_state(me)
                if state["type"] == "state" and state["seat"] == 1 and state["decider"] == 1:
                    break
            assert len(state["players"]) == 3 and state["legal"]
            seen = await next_state(watcher)
            while seen["type"] != "state" or len(seen["players"]) != 3:
                seen = await next_state(watcher)
            assert seen["seat"] is None
            assert (await client.get(f"/?token={other_token}")).status == 200
            await me.close()
            await watcher.close()
    run(go())

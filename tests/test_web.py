"""The browser play server (catan_env.apps.web): messages carry no hidden information, every
request is validated (shape, size, rate, role), tokens cannot be turned into another
seat, a person's seat survives a reload, a whole game is played over the WebSocket and its
record replays.  Needs the [web] extra (aiohttp)."""
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

pytest.importorskip("aiohttp")

import aiohttp  # noqa: E402
from aiohttp.test_utils import TestClient, TestServer  # noqa: E402

import catan_env  # noqa: E402
from catan_env.core import actions as A  # noqa: E402
from catan_env.core import game as G  # noqa: E402
from catan_env.core import layout as L  # noqa: E402
from catan_env.core.record import GameRecord  # noqa: E402
from catan_env.infoset import InfoSet  # noqa: E402
from catan_env.apps.web.limits import Limits  # noqa: E402
from catan_env.apps.web.roster import Roster  # noqa: E402
from catan_env.apps.web.server import SECURITY_HEADERS, PlayServer  # noqa: E402
from catan_env.apps.web.session import WebGame  # noqa: E402
from catan_env.apps.web.view import board_message, state_message  # noqa: E402

IDS = re.compile(r"\b[A-Z]+_[A-Z_]+\b|\([vhe]\d+|\b[vhe]\d+\b|\(\+\d\)|\+\d\)")  # BUILD_ROAD, (v45, h0, (+2)


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
            a = state_message(InfoSet(s, seat, 1), spectator)
            b = state_message(InfoSet(other, seat, 2), spectator)
            assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
        assert board_message(InfoSet(s, seat, 1)) == board_message(InfoSet(other, seat, 2))
        own = state_message(InfoSet(s, seat, 1))
        assert own["hand"] == L.view(s, "hand")[seat].tolist()  # the seat's own cards are there
        for move in own["legal"]:  # what a person reads is words, never ids
            assert not IDS.search(move["words"]), move["words"]
        assert not IDS.search(own["phase"]), own["phase"]


def run(coro):
    return asyncio.run(coro)


def legal_id(state):
    return state["legal"][0]["id"]


def serve(game, delay=0.0, **kw):
    server = PlayServer(game, delay=delay, **kw)
    return server, TestClient(TestServer(server.app()))


def token_protocols(token):
    """How a page hands its token over: a subprotocol offered beside the server's own."""
    return ("catan", f"token.{token}")


async def connect(client, token):
    ws = await client.ws_connect("/ws", protocols=token_protocols(token))
    board = await ws.receive_json()
    assert board["type"] == "board" and len(board["vertices"]) == 54
    return ws


async def next_of(ws, *kinds, timeout=60):
    while True:
        msg = await asyncio.wait_for(ws.receive_json(), timeout)
        if msg["type"] in kinds:
            return msg


async def next_state(ws):
    return await next_of(ws, "state")


async def next_error(ws):
    return await next_of(ws, "error")


async def latest_state(ws, quiet=0.3, last=None):
    """The last state a page was sent (its seq is the one a move must carry): ``last``,
    the newest one already read, or a newer one that comes within ``quiet`` seconds (with
    none read yet, the first may take up to a minute)."""
    while True:
        try:
            msg = await asyncio.wait_for(ws.receive_json(), last and quiet or 60)
        except asyncio.TimeoutError:
            return last
        if msg["type"] == "state":
            last = msg


def test_bad_requests_are_refused_with_a_reason_and_change_nothing():
    async def go():
        game = WebGame(["human", "random", "human"], seed=5)
        server, client = serve(game)
        async with client:
            page = await client.get("/")  # the page holds no secret: its token stays in the fragment
            assert page.status == 200 and server.host_token not in await page.text()
            for name, value in SECURITY_HEADERS.items():
                assert page.headers[name] == value
            assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
            assert (await client.get("/static/app.js")).status == 200
            assert (await client.get("/static/../session.py")).status == 404
            for protocols in ((), ("catan",), token_protocols("nope"), token_protocols("\u00e9t\u00e9")):
                with pytest.raises(aiohttp.WSServerHandshakeError, match="403"):
                    await client.ws_connect("/ws", protocols=protocols)
            with pytest.raises(aiohttp.WSServerHandshakeError, match="403"):  # another site's page
                await client.ws_connect("/ws", protocols=token_protocols(server.host_token),
                                        headers={"Origin": "http://evil.example"})
            assert (await client.get(f"/ws?token={server.host_token}")).status == 403  # never in the address
            assert (await client.get(f"/record.json?token={server.host_token}")).status == 403
            refused = await client.get("/record.json", headers={"X-Catan-Token": "nope"})
            assert refused.status == 403 and refused.headers["X-Frame-Options"] == "DENY"
            record = await client.get("/record.json", headers={"X-Catan-Token": server.host_token})
            assert record.status == 409  # not over yet
            me = await connect(client, server.host_token)
            other = await connect(client, game.token(2))
            watcher = await connect(client, server.spectator_token)
            state = await latest_state(me)
            other_seq, watcher_seq = (await latest_state(other))["seq"], (await latest_state(watcher))["seq"]
            assert state["decider"] == 0 and state["legal"] and state["role"] == "host"
            before = game.true_state()
            seq = state["seq"]
            for bad, reason in (("{", "JSON"), ({"action": 1}, "type"),
                                ({"type": "act", "action": "74", "seq": seq}, "integer"),
                                ({"type": "act", "action": 1.0, "seq": seq}, "integer"),
                                ({"type": "act", "action": True, "seq": seq}, "integer"),
                                ({"type": "act", "action": A.END_TURN, "seq": seq}, "not possible now"),
                                ({"type": "act", "action": 9999, "seq": seq}, "integer"),
                                ({"type": "pause", "paused": "no"}, "true or false"),
                                ({"type": "discard", "cards": [1, 0, 0, 0, 0], "seq": seq}, "nothing to discard"),
                                ({"type": "speed", "delay": 1e9}, "0-10"),
                                ({"type": "act", "action": 1, "pad": "x" * 5000}, "at most 4096 bytes"),
                                ("[" * 2000 + "]" * 2000, "one JSON object"),
                                ({"type": "act", "action": A.CONFIRM0, "seq": seq}, "not possible now"),
                                ({"type": "act", "action": legal_id(state), "seq": seq - 1}, "moved on"),
                                ({"type": "act", "action": legal_id(state)}, "seq"),  # a move says which state
                                ({"type": "act", "action": legal_id(state), "seq": True}, "seq"),
                                ({"type": "discard", "cards": [1, 0, 0, 0, 0]}, "seq"),
                                ({"type": "step"}, "while the agents are paused"),
                                ({"type": "fly"}, "unknown message")):
                await (me.send_str(bad) if isinstance(bad, str) else me.send_json(bad))
                assert reason in (await next_error(me))["reason"]
            await me.send_bytes(b'{"type": "act", "action": 1}')
            assert "binary frames are not accepted" in (await next_error(me))["reason"]
            assert not server.paused  # pause "no" paused nothing
            legal = state["legal"][0]["id"]
            await other.send_json({"type": "act", "action": legal, "seq": other_seq})
            assert "not your move" in (await next_error(other))["reason"]
            for seq_sent in ({"seq": watcher_seq}, {"seq": watcher_seq - 1}, {}):  # told why, whatever state it saw
                await watcher.send_json({"type": "act", "action": legal, **seq_sent})
                assert "does not play a seat" in (await next_error(watcher))["reason"]
                await watcher.send_json({"type": "discard", "cards": [1, 0, 0, 0, 0], **seq_sent})
                assert "does not play a seat" in (await next_error(watcher))["reason"]
            for msg in ({"type": "pause", "paused": True}, {"type": "step"}, {"type": "speed", "delay": 0}):
                await watcher.send_json(msg)
                assert "only watches" in (await next_error(watcher))["reason"]
            assert np.array_equal(game.true_state(), before)  # nothing changed
            await me.send_json({"type": "act", "action": legal, "seq": seq})
            await asyncio.sleep(0.1)
            assert game.executed()[0] == {"seat": 0, "action": legal}
            for ws in (me, other, watcher):
                await ws.close()
    run(go())


def test_the_spectator_link_never_plays_a_seat_and_nobody_wipes_another_persons_game():
    async def go():
        game = WebGame(["human", "random", "human"], seed=5)
        server, client = serve(game)
        async with client:
            host = await connect(client, server.host_token)
            friend = await connect(client, game.token(2))
            watcher = await connect(client, server.spectator_token)
            form = {"type": "new_game", "players": ["human", "random"], "you": 0, "seed": 1}
            await watcher.send_json(form)
            assert "only the host" in (await next_error(watcher))["reason"]
            await friend.send_json(form)
            assert "only the host" in (await next_error(friend))["reason"]
            await host.send_json(form)  # Orange (seat 2) still plays: the host may not wipe the game
            assert "Orange still plays this game" in (await next_error(host))["reason"]
            assert server.game is game
            # once the game is over the host starts the next; the spectator still only watches
            game.abandoned = True
            await host.send_json(form)
            await next_of(host, "new_game")
            new = server.game
            assert new is not game and new.seat_of(server.host_token) == 0
            assert new.seat_of(server.spectator_token) is None and server.role(server.spectator_token) == "watcher"
            seen = await next_state(watcher)
            while len(seen["players"]) != 2:
                seen = await next_state(watcher)
            seen = await latest_state(watcher, last=seen)
            assert seen["seat"] is None and seen["hand"] is None and seen["legal"] == []
            await watcher.send_json({"type": "act", "action": A.SETTLEMENT0, "seq": seen["seq"]})
            assert "does not play a seat" in (await next_error(watcher))["reason"]
            # Orange's old page watches the new game and plays nothing in it
            assert server.role(game.token(2)) == "watcher" and new.seat_of(game.token(2)) is None
            for ws in (host, friend, watcher):
                await ws.close()
    run(go())


def test_browser_chosen_agents_come_from_the_allow_list_only():
    async def go():
        game = WebGame(["human", "random"], seed=1)
        server, client = serve(game, roster=Roster({"mcts_small": "mcts:playouts=50"}))
        async with client:
            host = await connect(client, server.host_token)
            for bad, reason in ((["human", "value:path=/etc/passwd"], "not an agent this server offers"),
                                (["human", "mcts:iterations=1000000000"], "not an agent this server offers"),
                                (["human", "sb3:path=/tmp/x.zip"], "not an agent this server offers"),
                                (["human", "nobody"], "choose one of"),
                                (["human"], "players")):
                await host.send_json({"type": "new_game", "players": bad, "you": 0})
                assert reason in (await next_error(host))["reason"]
            await host.send_json({"type": "new_game", "players": ["human", "random"], "you": 0, "file": "/etc/passwd"})
            assert "unknown field" in (await next_error(host))["reason"]
            assert server.game is game
            game.abandoned = True
            await host.send_json({"type": "new_game", "players": ["human", "mcts_small"], "you": 0, "seed": 2})
            await next_of(host, "new_game")
            assert server.game.players == ["human", "mcts:playouts=50"]
            board = await next_of(host, "board")
            assert board["labels"] == ["you", "mcts_small"] and {"name": "jsettlers", "label": "JSettlers-style robot"} \
                in board["agents"]
            await host.close()
    with pytest.raises(ValueError, match="unknown agent 'best'"):
        Roster({"x": "best"})
    run(go())


def test_pages_messages_and_their_rate_are_capped():
    async def go():
        game = WebGame(["human", "random"], seed=3)
        limits = Limits(pages=3, pages_per_token=2, messages_per_second=5, burst=5, refused_before_close=10)
        server, client = serve(game, limits=limits)
        async with client:
            a = await connect(client, server.host_token)
            b = await connect(client, server.host_token)
            with pytest.raises(Exception) as refused:
                await client.ws_connect("/ws", protocols=token_protocols(server.host_token))
            assert "429" in str(refused.value)
            c = await connect(client, server.spectator_token)
            with pytest.raises(Exception) as full:
                await client.ws_connect("/ws", protocols=token_protocols(server.spectator_token))
            assert "503" in str(full.value)
            for _ in range(8):  # a burst of 5 passes, then the rate refuses
                await c.send_json({"type": "fly"})
            reasons = []
            while len(reasons) < 8:
                reasons.append((await next_error(c))["reason"])
            assert sum("too many messages" in r for r in reasons) >= 2
            for _ in range(40):  # keeps flooding: disconnected
                await c.send_json({"type": "fly"})
            msg = await asyncio.wait_for(c.receive(), 10)
            while msg.type.name == "TEXT":
                msg = await asyncio.wait_for(c.receive(), 10)
            assert msg.type.name in ("CLOSE", "CLOSED", "CLOSING")
            for ws in (a, b):
                await ws.close()
    run(go())


def test_one_spectator_link_cannot_hold_every_spectator_slot():
    async def go():
        game = WebGame(["human", "random", "human"], seed=3)
        server, client = serve(game, limits=Limits(watcher_pages=3, watcher_pages_per_token=2))
        async with client:
            a = await connect(client, server.spectator_token)
            b = await connect(client, server.spectator_token)
            with pytest.raises(aiohttp.WSServerHandshakeError, match="429"):
                await client.ws_connect("/ws", protocols=token_protocols(server.spectator_token))
            # a person of an earlier game watches through their own link: a slot is left for them
            server.tokens.retire(["a-person-of-an-earlier-game"], [])
            assert server.role("a-person-of-an-earlier-game") == "watcher"
            c = await connect(client, "a-person-of-an-earlier-game")
            for ws in (a, b, c):
                await ws.close()
    run(go())


def test_earlier_games_people_are_remembered_up_to_a_bound():
    from catan_env.apps.web.roles import MAX_FORMER, Tokens
    tokens = Tokens("host", "spectator")
    for k in range(MAX_FORMER + 10):
        tokens.retire([f"t{k}", "host"], kept=[])
    assert len(tokens.former) == MAX_FORMER and not tokens.watches("t0") and tokens.watches(f"t{MAX_FORMER + 9}")
    assert not tokens.watches("host") or tokens.is_host("host")
    tokens.retire(["again"], kept=["again"])  # a person of the next game plays: not a watcher
    assert "again" not in tokens.former


def test_a_reloaded_page_resumes_its_seat_with_the_whole_log_and_a_gone_person_ends_the_game():
    async def go():
        game = WebGame(["human", "random"], seed=11)
        server, client = serve(game, limits=Limits(grace_seconds=1.0))
        async with client:
            me = await connect(client, server.host_token)
            played = 0
            while played < 6:
                msg = await next_state(me)
                if msg["decider"] == 0 and msg["legal"]:
                    await me.send_json({"type": "act", "action": msg["legal"][0]["id"], "seq": msg["seq"]})
                    played += 1
                    await asyncio.sleep(0.06)
            await asyncio.sleep(0.2)
            await me.close()  # the reload: the page goes ...
            await asyncio.sleep(0.3)
            me = await connect(client, server.host_token)  # ... and comes back within the grace period
            msg = await next_state(me)
            assert msg["seat"] == 0 and msg["log_from"] == 0 and len(msg["log"]) == len(game.log) >= 6
            assert all(line and not IDS.search(line) for e in msg["log"] for line in e["lines"])
            await asyncio.sleep(1.3)
            assert not game.over  # the seat was kept
            await me.close()
            await asyncio.sleep(1.6)
            assert game.over and game.result()["abandoned"]  # nobody came back: the game ended
    run(go())


def test_a_seat_waits_a_whole_grace_period_after_its_last_page_closes():
    """Drop, come back, drop again just before the first drop's deadline: the seat waits
    the whole grace period from the second drop."""
    async def go():
        game = WebGame(["human", "random"], seed=11)
        server, client = serve(game, limits=Limits(grace_seconds=1.5))
        async with client:
            me = await connect(client, server.host_token)
            await me.close()
            await asyncio.sleep(1.0)
            me = await connect(client, server.host_token)
            await asyncio.sleep(0.2)
            await me.close()
            await asyncio.sleep(1.0)  # 2.2 s after the first drop, 1.0 s after the second
            assert not game.over
            await asyncio.sleep(1.5)
            assert game.over and game.result()["abandoned"]
    run(go())


def test_the_host_may_start_a_new_game_once_the_other_person_is_gone():
    async def go():
        game = WebGame(["human", "random", "human"], seed=5)
        server, client = serve(game, limits=Limits(grace_seconds=0.8))
        async with client:
            host = await connect(client, server.host_token)
            friend = await connect(client, game.token(2))
            form = {"type": "new_game", "players": ["human", "random"], "you": 0, "seed": 1}
            await host.send_json(form)
            assert "Orange still plays" in (await next_error(host))["reason"]
            await friend.close()  # Orange leaves for good
            await asyncio.sleep(1.2)
            assert not game.over  # the host is still there: the game goes on ...
            await host.send_json(form)  # ... but the host may start another
            await next_of(host, "new_game")
            assert server.game is not game and game.result()["abandoned"]
            await host.close()
        # a person who never opens their page counts as gone once the grace period passed
        game = WebGame(["human", "random", "human"], seed=6)
        server, client = serve(game, limits=Limits(grace_seconds=0.5))
        async with client:
            host = await connect(client, server.host_token)
            await asyncio.sleep(0.8)
            await host.send_json(form)
            await next_of(host, "new_game")
            await host.close()
    run(go())


def test_a_new_game_that_fails_to_build_leaves_the_old_one_running():
    async def go():
        game = WebGame(["random", "random", "random"], seed=2)
        server, client = serve(game, delay=0.02, roster=Roster({"broken": "mcts:playouts=0"}))
        async with client:
            host = await connect(client, server.host_token)
            await host.send_json({"type": "new_game", "players": ["broken", "random"], "you": None})
            assert "new game:" in (await next_error(host))["reason"] and server.game is game
            before = len(game.log)
            await asyncio.sleep(0.6)
            assert len(game.log) > before  # the agents went on
            await host.close()
    run(go())


def test_an_agents_only_game_waits_for_someone_to_watch():
    async def go():
        game = WebGame(["random", "random", "random"], seed=2)
        server, client = serve(game, delay=0)
        async with client:
            await asyncio.sleep(0.5)
            assert game.log == []  # nobody watches yet
            ws = await connect(client, server.spectator_token)
            await asyncio.sleep(0.5)
            assert len(game.log) > 5
            await ws.close()
    run(go())


def test_the_host_pauses_steps_and_sets_the_pace():
    async def go():
        game = WebGame(["random", "random", "random"], seed=2)
        server, client = serve(game, delay=0.05)
        async with client:
            ws = await connect(client, server.host_token)
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


def test_confirming_a_counter_offer_shows_and_executes_the_counter_terms():
    """The reviewer's game (seed 5): Orange counters "1 grain for 1 brick" with "1 grain for
    1 wool"; the confirm move says so, the offer panel says so, and it executes so."""
    game = WebGame(["human", "jsettlers", "jsettlers", "jsettlers"], seed=5)

    def agents():
        while game.agent_to_move():
            game.agent_step()

    agents()
    for action in (A.SETTLEMENT0 + 45, A.ROAD0 + 58):
        assert game.play(0, action) is None
    agents()
    for action in (A.SETTLEMENT0 + 34, A.ROAD0 + 42, A.ROLL):
        assert game.play(0, action) is None
        agents()
    assert game.play(0, A.OFFER0 + A.menu_index(1, L.RESOURCE_NAMES.index("grain"), 1,
                                               L.RESOURCE_NAMES.index("brick"))) is None
    agents()
    msg = game.state(0)
    answers = {a["seat"]: a["words"] for a in msg["offer"]["answers"]}
    assert msg["offer"]["words"] == "You offer 1 grain for 1 brick"
    assert answers[2] == "Orange counters: you would give 1 grain and get 1 wool"
    confirm = next(m for m in msg["legal"] if m["kind"] == "TRADE_CONFIRM" and m["terms"]["partner"] == 2)
    assert confirm["terms"]["give"] == [1, "grain"] and confirm["terms"]["get"] == [1, "wool"]
    assert "give 1 grain and get 1 wool" in confirm["words"] and "brick" not in confirm["words"]
    hand = L.view(game.true_state(), "hand")[0].copy()
    assert game.play(0, confirm["id"]) is None
    delta = L.view(game.true_state(), "hand")[0] - hand
    expect = np.zeros(L.N_RES, np.int64)
    expect[L.RESOURCE_NAMES.index("grain")] -= 1
    expect[L.RESOURCE_NAMES.index("wool")] += 1
    assert np.array_equal(delta, expect)
    assert any("traded" in line or "trade" in line for line in game.state(0)["log"][-1]["lines"])


def test_a_whole_discard_in_one_message():
    env_seed = next(seed for seed in range(200) if _discard_state(seed) is not None)
    game, seat = _discard_state(env_seed)
    due = int(game.true_state()[L.DISCARDS + seat])
    hand = L.view(game.true_state(), "hand")[seat].copy()
    assert "exactly" in game.discard(seat, [0, 0, 0, 0, 0])
    r = int(np.argmin(hand))  # more of one resource than the hand holds, the right total
    over = [0] * L.N_RES
    over[r] = int(hand[r]) + 1
    over[(r + 1) % L.N_RES] = max(0, due - over[r])
    if sum(over) == due:
        assert "you do not hold that many" in game.discard(seat, over)
    pick = np.array(greedy_discard(hand, due))
    assert game.discard(seat, [int(x) for x in pick]) is None
    after = game.true_state()
    assert np.array_equal(L.view(after, "hand")[seat], hand - pick) and int(after[L.DISCARDS + seat]) == 0


def greedy_discard(hand, due):
    """``due`` cards to discard, one at a time from the resource held most."""
    left, pick = [int(x) for x in hand], [0] * L.N_RES
    for _ in range(due):
        r = int(np.argmax(left))
        left[r] -= 1
        pick[r] += 1
    return pick


def _discard_state(seed):
    """A game where the person (seat 0) must discard, reached by random moves, or None."""
    game = WebGame(["human", "random"], seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(3000):
        if game.over:
            return None
        s = game.true_state()
        if int(s[L.PHASE]) == L.PH_DISCARD and game.decider == 0:
            return game, 0
        if game.agent_to_move():
            game.agent_step()
        else:
            legal = game.state(0)["legal"]
            game.play(0, int(rng.choice([m["id"] for m in legal])))
    return None


def test_a_person_plays_a_whole_game_and_the_end_screen_agrees_with_the_record(tmp_path):
    async def go():
        game = WebGame(["human", "random"], seed=11, options={"vp_to_win": 6})  # (a short game: moves are paced)
        server, client = serve(game, limits=Limits(messages_per_second=200.0))  # a quick person
        async with client:
            me = await connect(client, server.host_token)
            rng = np.random.default_rng(0)
            moves = 0
            while True:
                msg = await next_of(me, "state", "error")
                if msg["type"] == "error":
                    continue  # a stale page (two states queued) may be refused: nothing changes
                if msg["final"]:
                    break
                if msg["decider"] == 0 and msg["legal"]:
                    discard = [m for m in msg["legal"] if m["kind"] == "DISCARD"]
                    if discard:
                        pick = greedy_discard(msg["hand"], msg["players"][0]["discards"])
                        await me.send_json({"type": "discard", "cards": pick, "seq": msg["seq"]})
                    else:
                        await me.send_json({"type": "act", "action": int(rng.choice([a["id"] for a in msg["legal"]])),
                                            "seq": msg["seq"]})
                    moves += 1
                    await asyncio.sleep(0.006)  # a (quick) person's pace, under the rate cap
            final = msg["final"]
            result = game.result()
            assert moves > 50 and final["winner"] == result["winner"] in (0, 1) and not final["abandoned"]
            for p, row in enumerate(final["vp"]):  # the breakdown adds up to the VP the game counts
                assert row["total"] == result["vp"][p] == sum(row[k] for k in
                                                              ("settlements", "cities", "longest_road",
                                                               "largest_army", "vp_cards"))
            assert final["vp"][final["winner"]]["total"] >= 6
            rolls = [e for e in game.log if e["roll"]]
            assert rolls and all(1 <= d <= 6 for e in rolls for d in e["roll"])
            text = await (await client.get("/record.json", headers={"X-Catan-Token": server.spectator_token})).text()
            record = GameRecord.from_json(text)
            assert np.array_equal(record.final_state(), game.true_state())
            chart = await next_of(me, "win_chart", timeout=300)
            assert "svg" in chart, chart.get("error")
            await me.close()
    run(go())


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_cli(*args):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "catan_env.apps.play", "--web", "--port", str(port),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, port


def test_catan_play_web_binds_localhost_prints_pages_and_exits_promptly_on_sigterm():
    proc, port = start_cli("--players", "human,random", "--vp", "6", "--no-trade", "--board", "beginner")
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        assert lines[0].startswith(f"host, playing Red: http://127.0.0.1:{port}/#token=")
        assert lines[1].startswith(f"spectators: http://127.0.0.1:{port}/#token=")
        url = lines[0].split(": ", 1)[1].strip()
        token = url.split("#token=", 1)[1]
        for _ in range(200):  # until the server listens
            try:
                page = urllib.request.urlopen(url, timeout=5).read().decode()
                break
            except urllib.error.URLError:
                time.sleep(0.1)
        assert "static/app.js" in page and token not in page

        async def open_page_then_terminate():
            import aiohttp
            async with aiohttp.ClientSession() as session:
                with pytest.raises(aiohttp.WSServerHandshakeError, match="403"):
                    await session.ws_connect(f"ws://127.0.0.1:{port}/ws", protocols=token_protocols("wrong"))
                async with session.ws_connect(f"ws://127.0.0.1:{port}/ws", protocols=token_protocols(token)) as ws:
                    assert (await ws.receive_json())["type"] == "board"
                    proc.send_signal(signal.SIGTERM)
                    await asyncio.get_running_loop().run_in_executor(None, proc.wait, 60)
                    return proc.returncode
        assert run(open_page_then_terminate()) is not None  # a page open does not hold the server
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_sigterm_stops_the_server_at_once_while_an_agent_thinks():
    from catan_env.agents import make_agent
    env = catan_env.raw_env()
    env.reset(seed=0)
    make_agent("mcts:playouts=20", seed=0).act(env.observe("player_0"), env.infoset("player_0"))  # compiled
    # a move of 20 million playouts takes many minutes: the server must stop without it
    proc, port = start_cli("--players", "mcts:playouts=20000000,random", "--delay", "0")
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        token = lines[0].split("#token=", 1)[1].strip()

        async def watch_then_terminate():
            import aiohttp
            for _ in range(300):
                try:
                    async with aiohttp.ClientSession() as session:
                        async with session.ws_connect(f"ws://127.0.0.1:{port}/ws",
                                                      protocols=token_protocols(token)) as ws:
                            assert (await ws.receive_json())["type"] == "board"
                            await asyncio.sleep(2.0)  # the agent is thinking now
                            proc.send_signal(signal.SIGTERM)
                            await asyncio.get_running_loop().run_in_executor(None, proc.wait, 60)
                            return proc.returncode
                except aiohttp.ClientConnectorError:
                    await asyncio.sleep(0.1)
        assert run(watch_then_terminate()) is not None  # it stopped long before the move could end
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_catan_play_web_names_an_unknown_agent_in_one_line():
    proc, _ = start_cli("--players", "best,jsettlers", "--check")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "Traceback" not in err
    assert "unknown agent 'best'" in err and "jsettlers" in err and len(err.strip().splitlines()) == 1
    proc, _ = start_cli("--players", "random,weighted", "--check", "--allow", "mcts5k=mcts:playouts=5000")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.startswith("host, watching:") and "spectators:" in out


def test_a_page_shows_an_agents_kind_never_its_options_or_markup():
    roster = Roster()
    assert roster.describe("value:path=/home/me/nets/round-3.npz") == "value"
    assert roster.describe('<img src=x onerror="alert(1)">:a=b') == "agent"
    assert roster.describe("jsettlers") == "JSettlers-style robot"


@pytest.mark.parametrize("seed", range(6))
def test_an_offer_you_cannot_pay_says_why_there_is_no_accept(seed):
    """Whenever the page shows no Accept for an offer to you, it says what you lack, and
    it says nothing when Accept is there."""
    rng = np.random.default_rng(seed)
    s = G.new_game(seed=seed)
    said = 0
    for _ in range(3000):
        if G.is_over(s):
            break
        seat = int(s[L.DECIDER])
        if int(s[L.PHASE]) == L.PH_TRADE_RESPONSE:
            msg = state_message(InfoSet(s, seat, 1))
            can = any(m["kind"] == "TRADE_ACCEPT" for m in msg["legal"])
            r, n = int(s[L.TRADE_GET_RES]), int(s[L.TRADE_GET_N])
            assert can == (int(s[L.hand_i(seat, r)]) >= n)
            if can:
                assert "cannot_accept" not in msg["offer"]
            else:
                assert msg["offer"]["cannot_accept"].startswith("You cannot accept:") and \
                    f"you have {int(s[L.hand_i(seat, r)])}" in msg["offer"]["cannot_accept"]
                said += 1
        G.step(s, int(rng.choice(G.legal_actions(s))))
    assert said > 0


def test_with_a_person_at_the_table_the_value_agent_asks_no_two_for_one():
    with_person = WebGame(["human", "pretrained:search=0", "random"], seed=2)
    agents_only = WebGame(["pretrained:search=0", "random"], seed=2)
    assert with_person.agents[1].lopsided is False and agents_only.agents[0].lopsided is True


def test_work_off_the_event_loop_reuses_two_daemon_threads():
    import threading
    from catan_env.apps.web.server import off_loop

    async def go():
        names = await asyncio.gather(*(off_loop(lambda: (time.sleep(0.02), threading.current_thread())[1])
                                       for _ in range(12)))
        return {t.name for t in names}, all(t.daemon for t in names)
    names, daemons = run(go())
    assert len(names) <= 2 and daemons

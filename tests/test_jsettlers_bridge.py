"""The JSettlers bridge against the real JSettlers2 server and robots (Java and the jar:
``$JSETTLERS_JAR`` or ``../shared/jsettlers/``; the tests skip naming what is missing,
and CI forbids the skip): whole games of ours against three robots with the mirror
agreeing with every message, a trade made with a robot, a dropped connection, a doctored
message the mirror refuses, and a session replayed offline."""
import json
import os
import socket

import numpy as np
import pytest

from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.apps.jsettlers_bridge import protocol as P
from catan_env.apps.jsettlers_bridge.client import JSettlersClient, MirrorMismatch
from catan_env.apps.jsettlers_bridge.match import main as jsettlers_main
from catan_env.agents import make_agent
from catan_env.apps.jsettlers_bridge.match import forced_ends, play_game_on_server
from catan_env.apps.jsettlers_bridge.server import LocalJSettlersServer, jsettlers_available
from catan_env.apps.jsettlers_bridge.transcripts import read_transcript, replay_transcript
from catan_env.apps.jsettlers_bridge.wire import MessageConnection

MISSING = jsettlers_available()
needs_server = pytest.mark.skipif(MISSING is not None, reason=f"no JSettlers server here: {MISSING}")


def _play(spec, seed, **server):
    with LocalJSettlersServer(robots=3, **server) as srv:
        results, clients = play_game_on_server([spec], "127.0.0.1", srv.port, srv.cookie, f"t{seed}", seed)
    return results[0], clients[0]


@pytest.fixture(scope="module")
def random_game():
    if MISSING is not None:
        pytest.skip(f"no JSettlers server here: {MISSING}")
    return _play("random", 11)


def _check_agrees(res, client):
    assert "error" not in res, res.get("error")
    assert res["mismatches"] == [] and res["rejected"] == []
    m = client.mirror
    assert m.phase() == L.PH_GAME_OVER and res["winner"] == int(m.state[L.WINNER])
    vp = res["final_vp"]
    assert vp is not None and len(vp) == 4 and vp[res["winner"]] >= 10 and max(vp) == vp[res["winner"]]
    s = m.state  # every seat's public VP never exceeds what the server scored it
    for p in range(4):
        assert int(s[L.PUBLIC_VP + p]) <= vp[p]
    # our own VP, hidden cards included, is exactly the server's
    me = res["seat"]
    assert int(s[L.PUBLIC_VP + me] + s[L.dev_i(me, L.VICTORY_POINT)]) == vp[me]


@needs_server
def test_a_whole_game_of_random_against_three_robots(random_game):
    res, client = random_game
    _check_agrees(res, client)
    assert res["decisions"] > 20 and res["turns"] > 10
    assert res["network"] is None  # no value network played


def test_a_game_line_names_the_weights_that_played():
    """Each seat's value-network digest goes into the games.jsonl line (None for an agent
    without one), so a result names the weights it came from, whatever spec or file."""
    from catan_env.apps.jsettlers_bridge.match import game_line, network_digest
    digest = network_digest(make_agent("pretrained"))
    assert digest == make_agent("pretrained:search=1").network.digest() and network_digest(make_agent("random")) is None
    played = {"winner": 0, "seat": 1, "final_vp": [10, 6, 5, 4], "turns": 70, "repairs": 0, "edits": 0,
              "decisions": 90, "offers_received": 3, "offers_made": 5, "trades": 1, "seat_stats": []}
    line = game_line(0, ["pretrained", "random"], [dict(played, network=digest), dict(played, seat=2, network=None)],
                     12.0)
    assert line["networks"] == [digest, None] and line["our_vp"] == [6, 5]


def test_a_run_does_not_resume_over_games_of_other_weights():
    """A line-up's games.jsonl whose lines name other value-network weights than the
    agents load now is refused with the game and both digests named (a resumed run would
    mix two networks' games); lines of the same weights, or older lines that name none,
    resume."""
    from catan_env.apps.jsettlers_bridge.match import other_weights
    now = ["a1b2c3d4e5f6"]
    assert other_weights([{"game": 1, "networks": now}, {"game": 2}], now) is None
    why = other_weights([{"game": 1, "networks": now}, {"game": 2, "networks": ["0123456789ab"]}], now)
    assert "game 2" in why and "0123456789ab" in why and "a1b2c3d4e5f6" in why and "--out" in why


@needs_server
def test_a_domestic_trade_is_made_with_a_robot(random_game):
    """The random agent offers every turn it can; robots accept some: each completed trade
    with our seat is in the mirror as the core's offer / answers / confirm or an edit."""
    res, client = random_game
    assert res["offers_made"] > 0
    assert res["trades"] >= 1
    accepted = [t for d, t in client.transcript if d == "S" and t.startswith(f"{P.ACCEPTOFFER}|")]
    ours = [t for t in accepted if str(client.js_seat) in t.split(",")[1:3]]
    assert len(ours) == res["trades"]
    # every trade the server made is in the mirror: the core's confirm with a partner, or an edit
    confirms = [e for e in client.mirror.entries if e.kind == "act" and any(A.CONFIRM0 <= a < A.TRADE_CANCEL
                                                                             for a, _ in e.actions)]
    trades = [e for e in client.mirror.entries if e.kind == "edit" and e.args[0] == "trade"]
    assert len(confirms) + len(trades) == len(accepted)


@needs_server
def test_the_session_replays_offline_into_the_same_game(random_game, tmp_path):
    res, client = random_game
    path = tmp_path / "session.txt"
    path.write_text("".join(f"{d} {t}\n" for d, t in client.transcript))
    replayed = replay_transcript(read_transcript(str(path)), stop_on_mismatch=True)
    assert replayed.seat == client.seat and replayed.winner == client.winner
    assert len(replayed.mirror.entries) == len(client.mirror.entries)
    assert np.array_equal(replayed.mirror.state, client.mirror.state)


@needs_server
def test_a_doctored_message_stops_the_game_naming_the_event(random_game):
    """One roll's resources changed in the recorded session: the mirror refuses it."""
    res, client = random_game
    lines = list(client.transcript)
    k = next(i for i, (d, t) in enumerate(lines) if d == "S" and t.startswith(f"{P.DICERESULTRESOURCES}|"))
    d, t = lines[k]
    fields = t.split("|")
    fields[4] = str(int(fields[4]) + 1)  # the first gaining seat's new total, one card more
    lines[k] = (d, "|".join(fields))
    with pytest.raises(MirrorMismatch, match="holds"):
        replay_transcript(lines, stop_on_mismatch=True)


@needs_server
def test_a_whole_game_of_the_jsettlers_agent():
    res, client = _play("jsettlers", 12)
    _check_agrees(res, client)


@needs_server
def test_a_live_doctored_message_fails_fast(monkeypatch):
    """The live client, fed one doctored dice result, stops with MirrorMismatch."""
    real_read = MessageConnection.read
    state = {"done": False}

    def doctored(self, timeout=None):
        text = real_read(self, timeout)
        if text and not state["done"] and text.startswith(f"{P.DICERESULTRESOURCES}|"):
            state["done"] = True
            fields = text.split("|")
            fields[4] = str(int(fields[4]) + 2)
            text = "|".join(fields)
        return text

    monkeypatch.setattr(MessageConnection, "read", doctored)
    res, client = _play("random", 13)
    assert "MirrorMismatch" in res["error"] and "holds" in res["error"]
    assert client.mirror.mismatches


@needs_server
def test_a_dropped_connection_fails_the_game_and_keeps_its_session(tmp_path, monkeypatch):
    """Our seat's connection drops mid-game: the game is marked failed, naming the drop,
    its session is saved, and the next game on the same worker plays normally."""
    from catan_env.apps.jsettlers_bridge import match as M
    real_read = MessageConnection.read
    seen = {"n": 0}

    def dropping(self, timeout=None):
        seen["n"] += 1
        if seen["n"] == 400:  # well into the game
            self.sock.shutdown(socket.SHUT_RDWR)
        return real_read(self, timeout)

    monkeypatch.setattr(MessageConnection, "read", dropping)
    job = (0, ["random"], 21, None, 0, None, None, "", str(tmp_path), "smart", 3)
    game = M._job(job)
    assert game["failed"] and "the connection to the server dropped" in game["error"]
    assert (tmp_path / "session-00001-0.txt").exists()
    monkeypatch.setattr(MessageConnection, "read", real_read)
    again = M._job((1, ["random"], 21, None, 0, None, None, "", str(tmp_path), "smart", 3))
    M._drop_server()
    assert "error" not in again, again.get("error")


@needs_server
def test_catan_jsettlers_writes_resumable_results(tmp_path, capsys):
    out = tmp_path / "res"
    assert jsettlers_main(["--agents", "random", "--games", "1", "--out", str(out), "--seed", "5"]) == 0
    lines = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert len(lines) == 1 and "error" not in lines[0], lines[0].get("error")
    g = lines[0]
    for key in ("winner", "our_seats", "final_vp", "our_vp", "rejected", "mismatches", "declined_offers"):
        assert key in g
    # every seat's public pieces, as the server scored them (VP cards are the rest)
    assert len(g["seat_stats"]) == 4
    for vp, x in zip(g["final_vp"], g["seat_stats"]):
        built = x["settlements"] + 2 * x["cities"] + 2 * x["largest_army"] + 2 * x["longest_road"]
        assert built == x["public_vp"] <= vp and x["opening_pips"] > 0
    assert g["robot_forced_ends"] >= 0  # read from the local server's log
    assert g["attempts"] >= 1 and len(g["robots_seated"]) == 3 and all(n.startswith("robot ") for n in g["robots_seated"])
    text = capsys.readouterr().out
    assert "95% CI" in text and "mirror mismatches 0" in text and "rejected moves 0" in text
    # a second run with the same target plays nothing more
    assert jsettlers_main(["--agents", "random", "--games", "1", "--out", str(out), "--seed", "5"]) == 0
    assert len((out / "games.jsonl").read_text().splitlines()) == 1
    assert g["robots"] == "smart"
    # against the FAST robots the games are counted apart: one more is played, by droids
    assert jsettlers_main(["--agents", "random", "--games", "1", "--out", str(out), "--seed", "5",
                           "--robots", "fast"]) == 0
    lines = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert len(lines) == 2 and lines[1]["robots"] == "fast" and "error" not in lines[1], lines[1]
    assert all(n.startswith("droid ") for n in lines[1]["robots_seated"])
    log = "".join(p.read_text() for p in out.glob("server-*.log"))
    assert all(f"Robot arrived: droid {k}: built-in type" in log for k in (1, 2, 3))
    # the local server gives its built-in robots more than the shipped 8 s for a move
    from catan_env.apps.jsettlers_bridge.server import ROBOT_SECONDS
    assert f"built-in robots have {ROBOT_SECONDS} s for a move" in log and ROBOT_SECONDS > 8


@needs_server
def test_fast_robots_that_cannot_start_are_named(tmp_path, monkeypatch):
    """A FAST-robot launcher that does not compile (as without a JDK) stops the start,
    naming the robots and the log, and leaves no server behind."""
    from catan_env.apps.jsettlers_bridge import server as S
    broken = tmp_path / "FastRobots.java"
    broken.write_text("public class FastRobots { not java }\n")
    monkeypatch.setattr(S, "FAST_ROBOTS_SOURCE", str(broken))
    srv = LocalJSettlersServer(robot_strategy="fast", log_path=str(tmp_path / "server.log"))
    with pytest.raises(RuntimeError, match="FAST robots exited at start"):
        srv.start()
    assert srv.proc is None and srv.robots_proc is None
    with pytest.raises(OSError):  # the server it had started is gone
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()


def test_the_robot_strategies_are_checked():
    """(checked before anything is looked for on the machine)"""
    with pytest.raises(ValueError, match="robot_strategy"):
        LocalJSettlersServer(robot_strategy="clever")
    with pytest.raises(ValueError, match="up to 3 robots"):
        LocalJSettlersServer(robots=4)


def _exit_code(argv):
    try:
        return jsettlers_main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return exc.code


def test_bad_arguments_are_named(tmp_path, capsys):
    assert _exit_code(["--agents", "random,random,random,random", "--out", str(tmp_path)]) == 2
    assert "1 to 3" in capsys.readouterr().err
    assert _exit_code(["--agents", "random", "--pace", "300", "--out", str(tmp_path)]) == 2
    assert "--pace" in capsys.readouterr().err
    assert _exit_code(["--agents", "random", "--port", "1", "--out", str(tmp_path)]) == 2
    assert "--cookie" in capsys.readouterr().err
    assert _exit_code(["--agents", "nosuchagent", "--out", str(tmp_path)]) == 2
    assert "nosuchagent" in capsys.readouterr().err
    assert _exit_code(["--agents", "random", "--robots", "fast", "--host", "h", "--port", "1",
                       "--cookie", "c", "--out", str(tmp_path)]) == 2
    assert "running server has its own" in capsys.readouterr().err


def test_wire_messages_and_resources():
    assert P.split("1086|g|0|100|10") == (1086, ["g", "0", "100", "10"])
    assert P.split("1009|g,1,0,139") == (1009, ["g", "1", "0", "139"])
    vec = [1, 2, 3, 4, 5]  # brick, lumber, wool, grain, ore
    assert P.js_to_core(P.core_to_js(vec)) == vec
    assert P.core_to_js(vec) == [1, 5, 3, 4, 2]  # clay, ore, sheep, wheat, wood
    with pytest.raises(P.ProtocolError, match="type number"):
        P.split("hello|x")


def test_the_wire_frames_like_java_writeutf():
    """Two-byte big-endian lengths; a message split across reads waits for its rest; a
    zero timeout reads only what has already arrived."""
    import struct
    a, b = socket.socketpair()
    conn = MessageConnection.__new__(MessageConnection)
    conn.sock, conn.timeout, conn.buf, conn.transcript = a, 1.0, b"", []
    conn.send("1025|g,20")
    raw = b.recv(100)
    assert raw == struct.pack(">H", 9) + b"1025|g,20"
    text = "1009|g,0,1,107 é".encode()
    b.sendall(struct.pack(">H", len(text)) + text[:5])
    assert conn.read(0.1) is None  # half a message
    b.sendall(text[5:])
    assert conn.read(0.0) == "1009|g,0,1,107 é"
    assert conn.transcript == [("C", "1025|g,20"), ("S", "1009|g,0,1,107 é")]
    b.close()
    with pytest.raises(ConnectionError):
        conn.read(0.5)
    a.close()


DATA = os.path.join(os.path.dirname(__file__), "data", "jsettlers")


def _replayed(name):
    return replay_transcript(read_transcript(os.path.join(DATA, name)), stop_on_mismatch=True)


@pytest.mark.parametrize("name,edits,check", [
    # a 7 where the server discarded at random for our slow seat (and the others hid theirs)
    ("forced-discards.txt", [], lambda c: c.forced_discards == 1 and c.fallbacks == 1),
    # more ore in play than the core's 19: production granted, then a bank trade for ore
    ("bank-never-short.txt", ["grant", "grant", "grant", "bank_swap"], lambda c: True),
    # our draw was a knight the mirror had given away in an old guessed draw of another seat
    ("old-draw-guess.txt", [], lambda c: c.mirror.repairs > 0),
    # a monopoly: each victim's loss from the counts the server showed
    ("monopoly-counts.txt", ["trade", "resync"], lambda c: True),
    # unseen discards guessed, then a bank trade needing the cards guessed away
    ("hidden-discards.txt", ["retype", "retype"], lambda c: True),
    # a monopoly of 24 ore with 22 in play by the core's count: the bank pays the rest
    ("monopoly-past-19.txt", ["trade", "grant", "grant", "grant", "grant", "resync"], lambda c: True),
    # a counter-offer bundle (3 brick for 1 wool) needing a card the guesses gave elsewhere
    ("bundle-trade-retype.txt", ["retype", "trade"], lambda c: True),
    # a settlement paid with a wood the guesses gave elsewhere, after production the core's
    # bank could not pay: re-guessing would have replayed that production short and left
    # two other seats a card short, so a card is retyped instead
    ("repair-keeps-counts.txt", ["retype"], lambda c: True),
    # monopolies whose counts show a victim had fewer of the resource than the guesses gave
    # it, with the thief's every card known: the hidden bank takes the extra cards
    ("monopoly-open-1.txt", ["resync"], lambda c: True),
    ("monopoly-open-2.txt", ["trade", "resync"], lambda c: True),
])
def test_recorded_sessions_replay_without_a_disagreement(name, edits, check):
    """Sessions from real games that once stopped with a disagreement: each replays to its
    last message with the mirror agreeing, with exactly the direct edits named."""
    c = _replayed(name)
    assert c.mirror.mismatches == []
    assert [e.args[0] for e in c.mirror.entries if e.kind == "edit"] == edits
    assert check(c)
    s = c.mirror.state
    for p in range(4):  # every hand a real hand, every knowledge row a lower bound of it
        assert all(x >= 0 for x in c.mirror.hand(p))
        row = [int(s[L.know_i(c.seat, p, r)]) for r in range(L.KNOW_W)]
        assert sum(row) == sum(c.mirror.hand(p)) and all(row[r] <= c.mirror.hand(p)[r] for r in range(L.N_RES))


def test_a_robot_forced_out_of_its_set_up_stops_the_game():
    """The server ended a starved robot's set-up turn before its last road (its 8-s limit)
    and took back that settlement: the core has no set-up without it, so the game stops
    there, saying why."""
    from catan_env.apps.jsettlers_bridge.client import SetupTakenBack
    with pytest.raises(SetupTakenBack, match="took back seat .'s set-up settlement .* out of time"):
        _replayed("robot-forced-in-setup.txt")  # (a MirrorMismatch the match makes again)


# ---- the client's trade and robber flows, against scripted server messages (no server)
class _FakeConn:
    def __init__(self):
        self.sent = []

    def send(self, text):
        self.sent.append(text)

    def read(self, timeout=None):
        return None

    def close(self):
        pass


class _Scripted:
    """An agent that makes the first legal offer once, confirms a counter-offer, and
    otherwise plays ``then`` (an action kind: its first legal id)."""

    def __init__(self, then=None):
        self.offered, self.then = False, then

    def act(self, obs, info):
        legal = np.flatnonzero(obs["action_mask"])
        pick = [a for a in legal if A.CONFIRM0 <= a < A.TRADE_CANCEL]
        if not pick and not self.offered and self.then is None:
            pick = [a for a in legal if A.OFFER0 <= a < A.TRADE_ACCEPT]
            self.offered = bool(pick)
        if not pick and self.then is not None:
            lo, hi = self.then
            pick = [a for a in legal if lo <= a < hi]
        return int(pick[0] if pick else legal[0])


def _our_turn(agent):
    """A client at our turn (PLAY1, 4 grain in hand) from a recorded session, acting
    through a connection that records what it sends."""
    from catan_env.apps.jsettlers_bridge.transcripts import _ReplayClient
    lines = read_transcript(os.path.join(DATA, "old-draw-guess.txt"))
    c = _ReplayClient("t", 0, agent=agent, name="x")
    c.conn = _FakeConn()
    for d, t in lines[:294]:
        if d == "S":
            c.on_message(t)
    assert c.gs == P.PLAY1 and c.current == c.js_seat and c.mirror.decider() == c.seat
    c.conn.sent.clear()
    return c


def _act(c):
    JSettlersClient._maybe_act(c)


def test_a_counter_offer_is_confirmed_with_one_accept():
    c = _our_turn(_Scripted())
    g, me = c.game, c.js_seat
    _act(c)
    offer = c.conn.sent[-1]
    assert offer.startswith(f"{P.MAKEOFFER}|{g},{me},")
    c.on_message(offer)  # the server's echo
    c.on_message(f"{P.CLEARTRADEMSG}|{g},-1")
    others = [p for p in range(4) if p != me]
    flags = offer.split(",")[2:6]
    give = P.ints(offer.split(",")[6:11])
    want = [i for i in range(5) if give[i]][0]  # the robot asks 1 of what we offered
    robot_gives = [0] * 5
    robot_gives[(want + 1) % 5] = 1
    robot_wants = [0] * 5
    robot_wants[want] = 1
    to = ",".join("true" if p == me else "false" for p in range(4))
    assert flags.count("true") == 3
    c.on_message(f"{P.MAKEOFFER}|{g},{others[0]},{to},{','.join(map(str, robot_gives))},{','.join(map(str, robot_wants))}")
    c.on_message(f"{P.REJECTOFFER}|{g},{others[1]}")
    c.on_message(f"{P.REJECTOFFER}|{g},{others[2]}")
    _act(c)
    assert c.conn.sent[-1] == f"{P.ACCEPTOFFER}|{g},{me},{others[0]}"
    c.on_message(f"{P.CLEARTRADEMSG}|{g},-1")  # the server's next message is not the trade yet
    for _ in range(3):
        _act(c)
    assert sum(t.startswith(f"{P.ACCEPTOFFER}|") for t in c.conn.sent) == 1


def test_a_refused_bank_trade_is_rejected_and_banned():
    c = _our_turn(_Scripted(then=(A.MARITIME0, A.OFFER0)))
    _act(c)
    sent = c.conn.sent[-1]
    assert sent.startswith(f"{P.BANKTRADE}|{c.game},")
    action = c.pending["action"]
    c.on_message(f"{P.REJECTOFFER}|{c.game},-1,1")  # the server refuses, reason 1
    assert c.pending is None and len(c.rejected) == 1 and action in c.banned


def test_the_robbery_victim_is_one_the_server_offers():
    c = _our_turn(_Scripted())
    g = c.game
    mine = [p for p in range(4) if p != c.seat]
    c.rob_victim = mine[1]
    flags = ["true" if p != c.js_seat and c.cs(p) in mine[:2] else "false" for p in range(4)]
    c.on_message(f"{P.CHOOSEPLAYERREQUEST}|{g},{','.join(flags)}")
    _act(c)
    assert c.conn.sent[-1] == f"{P.CHOOSEPLAYER}|{g},{c.js(mine[1])}" and c.fallbacks == 0
    c.rob_victim = mine[2]  # not among the server's: the first it offers, counted
    c.on_message(f"{P.CHOOSEPLAYERREQUEST}|{g},NONE,{','.join(flags)}")
    _act(c)
    first = next(p for p in range(4) if flags[p] == "true")  # (in the server's seat order)
    assert c.conn.sent[-1] == f"{P.CHOOSEPLAYER}|{g},{first}" and c.fallbacks == 1


def test_the_front_page_shows_the_results_file():
    """The README's rows against the real robots are the results file's, as the strength
    script writes them (it rewrites both)."""
    from helpers import load_benchmark
    bench = load_benchmark("jsettlers_strength")
    with open(bench.RESULTS) as f:
        doc = json.load(f)
    with open(bench.README) as f:
        text = f.read()
    block = text.split(bench.README_START, 1)[1].split(bench.README_END, 1)[0].strip()
    assert block == bench.readme_rows(doc)
    assert len(doc["lineups"]) >= 1
    with open(bench.TABLE) as f:
        assert f.read() == bench.table(doc)


def test_a_stale_discard_request_is_ignored():
    """Our discard came after the server had made it for us; the server refused it and
    asked again in our next turn, when nobody discards.  The seat moves the robber instead
    of discarding (a discard there was refused without an answer: the game hung)."""
    from catan_env.apps.jsettlers_bridge.transcripts import _ReplayClient
    c = _ReplayClient("t", 0, agent=_Scripted(then=(A.ROBBER0, A.DISCARD0)), name="x")
    c.conn = _FakeConn()
    for d, t in read_transcript(os.path.join(DATA, "stale-discard-request.txt")):
        if d == "S":
            c.on_message(t)
    assert c.gs == P.PLACING_ROBBER and c.must_discard == 0 and c.mirror.decider() == c.seat
    _act(c)
    assert c.conn.sent[-1].startswith(f"{P.MOVEROBBER}|{c.game},{c.js_seat},")


def test_a_counter_to_our_previous_offer_is_not_taken_for_one_to_this():
    """A robot's counter that arrives before the server echoes our new offer answered the
    previous one (the server clears it): accepting it was refused in a strength run."""
    c = _our_turn(_Scripted())
    g, me = c.game, c.js_seat
    _act(c)
    offer = c.conn.sent[-1]
    others = [p for p in range(4) if p != me]
    to = ",".join("true" if p == me else "false" for p in range(4))
    c.on_message(f"{P.MAKEOFFER}|{g},{others[0]},{to},0,0,1,0,0,1,0,0,0,0")  # stale: before the echo
    c.on_message(offer)
    for p in others:
        c.on_message(f"{P.REJECTOFFER}|{g},{p}")
    _act(c)
    assert not any(t.startswith(f"{P.ACCEPTOFFER}|") for t in c.conn.sent)
    assert c.conn.sent[-1] == f"{P.CLEAROFFER}|{g},{me}"


def test_a_counter_offer_withdrawn_before_we_decide_is_not_accepted():
    """A robot counters our offer, then withdraws the counter (CLEAROFFER) before the
    last answer arrives: we do not accept it (the server refused that in a strength run)
    but withdraw our offer."""
    c = _our_turn(_Scripted())
    g, me = c.game, c.js_seat
    _act(c)
    offer = c.conn.sent[-1]
    others = [p for p in range(4) if p != me]
    to = ",".join("true" if p == me else "false" for p in range(4))
    c.on_message(offer)  # the server's echo
    c.on_message(f"{P.MAKEOFFER}|{g},{others[0]},{to},0,0,1,0,0,0,0,0,0,1")  # a counter...
    c.on_message(f"{P.CLEAROFFER}|{g},{others[0]}")                          # ...withdrawn
    for p in others[1:]:
        c.on_message(f"{P.REJECTOFFER}|{g},{p}")
    _act(c)
    assert not any(t.startswith(f"{P.ACCEPTOFFER}|") for t in c.conn.sent)
    assert c.conn.sent[-1] == f"{P.CLEAROFFER}|{g},{me}"


def test_an_accept_that_crosses_the_counters_withdrawal_is_a_late_answer():
    """We accept a robot's counter-offer; the robot withdraws it before the server reads
    our accept, which the server then refuses: a race, counted as a late answer (not a
    rejected move), and our offer is withdrawn."""
    c = _our_turn(_Scripted())
    g, me = c.game, c.js_seat
    _act(c)
    offer = c.conn.sent[-1]
    others = [p for p in range(4) if p != me]
    to = ",".join("true" if p == me else "false" for p in range(4))
    c.on_message(offer)
    for p in others[1:]:
        c.on_message(f"{P.REJECTOFFER}|{g},{p}")
    c.on_message(f"{P.MAKEOFFER}|{g},{others[0]},{to},0,0,1,0,0,0,0,0,0,1")  # the last answer: a counter
    _act(c)
    assert c.conn.sent[-1] == f"{P.ACCEPTOFFER}|{g},{me},{others[0]}"  # the counter is taken
    late = c.late_answers
    c.on_message(f"{P.CLEAROFFER}|{g},{others[0]}")   # withdrawn meanwhile...
    c.on_message(f"{P.REJECTOFFER}|{g},{me},1")       # ...so the server refuses our accept
    assert c.rejected == [] and c.late_answers == late + 1
    assert c.conn.sent[-1] == f"{P.CLEAROFFER}|{g},{me}"


def test_the_robots_turns_the_server_ended_are_counted_per_game(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("For robot robot 1: force end turn in game catan-7-5 pn=2 state 20\n"
                   "For robot robot 3: force end turn in game catan-7-51 pn=0 state 20\n"
                   "For robot cat12x0: force discard/pick in game catan-7-5 pn=1 state 50\n"
                   "For robot robot 2: force end turn in game catan-7-5 pn=3 state 15 (stubborn)\n"
                   "For robot droid 2: force end turn in game catan-7-5 pn=3 state 20\n")
    assert forced_ends(str(log), "catan-7-5") == 3
    assert forced_ends(str(log), "catan-7-51") == 1
    assert forced_ends(str(tmp_path / "missing.log"), "catan-7-5") == 0




def test_an_unreachable_server_is_one_clear_error(tmp_path, capsys):
    """A server nobody listens at is named once, with exit 2 and no games written (not a
    failed game per requested game)."""
    port = 1  # (tcpmux: nothing listens there)
    out = tmp_path / "res"
    assert _exit_code(["--agents", "random", "--host", "127.0.0.1", "--port", str(port), "--cookie", "c",
                       "--games", "3", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the JSettlers server" in err and f"127.0.0.1:{port}" in err and "refused" in err
    assert not (out / "games.jsonl").exists()


class _Messages(_FakeConn):
    """A connection that reads the given server messages, then times out."""

    def __init__(self, texts):
        super().__init__()
        self.texts = list(texts)

    def read(self, timeout=None):
        return self.texts.pop(0) if self.texts else None


def _host(texts):
    from catan_env.apps.jsettlers_bridge.client import GameHost
    host = GameHost.__new__(GameHost)
    host.conn, host.game, host.name, host.timeout = _Messages(texts), "g", "h", 1.0
    return host


def test_the_host_waits_for_our_seats_and_names_a_pool_that_left_them_out():
    from catan_env.apps.jsettlers_bridge.client import NotSeated
    sit = lambda pn, name: f"{P.SITDOWN}|g,{name},{pn},true"  # noqa: E731
    # ours among the four: who sits where
    assert _host([sit(2, "robot 1"), f"{P.SITDOWN}|other,cat1x0,0,true", sit(0, "cat1x0"), sit(1, "robot 2"),
                  sit(3, "droid 1")]).wait_seated(["cat1x0"]) == {2: "robot 1", 0: "cat1x0", 1: "robot 2", 3: "droid 1"}
    # every seat filled from the pool without ours: at once, naming the seats and ours
    with pytest.raises(NotSeated, match=r"robot 1, robot 2, droid 1, robot 3\) and drew none of cat1x0"):
        _host([sit(0, "robot 1"), sit(1, "robot 2"), sit(2, "droid 1"), sit(3, "robot 3")]).wait_seated(["cat1x0"])
    with pytest.raises(TimeoutError, match="not \\['cat1x1'\\]"):
        _host([sit(0, "cat1x0")]).wait_seated(["cat1x0", "cat1x1"], timeout=0.1)


def test_a_game_left_without_our_seat_is_made_again(monkeypatch):
    """play_game_on_server makes a new game (new names) when the server's pool left a
    seat of ours out, and names the pool after SEAT_ATTEMPTS games."""
    from catan_env.apps.jsettlers_bridge import match as M
    from catan_env.apps.jsettlers_bridge.client import NotSeated
    tried = []

    def seated(clients, host, port, game):
        tried.append((game, [c.name for c in clients]))
        if len(tried) < 3:
            raise NotSeated("left out")
        return [{"ok": True}], clients
    monkeypatch.setattr(M, "_play_seated", seated)
    results, clients = M.play_game_on_server(["random"], "h", 1, "c", "g", 7)
    assert results == [{"ok": True, "remade": [], "attempts": 3}]
    assert tried == [("g", ["cat7x0"]), ("ga2", ["cat7x0a2"]), ("ga3", ["cat7x0a3"])]
    assert results[0]["remade"] == []
    # a set-up the server broke (it took a robot's set-up settlement back): made again, said
    tried.clear()

    def broken_once(clients, host, port, game):
        tried.append(game)
        if len(tried) == 1:
            return [{"error": "SetupTakenBack: the server took back seat 1's set-up settlement"}], clients
        return [{"ok": True}], clients
    monkeypatch.setattr(M, "_play_seated", broken_once)
    results, _ = M.play_game_on_server(["random"], "h", 1, "c", "g", 7)
    assert tried == ["g", "ga2"] and results[0]["remade"] == ["SetupTakenBack: the server took back seat 1's "
                                                              "set-up settlement"]
    assert M.game_line(0, ["random"], [{"error": "x", "remade": ["why"]}], 1.0)["remade"] == ["why"]
    tried.clear()
    monkeypatch.setattr(M, "_play_seated", seated)
    monkeypatch.setattr(M, "SEAT_ATTEMPTS", 2)
    with pytest.raises(NotSeated, match="2 games in a row"):
        M.play_game_on_server(["random"], "h", 1, "c", "g", 7)


def test_our_offers_are_logged_with_every_answer():
    """Each of our offers keeps every seat's answer (a counter, the rejects, the counter
    we took) and what the mirror held, for the acceptance models."""
    from catan_env.learned import acceptance as C
    c = _our_turn(_Scripted())
    g, me = c.game, c.js_seat
    _act(c)
    offer = c.conn.sent[-1]
    c.on_message(offer)
    give = P.ints(offer.split(",")[6:11])
    want = [i for i in range(5) if give[i]][0]
    others = [p for p in range(4) if p != me]
    robot_gives, robot_wants = [0] * 5, [0] * 5
    robot_gives[(want + 1) % 5], robot_wants[want] = 1, 1
    to = ",".join("true" if p == me else "false" for p in range(4))
    c.on_message(f"{P.MAKEOFFER}|{g},{others[0]},{to},{','.join(map(str, robot_gives))},{','.join(map(str, robot_wants))}")
    c.on_message(f"{P.REJECTOFFER}|{g},{others[1]}")
    assert len(c.offer_log) == 1
    turn, menu, answers, cards, vp, asked, hands = c.offer_log[0]
    assert hands == [c.mirror.hand(p) for p in range(4)]
    assert turn == int(c.mirror.state[L.TURN]) and A.MENU_GIVE_RES[menu] == P.JS_TO_CORE_RES[want + 1]
    by_js = {p: answers[c.cs(p)] for p in range(4)}
    assert by_js == {me: C.ANSWER_SELF, others[0]: C.ANSWER_COUNTER, others[1]: C.ANSWER_REJECT,
                     others[2]: C.ANSWER_NONE}
    assert cards == [sum(c.mirror.hand(p)) for p in range(4)] and len(vp) == len(asked) == 4
    c.on_message(f"{P.REJECTOFFER}|{g},{others[2]}")
    _act(c)  # we take the counter; the server makes the trade
    assert c.conn.sent[-1] == f"{P.ACCEPTOFFER}|{g},{me},{others[0]}"
    c.on_message(f"{P.ACCEPTOFFER}|{g},{me},{others[0]},{','.join(map(str, robot_gives))},"
                 f"{','.join(map(str, robot_wants))}")
    assert c.offer_log[0][2][c.cs(others[0])] == C.ANSWER_COUNTER_TAKEN
    assert c.offer_log[0][2][c.cs(others[2])] == C.ANSWER_REJECT
    assert c.result()["offer_log"] == c.offer_log


def test_an_offer_for_some_partners_asks_only_them():
    """An agent that names the partners of its offer (``offer_recipients``) has the server
    send it to them alone; the others are logged as not asked, and the offer closes once
    the asked have answered."""
    from catan_env.learned import acceptance as C
    agent = _Scripted()
    c = _our_turn(agent)
    g, me = c.game, c.js_seat
    partner = (c.seat + 2) % 4  # a mirror seat
    agent.offer_recipients = [partner]
    _act(c)
    offer = c.conn.sent[-1]
    flags = offer.split(",")[2:6]
    assert [f == "true" for f in flags] == [p == c.js(partner) for p in range(4)]
    c.on_message(offer)
    answers = c.offer_log[0][2]
    assert answers == [C.ANSWER_SELF if p == c.seat else C.ANSWER_NONE if p == partner else C.ANSWER_NOT_ASKED
                       for p in range(4)]
    c.on_message(f"{P.REJECTOFFER}|{g},{c.js(partner)}")
    _act(c)  # every seat asked has answered: the offer is withdrawn at once
    assert c.conn.sent[-1] == f"{P.CLEAROFFER}|{g},{me}" and c.call is None


def test_offers_past_the_rule_options_cap_stay_legal_up_to_the_bridges():
    """--offers-per-turn above the rule option's 3: the state the agent reads keeps the
    cap the network knows and shows one offer left until the bridge's own cap."""
    from catan_env.core import rules as R
    c = _our_turn(_Scripted())
    c.offers_per_turn = 5

    def offer_legal(made):
        c.offers_this_turn = made
        s = c._decision_state()
        mask = np.zeros(A.N_ACTIONS, np.int8)
        R.legal_mask(s, mask)
        assert s[L.OPT_MAX_OFFERS] == 3
        return bool(mask[A.OFFER0:A.OFFER0 + A.N_MENU].any())
    assert [offer_legal(k) for k in range(7)] == [True] * 5 + [False] * 2
    for cap in (1, 2, 3):
        c.offers_per_turn = cap
        assert [offer_legal(k) for k in range(5)] == [True] * cap + [False] * (5 - cap), cap


def test_offers_per_turn_is_checked(tmp_path, capsys):
    assert _exit_code(["--agents", "random", "--offers-per-turn", "21", "--out", str(tmp_path)]) == 2
    assert "--offers-per-turn must be 1..20" in capsys.readouterr().err


def test_clients_of_a_game_that_never_started_are_closed(monkeypatch):
    """A server that stalls before seating us (wait_seated times out) leaves no client of
    ours connected: each is closed and its thread ends, so none can take the next game's
    seat."""
    from catan_env.apps.jsettlers_bridge import match as M

    class Host:
        def __init__(self, *a, **k):
            self.closed = False

        def start(self):
            pass

        def wait_seated(self, names, timeout=30.0):
            raise TimeoutError("the server seated nobody")

        def close(self):
            self.closed = True
    conns = []

    def connect(self, timeout=30.0):
        self.conn = _Messages([])
        self.conn.closed = False
        self.conn.close = lambda c=self.conn: setattr(c, "closed", True)
        conns.append(self.conn)
    monkeypatch.setattr(M, "GameHost", Host)
    monkeypatch.setattr(JSettlersClient, "connect", connect)
    clients = [JSettlersClient("h", 1, make_agent("random"), name=f"x{k}") for k in range(2)]
    with pytest.raises(TimeoutError, match="seated nobody"):
        M._play_seated(clients, "h", 1, "g")
    assert len(conns) == 2 and all(c.closed for c in conns)


def test_default_robots_take_one_seat_of_ours(tmp_path, capsys):
    assert _exit_code(["--agents", "random,random", "--robots", "default", "--out", str(tmp_path)]) == 2
    assert "--robots default plays one seat of ours" in capsys.readouterr().err

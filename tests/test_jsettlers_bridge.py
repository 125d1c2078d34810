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

from catan_env.core import layout as L
from catan_env.jsettlers_bridge import protocol as P
from catan_env.jsettlers_bridge.client import MirrorMismatch
from catan_env.jsettlers_bridge.match import main as jsettlers_main
from catan_env.jsettlers_bridge.match import play_game_on_server
from catan_env.jsettlers_bridge.server import LocalJSettlersServer, jsettlers_available
from catan_env.jsettlers_bridge.transcripts import read_transcript, replay_transcript
from catan_env.jsettlers_bridge.wire import MessageConnection

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
    from catan_env.jsettlers_bridge import match as M
    real_read = MessageConnection.read
    seen = {"n": 0}

    def dropping(self, timeout=None):
        seen["n"] += 1
        if seen["n"] == 400:  # well into the game
            self.sock.shutdown(socket.SHUT_RDWR)
        return real_read(self, timeout)

    monkeypatch.setattr(MessageConnection, "read", dropping)
    job = (0, ["random"], 21, None, 0, None, None, "", str(tmp_path))
    game = M._job(job)
    assert game["failed"] and "closed the connection" in game["error"]
    assert (tmp_path / "session-00001-0.txt").exists()
    monkeypatch.setattr(MessageConnection, "read", real_read)
    again = M._job((1, ["random"], 21, None, 0, None, None, "", str(tmp_path)))
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
    text = capsys.readouterr().out
    assert "95% CI" in text and "mirror mismatches 0" in text and "rejected moves 0" in text
    # a second run with the same target plays nothing more
    assert jsettlers_main(["--agents", "random", "--games", "1", "--out", str(out), "--seed", "5"]) == 0
    assert len((out / "games.jsonl").read_text().splitlines()) == 1


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


def test_wire_messages_and_resources():
    assert P.split("1086|g|0|100|10") == (1086, ["g", "0", "100", "10"])
    assert P.split("1009|g,1,0,139") == (1009, ["g", "1", "0", "139"])
    vec = [1, 2, 3, 4, 5]  # brick, lumber, wool, grain, ore
    assert P.js_to_core(P.core_to_js(vec)) == vec
    assert P.core_to_js(vec) == [1, 5, 3, 4, 2]  # clay, ore, sheep, wheat, wood
    with pytest.raises(P.ProtocolError, match="type number"):
        P.split("hello|x")
    assert os.path.basename(__file__)


DATA = os.path.join(os.path.dirname(__file__), "data", "jsettlers")


def _replayed(name):
    return replay_transcript(read_transcript(os.path.join(DATA, name)), stop_on_mismatch=True)


@pytest.mark.parametrize("name,edits,check", [
    # a 7 where the server discarded at random for our slow seat (and the others hid theirs)
    ("forced-discards.txt", [], lambda c: c.forced_discards == 2),
    # more ore in play than the core's 19: production granted, then a bank trade for ore
    ("bank-never-short.txt", ["grant", "grant", "grant", "bank_swap"], lambda c: True),
    # our draw was a knight the mirror had given away in an old guessed draw of another seat
    ("old-draw-guess.txt", [], lambda c: c.mirror.repairs > 0),
    # a monopoly: each victim's loss from the counts the server showed
    ("monopoly-counts.txt", ["trade", "resync"], lambda c: True),
    # unseen discards guessed, then a bank trade needing the cards guessed away
    ("hidden-discards.txt", ["retype", "retype"], lambda c: True),
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
    """The server ended a starved robot's set-up turn before its last road (its 8-s limit):
    the core has no set-up without that road, so the game stops at the next event, named."""
    with pytest.raises(MirrorMismatch, match="roll 8"):
        _replayed("robot-forced-in-setup.txt")

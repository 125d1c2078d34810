"""Matches on a Pioneers server: our agents against its AI players.

    catan-pioneers --agent jsettlers --games 10 --out results/pioneers
    catan-pioneers --agent jsettlers --ours 3 --games 10      # one AI against three of ours
    catan-pioneers --agent mcts --host 10.0.0.5 --port 5556   # join a server somebody runs

With no ``--port`` each game runs on a fresh local server (127.0.0.1, free ports, every
process ended afterwards) with ``4 - ours`` greedy AIs; our seats rotate over the games.
Each game appends a line to ``games.jsonl`` in the output folder (so an interrupted run
resumes where it stopped) and saves the mirror's record of our first seat as
``game-00001.json`` (``catan-render`` replays and draws it).  The report gives our
agent's wins with a 95% Wilson interval, mean VP, game length and ``rejected moves: N``.
"""
import argparse
import json
import os
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ...agents.arena import play_game
from ..bridge.results import games_so_far, summarize
from ...agents.registry import make_agent
from ...core import layout as L
from ...cli import UserError, compile_notice, parser, positive_int, user_errors
from .client import MirrorMismatch, PioneersClient
from .protocol import ProtocolError
from .server import LocalServer, pioneers_available

GAME_TIMEOUT_S = 600
AI_JOIN_S = 0.4  # an AI connects within about 0.2 s
CLIENT_TIMEOUT_S = 60  # a server silent this long has stalled


def play_local_game(agent_spec: str, ours: int = 1, first_seat: int = 0, seed: int = 0, vp: int = 10,
                    log_dir: Optional[str] = None, keep_transcript: bool = False,
                    ai_delay_ms: int = 0) -> Tuple[List[Dict[str, Any]], List[PioneersClient]]:
    """One game on a fresh local server: ``ours`` seats played by agent_spec starting at
    first_seat (seats are handed out in connection order), the others by greedy AIs.
    Returns (results of our clients, clients)."""
    n_ai = 4 - ours
    with LocalServer(ai_players=n_ai, vp=vp, log_dir=log_dir, max_seconds=GAME_TIMEOUT_S + 30,
                     ai_delay_ms=ai_delay_ms) as srv:
        our_seats = {(first_seat + j) % 4 for j in range(ours)}
        clients: List[PioneersClient] = []
        threads: List[threading.Thread] = []
        results: List[Dict[str, Any]] = []
        for seat in range(4):  # seats are handed out in connection order
            if seat not in our_seats:
                srv.start_ais(1, names=(f"AI{seat}",))
                time.sleep(AI_JOIN_S)
                continue
            k = len(clients)
            client = PioneersClient("127.0.0.1", srv.port, make_agent(agent_spec, seed=seed * 31 + k),
                                    name=f"catan_env{k}", seed=seed * 31 + k, timeout=CLIENT_TIMEOUT_S,
                                    keep_transcript=keep_transcript)
            clients.append(client)
            results.append({})
            th = threading.Thread(target=_run_client, args=(client, results[k]), daemon=True)
            th.start()
            threads.append(th)
            _wait_joined(client)
        deadline = time.monotonic() + GAME_TIMEOUT_S
        for th in threads:
            th.join(max(0.0, deadline - time.monotonic()))
        for client, res in zip(clients, results):
            if not res:
                res["error"] = "the game did not finish in time"
    return results, clients


def _save_partial(client: PioneersClient, args: argparse.Namespace, host: str,
                  port: int) -> Optional[str]:
    """Save the mirror's record of a game cut short; its path, or None without a mirror."""
    mirror = getattr(client, "mirror", None)
    if mirror is None:
        return None
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"joined-{host}-{port}-seat{client.seat}-partial.json")
    mirror.record().save(path)
    return path


def _run_client(client: PioneersClient, out: Dict[str, Any]) -> None:
    try:
        out.update(client.play())
    except Exception as exc:  # reported per game; the match goes on
        out["error"] = f"{type(exc).__name__}: {exc}"
        if getattr(client, "mirror", None) is not None:
            out.update(mismatches=client.mirror.mismatches, rejected=client.rejected)


def _wait_joined(client: PioneersClient, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while getattr(client, "mirror", None) is None and time.monotonic() < deadline:
        time.sleep(0.02)


@user_errors("catan-pioneers")
def main(argv: Optional[Sequence[str]] = None) -> int:
    p = parser("catan-pioneers", "Play our agents against the Pioneers server's AI players.")
    p.add_argument("--agent", default="jsettlers", help="agent spec (see catan-arena --help)")
    p.add_argument("--games", type=positive_int, default=10,
                   help="games in all: those already in OUT/games.jsonl for this agent and --ours "
                        "count, the rest are played")
    p.add_argument("--ours", type=int, choices=(1, 2, 3), default=1,
                   help="seats our agent plays (the rest are Pioneers AIs)")
    p.add_argument("--out", default="results/pioneers", help="folder for games.jsonl and records")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the run (our agents and the seat rotation per game derive from it)")
    p.add_argument("--host", default=None, help="join this server instead of starting one")
    p.add_argument("--port", type=int, default=None, help="port of --host's game")
    p.add_argument("--name", default="catan_env", help="player name on a joined server")
    p.add_argument("--reconnect-tries", type=int, default=4,
                   help="times a joined game tries to take its seat back after a dropped "
                        "connection (0: never)")
    p.add_argument("--reconnect-backoff", type=float, default=0.5,
                   help="seconds before the first reconnect try; doubled before each next one")
    args = p.parse_args(argv)
    if args.host is not None:
        if args.port is None:
            p.error("--host needs --port")
        try:
            client = PioneersClient(args.host, args.port, make_agent(args.agent, seed=args.seed),
                                    name=args.name, seed=args.seed, timeout=3600,
                                    reconnect_tries=args.reconnect_tries,
                                    reconnect_backoff=args.reconnect_backoff)
        except ValueError as exc:  # a bad --reconnect-* value, named
            p.error(str(exc))
        try:
            res = client.play()
        except ProtocolError as exc:
            raise UserError(f"cannot play on {args.host}:{args.port}: {exc}") from None
        except (OSError, TimeoutError, MirrorMismatch, ValueError, IndexError, KeyError) as exc:
            # the game is failed (a silent server, a disagreement, a line the client could not
            # read, or a dropped connection it could not take back: the server gone, or events
            # missed while away); what the mirror followed so far is kept
            saved = _save_partial(client, args, args.host, args.port)
            raise UserError(f"the game on {args.host}:{args.port} failed: {exc}; "
                            + (f"the partial record is in {saved}" if saved else "no record to save")) from None
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"joined-{args.host}-{args.port}-seat{res['seat']}.json")
        client.mirror.record().save(path)
        again = f"; reconnected {res['reconnects']} times" if res["reconnects"] else ""
        print(f"winner: seat {res['winner']} (we were seat {res['seat']}{again}); record: {path}")
        print(f"rejected moves: {len(res['rejected'])}")
        return 0
    reason = pioneers_available()
    if reason is not None:
        raise UserError(f"cannot start a local Pioneers server: {reason}")
    games = games_so_far(args.out, lambda g: g.get("agent") == args.agent and g.get("ours") == args.ours)
    path = os.path.join(args.out, "games.jsonl")
    start = len(games)
    compiled = compile_notice(beside=[args.agent]) if start < args.games else None
    if compiled is not None:  # compile before the first server starts waiting on us
        play_game([args.agent] * 4, args.seed, max_turns=2)
        compiled()
    for i in range(start, args.games):
        t0 = time.time()
        results, clients = play_local_game(args.agent, ours=args.ours, first_seat=i % 4,
                                           seed=args.seed * 100003 + i, keep_transcript=True)
        game = _game_line(args, i, results, clients, time.time() - t0)
        if "error" in game or game["rejected"] or game["mismatches"]:
            for k, c in enumerate(clients):  # the session, to replay and debug offline
                with open(os.path.join(args.out, f"session-{i + 1:05d}-{k}.txt"), "w") as f:
                    f.writelines(f"{d} {line}\n" for d, line in (c.transcript or []))
        if clients and getattr(clients[0], "mirror", None) is not None:
            try:
                clients[0].mirror.record().save(os.path.join(args.out, f"game-{i + 1:05d}.json"))
            except Exception as exc:  # a record that does not replay is reported, not fatal
                game["record_error"] = str(exc)
        games.append(game)
        with open(path, "a") as f:
            f.write(json.dumps(game) + "\n")
        status = "error: " + game["error"] if "error" in game else f"winner seat {game['winner']}"
        print(f"game {i + 1}/{args.games}: {status} ({game['seconds']:.0f} s)", flush=True)
    s = summarize(games, args.ours)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(s, f, indent=2)
    print(f"{args.agent} x{args.ours} vs {4 - args.ours} Pioneers AI: {s['wins']}/{s['games']} wins "
          f"({100 * s['win_rate']:.1f}%, 95% CI {100 * s['ci95'][0]:.1f}-{100 * s['ci95'][1]:.1f}%; "
          f"parity {100 * s['parity']:.0f}%), mean VP {s['mean_vp']:.2f}, "
          f"mean length {s['mean_turns']:.0f} turns, failed games {s['failed']}, "
          f"mirror mismatches {s['mismatches']}")
    print(f"rejected moves: {s['rejected']}, fallbacks: {s['fallbacks']}")
    return 0


def _game_line(args: argparse.Namespace, i: int, results: List[Dict[str, Any]],
               clients: List[PioneersClient], seconds: float) -> Dict[str, Any]:
    errors = [r["error"] for r in results if "error" in r]
    game: Dict[str, Any] = {
        "game": i + 1, "agent": args.agent, "ours": args.ours, "seconds": round(seconds, 1),
        "rejected": sum(len(r.get("rejected", [])) for r in results),
        "mismatches": sum(len(r.get("mismatches", [])) for r in results),
        "fallbacks": sum(r.get("fallbacks", 0) for r in results),
        "reconnects": sum(r.get("reconnects", 0) for r in results),
        "rejected_detail": [x for r in results for x in r.get("rejected", [])][:10],
        "mismatch_detail": [x for r in results for x in r.get("mismatches", [])][:10]}
    if errors:
        game["error"] = errors[0]
        return game
    first = results[0]
    our_seats = [r["seat"] for r in results]
    our_vp = []
    for c in clients:
        s = c.mirror.state
        our_vp.append(int(s[L.PUBLIC_VP + c.seat] + s[L.dev_i(c.seat, L.VICTORY_POINT)]))
    game.update(winner=first["winner"], our_seats=our_seats, our_vp=our_vp,
                turns=first["turns"], repairs=sum(r["repairs"] for r in results),
                edits=sum(r["edits"] for r in results),
                decisions=sum(r["decisions"] for r in results),
                offer_log=[rec for r in results for rec in r.get("offer_log", [])])
    return game


if __name__ == "__main__":
    sys.exit(main())

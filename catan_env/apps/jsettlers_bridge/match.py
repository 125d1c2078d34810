"""Matches on a real JSettlers2 server: our agents against its robots (the papers' yardstick).

    catan-jsettlers --agents jsettlers --games 20 --out results/jsettlers
    catan-jsettlers --agents mcts,mcts --games 10            # two of ours, two robots
    catan-jsettlers --agents random --host 10.0.0.5 --port 8880 --cookie C   # a running server

With no ``--port`` each worker runs a local server (from ``--jar``, ``$JSETTLERS_JAR`` or
``../shared/jsettlers/``) with ``4 - len(agents)`` built-in robots (``--robots default``: the server's default mix of
four, one FAST); every game is started by an observer and the server seats its robots
and ours at random from its pool: a game whose seats it filled without all of ours is
dropped and made again (``SEAT_ATTEMPTS`` games at most, then the run stops naming the
pool).  A server that cannot be reached stops the run with exit 2.  Our seats join as
third-party robots, so the game counts as robots-only and the robots play at
``--pace`` percent of their human-speed pauses (0: no pauses).  Each game appends a line
to ``games.jsonl`` in the output folder (an interrupted run resumes where it stopped); a
game that failed or disagreed with the server keeps its session as
``session-NNNNN-K.txt`` (``replay_transcript`` replays it offline).  The report gives our
wins with a 95% Wilson interval, mean VP, game length, failed games, rejected moves and
mirror mismatches.
"""
import json
import multiprocessing.util
import os
import socket
import statistics
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ...agents.arena import play_game
from ...agents.registry import make_agent
from ...cli import UserError, compile_notice, parser, positive_int, user_errors
from ..bridge.results import games_so_far, summarize
from .client import AGENT_MAX_OFFERS, GameHost, JSettlersClient, NotSeated, SetupTakenBack
from .server import ROBOT_STRATEGIES, LocalJSettlersServer, jsettlers_available

CLIENT_TIMEOUT_S = 120     # a server silent this long has stalled
GAME_TIMEOUT_S = 3600

_server: Optional[LocalJSettlersServer] = None  # this process's local server


def _local_server(robots: int, jar: Optional[str], pace: int, log_dir: Optional[str] = None,
                  strategy: str = "smart") -> LocalJSettlersServer:
    global _server
    if _server is None or _server.proc is None or _server.proc.poll() is not None or \
            (_server.robots_proc is not None and _server.robots_proc.poll() is not None):
        if _server is not None:
            _server.stop()  # (what is left of it: its FAST robots, or the server)
        log = os.path.join(log_dir, f"server-{os.getpid()}.log") if log_dir else None
        _server = LocalJSettlersServer(robots=robots, jar=jar, pause_percent=pace, log_path=log,
                                       robot_strategy=strategy)
        _server.start()
        # a pool's worker leaves through os._exit: its server ends with multiprocessing's
        # finalizers (atexit would not run there)
        multiprocessing.util.Finalize(None, _drop_server, exitpriority=10)
    return _server


REACH_TIMEOUT_S = 10.0


def unreachable(host: str, port: int, timeout: float = REACH_TIMEOUT_S) -> Optional[str]:
    """Why no connection opens to host:port, in words; None when one does."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except socket.timeout:
        return f"no answer from {host}:{port} within {timeout:.0f} s"
    except OSError as exc:
        return f"{host}:{port}: {exc.strerror or exc}"


def _drop_server() -> None:
    """After a failed game: a fresh server for the next (the old game may still run)."""
    global _server
    if _server is not None:
        _server.stop()
    _server = None


def play_game_on_server(specs: Sequence[str], host: str, port: int, cookie: str, game: str, seed: int,
                        keep_transcript: bool = True, offers_per_turn: int = AGENT_MAX_OFFERS
                        ) -> Tuple[List[Dict[str, Any]], List[JSettlersClient]]:
    """One game: our agents (one client each) join as robots, an observer starts the game.
    Returns (each client's result or {"error": ...}, the clients)."""
    remade: List[str] = []  # why each game made again was dropped (a set-up the server broke)
    for attempt in range(1, SEAT_ATTEMPTS + 1):
        clients = [JSettlersClient(host, port, make_agent(spec, seed=seed * 31 + k),
                                   name=f"cat{seed % 100000}x{k}" + (f"a{attempt}" if attempt > 1 else ""),
                                   cookie=cookie, seed=seed * 31 + k, timeout=CLIENT_TIMEOUT_S,
                                   keep_transcript=keep_transcript, offers_per_turn=offers_per_turn)
                   for k, spec in enumerate(specs)]
        try:
            results, clients = _play_seated(clients, host, port, game if attempt == 1 else f"{game}a{attempt}")
        except NotSeated as exc:
            if attempt == SEAT_ATTEMPTS:
                raise NotSeated(f"{exc}; {SEAT_ATTEMPTS} games in a row left a seat of ours out (a robot "
                                "pool much larger than the free seats)") from None
            continue
        taken_back = [r["error"] for r in results if r.get("error", "").startswith(SetupTakenBack.__name__)]
        if taken_back and attempt < SEAT_ATTEMPTS:
            remade.append(taken_back[0])
            continue
        for r in results:
            r["remade"] = list(remade)
            r["attempts"] = attempt
        return results, clients
    raise AssertionError("unreachable")


# a game whose seats the server filled without one of ours is dropped (it ends when its
# observer leaves) and a new one is made, this many times at most; so is a game whose
# set-up the server broke by ending a robot's set-up turn (a robot that placed an illegal
# set-up road, once in about 60 games against SMART robots on 2026-12-08), counted in the
# line's ``remade``
SEAT_ATTEMPTS = 12


def _close(clients: Sequence[JSettlersClient], threads: Sequence[threading.Thread], wait_s: float = 5.0) -> None:
    """Close every client's connection (a thread reading it wakes up and ends) and give
    the threads a moment to end."""
    for c in clients:
        if c.conn is not None:
            c.conn.close()
    deadline = time.monotonic() + wait_s
    for th in threads:
        th.join(max(0.0, deadline - time.monotonic()))


def _play_seated(clients: List[JSettlersClient], host: str, port: int,
                 game: str) -> Tuple[List[Dict[str, Any]], List[JSettlersClient]]:
    """One game with these clients, or NotSeated when the server left one of them out."""
    results: List[Dict[str, Any]] = [{} for _ in clients]
    threads: List[threading.Thread] = []
    try:
        for c in clients:
            c.connect()
        starter = GameHost(host, port, game)
    except BaseException:
        _close(clients, threads)
        raise
    try:
        for k, c in enumerate(clients):
            th = threading.Thread(target=_run_client, args=(c, results[k]), daemon=True)
            th.start()
            threads.append(th)
        starter.start()
        try:
            seated = starter.wait_seated([c.name for c in clients])
        except BaseException:  # (not seated, or the server stalled: no client of ours may stay on)
            _close(clients, threads)
            raise
        ours = {c.name for c in clients}
        for res in results:  # (which of the server's robots played: a pool draws them)
            res["robots_seated"] = sorted(name for name in seated.values() if name not in ours)
        deadline = time.monotonic() + GAME_TIMEOUT_S
        for th in threads:
            th.join(max(0.0, deadline - time.monotonic()))
        if any(th.is_alive() for th in threads):  # (out of time: its clients go with it)
            _close(clients, threads)
    finally:
        starter.close()
    for res, c in zip(results, clients):
        if not res:
            res["error"] = "the game did not finish in time"
        res["network"] = network_digest(c.agent)
    return results, clients


def other_weights(games: Sequence[Dict[str, Any]], digests: Sequence[Optional[str]]) -> Optional[str]:
    """Why resuming after ``games`` would mix two networks' games (a line that names the
    value networks it was played with, ``networks``, and names others than ``digests``,
    what the agents load now), or None.  Lines written before 2026-12-01 name none."""
    for g in games:
        if "networks" in g and list(g["networks"]) != list(digests):
            return (f"game {g.get('game')} of this line-up was played with value-network weights "
                    f"{g['networks']}, and the agents now load {list(digests)}: resuming would mix two "
                    f"networks' games (move the file aside, or choose another --out)")
    return None


def network_digest(agent: Any) -> Optional[str]:
    """The agent's value-network digest (``ValueNetwork.digest``: which weights played),
    None for an agent without one."""
    digest = getattr(getattr(agent, "network", None), "digest", None)
    return digest() if callable(digest) else None


def _run_client(client: JSettlersClient, out: Dict[str, Any]) -> None:
    try:
        out.update(client.play())
    except Exception as exc:  # reported per game; the match goes on
        out["error"] = f"{type(exc).__name__}: {exc}"
        if client.mirror is not None:
            out.update(mismatches=list(client.mirror.mismatches), rejected=list(client.rejected))


def game_line(i: int, specs: Sequence[str], results: List[Dict[str, Any]], seconds: float) -> Dict[str, Any]:
    """The games.jsonl line of one game (the fields ``catan-pioneers`` writes, and the
    offers our agents declined)."""
    errors = [r["error"] for r in results if "error" in r]
    game: Dict[str, Any] = {
        "game": i + 1, "agents": list(specs), "agent": ",".join(specs), "ours": len(specs),
        "networks": [r.get("network") for r in results], "seconds": round(seconds, 1),
        "rejected": sum(len(r.get("rejected", [])) for r in results),
        "mismatches": sum(len(r.get("mismatches", [])) for r in results),
        "fallbacks": sum(r.get("fallbacks", 0) for r in results),
        "declined_offers": sum(r.get("declined_offers", 0) for r in results),
        "forced_discards": sum(r.get("forced_discards", 0) for r in results),
        "late_answers": sum(r.get("late_answers", 0) for r in results),
        "remade": results[0].get("remade", []) if results else [],
        "attempts": results[0].get("attempts", 1) if results else 1,  # games made for this one (reseated, remade)
        "robots_seated": results[0].get("robots_seated") if results else None,
        "rejected_detail": [list(map(str, x)) for r in results for x in r.get("rejected", [])][:10],
        "mismatch_detail": [x for r in results for x in r.get("mismatches", [])][:10]}
    if errors:
        game["error"] = errors[0]
        game["failed"] = True
        return game
    first = results[0]
    vp = first["final_vp"] or []
    our_seats = [r["seat"] for r in results]
    game.update(winner=first["winner"], our_seats=our_seats, final_vp=vp,
                our_vp=[vp[s] for s in our_seats] if vp else [], turns=first["turns"],
                repairs=sum(r["repairs"] for r in results), edits=sum(r["edits"] for r in results),
                decisions=sum(r["decisions"] for r in results),
                offers_received=sum(r["offers_received"] for r in results),
                offers_made=sum(r["offers_made"] for r in results),
                trades=sum(r["trades"] for r in results),
                offer_log=[rec for r in results for rec in r.get("offer_log", [])],
                decision_seconds=[r.get("decision_seconds") for r in results],  # each seat's median
                seat_stats=first["seat_stats"])  # public: every seat's mirror has the same
    return game


def _job(args: Tuple[int, List[str], int, Optional[str], int, Optional[str], Optional[int], str, str, str, int]
         ) -> Dict[str, Any]:
    i, specs, seed, jar, pace, host, port, cookie, out, robots, offers = args
    t0 = time.time()
    try:
        for attempt in (1, 2):  # a local server that never seats us is restarted once
            if port is None:
                srv = _local_server(4 - len(specs), jar, pace, log_dir=out, strategy=robots)
                host_, port_, cookie_ = "127.0.0.1", srv.port, srv.cookie
            else:
                host_, port_, cookie_ = host or "127.0.0.1", port, cookie
            try:
                results, clients = play_game_on_server(specs, host_, port_, cookie_, f"catan-{seed}-{i + 1}",
                                                       seed * 100003 + i, offers_per_turn=offers)
                break
            except TimeoutError as exc:  # (before the game started: nothing was played, our clients closed)
                if port is not None or attempt == 2:
                    raise
                print(f"game {i + 1}: the local server did not seat us ({exc}); restarting it", flush=True)
                _drop_server()
    except Exception as exc:  # the server did not start, or refused us
        _drop_server()
        if port is not None and isinstance(exc, OSError) and unreachable(host or "127.0.0.1", port):
            raise UserError(f"the JSettlers server went away before game {i + 1}: "
                            f"{unreachable(host or '127.0.0.1', port)} ({type(exc).__name__}: {exc})") from None
        return {"game": i + 1, "agents": list(specs), "agent": ",".join(specs), "ours": len(specs),
                **_match_fields(robots if port is None else None, offers),
                "seconds": round(time.time() - t0, 1), "rejected": 0, "mismatches": 0,
                "error": f"{type(exc).__name__}: {exc}", "failed": True}
    game = game_line(i, specs, results, time.time() - t0)
    game.update(_match_fields(robots if port is None else None, offers))
    if port is None and _server is not None and _server.log_path:
        game["robot_forced_ends"] = forced_ends(_server.log_path, f"catan-{seed}-{i + 1}")
    if "error" in game or game["rejected"] or game["mismatches"]:
        for k, c in enumerate(clients):  # the session, to replay and debug offline
            with open(os.path.join(out, f"session-{i + 1:05d}-{k}.txt"), "w") as f:
                f.writelines(f"{d} {line}\n" for d, line in (c.transcript or []))
    if "error" in game:
        _drop_server()
    return game


def _match_fields(robots: Optional[str], offers: int) -> Dict[str, Any]:
    """What a game line says of the match beside its agents, so that a run resumes only
    over its own games: the local server's robots, the offers a turn if not the default."""
    return {**({"robots": robots} if robots is not None else {}),
            **({"offers_per_turn": offers} if offers != AGENT_MAX_OFFERS else {})}


def forced_ends(log_path: str, game: str) -> int:
    """Turns the server ended for one of its own robots in game (its time limit ran out:
    "For robot robot 2: force end turn in game ..." in the server's log; "droid 2" for a
    FAST robot).  A robot that loses turns this way plays below its strength, so the count
    is kept beside each result."""
    try:
        with open(log_path, errors="replace") as f:
            return sum(1 for line in f if line.startswith(("For robot robot ", "For robot droid "))
                       and f" in game {game} " in line and ": force end turn" in line)
    except OSError:
        return 0


@user_errors("catan-jsettlers")
def main(argv: Optional[Sequence[str]] = None) -> int:
    p = parser("catan-jsettlers", "Play our agents against the real JSettlers robots on a JSettlers server.")
    p.add_argument("--agents", default="jsettlers",
                   help="our agents, SPEC[,SPEC...] (1-3 seats; see catan-arena --help for specs)")
    p.add_argument("--games", type=positive_int, default=10,
                   help="games in all: those already in OUT/games.jsonl for these agents count")
    p.add_argument("--out", default="results/jsettlers", help="folder for games.jsonl and sessions")
    p.add_argument("--seed", type=int, default=0, help="seed of the run (our agents' seeds derive from it)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="games side by side (each worker runs its own local server)")
    p.add_argument("--pace", type=int, default=0,
                   help="the robots' pauses, in percent of their human pace (0: none, 100: human)")
    p.add_argument("--robots", choices=ROBOT_STRATEGIES, default="smart",
                   help="the local server's robots: smart (the server's own, SOCRobotDM's SMART "
                        "strategy), fast (FAST-strategy robots, in one JVM beside the server) or "
                        "default (the server's default mix: a pool of 3 SMART and 1 FAST, each "
                        "game drawing at random)")
    p.add_argument("--offers-per-turn", type=positive_int, default=AGENT_MAX_OFFERS,
                   help="domestic offers each of our seats may make a turn (the server has no cap; "
                        f"default {AGENT_MAX_OFFERS}, the rule option's, which the value network reads; "
                        "an agent makes at most its own offers=N)")
    p.add_argument("--jar", default=None, help="the JSettlers server jar (default: $JSETTLERS_JAR, "
                   "else ../shared/jsettlers/JSettlers-2.7.00.jar)")
    p.add_argument("--host", default=None, help="join this running server instead of starting one")
    p.add_argument("--port", type=int, default=None, help="port of --host's server")
    p.add_argument("--cookie", default=os.environ.get("JSETTLERS_COOKIE", ""),
                   help="the running server's robot cookie (its jsettlers.bots.cookie; "
                        "default $JSETTLERS_COOKIE); the server needs jsettlers.bots.botgames.total=-1")
    args = p.parse_args(argv)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if not 1 <= len(specs) <= 3:
        p.error(f"--agents takes 1 to 3 specs, got {len(specs)}")
    if args.offers_per_turn > 20:
        p.error(f"--offers-per-turn must be 1..20 (what an agent's offer memory holds), got {args.offers_per_turn}")
    if args.robots == "default" and len(specs) > 1:
        p.error("--robots default plays one seat of ours: the server draws every seat from its pool of 4 "
                "and ours, so with more of ours most games would leave one out")
    if not 0 <= args.pace <= 100:
        p.error(f"--pace must be 0..100, got {args.pace}")
    digests = []
    for spec in specs:
        try:
            digests.append(network_digest(make_agent(spec, seed=0)))
        except (ValueError, KeyError) as exc:
            raise UserError(f"unknown agent spec {spec!r}: {exc}") from None
    if args.host is not None or args.port is not None:
        if args.port is None or not args.cookie:
            p.error("joining a running server needs --port and --cookie")
        if args.robots != "smart":
            p.error("--robots chooses a local server's robots; a running server has its own")
        why = unreachable(args.host or "127.0.0.1", args.port)
        if why is not None:
            raise UserError(f"cannot reach the JSettlers server: {why} (is it running, on this "
                            "host and port?)")
    else:
        reason = jsettlers_available(args.jar)
        if reason is not None:
            raise UserError(f"cannot start a local JSettlers server: {reason}")
    # (a line without "robots" was played against the server's own SMART robots)
    games = games_so_far(args.out, lambda g: g.get("agents") == specs
                         and g.get("robots", "smart") == args.robots
                         and g.get("offers_per_turn", AGENT_MAX_OFFERS) == args.offers_per_turn)
    path = os.path.join(args.out, "games.jsonl")
    mixed = other_weights(games, digests)
    if mixed:
        raise UserError(f"{path}: {mixed}")
    start = len(games)
    compiled = compile_notice(beside=list(specs)) if start < args.games else None
    if compiled is not None:  # compile before a server waits on us
        play_game(list(specs) + ["random"] * (4 - len(specs)), args.seed, max_turns=2)
        compiled()
    jobs = [(i, specs, args.seed, args.jar, args.pace, args.host, args.port, args.cookie, args.out, args.robots,
             args.offers_per_turn) for i in range(start, args.games)]
    if args.workers > 1 and len(jobs) > 1:
        pool = ProcessPoolExecutor(args.workers)
        stream = pool.map(_job, jobs)
    else:
        pool = None
        stream = map(_job, jobs)
    try:
        for game in stream:
            game["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")  # which fixes a game ran under
            games.append(game)
            with open(path, "a") as f:
                f.write(json.dumps(game) + "\n")
            if "error" in game:
                status = "failed: " + game["error"]
            else:
                won = "won" if game["winner"] in game["our_seats"] else "lost"
                status = f"{won} (VP {game['our_vp']} of {game['final_vp']}, {game['turns']} turns)"
            print(f"game {game['game']}/{args.games}: {status} ({game['seconds']:.0f} s)", flush=True)
    finally:
        if pool is not None:
            pool.shutdown()
        _drop_server()
    s = summarize(games, len(specs))
    for key in ("declined_offers", "forced_discards", "late_answers"):
        s[key] = sum(g.get(key, 0) for g in games)
    done = [g["seconds"] for g in games if "error" not in g]
    s["median_seconds"] = statistics.median(done) if done else None
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(s, f, indent=2)
    print(format_report(",".join(specs), s))
    return 0


def format_report(agents: str, s: Dict[str, Any]) -> str:
    """The results table, as ``catan-arena`` and ``catan-pioneers`` print theirs."""
    lo, hi = s["ci95"]
    n_robots = 4 - s["ours"]
    return "\n".join([
        f"{'agents':<28} {'games':>5} {'wins':>5} {'win rate':>9} {'95% CI':>13} {'mean VP':>8} {'turns':>6}",
        f"{agents:<28} {s['games']:>5} {s['wins']:>5} {100 * s['win_rate']:>8.1f}% "
        f"{100 * lo:>5.1f}-{100 * hi:<5.1f}% {s['mean_vp']:>8.2f} {s['mean_turns']:>6.0f}",
        f"against {n_robots} JSettlers robot{'s' if n_robots != 1 else ''} (parity {100 * s['parity']:.0f}%); "
        f"failed games {s['failed']}, rejected moves {s['rejected']}, mirror mismatches {s['mismatches']}, "
        f"fallbacks {s['fallbacks']} (forced discards {s['forced_discards']}), declined offers "
        f"{s['declined_offers']}, answers too late {s['late_answers']}"
        + (f", median game {s['median_seconds']:.0f} s" if s.get("median_seconds") is not None else "")])


if __name__ == "__main__":
    sys.exit(main())

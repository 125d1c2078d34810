"""CLIs: one-line errors with exit status 2 and nothing written on a failed run; progress
as plain lines in a log; the baselines table explains itself."""
import ast
import contextlib
import glob
import io
import json
import os

import pytest

from catan_env.cli import Progress
from catan_env.apps.replays import main as render_main


def test_render_reports_user_mistakes_in_one_line(tmp_path, capsys):
    out = tmp_path / "game.html"
    assert render_main([str(tmp_path / "missing.json"), "--html", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "catan-render: error:" in err and "missing.json" in err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "catan_env.record", "version": 2}))
    assert render_main([str(bad), "--html", str(out)]) == 2
    assert "missing 'options'" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(SystemExit) as exc:
        render_main([str(bad), "--every", "0", "--html", str(out)])
    assert exc.value.code == 2


def test_arena_refuses_impossible_values(capsys):
    from catan_env.agents.arena import main as arena_main
    for argv in (["--games", "0"], ["--workers", "-1"], ["--vp", "99"], ["--players", "random"]):
        with pytest.raises(SystemExit) as exc:
            arena_main(argv)
        assert exc.value.code == 2, argv
    assert "--games: must be at least 1" in capsys.readouterr().err


def test_progress_is_plain_lines_in_a_log():
    log = io.StringIO()
    bar = Progress(50, stream=log)
    for k in range(1, 51):
        bar.update(k)
    bar.done()
    text = log.getvalue()
    assert "\r" not in text
    lines = text.strip().splitlines()
    assert 5 <= len(lines) <= 11 and lines[-1].startswith("50/50 games (100%)")


def test_baselines_table_marks_the_agent_under_test(tmp_path, capsys):
    from catan_env.agents.baselines import main as baselines_main
    out = tmp_path / "b"
    assert baselines_main(["--games", "2", "--workers", "1", "--only", "weighted_vs_random",
                           "--out", str(out)]) == 0
    table = (out / "table.md").read_text()
    assert "Columns:" in table and "* = the agent under test" in table
    assert "weighted *" in table
    assert "trades/g" in capsys.readouterr().out
    run = json.loads((out / "run.json").read_text())  # how long the main job took, per line-up
    assert list(run["seconds"]) == ["weighted_vs_random"] and run["total_seconds"] >= run["seconds"]["weighted_vs_random"]
    assert run["command"].startswith("catan-baselines --games 2") and "1 line-ups of 2 games in" in table


def test_the_quick_table_plays_the_shipped_agent_fast_and_full_as_shipped(monkeypatch, tmp_path):
    """The main job's seventh line-up plays ``pretrained:search=1`` (milliseconds a move);
    ``--full`` plays ``pretrained`` as shipped (its anytime search)."""
    from catan_env.agents import baselines
    played = []
    monkeypatch.setattr(baselines, "run_tournament", lambda players, *a: played.append(players) or [])
    monkeypatch.setattr(baselines, "summarise", lambda results, players: {})
    monkeypatch.setattr(baselines, "format_table", lambda summary, under_test: "")
    monkeypatch.setattr(baselines, "write_outputs", lambda *a: None)
    for flags, spec in (([], "pretrained:search=1"), (["--full"], "pretrained")):
        played.clear()
        assert baselines.main(["--only", "pretrained_vs_jsettlers", "--out", str(tmp_path), *flags]) == 0
        assert played == [[spec, "jsettlers", "jsettlers", "jsettlers"]]


def _options_without_help(path):
    """The add_argument calls in a script that give no help text, and its parsers that do
    not show defaults."""
    tree = ast.parse(open(path).read())
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    no_help = [c.lineno for c in calls if getattr(c.func, "attr", "") == "add_argument"
               and not any(k.arg == "help" for k in c.keywords)]
    no_defaults = [c.lineno for c in calls if getattr(c.func, "attr", "") == "ArgumentParser"
                   and not any(k.arg == "formatter_class" for k in c.keywords)]
    return no_help + no_defaults


def test_every_command_line_option_says_what_it_does():
    """--help of every CLI, example and benchmark explains each option and shows its default."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    scripts = [p for d in ("examples", "benchmarks", "catan_env", "agents", "wrappers")
               for p in glob.glob(os.path.join(root, d, "**", "*.py"), recursive=True)]
    assert len(scripts) > 30
    missing = {os.path.relpath(p, root): lines for p in scripts if (lines := _options_without_help(p))}
    assert not missing, f"options without help text (file: lines): {missing}"


def test_each_option_shows_its_default_once():
    from catan_env.agents.arena import main as arena_main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        arena_main(["--help"])
    text = " ".join(out.getvalue().split())
    start = text.index("--address ADDRESS Ray")
    address = text[start:text.index("--out OUT", start)]
    assert address.count("default:") == 1 and "$RAY_ADDRESS" in address


def _cache_rules(folder):
    """Stand-ins for the rules' cached kernels that say the core is compiled."""
    for kernel in ("apply_action", "legal_mask"):
        (folder / f"rules.{kernel}-1.py311.nbi").write_text("")


def test_the_compile_notice_states_what_is_compiled_and_how_long_it_takes(tmp_path, monkeypatch):
    import io

    from catan_env import cli
    from catan_env.agent_specs import compiles_kernels
    from catan_env.core import cache_guard
    monkeypatch.setattr(cache_guard, "cache_dir_for", lambda path: str(tmp_path))  # an empty cache
    monkeypatch.setenv("CATAN_ENV_COMPILE_BESIDE", "0")  # (test_a_first_compile_starts_a_second_process)
    from catan_env import compiling
    monkeypatch.setattr(compiling, "_helper", None)  # (a first env in this worker may have started one)
    from catan_env.compiling import COMPILE_RULES_ONLY_ALONE, COMPILE_WITH_AGENTS_ALONE
    for agents, what, estimate in ((False, "the rules core (", COMPILE_RULES_ONLY_ALONE),
                                   (True, "the rules core and the agents", COMPILE_WITH_AGENTS_ALONE)):
        out = io.StringIO()
        done = cli.compile_notice(out, agents=agents)
        assert done is not None and what in out.getvalue() and estimate in out.getvalue()
        done()
        assert "compiled in" in out.getvalue()
    _cache_rules(tmp_path)  # cached: nothing to say
    assert cli.compile_notice(io.StringIO()) is None
    assert not any(compiles_kernels(s) for s in ("random", "weighted", "pruning:x=1"))
    assert all(compiles_kernels(s) for s in ("jsettlers", "pretrained", "mcts:iterations=9"))


def test_a_first_compile_starts_a_second_process_once(tmp_path, monkeypatch):
    """On an empty cache the first env (or a CLI's notice) starts ``python -m
    catan_env.beside SPECS`` once, and says so; not on one core, not when
    CATAN_ENV_COMPILE_BESIDE=0."""
    import io
    import subprocess
    import sys
    import warnings

    import catan_env
    from catan_env import cli, compiling
    from catan_env.core import cache_guard
    monkeypatch.setattr(cache_guard, "cache_dir_for", lambda path: str(tmp_path))  # an empty cache
    started = []

    class Recorder:
        def __init__(self, command, **kwargs):
            started.append((command, kwargs["env"]["CATAN_ENV_COMPILE_BESIDE"]))

        def poll(self):
            return 0
    monkeypatch.setattr(subprocess, "Popen", Recorder)
    monkeypatch.setattr(compiling, "_helper", None)
    monkeypatch.setattr(compiling, "_announced", False)
    monkeypatch.delenv("CATAN_ENV_COMPILE_BESIDE", raising=False)
    monkeypatch.setattr(compiling, "_cores", lambda: 2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        catan_env.raw_env()
    assert "a second process compiling beside this one" in str(seen[0].message)
    # the helper does not start helpers of its own
    assert started == [([sys.executable, "-m", "catan_env.beside"], "0")]
    out = io.StringIO()
    cli.compile_notice(out, beside=["pretrained", "jsettlers", "pretrained", object()])
    assert len(started) == 1 and "beside this one" in out.getvalue()  # once per process
    monkeypatch.setattr(compiling, "_helper", None)
    cli.compile_notice(io.StringIO(), beside=["pretrained", "jsettlers", "pretrained"])
    assert started[-1][0][-1] == "pretrained,jsettlers"
    monkeypatch.setattr(compiling, "_helper", None)
    monkeypatch.setattr(compiling, "_cores", lambda: 1)
    out = io.StringIO()
    cli.compile_notice(out)
    assert len(started) == 2 and "beside" not in out.getvalue()
    monkeypatch.setattr(compiling, "_cores", lambda: 2)
    monkeypatch.setenv("CATAN_ENV_COMPILE_BESIDE", "0")
    assert not compiling.compile_beside(["pretrained"]) and len(started) == 2
    monkeypatch.delenv("CATAN_ENV_COMPILE_BESIDE")

    def cannot_start(command, **kwargs):
        raise OSError("no processes here")
    monkeypatch.setattr(subprocess, "Popen", cannot_start)
    assert not compiling.compile_beside(["pretrained"])  # this process compiles alone, no error
    out = io.StringIO()
    cli.compile_notice(out, agents=False)
    assert "beside" not in out.getvalue() and compiling.COMPILE_RULES_ONLY_ALONE in out.getvalue()


def test_the_second_process_compiles_the_apply_action_the_envs_call():
    """What ``catan_env.beside`` compiles ahead is the very version the envs load: the signature
    the PettingZoo env and the Gymnasium env call ``apply_action`` with."""
    import numpy as np

    import catan_env
    from catan_env.beside import apply_action_signature, main
    from catan_env.core.rules import apply_action
    from catan_env.gym_env import CatanGymEnv
    env = catan_env.raw_env()
    env.reset(seed=3)
    for _ in range(30):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    CatanGymEnv().reset(seed=0)
    assert apply_action.signatures == [apply_action_signature()]
    assert main(["random,weighted"]) == 0  # light agents: nothing more to compile
    assert main(["--help"]) == 2


def test_a_library_user_is_told_once_when_the_kernels_compile(tmp_path, monkeypatch):
    """The first env made on an empty cache warns once (a CompileNotice a user can
    silence); a second env, a cached core or a CLI's own notice give no warning."""
    import warnings

    import catan_env
    from catan_env import compiling
    from catan_env.core import cache_guard
    monkeypatch.setattr(cache_guard, "cache_dir_for", lambda path: str(tmp_path))  # an empty cache
    monkeypatch.setenv("CATAN_ENV_COMPILE_BESIDE", "0")
    monkeypatch.setattr(compiling, "_announced", False)
    with pytest.warns(catan_env.CompileNotice, match="compiling its numba kernels"):
        catan_env.raw_env()
    monkeypatch.setattr(compiling, "_announced", False)
    from catan_env.batched import BatchedCatan
    with pytest.warns(catan_env.CompileNotice):
        BatchedCatan(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        catan_env.raw_env()  # once per process
        monkeypatch.setattr(compiling, "_announced", False)
        _cache_rules(tmp_path)
        catan_env.raw_env()  # cached: nothing to say
    (tmp_path / "rules.legal_mask-1.py311.nbi").unlink()
    monkeypatch.setattr(compiling, "_announced", False)
    import io
    from catan_env import cli
    assert cli.compile_notice(io.StringIO()) is not None  # the CLI says it itself...
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        catan_env.raw_env()  # ...and the env does not repeat it


def test_the_kernels_compile_ahead_of_time_on_request(capsys):
    """``python -m catan_env.compile --agents SPECS``: the core's job and each agent's
    stages (two processes sharing them out) each say what they compiled and how long it
    took, in the jobs' order; agents that compile nothing have no job."""
    from catan_env import compile as C
    assert C.main(["--agents", "random,jsettlers"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("compiling the rules core and the envs, and beside it random, jsettlers")
    assert [line.strip().split(": ")[0] for line in out[1:-1]] == ["the rules core and the envs", "jsettlers"]
    assert all(line.endswith(" s") for line in out[1:-1]) and out[-1].startswith("compiled in ")


def test_no_command_line_takes_an_abbreviated_option():
    """argparse takes ``--worker 2`` for ``--workers 2`` unless told not to: every parser
    in the package, the examples and the benchmarks says allow_abbrev=False, and the
    baselines CLI refuses the abbreviation."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    unguarded = []
    for folder in ("catan_env", "agents", "wrappers", "examples", "benchmarks"):
        for path in glob.glob(os.path.join(root, folder, "**", "*.py"), recursive=True):
            with open(path) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "ArgumentParser":
                    if not any(k.arg == "allow_abbrev" and getattr(k.value, "value", True) is False for k in node.keywords):
                        unguarded.append(f"{os.path.relpath(path, root)}:{node.lineno}")
    assert not unguarded, unguarded
    from catan_env.agents.baselines import main as baselines_main
    with pytest.raises(SystemExit) as exc:
        baselines_main(["--worker", "2"])
    assert exc.value.code == 2


def test_the_arena_refuses_an_unwritable_output_folder_before_playing(tmp_path, capsys, monkeypatch):
    """A folder it cannot write into is refused at once (not after every game)."""
    from catan_env.agents import arena
    played = []
    monkeypatch.setattr(arena, "run_tournament", lambda *a, **k: played.append(1) or [])
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    for flag in ("--out", "--save-games"):
        with pytest.raises(SystemExit) as exc:
            arena.main(["--players", "random,random", "--games", "1", flag, str(blocked / "sub")])
        assert exc.value.code == 2
        assert "cannot write into" in capsys.readouterr().err
    assert not played


def test_spec_mistakes_name_the_likely_intent(tmp_path):
    """A misspelt option is answered with the option meant; a missing model file is named
    as given (SB3 would report it with a second .zip)."""
    from catan_env.agents import make_agent
    with pytest.raises(ValueError, match=r"did you mean playouts=100\?"):
        make_agent("mcts:playout=100")
    with pytest.raises(ValueError, match=r"did you mean playouts\?"):
        make_agent("mcts:playous=100")
    pytest.importorskip("sb3_contrib")
    missing = tmp_path / "nope.zip"
    with pytest.raises(ValueError, match=f"no saved SB3 model at '{missing}'"):
        make_agent(f"sb3:path={missing}")


def test_the_arena_table_stays_aligned_for_long_specs():
    from catan_env.agents.arena import format_table
    row = dict(copies_per_game=1, wins=3, win_rate=0.3, win_rate_ci95=(0.1, 0.6), mean_vp=7.5, mean_rank=2.0,
               trades_per_game=1.5, fallbacks=0)
    summary = dict(games=10, mean_game_length_turns=70.0, truncated_games=0, completed_domestic_trades_per_game=1.5,
                   agents={"mcts:variant=best:playouts=1000:opening=jsettlers": row, "random": dict(row, wins=1)})
    lines = format_table(summary, under_test="random").split("\n")[1:]
    assert len({len(line) for line in lines}) == 1, lines
    assert lines[2].startswith("random *")


def test_a_first_runs_jobs_come_in_stages_and_each_is_compiled_once(tmp_path):
    """The first-run jobs: the rules, then each agent's first stage, then its later ones
    (a network agent: its network, its play without its search, its search); agents that
    compile nothing are skipped.  Two processes sharing a board compile each job once, in
    order; a board that is gone leaves nothing to take."""
    import time

    from catan_env.beside import JobBoard, first_run_jobs
    names = [what for what, _ in first_run_jobs(["pretrained", "random", "jsettlers", "pretrained"])]
    assert names == ["the rules' legal moves and views", "the rules' moves", "pretrained: its network", "jsettlers",
                     "pretrained: its play without its search", "pretrained: its search"]
    assert [w for w, _ in first_run_jobs(["pretrained:search=0"])][2:] == ["pretrained:search=0: its decision"]
    ran = []
    jobs = [(str(i), (lambda i=i: ran.append(i))) for i in range(5)]
    first, second = JobBoard(str(tmp_path)), JobBoard(str(tmp_path))
    assert first.take(0) and not second.take(0)
    assert [i for i, _ in second.run(jobs, first=2)] == [2, 3, 4] and [i for i, _ in second.run(jobs)] == [1]
    assert first.run(jobs) == []
    assert ran == [2, 3, 4, 1] and not first.done(0)
    t0 = time.perf_counter()
    first.wait(jobs, helping=lambda: False, seconds=60)  # the other process stopped: no waiting on job 0
    assert time.perf_counter() - t0 < 1
    first.wait(jobs, helping=lambda: True, seconds=0.3)  # job 0 not done: waits out its time
    assert time.perf_counter() - t0 >= 0.3
    first.finish(0)
    t0 = time.perf_counter()
    first.wait(jobs, helping=lambda: True, seconds=60)  # every job done: returns at once
    assert time.perf_counter() - t0 < 1
    gone = JobBoard(str(tmp_path / "removed"))
    assert gone.run(jobs) == [] and ran == [2, 3, 4, 1]


def test_the_twin_without_search_plays_legal_moves_and_never_searches(monkeypatch):
    """The value agent's twin of its compile stages values every searchable move at 0: it
    plays a whole stretch of legal moves (the rules would raise on an illegal one) without
    calling the search, so what it compiles is everything but the search."""
    from catan_env.agents.value import agent as value_agent
    from catan_env.agents.registry import make_agent
    from catan_env.beside import play
    agent = make_agent("pretrained")
    stages = dict(agent.compile_stages())
    assert list(stages) == ["its network", "its play without its search", "its search"]

    def no_search(*args, **kwargs):
        raise AssertionError("the twin searched")
    monkeypatch.setattr(value_agent, "move_value", no_search)
    monkeypatch.setattr(value_agent, "search_values", no_search)
    stages["its play without its search"]()
    with pytest.raises(AssertionError, match="the twin searched"):
        play(agent, moves=4)  # the agent itself searches


def test_the_second_process_shares_its_jobs_through_the_board(tmp_path):
    """``python -m catan_env.beside SPECS`` with a board takes every job no one else has
    and marks each done, from the rules' moves on (the first process compiles the views
    itself, at once)."""
    import subprocess
    import sys

    from catan_env.beside import BOARD_VARIABLE, JobBoard, first_run_jobs
    jobs = first_run_jobs(["random", "jsettlers"])
    JobBoard(str(tmp_path)).take(2)  # this process has the agent
    done = subprocess.run([sys.executable, "-m", "catan_env.beside", "random,jsettlers"], capture_output=True,
                          env=dict(os.environ, **{BOARD_VARIABLE: str(tmp_path)}), timeout=600)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert sorted(os.listdir(tmp_path)) == ["01.done", "01.taken", "02.taken", "jobs.txt"]
    assert JobBoard(str(tmp_path)).posted() == [what for what, _ in jobs]  # the list the first process shares


def test_compile_together_takes_the_jobs_left_and_waits_for_the_helpers(tmp_path, monkeypatch):
    """With a helper running, this process compiles every job the helper has not taken
    and returns only once the helper's are done; with the helper gone it returns at once
    and compiles nothing (it will compile as it plays)."""
    import threading

    from catan_env import beside, compiling
    ran = []
    jobs = [(str(i), (lambda i=i: ran.append(i))) for i in range(4)]
    monkeypatch.setattr(beside, "first_run_jobs", lambda specs: jobs)
    board = beside.JobBoard(str(tmp_path))
    board.post(jobs)  # the helper's list: the same
    board.take(1)  # the helper is compiling job 1

    class Helper:
        running = True

        def poll(self):
            return None if self.running else 0
    helper = Helper()
    monkeypatch.setattr(compiling, "_helper", helper)
    monkeypatch.setattr(compiling, "_board", str(tmp_path))
    finish = threading.Timer(0.5, board.finish, args=(1,))
    finish.start()
    assert compiling.compile_together(["pretrained"]) == []
    assert ran == [0, 2, 3] and board.done(1) and not finish.is_alive()
    # a job that raises is named and marked done; the others still run
    monkeypatch.setattr(compiling, "_board", str(tmp_path / "second"))
    os.mkdir(tmp_path / "second")
    ran.clear()

    def broken():
        raise RuntimeError("no such kernel")
    jobs[2] = ("a broken agent", broken)
    beside.JobBoard(str(tmp_path / "second")).post(jobs)
    assert compiling.compile_together(["pretrained"]) == ["a broken agent: RuntimeError: no such kernel"]
    assert ran == [0, 1, 3] and beside.JobBoard(str(tmp_path / "second")).done(2)
    # a helper with another list of jobs: this process compiles only the views, waits for nothing
    monkeypatch.setattr(compiling, "_board", str(tmp_path / "third"))
    os.mkdir(tmp_path / "third")
    beside.JobBoard(str(tmp_path / "third")).post(jobs[:2])
    ran.clear()
    assert compiling.compile_together(["pretrained"]) is None and ran == [0]
    helper.running = False
    ran.clear()
    assert compiling.compile_together(["pretrained"]) is None and ran == []


@pytest.mark.parametrize("spec", ["pretrained:leaves=3000", "pretrained:seconds=30:opening=jsettlers",
                                  "mcts:playouts=5000", "mcts:playouts=5000:opening=jsettlers",
                                  "mcts:ensemble=100:playouts=10000"])
def test_compile_stages_play_on_a_small_budget_and_leave_the_agent_as_it_was(spec, monkeypatch):
    """An agent's compile stages play copies on a small budget (a first run does not wait
    on a big one), and playing them leaves the agent itself untouched: its generator draws
    what it would have drawn, its counts are zero."""
    import copy as copy_module

    import numpy as np

    from catan_env import beside
    from catan_env.agents.registry import make_agent
    played = []
    real_play = beside.play

    def recording_play(agent, *args, **kwargs):
        played.append(agent)
        return real_play(agent, *args, **kwargs)
    monkeypatch.setattr(beside, "play", recording_play)
    agent = make_agent(spec, seed=3)
    expected = copy_module.deepcopy(agent.rng).integers(2 ** 62, size=4)
    for _, compile_stage in agent.compile_stages():
        compile_stage()
    assert played and agent not in played
    for copy_played in played:
        if spec.startswith("mcts"):
            assert copy_played.config.playouts == max(64, agent.config.ensemble)
            assert copy_played.config.seconds == 0.0
        elif not copy_played._search_off:  # (the twin does not search at all)
            assert copy_played.leaves == 200 and copy_played.seconds == 0.0
            assert copy_played._leaves > 0 and copy_played._evaluator is not agent._evaluator  # it searched
    assert np.array_equal(agent.rng.integers(2 ** 62, size=4), expected)
    assert sum(agent.fallbacks.values()) == 0
    assert sum(getattr(agent, "trade_counts", {}).values()) == 0 and not getattr(agent, "depth_counts", {})

"""The docs site: pages hold the tables the code generates, the API reference documents
only fully typed modules, every page is in the navigation, and (where MkDocs is
installed, as in .ci/run) the site builds with warnings as errors."""
import importlib
import os
import re
import subprocess
import sys

import pytest

from helpers import load_benchmark
from test_docstrings import api_modules, typed_modules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def test_the_actions_page_holds_the_generated_action_table():
    A = importlib.import_module("catan_env.core.actions")
    table = A.action_table()
    assert table in read("docs", "observations-actions.md")
    # the table covers every id once, in order, with each range's kind
    rows = [r for r in table.splitlines()[2:]]
    assert len(rows) == len(A.RANGES)
    last = -1
    for row, (kind, size) in zip(rows, A.RANGES):
        ids, name = [c.strip() for c in row.strip("|").split("|")[:2]]
        lo, hi = (int(x) for x in (ids.split("-") if "-" in ids else (ids, ids)))
        assert (lo, hi - lo + 1, name) == (last + 1, size, f"`{kind}`")
        assert A.action_kind(lo) == kind and A.action_kind(hi) == kind
        last = hi
    assert last == A.N_ACTIONS - 1


def test_every_module_the_api_reference_renders_is_fully_typed():
    # mypy checks every module; those shown in the reference are fully annotated too
    untyped = sorted(set(api_modules()) - set(typed_modules()))
    assert not untyped, f"API reference modules not in the strict mypy list: {untyped}"


def test_mypy_checks_every_module_of_the_distribution():
    import tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        config = tomllib.load(f)["tool"]["mypy"]
    assert sorted(config["files"]) == ["agents", "catan_env", "wrappers"] and config["check_untyped_defs"]
    for mod in typed_modules():  # every strict entry names a real module
        assert importlib.util.find_spec(mod) is not None, mod


def nav_pages():
    return set(re.findall(r":\s*([\w/.-]+\.md)\s*$", read("mkdocs.yml"), re.M))


def test_every_page_is_in_the_navigation():
    pages = {os.path.relpath(os.path.join(d, f), DOCS)
             for d, _, files in os.walk(DOCS) for f in files if f.endswith(".md")}
    assert pages == nav_pages()


def test_the_readme_is_a_front_page():
    text = read("README.md")
    assert len(text.splitlines()) <= 250
    for page in ("docs/getting-started.md", "docs/observations-actions.md", "docs/learning.md",
                 "docs/benchmarks.md", "CHANGELOG.md"):
        assert f"]({page}" in text
    # every relative link of the README points at a file of the repository
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not target.startswith("http"):
            assert os.path.exists(os.path.join(ROOT, target)), target


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                    reason="the [docs] extra (MkDocs) is not installed here; .ci/run installs it")
def test_the_site_builds_strictly(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                          "-d", str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    page = (tmp_path / "site" / "observations-actions" / "index.html").read_text()
    assert "TRADE_CONFIRM" in page and "offer_proposer" in page
    api = (tmp_path / "site" / "api" / "envs" / "index.html").read_text()
    assert "catan_env.aec_env.raw_env" in api


def test_the_opponent_speed_figures_are_the_results_file():
    """The recipe page's speed table and the README's row of strong opponents are the
    results file's, as ``benchmarks/value_opponent_speed.py --out`` rewrites them."""
    import json
    bench = load_benchmark("value_opponent_speed")
    from results_doc import block
    with open(bench.RESULTS) as f:
        doc = json.load(f)
    assert "leaf_profile" in doc and "leaves_per_decision" in doc  # the page's leaf rows come from them
    assert block(bench.DOC, bench.DOC_START, bench.DOC_END) == bench.speed_table(doc)
    with open(os.path.join(ROOT, "README.md")) as f:
        assert bench.readme_row(doc) in f.read().split("\n")


def test_the_leaf_profile_times_every_part_of_a_leaf():
    """``value_opponent_speed.leaf_profile`` (the speed table's leaf rows) runs on a few
    positions: every part timed (a few positions give noisy differences, so only finite
    ones are asked for), some leaves keyed by their root's board."""
    import math
    bench = load_benchmark("value_opponent_speed")
    profile = bench.leaf_profile(positions=30, repeats=1)
    assert profile["leaves"] > 20 and 0.0 < profile["keyed_share"] < 1.0
    assert len(profile["us"]) == 6 and all(math.isfinite(us) for us in profile["us"].values())


def test_a_greedy_decisions_leaves_are_counted_not_inferred():
    """``decision_cost`` counts the leaves a decision values (the evaluator's counter,
    not a ratio of timings): more than one a decision on positions with a choice."""
    bench = load_benchmark("value_opponent_speed")
    from catan_env.agents import make_agent
    from catan_env.core import game as G
    from catan_env.core.layout import MAX_PLAYERS
    from catan_env.learned.greedy import greedy_decision, new_memory, options
    whole, decision, leaves = bench.decision_cost(positions=20, repeats=1)
    import numpy as np
    ev = make_agent("pretrained:search=0").network.evaluator()  # the same decisions, counted apart
    for s in bench._positions(20, 1):
        legal = G.legal_actions(s).astype(np.int64)
        greedy_decision(ev, s, G.decider(s), legal, len(legal), np.array([1, 2], np.int64), new_memory(), options())
    assert leaves == ev.rel[MAX_PLAYERS] / 20 and leaves > 1.0


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                    reason="the [docs] extra (MkDocs) is not installed here; .ci/run installs it")
def test_a_broken_link_fails_the_strict_build(tmp_path):
    """The site's strict and validation settings make a link to a missing page an error
    (a site of one page built with them: with the link mended it builds), and CI builds
    without -q, which would hide the warnings --strict counts."""
    import yaml
    with open(os.path.join(ROOT, "mkdocs.yml")) as f:
        text = f.read()
    settings = yaml.safe_load(text.split("\nmarkdown_extensions:")[0].split("\ntheme:")[0])
    assert settings["strict"] is True
    docs = tmp_path / "docs"
    docs.mkdir()
    config = dict(site_name="planted", docs_dir=str(docs), strict=settings["strict"],
                  validation=settings["validation"], nav=[{"Home": "index.md"}])
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    build = [sys.executable, "-m", "mkdocs", "build", "-f", str(tmp_path / "mkdocs.yml"), "-d", str(tmp_path / "site")]
    (docs / "index.md").write_text("# Home\n\nSee [the rules](rules.md).\n")
    broken = subprocess.run(build, capture_output=True, text=True, env=env, timeout=120)
    assert broken.returncode != 0 and "rules.md" in broken.stderr, broken.stderr[-2000:]
    (docs / "rules.md").write_text("# Rules\n")
    (docs / "index.md").write_text("# Home\n\nSee [the rules](rules.md).\n")
    config["nav"].append({"Rules": "rules.md"})
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    mended = subprocess.run(build, capture_output=True, text=True, env=env, timeout=120)
    assert mended.returncode == 0, mended.stderr[-2000:]
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        ci_builds = [line for line in f if "mkdocs build" in line]
    assert ci_builds and all("--strict" in line and " -q" not in line for line in ci_builds)


def test_the_recipe_scales_table_is_the_results_file():
    """The recipe page's table of small scales is the results file's, as
    ``benchmarks/recipe_scales.py`` rewrites it after each scale."""
    import json
    bench = load_benchmark("recipe_scales")
    from results_doc import block
    with open(bench.RESULTS) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    assert rows
    assert block(bench.DOC, bench.DOC_START, bench.DOC_END) == bench.scales_table(rows)


def test_the_readme_speed_tables_are_one_peers_run():
    """The speed tables against the peers (README, benchmarks page) are
    ``benchmarks/peers_speed.py --out``'s results file, every row from that one run."""
    import json
    bench = load_benchmark("peers_speed")
    from results_doc import block
    with open(bench.RESULTS) as f:
        doc = json.load(f)
    for page, link in bench.PAGES.items():
        assert block(page, bench.DOC_START, bench.DOC_END) == bench.speed_tables(doc, link)
    assert {"catanatron", "fastcatan python loop", "fastcatan batched simulator"} <= set(doc["games"])


def test_the_readme_strength_table_is_counted_from_the_per_game_files():
    """The README's strength table is ``benchmarks/strength_table.py``'s count of the
    committed per-game files; every file in the folder is some row's."""
    bench = load_benchmark("strength_table")
    from results_doc import block
    assert block(bench.DOC, bench.DOC_START, bench.DOC_END) == bench.strength_table()
    named = {part.file for row in bench.ROWS for part in row.parts}
    assert set(os.listdir(bench.FOLDER)) <= named
    assert bench.measured()  # at least one row is shown
    # the recipe page's table of the shipped policy's run, every row counted
    assert block(bench.POLICY_DOC, bench.POLICY_START, bench.POLICY_END) == bench.policy_table()
    assert len(bench.measured(bench.POLICY_FOLDER, bench.POLICY_ROWS)) == len(bench.POLICY_ROWS)
    # and its table of the DAgger rounds behind the policy shipped now
    assert block(bench.POLICY_DOC, bench.DAGGER_START, bench.DAGGER_END) == bench.dagger_table()
    assert len(bench.measured(bench.DAGGER_FOLDER, bench.DAGGER_ROWS)) == len(bench.DAGGER_ROWS)
    # and the learned-agents page's pairs of the value-network ensemble
    assert block(bench.ENSEMBLE_DOC, bench.ENSEMBLE_START, bench.ENSEMBLE_END) == bench.ensemble_table()
    # and its paired tables of the final-VP head, the budget and the rounds with MCTS in the data
    assert block(bench.ENSEMBLE_DOC, bench.AUX_START, bench.AUX_END) == bench.aux_table()
    # and its paired tables of the set-up rollouts and the rule-bit weights
    assert block(bench.ENSEMBLE_DOC, bench.LEVERS_START, bench.LEVERS_END) == bench.levers_table()


def test_the_negotiation_levers_table_is_counted_from_the_run_folders():
    """docs/negotiation.md's table is ``benchmarks/negotiation_levers.py``'s count of the
    committed per-game files; every run folder is some lever's, and a game added to a run
    changes the table."""
    import json
    bench = load_benchmark("negotiation_levers")
    from results_doc import block
    assert block(bench.PAGE, bench.START, bench.END) == bench.table()
    folders = {d for d in os.listdir(bench.FOLDER) if os.path.isdir(os.path.join(bench.FOLDER, d))}
    assert folders <= {lever.folder for lever in bench.LEVERS}
    base = bench.LEVERS[0]
    lines = bench.games(base)
    assert len(lines) >= 200 and bench.figures(lines)["games"] == len([g for g in lines if "error" not in g])
    won = dict(lines[0], winner=lines[0]["our_seats"][0])
    assert bench.figures(lines + [json.loads(json.dumps(won))])["wins"] == bench.figures(lines)["wins"] + 1


def test_the_threads_table_is_the_results_file():
    """The benchmarks page's table of the batched env across threads is
    ``batched_throughput.py --threads 1,2 --out``'s results file."""
    import json
    bench = load_benchmark("batched_throughput")
    from results_doc import block
    with open(bench.THREADS_RESULTS) as f:
        doc = json.load(f)
    assert block(bench.THREADS_DOC, bench.THREADS_START, bench.THREADS_END) == bench.threads_table(doc)


def test_the_first_run_figures_are_the_results_file():
    """The README's sentence on the first run's compile time is the results file's
    (``benchmarks/first_run.py --out``)."""
    import json
    bench = load_benchmark("first_run")
    with open(bench.RESULTS) as f:
        doc = json.load(f)
    with open(os.path.join(ROOT, "README.md")) as f:
        assert bench.readme_sentence(doc) in " ".join(f.read().split())


def test_the_main_jobs_time_on_the_front_page_is_the_results_file():
    """The README's main-job comment quotes the run file ``catan-baselines`` wrote."""
    import json
    with open(os.path.join(ROOT, "docs", "results", "main_job", "run.json")) as f:
        run = json.load(f)
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = " ".join(line.lstrip("# ") for line in f.read().split("\n"))
    assert f"took {run['total_seconds']:.0f} s here once compiled, {run['date']}, docs/results/main_job/run.json" \
        in " ".join(readme.split())
    assert len(run["seconds"]) == 7 and run["games"] == 100 and run["workers"] == 2


def test_every_figure_on_the_pages_is_in_a_results_file_they_cite():
    """Each measured figure on the README and the docs pages stands in a committed results
    file the page names (``tests/figures_trace.py`` lists any that do not)."""
    import figures_trace
    missing = {page: found for page, found in figures_trace.untraced().items() if found}
    assert not missing, f"figures no cited results file holds (run python tests/figures_trace.py): {missing}"


def test_the_figure_check_fails_on_a_planted_figure(tmp_path):
    """On a small repository of its own: a figure its cited file holds passes; one digit
    changed, the file no longer cited, or its citation only in a comment, fails; settings,
    code and generated blocks are not figures."""
    import json
    import figures_trace
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "run.json").write_text(json.dumps({"win_rate": 0.69124, "games": 1000}))
    (tmp_path / "docs" / "results" / "other.csv").write_text("0,12,7.5\n")
    page = "Won 0.691 of 1,000 games (73.4% of 2,473 moves, [the run](results/run.json)).\n"
    (tmp_path / "docs" / "page.md").write_text(page)
    (tmp_path / "README.md").write_text("Two commands.\n")
    check = lambda text: figures_trace.untraced({"docs/page.md": text}, root=str(tmp_path))["docs/page.md"]  # noqa: E731
    assert check(page) == ["73.4%", "2,473"]
    assert check(page.replace("73.4% of 2,473 moves, ", "")) == []
    assert check("Won 0.692 ([the run](results/run.json)).") == ["0.692"]
    assert check("Won 0.691 of the games.") == ["0.691"]
    assert check("Won 0.691 of the games. <!-- docs/results/run.json -->") == ["0.691"]
    assert check("Seven and a half: 127.5 by the CSV's columns ([the row](results/other.csv)).") == ["127.5"]
    assert check("`--seconds 0.3737` at 127.0.0.1, 95% CIs, <!-- x: start -->0.9999<!-- x: end -->") == []
    assert figures_trace.untraced(root=str(tmp_path))["README.md"] == []


def test_the_strength_table_output_on_the_docs_is_the_scripts():
    """``docs/results/strength_table/table.txt`` (which the learned-agents and learning
    pages cite) is what ``benchmarks/strength_table.py`` prints today."""
    bench = load_benchmark("strength_table")
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert bench.main([]) == 0
    assert read("docs", "results", "strength_table", "table.txt").strip() == out.getvalue().strip()

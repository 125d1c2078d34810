"""Shared test setup.  ``CATAN_NO_SKIPS=1`` (set by .ci/run in the RLlib/Tianshou
environment) turns every skip into a failure, so a test meant to run there cannot pass
by skipping; ``CATAN_NO_SKIPS=main`` (the main suite in .ci/run) does the same except for
the tests of the libraries the second environment runs (Ray, RLlib, Tianshou)."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

NO_SKIPS = os.environ.get("CATAN_NO_SKIPS", "")
SECOND_ENVIRONMENT = re.compile(r"\b(ray|rllib|tianshou)\b", re.I)  # skipped here, run there


def _reason(report):
    return str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)


def _fail_skip(report):
    if not NO_SKIPS or not report.skipped or hasattr(report, "wasxfail"):
        return
    if NO_SKIPS == "main" and SECOND_ENVIRONMENT.search(_reason(report)):
        return
    reason = _reason(report)
    report.outcome = "failed"
    report.longrepr = f"skipped, but CATAN_NO_SKIPS forbids skips here: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skip(outcome.get_result())


# The slowest tests (``.ci/run`` prints the 25 slowest), run first: pytest-xdist hands out
# tests in collection order, so a long test collected last keeps one worker busy while the
# other has nothing left to do.  Ordering only; every test still runs.
SLOW_FIRST = (
    "test_fallbacks.py::test_heuristic_robots_never_fall_back",
    "test_web.py::test_a_person_plays_a_whole_game_and_the_end_screen_agrees_with_the_record",
    "test_deep.py::test_one_tiny_expert_iteration_end_to_end",
    "test_doc_blocks.py::test_doc_commands_run",
    "test_batched.py::test_opponents_in_numba_keep_games_valid",
    "test_web_browser.py::test_a_person_plays_a_whole_game_by_clicking",
    "test_search_rule_variants.py::test_the_value_search_check_fires",
    "test_reference_fuzz.py::test_legal_mask_matches_reference_and_python_invariants",
    "test_value_net.py::test_shipped_agents_play_legal_games_in_every_env",
    "test_recipe.py::test_clone_then_fine_tune",
    "test_value_modes.py::test_learned_agent_modes_never_fall_back",
    "test_pioneers.py::test_a_live_game_against_three_pioneers_ais",
    "test_jsettlers_bridge.py::test_a_whole_game_of_random",
    "test_jsettlers_bridge.py::test_a_whole_game_of_the_jsettlers_agent",
    "test_jsettlers_bridge.py::test_catan_jsettlers_writes",
)


def _slow_rank(item):
    node = item.nodeid.split("/")[-1]
    return next((k for k, prefix in enumerate(SLOW_FIRST) if node.startswith(prefix)), len(SLOW_FIRST))


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=_slow_rank)  # stable: the rest keep their order

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

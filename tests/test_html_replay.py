"""The HTML replay in a real browser: Debian's chromium loads the page headless, opens it
at two steps and while playing, and the board in the DOM changes."""
import re
import shutil
import subprocess

import numpy as np
import pytest

import catan_env
from catan_env.html_replay import write_html


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _record(steps=900):
    env = catan_env.raw_env(players=4)
    env.reset(seed=21)
    rng = np.random.default_rng(2)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.record()


def _dom(browser, url, budget_ms=None):
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", url]
    if budget_ms:
        args.insert(-1, f"--virtual-time-budget={budget_ms}")
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _pieces(dom):
    step = int(re.search(r'<body[^>]*data-step="(\d+)"', dom).group(1))
    return step, dom.count('class="road"'), dom.count('class="settlement"') + dom.count('class="city"')


def test_page_is_self_contained(tmp_path):
    page = tmp_path / "game.html"
    n = write_html(_record(200), page)
    text = page.read_text()
    assert n == 201 and "<svg" in text and "game-data" in text
    assert not re.search(r'(src|href)="(https?:)?//', text)  # nothing loaded from the network


@pytest.mark.skipif(_browser() is None, reason="no chromium here (apt-get install chromium; .ci/run does)")
def test_html_replay_steps_and_plays_in_chromium(tmp_path):
    browser = _browser()
    page = tmp_path / "game.html"
    n = write_html(_record(), page)
    url = page.as_uri()
    step0, roads0, builds0 = _pieces(_dom(browser, url + "#step=0"))
    assert (step0, roads0, builds0) == (0, 0, 0)
    late = n - 1
    step1, roads1, builds1 = _pieces(_dom(browser, f"{url}#step={late}"))
    assert step1 == late and roads1 > 8 and builds1 >= 8          # the board changed
    moves = len(re.findall(r"<li[ >]", _dom(browser, f"{url}#step={late}")))
    assert moves == n                                              # the move list is complete
    playing, _, _ = _pieces(_dom(browser, url + "#play", budget_ms=5000))
    assert playing > 5                                             # play advanced the steps

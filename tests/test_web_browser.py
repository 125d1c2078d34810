"""The browser page in a real browser: Playwright drives Debian's chromium headless.  A
person plays a whole 2-player game against ``random`` by clicking only (the test picks
among the legal targets and buttons the page shows), the downloaded record replays to
the same final state, an illegal move shows its reason, and the spectator page advances.
Set CATAN_WEB_SCREENSHOTS=DIR to keep screenshots of the opening, mid-game and end."""
import asyncio
import os
import shutil
import socket
import threading

import numpy as np
import pytest

pytest.importorskip("aiohttp")
playwright = pytest.importorskip("playwright.sync_api")

from catan_env.core.record import GameRecord  # noqa: E402
from catan_env.web.server import make_app  # noqa: E402
from catan_env.web.session import WebGame  # noqa: E402

BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium here (apt-get install chromium; .ci/run does)")


class Served:
    """The app on 127.0.0.1:<free port>, in an event loop of its own thread."""

    def __init__(self, game, delay=0.0):
        from aiohttp import web
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.game = game
        self.loop = asyncio.new_event_loop()
        self.runner = web.AppRunner(make_app(game, delay), shutdown_timeout=2)
        ready = threading.Event()

        def run():
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.runner.setup())
            self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait(30)

    def url(self, token):
        return f"http://127.0.0.1:{self.port}/?token={token}"

    def close(self):
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)


@pytest.fixture
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"])
        yield b
        b.close()


def shoot(page, name):
    folder = os.environ.get("CATAN_WEB_SCREENSHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        page.screenshot(path=os.path.join(folder, name), full_page=True)


def click_a_legal_move(page, rng):
    """Click one of the legal targets or buttons the page shows (opening a group first)."""
    clickable = page.locator("#targets [data-actions], #actions button[data-action]")
    n = clickable.count()
    assert n > 0, "the page shows no legal move on the person's turn"
    choice = clickable.nth(int(rng.integers(n)))
    group = choice.locator("xpath=ancestor::details")
    if group.count() and group.get_attribute("open") is None:
        group.locator("summary").click()
    choice.click()


def test_a_person_plays_a_whole_game_by_clicking_and_the_record_replays(browser, tmp_path):
    game = WebGame(["human", "random"], seed=21, options={"vp_to_win": 4})  # a short game
    served = Served(game)
    try:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(served.url(game.token(0)))
        page.wait_for_function("document.body.dataset.yourMove === '1'")
        shoot(page, "web_opening.png")
        # an illegal move (END_TURN while placing a settlement) is refused with its reason
        page.evaluate("act(1)")
        page.wait_for_function("document.getElementById('error').textContent.length > 0")
        assert "END_TURN is not legal now" in page.inner_text("#error")
        rng = np.random.default_rng(0)
        clicks = 0
        while True:
            page.wait_for_function("document.body.dataset.yourMove === '1' || document.body.dataset.over === '1'")
            if page.get_attribute("body", "data-over") == "1":
                break
            version = page.get_attribute("body", "data-version")
            click_a_legal_move(page, rng)
            clicks += 1
            page.wait_for_function(f"document.body.dataset.version !== '{version}' || "
                                   "document.getElementById('error').textContent.length > 0 || "
                                   "document.querySelector('#actions div') !== null")
            if clicks == 25:
                shoot(page, "web_midgame.png")
        assert clicks > 10
        winner = int(page.get_attribute("#result", "data-winner"))
        assert winner in (0, 1) and "winner" in page.inner_text("#result")
        shoot(page, "web_final.png")
        with page.expect_download() as download:
            page.click("#record")
        path = tmp_path / "game.json"
        download.value.save_as(path)
        record = GameRecord.load(path)
        assert np.array_equal(record.final_state(), game.env.game_state)
        page.close()
    finally:
        served.close()


def test_the_spectator_page_advances_and_pauses(browser):
    game = WebGame(["random", "random", "random"], seed=4)
    served = Served(game, delay=0.05)
    try:
        page = browser.new_page()
        page.goto(served.url(game.spectator_token))
        page.wait_for_function("Number(document.body.dataset.version) > 5")
        assert page.inner_text("#mine") == "spectating" and page.locator("#actions button").count() == 0
        page.click("#pause")
        page.wait_for_function("document.getElementById('pause').textContent === 'resume'")
        frozen = len(game.log)
        page.wait_for_timeout(300)
        assert len(game.log) == frozen
        page.click("#step")
        page.wait_for_function("document.querySelectorAll('#log li').length > 0")
        page.wait_for_timeout(200)
        assert len(game.log) == frozen + 1
        # the new-game form: two random agents on the beginner board, watched from this page
        page.click("#newgame summary")
        page.select_option("#newform select[name=n]", "2")
        page.fill("#newform input[name=seat0]", "random")
        page.fill("#newform input[name=seat1]", "weighted")
        page.select_option("#newform select[name=you]", "")
        page.select_option("#newform select[name=board]", "beginner")
        page.click("#pause")  # resume
        page.click("#newform button[type=submit]")
        page.wait_for_function("document.querySelectorAll('#players tbody tr').length === 2")
        page.wait_for_function("document.querySelectorAll('#log li').length > 3")
        assert "weighted" in page.inner_text("#players")
        page.close()
    finally:
        served.close()

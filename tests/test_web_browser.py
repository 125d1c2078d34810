"""The browser page in a real browser: Playwright drives Debian's chromium headless.

A person plays a whole 3-player game against JSettlersAgent and ``random`` by clicking
only (the test picks among the targets, buttons and trade panels the page shows); every
trade the person's clicks executed moved exactly the cards the page showed; a reload in
mid-game resumes the seat with the whole log; the downloaded record replays to the same
final state.  The spectator page can neither act nor start a game, and a spec the form
does not offer is refused.  CI installs chromium and sets CATAN_REQUIRE_BROWSER=1, so
these tests fail there rather than skip.  Set CATAN_WEB_SCREENSHOTS=DIR to keep
screenshots of the opening, a trade, the robber and the end screen, and
CATAN_WEB_FULL_GAME=1 to play the default 4-player 10-VP game against ``pretrained`` and
two JSettlersAgents instead (the time it takes is printed)."""
import asyncio
import json
import re
import os
import shutil
import socket
import threading
import time

import numpy as np
import pytest

REQUIRED = os.environ.get("CATAN_REQUIRE_BROWSER") == "1"
if not REQUIRED:
    pytest.importorskip("aiohttp")
    pytest.importorskip("playwright.sync_api")
from playwright import sync_api as playwright  # noqa: E402

from catan_env.core import actions as A  # noqa: E402
from catan_env.core import layout as L  # noqa: E402
from catan_env.core.record import GameRecord  # noqa: E402
from catan_env.apps.web.server import PlayServer  # noqa: E402
from catan_env.apps.web.session import WebGame  # noqa: E402

BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
if BROWSER is None and REQUIRED:
    raise RuntimeError("CATAN_REQUIRE_BROWSER=1 but no chromium is installed (apt-get install chromium)")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium here (apt-get install chromium; .ci/run does)")


class Served:
    """A PlayServer on 127.0.0.1:<free port>, in an event loop of its own thread."""

    def __init__(self, game, delay=0.0, **kw):
        from aiohttp import web
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.server = PlayServer(game, delay=delay, **kw)
        self.loop = asyncio.new_event_loop()
        self.runner = web.AppRunner(self.server.app(), shutdown_timeout=2)
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
        return f"http://127.0.0.1:{self.port}/#token={token}"

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


CLICKABLE = ("#targets [data-actions], #actions button[data-action], #actions button[data-discard]:not([disabled]), "
             "#choose button[data-action]")


def click_a_legal_move(page, rng):
    """Click one of the moves the page shows (a trade panel's choices picked at random
    first); returns what the page showed for a trade: its move id and terms."""
    clickable = page.locator(CLICKABLE)
    n = clickable.count()
    assert n > 0, "the page shows no legal move on the person's turn"
    trades = page.locator("#actions button[data-kind=TRADE_CONFIRM], #actions button[data-kind=TRADE_ACCEPT], "
                          "#actions button[data-kind=MARITIME_TRADE]")
    if trades.count() and rng.random() < 0.5:  # trades that execute, more often than chance
        choice = trades.nth(int(rng.integers(trades.count())))
    else:
        choice = clickable.nth(int(rng.integers(n)))
    group = choice.locator("xpath=ancestor::details")
    if group.count() and group.get_attribute("open") is None:
        group.locator("summary").click()
    panel = choice.locator("xpath=ancestor::div[contains(@class,'panel')]")
    if panel.count() and panel.locator("select").count() == 2:
        selects = panel.locator("select")
        for k in range(2):
            options = selects.nth(k).locator("option")
            selects.nth(k).select_option(index=int(rng.integers(options.count())))
    shown = None
    if choice.get_attribute("data-terms"):
        text = choice.inner_text()
        if panel.count() and panel.locator("select").count() == 2:
            text += " " + " ".join(panel.locator("select").nth(k).input_value() for k in range(2))
        shown = {"action": int(choice.get_attribute("data-action")), "terms": json.loads(choice.get_attribute("data-terms")),
                 "text": text}
    choice.click()
    return shown


def watch_trades(game):
    """Record every executed move with seat 0's hand before and after it."""
    steps = []
    original = game._step

    def step(seat, action):
        before = L.view(game.env.game_state, "hand")[0].copy()
        original(seat, action)
        steps.append((seat, action, before, L.view(game.env.game_state, "hand")[0].copy()))
    game._step = step
    return steps


def delta_of(terms):
    d = np.zeros(L.N_RES, np.int64)
    d[L.RESOURCE_NAMES.index(terms["give"][1])] -= terms["give"][0]
    d[L.RESOURCE_NAMES.index(terms["get"][1])] += terms["get"][0]
    return d


def test_a_person_plays_a_whole_game_by_clicking_and_every_trade_matches_what_was_shown(browser, tmp_path):
    if os.environ.get("CATAN_WEB_FULL_GAME") == "1":  # the docs' figure: a whole 10-VP game, as the CLI's default
        game = WebGame(["human", "pretrained", "jsettlers", "jsettlers"], seed=21)
    else:
        game = WebGame(["human", "jsettlers", "random"], seed=21, options={"vp_to_win": 6})
    steps = watch_trades(game)
    served = Served(game)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(served.url(served.server.host_token))
        page.wait_for_function("() => document.body.dataset.yourMove === '1'")
        shoot(page, "web_opening.png")
        # a move that is not legal (ending the turn while placing a settlement) is refused, in words
        page.evaluate(f"act({A.END_TURN})")
        page.wait_for_function("() => document.getElementById('error').textContent.length > 0")
        assert "that move is not possible now (Your turn: place your first settlement" in page.inner_text("#error")
        rng = np.random.default_rng(0)
        clicks, shown, shots, t0, capped = 0, [], set(), time.monotonic(), 0
        while True:
            page.wait_for_function("() => document.body.dataset.yourMove === '1' || document.body.dataset.over === '1'",
                                   timeout=120_000)
            if page.get_attribute("body", "data-over") == "1":
                break
            if "trade" not in shots and page.locator("#offer li, #actions .panel[data-kind=TRADE_OFFER]").count():
                shoot(page, "web_trade.png")
                shots.add("trade")
            if "robber" not in shots and page.locator("#targets .hex-target").count():
                shoot(page, "web_robber.png")
                shots.add("robber")
            version = page.get_attribute("body", "data-version")
            now = page.evaluate("""() => ({made: state.offers_made, max: state.max_offers,
                mine: state.turn_player === state.seat && state.legal.some((a) => a.kind === "END_TURN"),
                offer: state.legal.some((a) => a.kind === "TRADE_OFFER"),
                note: document.getElementById("offers-used") !== null,
                panel: [...document.querySelectorAll("#actions .panel-title")].map((e) => e.textContent)})""")
            log_box = page.evaluate("""() => { const log = document.getElementById('log'), r = log.getBoundingClientRect();
                const last = log.lastElementChild ? log.lastElementChild.getBoundingClientRect() : r;
                return [r.top, r.bottom, window.innerHeight, last.bottom]; }""")
            assert log_box[1] <= log_box[2] + 1 and log_box[1] - log_box[0] >= 100, log_box  # the log in view ...
            assert log_box[3] <= log_box[1] + 1, log_box  # ... with its newest line
            if now["mine"] and now["offer"]:  # the offers left are said ...
                assert any(f"of {now['max']} offers left this turn" in t for t in now["panel"]), now
            if now["mine"] and not now["offer"] and now["made"] >= now["max"]:  # ... and the cap once reached
                assert now["note"], now
                capped += 1
            seen = click_a_legal_move(page, rng)
            chooser = page.locator("#choose button").all_inner_texts()
            assert all(re.search(r"\(\d+ cards?\)$", b) for b in chooser), chooser  # each victim's cards
            if seen:
                shown.append(seen)
            clicks += 1
            page.wait_for_function(f"() => document.body.dataset.version !== '{version}' || "
                                   "document.getElementById('error').textContent.length > 0 || "
                                   "document.querySelector('#choose button') !== null")
            if clicks == 30:  # a reload in mid-game: the seat and the whole log come back
                lines = page.locator("#log li").count()
                page.uncheck("#log-filter input[value=rolls]")  # the page's own choices come back too
                page.check("#autodecline")
                page.reload()
                page.wait_for_function("() => Number(document.body.dataset.version) >= 1")
                assert not game.over and "Red (you)" in page.inner_text("#players")
                assert page.is_checked("#autodecline") and not page.is_checked("#log-filter input[value=rolls]")
                page.uncheck("#autodecline")
                page.check("#log-filter input[value=rolls]")
                page.wait_for_function(f"() => document.querySelectorAll('#log li').length >= {lines}")
        elapsed = time.monotonic() - t0
        assert clicks > 20 and not game.result()["abandoned"]
        # every trade the person's clicks executed moved the cards the page showed
        mine = [(i, s) for i, s in enumerate(steps) if s[0] == 0]
        checked = 0
        for seen in shown:
            i, (seat, action, before, after) = next((k, s) for k, s in mine if s[1] == seen["action"])
            mine = [(k, s) for k, s in mine if k > i]
            expect = delta_of(seen["terms"])
            give, get = seen["terms"]["give"], seen["terms"]["get"]
            assert f"{give[0]} {give[1]}" in seen["text"] and f"{get[0]} {get[1]}" in seen["text"], seen
            kind = A.action_kind(action)
            if kind in ("TRADE_CONFIRM", "MARITIME_TRADE"):
                assert np.array_equal(after - before, expect), seen
                checked += 1
            elif kind == "TRADE_ACCEPT":  # executes when the proposer confirms with us
                done = next((s for s in steps[i + 1:] if s[0] != 0), None)
                if done is not None and A.action_kind(done[1]) == "TRADE_CONFIRM" and \
                        not np.array_equal(done[3], done[2]):
                    assert np.array_equal(done[3] - done[2], expect), seen
                    checked += 1
        assert checked >= 1, f"no executed trade among {len(shown)} trade clicks"
        winner = int(page.get_attribute("#result", "data-winner"))
        assert winner == game.result()["winner"] and "wins with" in page.inner_text("#result")
        table = page.inner_text("#breakdown")
        assert "longest road" in table and "VP cards" in table
        page.wait_for_selector("#chart svg", timeout=120_000)  # how the game swung
        shoot(page, "web_final.png")
        with page.expect_download() as download:
            page.click("#record")
        path = tmp_path / "game.json"
        download.value.save_as(path)
        assert np.array_equal(GameRecord.load(path).final_state(), game.true_state())
        stole = [e for e in game.log if e["seat"] == 0 and A.action_kind(e["action"]) == "MOVE_ROBBER"
                 and any(" stole " in line for line in e["lines"][0])]
        if stole:  # the thief was told in the banner, not only in the log
            assert any(re.match(r"You moved the robber .* and stole 1 \w+ from ", n) for n in page.evaluate("noticesShown"))
        # the log: one line per trade round, the offer with its answers and outcome
        entries = page.locator("#log li:not(.sep)").all_inner_texts()
        offers = sum(A.action_kind(e["action"]) == "TRADE_OFFER" for e in game.executed())
        assert sum(" offered " in e for e in entries) == offers > 0
        answer = re.compile(r"declined the offer|\baccepted\b|countered:|offer lapsed|cancelled the offer")
        assert all(" offered " in e for e in entries if answer.search(e)), [e for e in entries if answer.search(e)][:3]
        red = page.evaluate("board.colours[0]")  # your rounds (and their lapses) carry your colour
        swatches = page.evaluate("""() => [...document.querySelectorAll('#log li')]
            .filter((li) => /^ ?You offered/.test(li.textContent)).map((li) => li.querySelector('.swatch').style.background)""")
        assert swatches and all(s.replace(" ", "") == red.replace(" ", "") for s in swatches), (red, swatches[:3])
        page.uncheck("#log-filter input[value=trades]")  # a filter hides its lines, and only those
        left = page.locator("#log li:not(.sep)").all_inner_texts()
        assert not any(" offered " in e or "with the bank" in e for e in left) and len(left) < len(entries)
        page.check("#log-filter input[value=trades]")
        print(f"\n{clicks} clicks, {len(shown)} trade clicks ({checked} executed trades checked), {elapsed:.0f} s, "
              f"{len(entries)} log lines for {offers} offers, offer cap reached {capped} times, {len(stole)} steals")
        page.close()
    finally:
        served.close()


def test_a_hostile_agent_name_runs_no_script_and_shows_no_path(browser):
    """An agent spec typed on the command line reaches every page as that seat's label:
    markup in it stays text, a path in it is never shown, and the page's policy refuses
    inline script even where markup did get in."""
    hostile = ['value:path=/tmp/secret/<img src=x onerror="window.pwned=1">.npz', "random"]
    game = WebGame(["random", "random"], seed=4, labels=hostile)
    served = Served(game, delay=0.05)
    try:
        page = browser.new_page()
        blocked = []
        page.on("console", lambda msg: blocked.append(msg.text) if "Content Security Policy" in msg.text else None)
        page.goto(served.url(served.server.spectator_token))
        page.wait_for_function("() => Number(document.body.dataset.version) > 2")
        players = page.inner_text("#players")
        assert "/tmp/secret" not in page.content() and "Red (value)" in players  # the kind, never its path
        assert page.locator("#players img").count() == 0
        page.evaluate("""() => { document.getElementById('log').insertAdjacentHTML('beforeend',
            '<li><img src=x onerror="window.pwned=1"></li>'); }""")
        page.wait_for_timeout(500)
        assert page.evaluate("window.pwned") is None and blocked  # the policy stopped the handler
        assert page.evaluate("document.referrer") == "" and "token" not in page.evaluate("location.search")
    finally:
        served.close()


def test_the_logs_newest_line_stays_in_view_when_a_panel_takes_room_above_it(browser):
    game = WebGame(["random", "random", "random"], seed=4)
    served = Served(game, delay=0.0)  # (also: the server stops while it floods a slow page)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(served.url(served.server.spectator_token))
        page.wait_for_function("() => document.querySelectorAll('#log li').length > 120")

        def newest_in_view():
            return page.evaluate("""() => { const log = document.getElementById('log');
                return log.lastElementChild.getBoundingClientRect().bottom <= log.getBoundingClientRect().bottom + 1; }""")
        assert newest_in_view()
        page.evaluate("""() => { const d = document.createElement('div'); d.style.height = '260px';
            document.getElementById('choose').appendChild(d); }""")  # a panel opens above the log
        page.wait_for_timeout(200)
        assert newest_in_view()
    finally:
        served.close()


def test_the_spectator_page_only_watches_and_the_form_offers_no_free_specs(browser):
    game = WebGame(["random", "random", "random"], seed=4)
    served = Served(game, delay=0.05)
    try:
        watcher = browser.new_page()
        watcher.goto(served.url(served.server.spectator_token))
        watcher.wait_for_function("() => Number(document.body.dataset.version) > 5")
        assert "You are watching" in watcher.inner_text("#mine") and watcher.locator("#actions button").count() == 0
        assert not watcher.is_visible("#newgame") and not watcher.is_visible("#controls")
        watcher.evaluate("send({type: 'new_game', players: ['human', 'random'], you: 0})")
        watcher.wait_for_function("() => document.getElementById('error').textContent.includes('only the host')")
        watcher.evaluate(f"send({{type: 'act', action: {A.ROLL}, seq: state.seq}})")
        watcher.wait_for_function("() => document.getElementById('error').textContent.includes('does not play a seat')")
        host = browser.new_page()
        host.on("dialog", lambda dialog: dialog.accept())  # "the game now running ends": yes
        host.goto(served.url(served.server.host_token))
        host.wait_for_function("() => Number(document.body.dataset.version) > 1")
        host.click("#pause")
        host.wait_for_function("() => document.getElementById('pause').textContent === 'resume'")
        host.wait_for_timeout(300)  # a move already under way when the pause came may still land
        frozen = len(game.log)
        host.wait_for_timeout(300)
        assert len(game.log) == frozen
        host.click("#step")
        host.wait_for_timeout(300)
        assert len(game.log) == frozen + 1
        # the form's seats are the server's named agents; a spec slipped in is refused
        host.click("#newgame summary")
        host.select_option("#newform select[name=n]", "2")
        host.evaluate("""() => { const s = document.querySelector('#newform select[name=seat1]');
            const o = document.createElement('option'); o.value = 'value:path=/etc/passwd'; s.appendChild(o);
            s.value = o.value; }""")
        host.click("#newform button[type=submit]")
        host.wait_for_function("() => document.getElementById('error').textContent.includes('not an agent this server offers')")
        assert served.server.game is game
        host.select_option("#newform select[name=seat0]", "random")
        host.select_option("#newform select[name=seat1]", "weighted")
        host.select_option("#newform select[name=board]", "beginner")
        host.click("#pause")  # resume
        chosen = host.evaluate("[...document.querySelectorAll('#seats select')].map((s) => s.value)")
        assert chosen == ["random", "weighted"]
        host.click("#newform button[type=submit]")
        host.wait_for_function("() => document.querySelectorAll('#players tbody tr').length === 2")
        host.wait_for_function("() => document.querySelectorAll('#log li').length > 3")
        assert served.server.game.labels == ["random", "weighted"]  # what the form sent is what sits
        # the form's words for weighted (the table follows the new game's board message)
        host.wait_for_function("() => document.getElementById('players').innerText.includes('random moves, builds first')")
        watcher.wait_for_function("() => document.querySelectorAll('#players tbody tr').length === 2")
        assert watcher.locator("#actions button").count() == 0  # still only watching
        host.close()
        watcher.close()
    finally:
        served.close()

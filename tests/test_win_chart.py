"""How a game swung (catan_env.apps.win_chart): each seat's own-view win chance along a played
game, against the network's one-state call; no hidden information read; the swings
against a slow recomputation; the chart is well-formed SVG; the agents layer stays lazy."""
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import catan_env
from catan_env.agents.arena import decisions
from catan_env.agents.random_agents import WeightedRandomAgent
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.record import GameRecord
from catan_env.apps.win_chart import chart_svg, default_network, find_swings, own_view_chances, win_timeline
from helpers import hidden_variants

SVG = "{http://www.w3.org/2000/svg}"


def weighted_game(seed: int, players: int = 4) -> GameRecord:
    """A finished game of the paper's weighted-random agents (about 1,500 steps)."""
    env = catan_env.raw_env(players=players)
    env.reset(seed=seed)
    agents = [WeightedRandomAgent(seed=seed * 10 + i) for i in range(players)]
    for _ in decisions(env, agents):
        pass
    return env.record()


@pytest.fixture(scope="module")
def game():
    record = weighted_game(5)
    states = np.stack(list(record.replay()))
    assert states[-1, L.WINNER] >= 0  # a finished game
    net = default_network()
    return record, states, net, win_timeline(record, net)


def test_one_series_per_seat_in_range_and_the_end_is_the_result(game):
    record, states, net, tl = game
    n = int(states[0, L.OPT_PLAYERS])
    w = tl["winner"]
    assert w == int(states[-1, L.WINNER]) and tl["players"] == n
    assert len(tl["chances"]) == n and tl["steps"] == list(range(len(record.actions) + 1))
    assert tl["turns"] == states[:, L.TURN].tolist()
    c = np.array(tl["chances"])
    assert c.shape == (n, len(states)) and (c >= 0).all() and (c <= 1).all()
    # the last position is decided: the winner 1, the others 0
    assert c[:, -1].tolist() == [1.0 if p == w else 0.0 for p in range(n)]
    # one step before, the network's own judgement: in this game it saw the win coming
    # (over 8 weighted games the winner had the highest own estimate there in 6)
    assert c[w, -2] > 0.8
    assert all(c[p, -2] < 0.2 for p in range(n) if p != w)
    # and over the game: the winner's mean over the last tenth beats every loser's
    tail = c[:, -len(states) // 10:-1].mean(axis=1)
    assert all(tail[w] > tail[p] for p in range(n) if p != w)


def test_each_seat_is_judged_from_its_own_view(game):
    """Every point is the network's estimate of seat p's chance by p's features
    (``ValueNetwork.win_probs`` one state at a time, the slow way)."""
    record, states, net, tl = game
    n = len(tl["chances"])
    for i in range(0, len(states) - 1, 97):
        for p in range(n):
            assert tl["chances"][p][i] == pytest.approx(net.win_probs(states[i], p)[p], abs=1e-6)
    # own views, not one observer's: seat 0's estimate of seat p differs somewhere
    differs = [abs(tl["chances"][p][i] - net.win_probs(states[i], 0)[p]) > 1e-3
               for i in range(16, len(states) - 1, 97) for p in range(1, n)]
    assert any(differs)


def test_a_seats_estimate_ignores_what_it_cannot_see(game):
    """Re-draw what seat p cannot know (opponents' hand make-up, their development cards,
    the RNG, others' knowledge; and whole determinizations for p): p's estimate is the same
    to the last bit.  The variants do matter to someone (another seat's estimate moves), so
    a leak would show."""
    _, states, net, _ = game
    rng = np.random.default_rng(3)
    n = int(states[0, L.OPT_PLAYERS])
    checked, others_moved = 0, 0
    for i in range(20, len(states) - 1, 60):
        s = states[i]
        base = own_view_chances(s[None], net)[0]
        for p in range(n):
            variants = [other for _, other in hidden_variants(s, p, rng)]
            variants.append(G.determinize(s, p, int(rng.integers(1 << 30))))
            got = own_view_chances(np.stack(variants), net)
            assert (got[:, p] == base[p]).all(), (i, p)
            others_moved += int((np.abs(np.delete(got, p, axis=1) - np.delete(base, p)) > 1e-6).any())
            checked += len(variants)
    assert checked > 100 and others_moved > 10


def slow_swings(chances, threshold, top):
    """The swings the obvious way: every step's largest one-seat change, sorted."""
    sizes = []
    for i in range(1, len(chances[0])):
        size = max(abs(series[i] - series[i - 1]) for series in chances)
        if size >= threshold:
            sizes.append((size, i))
    sizes.sort(key=lambda t: -t[0])
    return sorted(i for _, i in sizes[:top])


def test_swings_are_the_largest_one_step_changes(game):
    record, states, net, tl = game
    c = tl["chances"]
    steps = [sw["step"] for sw in tl["swings"]]
    assert steps == slow_swings(c, 0.1, 8) and len(steps) >= 3
    for sw in tl["swings"]:
        i = sw["step"]
        assert sw["before"] == [series[i - 1] for series in c] and sw["after"] == [series[i] for series in c]
        assert sw["seats"] == [p for p in range(len(c)) if abs(c[p][i] - c[p][i - 1]) >= 0.1]
        assert sw["turn"] == tl["turns"][i] and isinstance(sw["words"], str) and sw["words"]
    for threshold, top in ((0.05, 3), (0.05, 20), (0.3, 8), (2.0, 8)):
        assert find_swings(np.array(c).T, threshold, top) == slow_swings(c, threshold, top)
    # a made-up series: the jumps at 2 (0.5), 5 (0.3) and 7 (0.2); 0.09 is below the threshold
    made = np.array([[0.1, 0.1, 0.6, 0.6, 0.69, 0.39, 0.39, 0.59], [0.5] * 8]).T
    assert find_swings(made, 0.1, 2) == [2, 5] and find_swings(made, 0.1, 8) == [2, 5, 7]
    assert find_swings(made[:1], 0.1, 8) == []


def test_the_words_say_what_happened(game):
    """With every step a swing, the last one is the winning move, told with the winner."""
    from catan_env.words import player_name
    record, states, net, tl = game
    every = win_timeline(record, net, threshold=0.0, top=len(states))
    assert [sw["step"] for sw in every["swings"]] == list(range(1, len(states)))
    last = every["swings"][-1]["words"]
    assert f"{player_name(tl['winner'])} wins" in last


def test_the_chart_is_svg_with_a_line_per_seat_markers_and_a_cursor(game):
    _, _, _, tl = game
    names = ["red", "blue", "orange", "white"]
    colours = ["rgb(220,40,40)", "rgb(40,90,220)", "rgb(245,140,20)", "rgb(240,240,240)"]
    svg = chart_svg(tl, names, colours, width=600, height=200)
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag == SVG + "svg" and root.get("viewBox") == "0 0 600 200"
    paths = root.findall(f".//{SVG}path")
    assert [p.get("id") for p in paths] == [f"wc-seat-{k}" for k in range(4)]
    for path in paths:
        assert path.get("d").count("L") == len(tl["steps"]) - 1
    uses = root.findall(f".//{SVG}use")
    outlines = [u for u in uses if u.get("stroke") == "#222"]
    assert len(outlines) == 4 and {u.get("stroke") for u in uses} - {"#222"} == set(colours)
    markers = root.findall(f".//{SVG}g[@class='swing']")
    assert [int(m.get("data-step")) for m in markers] == [sw["step"] for sw in tl["swings"]]
    for k, (m, sw) in enumerate(zip(markers, tl["swings"]), start=1):
        title = m.find(f"{SVG}title").text
        assert title.startswith(f"{k}. turn {sw['turn']}") and sw["words"] in title
        assert m.find(f"{SVG}text").text == str(k)
    assert len(root.findall(f".//{SVG}line[@class='wc-cursor']")) == 1
    x0, x1 = float(root.get("data-x0")), float(root.get("data-x1"))
    assert 0 < x0 < x1 <= 600 and int(root.get("data-points")) == len(tl["steps"])
    # a marker sits on its step's x, between its turn's tick and the next; ticks evenly spaced
    xs = [float(x) for x in root.get("data-xs").split(",")]
    assert len(xs) == len(tl["steps"]) and xs == sorted(xs) and xs[0] == pytest.approx(x0) and xs[-1] == pytest.approx(x1)
    first = {}
    for i, turn in enumerate(tl["turns"]):
        first.setdefault(int(turn), xs[i])
    widths = [first[t + 1] - first[t] for t in sorted(first)[:-1] if t + 1 in first]
    assert max(widths) - min(widths) < 0.25  # every turn equally wide (0.1 px rounding)
    for m, sw in zip(markers, tl["swings"]):
        cx = float(m.find(f"{SVG}circle").get("cx"))
        assert cx == pytest.approx(xs[sw["step"]], abs=0.06)
        t = int(tl["turns"][sw["step"]])
        assert first[t] <= cx + 0.06 and (t + 1 not in first or cx < first[t + 1])
    # names are escaped
    ET.fromstring(chart_svg(tl, ["<a&b>", "b", "c", "d"], colours))


def test_importing_the_module_does_not_import_the_agents_layer():
    code = ("import sys, catan_env.apps.win_chart, catan_env.apps.html_replay\n"
            "print(sorted(m for m in sys.modules if m.startswith('catan_env.agents')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"

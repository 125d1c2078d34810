"""The ladder: finishing orders, the Plackett-Luce update against a hand computation,
ratings reproducible from a game file, tables reproducible from the seed, resuming."""
import json
import math

import pytest

pytest.importorskip("openskill")

from catan_env.agents.ladder import Ladder, finishing_ranks, main, ratings, table_of  # noqa: E402


def plackett_luce(mus, sigmas, ranks, beta=25 / 6, kappa=1e-4, tau=25 / 300):
    """Weng and Lin (2011), Algorithm 4, one player a team, written out by hand: the
    update every seat gets from one game's finishing order (tau: the dynamics term
    added to each sigma before the game)."""
    var = [s * s + tau * tau for s in sigmas]
    c = math.sqrt(sum(v + beta * beta for v in var))
    e = [math.exp(m / c) for m in mus]
    n = len(mus)
    sum_below = [sum(e[s] for s in range(n) if ranks[s] >= ranks[q]) for q in range(n)]
    ties = [sum(1 for s in range(n) if ranks[s] == ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                p = e[i] / sum_below[q]
                omega += ((1.0 if q == i else 0.0) - p) / ties[q]
                delta += p * (1 - p) / ties[q]
        gamma = math.sqrt(var[i]) / c
        out.append((mus[i] + var[i] / c * omega, math.sqrt(var[i] * max(1 - gamma * var[i] / c ** 2 * delta, kappa))))
    return out


def game(i, specs, winner, vp):
    return {"game": i, "specs": specs, "winner": winner, "vp": vp}


def test_finishing_ranks():
    assert finishing_ranks(2, [5, 7, 10, 3]) == [3, 2, 1, 4]
    assert finishing_ranks(0, [10, 6, 6, 2]) == [1, 2, 2, 4]  # equal VP share a place
    assert finishing_ranks(3, [9, 9, 4, 10]) == [2, 2, 4, 1]
    assert finishing_ranks(-1, [7, 8, 8, 2]) == [3, 1, 1, 4]  # the turn cap: by VP only


def test_one_game_updates_as_the_hand_computation():
    # three new agents, one game: the winner gains most, the last loses most
    rows = {r["agent"]: r for r in ratings([game(0, ["a", "b", "c"], 0, [10, 6, 3])])}
    by_hand = plackett_luce([25.0] * 3, [25 / 3] * 3, [1, 2, 3])
    for name, (mu, sigma) in zip("abc", by_hand):
        assert rows[name]["mu"] == pytest.approx(mu, abs=1e-9) and rows[name]["sigma"] == pytest.approx(sigma, abs=1e-9)
    assert by_hand[0][0] == pytest.approx(27.869, abs=1e-3) and by_hand[2][0] == pytest.approx(21.414, abs=1e-3)
    # a second game on the ratings after the first, with a tie for second place
    games = [game(0, ["a", "b", "c", "d"], 1, [6, 10, 4, 5]), game(1, ["c", "a", "d", "b"], 0, [10, 7, 7, 2])]
    first = plackett_luce([25.0] * 4, [25 / 3] * 4, [2, 1, 4, 3])
    after = dict(zip("abcd", first))
    second = plackett_luce([after[x][0] for x in "cadb"], [after[x][1] for x in "cadb"], [1, 2, 2, 4])
    rows = {r["agent"]: r for r in ratings(games)}
    for name, (mu, sigma) in zip("cadb", second):
        assert rows[name]["mu"] == pytest.approx(mu, abs=1e-9) and rows[name]["sigma"] == pytest.approx(sigma, abs=1e-9)
    assert rows["c"]["games"] == 2 and rows["c"]["wins"] == 1 and rows["b"]["wins"] == 1


def test_ratings_are_reproducible_from_a_game_file(tmp_path):
    games = [game(i, [["w", "x", "y", "z"][(i + k) % 4] for k in range(4)], i % 4, [10, 3 + i % 5, 4, 2])
             for i in range(30)]
    shuffled = games[::-1]  # the file's line order does not matter: games apply in index order
    assert ratings(games) == ratings(shuffled)
    folder = tmp_path / "l"
    ladder = Ladder(str(folder), ["w", "x", "y", "z"], seed=3)
    with open(ladder.games_path, "w") as f:
        for g in shuffled:
            f.write(json.dumps(g) + "\n")
        f.write('{"game": 30, "specs": ')  # a half-written last line (a run killed mid-write)
    rows = ratings(Ladder(str(folder)).games(), ["w", "x", "y", "z", "new"])
    assert [r for r in rows if r["agent"] != "new"] == ratings(games)
    assert [r for r in rows if r["agent"] == "new"][0]["mu"] == 25.0


def test_tables_come_from_the_seed_and_the_game_index():
    pool = [f"agent{i}" for i in range(9)]
    tables = [table_of(5, i, pool) for i in range(50)]
    assert tables == [table_of(5, i, pool) for i in range(50)]
    assert tables != [table_of(6, i, pool) for i in range(50)]
    assert all(len(set(specs)) == 4 and set(specs) <= set(pool) for specs, _ in tables)
    assert len({tuple(specs) for specs, _ in tables}) > 40  # mixed tables, seats in every order


def test_a_ladder_resumes_and_matches_a_fresh_run(tmp_path, capsys):
    pool = ["random", "weighted", "jsettlers", "trader"]
    a = Ladder(str(tmp_path / "a"), pool, seed=1, max_turns=25)
    assert a.play(2, progress=False) == 2
    assert a.play(4, progress=False) == 2  # only the missing games
    assert a.play(4, progress=False) == 0
    with open(a.games_path, "a") as f:
        f.write('{"game": 4, "spe')  # killed mid-write: the next run cuts the line and replays the game
    assert a.play(5, progress=False) == 1 and len(a.games()) == 5
    b = Ladder(str(tmp_path / "b"), pool, seed=1, max_turns=25)
    b.play(5, workers=2, progress=False)
    assert sorted(a.games(), key=lambda g: g["game"]) == sorted(b.games(), key=lambda g: g["game"])
    lines = open(a.games_path).read().splitlines()
    with open(a.games_path, "w") as f:  # a broken line before the last: named, never skipped silently
        f.write("\n".join(lines[:2] + ["not json"] + lines[2:]) + "\n")
    with pytest.raises(Exception, match="line 3 is not a game record"):
        a.games()
    with open(a.games_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    with pytest.raises(Exception, match="other settings"):
        Ladder(str(tmp_path / "a"), pool, seed=2, max_turns=25)
    # the command line: a report of the folder, and a bad spec named in one line
    assert main(["--out", str(tmp_path / "a"), "--report"]) == 0
    out = capsys.readouterr().out
    assert "5 games" in out and all(name in out for name in pool)
    assert json.loads((tmp_path / "a" / "ratings.json").read_text())["games"] == 5
    assert main(["--agents", "random,weighted,nonsense,trader", "--out", str(tmp_path / "c")]) == 2
    assert "unknown agent 'nonsense'" in capsys.readouterr().err
    assert main(["--agents", "random,weighted,trader", "--out", str(tmp_path / "d")]) == 2

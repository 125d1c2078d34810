"""The shared learned-value stack (``agents.training``): the resumable rounds driver, its
log, the training loop's early stopping and the game-level split; the two learned agents
(Deep Catan and the value network) are checked to stand on these parts."""
import ast
import json
import os

import numpy as np
import pytest

from catan_env.agents.training.fit import minibatches, split_games
from catan_env.agents.training.rounds import RoundLog, round_line, run_rounds
from catan_env.agents.training.shards import record
from test_deep import load_example

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _stages(out, calls, fail_at=None):
    def record_stage(k, prev):
        calls.append(("record", k, prev))
        return {"positions": 10 * k}

    def train(k, prev, path):
        if k == fail_at:
            raise RuntimeError("stopped")
        calls.append(("train", k, prev))
        with open(path, "w") as f:
            f.write(str(k))
        return {"loss": 1.0 / (k + 1)}

    def evaluate(k, path):
        calls.append(("eval", k))
        return {"win_rate": 0.1 * k}
    return record_stage, train, evaluate


def test_rounds_resume_where_they_stopped(tmp_path):
    path = lambda k: str(tmp_path / f"round-{k}.npz")  # noqa: E731
    calls = []
    log = RoundLog(str(tmp_path / "rounds.json"), settings={"seed": 1})
    with pytest.raises(RuntimeError):
        run_rounds(log, range(3), path, *_stages(tmp_path, calls, fail_at=2))
    assert calls == [("record", 0, None), ("train", 0, None), ("eval", 0),
                     ("record", 1, path(0)), ("train", 1, path(0)), ("eval", 1), ("record", 2, path(1))]
    calls.clear()
    log = RoundLog(str(tmp_path / "rounds.json"), settings={"seed": 1})
    rounds = run_rounds(log, range(3), path, *_stages(tmp_path, calls))
    assert calls == [("record", 2, path(1)), ("train", 2, path(1)), ("eval", 2)]  # rounds 0 and 1 were done
    assert [r["round"] for r in rounds] == [0, 1, 2]
    saved = json.loads((tmp_path / "rounds.json").read_text())
    assert saved["settings"] == {"seed": 1}
    assert [r["eval"]["win_rate"] for r in saved["rounds"]] == pytest.approx([0.0, 0.1, 0.2])
    assert saved["rounds"][2]["data"] == {"positions": 20} and set(saved["rounds"][2]["seconds"]) == {
        "data", "train", "eval"}
    # a network file present but its evaluation missing: only the evaluation runs
    entry = saved["rounds"][2]
    del entry["eval"]
    log = RoundLog(str(tmp_path / "rounds.json"))
    log.save(entry)
    calls.clear()
    run_rounds(RoundLog(str(tmp_path / "rounds.json")), range(3), path, *_stages(tmp_path, calls))
    assert calls == [("eval", 2)]


def test_a_round_judged_weaker_is_not_built_on(tmp_path):
    """With ``keep``, each round builds on the last round kept, also when the run resumes."""
    path = lambda k: str(tmp_path / f"round-{k}.npz")  # noqa: E731
    kept = {0: True, 1: False, 2: True, 3: False}
    for resume in (False, True):
        calls = []
        run_rounds(RoundLog(str(tmp_path / "rounds.json")), range(5), path, *_stages(tmp_path, calls),
                   keep=lambda entry: kept.get(entry["round"], True))
        if not resume:
            assert [c[2] for c in calls if c[0] == "train"] == [None, path(0), path(0), path(2), path(2)]
        else:  # every round done: nothing runs again
            assert calls == []
    calls = []
    (tmp_path / "round-4.npz").unlink()  # round 4 again: it still builds on round 2, the last kept
    run_rounds(RoundLog(str(tmp_path / "rounds.json")), range(5), path, *_stages(tmp_path, calls),
               keep=lambda entry: kept.get(entry["round"], True))
    assert calls == [("record", 4, path(2)), ("train", 4, path(2)), ("eval", 4)]


def test_a_round_reads_as_one_line():
    entry = {"round": 3, "eval": {"wins": 81, "games": 200, "win_rate": 0.405, "ci": [0.339, 0.474],
                                  "opponents": "3 x jsettlers"},
             "seconds": {"data": 61.4, "train": 12.6, "eval": 300.2}}
    assert round_line(entry, "held-out log loss 0.512") == (
        'round 3: 81/200 = 0.405 [0.339, 0.474] against 3 x jsettlers; held-out log loss 0.512; '
        'stage seconds {"data": 61, "train": 13, "eval": 300}')


def test_rounds_stop_early_and_logs_refuse_other_settings(tmp_path):
    calls = []
    log = RoundLog(str(tmp_path / "log.json"), settings={"seed": 1, "epochs": 2}, fixed=("seed",))
    run_rounds(log, range(5), lambda k: str(tmp_path / f"n{k}"), *_stages(tmp_path, calls),
               stop=lambda rounds: len(rounds) == 2)
    assert [c[1] for c in calls if c[0] == "eval"] == [0, 1]
    RoundLog(str(tmp_path / "log.json"), settings={"seed": 1, "epochs": 9}, fixed=("seed",))  # not fixed: fine
    with pytest.raises(ValueError, match="other settings.*seed"):
        RoundLog(str(tmp_path / "log.json"), settings={"seed": 2}, fixed=("seed",))


def test_split_holds_out_whole_games_and_minibatches_cover_every_row():
    game = np.repeat(np.arange(20), 7)
    held = split_games(game, 0.2, seed=3)
    assert len(np.unique(game[held])) == 4
    assert not set(game[held]) & set(game[~held])  # no game on both sides
    assert split_games(np.array([5, 5, 6]), 0.01, 0).any() and not split_games(np.array([5, 5, 6]), 0.99, 0).all()
    rows = np.flatnonzero(~held)
    batches = minibatches(rows, 16, np.random.default_rng(0))
    assert all(np.all(np.diff(b) > 0) for b in batches)
    np.testing.assert_array_equal(np.sort(np.concatenate(batches)), rows)


def test_fit_keeps_the_best_held_out_epoch():
    torch = pytest.importorskip("torch")
    from catan_env.agents.training.fit import fit
    torch.manual_seed(0)
    model = torch.nn.Linear(1, 1)
    x = torch.linspace(-1, 1, 64)[:, None]
    y = 3 * x
    seen = []

    def heldout(m):  # a held-out figure that is lowest after epoch 2, whatever the weights
        seen.append(m.weight.item())
        return {"loss": [5.0, 1.0, 2.0, 3.0][len(seen) - 1]}

    run = fit(model, np.arange(64), lambda m, rows: ((m(x[rows]) - y[rows]) ** 2).mean(), epochs=4, lr=0.05,
              batch=8, heldout=heldout, keep_best="loss")
    assert run.kept_epoch == 2 and [e["epoch"] for e in run.history] == [1, 2, 3, 4]
    assert model.weight.item() == pytest.approx(seen[1])  # epoch 2's weights, not the last
    assert run.history[0]["train_loss"] > run.history[-1]["train_loss"]  # it learned


def test_fit_trains_with_subnormal_floats_flushed_and_restores_torch_after():
    """Subnormals slow the optimizer's step on some hosts: fit flushes them while it trains
    (a subnormal times one reads as zero inside the loss), and torch is as it was after."""
    torch = pytest.importorskip("torch")
    from catan_env.agents.training.fit import fit
    if not torch.set_flush_denormal(False):
        pytest.skip("this CPU cannot flush subnormal floats")
    tiny = torch.tensor([1e-39], dtype=torch.float32)
    seen = []

    def loss_of(m, rows):
        seen.append((tiny * 1.0).item())
        return (m(torch.ones(len(rows), 1)) ** 2).mean()
    fit(torch.nn.Linear(1, 1), np.arange(8), loss_of, epochs=1, batch=4)
    assert seen == [0.0, 0.0]
    assert (tiny * 1.0).item() > 0  # back to torch's default
    torch.set_flush_denormal(True)  # a caller who flushes already keeps it
    try:
        fit(torch.nn.Linear(1, 1), np.arange(8), loss_of, epochs=1, batch=4)
        assert (tiny * 1.0).item() == 0.0
    finally:
        torch.set_flush_denormal(False)


def test_fit_schedules_the_rate_over_the_whole_run_and_resumes_where_it_was():
    torch = pytest.importorskip("torch")
    from catan_env.agents.training.fit import cosine, fit, linear_to
    x = torch.linspace(-1, 1, 64)[:, None]

    def run(first_epoch, schedule, seconds=None):
        torch.manual_seed(0)
        model = torch.nn.Linear(1, 1)
        opt = torch.optim.AdamW(model.parameters(), lr=0.1)
        rates = []

        def loss_of(m, rows):
            rates.append(opt.param_groups[0]["lr"])
            return ((m(x[rows]) - 3 * x[rows]) ** 2).mean()
        done = fit(model, np.arange(64), loss_of, epochs=4, batch=16, optimizer=opt, lr_schedule=schedule,
                   first_epoch=first_epoch, seconds=seconds)
        return rates, done, opt

    whole, done, opt = run(1, linear_to(0.1))
    assert len(whole) == 16 and whole[0] == pytest.approx(0.1) and whole[-1] == pytest.approx(0.1 * (1 - 0.9 * 15 / 16))
    assert np.all(np.diff(whole) < 0) and opt.param_groups[0]["initial_lr"] == 0.1
    assert [e["epoch"] for e in done.history] == [1, 2, 3, 4] and done.kept_epoch == 4
    resumed, done, _ = run(3, linear_to(0.1))  # epochs 3 and 4 only: the second half of the same schedule
    np.testing.assert_allclose(resumed, whole[8:])
    assert [e["epoch"] for e in done.history] == [3, 4]
    annealed, _, _ = run(1, cosine)
    assert annealed[8] == pytest.approx(0.05) and annealed[-1] < 0.001
    budget, done, _ = run(1, None, seconds=0.0)  # the budget is spent by the first minibatch: one epoch, cut short
    assert budget == [0.1] and len(done.history) == 1


def test_record_refuses_bad_settings(tmp_path):
    with pytest.raises(ValueError, match="sample"):
        record(str(tmp_path), "positions", None, (), ["random"], 1, sample=0)
    with pytest.raises(ValueError, match="backend"):
        record(str(tmp_path), "positions", None, (), ["random"], 1, backend="spark")


def _imports(path):
    tree = ast.parse(open(path).read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_both_learned_agents_stand_on_the_shared_parts():
    """Neither learned agent keeps its own shard writer, training loop or rounds driver."""
    for path in ("agents/deep/selfplay.py", "agents/value/positions.py"):
        assert "..training.shards" in _imports(os.path.join(ROOT, path)), path
    for path in ("agents/deep/nets.py", "agents/value/train.py"):
        assert "..training.fit" in _imports(os.path.join(ROOT, path)), path
        source = open(os.path.join(ROOT, path)).read()
        assert "optim.Adam" not in source and ".backward()" not in source, f"{path} has its own loop"
    for path in ("examples/exit_train.py", "examples/value_exit.py", "examples/value_league.py"):
        assert "catan_env.agents.training.rounds" in _imports(os.path.join(ROOT, path)), path
    for path in ("agents/deep/forward.py", "agents/deep/agents.py", "catan_env/learned/network.py"):
        source = open(os.path.join(ROOT, path)).read()
        assert "catan_env.learned.mlp" in source or "learned.mlp" in source, path


def test_a_file_that_is_not_a_round_log_is_refused_by_name(tmp_path):
    """One log shape ({"settings", "rounds"}); a list of rounds (the shape before the shared
    driver) or anything else is refused with an error naming the file, not read."""
    for bad in ({"rounds": 3}, {"settings": None, "rounds": []}, {"rounds": [1, 2]}, [3],
                [{"iteration": 1, "value_train": [0.4]}]):
        (tmp_path / "bad.json").write_text(json.dumps(bad))
        with pytest.raises(ValueError, match="not a round log"):
            RoundLog(str(tmp_path / "bad.json"))
    (tmp_path / "good.json").write_text(json.dumps({"settings": {"seed": 0}, "rounds": [{"round": 0, "seconds": {}}]}))
    assert RoundLog(str(tmp_path / "good.json"), settings={"seed": 0}).entry(0) == {"round": 0, "seconds": {}}

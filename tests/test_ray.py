"""Scaling on Ray: the arena's Ray backend gives the process backend's results, and a
real local Ray cluster (``ray start --head`` on 127.0.0.1) runs both a short RLlib
training (env runners as separate processes) and an arena evaluation through
``--address``.  Needs Ray (the [rllib] extra): .ci/run runs it in that environment."""
import csv
import os
import shutil
import socket
import signal
import subprocess
import sys
import tempfile
import time

import pytest

pytestmark = pytest.mark.extras
ray = pytest.importorskip("ray")

from catan_env.agents.arena import main as arena_main  # noqa: E402
from catan_env.agents.arena import run_tournament  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAY = os.path.join(os.path.dirname(sys.executable), "ray")
PLAYERS = ["jsettlers", "weighted", "random"]


def test_ray_backend_matches_the_process_backend():
    by_process = run_tournament(PLAYERS, 6, workers=2, seed=11, progress=False)
    by_ray = run_tournament(PLAYERS, 6, workers=2, seed=11, progress=False, backend="ray")
    assert by_ray == by_process
    assert len({r["winner"] for r in by_ray}) > 1 or len({tuple(r["vp"]) for r in by_ray}) > 1


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="backend must be one of"):
        run_tournament(PLAYERS, 1, backend="dask")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def games_csv(folder):
    with open(os.path.join(folder, "games.csv")) as f:
        return list(csv.DictReader(f))


@pytest.fixture
def cluster():
    """A one-node Ray cluster on 127.0.0.1, stopped afterwards (its temp dir short:
    Ray's socket paths must fit in 107 bytes)."""
    port = free_port()
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    start = subprocess.run([RAY, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
                            "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats",
                            f"--temp-dir={temp}"],
                           capture_output=True, text=True, timeout=180, env=env)
    assert start.returncode == 0, start.stdout + start.stderr
    try:
        yield f"127.0.0.1:{port}", env
    finally:
        _stop_cluster(temp)  # this cluster only: `ray stop` would stop every Ray of the user
        shutil.rmtree(temp, ignore_errors=True)


def _cluster_pids(temp):
    """Processes of the cluster whose temp dir is temp (its path is on their command lines)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if temp.encode() in f.read():
                    pids.append(int(entry))
        except OSError:
            pass
    return pids


def _stop_cluster(temp, grace=20.0):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in _cluster_pids(temp):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + grace
        while _cluster_pids(temp) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not _cluster_pids(temp):
            return


def test_training_and_arena_on_a_local_ray_cluster(cluster, tmp_path):
    address, env = cluster
    out = tmp_path / "ckpt"
    train = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "train_rllib.py"), "--address", address,
         "--players", "2", "--iterations", "1", "--env-runners", "2", "--batch", "400",
         "--minibatch", "200", "--epochs", "1", "--max-turns", "30", "--out", str(out)],
        capture_output=True, text=True, timeout=420, env=env)
    assert train.returncode == 0, train.stdout[-2000:] + train.stderr[-4000:]
    line = next(ln for ln in train.stdout.splitlines() if ln.startswith("driver pid"))
    driver = line.split()[2].rstrip(";")
    runners = line.split("env-runner pids ")[1].strip("[]").split(", ")
    assert len(runners) == 2 and driver not in runners and len(set(runners)) == 2
    assert "iter   1" in train.stdout and (out / "learner_group").is_dir()

    # the arena on the cluster: the same games and results as worker processes
    args = ["--players", ",".join(PLAYERS), "--games", "4", "--seed", "3"]
    # the process backend in a fresh interpreter: forking this one, where Ray ran, can crash
    # a worker inside Ray's library (seen once: a segfault in _raylet.so, BrokenProcessPool)
    proc = subprocess.run([sys.executable, "-c", "import sys; from catan_env.agents.arena import main; "
                           "sys.exit(main(sys.argv[1:]))", *args, "--workers", "2",
                           "--out", str(tmp_path / "proc")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    old = os.environ.get("RAY_ADDRESS")
    assert arena_main(args + ["--backend", "ray", "--address", address, "--out", str(tmp_path / "ray")]) == 0
    assert os.environ.get("RAY_ADDRESS") == old
    assert games_csv(tmp_path / "ray") == games_csv(tmp_path / "proc")

    # the value network's data: games recorded and featurized as Ray tasks on the cluster
    # give the shards and rows of in-process runs
    import numpy as np
    from catan_env.agents.value.positions import generate, load_positions
    players = ["weighted", "jsettlers", "random"]
    local = generate(str(tmp_path / "pos-local"), players, 2, seed=5, shard_games=1, max_turns=40)
    by_ray = generate(str(tmp_path / "pos-ray"), players, 2, seed=5, shard_games=1, max_turns=40,
                      backend="ray", address=address)
    assert [s["winners"] for s in by_ray["shards"]] == [s["winners"] for s in local["shards"]]
    rows_local = load_positions(str(tmp_path / "pos-local"))
    rows_ray = load_positions(str(tmp_path / "pos-ray"), backend="ray", address=address)
    for key in ("x", "outcome", "game", "players"):
        np.testing.assert_array_equal(rows_ray[key], rows_local[key])

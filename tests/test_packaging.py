"""Packaging and caching: stale numba caches are cleared when the package's sources change,
the core imports without gymnasium / pettingzoo, and a built wheel installs only under
the ``catan_env`` name."""
import os
import shutil
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HAND_SIZE_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import catan_env.core
assert catan_env.core.__file__.startswith(sys.argv[1]), catan_env.core.__file__
from catan_env.core import cards, layout as L
s = np.zeros(L.STATE_SIZE, dtype=np.int64)
s[L.HAND:L.HAND + L.N_RES] = 1          # seat 0 holds one card of each resource
print(int(cards.hand_size(s, 0)))
"""


def _run(args, **kw):
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, **kw)


def _package_copy(tmp_path):
    """The package laid out as a wheel installs it (agents/ and wrappers/ inside)."""
    pkg = tmp_path / "pkg"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(os.path.join(ROOT, "catan_env"), pkg / "catan_env", ignore=ignore)
    for sub in ("agents", "wrappers"):
        shutil.copytree(os.path.join(ROOT, sub), pkg / "catan_env" / sub, ignore=ignore)
    return pkg


def test_editing_the_layout_invalidates_cached_kernels(tmp_path):
    """Kernels bake in layout offsets; numba alone would keep running the old layout."""
    pkg = _package_copy(tmp_path)
    first = _run(["-c", HAND_SIZE_SCRIPT, str(pkg)], check=True)
    assert first.stdout.strip() == "5"
    cached = os.listdir(pkg / "catan_env" / "core" / "__pycache__")
    assert any(name.startswith("cards.hand_size") and name.endswith(".nbi") for name in cached)
    layout = pkg / "catan_env" / "core" / "layout.py"
    text = layout.read_text()
    marker = 'HAND = _field("hand", MAX_PLAYERS, N_RES)'
    assert marker in text
    layout.write_text(text.replace(marker, 'PADDING = _field("padding", 1)\n' + marker))
    second = _run(["-c", HAND_SIZE_SCRIPT, str(pkg)], check=True)
    assert second.stdout.strip() == "5", "a stale cached kernel read the old HAND offset"


DENSE_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from catan_env.agents.deep import forward
assert forward.__file__.startswith(sys.argv[1]), forward.__file__
out = np.zeros(1, np.float32)
forward._dense(np.ones(1, np.float32), 1, np.array([2.0, 0.5], np.float32), 0, 1, out)
print(float(out[0]))
"""


def test_editing_a_called_module_invalidates_the_callers_cached_kernels(tmp_path):
    """The Deep Catan kernels call ``learned.mlp.dense_layer``, whose code numba links
    into theirs: editing mlp.py must reach them on the next import."""
    pkg = _package_copy(tmp_path)
    assert _run(["-c", DENSE_SCRIPT, str(pkg)], check=True).stdout.strip() == "2.5"
    cached = os.listdir(pkg / "catan_env" / "agents" / "deep" / "__pycache__")
    assert any(name.startswith("forward._dense") and name.endswith(".nbi") for name in cached)
    mlp = pkg / "catan_env" / "learned" / "mlp.py"
    text = mlp.read_text()
    line = "out[j] += xi * w[j]"
    assert text.count(line) == 1
    mlp.write_text(text.replace(line, "out[j] += 2.0 * xi * w[j]"))
    again = _run(["-c", DENSE_SCRIPT, str(pkg)], check=True)
    assert again.stdout.strip() == "4.5", "a cached Deep Catan kernel kept the old dense_layer"


LOADED_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from catan_env.core import cards, layout as L
from catan_env.agents.deep import forward
assert forward.__file__.startswith(sys.argv[1]), forward.__file__
cards.hand_size(np.zeros(L.STATE_SIZE, np.int64), 0)
forward._dense(np.ones(1, np.float32), 1, np.array([2.0, 0.5], np.float32), 0, 1, np.zeros(1, np.float32))
loaded = lambda kernel: "loaded" if sum(kernel.stats.cache_hits.values()) else "compiled"
print(loaded(cards.hand_size), loaded(forward._dense))
"""


def test_editing_one_module_recompiles_only_the_kernels_that_import_it(tmp_path):
    """Kernels are invalidated along the imports: an edit to an agent module leaves the
    rules core's cached kernels loading, and an edit nothing imports recompiles nothing."""
    pkg = _package_copy(tmp_path)
    run = lambda: _run(["-c", LOADED_SCRIPT, str(pkg)], check=True).stdout.split()  # noqa: E731
    assert run() == ["compiled", "compiled"]
    assert run() == ["loaded", "loaded"]
    robot = pkg / "catan_env" / "agents" / "jsettlers" / "robot.py"  # imported by neither kernel's module
    robot.write_text(robot.read_text() + "\n# an edit\n")
    assert run() == ["loaded", "loaded"]
    forward = pkg / "catan_env" / "agents" / "deep" / "forward.py"  # the Deep Catan kernel's own module
    forward.write_text(forward.read_text() + "\n# an edit\n")
    assert run() == ["loaded", "compiled"]
    cards = pkg / "catan_env" / "core" / "cards.py"  # imported by both (the rules core)
    cards.write_text(cards.read_text() + "\n# an edit\n")
    assert run() == ["compiled", "compiled"]
    assert run() == ["loaded", "loaded"]


def test_numba_still_has_the_cache_locators_the_guard_reads():
    """The guard finds numba's cache folders through a private numba API: when a numba
    release moves it, this fails (and the guard falls back to clearing at every import)."""
    from numba.core.caching import CompileResultCacheImpl
    from catan_env.core import cache_guard, cards, layout
    assert cache_guard._locator_classes(), "numba moved CompileResultCacheImpl._locator_classes"
    assert isinstance(CompileResultCacheImpl._locator_classes, list)
    cards.hand_size(np.zeros(layout.STATE_SIZE, np.int64), 0)  # compiled or loaded: cached now
    folder = cache_guard.cache_dir_for(cards.__file__)
    assert folder is not None and any(n.startswith("cards.hand_size") and n.endswith(".nbi")
                                      for n in os.listdir(folder))


def test_without_numbas_locators_the_guard_clears_every_kernel(tmp_path, monkeypatch):
    from catan_env.core import cache_guard
    src = tmp_path / "pkg" / "mod"
    (src / "__pycache__").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "kern.py").write_text("x = 1\n")
    for name in ("kern.f-1.py311.nbi", "kern.f-1.py311.1.nbc", "other.g-1.py311.nbi", "kern.cpython-311.pyc"):
        (src / "__pycache__" / name).write_text("")
    monkeypatch.setattr(cache_guard, "_locator_classes", lambda: None)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    with pytest.warns(RuntimeWarning, match="_locator_classes"):
        assert cache_guard.clear_stale([str(tmp_path / "pkg")]) == 2
    assert sorted(os.listdir(src / "__pycache__")) == ["kern.cpython-311.pyc", "other.g-1.py311.nbi"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cache_guard.clear_stale([str(tmp_path / "pkg")]) == 0


@pytest.mark.parametrize("name", ["agents", "wrappers", "agents.jsettlers"])
def test_top_level_agents_and_wrappers_refuse_to_import(name):
    """From the repository root ``agents`` is importable as a folder; a kernel cached
    under that name would fail to load as ``catan_env.agents`` in later processes."""
    out = _run(["-c", f"import {name}"], cwd=ROOT)
    assert out.returncode != 0
    top = name.split(".")[0]
    assert out.stderr.strip().splitlines()[-1] == (
        f"ImportError: import catan_env.{top}, not {top} (the {top}/ folder installs inside the "
        "catan_env package)")


def test_core_imports_without_gymnasium_and_pettingzoo():
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('gymnasium', 'pettingzoo'):\n"
            "            raise ImportError(f'blocked: {name}')\n"
            "sys.meta_path.insert(0, Block())\n"
            "import catan_env.core as C\n"
            "s = C.new_game(seed=1)\n"
            "for _ in range(200):\n"
            "    C.step(s, int(C.legal_actions(s)[-1]))\n"
            "vp, win = C.playout(s, 'random', seed=2)\n"
            "assert 'gymnasium' not in sys.modules and 'pettingzoo' not in sys.modules\n"
            "print('ok', win)\n")
    out = _run(["-c", code], cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


def test_import_catan_env_core_loads_no_env_layer():
    out = _run(["-c", "import sys, catan_env.core; print('catan_env.aec_env' in sys.modules)"],
               cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_wheel_installs_agents_and_wrappers_inside_the_package(tmp_path):
    src = tmp_path / "src"  # build from a copy: setuptools writes build/ into the tree
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    for name in ("catan_env", "agents", "wrappers"):
        shutil.copytree(os.path.join(ROOT, name), src / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    build = _run(["-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(src)])
    assert build.returncode == 0, build.stderr
    wheel = next((tmp_path / "dist").glob("catan_env-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"catan_env"}, tops
    assert "catan_env/agents/__init__.py" in names and "catan_env/wrappers/__init__.py" in names
    assert "catan_env/agents/jsettlers/robot.py" in names
    assert "catan_env/batched/kernel.py" in names and "catan_env/agents/mcts/kernel.py" in names
    assert {"catan_env/learned/weights/pretrained.npz",
            "catan_env/learned/weights/pretrained_policy.npz"} <= set(names)  # the shipped networks
    assert {"catan_env/apps/jsettlers_bridge/ServerLauncher.java",
            "catan_env/apps/jsettlers_bridge/FastRobots.java"} <= set(names)  # the JSettlers launchers
    assert {"catan_env/apps/web/static/index.html", "catan_env/apps/web/static/app.js",
            "catan_env/apps/web/static/style.css"} <= set(names)  # the browser page ships inside
    # a fresh venv holding only the wheel (its dependencies read from this environment)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    deps = [p for p in sys.path if p.endswith("site-packages")]
    with open(os.path.join(site, "zz_deps.pth"), "w") as f:
        f.write("\n".join(deps) + "\n")
    check = ("import importlib.util, catan_env, catan_env.agents, catan_env.wrappers\n"
             "from catan_env.agents import JSettlersAgent, make_agent\n"
             "assert catan_env.__file__.startswith(sys.argv[1]), catan_env.__file__\n"
             "assert importlib.util.find_spec('agents') is None\n"
             "assert importlib.util.find_spec('wrappers') is None\n"
             "assert make_agent('pretrained').network.meta['features']\n"
             "print(type(make_agent('jsettlers')).__name__)\n")
    out = subprocess.run([str(py), "-c", "import sys\n" + check, site], capture_output=True, text=True,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "JSettlersAgent"


def test_lazy_names_stay_functions_after_every_submodule_is_imported():
    """catan_env.env / raw_env / InfoSet / replay load lazily; no submodule may share
    their names (importing it would replace the function by the module)."""
    code = ("import importlib, pkgutil, catan_env\n"
            "for m in pkgutil.walk_packages(catan_env.__path__, 'catan_env.'):\n"
            "    if not m.name.startswith(('catan_env.agents', 'catan_env.wrappers')):\n"
            "        importlib.import_module(m.name)\n"
            "import types\n"
            "for name in ('env', 'raw_env', 'InfoSet', 'replay'):\n"
            "    obj = getattr(catan_env, name)\n"
            "    assert callable(obj) and not isinstance(obj, types.ModuleType), name\n"
            "print('ok')\n")
    out = _run(["-c", code], cwd=ROOT)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_search_playouts_and_the_envs_share_one_compiled_apply_action():
    """Kernels pass ``FROM_RNG`` (an int64), not the literal -1: numba compiles a separate
    copy of a kernel and its callees for every literal argument, and apply_action's tree is
    most of a cold start.  After playouts, fuzzing and an env step in this process, exactly
    one apply_action exists (as do one new_random_game and one init_state)."""
    import importlib
    import catan_env
    from catan_env.core import rules
    playout = importlib.import_module("catan_env.core.playout")
    fuzz = importlib.import_module("catan_env.core.fuzz")
    playout.random_games(1, 4, 0, 0, 1, 30)
    from catan_env.core.layout import STATE_SIZE
    from catan_env.core.options import GameOptions
    fuzz.fuzz_games(1, 1, 5, 0, 0, np.zeros((1, STATE_SIZE), np.int64), *GameOptions().rule_variants())
    env = catan_env.env()
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    for kernel in (rules.apply_action, rules.new_random_game, rules.init_state):
        # (init_state is called only from kernels: when they load from the cache, it is
        # never compiled in this process, and has no signature)
        least = 0 if kernel is rules.init_state else 1
        assert least <= len(kernel.signatures) <= 1, (kernel.__name__, kernel.signatures)
        assert "Literal" not in str(kernel.signatures), kernel.signatures


def _tiny_package(tmp_path, modules):
    root = tmp_path / "pkg"
    root.mkdir(exist_ok=True)
    for name, text in modules.items():
        (root / f"{name}.py").write_bytes(text if isinstance(text, bytes) else text.encode())
    return {str(root): "catan_env"}  # read as the package: its imports of catan_env.* count


def test_the_guards_import_reading_follows_new_modules_and_survives_broken_sources(tmp_path, monkeypatch):
    from catan_env.core import cache_guard
    monkeypatch.setattr(cache_guard, "_imports_cache_path", lambda roots: str(tmp_path / "imports.json"))
    roots = _tiny_package(tmp_path, {"__init__": "b = 1\n", "a": "from catan_env import b\n", "c": "x = 1\n"})
    digest = lambda name: cache_guard.kernel_digests(roots)[str(tmp_path / "pkg" / f"{name}.py")]  # noqa: E731
    first = digest("a")
    assert digest("a") == first  # read again through the kept imports
    # a module b appears: `from catan_env import b` now imports it, kept imports or not
    _tiny_package(tmp_path, {"b": "y = 1\n"})
    with_b = digest("a")
    _tiny_package(tmp_path, {"b": "y = 2\n"})
    assert digest("a") != with_b
    # a source mid-edit (no parse, or not UTF-8) counts as importing everything: never kept on a guess
    for broken in ("def f(:\n", b"x = '\xff'\n"):
        _tiny_package(tmp_path, {"a": broken})
        before = digest("a")
        _tiny_package(tmp_path, {"c": f"x = {len(before)}\n# {broken!r}\n"})
        assert digest("a") != before


def test_the_guard_keeps_the_old_stamp_of_kernels_it_could_not_delete(tmp_path, monkeypatch):
    from catan_env.core import cache_guard
    roots = _tiny_package(tmp_path, {"__init__": "", "kern": "x = 1\n"})
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "kern.f-1.py311.nbi").write_text("")
    monkeypatch.setattr(cache_guard, "cache_dir_for", lambda py_file: str(cache))
    monkeypatch.setattr(cache_guard, "_imports_cache_path", lambda roots: None)
    real_remove = os.remove
    monkeypatch.setattr(os, "remove", lambda path: (_ for _ in ()).throw(PermissionError(path)))
    with pytest.warns(RuntimeWarning, match="could not delete.*kern"):
        assert cache_guard.clear_stale(roots) == 0
    monkeypatch.setattr(os, "remove", real_remove)
    assert cache_guard.clear_stale(roots) == 1  # tried again, and deleted this time
    assert not (cache / "kern.f-1.py311.nbi").exists()
    assert cache_guard.clear_stale(roots) == 0

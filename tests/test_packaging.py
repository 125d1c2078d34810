"""Packaging and caching: stale numba caches are cleared when the core's sources change,
the core imports without gymnasium / pettingzoo, and a built wheel installs only under
the ``catan_env`` name."""
import os
import shutil
import subprocess
import sys
import zipfile

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


def test_editing_the_layout_invalidates_cached_kernels(tmp_path):
    """Kernels bake in layout offsets; numba alone would keep running the old layout."""
    pkg = tmp_path / "pkg"
    shutil.copytree(os.path.join(ROOT, "catan_env"), pkg / "catan_env",
                    ignore=shutil.ignore_patterns("__pycache__"))
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

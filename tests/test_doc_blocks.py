"""Every Python block and ``catan-*`` command of the README and of the docs pages runs
(with small training budgets), so a snippet that breaks fails CI.  Blocks that need a
library this environment lacks are skipped with the library named (and run in .ci/run's
second environment).  A block that appears on several pages runs once."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")


def doc_files():
    """The README and every page of the docs site, in a fixed order."""
    pages = sorted(os.path.join(DOCS, f) for f in os.listdir(DOCS) if f.endswith(".md"))
    return [README] + pages


def doc_name(path):
    return os.path.relpath(path, ROOT)
# budgets shrunk for the test: (pattern, replacement)
SMALL = [(r"\.learn\([\d_]+", ".learn(64"), (r"make_vec_env\(8\b", "make_vec_env(2"),
         (r'MaskablePPO\("MlpPolicy", (\w+)\)', r'MaskablePPO("MlpPolicy", \1, n_steps=64, batch_size=64)')]
OPTIONAL = ("sb3_contrib", "ray", "tianshou", "torch", "matplotlib", "PIL")
EXTRAS = ("ray", "tianshou")  # blocks .ci/run runs in the [rllib]/[tianshou] environment


def imports(code, name):
    return re.search(rf"^\s*(from|import) {name}\b", code, re.M) is not None


def python_blocks():
    """(where, code) of every Python block, the first occurrence of each distinct block."""
    out, seen = [], set()
    for path in doc_files():
        with open(path) as f:
            text = f.read()
        for m in re.finditer(r"```python\n(.*?)```", text, re.S):
            if m.group(1) in seen:
                continue
            seen.add(m.group(1))
            out.append((f"{doc_name(path)}:{text[:m.start()].count(chr(10)) + 2}", m.group(1)))
    return out


def block_params():
    return [pytest.param(line, code, id=line,
                         marks=[pytest.mark.extras] if any(imports(code, n) for n in EXTRAS) else [])
            for line, code in python_blocks()]


def test_readme_and_docs_have_python_blocks():
    assert len(python_blocks()) >= 10
    assert any(where.startswith("README.md:") for where, _ in python_blocks())


@pytest.mark.parametrize("line,code", block_params())
def test_doc_block_runs(line, code, tmp_path):
    for name in OPTIONAL:
        if imports(code, name) and importlib.util.find_spec(name) is None:
            pytest.skip(f"block at {line} needs {name}, not installed here")
    for pattern, repl in SMALL:
        code = re.sub(pattern, repl, code)
    script = tmp_path / "block.py"
    script.write_text(code)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, env=env)
    assert out.returncode == 0, f"block at {line} failed:\n{out.stderr[-3000:]}"


def doc_command_blocks():
    """(where, catan-* commands in order) per bash block of the README and the docs; a
    command already seen in an earlier block is left out (pip and pytest lines are what
    CI itself does).  A block's commands run in order in one folder (a replay renders the
    games the arena saved just before)."""
    out, seen = [], set()
    for path in doc_files():
        with open(path) as f:
            text = f.read()
        for m in re.finditer(r"```bash\n(.*?)```", text, re.S):
            commands = []
            for line in m.group(1).splitlines():
                line = line.split("#")[0].strip()
                for part in line.split("&&"):
                    part = part.strip()
                    if part.startswith("catan-") and part not in seen:
                        seen.add(part)
                        commands.append(part)
            if commands:
                out.append((f"{doc_name(path)}:{text[:m.start()].count(chr(10)) + 2}", commands))
    return out


def test_the_docs_show_the_main_job():
    assert any(c.startswith("catan-baselines") for _, block in doc_command_blocks() for c in block)


@pytest.mark.parametrize("where,commands", [pytest.param(w, c, id=w) for w, c in doc_command_blocks()])
def test_doc_commands_run(where, commands, tmp_path):
    bindir = os.path.dirname(sys.executable)
    from catan_env.apps.pioneers.server import pioneers_available
    for cmd in commands:
        if "rllib:path=" in cmd or "HEAD_IP" in cmd:
            continue  # needs a trained RLlib checkpoint or a cluster (tested in test_rllib, test_ray)
        if "ppo:path=runs/" in cmd:
            continue  # plays the policy the recipe's steps before it train (tested in test_recipe)
        if cmd.startswith("catan-play") and "--web" in cmd:
            if importlib.util.find_spec("aiohttp") is None:
                pytest.skip(f"{cmd!r} at {where} needs the [web] extra (aiohttp), not installed here")
            cmd += " --check"  # builds the first game and prints the pages; serving is tested in test_web*
        if cmd.startswith(("catan-baselines", "catan-arena")):
            cmd = re.sub(r"--games \d+", "", cmd) + " --games 2"
        if cmd.startswith("catan-ladder") and "--report" not in cmd:
            cmd = re.sub(r"--games \d+", "", cmd) + " --games 1 --max-turns 20"
        if cmd.startswith("catan-jsettlers"):
            from catan_env.apps.jsettlers_bridge.server import jsettlers_available
            if "--host" in cmd or jsettlers_available() is not None:
                continue  # joins somebody's server / needs Java and the jar (tested in test_jsettlers_bridge)
            cmd = re.sub(r"--games \d+", "", cmd) + " --games 1"
        if cmd.startswith("catan-pioneers"):
            if "--host" in cmd or pioneers_available() is not None:
                continue  # joins somebody's server / needs pioneers-console (tested in test_pioneers)
            cmd = re.sub(r"--games \d+", "", cmd) + " --games 1"
        exe, *args = cmd.split()
        out = subprocess.run([os.path.join(bindir, exe), *args], cwd=tmp_path, capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, f"command {cmd!r} at {where} failed:\n{out.stderr[-3000:]}"
        if cmd.startswith("catan-baselines"):
            assert (tmp_path / "results" / "baselines" / "table.md").exists()


def _repository_map() -> str:
    text = open(os.path.join(ROOT, "docs", "contributing.md")).read()
    section = text.split("## Layout of the repository", 1)[1]
    return section.split("```", 2)[1]


def _unmapped(block: str, roots=("catan_env", "agents", "wrappers", "examples")) -> list:
    """Folders and source files of the tree the map does not name."""
    missing = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, root)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(("__", ".")))
            rel = os.path.relpath(dirpath, ROOT)
            missing += [f"{rel}/{d}/" for d in dirnames if not re.search(rf"\b{re.escape(d)}/", block)]
            missing += [f"{rel}/{f}" for f in sorted(filenames)
                        if f.endswith((".py", ".java")) and f != "__init__.py"
                        and not re.search(rf"\b{re.escape(f.rsplit('.', 1)[0])}\b", block)]
    return missing


def test_the_repository_map_names_every_module():
    """docs/contributing.md's map of the repository names every folder and source file of
    the distribution and the examples: a new module must be added to the map."""
    block = _repository_map()
    assert _unmapped(block) == []
    # (the check itself: a map without the applications' folder misses them)
    assert "catan_env/apps/web/" in _unmapped(block.replace("web/", "w_e_b"))

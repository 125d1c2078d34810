"""Every Python block of the README runs (with small training budgets), so a snippet
that breaks fails CI.  Blocks that need a library this environment lacks are skipped
with the library named."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
# budgets shrunk for the test: (pattern, replacement)
SMALL = [(r"\.learn\([\d_]+", ".learn(64"), (r"make_vec_env\(8\b", "make_vec_env(2"),
         (r'MaskablePPO\("MlpPolicy", (\w+)\)', r'MaskablePPO("MlpPolicy", \1, n_steps=64, batch_size=64)')]
OPTIONAL = ("sb3_contrib", "ray", "tianshou", "torch", "matplotlib", "PIL")
EXTRAS = ("ray", "tianshou")  # blocks .ci/run runs in the [rllib]/[tianshou] environment


def imports(code, name):
    return re.search(rf"^\s*(from|import) {name}\b", code, re.M) is not None


def python_blocks():
    with open(README) as f:
        text = f.read()
    return [(text[:m.start()].count("\n") + 2, m.group(1))
            for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def block_params():
    return [pytest.param(line, code, id=f"line{line}",
                         marks=[pytest.mark.extras] if any(imports(code, n) for n in EXTRAS) else [])
            for line, code in python_blocks()]


def test_readme_has_python_blocks():
    assert len(python_blocks()) >= 5


@pytest.mark.parametrize("line,code", block_params())
def test_readme_block_runs(line, code, tmp_path):
    for name in OPTIONAL:
        if imports(code, name) and importlib.util.find_spec(name) is None:
            pytest.skip(f"README block at line {line} needs {name}, not installed here")
    for pattern, repl in SMALL:
        code = re.sub(pattern, repl, code)
    script = tmp_path / f"readme_line{line}.py"
    script.write_text(code)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, env=env)
    assert out.returncode == 0, f"README block at line {line} failed:\n{out.stderr[-3000:]}"


def readme_commands():
    """The catan-* commands of the README's bash blocks, in order (pip and pytest lines
    are what CI itself does)."""
    with open(README) as f:
        text = f.read()
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("#")[0].strip()
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("catan-"):
                    out.append(part)
    return out


def test_readme_commands_run(tmp_path):
    commands = readme_commands()
    assert any(c.startswith("catan-baselines") for c in commands)
    bindir = os.path.dirname(sys.executable)
    from catan_env.pioneers.server import pioneers_available
    for cmd in commands:
        if "rllib:path=" in cmd or "HEAD_IP" in cmd:
            continue  # needs a trained RLlib checkpoint or a cluster (tested in test_rllib, test_ray)
        if cmd.startswith("catan-play") and "--web" in cmd:
            continue  # a server that runs until stopped (tested in test_web, test_web_browser)
        if cmd.startswith(("catan-baselines", "catan-arena")):
            cmd = re.sub(r"--games \d+", "", cmd) + " --games 2"
        if cmd.startswith("catan-pioneers"):
            if "--host" in cmd or pioneers_available() is not None:
                continue  # joins somebody's server / needs pioneers-console (tested in test_pioneers)
            cmd = re.sub(r"--games \d+", "", cmd) + " --games 1"
        exe, *args = cmd.split()
        out = subprocess.run([os.path.join(bindir, exe), *args], cwd=tmp_path, capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, f"README command {cmd!r} failed:\n{out.stderr[-3000:]}"
    assert (tmp_path / "results" / "baselines" / "table.md").exists()

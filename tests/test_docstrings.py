"""Every public function, class and method of the typed API modules (those listed for
mypy in pyproject.toml) says what it does: a docstring of its own or, for an override,
its base's."""
import importlib
import inspect
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def api_modules():
    """The typed public modules, read from pyproject.toml's [tool.mypy] files."""
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    files = re.search(r"^files = \[(.*?)\]", text, re.S | re.M).group(1)
    out = []
    for path in re.findall(r'"([^"]+)\.py"', files):
        parts = path.split("/")
        if parts[0] in ("agents", "wrappers"):  # folders installed inside the package
            parts = ["catan_env"] + parts
        out.append(".".join(parts))
    return out


def undocumented(module_name):
    module = importlib.import_module(module_name)
    missing = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
            continue
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if not inspect.getdoc(obj):
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                    continue
                if not inspect.getdoc(getattr(obj, attr, member)) and not inspect.getdoc(member):
                    missing.append(f"{name}.{attr}")
    return missing


def test_the_api_modules_are_found():
    mods = api_modules()
    assert "catan_env.core.game" in mods and "catan_env.agents.arena" in mods and len(mods) >= 15


def test_every_public_function_of_the_api_modules_has_a_docstring():
    missing = {m: names for m in api_modules() if (names := undocumented(m))}
    assert not missing, f"public functions without a docstring: {missing}"


def test_the_version_lives_in_one_place_and_heads_the_changelog():
    import importlib.metadata

    import catan_env
    assert importlib.metadata.version("catan_env") == catan_env.__version__
    assert 'dynamic = ["version"]' in open(os.path.join(ROOT, "pyproject.toml")).read()
    changelog = open(os.path.join(ROOT, "CHANGELOG.md")).read()
    assert "## [Unreleased]" in changelog
    assert f"## [{catan_env.__version__}] - " in changelog

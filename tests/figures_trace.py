"""Which figures on the README and the docs pages no committed results file holds.

A figure is a number a reader takes as measured: one with decimals, a percentage, a
ratio (``2.34x``), both sides of a count like ``73/200``, and any other whole number of
100 or more (years aside).  A measured figure (a decimal, a percentage or a ratio with
two or more significant digits, a whole number with three or more) is traced when a results file the page names (a path
or link to a file or folder under ``docs/results/``, anywhere on the page) holds a number
that shows as it does (the same value at the page's decimals, or as a share where the
page shows a percentage): a page cites its files (outside HTML comments), and only
those count, so a figure is
not passed by a number that happens to stand in some unrelated file.  A round number
(200 games, 1,000 playouts, a 5x budget: most often settings) is traced by any results
file or by the sizes the code defines.  Not scanned: code (blocks and inline), link targets,
HTML comments, blocks between ``<!-- name: start -->`` and ``<!-- name: end -->`` markers
(each is rewritten from its results file by a script, and a test of its own checks it),
the tables the code generates (actions and observation fields, tested against the code)
and the history (the changelog and the earlier measurements): figures as measured at the
time.  Words ("clearly weaker", "a few-fold") are not figures: no check reads them.

    python tests/figures_trace.py          # every untraced figure, page by page
"""
import os
import re
import sys
from typing import Dict, Iterable, List, Optional, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# figures as measured at the time, dated, whose results files were not kept: not re-traced
HISTORY = {"docs/changelog.md", "docs/earlier-measurements.md"}
TEXT_SUFFIXES = (".json", ".jsonl", ".txt", ".md", ".csv", ".sh", ".log")

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")  # a JSON or CSV number (commas separate)
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")    # a number for people: 5,634,937
_FIGURE = re.compile(r"(?<![\w.,/])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%|x)?(?![\w]|\.\d)")
_INTERVAL = re.compile(r"\s*(?:Wilson|CIs?\b|confidence|intervals?\b)")  # "95% CI": a setting
_COUNT = re.compile(r"(?<![\w.,])(\d[\d,]*)\s*/\s*(\d[\d,]*)(?![\w.]\d)")


def pages(root: str = ROOT) -> List[str]:
    """The README and every docs page, as paths relative to the repository root."""
    docs = sorted(f"docs/{name}" for name in os.listdir(os.path.join(root, "docs")) if name.endswith(".md"))
    return ["README.md"] + [page for page in docs if page not in HISTORY]


_CITED = re.compile(r"(?:docs/)?results/[\w./-]+")


def cited_files(text: str, root: str = ROOT) -> Set[str]:
    """The results files a page names: each path or link to a file or folder under
    docs/results/ (a folder stands for every file below it)."""
    files: Set[str] = set()
    for match in _CITED.findall(text):
        path = os.path.join(root, match if match.startswith("docs/") else "docs/" + match)
        if os.path.isfile(path):
            files.add(path)
        elif os.path.isdir(path):
            files.update(os.path.join(here, name) for here, _, names in os.walk(path) for name in names)
    return {f for f in files if f.endswith(TEXT_SUFFIXES)}


def results_numbers(files: Iterable[str]) -> Set[float]:
    """Every number written in the given results files."""
    numbers: Set[float] = set()
    for path in files:
        with open(path, errors="ignore") as f:
            text = f.read()
        for token in _NUMBER.findall(text) + _GROUPED.findall(text):
            try:
                numbers.add(float(token.replace(",", "")))
            except ValueError:
                pass
    return numbers


class Shown:
    """The ways results numbers may show on a page: at 0-4 decimals, and as percentages."""

    def __init__(self, numbers: Iterable[float]):
        self.plain: Dict[int, Set[float]] = {d: set() for d in range(5)}
        self.percent: Dict[int, Set[float]] = {d: set() for d in range(5)}
        for n in numbers:
            for d in range(5):
                self.plain[d].add(round(n, d))
                self.percent[d].add(round(n * 100, d))

    def holds(self, value: float, decimals: int, percent: bool) -> bool:
        d = min(decimals, 4)
        return round(value, d) in self.plain[d] or (percent and round(value, d) in self.percent[d])


def readable_text(text: str, generated: Iterable[str] = ()) -> str:
    """The page's prose and tables: no code, link targets, comments or generated blocks."""
    for block in generated:
        text = text.replace(block, "")
    text = re.sub(r"<!-- (\w+): start -->.*?<!-- \1: end -->", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return re.sub(r"<[^>]+>", "", text)


def measured(token: str) -> bool:
    """A figure a run measured, not a setting: a decimal, percentage or ratio with two or
    more significant digits, or a whole number with three or more (5,634,937; 2,240)
    where a round one (200 games, 1,000 playouts, a 5x budget) is most often a setting."""
    digits = re.sub(r"\D", "", token).lstrip("0")
    if re.fullmatch(r"[\d,]+", token):  # a whole number: its trailing zeros say nothing
        return len(digits.rstrip("0")) >= 3
    return len(digits.rstrip("0")) >= 2


def figures(text: str) -> List[Tuple[str, float, int, bool]]:
    """(as shown, value, decimals, is a percentage) of each figure in readable text."""
    found = []
    counted = set()
    for m in _COUNT.finditer(text):
        for group in (1, 2):
            counted.add(m.start(group))
            token = m.group(group)
            found.append((token, float(token.replace(",", "")), 0, False))
    for m in _FIGURE.finditer(text):
        if m.start() in counted or _INTERVAL.match(text, m.end()):
            continue
        whole, fraction, suffix = m.groups()
        value = float(whole.replace(",", "") + (fraction or ""))
        if not fraction and not suffix and (value < 100 or 1990 <= value <= 2035):
            continue
        found.append((m.group(), value, len(fraction) - 1 if fraction else 0, suffix == "%"))
    return found


def _importable() -> None:
    """The repository's packages importable (this file also runs as a script)."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)


def generated_blocks() -> List[str]:
    """The tables the code writes onto the pages (each tested against the code)."""
    _importable()
    from catan_env.core.actions import action_table
    from catan_env.core.observe import observation_table
    from catan_env.learned.features import feature_table
    return [action_table(), observation_table(), feature_table()]


def code_facts() -> Set[float]:
    """Sizes the code defines and the pages state in prose (observation, actions, bytes)."""
    _importable()
    import importlib
    actions = importlib.import_module("catan_env.core.actions")
    observe = importlib.import_module("catan_env.core.observe")  # the package's observe() shadows it
    features = importlib.import_module("catan_env.learned.features")
    sizes = (observe.VECTOR_SIZE, observe.BOARD_SIZE, observe.VECTOR_SIZE - observe.BOARD_SIZE,
             observe.COMPACT_SIZE, 4 * observe.VECTOR_SIZE, actions.N_ACTIONS, features.N_FEATURES)
    return {float(x) for x in sizes}


def untraced(texts: Optional[Dict[str, str]] = None, root: str = ROOT) -> Dict[str, List[str]]:
    """Page -> the figures on it that no results file it cites holds (as shown), for the
    repository at root; texts stands in for some pages' files (a test plants a figure)."""
    facts = code_facts()
    blocks = generated_blocks()
    anywhere = Shown(results_numbers(cited_files("docs/results/.", root)) | facts)
    out: Dict[str, List[str]] = {}
    for page in pages(root):
        if texts and page in texts:
            raw = texts[page]
        else:
            with open(os.path.join(root, page)) as f:
                raw = f.read()
        cited = Shown(results_numbers(cited_files(re.sub(r"<!--.*?-->", "", raw, flags=re.S), root)) | facts)
        out[page] = [token for token, value, decimals, percent in figures(readable_text(raw, blocks))
                     if not (cited if measured(token) else anywhere).holds(value, decimals, percent)]
    return out


if __name__ == "__main__":
    total = 0
    for page, missing in untraced().items():
        total += len(missing)
        if missing:
            print(f"{page}: {len(missing)}: {' '.join(missing)}")
    print(f"{total} figures untraced")
    raise SystemExit(1 if total else 0)

"""Shared command-line behaviour: a user mistake prints one line and exits 2 (never a
traceback), argument types that refuse impossible values, a missing optional dependency
names the extra to install, progress that suits a terminal or a log file, and a notice
before the first (slow) numba compilation."""
import argparse
import functools
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO

from .core.game import CorruptStateError, IllegalActionError


class UserError(Exception):
    """A mistake in what the user asked for: reported in one line, exit status 2."""


def require(module: str, extra: str) -> Any:
    """Import an optional dependency, or raise UserError naming the extra to install."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"this needs {module.split('.')[0]}: pip install \"catan_env[{extra}]\"") from None


def positive_int(text: str) -> int:
    """argparse type: an int >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """--help keeps the description's line breaks and shows every option's default (once:
    an option whose help already says "(default: ...)" keeps its own wording)."""

    def _get_help_string(self, action: argparse.Action) -> Optional[str]:
        if "(default:" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def parser(prog: str, description: str) -> argparse.ArgumentParser:
    """An ArgumentParser that shows every option's default in --help."""
    return argparse.ArgumentParser(allow_abbrev=False, prog=prog, description=description,
                                   formatter_class=HelpFormatter)


def run_stamp(program: str, argv: Optional[Sequence[str]] = None) -> Dict[str, str]:
    """What a results file records of the run that wrote it: the date, the machine and
    the command (``program`` and its arguments: argv, or the process's own)."""
    import platform
    args = list(argv) if argv is not None else sys.argv[1:]
    return {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "command": " ".join([program] + args)}


def write_results(path: str, record: Dict[str, Any]) -> str:
    """Write a results file: one JSON object, indented, ending in a newline (so the file
    reads and diffs as text); returns path."""
    import json
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    return path


def writable_folder(path: str) -> Optional[str]:
    """Why ``path`` cannot take output files (None when it can): made if missing, then
    probed with a file, so a CLI can refuse it before it does any work."""
    import tempfile
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        return f"cannot write into {path!r}: {e.strerror or e}"
    return None


def user_errors(prog: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a CLI main(argv) so user mistakes print ``prog: error: ...`` and return 2."""
    def wrap(main: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(main)
        def run(argv: Optional[List[str]] = None) -> Any:
            try:
                return main(argv)
            except (UserError, CorruptStateError, IllegalActionError, FileNotFoundError,
                    IsADirectoryError, NotADirectoryError, PermissionError) as exc:
                message = str(exc) if not isinstance(exc, OSError) else \
                    f"{exc.strerror}: {exc.filename}"
                print(f"{prog}: error: {message}", file=sys.stderr)
                return 2
            except KeyboardInterrupt:
                print(f"{prog}: interrupted", file=sys.stderr)
                return 130
        return run
    return wrap


class Progress:
    """Games done so far: a redrawn bar on a terminal, a plain line every tenth of the
    run (and at the end) in a log file."""

    def __init__(self, total: int, stream: Optional[TextIO] = None, what: str = "games") -> None:
        self.total = total
        self.what = what
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.t0 = time.perf_counter()
        self.next_line = max(1, total // 10)

    def update(self, k: int) -> None:
        """Show that k of the total are done."""
        el = time.perf_counter() - self.t0
        if self.tty:
            width = 30
            filled = int(width * k / self.total)
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {k}/{self.total} "
                              f"{self.what} {el:6.1f}s")
        elif k >= self.next_line or k == self.total:
            self.stream.write(f"{k}/{self.total} {self.what} ({100 * k // self.total}%) {el:.1f}s\n")
            self.next_line = k + max(1, self.total // 10)
        self.stream.flush()

    def done(self) -> None:
        """End the bar's line (on a terminal)."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def compile_notice(stream: Optional[TextIO] = None, agents: bool = True,
                   beside: Sequence[Any] = ()) -> Optional[Callable[[], None]]:
    """Say so before the rules core is compiled (first run after install or after a
    change to the core), with the time it takes here: ``agents`` when search agents are
    compiled too; ``beside``: the agent specs a second process compiles beside this one
    (``compiling.compile_beside``); with one running, the two share the first run's compile
    jobs out here (``compiling.compile_together``) before this returns.  Returns a
    callable that reports the time once done, or None when the compiled kernels are
    already cached."""
    from . import compiling as C
    C.mark_announced()  # (the envs made next warn no more)
    if C.rules_cached():
        return None
    stream = stream or sys.stderr
    helped = C.compile_beside(beside)
    what = "the rules core and the agents" if agents else "the rules core"
    stream.write(f"compiling {what} ({C.how_long(agents, helped)})...\n")
    stream.flush()
    t0 = time.perf_counter()
    if helped:
        for failure in C.compile_together(beside) or ():
            stream.write(f"  could not compile ahead {failure} (it compiles when played)\n")

    def finished() -> None:
        stream.write(f"compiled in {time.perf_counter() - t0:.0f} s\n")
        stream.flush()
    return finished

"""Time import, lint, build and check on folders and bundles of real shape.

Usage: .venv/bin/python benchmarks/real_steps.py [--sizes 20 40 80] [--repeat 5]

At each size N, generated agents of real shape (benchmarks/real_shape.py:
5-30 KB bodies with long passages shared between agents, tables, fences,
headings, a snippet carried, drifted or absent) are written as an OpenCode
folder, a Claude Code folder and a promptc bundle whose required-snippet rule
looks for the snippet. Each step then runs as a user runs it, in a fresh
`promptc` process with no result cache (`--no-cache`, PROMPTC_NO_CACHE=1):

- `promptc import opencode DIR` and `promptc import claude DIR`, each into a
  new empty folder (import lints what it wrote, so that is timed too);
- `promptc lint`, `promptc build` (for OpenCode and Claude Code) and
  `promptc check` on the bundle (after one build, so that check has an output
  to compare with).

Prints, for every step and size, the median wall time and CPU time (user
and system: it moves less than the wall time on a loaded machine) and the
CPU milliseconds each agent added since the previous size: a near-linear step
adds about as much per agent from 40 to 80 as from 20 to 40. The interpreter's
floor (`python -c pass`) is timed in the same run, and the machine's load
average printed before and after, since the figures move with it.

Nothing is deleted until every run is done (see benchmarks/speed.py on what
deletions cost the next file creations): an import writes into a new folder,
and a build's output folder is moved aside before the next build.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from real_shape import make_claude_folder, make_opencode_folder, make_real_bundle

CONFIG = """\
[targets.opencode]

[targets.claude]

[rules.required-snippet]
fragment = "tone"
level = "warning"
"""
PROMPTC = str(Path(sys.executable).with_name("promptc"))  # the one installed beside this Python


@dataclass(frozen=True)
class Step:
    name: str
    # Writes the step's input under the folder and returns (its bytes, the
    # command's arguments after `promptc`).
    prepare: Callable[[Path, int], tuple[int, list[str]]]
    # Readies the folder for one more run; returns the run's working directory.
    again: Callable[[Path], Path]


def _import(
    kind: str, write: Callable[[Path, int], int]
) -> Callable[[Path, int], tuple[int, list[str]]]:
    def prepare(folder: Path, agents: int) -> tuple[int, list[str]]:
        size = write(folder / "source", agents)
        return size, ["import", kind, str(folder / "source")]

    return prepare


def _bundle(command: str) -> Callable[[Path, int], tuple[int, list[str]]]:
    def prepare(folder: Path, agents: int) -> tuple[int, list[str]]:
        size = make_real_bundle(folder, agents)
        (folder / "promptc.toml").write_text(CONFIG, encoding="utf-8")
        if command == "check":  # check compares with a build: make it first
            subprocess.run([PROMPTC, "build", "-q"], cwd=folder, check=True)
        return size, [command, "--no-cache", "-q"]

    return prepare


def _empty(folder: Path) -> Path:
    """A new empty folder to import into (import never replaces a file)."""
    return Path(tempfile.mkdtemp(dir=folder))


def _no_output(folder: Path) -> Path:
    """The bundle, its output folder moved aside: the build writes every file anew."""
    output = folder / "build"
    if output.exists():
        output.rename(tempfile.mkdtemp(dir=folder, prefix="moved-"))
    return folder


def _same(folder: Path) -> Path:
    return folder


STEPS = [
    Step("import opencode", _import("opencode", make_opencode_folder), _empty),
    Step("import claude", _import("claude", make_claude_folder), _empty),
    Step("lint", _bundle("lint"), _same),
    Step("build", _bundle("build"), _no_output),
    Step("check", _bundle("check"), _same),
]


def timed(command: Sequence[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one fresh process. The CPU time
    (user and system, from os.wait4 where there is one) moves less than the wall
    time on a loaded machine."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    if not hasattr(os, "wait4"):
        return time.perf_counter() - started, float("nan"), process.wait()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, process.returncode


@dataclass(frozen=True)
class Figures:
    size: int  # the input's bytes
    wall: float  # median seconds
    cpu: float
    codes: frozenset[int]


def median_run(command: Sequence[str], cwd: Callable[[], Path], repeat: int) -> Figures:
    runs = [timed(command, cwd()) for _ in range(repeat)]
    return Figures(
        0,
        statistics.median(run[0] for run in runs),
        statistics.median(run[1] for run in runs),
        frozenset(run[2] for run in runs),
    )


def run_step(step: Step, agents: int, scratch: Path, repeat: int) -> Figures:
    """The figures of `step` at `agents` agents, on a folder of its own."""
    folder = Path(tempfile.mkdtemp(dir=scratch))
    size, arguments = step.prepare(folder, agents)
    return replace(median_run([PROMPTC, *arguments], lambda: step.again(folder), repeat), size=size)


def _load() -> str:
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


HEADER = """\
| step | N | KB | wall s | CPU s | CPU ms per agent added |
|---|---|---|---|---|---|"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 40, 80])
    parser.add_argument("--repeat", type=int, default=5, help="runs per step and size")
    args = parser.parse_args()
    # An installed promptc runs from bytecode (pip compiles it); so does this
    # checkout here, even where PYTHONDONTWRITEBYTECODE is set.
    compileall.compile_dir(Path(__file__).resolve().parent.parent / "compiler", quiet=1)
    os.environ["PROMPTC_NO_CACHE"] = "1"  # for every run, import's lint too
    started = time.perf_counter()
    print(f"load average (1, 5, 15 min) before: {_load()}; {os.cpu_count()} cores")
    floor = median_run([sys.executable, "-c", "pass"], Path.cwd, 15)
    print(f"python -c pass (floor): {floor.wall * 1000:.0f} ms wall, {floor.cpu * 1000:.0f} ms CPU")
    print()
    print(HEADER)
    with tempfile.TemporaryDirectory(prefix="promptc-real-") as scratch:
        for step in STEPS:
            previous: tuple[int, Figures] | None = None
            for agents in args.sizes:
                figures = run_step(step, agents, Path(scratch), args.repeat)
                print(_row(step.name, agents, figures, previous), flush=True)
                previous = (agents, figures)
    print()
    print(f"load average after: {_load()}; wall time {time.perf_counter() - started:.0f} s")


def _row(name: str, agents: int, figures: Figures, previous: tuple[int, Figures] | None) -> str:
    added = ""
    if previous is not None:  # what each agent added since the previous size
        before, earlier = previous
        added = f"{(figures.cpu - earlier.cpu) * 1000 / (agents - before):.1f}"
    note = "" if figures.codes == {0} else f" exit {sorted(figures.codes)}"
    return (
        f"| {name} | {agents} | {figures.size // 1024} | {figures.wall:.2f} "
        f"| {figures.cpu:.2f} | {added} |{note}"
    )


if __name__ == "__main__":
    main()

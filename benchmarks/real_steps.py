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

Every case (a step at a size) runs once a round, for --repeat rounds, so
that a change of the machine's load touches every size alike. Prints, for
every case, the least wall time and the least CPU time (user and system: it
moves less than the wall time on a loaded machine) of its runs, and the CPU
milliseconds each agent added since the previous size: a near-linear step
adds about as much per agent from 40 to 80 as from 20 to 40. The
interpreter's floor (`python -c pass`) is timed in the same rounds, and the
machine's load average printed before and after, since the figures move
with it.

Nothing is deleted until every run is done (see benchmarks/speed.py on what
deletions cost the next file creations): an import writes into a new folder,
and a build's output folder is moved aside before the next build.
"""

from __future__ import annotations

import argparse
import compileall
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
FLOOR = Step("python -c pass", lambda _folder, _agents: (0, []), _same)


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


@dataclass
class Case:
    """One step at one size: its folder, its input's bytes, its command and runs."""

    step: Step
    agents: int
    folder: Path
    size: int
    command: list[str]
    runs: list[tuple[float, float, int]]

    def run(self) -> None:
        self.runs.append(timed(self.command, self.step.again(self.folder)))

    def wall(self) -> float:
        return min(run[0] for run in self.runs)

    def cpu(self) -> float:
        return min(run[1] for run in self.runs)


def case(step: Step, agents: int, scratch: Path) -> Case:
    folder = Path(tempfile.mkdtemp(dir=scratch))
    size, arguments = step.prepare(folder, agents)
    return Case(step, agents, folder, size, [PROMPTC, *arguments], [])


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
    with tempfile.TemporaryDirectory(prefix="promptc-real-") as scratch:
        floor = Case(FLOOR, 0, Path(scratch), 0, [sys.executable, "-c", "pass"], [])
        cases = [case(step, agents, Path(scratch)) for step in STEPS for agents in args.sizes]
        # Round after round of every case, so that a change of the machine's
        # load in between touches every size alike.
        for _ in range(args.repeat):
            for each in [floor, floor, floor, *cases]:
                each.run()
    wall, cpu = floor.wall() * 1000, floor.cpu() * 1000
    print(f"python -c pass (floor): {wall:.0f} ms wall, {cpu:.0f} ms CPU")
    print()
    print(HEADER)
    for number, each in enumerate(cases):
        previous = cases[number - 1] if number and cases[number - 1].step is each.step else None
        print(_row(each, previous))
    print()
    print(f"load average after: {_load()}; wall time {time.perf_counter() - started:.0f} s")


def _row(each: Case, previous: Case | None) -> str:
    added = ""
    if previous is not None:  # what each agent added since the previous size
        added = f"{(each.cpu() - previous.cpu()) * 1000 / (each.agents - previous.agents):.1f}"
    codes = {run[2] for run in each.runs}
    note = "" if codes == {0} else f" exit {sorted(codes)}"
    return (
        f"| {each.step.name} | {each.agents} | {each.size // 1024} | {each.wall():.2f} "
        f"| {each.cpu():.2f} | {added} |{note}"
    )


if __name__ == "__main__":
    main()

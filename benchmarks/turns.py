"""Time the same steps with two or more promptc installations taking turns.

Usage:
    .venv/bin/python benchmarks/turns.py \\
        --promptc before=/path/to/other/.venv/bin/promptc --promptc after=.venv/bin/promptc

What a change costs or saves is read beside the code before it, in the same
minutes: on a shared machine the load moves more between two runs of a
benchmark than most changes do. Each `--promptc NAME=COMMAND` is a command
that runs promptc (an installed `promptc`, or `env PYTHONPATH=<checkout>/compiler
.venv/bin/python -m promptc_compiler` for a checkout of another commit).

The steps, each in a fresh process with no result cache (`--no-cache`), a
build with its output folder moved aside first:

- `benchmarks/real_shape.py`'s bundle for OpenCode and Claude Code, with the
  required-snippet rule on, at 20 and 200 agents: lint, build and check;
- `benchmarks/speed.py`'s bundle at 1,000 agents: lint, check and build for
  OpenCode, and build for both runtimes;
- with `--lsp`, the language server's answer to an edit of one agent and of
  the fragment every agent includes (speed.py's bundle at 1,000 agents,
  `promptc_compiler.editor.lsp.Session.diagnose` in process, five edits
  each after the first run), run with the Python beside each command.

Round after round, each step runs once with each installation, the
installations in turn. Prints, for each step, each installation's median and
least CPU time (user and system: it moves less than the wall time on a
loaded machine) and the median's ratio to the first installation's. A step
whose exit codes differ between installations is marked: the installations
disagree about the bundle.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shlex
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from real_shape import make_real_bundle
from speed import BOTH_TARGETS, write_promptc

REAL_CONFIG = """\
[targets.opencode]

[targets.claude]

[rules.required-snippet]
fragment = "tone"
level = "warning"
"""

# Run with the Python of an installation: the CPU seconds of each language
# server edit after the first run, one line per edit kind.
LSP = """\
import sys, time
from pathlib import Path
from promptc_compiler.editor.lsp import Session
root = Path(sys.argv[1])
agent, fragment = root / "specs/agents/a0.md", root / "fragments/flow.md"
text, flow = agent.read_text(encoding="utf-8"), fragment.read_text(encoding="utf-8")
session = Session(root)
session.diagnose({})
edits = {
    "lsp: one agent's body": lambda n: {agent: f"{text}\\nedit {n}\\n"},
    "lsp: the fragment every agent includes": lambda n: {fragment: f"{flow}- edit {n}\\n"},
}
for name, edit in edits.items():
    times = []
    for n in range(5):
        started = time.process_time()
        session.diagnose(edit(n))
        times.append(time.process_time() - started)
    print(name, *times, sep="\\t")
"""


@dataclass
class Step:
    """One command on one bundle; `ready` readies the folder before each run."""

    name: str
    folder: Path
    arguments: list[str]
    ready: Callable[[Path], None] = lambda _folder: None
    cpus: dict[str, list[float]] = field(default_factory=dict)
    codes: dict[str, set[int]] = field(default_factory=dict)


def timed(command: list[str], cwd: Path) -> tuple[float, int]:
    """(CPU seconds, exit code) of one fresh process."""
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def _moved_output(folder: Path) -> None:
    """The build's output folder moved aside (never deleted: see speed.py)."""
    output = folder / "build"
    if output.exists():
        output.rename(tempfile.mkdtemp(dir=folder, prefix="moved-"))


def steps(scratch: Path, first: list[str], only: str) -> list[Step]:
    """Each step whose name holds `only`, its bundle written; a check's output
    built by the first installation."""
    found: list[Step] = []
    for agents in (20, 200):
        for command in ("lint", "build", "check"):
            name = f"real shape {agents}: {command}"
            if only not in name:
                continue
            folder = Path(tempfile.mkdtemp(dir=scratch))
            make_real_bundle(folder, agents)
            (folder / "promptc.toml").write_text(REAL_CONFIG, encoding="utf-8")
            found.append(_step(name, folder, command, first))
    for command, config in (
        ("lint", None),
        ("check", None),
        ("build", None),
        ("build", BOTH_TARGETS),
    ):
        name = f"N=1000: {command}" + (" (claude+opencode)" if config else "")
        if only not in name:
            continue
        folder = Path(tempfile.mkdtemp(dir=scratch))
        write_promptc(folder, 1000, *([config] if config else []))
        found.append(_step(name, folder, command, first))
    return found


def _step(name: str, folder: Path, command: str, first: list[str]) -> Step:
    if command == "check":
        subprocess.run([*first, "build", "--no-cache", "-q"], cwd=folder, check=False)
    ready = _moved_output if command == "build" else lambda _folder: None
    return Step(name, folder, [command, "--no-cache", "-q"], ready)


def lsp_times(python: list[str], root: Path) -> dict[str, list[float]]:
    done = subprocess.run(
        [*python, "-c", LSP, str(root)], cwd=root, capture_output=True, text=True, check=True
    )
    found: dict[str, list[float]] = {}
    for line in done.stdout.splitlines():
        name, *times = line.split("\t")
        found[name] = [float(t) for t in times]
    return found


def _absolute(command: list[str]) -> list[str]:
    """The command with each word that names a file here made absolute (steps run elsewhere)."""
    return [str(Path(word).absolute()) if Path(word).exists() else word for word in command]


def python_of(command: list[str]) -> list[str]:
    """The Python an installation runs: beside its `promptc`, or the one it names."""
    if command[-2:] == ["-m", "promptc_compiler"]:
        return command[:-2]
    return [str(Path(command[0]).with_name("python"))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--promptc", action="append", required=True, metavar="NAME=COMMAND")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lsp", action="store_true", help="time the language server too")
    parser.add_argument("--only", default="", help="only the steps whose name holds this")
    args = parser.parse_args()
    installs = {
        name: _absolute(shlex.split(command))
        for name, command in (item.split("=", 1) for item in args.promptc)
    }
    compileall.compile_dir(Path(__file__).resolve().parent.parent / "compiler", quiet=1)
    started = time.perf_counter()
    print(f"load average before: {os.getloadavg()}; {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(prefix="promptc-turns-") as scratch:
        first = next(iter(installs.values()))
        found = steps(Path(scratch), first, args.only)
        lsp: dict[str, dict[str, list[float]]] = {}
        lsp_root = Path(tempfile.mkdtemp(dir=scratch))
        if args.lsp:
            write_promptc(lsp_root, 1000)
        for number in range(args.rounds):
            for step in found:
                for name, command in installs.items():
                    step.ready(step.folder)
                    cpu, code = timed([*command, *step.arguments], step.folder)
                    step.cpus.setdefault(name, []).append(cpu)
                    step.codes.setdefault(name, set()).add(code)
            if args.lsp:
                for name, command in installs.items():
                    for edit, times in lsp_times(python_of(command), lsp_root).items():
                        lsp.setdefault(edit, {}).setdefault(name, []).extend(times)
            print(f"round {number + 1} done, load {os.getloadavg()}", flush=True)
    print()
    print(f"| step | {' | '.join(installs)} |")
    print(f"|---|{'---|' * len(installs)}")
    for step in found:
        print(_row(step.name, step.cpus, list(installs), step.codes))
    for edit, cpus in lsp.items():
        print(_row(edit, cpus, list(installs), {}))
    print()
    print("CPU seconds: median (least) and the median's ratio to the first column's")
    print(f"load average after: {os.getloadavg()}; {time.perf_counter() - started:.0f} s")


def _row(
    name: str, cpus: dict[str, list[float]], installs: list[str], codes: dict[str, set[int]]
) -> str:
    base = statistics.median(cpus[installs[0]])
    cells = []
    for install in installs:
        median = statistics.median(cpus[install])
        cells.append(f"{median:.2f} ({min(cpus[install]):.2f}) {median / base:.2f}x")
    differ = len({frozenset(c) for c in codes.values()}) > 1
    note = f" exit codes differ: {codes}" if differ else ""
    return f"| {name} | {' | '.join(cells)} |{note}"


if __name__ == "__main__":
    main()

"""Time the language server's answer to an edit: the diagnostics of one changed buffer.

Generates speed.py's bundle of N agents (default 1,000), then times what
`promptc lsp` does after each edit once the edits pause, in process:
promptc_compiler.editor.lsp.Session.diagnose, a `promptc lint` of the bundle with the edited
text overlaid on its file, through what the session kept of the runs before
(api.Kept: unchanged files are not parsed, checked or composed again). Three
edits, each run REPEAT times:

- agent: one agent's body gains a line (the common edit);
- agent, broken: the same agent with its frontmatter left open;
- fragment: the flow fragment every agent includes gains a line (every
  agent is composed and searched for the snippet again).

Prints the median and the fastest of each, and the share of one run each
stage takes (load, validate, compose, rules), to show where the time goes.
The goal is 300 ms at N = 1,000 on the machine the README's table comes from.

    .venv/bin/python benchmarks/lsp_edit.py --agents 1000 --repeat 7
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from speed import write_promptc  # benchmarks/ is on sys.path

from promptc_compiler.editor.lsp import Session

# The stages of api._analyse, by the functions that run each (the bodies are
# rendered when the project is made, after compose_bundle's checks).
STAGES = {
    "load": ("load_bundle",),
    "validate": ("_validate",),
    "compose": ("compose_bundle", "make_project"),
    "rules": ("run_rules",),
}


def timed(run: Callable[[int], object], repeat: int) -> list[float]:
    times = []
    for n in range(repeat):
        started = time.perf_counter()
        run(n)
        times.append(time.perf_counter() - started)
    return times


def shares(run: Callable[[], object]) -> str:
    """Each stage's share of one run, from a profile (which slows every stage alike)."""
    profile = cProfile.Profile()
    profile.runcall(run)
    stats = pstats.Stats(profile)
    total = max(stats.total_tt, 1e-9)  # type: ignore[attr-defined]
    found = {}
    for (_, _, name), row in stats.stats.items():  # type: ignore[attr-defined]
        for stage, functions in STAGES.items():
            if name in functions:
                found[stage] = found.get(stage, 0.0) + row[3]
    return ", ".join(f"{stage} {found.get(stage, 0.0) / total:.0%}" for stage in STAGES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="promptc-lsp-") as scratch:
        root = Path(scratch).resolve()
        write_promptc(root, args.agents)
        os.chdir(root)  # diagnostics name files relative to the working directory
        session = Session(root)
        agent = root / "specs/agents/a0.md"
        fragment = root / "fragments/flow.md"
        text = agent.read_text(encoding="utf-8")
        flow = fragment.read_text(encoding="utf-8")
        session.diagnose({})  # imports and the first run, as an editor's open does
        edits: dict[str, Callable[[int], object]] = {
            "agent": lambda n: session.diagnose({agent: f"{text}\nedit {n}\n"}),
            "agent, broken": lambda n: session.diagnose({agent: text.replace("---\n<<", "<<")}),
            "fragment": lambda n: session.diagnose({fragment: f"{flow}- edit {n}\n"}),
        }
        print(f"| edit ({args.agents:,} agents) | median | fastest |")
        print("|---|---|---|")
        for name, run in edits.items():
            times = timed(run, args.repeat)
            print(
                f"| {name} | {statistics.median(times) * 1000:.0f} ms "
                f"| {min(times) * 1000:.0f} ms |"
            )
        print()
        print("one agent edit:", shares(lambda: edits["agent"](0)))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

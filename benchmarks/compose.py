"""Composition speed on generated bundles.

Each bundle has N agents of about 150 lines (each includes the caveman fragment
with a parameter and has a per-target block) and three modes composed from six
flow fragments. For each size it prints the median time of `compose_bundle`
for one target on freshly loaded files (nothing scanned yet), the median for a
second target of the same bundle (its scans done), and the wall time of
`promptc lint` run as a command.

    .venv/bin/python benchmarks/compose.py --agents 16 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import CAVEMAN  # one synthetic snippet for every benchmark (benchmarks/ is on sys.path)

from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import load_config
from promptc_compiler.runtimes import TARGET_NAMES

AGENT = """\
---
description: Agent {i} explores and reports with paths and lines.
mode: subagent
---
<<caveman(level="ultra")>>

# Agent {i}

<% if target == "claude" %>
Lanza subagentes con la herramienta Agent; `$0` es el primer argumento.
<% else %>
Lanza subagentes con la herramienta task; `$1` es el primer argumento.
<% endif %>
{body}
"""

LINE = "Paso {n}: lee `src/{n}.py`, corre !`git diff` y reporta @archivo con $ARGUMENTS."


def write_bundle(root: Path, agents: int) -> None:
    (root / "promptc.toml").write_text("")
    (root / "specs/agents").mkdir(parents=True)
    (root / "specs/modes").mkdir(parents=True)
    (root / "fragments/flow").mkdir(parents=True)
    (root / "fragments/caveman.md").write_text(CAVEMAN)
    body = "\n".join(LINE.format(n=n) for n in range(140))
    for i in range(agents):
        (root / f"specs/agents/a{i}.md").write_text(AGENT.format(i=i, body=body))
    for mode in ("build", "hack", "review"):
        for step in ("plan", "do"):
            text = f"## {mode} {step}\n" + "\n".join(LINE.format(n=n) for n in range(20)) + "\n"
            (root / f"fragments/flow/{mode}_{step}.md").write_text(text)
        head = f"---\ndescription: {mode}\nagent: a0\n---\n"
        spec = f"{head}<<flow_{mode}_plan>>\n\n<<flow_{mode}_do>>\n"
        (root / f"specs/modes/{mode}.md").write_text(spec)


def median_compose(root: Path, repeat: int) -> tuple[float, float]:
    config = load_config(cwd=root)
    cold, warm = [], []
    for _ in range(repeat):
        bundle = load_bundle(config)  # freshly loaded files: no scan remembered yet
        start = time.perf_counter()
        compose_bundle(bundle, "opencode", TARGET_NAMES, config.display)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        compose_bundle(bundle, "claude", TARGET_NAMES, config.display)
        warm.append(time.perf_counter() - start)
    return statistics.median(cold), statistics.median(warm)


def median_lint(root: Path, repeat: int) -> float:
    command = [str(Path(sys.executable).with_name("promptc")), "lint"]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=root, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[16, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("agents  compose cold  compose warm  promptc lint")
    for count in args.agents:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            write_bundle(root, count)
            cold, warm = median_compose(root, args.repeat)
            lint = median_lint(root, args.repeat)
        print(f"{count:>6}  {cold * 1000:>9.1f} ms  {warm * 1000:>9.1f} ms  {lint * 1000:>9.1f} ms")


if __name__ == "__main__":
    main()

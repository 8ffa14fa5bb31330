"""Time one run of `promptc build --watch` after an edit saved to disk.

Generates speed.py's bundle of N agents (default 1,000), builds it once, then
times, in process, what the watch loop runs after each change: the config
read again and api.build of it (promptc_compiler.cli.main's `_watching` hands
promptc_compiler.editor.watch.watch a run that calls api.build with the watch's api.Kept).
Each edit is written to disk before its run (the save is not timed) and
timed REPEAT times two ways, one after the other so that a change in the
machine's load touches both alike: with one api.Kept for all the runs, as
the watch holds it, and with none (every run from scratch, as every watched
run was before the watch kept anything). Three edits:

- agent: one agent's body gains a line (the common edit; one file written);
- agent, broken: the same agent with its frontmatter left open (nothing written);
- fragment: the flow fragment every agent includes gains a line (every
  agent is composed, searched for the snippet and written again).

Prints the median wall time and the median CPU time (steadier on a shared
machine) of each. With `--command check`, times
`promptc check --watch`'s run (api.check) instead.

    .venv/bin/python benchmarks/watch_edit.py --agents 1000 --repeat 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from speed import write_promptc  # benchmarks/ is on sys.path

from promptc_compiler import api
from promptc_compiler.core.config import load_config

Run = Callable[[], api.Result]


def timed(edit: Callable[[int], None], runs: tuple[Run, Run], repeat: int) -> list[str]:
    """Each way's median wall and CPU time of a run after an edit, in ms."""
    times: list[list[tuple[float, float]]] = [[] for _ in runs]
    for n in range(repeat):
        for way, run in enumerate(runs):
            edit(2 * n + way)  # every run sees new bytes
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            times[way].append((time.perf_counter() - wall, time.process_time() - cpu))
    return [
        f"{statistics.median(w for w, _ in got) * 1000:.0f} ms "
        f"(CPU {statistics.median(c for _, c in got) * 1000:.0f} ms)"
        for got in times
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--command", choices=("build", "check"), default="build")
    args = parser.parse_args()
    command = api.build if args.command == "build" else api.check
    with tempfile.TemporaryDirectory(prefix="promptc-watch-") as scratch:
        root = Path(scratch).resolve()
        write_promptc(root, args.agents)
        os.chdir(root)  # diagnostics name files relative to the working directory
        agent = root / "specs/agents/a0.md"
        fragment = root / "fragments/flow.md"
        text = agent.read_text(encoding="utf-8")
        flow = fragment.read_text(encoding="utf-8")
        broken = text.replace("---\n<<", "<<")
        edits: dict[str, Callable[[int], None]] = {
            "agent": lambda n: _save(agent, f"{text}\nedit {n}\n"),
            "agent, broken": lambda n: _save(agent, f"{broken}\nedit {n}\n"),
            "fragment": lambda n: _save(fragment, f"{flow}- edit {n}\n"),
        }
        kept = api.Kept()  # one for every run, as the watch's

        def fresh() -> api.Result:
            return command(load_config(root / "promptc.toml"))

        def watched() -> api.Result:
            return command(load_config(root / "promptc.toml"), kept=kept)

        api.build(load_config(root / "promptc.toml"))  # the output a watch starts from
        print(f"| edit ({args.agents:,} agents, {args.command}) | from scratch | kept |")
        print("|---|---|---|")
        for name, edit in edits.items():
            watched()  # the run before the edit: what the watch has kept by then
            print(f"| {name} | {' | '.join(timed(edit, (fresh, watched), args.repeat))} |")
            _save(agent, text)
            _save(fragment, flow)
    sys.stdout.flush()


def _save(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

"""How long frontmatter validation takes: `python benchmarks/validate.py [AGENTS]`.

Writes a throwaway bundle of AGENTS agents (default 200), each the reference
OpenCode example plus a few keys the rules look at, and times `promptc lint`
in-process: the first run (schemas loaded and validators compiled) and the
mean of the next ones. A pre-commit hook pays the first-run figure.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from promptc_compiler import api
from promptc_compiler.core.config import load_config

AGENT = """\
---
description: Reviews diffs for bugs and missing tests. Use after code changes.
mode: subagent
temperature: 0.1
targets:
  claude:
    model: sonnet
    color: blue
permission:
  edit: deny
  webfetch: deny
  bash:
    "*": ask
    "git diff*": allow
    "rm *": deny
  task:
    "*": deny
---
You are a strict code reviewer.
"""


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "promptc.toml").write_text("")
        agents = root / "specs" / "agents"
        agents.mkdir(parents=True)
        for number in range(count):
            (agents / f"reviewer-{number}.md").write_text(AGENT)
        config = load_config(cwd=root)
        start = time.perf_counter()
        first = api.lint(config)
        cold = time.perf_counter() - start
        assert first.ok, first.diagnostics
        start = time.perf_counter()
        for _ in range(5):
            api.lint(config)
        warm = (time.perf_counter() - start) / 5
    print(f"{count} agents: first lint {cold * 1000:.0f} ms, then {warm * 1000:.0f} ms")
    print(f"per agent: {warm / count * 1000:.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)

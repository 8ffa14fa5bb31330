"""Time the analysis stage rule by rule, on generated bundles and on the repo's own.

Each bundle is analysed in a fresh process (nothing remembered from a previous
run): the bundle is loaded and composed, then every enabled rule runs once and
its wall time is printed, slowest first, with the total and the time per agent.
Two generators:

- uniform: benchmarks/speed.py's bundle (every agent the same permission map);
- varied: seeded random permission maps (bash, edit, task lists naming other
  agents, catch-alls first, last or missing), a third of the agents primary or
  `all`, and the claude target on, so translation and delegation see a
  different map in nearly every agent.

    .venv/bin/python benchmarks/analysis.py --sizes 1000 10000 --kind uniform varied
    .venv/bin/python benchmarks/analysis.py --repo        # the repo's own bundle
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import BODY, CAVEMAN, FLOW, write_promptc  # benchmarks/ is on sys.path

from promptc_compiler import rules
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import load_config
from promptc_compiler.core.project import make_project
from promptc_compiler.pipeline import lint
from promptc_compiler.runtimes import TARGET_NAMES
from promptc_compiler.runtimes.translations import Translated

COMMANDS = [
    "git status *",
    "git diff *",
    "git log*",
    "rg *",
    "rm *",
    "sudo *",
    "git push*",
    "npm test",
    "pytest *",
    "make *",
    "ls",
    "cat *",
    "sh *",
    "curl *",
    "git *",
    "*",
]
PATHS = ["*", "*.md", "docs/*", "src/**", "*.env", "src/*.ts", "CHANGELOG*", ".opencode/*"]
ACTIONS = ["allow", "ask", "deny"]
VARIED_CONFIG = """\
[targets.opencode]
[targets.claude]

[rules.required-snippet]
fragment = "caveman"
params = {level = "ultra"}
level = "warning"
"""


def _permission(rng: random.Random, agents: int) -> list[str]:
    lines = ["permission:"]
    if rng.random() < 0.8:
        lines.append("  edit:")
        lines += [f'    "{p}": {rng.choice(ACTIONS)}' for p in rng.sample(PATHS, rng.randint(1, 4))]
    else:
        lines.append(f"  edit: {rng.choice(ACTIONS)}")
    commands = rng.sample(COMMANDS, rng.randint(1, 7))
    if "*" in commands and rng.random() < 0.7:
        commands.remove("*")
        commands.insert(0, "*")  # the catch-all first, as it should be
    lines.append("  bash:")
    lines += [f'    "{c}": {rng.choice(ACTIONS)}' for c in commands]
    names = rng.sample(range(agents), min(agents, rng.randint(0, 3)))
    lines.append("  task:")
    if rng.random() < 0.8 or not names:
        lines.append('    "*": deny')
    lines += [f'    "a{n}": {rng.choice(["allow", "ask"])}' for n in names]
    if rng.random() < 0.3:
        lines.append(f"  webfetch: {rng.choice(ACTIONS)}")
    return lines


def write_varied(root: Path, agents: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    (root / "specs/agents").mkdir(parents=True)
    (root / "fragments").mkdir(parents=True)
    (root / "promptc.toml").write_text(VARIED_CONFIG)
    (root / "fragments/caveman.md").write_text(CAVEMAN)
    (root / "fragments/flow.md").write_text(FLOW)
    body = BODY.split("\n")
    for i in range(agents):
        mode = rng.choice(["subagent"] * 4 + ["primary", "all"])
        front = [f"description: Agent {i} reads files and reports.", f"mode: {mode}"]
        front += _permission(rng, agents)
        head = "\n".join(front)
        text = "\n".join(rng.sample(body, 30))
        spec = f'---\n{head}\n---\n<<caveman(level="ultra")>>\n\n<<flow>>\n\n{text}\n'
        (root / f"specs/agents/a{i}.md").write_text(spec)


def analyse(root: Path) -> None:
    """Load, compose, then time every enabled rule (this process is fresh)."""
    started = time.perf_counter()
    config = load_config(cwd=root)
    bundle = load_bundle(config)
    target = next(iter(config.targets), "opencode")
    composition = compose_bundle(bundle, target, TARGET_NAMES, config.display)
    project = Translated.of(make_project(config, bundle, composition, target))
    ready = time.perf_counter()
    times: dict[str, float] = {}
    settled = lint.settings(config)
    for rule_id, rule in rules.RULES.items():
        settings = settled[rule_id]
        if rule.STAGE or settings.level is None:
            continue
        start = time.perf_counter()
        found = sum(1 for _ in rule.check(project, settings.options))
        times[f"{rule_id} ({found})"] = time.perf_counter() - start
    total = sum(times.values())
    agents = max(len(project.agents), 1)
    print(f"load and compose: {(ready - started) * 1000:.0f} ms")
    for name, seconds in sorted(times.items(), key=lambda item: -item[1])[:8]:
        print(f"  {name:34} {seconds * 1000:9.1f} ms")
    print(f"  rules: {total * 1000:.0f} ms, {total / agents * 1e6:.0f} µs per agent ({agents})")


def run_fresh(root: Path) -> None:
    subprocess.run([sys.executable, __file__, "--one", str(root)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    parser.add_argument("--kind", nargs="+", choices=["uniform", "varied"], default=["uniform"])
    parser.add_argument("--repo", action="store_true", help="the repo's own bundle only")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        analyse(args.one)
        return
    if args.repo:
        print("repo bundle:")
        run_fresh(Path(__file__).resolve().parents[1])
        return
    for kind in args.kind:
        for size in args.sizes:
            with tempfile.TemporaryDirectory() as folder:
                root = Path(folder)
                (write_promptc if kind == "uniform" else write_varied)(root, size)
                print(f"{kind}, N={size}:", flush=True)
                run_fresh(root)


if __name__ == "__main__":
    main()

"""Per-rule precision and recall of the security rules, and what they cost a lint.

Lints the labelled set (benchmarks/security_set.py: planted cases, clean
lines, clean documents) once and prints, for each security rule, the planted
cases it found (true positives), those it missed (false negatives) and the
clean cases it reported (false positives), with precision and recall. Then it
lints clean bundles that must raise nothing: the repository's own bundle,
real-shape bundles (benchmarks/real_shape.py, one per seed) and the bundles
benchmarks/speed.py and benchmarks/compose.py time, and prints what each
raised.
Last, the lint time of a real-shape bundle and of the repository's bundle
with the security rules on, next to the same lint with them off (median of
`--repeat` runs each, in this process, one after the other).

    .venv/bin/python benchmarks/security_precision.py --agents 40 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

import compose  # benchmarks/ is on sys.path
import speed
from real_shape import make_real_bundle
from security_set import CASES, DOCUMENTS, Case, write_bundle

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Diagnostic
from promptc_compiler.core.config import load_config

RULES = (
    "hidden-text",
    "mixed-script",
    "hidden-markup",
    "prompt-injection",
    "encoded-blob",
    "exfiltration-url",
    "secret",
)
ROOT = Path(__file__).resolve().parents[1]


def lint(root: Path, config: str = "promptc.toml") -> list[Diagnostic]:
    here = os.getcwd()
    os.chdir(root)  # diagnostics name files relative to the working directory
    try:
        return list(api.lint(load_config(root / config)).diagnostics)
    finally:
        os.chdir(here)


def judged(found: Iterable[Diagnostic], cases: dict[str, Case]) -> dict[str, list[int]]:
    """Per rule: [true positives, false negatives, false positives]."""
    reported: dict[str, set[tuple[str, str]]] = {path: set() for path in cases}
    for d in found:
        if d.rule in RULES and d.path in reported:
            reported[d.path].add((d.rule, d.message.split(":", 1)[0]))
    counts = {rule: [0, 0, 0] for rule in RULES}
    for path, case in cases.items():
        said = reported[path]
        if case.expected is not None:
            counts[case.expected[0]][0 if case.expected in said else 1] += 1
        for rule, kind in said:
            if (rule, kind) != case.expected:
                counts[rule][2] += 1
    return counts


def table(counts: dict[str, list[int]]) -> list[str]:
    rows = [
        "| rule | planted | found | missed | false positives | precision | recall |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for rule, (tp, fn, fp) in counts.items():
        precision = f"{tp / (tp + fp):.2f}" if tp + fp else "-"
        recall = f"{tp / (tp + fn):.2f}" if tp + fn else "-"
        rows.append(f"| {rule} | {tp + fn} | {tp} | {fn} | {fp} | {precision} | {recall} |")
    return rows


def security(found: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in found if d.rule in RULES]


def timed(root: Path, repeat: int, config: str) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        lint(root, config)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=40, help="agents per real-shape bundle")
    parser.add_argument("--repeat", type=int, default=5, help="timed lints per setting")
    parser.add_argument("--seeds", type=int, default=8, help="real-shape bundles, one per seed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        labelled = base / "labelled"
        cases = write_bundle(labelled, [*CASES, *DOCUMENTS])
        planted = sum(1 for case in CASES if case.expected)
        print(f"labelled set: {planted} planted cases, {len(cases) - planted} clean")
        print(f"({len(DOCUMENTS)} of them whole documents)\n")
        print("\n".join(table(judged(lint(labelled), cases))))
        print("\nclean bundles (any finding is a false positive):")
        print(f"- the repository's bundle: {len(security(lint(ROOT, 'pyproject.toml')))} findings")
        for seed in range(1, args.seeds + 1):
            size = make_real_bundle(base / f"shaped{seed}", args.agents, seed)
            found = clean_lint(base / f"shaped{seed}", "[targets.opencode]\n[targets.claude]\n")
            print(f"- real shape, {args.agents} agents, seed {seed} ({size:,} bytes): ", end="")
            show(found)
        speed.write_promptc(base / "speed", args.agents)
        print(f"- benchmarks/speed.py's bundle, {args.agents} agents: ", end="")
        show(clean_lint(base / "speed"))
        (base / "compose").mkdir()
        compose.write_bundle(base / "compose", args.agents)
        print(f"- benchmarks/compose.py's bundle, {args.agents} agents: ", end="")
        show(clean_lint(base / "compose"))
        shaped = base / "shaped"
        make_real_bundle(shaped, args.agents)
        print("\nlint time, median of each setting, security rules on / off:")
        off = "".join(f'[rules.{rule}]\nlevel = "off"\n' for rule in RULES)
        targets = "[targets.opencode]\n[targets.claude]\n"
        print(f"- real shape, {args.agents} agents: {compare(shaped, targets, off, args.repeat)}")
        ndomo = base / "ndomo"
        for folder in ("specs", "fragments"):
            shutil.copytree(ROOT / folder, ndomo / folder)
        own = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        promptc = own.split("[tool.promptc]", 1)[1]
        prefixed = off.replace("[rules.", "[tool.promptc.rules.")
        times = compare(ndomo, "[tool.promptc]" + promptc, prefixed, args.repeat, "pyproject.toml")
        print(f"- the repository's bundle: {times}")


def clean_lint(root: Path, config: str | None = None) -> list[Diagnostic]:
    """The security findings of a bundle a benchmark wrote (with `config`, if given)."""
    if config is not None:
        (root / "promptc.toml").write_text(config, encoding="utf-8")
    return security(lint(root))


def show(found: list[Diagnostic]) -> None:
    print(f"{len(found)} findings")
    for d in found[:10]:
        print(f"    {d.as_text()}")


def compare(root: Path, config: str, off: str, repeat: int, name: str = "promptc.toml") -> str:
    """`on ms / off ms (xratio)`: lint times with the security rules and without."""
    (root / name).write_text(config, encoding="utf-8")
    on_time = timed(root, repeat, name)
    (root / name).write_text(config + off, encoding="utf-8")
    off_time = timed(root, repeat, name)
    return f"{on_time * 1000:.0f} ms / {off_time * 1000:.0f} ms (x{on_time / off_time:.2f})"


if __name__ == "__main__":
    main()

"""What the garbage collector costs a cold `promptc lint` (or build), and which objects it walks.

Generates benchmarks/speed.py's bundle at each size and runs the command in a
fresh process twice: once as a user runs it, with a `gc.callbacks` hook that
times every collection, and once with the collector off (`gc.disable()` in
that benchmark process only: promptc itself never switches it). Prints, per
size, the CPU time of both runs (from just before `cli.main`, imports left
out), the collections' time and share of the first, its number of full
collections and its CPU time per agent; with `--types N`, in a third run, the
objects the collector tracked at its largest full collection and the N types
most of them are.

    .venv/bin/python benchmarks/gc_share.py --sizes 16 1000 10000
    .venv/bin/python benchmarks/gc_share.py --sizes 10000 --types 12
    .venv/bin/python benchmarks/gc_share.py --sizes 1000 --command build --targets claude
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from speed import CONFIG, write_promptc  # benchmarks/ is on sys.path

# Runs in the measured process: promptc's own entry point between two hooks.
RUNNER = """
import collections, gc, json, sys, time
command, report, off, types = sys.argv[1], sys.argv[2], sys.argv[3] == "off", int(sys.argv[4])
from promptc_compiler.cli import main as cli
found = {"gc": 0.0, "full": 0, "tracked": 0, "types": []}
started = [0.0]

def hook(phase, info):
    if phase == "start":
        if info["generation"] == 2 and types:
            objects = gc.get_objects()
            if len(objects) > found["tracked"]:
                found["tracked"] = len(objects)
                counted = collections.Counter(type(o).__qualname__ for o in objects)
                found["types"] = counted.most_common(types)
            del objects
        started[0] = time.process_time()
        return
    found["gc"] += time.process_time() - started[0]
    found["full"] += info["generation"] == 2

if off:
    gc.disable()
gc.callbacks.append(hook)
begun = time.process_time()
try:
    cli.main([command, "--no-cache", "-q"])
except SystemExit:
    pass
found["cpu"] = time.process_time() - begun
gc.callbacks.remove(hook)
with open(report, "w") as handle:
    json.dump(found, handle)
"""


@dataclass(frozen=True)
class Measured:
    cpu: float  # seconds, the command's own (from before cli.main to after)
    gc: float  # seconds, in collections
    full: int  # full collections
    tracked: int  # objects tracked at the largest full collection (with --types)
    types: list[tuple[str, int]]  # the most of those, by type


def measure(root: Path, command: str, off: bool, types: int) -> Measured:
    report = root / "gc-report.json"
    argv = [sys.executable, "-c", RUNNER, command, str(report), "off" if off else "on", str(types)]
    subprocess.run(
        argv, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    found = json.loads(report.read_text())
    report.unlink()
    kinds = [(str(name), int(count)) for name, count in found["types"]]
    return Measured(found["cpu"], found["gc"], found["full"], found["tracked"], kinds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 1000, 10000])
    parser.add_argument("--command", choices=["lint", "build", "check"], default="lint")
    parser.add_argument("--targets", nargs="*", default=[], help="targets besides opencode")
    parser.add_argument("--types", type=int, default=0, help="count the N most tracked types")
    args = parser.parse_args()
    config = CONFIG + "".join(f"\n[targets.{name}]\n" for name in args.targets)
    print(
        "| N | CPU s | CPU s, collector off | in collections | share | full collections "
        "| CPU ms per agent |"
    )
    print("|---|---|---|---|---|---|---|")
    counted = []
    with tempfile.TemporaryDirectory(prefix="promptc-gc-") as scratch:
        for size in args.sizes:
            root = Path(scratch) / str(size)
            write_promptc(root, size, config)
            on = measure(root, args.command, off=False, types=0)
            off = measure(root, args.command, off=True, types=0)
            print(
                f"| {size} | {on.cpu:.2f} | {off.cpu:.2f} | {on.gc:.2f} s "
                f"| {100 * on.gc / on.cpu:.0f}% | {on.full} | {1000 * on.cpu / size:.2f} |",
                flush=True,
            )
            if args.types:  # a run of its own: counting costs a walk of the heap
                counted.append((size, measure(root, args.command, off=False, types=args.types)))
    for size, found in counted:
        print(
            f"\nN={size}: {found.tracked} objects tracked at the largest full collection, ", end=""
        )
        print(f"{found.tracked / size:.0f} per agent; the most:")
        for name, count in found.types:
            print(f"  {count:>9}  {count / size:6.1f} per agent  {name}")


if __name__ == "__main__":
    main()

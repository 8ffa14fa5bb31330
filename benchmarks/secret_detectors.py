"""The `secret` rule next to detect-secrets, the library it could have been built on.

For each, on the labelled set (benchmarks/security_set.py): the planted
secrets it finds, the same tokens written in a sentence with no key-like name
before them (`Usa sk-proj-... en el cliente.`), and the clean cases it reports
(every case not planted for `secret`: other rules' cases, the clean lines and
the whole documents). Then the time each takes on a real-shape bundle
(benchmarks/real_shape.py). detect-secrets runs as its own scanner does, file
by file with its default plugins; promptc lints the bundle with every rule on.

detect-secrets is not a dependency of promptc: install it beside it, in a
folder of its own, to run this:

    .venv/bin/pip install --target /tmp/detect-secrets detect-secrets==1.5.0
    PYTHONPATH=/tmp/detect-secrets .venv/bin/python benchmarks/secret_detectors.py

Its forks that keep the package name (bc-detect-secrets, detect-secrets-plus)
run the same way.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from real_shape import make_real_bundle  # benchmarks/ is on sys.path
from security_set import (
    ANTHROPIC,
    AWS,
    CASES,
    DOCUMENTS,
    GCP,
    GITHUB,
    OPENAI,
    SLACK,
    STRIPE,
    Case,
    write_bundle,
)

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.rules import secret

Scanner = Callable[[Path], list[str]]


def promptc_secrets(root: Path) -> dict[str, list[str]]:
    """The kinds `secret` reports, by file relative to `root`."""
    here = os.getcwd()
    os.chdir(root)
    try:
        found = api.lint(load_config(root / "promptc.toml")).diagnostics
    finally:
        os.chdir(here)
    kinds: dict[str, list[str]] = {}
    for d in found:
        if d.rule == secret.ID:
            kinds.setdefault(d.path, []).append(d.message.split(":", 1)[0])
    return kinds


def detect_secrets_scanner(stack: ExitStack) -> Scanner | None:
    """detect-secrets' file scan with its default plugins, set up once for the run."""
    try:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    stack.enter_context(default_settings())

    def scan(path: Path) -> list[str]:
        return sorted({found.type for found in scan_file(str(path))})

    return scan


# The formats a prompt is most likely to hold, each alone in a sentence: no
# key-like name before it tells a scanner to look.
IN_PROSE = {
    "aws-access-key": AWS,
    "github-token": GITHUB,
    "openai-key": OPENAI,
    "anthropic-key": ANTHROPIC,
    "slack-token": SLACK,
    "stripe-key": STRIPE,
    "gcp-api-key": GCP,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=40, help="agents in the real-shape bundle")
    args = parser.parse_args()
    with ExitStack() as stack:
        scan = detect_secrets_scanner(stack)
        if scan is None:
            raise SystemExit("detect-secrets is not importable: see this script's docstring")
        compare(scan, args.agents)


def compare(scan: Scanner, agents: int) -> None:
    version = _version()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        cases = write_bundle(base / "labelled", [*CASES, *DOCUMENTS])
        ours = promptc_secrets(base / "labelled")
        planted = [path for path, case in cases.items() if case.rule == secret.ID and case.expected]
        clean = [path for path in cases if path not in planted]
        theirs = {path: scan(base / "labelled" / path) for path in cases}
        sentences = [Case(f"Usa {token} en el cliente.") for token in IN_PROSE.values()]
        prose_root = write_bundle(base / "prose", sentences)
        ours_prose = promptc_secrets(base / "prose")
        theirs_prose = {path: scan(base / "prose" / path) for path in prose_root}
        print(f"labelled set: {len(planted)} planted secrets, {len(clean)} other cases\n")
        print(f"| | promptc `secret` | {version} |")
        print("|---|---:|---:|")
        print(_row("planted secrets found", planted, ours, theirs))
        print(
            _row(
                "known-format tokens in a sentence, found",
                list(prose_root),
                ours_prose,
                theirs_prose,
            )
        )
        print(_row("clean cases reported (false positives)", clean, ours, theirs))
        print(f"\nmissed by {version}:")
        for path in planted:
            if not theirs[path]:
                print(f"- {cases[path].kind}: {cases[path].text[:40]}")
        for kind, path in zip(IN_PROSE, prose_root, strict=True):
            if not theirs_prose[path]:
                print(f"- {kind}, in a sentence")
        print(f"\nreported by {version} in clean cases:")
        for path in clean:
            if theirs[path]:
                print(f"- {', '.join(theirs[path])}: {cases[path].text[:50]!r}")
        shaped = base / "shaped"
        size = make_real_bundle(shaped, agents)
        (shaped / "promptc.toml").write_text("[targets.opencode]\n[targets.claude]\n")
        files = sorted(shaped.rglob("*.md"))
        started = time.perf_counter()
        reported = sum(len(scan(path)) for path in files)
        their_time = time.perf_counter() - started
        started = time.perf_counter()
        ours_shaped = promptc_secrets(shaped)
        our_time = time.perf_counter() - started
        print(f"\nreal shape, {agents} agents ({size:,} bytes, {len(files)} files):")
        print(f"- {version}: {their_time:.2f} s, {reported} findings")
        print(f"- promptc lint, every rule: {our_time:.2f} s, {len(ours_shaped)} `secret` findings")


def _version() -> str:
    """The installed distribution: detect-secrets or a fork that keeps its package name."""
    for name in ("detect-secrets", "bc-detect-secrets", "detect-secrets-plus"):
        try:
            return f"{name} {importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return "detect-secrets"


def _row(
    name: str, paths: list[str], ours: dict[str, list[str]], theirs: dict[str, list[str]]
) -> str:
    mine = sum(1 for path in paths if ours.get(path))
    other = sum(1 for path in paths if theirs.get(path))
    return f"| {name} | {mine} of {len(paths)} | {other} of {len(paths)} |"


if __name__ == "__main__":
    main()

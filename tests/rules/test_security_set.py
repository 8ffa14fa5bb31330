"""The labelled set (benchmarks/security_set.py): every planted case is found, once,
with its kind; every clean case raises nothing, but for the known false positives,
which are reported (so that their notes in the rules' docs stay true)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from promptc_compiler import api, rules
from promptc_compiler.core.config import load_config

ROOT = Path(__file__).resolve().parents[2]
SECURITY = (
    "hidden-text",
    "mixed-script",
    "hidden-markup",
    "prompt-injection",
    "encoded-blob",
    "exfiltration-url",
    "secret",
)


def _module(name: str) -> ModuleType:
    """A module of benchmarks/ (not a package), loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


SET = _module("security_set")
ALL = [*SET.CASES, *SET.DOCUMENTS]


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, str]]]:
    """(rule, kind) of every security finding, by the case's fragment path."""
    root = tmp_path_factory.mktemp("labelled")
    cases = SET.write_bundle(root, ALL)
    here = os.getcwd()
    os.chdir(root)
    try:
        result = api.lint(load_config(root / "promptc.toml"))
    finally:
        os.chdir(here)
    found: dict[str, list[tuple[str, str]]] = {path: [] for path in cases}
    for d in result.diagnostics:
        if d.rule in SECURITY:
            assert d.path in found, d.as_text()
            found[d.path].append((d.rule, d.message.split(":", 1)[0]))
    return found


@pytest.mark.parametrize(
    "number",
    range(len(ALL)),
    ids=[f"{n:03d}-{case.rule or 'clean'}-{case.kind or ''}" for n, case in enumerate(ALL)],
)
def test_case(reported: dict[str, list[tuple[str, str]]], number: int) -> None:
    case = ALL[number]
    said = reported[f"fragments/c/{number:03d}.md"]
    if case.false_positive:
        assert said == [(case.rule, case.kind)], case.text
    elif case.expected is not None:
        assert said == [case.expected], case.text
    else:
        assert said == [], case.text


def test_every_kind_of_every_rule_has_a_planted_case() -> None:
    planted = {case.expected for case in SET.CASES if case.expected}
    kinds = {(rule, kind) for rule in SECURITY for kind in rules.RULES[rule].KINDS}  # type: ignore[attr-defined]
    assert kinds - planted == set()


# A benchmark script run end to end (3.7 s of CPU): `make conformance`, beside
# tests/test_benchmarks.py's. The labelled cases it counts are checked above.
@pytest.mark.slow
@pytest.mark.conformance
def test_the_benchmark_prints_a_row_for_every_rule(tmp_path: Path) -> None:
    """benchmarks/security_precision.py runs as a user runs it and prints the
    figures docs/security.md quotes (only that, never a time, is checked)."""
    script = str(ROOT / "benchmarks/security_precision.py")
    done = subprocess.run(
        [sys.executable, script, "--agents", "3", "--repeat", "1", "--seeds", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [
        line.split("|")[1].strip() for line in done.stdout.splitlines() if line.startswith("| ")
    ]
    assert rows == ["rule", *SECURITY]
    clean = done.stdout.split("clean bundles", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert [line.split(" (", 1)[0].split(":", 1)[0] for line in clean] == [
        "- the repository's bundle",
        "- real shape, 3 agents, seed 1",
        "- real shape, 3 agents, seed 2",
        "- benchmarks/speed.py's bundle, 3 agents",
        "- benchmarks/compose.py's bundle, 3 agents",
    ]
    assert all(line.endswith(": 0 findings") for line in clean), clean

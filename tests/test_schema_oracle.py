"""The planted defects against the real runtime: what `opencode agent list` rejects, promptc rejects.

The cases of tests/schema_cases.py are loaded by opencode-ai 1.18.33 (scratch
HOME, scratch git repository so that no `.opencode/` above it leaks in).
OpenCode stops at the first invalid agent file and names only that one, so
one run cannot judge many agents. Legacy `.opencode/modes/*.md` files are
decoded by the same schema (the agent `Info` schema, after the same
frontmatter parser) but an invalid one is skipped instead of failing the run:
one run with every case as a mode gives every verdict, as "listed" or
"missing". Two more kinds of run tie that to agents: every case the table
says loads, plus the valid reference example, loads together as agents; and
a sample of rejected cases each fails alone as an agent, naming its file.
The verdicts must match the table, and every rejected case must be a
promptc error.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Severity
from promptc_compiler.core.config import load_config
from tests import oracle
from tests.schema_cases import CASES, REFERENCE_AGENT, Case

# Each test starts the real runtime, many times: `make conformance` runs them.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

OPENCODE = Path(__file__).resolve().parent / "node_modules" / ".bin" / "opencode"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Beyond the suite's offline settings: nothing from `.claude/` or shared skill
# folders may join the agents under test.
_ISOLATED = {"OPENCODE_DISABLE_CLAUDE_CODE": "1", "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}


@pytest.fixture(scope="module")
def opencode() -> Path:
    if not OPENCODE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{OPENCODE} is missing: `make npm` installs the pinned runtimes")
        pytest.skip("opencode not installed (run `make npm`)")
    return OPENCODE


def _agent_list(exe: Path, folder: str, files: dict[str, str], scratch: Path) -> tuple[int, str]:
    """Exit code and output of `opencode agent list` in a project holding `files`
    (name -> text) as `.opencode/<folder>/<name>.md`."""
    project, home = scratch / "project", scratch / "home"
    where = project / ".opencode" / folder
    where.mkdir(parents=True)
    home.mkdir()
    for name, text in files.items():
        (where / f"{name}.md").write_text(text, encoding="utf-8")
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = {**oracle.scratch_env(home), **_ISOLATED}
    done = oracle.capture([str(exe), "agent", "list"], project, env, 180)
    return done.returncode, _ANSI.sub("", done.stdout + done.stderr)


def _listed(output: str) -> set[str]:
    """Agent names from `agent list`: each agent starts a line with `NAME (MODE)`."""
    return {m.group(1) for m in re.finditer(r"^(\S+) \((?:primary|subagent|all)\)$", output, re.M)}


Job = tuple[str, dict[str, str]]


def _run_all(exe: Path, jobs: list[Job]) -> list[tuple[int, str]]:
    def one(job: Job) -> tuple[int, str]:
        with tempfile.TemporaryDirectory(prefix="promptc-oracle-") as scratch:
            return _agent_list(exe, job[0], job[1], Path(scratch))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, jobs))


# One rejected case per way of failing: a type, an enum, a scalar-only permission.
SAMPLE = ("temperature-string", "mode-unknown", "permission-scalar-map")
REJECTED = [c for c in CASES if c.rejected]
LOADS = {**{c.name: c.text for c in CASES if not c.rejected}, "reference": REFERENCE_AGENT}


@dataclass(frozen=True)
class Runs:
    as_modes: tuple[int, str]
    as_agents: tuple[int, str]
    alone: dict[str, tuple[int, str]]


@pytest.fixture(scope="module")
def runs(opencode: Path) -> Runs:
    every = {**{c.name: c.text for c in CASES}, "reference": REFERENCE_AGENT}
    jobs: list[Job] = [("modes", every), ("agents", LOADS)]
    jobs += [("agents", {name: next(c.text for c in CASES if c.name == name)}) for name in SAMPLE]
    results = _run_all(opencode, jobs)
    return Runs(results[0], results[1], dict(zip(SAMPLE, results[2:], strict=True)))


@pytest.fixture(scope="module")
def promptc_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """case name -> the error lines promptc reports for it."""
    root = tmp_path_factory.mktemp("bundle")
    (root / "promptc.toml").write_text("")
    agents = root / "specs" / "agents"
    agents.mkdir(parents=True)
    for case in CASES:
        (agents / f"{case.name}.md").write_text(case.text, encoding="utf-8")
    (agents / "reference.md").write_text(REFERENCE_AGENT, encoding="utf-8")
    found: dict[str, list[str]] = {}
    for diagnostic in api.lint(load_config(cwd=root)).diagnostics:
        if diagnostic.severity is Severity.ERROR:
            found.setdefault(Path(diagnostic.path).stem, []).append(diagnostic.as_text())
    return found


def test_one_run_judges_every_case(runs: Runs) -> None:
    code, output = runs.as_modes
    assert code == 0, output
    assert "reference" in _listed(output), output


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_runtime_verdict_matches_the_table(case: Case, runs: Runs) -> None:
    output = runs.as_modes[1]
    assert (case.name not in _listed(output)) == case.rejected, output


def test_what_loads_as_a_mode_loads_as_an_agent(runs: Runs) -> None:
    code, output = runs.as_agents
    assert code == 0, output
    assert set(LOADS) <= _listed(output), output


@pytest.mark.parametrize("name", SAMPLE)
def test_what_fails_as_a_mode_fails_as_an_agent(name: str, runs: Runs) -> None:
    code, output = runs.alone[name]
    assert code != 0, output
    assert "Configuration is invalid at " in output and f"agents/{name}.md" in output, output


@pytest.mark.parametrize("case", REJECTED, ids=lambda c: c.name)
def test_what_opencode_rejects_promptc_rejects(
    case: Case, runs: Runs, promptc_errors: dict[str, list[str]]
) -> None:
    assert case.name not in _listed(runs.as_modes[1])
    assert promptc_errors.get(case.name), f"promptc reports no error for {case.name}"

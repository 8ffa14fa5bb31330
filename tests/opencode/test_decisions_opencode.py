"""OpenCode decides every call as promptc says it does: promptc_compiler.permissions.calls held to the real CLI.

The reference side of the never-wider promise. Every translation is compared
with `promptc_compiler.permissions.calls.decide` (OpenCode's decision of a call from the specs); here
the real `opencode` (1.18.33), run offline against the scripted model server
(tests/opencode/oracle.py), decides a sample of the same calls from the files
the opencode target wrote, and each must come out as promptc says: allow = ran,
ask = asked (auto-rejected), deny = refused or not offered. That checks the
emitted files and the decision model at once: compound command lines decided
per command, `external_directory` before a path outside the project, a
subagent session's own denies, the task tool's reach.

`make test` runs one batched sample of the hard maps (tests/fixtures/hard);
`make conformance` runs at least 200 calls over the real-shape team and
the hard maps, and prints the figures.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import Call
from promptc_compiler.permissions.runtime import Runtime
from tests import bundles, decisions
from tests.opencode import oracle as opencode

HARD = bundles.FIXTURES / "hard"
# The verdict OpenCode's decision stands for, in a non-interactive run.
VERDICTS = {"allow": {"ran"}, "ask": {"asked"}, "deny": {"refused", "absent"}}
# Tools the CLI never offers offline (Exa's web search; question to interactive clients only).
NEVER_OFFERED = {"websearch", "question"}


def _files(root: Path) -> dict[str, str]:
    """The opencode target's files, each agent's `model` left out: the scratch HOME
    has only the scripted model, and permissions do not depend on the model."""
    result = api.render(load_config(cwd=root), only=["opencode"])
    prefix = "opencode/"
    return {
        k[len(prefix) :]: _without_model(v.decode())
        for k, v in result.files.items()
        if k.startswith(prefix)
    }


def _without_model(text: str) -> str:
    if not text.startswith("---\n"):
        return text
    front, sep, body = text[4:].partition("\n---\n")
    kept = [line for line in front.split("\n") if not line.startswith("model:")]
    return "---\n" + "\n".join(kept) + sep + body


def _drivable(call: Call) -> bool:
    """OpenCode has a tool for it here: no tool asks for `list`, and a custom or
    MCP tool (`plan_db`) is not installed in a scratch project. OpenCode looks a
    skill up before it asks about it ("Skill ... not found"), and the SKILL.md
    written for the call names it in plain YAML, which trims: a name with spaces
    at its ends never exists, and its call says nothing about the rules."""
    if call.permission == "skill" and call.input != call.input.strip():
        return False
    return call.permission in calls.BUILT_IN and call.permission not in {*NEVER_OFFERED, "list"}


def _parent(runtime: Runtime, agent: str) -> str | None:
    """A primary agent whose task rules allow starting `agent`."""
    for name, found in runtime.agents.items():
        if found.mode != "subagent" and not found.native and not found.hidden:
            decided = calls.decide(runtime, Call(name, "task", agent))
            if decided.action == "allow":
                return name
    return None


def _skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: A skill the oracle loads.\n---\nSay done.\n"


def check(root: Path, sample: Sequence[decisions.Decided], folder: Path) -> int:
    """Run `sample` (decided calls of root's matrix) on the real CLI; the calls run."""
    project_model = bundles.project(root, "opencode")
    runtime = calls.runtime_of(project_model)
    files = _files(root)
    groups: dict[tuple[str, bool], list[decisions.Decided]] = {}
    for found in sample:
        if _drivable(found.call):
            groups.setdefault((found.call.agent, found.call.delegated), []).append(found)
    mismatches: list[str] = []
    ran = 0
    for index, ((agent, delegated), group) in enumerate(sorted(groups.items())):
        config = json.loads(files.get("opencode.json", "{}"))
        main = agent
        if delegated:
            parent = _parent(runtime, agent)
            if parent is None:
                continue  # no primary may start it: OpenCode never runs its calls
            main = parent
        config["default_agent"] = main
        base = folder / f"run{index}"
        home = base / "home"
        home.mkdir(parents=True)
        # A skill must exist for OpenCode to ask about it: one per skill call.
        skills = {
            f".opencode/skills/{d.call.input}/SKILL.md": _skill(d.call.input)
            for d in group
            if d.call.permission == "skill"
        }
        written = {**files, **skills, "opencode.json": json.dumps(config)}
        project = decisions.project_for(base, written)
        attempts = []
        for found in group:
            value = decisions.concrete(found.call.input, project, home)
            made = opencode.attempt(found.call.permission, value, project)
            assert made is not None, found.call
            attempts.append(made)
        outcomes = opencode.run(project, attempts, agent=agent, delegate=delegated, home=home)
        ran += len(outcomes)
        for found, outcome in zip(group, outcomes, strict=True):
            if outcome.verdict not in VERDICTS[found.opencode]:
                mismatches.append(
                    f"{found.call}: promptc says {found.opencode}, OpenCode {outcome.verdict}: "
                    f"{outcome.result[:200]!r}"
                )
    assert not mismatches, "\n".join(mismatches)
    return ran


def _decided(root: Path, picked: Sequence[Call] = ()) -> list[decisions.Decided]:
    """OpenCode's decision, by promptc, of the calls picked (the matrix by default)."""
    project = bundles.project(root, "opencode")
    runtime = calls.runtime_of(project)
    # What a run with nobody to answer shows: an ask before a deny shows as ask.
    return [
        decisions.Decided(call, calls.decide(runtime, call).headless, "", "")
        for call in picked or calls.matrix(project, runtime)
    ]


# Calls where an error in the model would show: compound lines, a path outside
# the project, rule order, `?`, a trailing space, case, exceptions to a deny.
PICKED = [
    Call("lead", "bash", "npm run test:unit"),
    Call("lead", "bash", "npm install && npm run build"),
    Call("lead", "bash", "git status | git push origin main"),
    Call("lead", "bash", "echo $(git push --force)"),
    Call("lead", "edit", "config/.env.local"),
    Call("lead", "edit", f"{calls.OUTSIDE}/notes.txt"),
    Call("lead", "read", ".env"),
    Call("strict", "bash", "ls a", delegated=True),
    Call("strict", "bash", "ls ab", delegated=True),
    Call("strict", "bash", "make", delegated=True),
    Call("strict", "bash", "make test", delegated=True),
    Call("strict", "bash", "Make test", delegated=True),
]


@pytest.mark.slow
def test_opencode_decides_the_main_sessions_hard_calls_as_promptc_does(tmp_path: Path) -> None:
    # One run of the real CLI (~10 s); the subagent's calls take another, in
    # `make conformance` (below).
    picked = [c for c in PICKED if not c.delegated]
    sample = _decided(HARD, picked)
    assert {d.opencode for d in sample} == {"allow", "ask", "deny"}
    assert check(HARD, sample, tmp_path) == len(picked)


@pytest.mark.conformance
def test_opencode_decides_the_subagents_hard_calls_as_promptc_does(tmp_path: Path) -> None:
    # The other run of the real CLI: `strict` started by `lead`.
    picked = [c for c in PICKED if c.delegated]
    sample = _decided(HARD, picked)
    assert {d.opencode for d in sample} == {"allow", "deny"}
    assert check(HARD, sample, tmp_path) == len(picked)


@pytest.mark.conformance
@pytest.mark.parametrize(("root", "size"), [(bundles.TEAM, 160), (HARD, 80)])
def test_opencode_decides_a_sample_of_the_matrix_as_promptc_does(
    root: Path, size: int, tmp_path: Path
) -> None:
    found = _decided(root)
    sample = decisions.sample(found, size, seed=1)
    ran = check(root, sample, tmp_path)
    print(f"\nopencode ({root.name}): {len(found)} calls in the matrix, {ran} on the real CLI")
    assert ran >= size * 3 // 4


# Lines without a command OpenCode asks about run unasked; a line that ends in an
# operator gets an empty command from tree-sitter, which OpenCode asks about as
# the text `` (and bash then refuses the line).
UNASKED_OR_MISSING = [
    Call("lead", "bash", "x=1"),
    Call("lead", "bash", "cd src"),
    Call("lead", "bash", "npm test &&"),
    Call("lead", "bash", "git status |"),
]


@pytest.mark.conformance
def test_opencode_decides_lines_with_nothing_or_an_empty_command_as_promptc_does(
    tmp_path: Path,
) -> None:
    sample = _decided(HARD, UNASKED_OR_MISSING)
    assert [d.opencode for d in sample] == ["allow", "allow", "ask", "ask"]
    assert check(HARD, sample, tmp_path) == len(UNASKED_OR_MISSING)

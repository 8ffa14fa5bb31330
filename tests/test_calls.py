"""promptc_compiler.permissions.calls: the call matrix a bundle generates, and OpenCode's decision of each call."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptc_compiler.core.project import Project
from promptc_compiler.permissions import calls, wildcard
from promptc_compiler.permissions.calls import Call
from promptc_compiler.permissions.ruleset import evaluate
from promptc_compiler.permissions.runtime import Runtime
from tests import bundles
from tests.conftest import MakeBundle
from tests.rules.conftest import agent

LEAD = """
description: Leads the work and delegates.
mode: primary
permission:
  bash:
    "*": ask
    "git status*": allow
    "rm *": deny
  edit:
    "*": allow
    "*.env": deny
  external_directory:
    "*": deny
    "/workspace/elsewhere/*": allow
  task:
    "*": deny
    coder: allow
  skill:
    "*": ask
    "cave*": allow
"""
CODER = """
description: Writes code.
mode: subagent
permission:
  bash:
    "npm test": allow
"""
BUNDLE = {
    "promptc.toml": "",
    "specs/agents/lead.md": agent(LEAD),
    "specs/agents/coder.md": agent(CODER),
}


@pytest.fixture
def runtime_and_project(make_bundle: MakeBundle) -> tuple[Runtime, Project]:
    root = make_bundle(BUNDLE)
    project = bundles.project(Path(root), "opencode")
    return calls.runtime_of(project), project


@pytest.mark.parametrize(
    ("call", "action"),
    [
        (Call("lead", "bash", "git status"), "allow"),
        (Call("lead", "bash", "ls"), "ask"),
        # A line is decided per command: one deny refuses it, one ask asks.
        (Call("lead", "bash", "git status && rm -rf build"), "deny"),
        (Call("lead", "bash", "git status | wc -l"), "ask"),
        (Call("lead", "bash", "echo $(rm x)"), "deny"),
        (Call("lead", "bash", "cd src"), "allow"),
        (Call("lead", "bash", "x=1"), "allow"),  # nothing on the line is asked about
        # Ending in an operator, the line gets an empty command, which `"*"` asks.
        (Call("lead", "bash", "git status &&"), "ask"),
        (Call("lead", "bash", "git status && git status"), "allow"),
        # A file command naming a folder outside the project asks external_directory.
        (Call("lead", "bash", "git status && cat /etc/passwd"), "deny"),
        (Call("lead", "edit", "src/app.py"), "allow"),
        (Call("lead", "edit", ".env"), "deny"),
        (Call("lead", "edit", "/home/user/.ssh/authorized_keys"), "deny"),
        (Call("lead", "edit", "/workspace/elsewhere/notes.txt"), "allow"),
        (Call("lead", "edit", "~/x"), "deny"),
        # OpenCode's own read rules: `.env` files ask.
        (Call("lead", "read", ".env"), "ask"),
        (Call("lead", "read", ".env.example"), "allow"),
        (Call("lead", "task", "coder"), "allow"),
        (Call("lead", "task", "lead"), "deny"),  # a primary is never a subagent
        (Call("lead", "task", "nobody"), "deny"),
        (Call("lead", "skill", "caveman"), "allow"),
        (Call("lead", "skill", "foo"), "ask"),
        (Call("lead", "question", "*"), "deny"),  # OpenCode's default
        # A subagent session: todowrite and task denied unless its rules say.
        (Call("coder", "todowrite", "*", delegated=True), "deny"),
        (Call("coder", "task", "coder", delegated=True), "deny"),
        (Call("coder", "bash", "npm test", delegated=True), "allow"),
        (Call("coder", "bash", "npm test --watch", delegated=True), "allow"),
    ],
)
def test_opencode_decides_each_call(
    runtime_and_project: tuple[Runtime, Project], call: Call, action: str
) -> None:
    runtime, _ = runtime_and_project
    assert calls.decide(runtime, call).action == action


def test_a_decision_names_its_rule_or_opencodes_reason(
    runtime_and_project: tuple[Runtime, Project],
) -> None:
    runtime, _ = runtime_and_project
    assert calls.decide(runtime, Call("lead", "bash", "rm x")).reason() == '`bash "rm *": deny`'
    assert "primary" in calls.decide(runtime, Call("lead", "task", "lead")).reason()


def test_the_matrix_covers_every_agent_permission_and_pattern(
    runtime_and_project: tuple[Runtime, Project],
) -> None:
    runtime, project = runtime_and_project
    matrix = calls.matrix(project, runtime)
    assert {c.agent for c in matrix} == {"lead", "coder"}
    # Each agent in the context it runs in: a subagent only when started.
    assert {c.delegated for c in matrix if c.agent == "coder"} == {True}
    assert {c.delegated for c in matrix if c.agent == "lead"} == {False}
    lead = {(c.permission, c.input) for c in matrix if c.agent == "lead"}
    for permission in calls.BUILT_IN:
        assert any(p == permission for p, _ in lead), permission
    # Every written pattern and its neighbours, compound lines, paths outside.
    for found in [
        ("bash", "git status"),
        ("bash", "rm "),
        ("bash", "GIT STATUS"),
        ("bash", "git status && rm"),
        ("bash", "echo $(rm)"),
        ("bash", "cat .env"),
        ("edit", ".env"),
        ("edit", "/home/user/.ssh/authorized_keys"),
        ("task", "coder"),
        ("task", "no-such-agent"),
        ("skill", "cave"),
        ("skill", "foo"),
    ]:
        assert found in lead, found


def test_the_team_matrix_is_of_real_size() -> None:
    project = bundles.project(bundles.TEAM, "opencode")
    runtime = calls.runtime_of(project)
    matrix = calls.matrix(project, runtime)
    agents = {c.agent for c in matrix}
    assert len(agents) == len(project.agents)
    actions = {calls.decide(runtime, c).action for c in matrix}
    assert actions == {"allow", "ask", "deny"}
    assert 50 * len(agents) <= len(matrix) <= 300 * len(agents)


def test_each_question_asks_the_rules_naming_its_permission_as_all_of_them() -> None:
    # Agent.naming keeps, in order, the rules whose key matches a permission:
    # evaluate finds the same decision in them as in every rule, for every
    # question the team's matrix asks (the folders outside too), each agent
    # in a session of its own and started as a subagent.
    project = bundles.project(bundles.TEAM, "opencode")
    runtime = calls.runtime_of(project)
    asked = 0
    for call in calls.matrix(project, runtime):
        agent = runtime.agents[call.agent]
        for delegated in (call.delegated, not call.delegated):
            rules = agent.effective(delegated)
            for permission, text in ((call.permission, call.input), ("external_directory", "/x/*")):
                named = agent.naming(delegated, permission)
                assert list(named) == [r for r in rules if r.names(wildcard.normal(permission))]
                assert evaluate(named, permission, text) == evaluate(rules, permission, text)
                asked += 1
    assert asked > 1000

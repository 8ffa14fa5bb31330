"""missing-catch-all: allow-lists that OpenCode's default allow leaves open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import MakeBundle, Run
from tests.rules.conftest import Diagnostics, Expected, Lint, Messages, agent, assert_found

A = "specs/agents/a.md"
RULE = "missing-catch-all"
SUB = agent("description: A subagent someone may start.\nmode: subagent")

CASES = [
    (
        """
        description: Task allow-list without a catch-all.
        mode: primary
        permission:
          task:
            sub: allow
        """,
        [(5, 3)],
    ),
    (
        """
        description: Task allow-list closed by a catch-all first.
        mode: primary
        permission:
          task:
            "*": deny
            sub: allow
        """,
        [],
    ),
    (
        """
        description: A universal pattern other than "*" closes the map too.
        mode: primary
        permission:
          task:
            "**": deny
            sub: allow
        """,
        [],
    ),
    (
        """
        description: Bash allow-list without a catch-all.
        permission:
          bash:
            "git status": allow
            "git diff*": allow
        """,
        [(4, 3)],
    ),
    (
        """
        description: A deny-list is meant to leave the rest to the default.
        permission:
          bash:
            "rm *": deny
            "sudo *": ask
        """,
        [],
    ),
    (
        """
        description: An earlier top-level catch-all of the agent decides the rest.
        permission:
          "*": deny
          bash:
            "git status": allow
        """,
        [],
    ),
    (
        """
        description: external_directory's default for the rest is ask, not allow.
        permission:
          external_directory:
            "~/notes/*": allow
        """,
        [],
    ),
    (
        """
        description: read's built-in default allows the rest.
        permission:
          read:
            "src/*": allow
        """,
        [(4, 3)],
    ),
]


@pytest.mark.parametrize(("front", "expected"), CASES)
def test_missing_catch_all(lint: Lint, front: str, expected: list[tuple[int, int]]) -> None:
    found = lint(RULE, {A: agent(front), "specs/agents/sub.md": SUB})
    assert found == [(A, line, col, RULE) for line, col in expected]


def test_config_level_catch_all_closes_the_map(lint: Lint) -> None:
    config = '[permission]\ntask = "deny"\n'
    found = lint(RULE, {A: agent(CASES[0][0]), "specs/agents/sub.md": SUB}, config)
    assert found == []


def test_task_message_lists_what_stays_open(messages: Messages) -> None:
    files = {
        A: agent(CASES[0][0]),
        "specs/agents/sub.md": SUB,
        "specs/agents/other.md": SUB.replace("A subagent", "Another subagent"),
    }
    assert messages(RULE, files) == [
        'specs/agents/a.md:5:3: error [missing-catch-all] `task` map has no `"*"` entry, so '
        'OpenCode\'s built-in `"*": allow` still lets this agent start every subagent it '
        "does not list: general, explore, other"
    ]


DOCSTRING_CASES = [
    pytest.param(
        "mode: primary\npermission:\n  task:\n    sub: allow",
        [
            (
                A,
                5,
                3,
                '`task` map has no `"*"` entry, so OpenCode\'s built-in `"*": allow` still lets '
                "this agent start every subagent it does not list: general, explore",
            )
        ],
        id="docstring-fails",
    ),
    pytest.param(
        "mode: primary\npermission:\n  task:\n    '*': deny\n    sub: allow",
        [],
        id="docstring-passes",
    ),
    pytest.param(
        "permission:\n  bash:\n    'git status': allow",
        [
            (
                A,
                4,
                3,
                '`bash` map has no `"*"` entry, so inputs it does not list (such as `x`) fall to '
                'OpenCode\'s built-in `"*": allow`: its allow entries change nothing',
            )
        ],
        id="other-permissions-name-an-input-left-open",
    ),
]


@pytest.mark.parametrize(("rest", "expected"), DOCSTRING_CASES)
def test_docstring_examples(diagnostics: Diagnostics, rest: str, expected: Expected) -> None:
    front = f"description: The permission map of the rule's docstring.\n{rest}"
    found = diagnostics(RULE, {A: agent(front), "specs/agents/sub.md": SUB})
    assert_found(found, RULE, expected)


FIX_CASES = [
    pytest.param(
        CASES[0][0],
        """
        description: Task allow-list without a catch-all.
        mode: primary
        permission:
          task:
            "*": ask
            sub: allow
        """,
        id="block-map-of-task",
    ),
    pytest.param(
        "description: Quoted keys.\npermission:\n  bash:\n    'git status': allow\n    rg: allow",
        "description: Quoted keys.\npermission:\n  bash:\n    '*': ask\n"
        "    'git status': allow\n    rg: allow",
        id="single-quoted-keys-keep-their-quotes",
    ),
    pytest.param(
        "description: A flow map.\nmode: primary\npermission:\n  task: { sub: allow }",
        'description: A flow map.\nmode: primary\npermission:\n  task: { "*": ask, sub: allow }',
        id="flow-map-inside-its-braces",
    ),
    pytest.param(
        "description: OpenCode's own map.\nmode: primary\ntargets:\n  opencode:\n"
        "    permission:\n      task:\n        sub: allow",
        "description: OpenCode's own map.\nmode: primary\ntargets:\n  opencode:\n"
        '    permission:\n      task:\n        "*": ask\n        sub: allow',
        id="map-under-the-opencode-override",
    ),
]


@pytest.mark.parametrize(("front", "fixed"), FIX_CASES)
def test_fix_inserts_an_ask_catch_all_as_the_first_entry(
    make_bundle: MakeBundle, run: Callable[..., Run], front: str, fixed: str
) -> None:
    make_bundle({"promptc.toml": "", A: agent(front), "specs/agents/sub.md": SUB})
    first = run("lint", "--fix")
    assert first.err.splitlines()[0] == f"Fixing {A}"
    assert f"[{RULE}]" not in first.out
    assert Path(A).read_text(encoding="utf-8") == agent(fixed)
    second = run("lint", "--fix")  # nothing left to fix: the file stays as it is
    assert "Fixing" not in second.err
    assert Path(A).read_text(encoding="utf-8") == agent(fixed)

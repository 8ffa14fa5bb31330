"""shadowed-rule: rules that never decide under last-match-wins."""

from __future__ import annotations

import textwrap

import pytest

from promptc_compiler.permissions import coverage
from promptc_compiler.permissions.wildcard import TooComplex
from tests.rules.conftest import Diagnostics, Expected, Lint, Messages, agent, assert_found

A = "specs/agents/a.md"
RULE = "shadowed-rule"

CASES = [
    # (frontmatter, expected (line, column) of each report)
    (
        """
        description: Catch-all written last kills the allow-list before it.
        permission:
          bash:
            "rg *": allow
            "find *": allow
            "*": deny
        """,
        [(5, 5), (6, 5)],
    ),
    (
        """
        description: Catch-all written first: every rule can decide.
        permission:
          bash:
            "*": deny
            "rg *": allow
            "find *": allow
        """,
        [],
    ),
    (
        """
        description: A top-level "*" after a key overrides all of that key.
        permission:
          bash: allow
          "*": deny
        """,
        [(4, 3)],
    ),
    (
        """
        description: A broader pattern later overrides a narrower one.
        permission:
          bash:
            "*": ask
            "git push --force*": deny
            "git push*": allow
        """,
        [(6, 5)],
    ),
    (
        """
        description: Trailing " *" is optional, so "git status *" covers "git status".
        permission:
          bash:
            "*": ask
            "git status": deny
            "git status *": allow
        """,
        [(6, 5)],
    ),
    (
        """
        description: Three later rules together cover an earlier one; none does alone.
        permission:
          bash:
            "*": ask
            "x *": deny
            "x": allow
            "x ": allow
            "x ?*": allow
        """,
        [(6, 5)],
    ),
    (
        """
        description: "Partly covered: ? matches one character, * any run, so a* still decides aa."
        permission:
          edit:
            "*": ask
            "a*": deny
            "a?": allow
        """,
        [],
    ),
    (
        """
        description: Numeric keys move first in JavaScript order, behind the catch-all.
        permission:
          bash:
            "*": ask
            "10": deny
        """,
        [(6, 5)],
    ),
    (
        """
        description: A wildcard key covers other keys; mcp_* after mcp_x wins.
        permission:
          mcp_x: allow
          "mcp_*": deny
        """,
        [(4, 3)],
    ),
    (
        """
        description: Same action later is redundant, not reported by default.
        permission:
          bash:
            "git *": allow
            "*": allow
        """,
        [],
    ),
]


@pytest.mark.parametrize(("front", "expected"), CASES)
def test_shadowed(lint: Lint, front: str, expected: list[tuple[int, int]]) -> None:
    found = lint(RULE, {A: agent(front)})
    assert found == [(A, line, col, RULE) for line, col in expected]


def test_redundant_option(lint: Lint) -> None:
    front = CASES[-1][0]
    config = "[rules.shadowed-rule]\nredundant = true\n"
    assert lint(RULE, {A: agent(front)}, config) == [(A, 5, 5, RULE)]


def test_message_names_the_overriding_rule(messages: Messages) -> None:
    found = messages(RULE, {A: agent(CASES[0][0])})
    assert found[0] == (
        'specs/agents/a.md:5:5: error [shadowed-rule] `bash "rg *": allow` never decides: '
        'the later `bash "*": deny` (line 7) matches everything it matches'
    )


def test_message_names_every_rule_of_a_union(messages: Messages) -> None:
    found = messages(RULE, {A: agent(CASES[5][0])})
    assert found == [
        'specs/agents/a.md:6:5: error [shadowed-rule] `bash "x *": deny` never decides: later '
        'rules `bash "x": allow` (line 7), `bash "x ": allow` (line 8), `bash "x ?*": allow` '
        "(line 9) together match everything it matches"
    ]


def test_config_level_rules_are_checked(lint: Lint) -> None:
    config = '[permission]\nbash = { "git *" = "ask", "*" = "deny" }\n'
    found = lint(RULE, {A: agent("description: Any agent will do for this one.")}, config)
    assert found == [("promptc.toml", 2, 10, RULE)]


def test_config_level_rules_with_the_catch_all_first_pass(lint: Lint) -> None:
    config = '[permission]\nbash = { "*" = "deny", "git *" = "ask" }\n'
    assert lint(RULE, {A: agent("description: Any agent will do for this one.")}, config) == []


def test_agents_sharing_a_map_each_get_their_own_positions(messages: Messages) -> None:
    # The same rules, so the same (cached) answers, written at different lines.
    front = textwrap.dedent(CASES[0][0])
    later = front.replace("permission:", "mode: subagent\npermission:")
    found = messages(RULE, {A: agent(front), "specs/agents/b.md": agent(later)})
    assert found == [
        'specs/agents/a.md:5:5: error [shadowed-rule] `bash "rg *": allow` never decides: '
        'the later `bash "*": deny` (line 7) matches everything it matches',
        'specs/agents/a.md:6:5: error [shadowed-rule] `bash "find *": allow` never decides: '
        'the later `bash "*": deny` (line 7) matches everything it matches',
        'specs/agents/b.md:6:5: error [shadowed-rule] `bash "rg *": allow` never decides: '
        'the later `bash "*": deny` (line 8) matches everything it matches',
        'specs/agents/b.md:7:5: error [shadowed-rule] `bash "find *": allow` never decides: '
        'the later `bash "*": deny` (line 8) matches everything it matches',
    ]


def test_a_pairwise_search_past_its_budget_names_every_later_rule(
    messages: Messages, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The union was decided, but the search for one covering rule gave up: the
    # report falls back to naming the later rules instead of crashing.
    def gives_up(*_: object) -> None:
        raise TooComplex(("*",))

    monkeypatch.setattr(coverage.Coverage, "covering", gives_up)
    found = messages(RULE, {A: agent(CASES[0][0])})
    assert found[0] == (
        'specs/agents/a.md:5:5: error [shadowed-rule] `bash "rg *": allow` never decides: '
        'later rules `bash "*": deny` (line 7) together match everything it matches'
    )


def test_agents_whose_maps_differ_only_in_an_action_are_judged_apart(lint: Lint) -> None:
    # Answers are shared by lists of the same permissions, patterns and actions.
    dead = 'description: Dead.\npermission:\n  bash:\n    "rg *": allow\n    "*": deny'
    harmless = 'description: Harmless.\npermission:\n  bash:\n    "rg *": deny\n    "*": deny'
    files = {A: agent(dead), "specs/agents/b.md": agent(harmless)}
    assert lint(RULE, files) == [(A, 5, 5, RULE)]
    config = "[rules.shadowed-rule]\nredundant = true\n"
    assert lint(RULE, files, config) == [(A, 5, 5, RULE), ("specs/agents/b.md", 5, 5, RULE)]


DOCSTRING_CASES = [
    pytest.param(
        'permission:\n  bash:\n    "rg *": allow\n    "*": deny',
        [(A, 5, 5, '`bash "rg *": allow` never decides: the later `bash "*": deny` (line 6) matches everything it matches')],
        id="docstring-fails",
    ),
    pytest.param('permission:\n  bash:\n    "*": deny\n    "rg *": allow', [], id="docstring-passes"),
]  # fmt: skip


@pytest.mark.parametrize(("rest", "expected"), DOCSTRING_CASES)
def test_docstring_examples(diagnostics: Diagnostics, rest: str, expected: Expected) -> None:
    front = f"description: The permission map of the rule's docstring.\n{rest}"
    assert_found(diagnostics(RULE, {A: agent(front)}), RULE, expected)


def test_hint_says_the_last_match_wins(diagnostics: Diagnostics) -> None:
    [found, _] = diagnostics(RULE, {A: agent(CASES[0][0])})
    assert found.hint == (
        "OpenCode applies the last matching rule, not the most specific: put broad rules first"
    )

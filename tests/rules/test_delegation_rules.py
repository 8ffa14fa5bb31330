"""subagent-delegates, delegation-policy and unreachable-subagent."""

from __future__ import annotations

from tests.rules.conftest import Lint, agent

CRAFTSMAN = """
description: Implements what the user asks, delegating to smiths.
mode: primary
permission:
  task:
    "*": deny
    smith: allow
    painter: allow
    scout: allow
"""
FOREMAN = """
description: Plans the work and hands out research.
mode: primary
permission:
  task:
    "*": deny
    scout: allow
    sage: ask
"""


def sub(description: str, extra: str = "") -> str:
    return agent(f"description: {description}\nmode: subagent\n{extra}".strip())


TEAM = {
    "specs/agents/craftsman.md": agent(CRAFTSMAN),
    "specs/agents/foreman.md": agent(FOREMAN),
    "specs/agents/smith.md": sub("Writes code in any language."),
    "specs/agents/painter.md": sub("Designs user interfaces."),
    "specs/agents/scout.md": sub("Reads the code and reports."),
    "specs/agents/sage.md": sub("Weighs architecture trade-offs."),
}
POLICY = """
[rules.delegation-policy]
forbidden = [{from = "foreman", to = ["smith", "painter"]}]
only_via = {painter = ["craftsman"]}
"""


def test_policy_holds(lint: Lint) -> None:
    assert lint("delegation-policy", TEAM, POLICY) == []


def test_forbidden_edge_reported_at_the_rule_that_allows_it(lint: Lint) -> None:
    foreman = FOREMAN.replace("    sage: ask", "    sage: ask\n    smith: allow")
    files = {**TEAM, "specs/agents/foreman.md": agent(foreman)}
    assert lint("delegation-policy", files, POLICY) == [
        ("specs/agents/foreman.md", 9, 5, "delegation-policy")
    ]


def test_forbidden_edge_through_the_default_allow(lint: Lint, messages) -> None:  # type: ignore[no-untyped-def]
    foreman = "description: Plans the work and hands out research.\nmode: primary\npermission:\n  task:\n    scout: allow"
    files = {**TEAM, "specs/agents/foreman.md": agent(foreman)}
    found = lint("delegation-policy", files, POLICY)
    assert found == [("specs/agents/foreman.md", 5, 3, "delegation-policy")]
    assert messages("delegation-policy", files, POLICY) == [
        "specs/agents/foreman.md:5:3: error [delegation-policy] foreman may start painter, "
        'smith through OpenCode\'s built-in default `"*": allow`, but the policy forbids '
        "foreman -> painter; it forbids foreman -> smith; it lets only craftsman start painter"
    ]


def test_only_via(lint: Lint) -> None:
    sage = sub(
        "Weighs architecture trade-offs.", "permission:\n  task:\n    '*': deny\n    painter: allow"
    )
    files = {**TEAM, "specs/agents/sage.md": sage}
    assert lint("delegation-policy", files, POLICY) == [
        ("specs/agents/sage.md", 7, 5, "delegation-policy")
    ]


def test_wildcards_in_the_policy(lint: Lint) -> None:
    config = '[rules.delegation-policy]\nforbidden = [{from = "fore*", to = ["*"]}]\n'
    assert lint("delegation-policy", TEAM, config) == [
        ("specs/agents/foreman.md", 7, 5, "delegation-policy"),
        ("specs/agents/foreman.md", 8, 5, "delegation-policy"),
    ]


def test_policy_names_must_exist(lint: Lint) -> None:
    config = '[rules.delegation-policy]\nonly_via = {paynter = ["craftsman"]}\n'
    assert lint("delegation-policy", TEAM, config) == [("promptc.toml", 1, 1, "delegation-policy")]


def test_subagent_delegates(lint: Lint) -> None:
    smith = sub(
        "Writes code in any language.", "permission:\n  task:\n    '*': deny\n    scout: allow"
    )
    files = {**TEAM, "specs/agents/smith.md": smith}
    assert lint("subagent-delegates", files) == [
        ("specs/agents/smith.md", 5, 3, "subagent-delegates")
    ]


def test_subagent_without_task_rules_does_not_delegate(lint: Lint) -> None:
    # OpenCode appends task: deny to a subagent session that never mentions task.
    assert lint("subagent-delegates", TEAM) == []


def test_subagent_with_task_allow(lint: Lint) -> None:
    files = {
        **TEAM,
        "specs/agents/smith.md": sub("Writes code in any language.", "permission:\n  task: allow"),
    }
    assert lint("subagent-delegates", files) == [
        ("specs/agents/smith.md", 5, 3, "subagent-delegates")
    ]


def test_unreachable_subagent(lint: Lint) -> None:
    files = {**TEAM, "specs/agents/guild.md": sub("Debates from several perspectives.")}
    assert lint("unreachable-subagent", files) == [
        ("specs/agents/guild.md", 3, 1, "unreachable-subagent")
    ]
    config = '[rules.unreachable-subagent]\nignore = ["guild"]\n'
    assert lint("unreachable-subagent", files, config) == []


def test_ask_counts_as_reachable(lint: Lint) -> None:
    assert lint("unreachable-subagent", TEAM) == []

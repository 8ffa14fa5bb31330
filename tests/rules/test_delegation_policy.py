"""delegation-policy: task edges the bundle's own policy forbids, or lets only some agents make."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, Lint, Messages, agent, assert_found
from tests.rules.delegation_files import FOREMAN, TEAM, sub

RULE = "delegation-policy"
FOREMAN_MD = "specs/agents/foreman.md"
POLICY = """
[rules.delegation-policy]
forbidden = [{from = "foreman", to = ["smith", "painter"]}]
only_via = {painter = ["craftsman"]}
"""
# The docstring's policy.
DOCUMENTED = """
[rules.delegation-policy]
forbidden = [{from = "foreman", to = ["smith", "*-smith", "painter"]}]
only_via = {painter = ["craftsman"]}
"""


def foreman_also(*entries: str) -> dict[str, str]:
    """TEAM, with more entries at the end of foreman's task map."""
    more = "".join(f"\n    {entry}" for entry in entries)
    return {**TEAM, FOREMAN_MD: agent(FOREMAN.replace("    sage: ask", "    sage: ask" + more))}


GO_SMITH = {"specs/agents/go-smith.md": sub("Writes Go code when asked.")}
SAGE_PAINTS = "permission:\n  task:\n    '*': deny\n    painter: {}"

# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples, with its policy (which names some `*-smith`).
    pytest.param(
        {**foreman_also("smith: allow"), **GO_SMITH},
        DOCUMENTED,
        [(FOREMAN_MD, 9, 5, "`task \"smith\": allow`: foreman may start smith, but the policy forbids foreman -> smith")],
        id="docstring-fails",
    ),
    pytest.param({**TEAM, **GO_SMITH}, DOCUMENTED, [], id="docstring-passes"),
    pytest.param(
        TEAM,
        DOCUMENTED,
        [("promptc.toml", 1, 1, "the delegation policy names `*-smith`, but no agent matches it")],
        id="a-pattern-matching-no-agent",
    ),
    pytest.param(
        {**foreman_also("go-smith: allow"), **GO_SMITH},
        DOCUMENTED,
        [(FOREMAN_MD, 9, 5, "foreman may start go-smith, but the policy forbids foreman -> go-smith")],
        id="wildcard-target",
    ),
    pytest.param(TEAM, POLICY, [], id="policy-holds"),
    pytest.param(TEAM, "", [], id="no-policy"),
    pytest.param(
        foreman_also("smith: ask"),
        POLICY,
        [(FOREMAN_MD, 9, 5, "`task \"smith\": ask`: foreman may ask to start smith, but the policy forbids")],
        id="ask-is-an-edge",
    ),
    pytest.param(foreman_also("smith: deny"), POLICY, [], id="deny-is-no-edge"),
    pytest.param(
        {**TEAM, "specs/agents/sage.md": sub("Weighs architecture trade-offs.", SAGE_PAINTS.format("allow"))},
        POLICY,
        [("specs/agents/sage.md", 7, 5, "sage may start painter, but the policy lets only craftsman start painter")],
        id="only-via",
    ),
    pytest.param(
        {**TEAM, "specs/agents/sage.md": sub("Weighs architecture trade-offs.", SAGE_PAINTS.format("ask"))},
        POLICY,
        [("specs/agents/sage.md", 7, 5, "sage may ask to start painter, but the policy lets only craftsman")],
        id="only-via-ask",
    ),
    pytest.param(
        TEAM,
        '[rules.delegation-policy]\nforbidden = [{from = "fore*", to = ["*"]}]\n',
        [
            (FOREMAN_MD, 7, 5, "foreman may start scout, but the policy forbids foreman -> scout"),
            (FOREMAN_MD, 8, 5, "foreman may ask to start sage, but the policy forbids foreman -> sage"),
        ],
        id="wildcards-in-the-policy",
    ),
    pytest.param(
        TEAM,
        '[rules.delegation-policy]\nonly_via = {paynter = ["craftsman"]}\n',
        [("promptc.toml", 1, 1, "the delegation policy names `paynter`, but no agent matches it (did you mean `painter`?)")],
        id="only-via-names-must-exist",
    ),
    pytest.param(
        TEAM,
        '[rules.delegation-policy]\nforbidden = [{from = "formen", to = ["smith"]}]\n',
        [("promptc.toml", 1, 1, "names `formen`, but no agent matches it (did you mean `foreman`?)")],
        id="forbidden-names-must-exist",
    ),
    pytest.param(
        TEAM,
        '[permission]\ntask = "allow"\n' + POLICY,
        [("promptc.toml", 2, 1, "`task: allow`: painter may start painter, but the policy lets only craftsman start painter")],
        id="config-level-permission",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_delegation_policy(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_forbidden_edge_through_the_default_allow(lint: Lint, messages: Messages) -> None:
    foreman = "description: Plans the work and hands out research.\nmode: primary\npermission:\n  task:\n    scout: allow"
    files = {**TEAM, FOREMAN_MD: agent(foreman)}
    found = lint(RULE, files, POLICY)
    assert found == [(FOREMAN_MD, 5, 3, RULE)]
    assert messages(RULE, files, POLICY) == [
        "specs/agents/foreman.md:5:3: error [delegation-policy] foreman may start painter, "
        'smith through OpenCode\'s built-in default `"*": allow`, but the policy forbids '
        "foreman -> painter; it forbids foreman -> smith; it lets only craftsman start painter"
    ]

"""unloadable-skill: skills that no agent of the bundle is allowed to load."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found
from tests.rules.skill_files import A, S, skill, skill_map

RULE = "unloadable-skill"
SKILLS = {S.format("caveman"): skill("caveman"), S.format("review"): skill("review")}


def nobody_may_load(name: str) -> str:
    return (
        f"no agent may load skill `{name}`: every agent's `skill` permission denies it; "
        f"add `{name}: allow` to the agents that need it, or remove the skill"
    )


def loading(*entries: str) -> dict[str, str]:
    """The caveman and review skills, and one agent whose `skill` map holds `entries`."""
    return {A: agent(skill_map(*entries)), **SKILLS}


# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        loading("'*': deny", "caveman: allow"),
        "",
        [(S.format("review"), 2, 7, nobody_may_load("review"))],
        id="docstring-fails",
    ),
    pytest.param(loading("'*': deny", "caveman: allow", "review: allow"), "", [], id="docstring-passes"),
    pytest.param(loading("'*': deny", "caveman: allow", "review: ask"), "", [], id="ask-counts"),
    pytest.param(
        loading("'*': deny", "'re*': allow"), "", [(S.format("caveman"), 2, 7, nobody_may_load("caveman"))], id="pattern"
    ),
    # OpenCode's default "*": allow keeps review.
    pytest.param(
        loading("caveman: deny"), "", [(S.format("caveman"), 2, 7, nobody_may_load("caveman"))], id="default-allow"
    ),
    pytest.param(
        {
            A: agent(skill_map("'*': deny")),
            "specs/agents/b.md": agent(skill_map("'*': deny", "review: allow")),
            S.format("review"): skill("review"),
        },
        "",
        [],
        id="any-agent-counts",
    ),
    pytest.param(
        {
            A: agent(skill_map("'*': deny")),
            "specs/agents/b.md": agent(skill_map("'*': deny", "review: allow") + "\ndisable: true"),
            S.format("review"): skill("review"),
        },
        "",
        [(S.format("review"), 2, 7, nobody_may_load("review"))],
        id="disabled-agents-do-not-count",
    ),
    pytest.param(
        {A: agent("description: Reads the code and reports."), S.format("review"): skill("review")},
        '[permission]\nskill = { "*" = "deny" }\n',
        [(S.format("review"), 2, 7, nobody_may_load("review"))],
        id="config-level-skill-rules",
    ),
    # Without agents, the skills are for OpenCode's own agents.
    pytest.param(SKILLS, "", [], id="no-agents"),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_unloadable_skill(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_is_a_warning(diagnostics: Diagnostics) -> None:
    [found] = diagnostics(RULE, loading("'*': deny", "caveman: allow"))
    assert found.severity.value == "warning"

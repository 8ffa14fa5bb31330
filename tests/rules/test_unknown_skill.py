"""unknown-skill: `skill` permission entries that name a skill that does not exist."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found
from tests.rules.skill_files import A, S, skill, skill_map

RULE = "unknown-skill"
CAVEMAN = {S.format("caveman"): skill("caveman")}
NO_SUCH = "but the bundle has no such skill"


def loading(*entries: str) -> dict[str, str]:
    """The caveman skill, and an agent whose `skill` map holds `entries`."""
    return {A: agent(skill_map(*entries)), **CAVEMAN}


# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        loading("'*': deny", "cavemen: allow"),
        "",
        [
            (
                A,
                7,
                5,
                f"`skill` names `cavemen`, {NO_SUCH} (did you mean `caveman`?); write "
                "specs/skills/cavemen/SKILL.md or, if it is installed elsewhere, list it in "
                "rules.unknown-skill.external",
            )
        ],
        id="docstring-fails",
    ),
    pytest.param(loading("'*': deny", "caveman: allow", "'python-*': allow"), "", [], id="docstring-passes"),
    pytest.param(loading("'*': deny", "'cave*': allow", "'x-*': allow"), "", [], id="patterns-are-not-checked"),
    pytest.param(loading("'*': deny", "customize-opencode: allow"), "", [], id="opencode-built-in"),
    pytest.param(
        loading("'*': deny", "pinia: allow"), "", [(A, 7, 5, f"`skill` names `pinia`, {NO_SUCH}; write")], id="no-suggestion"
    ),
    pytest.param(
        loading("'*': deny", "pinia: allow"), '[rules.unknown-skill]\nexternal = ["pinia"]\n', [], id="external-option"
    ),
    pytest.param(
        loading("'*': allow", "ghost: deny"), "", [(A, 7, 5, f"`skill` names `ghost`, {NO_SUCH}")], id="deny-is-checked-too"
    ),
    pytest.param(
        {A: agent("description: Reads the code and reports."), **CAVEMAN},
        '[permission]\nskill = { "*" = "deny", cavemen = "allow" }\n',
        [("promptc.toml", 2, 25, f"`skill` names `cavemen`, {NO_SUCH} (did you mean `caveman`?)")],
        id="config-level-skill-rules",
    ),
    # A skill folder whose SKILL.md has errors still counts: those are reported already.
    pytest.param(
        {A: agent(skill_map("'*': deny", "broken: allow")), S.format("broken"): "No frontmatter.\n"},
        "",
        [],
        id="a-broken-skill-still-exists",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_unknown_skill(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)

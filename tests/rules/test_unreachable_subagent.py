"""unreachable-subagent: subagents that no primary agent of the bundle can start."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found
from tests.rules.delegation_files import CRAFTSMAN, TEAM, sub

RULE = "unreachable-subagent"
GUILD = "specs/agents/guild.md"
WITH_GUILD = {**TEAM, GUILD: sub("Debates from several perspectives.")}
UNREACHABLE = "no primary agent can start subagent `guild` through the task tool (primaries: craftsman, foreman)"

# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples: no primary allows painter, then craftsman does.
    pytest.param(
        {**TEAM, "specs/agents/craftsman.md": agent(CRAFTSMAN.replace("    painter: allow\n", ""))},
        "",
        [("specs/agents/painter.md", 3, 1, "no primary agent can start subagent `painter`")],
        id="docstring-fails",
    ),
    # foreman's `sage: ask` is sage's only way in, and counts: the user can approve it.
    pytest.param(TEAM, "", [], id="docstring-passes-and-ask-counts"),
    pytest.param(WITH_GUILD, "", [(GUILD, 3, 1, UNREACHABLE)], id="unreachable"),
    pytest.param(WITH_GUILD, '[rules.unreachable-subagent]\nignore = ["guild"]\n', [], id="ignore-option"),
    pytest.param(WITH_GUILD, '[rules.unreachable-subagent]\nignore = ["gui*"]\n', [], id="ignore-a-pattern"),
    # Without a primary of its own, the bundle relies on OpenCode's build and plan.
    pytest.param({GUILD: sub("Debates from several perspectives.")}, "", [], id="no-primary-in-the-bundle"),
    # A primary without task rules may start everyone (OpenCode's default allow).
    pytest.param(
        {"specs/agents/boss.md": agent("description: Plans the work for the whole team.\nmode: primary"), GUILD: sub("Debates from several perspectives.")},
        "",
        [],
        id="primary-with-the-default-allow",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_unreachable_subagent(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_hint_names_the_way_in(diagnostics: Diagnostics) -> None:
    [found] = diagnostics(RULE, WITH_GUILD)
    assert found.hint is not None
    assert "list it in this rule's `ignore` option" in found.hint
    assert found.severity.value == "warning"

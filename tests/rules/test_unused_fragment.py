"""unused-fragment: fragments no agent or mode includes, directly or through another fragment."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found

RULE = "unused-fragment"
A = "specs/agents/a.md"
DESCRIPTION = "description: Reviews diffs for bugs and missing tests."
UNUSED = "is not used by any agent or mode"
MODE = "---\ndescription: Fixes what the user asks for now.\n---\n<<steps>>\n$ARGUMENTS\n"

# (files, config, expected)
CASES = [
    pytest.param(
        {A: agent(DESCRIPTION), "fragments/lonely.md": "Sola.\n"},
        "",
        [("fragments/lonely.md", 1, 1, f"fragment 'lonely' {UNUSED}")],
        id="unused",
    ),
    pytest.param(
        {A: agent(DESCRIPTION, "<<tone>>\n"), "fragments/tone.md": "Tono.\n"},
        "",
        [],
        id="used-by-an-agent",
    ),
    pytest.param(
        {A: agent(DESCRIPTION), "specs/modes/fix.md": MODE, "fragments/steps.md": "Pasos.\n"},
        "",
        [],
        id="used-by-a-mode",
    ),
    pytest.param(
        {
            A: agent(DESCRIPTION, "<<outer>>\n"),
            "fragments/outer.md": "Fuera <<inner>>\n",
            "fragments/inner.md": "Dentro.\n",
        },
        "",
        [],
        id="used-through-another-fragment",
    ),
    pytest.param(
        {A: agent(DESCRIPTION), "fragments/a.md": "<<b>>\n", "fragments/b.md": "B.\n"},
        "",
        [
            ("fragments/a.md", 1, 1, f"fragment 'a' {UNUSED}"),
            ("fragments/b.md", 1, 1, f"fragment 'b' {UNUSED}"),
        ],
        id="included-only-by-an-unused-fragment",
    ),
    pytest.param(
        {A: agent(DESCRIPTION), "fragments/flow/build/plan.md": "Planifica.\n"},
        "",
        [("fragments/flow/build/plan.md", 1, 1, f"fragment 'flow_build_plan' {UNUSED}")],
        id="nested-fragment-by-its-name",
    ),
    pytest.param(
        {
            A: agent(DESCRIPTION, '<% if target == "claude" %>\n<<claude>>\n<% endif %>\nX\n'),
            "fragments/claude.md": "Solo Claude.\n",
        },
        "",
        [],
        id="used-for-another-target",
    ),
    pytest.param(
        {
            A: agent(DESCRIPTION),
            "fragments/lonely.md": "Sola.\n",
            "fragments/flow/build/plan.md": "Planifica.\n",
            "fragments/other.md": "Otra.\n",
        },
        '[rules.unused-fragment]\nignore = ["lonely", "flow_build_plan"]\n',
        [("fragments/other.md", 1, 1, f"fragment 'other' {UNUSED}")],
        id="ignore-option",
    ),
]


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_unused_fragment(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_a_fragment_that_cannot_be_read_is_reported_once(diagnostics: Diagnostics) -> None:
    # Not valid UTF-8: the syntax stage reports it, this rule does not add a second line.
    files = {A: agent(DESCRIPTION), "fragments/broken.md": b"caf\xe9 solo.\n"}
    assert diagnostics(RULE, files) == []
    assert [d.path for d in diagnostics("syntax", files)] == ["fragments/broken.md"]


def test_is_a_warning(diagnostics: Diagnostics) -> None:
    [found] = diagnostics(RULE, {A: agent(DESCRIPTION), "fragments/lonely.md": "Sola.\n"})
    assert found.severity.value == "warning"

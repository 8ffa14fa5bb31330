"""skill-levels: a snippet's levels are levels its skill defines."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found
from tests.rules.skill_files import A, S, skill

RULE = "skill-levels"
CAVEMAN_SKILL = S.format("caveman")
CAVEMAN = "fragments/caveman.md"
# `enum` values stand at line 5 (columns 18, 24 and 24 for lite, full, ultra); `default` at 6:14.
FRAGMENT = (
    "---\nparams:\n  level:\n    type: string\n    enum: [lite, full, ultra]\n"
    "    default: full\n---\nNivel <<level>>.\n"
)
ON = '[rules.skill-levels]\nfragment = "caveman"\n'


def levels(declared: str) -> str:
    """The caveman skill declaring `declared` as its levels."""
    return skill("caveman", f'metadata:\n  levels: "{declared}"\n')


def bundle(skill_file: str, fragment: str = FRAGMENT, name: str = "caveman") -> dict[str, str]:
    """An agent carrying the `name` fragment, that fragment, and the caveman skill."""
    return {
        A: agent("description: Reads the code and reports.\nmode: subagent", f"<<{name}>>\n"),
        CAVEMAN_SKILL: skill_file,
        f"fragments/{name}.md": fragment,
    }


def not_defined(level: str, defined: str) -> str:
    return f"level `{level}` is not one skill `caveman` defines (specs/skills/caveman/SKILL.md: {defined})"


# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(bundle(levels("lite full")), ON, [(CAVEMAN, 5, 24, not_defined("ultra", "lite, full"))], id="docstring-fails"),
    pytest.param(
        bundle(levels("lite full"), FRAGMENT.replace("lite, full, ultra", "lite, full")), ON, [], id="docstring-passes"
    ),
    pytest.param(bundle(levels("lite full ultra")), ON, [], id="every-level-defined"),
    pytest.param(
        bundle(levels("lite ultra")), ON, [(CAVEMAN, 5, 18, not_defined("full", "lite, ultra"))], id="enum-and-default"
    ),
    pytest.param(
        bundle(levels("lite full ultra")),
        ON + '\n[rules.required-snippet]\nfragment = "caveman"\nparams = {level = "mega"}\n',
        [("promptc.toml", 6, 11, not_defined("mega", "lite, full, ultra"))],
        id="required-snippet-params",
    ),
    pytest.param(
        bundle(levels("lite full ultra")),
        ON + '\n[rules.required-snippet]\nfragment = "caveman"\nallowed = {level = ["full", "mega"]}\n',
        [("promptc.toml", 6, 12, not_defined("mega", "lite, full, ultra"))],
        id="required-snippet-allowed",
    ),
    pytest.param(
        bundle(skill("caveman", "metadata:\n  other: x\n")),
        ON,
        [(CAVEMAN_SKILL, 4, 1, 'skill `caveman` declares no levels: add `metadata: {levels: "..."}`')],
        id="skill-declares-no-levels",
    ),
    pytest.param(
        bundle(levels("lite full"), name="tone"),
        '[rules.skill-levels]\nfragment = "tone"\nskill = "caveman"\n',
        [("fragments/tone.md", 5, 24, not_defined("ultra", "lite, full"))],
        id="skill-option",
    ),
    pytest.param(
        bundle(levels("lite full"), FRAGMENT.replace("level", "nivel")),
        ON + 'param = "nivel"\n',
        [(CAVEMAN, 5, 24, not_defined("ultra", "lite, full"))],
        id="param-option",
    ),
    pytest.param(
        bundle(levels("lite full")),
        ON + 'param = "nivel"\n',
        [(CAVEMAN, 1, 1, "fragment has no parameter `nivel`")],
        id="param-the-fragment-lacks",
    ),
    pytest.param(
        bundle(levels("lite full"), name="tone"),
        '[rules.skill-levels]\nfragment = "tone"\n',
        [("promptc.toml", 1, 1, "skill `tone` does not exist")],
        id="no-such-skill",
    ),
    pytest.param(
        {A: agent("description: Reads the code and reports.")},
        '[rules.skill-levels]\nfragment = "tone"\n',
        [("promptc.toml", 2, 1, "fragment `tone` does not exist")],
        id="no-such-fragment",
    ),
    # Off until `fragment` names a fragment.
    pytest.param(bundle(levels("lite")), "", [], id="off-by-default"),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_skill_levels(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)

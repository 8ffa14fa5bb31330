"""skill-name: skill names a runtime would not find, or would find twice."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, Messages, agent, assert_found
from tests.rules.skill_files import A, S, skill

RULE = "skill-name"
AGENT = {A: agent("description: Reads the code and reports.")}
TWO_NAMES = "Claude Code would call it by the folder name, OpenCode by `name`; make them equal"

# (skill and mode files, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        {S.format("code-review"): skill("review")},
        [(S.format("code-review"), 2, 7, f"`name` is `review` but the folder is `code-review`: {TWO_NAMES}")],
        id="docstring-fails",
    ),
    pytest.param({S.format("review"): skill("review")}, [], id="docstring-passes"),
    pytest.param(
        {S.format("Review"): skill("review")},
        [(S.format("Review"), 2, 7, "folder name `Review` is not a skill name: use 1-64 lowercase letters, digits and single hyphens")],
        id="folder-is-no-skill-name",
    ),
    pytest.param(
        {S.format("a"): skill("a"), S.format("b"): skill("a")},
        [(S.format("b"), 2, 7, "`name` is `a` but the folder is `b`")],
        id="two-skills-one-name",
    ),
    pytest.param(
        {S.format("Review"): skill("Review"), S.format("review"): skill("review")},
        [
            (S.format("Review"), 2, 7, "folder name `Review` is not a skill name"),
            (S.format("review"), 2, 7, "skill name `review` is also the name of specs/skills/Review/SKILL.md; rename one"),
        ],
        id="names-differing-only-in-case",
    ),
    pytest.param(
        {S.format("build"): skill("build"), "specs/modes/build.md": "---\ndescription: B.\n---\nB\n"},
        [(S.format("build"), 2, 7, "skill `build` has the name of the mode `build`: Claude Code lists both as `/build`")],
        id="named-like-a-mode",
    ),
    pytest.param(
        {S.format("customize-opencode"): skill("customize-opencode")},
        [(S.format("customize-opencode"), 2, 7, "`customize-opencode` is OpenCode's built-in skill; pick another name")],
        id="opencode-built-in",
    ),
    pytest.param({S.format("a"): skill("a")}, [], id="a-skill-may-share-an-agent-s-name"),
]  # fmt: skip


@pytest.mark.parametrize(("files", "expected"), CASES)
def test_skill_name(diagnostics: Diagnostics, files: dict[str, str], expected: Expected) -> None:
    assert_found(diagnostics(RULE, {**AGENT, **files}), RULE, expected)


def test_every_finding_about_one_name_in_one_message(messages: Messages) -> None:
    files = {S.format("a"): skill("a"), S.format("b"): skill("a")}
    assert messages(RULE, files) == [
        "specs/skills/b/SKILL.md:2:7: error [skill-name] `name` is `a` but the folder is `b`: "
        "Claude Code would call it by the folder name, OpenCode by `name`; make them equal; "
        "skill name `a` is also the name of specs/skills/a/SKILL.md; rename one"
    ]

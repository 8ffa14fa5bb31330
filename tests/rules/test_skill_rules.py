"""skill-name, unknown-skill, unloadable-skill and skill-levels: (path, line, column, rule) tables."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Lint, agent


def skill(name: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: A skill for the tests.\n{extra}---\nBody.\n"


def skill_map(*entries: str) -> str:
    lines = "\n".join(f"    {e}" for e in entries)
    return (
        f"description: Reads the code and reports.\nmode: subagent\npermission:\n  skill:\n{lines}"
    )


A = "specs/agents/a.md"
S = "specs/skills/{}/SKILL.md"

NAMES = [
    ({S.format("review"): skill("review")}, []),
    ({S.format("code-review"): skill("review")}, [(S.format("code-review"), 2, 7)]),
    ({S.format("Review"): skill("review")}, [(S.format("Review"), 2, 7)]),
    (
        {S.format("a"): skill("a"), S.format("b"): skill("a")},
        [(S.format("b"), 2, 7)],
    ),
    (
        {
            S.format("build"): skill("build"),
            "specs/modes/build.md": "---\ndescription: B.\n---\nB\n",
        },
        [(S.format("build"), 2, 7)],
    ),
    (
        {S.format("customize-opencode"): skill("customize-opencode")},
        [(S.format("customize-opencode"), 2, 7)],
    ),
]


@pytest.mark.parametrize(("files", "expected"), NAMES)
def test_skill_name(
    lint: Lint, files: dict[str, str], expected: list[tuple[str, int, int]]
) -> None:
    found = lint("skill-name", {A: agent("description: Reads the code and reports."), **files})
    assert found == [(path, line, col, "skill-name") for path, line, col in expected]


UNKNOWN = [
    (("'*': deny", "caveman: allow"), "", []),
    (("'*': deny", "cavemen: allow"), "", [(7, 5)]),
    (("'*': deny", "'cave*': allow", "'x-*': allow"), "", []),
    (("'*': deny", "customize-opencode: allow"), "", []),
    (("'*': deny", "pinia: allow"), "", [(7, 5)]),
    (("'*': deny", "pinia: allow"), '[rules.unknown-skill]\nexternal = ["pinia"]\n', []),
    (("'*': allow", "ghost: deny"), "", [(7, 5)]),
]


@pytest.mark.parametrize(("entries", "config", "expected"), UNKNOWN)
def test_unknown_skill(
    lint: Lint, entries: tuple[str, ...], config: str, expected: list[tuple[int, int]]
) -> None:
    files = {A: agent(skill_map(*entries)), S.format("caveman"): skill("caveman")}
    found = lint("unknown-skill", files, config)
    assert found == [(A, line, col, "unknown-skill") for line, col in expected]


UNLOADABLE = [
    (("'*': deny", "caveman: allow"), [(S.format("review"), 2, 7)]),
    (("'*': deny", "caveman: allow", "review: ask"), []),
    (("'*': deny", "'re*': allow"), [(S.format("caveman"), 2, 7)]),
    (("caveman: deny",), [(S.format("caveman"), 2, 7)]),  # the default "*": allow keeps review
]


@pytest.mark.parametrize(("entries", "expected"), UNLOADABLE)
def test_unloadable_skill(
    lint: Lint, entries: tuple[str, ...], expected: list[tuple[str, int, int]]
) -> None:
    files = {
        A: agent(skill_map(*entries)),
        S.format("caveman"): skill("caveman"),
        S.format("review"): skill("review"),
    }
    found = lint("unloadable-skill", files)
    assert found == [(path, line, col, "unloadable-skill") for path, line, col in expected]


def test_unloadable_skill_counts_any_agent(lint: Lint) -> None:
    files = {
        A: agent(skill_map("'*': deny")),
        "specs/agents/b.md": agent(skill_map("'*': deny", "review: allow")),
        S.format("review"): skill("review"),
    }
    assert lint("unloadable-skill", files) == []


FRAGMENT = (
    "---\nparams:\n  level:\n    type: string\n    enum: [lite, full, ultra]\n"
    "    default: full\n---\nNivel <<level>>.\n"
)
LEVELS = [
    ('  levels: "lite full ultra"\n', "", []),
    ('  levels: "lite full"\n', "", [("fragments/caveman.md", 5, 24)]),
    (
        '  levels: "lite full ultra"\n',
        '[rules.required-snippet]\nfragment = "caveman"\nparams = {level = "mega"}\n',
        [("promptc.toml", 6, 11)],
    ),
    ("  other: x\n", "", [(S.format("caveman"), 4, 1)]),
]


@pytest.mark.parametrize(("levels", "extra", "expected"), LEVELS)
def test_skill_levels(
    lint: Lint, levels: str, extra: str, expected: list[tuple[str, int, int]]
) -> None:
    files = {
        A: agent("description: Reads the code and reports.\nmode: subagent", "<<caveman>>\n"),
        S.format("caveman"): skill("caveman", f"metadata:\n{levels}"),
        "fragments/caveman.md": FRAGMENT,
    }
    config = f'[rules.skill-levels]\nfragment = "caveman"\n\n{extra}'
    found = lint("skill-levels", files, config)
    assert found == [(path, line, col, "skill-levels") for path, line, col in expected]


def test_skill_levels_is_off_by_default(lint: Lint) -> None:
    files = {S.format("caveman"): skill("caveman"), "fragments/caveman.md": FRAGMENT}
    assert lint("skill-levels", files) == []


def test_skill_name_messages(messages) -> None:  # type: ignore[no-untyped-def]
    files = {S.format("a"): skill("a"), S.format("b"): skill("a")}
    assert messages("skill-name", files) == [
        "specs/skills/b/SKILL.md:2:7: error [skill-name] `name` is `a` but the folder is `b`: "
        "Claude Code would call it by the folder name, OpenCode by `name`; make them equal; "
        "skill name `a` is also the name of specs/skills/a/SKILL.md; rename one"
    ]

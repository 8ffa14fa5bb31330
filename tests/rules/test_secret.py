"""secret: min_entropy, and the places a secret is looked for."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Lint

RULE = "secret"
A = "specs/agents/a.md"
HEAD = "---\ndescription: Deploys the service to the staging cluster.\n---\n"


@pytest.mark.parametrize(
    ("value", "config", "reported"),
    [
        ("Xk92mPq7Lr4tZw", "", True),
        ("Xk92mPq7Lr4tZw", "[rules.secret]\nmin_entropy = 4.5\n", False),
        ("aaaa1111aaaa1111", "", False),
        ("$DB_PASSWORD", "", False),
        ("your-password-1", "", False),
    ],
)
def test_assigned_values(lint: Lint, value: str, config: str, reported: bool) -> None:
    found = lint(RULE, {A: HEAD + f"DB_PASSWORD={value}\n"}, config)
    assert found == ([(A, 4, 13, RULE)] if reported else [])


SKILL = "---\nname: deploy\ndescription: Deploys the service.\n---\nLee `env.sh`.\n"


def test_a_skill_supporting_file_is_read(lint: Lint) -> None:
    key = "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
    files = {
        "specs/skills/deploy/SKILL.md": SKILL,
        "specs/skills/deploy/env.sh": f"export GITHUB_TOKEN={key}\n",
    }
    assert lint(RULE, files) == [("specs/skills/deploy/env.sh", 1, 21, RULE)]


def test_a_skill_supporting_file_that_reads_the_secret_from_the_environment_passes(
    lint: Lint,
) -> None:
    files = {
        "specs/skills/deploy/SKILL.md": SKILL,
        "specs/skills/deploy/env.sh": 'export GITHUB_TOKEN="${GITHUB_TOKEN:?set it first}"\n',
    }
    assert lint(RULE, files) == []


PLACES = [
    ("specs/modes/deploy.md", "---\ndescription: Deploys.\n---\nToken: {key}\n", 4),
    (
        "specs/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploys the service.\n---\nUsa {key}.\n",
        5,
    ),
    ("fragments/ops.md", "Despliegue.\nUsa {key}.\n", 2),
]


@pytest.mark.parametrize(("path", "text", "line"), PLACES)
def test_modes_skills_and_fragments_are_read(lint: Lint, path: str, text: str, line: int) -> None:
    key = "sk-ant-api03-" + "Q9x2Lm7Kp4Rt1Nw8Yc3Bd6Fg0Hj5Ts2Ue9Vi4Wo7Ay1Z"
    found = lint(RULE, {path: text.format(key=key)})
    assert [(p, n) for p, n, _, _ in found] == [(path, line)]


@pytest.mark.parametrize(("path", "text"), [place[:2] for place in PLACES])
def test_modes_skills_and_fragments_naming_the_variable_pass(
    lint: Lint, path: str, text: str
) -> None:
    """The same places naming the variable that holds the key, not the key."""
    assert lint(RULE, {path: text.format(key="$ANTHROPIC_API_KEY")}) == []

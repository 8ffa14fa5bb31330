"""home-path: hard-coded home folders and home shorthands OpenCode reads otherwise."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, Lint, agent, assert_found

A = "specs/agents/a.md"
RULE = "home-path"

CASES = [
    ("/home/alice/notes/*", True),
    ("/Users/bob/notes/*", True),
    ("/root/.config/*", True),
    ("C:\\\\Users\\\\carol\\\\*", True),
    ("~alice/notes/*", True),
    ("${HOME}/notes/*", True),
    ("$HOMEnotes/*", True),
    ("~/notes/*", False),
    ("~", False),
    ("$HOME/notes/*", False),
    ("/home/*", False),
    ("/srv/shared/*", False),
    ("/tmp/*", False),
]


@pytest.mark.parametrize(("pattern", "reported"), CASES)
def test_home_path(lint: Lint, pattern: str, reported: bool) -> None:
    front = f'description: Reads outside the project.\npermission:\n  external_directory:\n    "{pattern}": allow'
    found = lint(RULE, {A: agent(front)})
    assert found == ([(A, 5, 5, RULE)] if reported else [])


def test_config_level_and_other_keys(lint: Lint) -> None:
    front = "description: Reads outside the project.\npermission:\n  read:\n    '/home/al/x': deny"
    config = '[permission]\nexternal_directory = { "/Users/al/*" = "allow" }\n'
    found = lint(RULE, {A: agent(front)}, config)
    assert found == [("promptc.toml", 2, 24, RULE), (A, 5, 5, RULE)]


def test_config_level_and_other_keys_in_the_portable_form_pass(lint: Lint) -> None:
    front = "description: Reads outside the project.\npermission:\n  read:\n    '~/x': deny"
    config = '[permission]\nexternal_directory = { "$HOME/notes/*" = "allow" }\n'
    assert lint(RULE, {A: agent(front)}, config) == []


def test_hint_suggests_the_portable_form(diagnostics: Diagnostics) -> None:
    front = "description: Reads outside the project.\npermission:\n  external_directory:\n    '/home/alice/notes/*': allow"
    [found] = diagnostics(RULE, {A: agent(front)})
    assert found.hint == 'write "~/notes/*" instead; OpenCode expands `~` to the home folder'


# The docstring's examples, then each surprise of OpenCode's prefix expansion.
MESSAGE_CASES = [
    pytest.param(
        "/home/alice/notes/*",
        [(A, 5, 5, "`/home/alice/notes/*` names the home folder `/home/alice`: it only works for that user on that machine")],
        id="docstring-fails",
    ),
    pytest.param("~/notes/*", [], id="docstring-passes"),
    pytest.param(
        "~alice/notes/*",
        [(A, 5, 5, "`~alice/notes/*` is not expanded: OpenCode expands only `~` and `~/`")],
        id="tilde-user",
    ),
    pytest.param(
        "${HOME}/x",
        [(A, 5, 5, "`${HOME}/x` is not expanded: OpenCode expands only `$HOME`, not `${HOME}`")],
        id="braced-home",
    ),
    pytest.param(
        "$HOMEwork/*",
        [(A, 5, 5, "`$HOMEwork/*` becomes `<home>` followed directly by the rest")],
        id="home-without-a-slash",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("pattern", "expected"), MESSAGE_CASES)
def test_messages(diagnostics: Diagnostics, pattern: str, expected: Expected) -> None:
    front = f'description: Reads outside the project.\npermission:\n  external_directory:\n    "{pattern}": allow'
    assert_found(diagnostics(RULE, {A: agent(front)}), RULE, expected)

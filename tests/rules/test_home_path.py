"""home-path: hard-coded home folders and home shorthands OpenCode reads otherwise."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Lint, agent

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


def test_hint_suggests_the_portable_form(make_bundle) -> None:  # type: ignore[no-untyped-def]
    from compiler import api
    from compiler.config import load_config

    front = "description: Reads outside the project.\npermission:\n  external_directory:\n    '/home/alice/notes/*': allow"
    make_bundle({"promptc.toml": "", A: agent(front)})
    [found] = [d for d in api.lint(load_config()).diagnostics if d.rule == RULE]
    assert found.hint == 'write "~/notes/*" instead; OpenCode expands `~` to the home folder'

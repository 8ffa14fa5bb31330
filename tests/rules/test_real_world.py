"""Every permission mistake listed in shared/reference/real-world.md is caught.

Each case is the mistake as real bundles write it, the (line, column, rule)
promptc reports for it, and the same agent written right, which that rule
leaves alone.
"""

from __future__ import annotations

import pytest

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from tests.conftest import MakeBundle
from tests.rules.conftest import agent

A = "specs/agents/a.md"
SUB = agent("description: A subagent someone may start.\nmode: subagent")

CASES = [
    pytest.param(
        # `permissions:` (plural) used as if it were `permission:`: ignored by OpenCode.
        'description: Reviews diffs for missing tests.\npermissions:\n  bash:\n    "sudo *": deny\n    "**/*.env*": deny',
        (3, 1, "key-typo"),
        'description: Reviews diffs for missing tests.\npermission:\n  bash:\n    "*": ask\n    "sudo *": deny',
        id="plural-permissions",
    ),
    pytest.param(
        # Catch-all placed last: every earlier rule is dead.
        'description: Searches the tree with rg and find.\npermission:\n  bash:\n    "rg *": allow\n    "find *": allow\n    "*": deny',
        (5, 5, "shadowed-rule"),
        'description: Searches the tree with rg and find.\npermission:\n  bash:\n    "*": deny\n    "rg *": allow\n    "find *": allow',
        id="catch-all-last",
    ),
    pytest.param(
        # task used as an allow-list without "*": deny.
        "description: Delegates to a subagent it names.\nmode: primary\npermission:\n  task:\n    sub: allow",
        (5, 3, "missing-catch-all"),
        'description: Delegates to a subagent it names.\nmode: primary\npermission:\n  task:\n    "*": deny\n    sub: allow',
        id="task-allow-list",
    ),
    pytest.param(
        # `write:` entries: OpenCode has no write permission.
        "description: Must never change files at all.\npermission:\n  write: deny",
        (4, 3, "unknown-permission"),
        "description: Must never change files at all.\npermission:\n  edit: deny",
        id="write-key",
    ),
    pytest.param(
        # Hard-coded absolute home path in external_directory.
        'description: Reads the shared notes folder too.\npermission:\n  external_directory:\n    "/Users/jdoe/notes/*": allow',
        (5, 5, "home-path"),
        'description: Reads the shared notes folder too.\npermission:\n  external_directory:\n    "~/notes/*": allow',
        id="home-path",
    ),
    pytest.param(
        # A template placeholder used as a permission key.
        "description: Generated from a template by a script.\npermission:\n  '__OPENCODE_PROTOCOL_PATH_YAML__': allow",
        (4, 3, "unknown-permission"),
        "description: Generated from a template by a script.\npermission:\n  read: allow",
        id="placeholder-key",
    ),
    pytest.param(
        # Invented keys.
        "description: Writes files and runs commands.\npermission:\n  file_write: allow",
        (4, 3, "unknown-permission"),
        "description: Writes files and runs commands.\npermission:\n  edit: allow",
        id="invented-file-write",
    ),
    pytest.param(
        "description: Writes files and runs commands.\npermission:\n  bash_execution: ask",
        (4, 3, "unknown-permission"),
        "description: Writes files and runs commands.\npermission:\n  bash: ask",
        id="invented-bash-execution",
    ),
]


def found_in(make_bundle: MakeBundle, front: str) -> set[tuple[int, int, str]]:
    """(line, column, rule) of everything reported in the agent written with `front`."""
    make_bundle({"promptc.toml": "", A: agent(front), "specs/agents/sub.md": SUB})
    return {(d.line, d.column, d.rule) for d in api.lint(load_config()).diagnostics if d.path == A}


@pytest.mark.parametrize(
    ("front", "expected"), [pytest.param(*c.values[:2], id=c.id) for c in CASES]
)
def test_real_world_mistake_is_caught(
    make_bundle: MakeBundle, front: str, expected: tuple[int, int, str]
) -> None:
    assert expected in found_in(make_bundle, front)


@pytest.mark.parametrize(
    ("fixed", "expected"), [pytest.param(c.values[2], c.values[1], id=c.id) for c in CASES]
)
def test_the_mistake_written_right_is_not_reported(
    make_bundle: MakeBundle, fixed: str, expected: tuple[int, int, str]
) -> None:
    rule = expected[2]
    assert [f for f in found_in(make_bundle, fixed) if f[2] == rule] == []

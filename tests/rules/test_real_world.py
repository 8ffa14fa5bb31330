"""Every permission mistake listed in shared/reference/real-world.md is caught.

Each case is the mistake as real bundles write it, and the (line, column, rule)
promptc reports for it.
"""

from __future__ import annotations

import pytest

from tests.conftest import MakeBundle
from tests.rules.conftest import agent

A = "specs/agents/a.md"
SUB = agent("description: A subagent someone may start.\nmode: subagent")

CASES = [
    pytest.param(
        # `permissions:` (plural) used as if it were `permission:`: ignored by OpenCode.
        'description: Reviews diffs for missing tests.\npermissions:\n  bash:\n    "sudo *": deny\n    "**/*.env*": deny',
        (3, 1, "key-typo"),
        id="plural-permissions",
    ),
    pytest.param(
        # Catch-all placed last: every earlier rule is dead.
        'description: Searches the tree with rg and find.\npermission:\n  bash:\n    "rg *": allow\n    "find *": allow\n    "*": deny',
        (5, 5, "shadowed-rule"),
        id="catch-all-last",
    ),
    pytest.param(
        # task used as an allow-list without "*": deny.
        "description: Delegates to a subagent it names.\nmode: primary\npermission:\n  task:\n    sub: allow",
        (5, 3, "missing-catch-all"),
        id="task-allow-list",
    ),
    pytest.param(
        # `write:` entries: OpenCode has no write permission.
        "description: Must never change files at all.\npermission:\n  write: deny",
        (4, 3, "unknown-permission"),
        id="write-key",
    ),
    pytest.param(
        # Hard-coded absolute home path in external_directory.
        'description: Reads the shared notes folder too.\npermission:\n  external_directory:\n    "/Users/jdoe/notes/*": allow',
        (5, 5, "home-path"),
        id="home-path",
    ),
    pytest.param(
        # A template placeholder used as a permission key.
        "description: Generated from a template by a script.\npermission:\n  '__OPENCODE_PROTOCOL_PATH_YAML__': allow",
        (4, 3, "unknown-permission"),
        id="placeholder-key",
    ),
    pytest.param(
        # Invented keys.
        "description: Writes files and runs commands.\npermission:\n  file_write: allow",
        (4, 3, "unknown-permission"),
        id="invented-file-write",
    ),
    pytest.param(
        "description: Writes files and runs commands.\npermission:\n  bash_execution: ask",
        (4, 3, "unknown-permission"),
        id="invented-bash-execution",
    ),
]


@pytest.mark.parametrize(("front", "expected"), CASES)
def test_real_world_mistake_is_caught(
    make_bundle: MakeBundle, front: str, expected: tuple[int, int, str]
) -> None:
    from promptc_compiler import api
    from promptc_compiler.core.config import load_config

    make_bundle({"promptc.toml": "", A: agent(front), "specs/agents/sub.md": SUB})
    found = {(d.line, d.column, d.rule) for d in api.lint(load_config()).diagnostics if d.path == A}
    assert expected in found

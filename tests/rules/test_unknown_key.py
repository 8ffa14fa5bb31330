"""unknown-key: agent keys OpenCode does not know and sends to the model provider."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, agent, assert_found

RULE = "unknown-key"
A = "specs/agents/a.md"
DESCRIPTION = "description: Reviews diffs for bugs and missing tests.\n"
MOVED = "is not an OpenCode agent key: OpenCode moves it into `options`, which are sent to the model provider"

# (frontmatter after the description, promptc.toml, each (line, column, words) reported)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        "category: review\n",
        "",
        [(3, 1, f"'category' {MOVED}. Remove it, or nest it under `options:` if the provider expects it")],
        id="docstring-fails",
    ),
    pytest.param("options:\n  reasoningEffort: high\n", "", [], id="docstring-passes"),
    pytest.param(
        "version: 2\ntags: [a, b]\nlast_updated: 2026-01-13\n",
        "",
        [(3, 1, f"'version' {MOVED}"), (4, 1, f"'tags' {MOVED}"), (5, 1, f"'last_updated' {MOVED}")],
        id="metadata-keys",
    ),
    pytest.param(
        "targets:\n  opencode:\n    category: x\n  claude:\n    category: y\n",
        "",
        [(5, 5, f"'category' in $.targets.opencode {MOVED}")],
        id="targets-opencode-only",
    ),
    pytest.param(
        "targets:\n  opencode:\n    targets: {}\n",
        "",
        [(5, 5, f"'targets' in $.targets.opencode {MOVED}")],
        id="targets-inside-targets",
    ),
    pytest.param(
        "category: review\nversion: 2\n",
        '[rules.unknown-key]\naccept = ["category"]\n',
        [(4, 1, f"'version' {MOVED}")],
        id="accept-option",
    ),
    pytest.param(
        "targets:\n  opencode:\n    category: x\n",
        '[rules.unknown-key]\naccept = ["category"]\n',
        [],
        id="accept-option-in-targets-opencode",
    ),
    # A slip of a known key is key-typo's; a Claude Code key, cross-ecosystem's.
    pytest.param("permisson: {}\ntemprature: 0.2\n", "", [], id="near-misses"),
    pytest.param("maxTurns: 3\nallowed-tools: Read\n", "", [], id="claude-keys"),
    pytest.param("mode: subagent\ntemperature: 0.2\nsteps: 4\n", "", [], id="known-keys"),
]  # fmt: skip


@pytest.mark.parametrize(("front", "config", "expected"), CASES)
def test_unknown_key(
    diagnostics: Diagnostics, front: str, config: str, expected: list[tuple[int, int, str]]
) -> None:
    found = diagnostics(RULE, {A: agent(DESCRIPTION + front)}, config)
    assert_found(found, RULE, [(A, line, column, words) for line, column, words in expected])


def test_is_a_warning(diagnostics: Diagnostics) -> None:
    [found] = diagnostics(RULE, {A: agent(DESCRIPTION + "category: review\n")})
    assert found.severity.value == "warning"

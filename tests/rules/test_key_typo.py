"""key-typo: agent keys that are a slip of an OpenCode key, whose setting OpenCode loses."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, agent, assert_found

RULE = "key-typo"
A = "specs/agents/a.md"
DESCRIPTION = "description: Reviews diffs for bugs and missing tests.\n"
PERMISSION_LOST = "none of its rules apply and every tool keeps OpenCode's default (allow)"

# (frontmatter after the description, each (line, column, words) reported)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        "permisson:\n  edit: deny\n",
        [(3, 1, f"unknown key 'permisson' (did you mean `permission`?): OpenCode moves it into `options`, so {PERMISSION_LOST}")],
        id="docstring-fails",
    ),
    pytest.param("permission:\n  edit: deny\n", [], id="docstring-passes"),
    pytest.param(
        "permissions:\n  edit: deny\n",
        [(3, 1, "unknown key 'permissions' (did you mean `permission`?)")],
        id="plural",
    ),
    pytest.param(
        "permision:\n  edit: deny\n",
        [(3, 1, "unknown key 'permision' (did you mean `permission`?)")],
        id="one-letter-missing",
    ),
    pytest.param(
        "temprature: 0.2\n",
        [(3, 1, "unknown key 'temprature' (did you mean `temperature`?): OpenCode moves it into `options`, so `temperature` keeps its default")],
        id="temperature",
    ),
    pytest.param(
        "mdoe: subagent\n",
        [(3, 1, "(did you mean `mode`?): OpenCode moves it into `options`, so the agent keeps the default mode `all`")],
        id="mode",
    ),
    pytest.param(
        "targts: {}\n",
        [(3, 1, "unknown key 'targts' (did you mean `targets`?): promptc applies none of these overrides")],
        id="targets",
    ),
    pytest.param("top-p: 0.3\n", [(3, 1, "(did you mean `top_p`?)")], id="hyphen-for-underscore"),
    pytest.param("colour: '#ffffff'\n", [(3, 1, "(did you mean `color`?)")], id="british-spelling"),
    pytest.param(
        "targets:\n  opencode:\n    permisson: {edit: deny}\n",
        [(5, 5, "unknown key 'permisson' in $.targets.opencode (did you mean `permission`?)")],
        id="targets-opencode",
    ),
    # Not near a known key: unknown-key's; a Claude Code key: cross-ecosystem's.
    pytest.param("category: review\nversion: 2\n", [], id="invented-keys"),
    pytest.param("maxTurns: 3\npermissionMode: plan\n", [], id="claude-keys"),
    pytest.param("targets:\n  claude:\n    permisson: x\n", [], id="targets-claude-is-not-checked"),
]  # fmt: skip


@pytest.mark.parametrize(("front", "expected"), CASES)
def test_key_typo(
    diagnostics: Diagnostics, front: str, expected: list[tuple[int, int, str]]
) -> None:
    found = diagnostics(RULE, {A: agent(DESCRIPTION + front)})
    assert_found(found, RULE, [(A, line, column, words) for line, column, words in expected])


def test_a_slip_never_names_a_key_the_agent_has(diagnostics: Diagnostics) -> None:
    # `modle` is one edit from `mode` and from `model`; the agent has `mode`.
    files = {A: agent(DESCRIPTION + "mode: subagent\nmodle: anthropic/claude-sonnet-4\n")}
    [found] = diagnostics(RULE, files)
    assert (found.line, found.column) == (4, 1)
    assert found.message == (
        "unknown key 'modle' (did you mean `model`?): OpenCode moves it into `options`, "
        "so `model` keeps its default"
    )
    both = {A: agent(DESCRIPTION + "mode: subagent\nmodel: x/y\nmodle: x/z\n")}
    assert diagnostics(RULE, both) == []
    [unknown] = diagnostics("unknown-key", both)
    assert "'modle' is not an OpenCode agent key" in unknown.message


def test_a_slip_of_the_required_description_is_one_error(diagnostics: Diagnostics) -> None:
    files = {A: agent("descripton: Reviews diffs for bugs.\nmode: subagent\n")}
    assert diagnostics(RULE, files) == []
    assert diagnostics("unknown-key", files) == []
    [schema] = diagnostics("schema", files)
    assert (schema.line, schema.column) == (2, 1)
    assert schema.message == (
        "unknown key 'descripton' (did you mean `description`?): "
        "the required key 'description' is missing"
    )


def test_modes_are_the_schema_stage_s(diagnostics: Diagnostics) -> None:
    mode = "---\ndescription: Build a feature from the user's request.\nagnet: scout\n---\nHaz.\n"
    files = {"specs/modes/build.md": mode}
    assert diagnostics(RULE, files) == []
    [schema] = diagnostics("schema", files)
    assert "unknown key 'agnet' at $ (did you mean `agent`?)" in schema.message


def test_level_is_configurable(diagnostics: Diagnostics) -> None:
    files = {A: agent(DESCRIPTION + "mode: subagent\npermisson: {}\n")}
    [found] = diagnostics(RULE, files, '[rules.key-typo]\nlevel = "warning"\n')
    assert (found.line, found.column, found.severity.value) == (4, 1, "warning")

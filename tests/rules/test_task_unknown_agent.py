"""task-unknown-agent: `task` patterns that name no agent OpenCode would load."""

from __future__ import annotations

import pytest

from tests.conftest import MakeBundle
from tests.rules.conftest import Diagnostics, Expected, Messages, agent, assert_found
from tests.rules.task_files import CREW, A, starter

RULE = "task-unknown-agent"
NO_AGENT = "but no agent has that name"

# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        starter("'*': deny", "reviwer: allow"),
        "",
        [(A, 7, 5, f"`task` names `reviwer`, {NO_AGENT} (did you mean `reviewer`?)")],
        id="docstring-fails",
    ),
    pytest.param(starter("'*': deny", "reviewer: allow"), "", [], id="docstring-passes"),
    pytest.param(
        starter("'*': deny", "scuot: allow"),
        "",
        [(A, 7, 5, f"`task` names `scuot`, {NO_AGENT} (did you mean `scout`?)")],
        id="typo",
    ),
    pytest.param(
        starter("'*': deny", "'*-smith': allow", "'*-painter': allow"),
        "",
        [(A, 8, 5, "`task` pattern `*-painter` matches no agent")],
        id="pattern-matching-no-agent",
    ),
    pytest.param(
        starter("'*': deny", "off: allow"),
        "",
        [(A, 7, 5, "`task` names `off`, which is disabled: OpenCode does not load it")],
        id="disabled-agent",
    ),
    pytest.param(
        starter("'*': deny", "general: allow", "explore: ask", "build: deny"), "", [], id="opencode-agents-exist"
    ),
    pytest.param(
        starter("'*': deny", "ghost: deny"), "", [(A, 7, 5, f"`task` names `ghost`, {NO_AGENT}")], id="deny-is-checked-too"
    ),
    pytest.param(
        {A: agent("description: Plain subagent for the test.\nmode: subagent"), **CREW},
        '[permission]\ntask = { "*" = "deny", scout = "allow", nobody = "allow" }\n',
        [("promptc.toml", 2, 41, f"`task` names `nobody`, {NO_AGENT}")],
        id="config-level-task-rules",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_task_unknown_agent(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


def test_unknown_agent_messages(messages: Messages) -> None:
    files = starter("'*': deny", "scuot: allow", "off: allow")
    assert messages(RULE, files) == [
        "specs/agents/a.md:7:5: error [task-unknown-agent] `task` names `scuot`, but no agent "
        "has that name (did you mean `scout`?)",
        "specs/agents/a.md:8:5: error [task-unknown-agent] `task` names `off`, which is "
        "disabled: OpenCode does not load it",
    ]


# A spec that does not load still exists: a `task` rule naming it is no finding
# of this rule (the spec's own errors are reported at its file).
BROKEN = {
    "tab-in-frontmatter": "---\ndescription: Reviews the diff and reports.\nmode: subagent\npermission:\n\tedit: deny\n---\nBody.\n",
    "unclosed-frontmatter": "---\ndescription: Reviews the diff and reports.\nmode: subagent\nBody.\n",
    "non-utf8-byte": b"---\ndescription: Reviews the diff \xff and reports.\nmode: subagent\n---\nBody.\n",
    "duplicate-key": "---\ndescription: Reviews the diff and reports.\nmode: subagent\nmode: all\n---\nBody.\n",
    "oversized-file": "---\ndescription: Reviews the diff and reports.\nmode: subagent\n---\n"
    + "x" * (1 << 20)
    + "\n",
}


@pytest.mark.parametrize("broken", BROKEN.values(), ids=BROKEN.keys())
def test_a_spec_that_does_not_load_still_has_its_name(
    diagnostics: Diagnostics, broken: str | bytes
) -> None:
    files = {**starter("'*': deny", "reviewer: allow"), "specs/agents/reviewer.md": broken}
    assert diagnostics(RULE, files) == []


def test_an_agents_folder_that_cannot_be_read_hides_no_name(
    diagnostics: Diagnostics, make_bundle: MakeBundle
) -> None:
    """A file under specs/agents/ that cannot be read may be the agent a rule names."""
    files = starter("'*': deny", "reviewer: allow", "ghost: allow")
    root = make_bundle({"promptc.toml": "", **files})
    (root / "specs/agents/loop").symlink_to("loop", target_is_directory=True)
    assert diagnostics(RULE, {}) == []

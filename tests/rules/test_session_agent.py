"""session-agent: `default_agent` and a mode's `agent:` name an agent that can run them."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found
from tests.rules.task_files import CREW

RULE = "session-agent"
CONFIG = "promptc.toml"
PLAN = "specs/modes/plan.md"
HIDDEN = {
    "specs/agents/quiet.md": agent(
        "description: A primary kept out of the list.\nmode: primary\nhidden: true"
    )
}
BROKEN = {
    "specs/agents/lead.md": "---\ndescription: Leads the team.\nmode: primary\n\tcolor: red\n---\nBody.\n"
}


def mode(front: str) -> dict[str, str]:
    return {PLAN: agent(f"description: Plans the work step by step.\n{front}")}


# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(CREW, 'default_agent = "formean"\n', [(CONFIG, 1, 17, "`default_agent` names `formean`, but no agent has that name (did you mean `foreman`?)")], id="docstring-fails"),
    pytest.param(CREW, 'default_agent = "foreman"\n', [], id="docstring-passes"),
    pytest.param(CREW, 'default_agent = "build"\n', [], id="opencode-primary"),
    pytest.param(CREW, 'default_agent = "scout"\n', [(CONFIG, 1, 17, "`default_agent` names `scout`, a subagent")], id="default-subagent"),
    pytest.param(CREW, 'default_agent = "explore"\n', [(CONFIG, 1, 17, "`default_agent` names `explore`, a subagent")], id="default-opencode-subagent"),
    pytest.param(CREW, 'out = "build"\ndefault_agent = "off"\n', [(CONFIG, 2, 17, "`default_agent` names `off`, which is disabled")], id="default-disabled"),
    pytest.param({**CREW, **HIDDEN}, 'default_agent = "quiet"\n', [(CONFIG, 1, 17, "`default_agent` names `quiet`, which is hidden")], id="default-hidden"),
    # A spec that does not load still exists: its own errors say what is wrong.
    pytest.param({**CREW, **BROKEN}, 'default_agent = "lead"\n', [], id="default-broken-spec"),
    pytest.param({**CREW, **mode("agent: leader")}, "", [(PLAN, 3, 8, "`agent` names `leader`, but no agent has that name")], id="mode-unknown"),
    pytest.param({**CREW, **mode("agent: foreman")}, "", [], id="mode-primary"),
    # A subagent runs a mode as a subtask: fine, unless `subtask: false` keeps it in the session.
    pytest.param({**CREW, **mode("agent: scout")}, "", [], id="mode-subagent-as-subtask"),
    pytest.param({**CREW, **mode("agent: scout\nsubtask: false")}, "", [(PLAN, 3, 8, "`agent` names `scout`, a subagent, and `subtask: false`")], id="mode-subagent-in-the-session"),
    pytest.param({**CREW, **mode("agent: off")}, "", [(PLAN, 3, 8, "`agent` names `off`, which is disabled")], id="mode-disabled"),
    pytest.param({**CREW, **BROKEN, **mode("agent: lead")}, "", [], id="mode-broken-spec"),
    pytest.param({**CREW, **mode("agent: leader\ntargets:\n  opencode:\n    agent: foreman")}, "", [], id="mode-opencode-override"),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_session_agent(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)


@pytest.mark.parametrize(
    ("front", "hint"),
    [
        ("agent: leader", "name an agent of the bundle, or leave `agent` out"),
        ("agent: scout\nsubtask: false", "name a primary agent, or leave `subtask` out"),
    ],
)
def test_a_mode_is_told_what_to_write_instead(
    diagnostics: Diagnostics, front: str, hint: str
) -> None:
    (found,) = diagnostics(RULE, {**CREW, **mode(front)}, "")
    assert found.hint is not None
    assert found.hint.startswith(hint)

"""`default_agent`, or a mode's `agent:`, naming no agent that can run it.

OpenCode starts every session with `default_agent`, which must be an agent it
loads that is not a subagent and not hidden; a command runs as its `agent`,
which must exist, and a subagent runs it only as a subtask (not with
`subtask: false`, which keeps it in the session). A name that fails these is
no error until a user starts OpenCode or runs the command; Claude Code
silently drops it. OpenCode's own agents (build, plan; general and explore
are subagents) count. A spec that does not load counts as existing: its own
errors say what is wrong with it.

Fails:
    default_agent = "formean"    # no agent `formean` (did you mean `foreman`?)
Passes:
    default_agent = "foreman"
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core.project import Project, Spec
from promptc_compiler.core.tomlpos import locate
from promptc_compiler.permissions.runtime import AGENT_TARGET, Runtime, written_under
from promptc_compiler.runtimes.translations import Translated

ID = "session-agent"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    config = project.config
    name = config.default_agent
    if name is not None and config.source is not None:
        wrong = _missing(project, runtime, name)
        agent = runtime.agents.get(name)
        if wrong is None and agent is not None and agent.mode == "subagent":
            wrong = "a subagent: OpenCode starts sessions only with a primary agent"
        elif wrong is None and agent is not None and agent.hidden:
            wrong = "which is hidden: OpenCode starts sessions only with an agent it lists"
        if wrong:
            yield Problem(
                *_value_at(config.text, (*config.prefix, "default_agent")),
                f"`default_agent` names `{name}`, {wrong}",
                "name a primary agent (mode primary or all) that is not hidden",
                path=config.source,
            )
    for spec in project.modes.values():
        yield from _mode(project, runtime, spec)


def _mode(project: Project, runtime: Runtime, spec: Spec) -> Iterator[Problem]:
    data = spec.view(AGENT_TARGET)
    name = data.get("agent")
    if not isinstance(name, str):
        return
    wrong = _missing(project, runtime, name)
    agent = runtime.agents.get(name)
    in_session = data.get("subtask") is False
    hint = "name an agent of the bundle, or leave `agent` out to run the command as the current one"
    if wrong is None and agent is not None and agent.mode == "subagent" and in_session:
        wrong = (
            "a subagent, and `subtask: false` runs the command in the session, "
            "which only a primary agent runs"
        )
        hint = "name a primary agent, or leave `subtask` out to run the subagent as a task"
    if wrong is None:
        return
    pos = spec.where(*written_under(spec, "agent"), "agent")
    yield Problem(*pos, f"`agent` names `{name}`, {wrong}", hint, path=spec.source.path)


def _missing(project: Project, runtime: Runtime, name: str) -> str | None:
    """Why OpenCode has no agent `name`, or None when it has one (or may have: a
    spec that did not load, whose own errors are reported)."""
    if name in runtime.agents or project.may_be_an_agent(name):
        return None
    if name in project.agents:
        return "which is disabled: OpenCode does not load it"
    return f"but no agent has that name{did_you_mean(name, runtime.agents)}"


def _value_at(text: str, path: tuple[str, ...]) -> tuple[int, int]:
    """Line and column of the value of the TOML key at `path`."""
    line, column = locate(text, path)
    lines = text.splitlines()
    if line > len(lines):
        return line, column
    written = lines[line - 1]
    equals = written.find("=", column - 1)
    if equals < 0:
        return line, column
    value = written[equals + 1 :]
    return line, equals + 2 + len(value) - len(value.lstrip())

"""OpenCode rules and keys a configured runtime's files cannot express (informational).

Reported for each configured target that translates permissions: `claude` or
`claude-plugin`, `copilot`, `gemini`. Claude Code has no per-agent allow, ask
or deny, so promptc narrows what it cannot say exactly (compiler.translate);
Copilot CLI and Gemini CLI have only a per-agent tool list, so promptc leaves
out every tool OpenCode does not allow wholly (compiler.tool_lists). Each
such permission rule is reported once per runtime, at the line that wrote
it: a tool left out of an agent's `tools`, a rule that asks or denies where
OpenCode allows, a tool the runtime does not have (`plan_db`, MCP tools,
`external_directory`), a tool the runtime gives every agent (Copilot's
`skill`). It also reports agent and mode keys the files leave out
(`temperature`, an unmapped `model`, a mode whose primary agent the runtime
does not start on its own, an agent Gemini CLI cannot have). The same
findings are written to TRANSLATION.md in each target's output.
Infos never fail a run, not even with `--strict`.

Options: none.

Fails (with `[tool.promptc.targets.claude]` configured):
    permission:
      bash:
        "*": deny
        "git status*": allow     # Bash is left out of this agent's tools
Passes:
    permission:
      bash: deny
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from compiler import tool_lists
from compiler.claude_agents import NAME, PLUGIN, TARGETS, agent_notes, command_notes
from compiler.diagnostics import Problem
from compiler.loader import Pos
from compiler.project import Project, Spec
from compiler.translate import Loss, translate

ID = "lossy-translation"
DEFAULT_LEVEL = "info"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    for runtime in tool_lists.RUNTIMES:
        if runtime.target in project.config.targets:
            yield from _tool_lists(project, runtime)
    targets = project.config.targets
    if not any(name in targets for name in TARGETS):
        return
    models = _models(targets)
    translation = translate(project)
    seen: set[object] = set()
    for loss in translation.losses:
        problem = _loss_problem(loss)
        if problem is not None and loss.rule not in seen:
            seen.add(loss.rule)
            yield problem
    for ident in translation.tools:
        yield from _at(project.agents[ident], agent_notes(project.agents[ident], models))
    for spec in project.modes.values():
        yield from _at(spec, command_notes(spec, project, translation, models))


def _models(targets: Mapping[str, Mapping[str, Any]]) -> Mapping[str, str]:
    mine = targets.get(NAME, targets.get(PLUGIN, {}))
    return dict(mine.get("models", {}))


def _tool_lists(project: Project, runtime: tool_lists.Runtime) -> Iterator[Problem]:
    options = project.config.targets[runtime.target]
    models = dict(options.get("models", {}))
    found = tool_lists.plan(project, runtime)
    seen: set[object] = set()
    for loss in found.losses:
        problem = _loss_problem(loss, runtime.label)
        if problem is not None and loss.rule not in seen:
            seen.add(loss.rule)
            yield problem
    for ident in (*found.tools, *found.left_out):
        spec = project.agents[ident]
        notes = tool_lists.agent_notes(spec, runtime, models, found.left_out.get(ident))
        yield from _at(spec, notes)
    for spec in project.modes.values():
        yield from _at(spec, tool_lists.mode_notes(spec, runtime, found.agents))


def _loss_problem(loss: Loss, runtime: str = "Claude Code") -> Problem | None:
    origin = loss.rule.origin
    if origin.path is None or origin.kind not in ("agent", "config"):
        return None  # OpenCode's own rules: TRANSLATION.md lists them once
    message = f"`{loss.rule.text()}` in {runtime}: {loss.message}"
    return Problem(origin.line or 1, origin.column or 1, message, path=origin.path)


def _at(spec: Spec, notes: Iterator[tuple[tuple[str, ...], str]]) -> Iterator[Problem]:
    for path, message in notes:
        pos = _shell_position(spec, path[1]) if path[:1] == ("!",) else spec.where(*path, key=True)
        yield Problem(pos.line, pos.column, message, path=spec.source.path)


def _shell_position(spec: Spec, command: str) -> Pos:
    """Where `` !`command` `` stands in the mode's file (its first occurrence)."""
    needle = f"!`{command}`"
    for number, line in enumerate(spec.source.text.split("\n"), start=1):
        if number >= spec.source.body_line and needle in line:
            return Pos(number, line.index(needle) + 1)
    return Pos(spec.source.body_line, 1)

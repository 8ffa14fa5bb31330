"""OpenCode rules and keys a configured runtime's files cannot express (informational).

Reported for the targets configured among `claude`, `claude-plugin`,
`codex`, `copilot` and `gemini`. Claude Code has no per-agent allow, ask or
deny, so promptc narrows what it cannot say exactly (promptc_compiler.runtimes.claude.translate) and
reports each such permission rule, once, at the line that wrote it: a tool
left out of an agent's `tools`, a rule that asks or denies in Claude Code
where OpenCode allows, a tool Claude Code does not have (`plan_db`, MCP
tools, `external_directory`). It also reports agent and mode keys the Claude
files leave out (`temperature`, an unmapped `model`, a mode whose primary
agent Claude Code does not start on its own). For Codex
(promptc_compiler.runtimes.codex.translate): a role left without a shell, a command rule that
forbids or asks where OpenCode allows, and the permissions and keys a Codex
role has no place for. For Copilot CLI and Gemini CLI
(promptc_compiler.runtimes.tool_lists): a tool the runtime has no rules or hook for and that
OpenCode allows only in part is left out or asks, a tool or permission the
runtime lacks is lost, an agent Gemini cannot have is not written, and an override that
cannot hold (`targets.gemini.temperature`, which 0.61 does not send;
`targets.copilot.infer: true` on an agent OpenCode does not start as a
subagent) is reported at its key, as is a skill's `allowed-tools`, which
Copilot would read as a grant and so is left out. Claude Code reads it as a
grant too: each rule it keeps widens no agent that may load the skill
(promptc_compiler.runtimes.claude.translate.skill_grants), and each one left out is reported there.
The same findings
are written to TRANSLATION.md in each target's output; where several
runtimes lose one rule, one message says them all.
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

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from promptc_compiler.base.body_syntax import positional
from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.loader import Pos
from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes import tool_lists
from promptc_compiler.runtimes.claude.agents import (
    NAME,
    PLUGIN,
    TARGETS,
    agent_notes,
    command_notes,
)
from promptc_compiler.runtimes.claude.translate import TRANSLATOR, skill_grants
from promptc_compiler.runtimes.codex import translate as codex_rules
from promptc_compiler.runtimes.translation import Loss
from promptc_compiler.runtimes.translations import Translated

ID = "lossy-translation"
DEFAULT_LEVEL = "info"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    # One message per place: a Problem is known by its position and rule.
    found: dict[tuple[object, int, int], Problem] = {}
    for problem in (*_claude(project), *_codex(project), *_tool_lists(project)):
        key = (problem.path, problem.line, problem.column)
        old = found.get(key)
        message = problem.message
        if old is not None:
            said = problem.message in old.message
            # One sentence per runtime: the text report puts each on a line of its own.
            message = old.message if said else f"{old.message}. {problem.message}"
        found[key] = Problem(problem.line, problem.column, message, path=problem.path)
    yield from found.values()


def _codex(project: Translated) -> Iterator[Problem]:
    if codex_rules.NAME not in project.config.targets:
        return
    models = dict(project.config.targets[codex_rules.NAME].get("models", {}))
    translation = project.translations.of(codex_rules.TRANSLATOR)
    yield from _losses(translation.losses, "Codex")
    for ident in translation.shell:
        spec = project.agents[ident]
        yield from _at(spec, codex_rules.agent_notes(spec, translation.agent(ident), models))


def _tool_lists(project: Translated) -> Iterator[Problem]:
    for runtime in tool_lists.RUNTIMES:
        if runtime.target not in project.config.targets:
            continue
        models = dict(project.config.targets[runtime.target].get("models", {}))
        found = project.translations.of(tool_lists.PLANS[runtime.target])
        yield from _losses(found.losses, runtime.label)
        for ident in (*found.tools, *found.left_out):
            spec = project.agents[ident]
            notes = tool_lists.agent_notes(spec, runtime, models, found)
            yield from _at(spec, notes)
        for spec in project.modes.values():
            yield from _at(spec, tool_lists.mode_notes(spec, runtime, found.agents))
        for skill in project.skills.values():
            yield from _at(skill.spec, tool_lists.skill_notes(skill, runtime))


def _claude(project: Translated) -> Iterator[Problem]:
    targets = project.config.targets
    if not any(name in targets for name in TARGETS):
        return
    models = _models(targets)
    translation = project.translations.of(TRANSLATOR)
    patterns = project.translations.patterns
    yield from _losses(translation.losses, "Claude Code")
    for ident in translation.tools:
        yield from _at(project.agents[ident], agent_notes(project.agents[ident], models))
    for spec in project.modes.values():
        yield from _at(spec, command_notes(spec, translation, models))
    for skill in project.skills.values():
        notes = [why for why in skill_grants(translation, patterns, skill).values() if why]
        yield from _at(skill.spec, ((("allowed-tools",), note) for note in notes))


def _models(targets: Mapping[str, Mapping[str, Any]]) -> Mapping[str, str]:
    mine = targets.get(NAME, targets.get(PLUGIN, {}))
    return dict(mine.get("models", {}))


def _losses(losses: Sequence[Loss], runtime: str) -> Iterator[Problem]:
    """Each rule the runtime loses, once (a shared rule is lost for many agents)."""
    seen: set[object] = set()
    for loss in losses:
        problem = _loss_problem(loss, runtime)
        if problem is not None and loss.rule not in seen:
            seen.add(loss.rule)
            yield problem


def _loss_problem(loss: Loss, runtime: str) -> Problem | None:
    origin = loss.rule.origin
    if origin.path is None or origin.kind not in ("agent", "config"):
        return None  # OpenCode's own rules: TRANSLATION.md lists them once
    message = f"`{loss.rule.text()}` in {runtime}: {loss.message}"
    return Problem(origin.line or 1, origin.column or 1, message, path=origin.path)


def _at(spec: Spec, notes: Iterator[tuple[tuple[str, ...], str]]) -> Iterator[Problem]:
    for path, message in notes:
        if path[:1] == ("!",):
            pos = _body_position(spec, re.compile(re.escape(f"!`{path[1]}`")))
        elif path[:1] == ("$",):
            pos = _body_position(spec, positional(path[1]))
        else:
            pos = spec.where(*path, key=True)
        yield Problem(pos.line, pos.column, message, path=spec.source.path)


def _body_position(spec: Spec, found: re.Pattern[str]) -> Pos:
    """Where the pattern first matches in the mode file's body (a shell line, `$1`)."""
    first = spec.source.body_line
    for number, line in enumerate(spec.source.text.split("\n")[first - 1 :], start=first):
        match = found.search(line)
        if match:
            return Pos(number, match.start() + 1)
    return Pos(spec.source.body_line, 1)

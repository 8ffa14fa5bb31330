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

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.runtimes import configured
from promptc_compiler.runtimes.translations import Translated

ID = "lossy-translation"
DEFAULT_LEVEL = "info"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    # One message per place: a Problem is known by its position and rule.
    found: dict[tuple[object, int, int], Problem] = {}
    losses = (
        problem for runtime in configured(project.config) for problem in runtime.losses(project)
    )
    for problem in losses:
        key = (problem.path, problem.line, problem.column)
        old = found.get(key)
        message = problem.message
        if old is not None:
            said = problem.message in old.message
            # One sentence per runtime: the text report puts each on a line of its own.
            message = old.message if said else f"{old.message}. {problem.message}"
        found[key] = Problem(problem.line, problem.column, message, path=problem.path)
    yield from found.values()

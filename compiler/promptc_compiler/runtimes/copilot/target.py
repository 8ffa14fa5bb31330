"""GitHub Copilot CLI (@github/copilot 1.0.102): the custom agents `copilot` reads from a project.

Emitted, relative to `<out>/copilot/` (copy or link it into a project root):

- `.github/agents/<name>.agent.md` for every agent OpenCode would load (a
  disabled agent is left out); `team/reviewer` becomes `team-reviewer`.
  Frontmatter, in this order:
  - `name`, `description`.
  - `tools`: always an explicit list, since an agent without one gets every
    tool: the aliases `read`, `search`, `edit`, `execute`, `agent`, `web`
    and `skill` whose OpenCode permissions the agent's rules do not deny
    wholly (promptc_compiler.runtimes.tool_lists); `[]` when none is.
  - `model`: the OpenCode model through the `models` option; left out (the
    session's model) when the spec names none or an unmapped one (reported).
  - `infer: false` for a primary agent, which OpenCode never starts as a
    subagent, and for a subagent OpenCode's default agent `build` may not
    start: Copilot's `task` tool then does not offer it (`copilot --agent
    <name>` still runs it).
  - `hooks.preToolUse`: one command hook whose POSIX shell script decides
    every call the agent makes as OpenCode's rules do, or narrower
    (promptc_compiler.runtimes.copilot.script, promptc_compiler.runtimes.copilot.hooks): Copilot
    runs an agent
    file's hooks for that agent's calls only, as the main session or started
    by `task`. Its `powershell` form (what Copilot runs on Windows) refuses
    every call.
  A spec's `targets.copilot` sets `description`, `model` (a Copilot model,
  in place of the `models` mapping) and `infer`, which may hide an agent
  from `task` but never offers one OpenCode does not start as a subagent
  (kept `false` and reported); `tools` is not overridable.
  The body is the agent composed for the `copilot` target. GitHub allows at
  most 30,000 characters: a longer body is an error (rule `runtime-limits`).
  OpenCode keys with no Copilot meaning (`temperature`, `top_p`, `steps`,
  `color`, ...) are left out and reported.
- `.github/skills/<name>/` for every skill, its SKILL.md without
  `allowed-tools`: Copilot would run the tools it names without asking for
  any agent that loads the skill, and OpenCode grants nothing through a skill
  (reported).
- `TRANSLATION.md`: every OpenCode rule and key Copilot CLI cannot express,
  per agent and once each. Modes are not translated (Copilot CLI reads no
  command files from a project), which the report says.

Options (`[tool.promptc.targets.copilot]`):
    models (table, default {}): OpenCode model id -> Copilot model
        (`claude-sonnet-4.5`, `gpt-4.1`, ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.core import yamlout
from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes import translation_report
from promptc_compiler.runtimes.adapter import Starter
from promptc_compiler.runtimes.copilot import hooks as copilot_hooks
from promptc_compiler.runtimes.copilot import script as copilot_script
from promptc_compiler.runtimes.copilot.tools import COPILOT
from promptc_compiler.runtimes.model_map import models_option
from promptc_compiler.runtimes.skills import emit_skills
from promptc_compiler.runtimes.tool_lists import (
    Plan,
    description_for,
    model_for,
    offered,
    plan,
)
from promptc_compiler.runtimes.translation import flat_name
from promptc_compiler.runtimes.translations import Translated

NAME = COPILOT.target
COMPOSE_AS = NAME
RUNTIME = COPILOT.label
SPEC_KEYS = {"agent": "copilotAgent"}  # in overrides.json; a mode has no Copilot keys
SCHEMAS: tuple[tuple[str, str], ...] = ()
STARTER = Starter(at_root=".github/agents/")
# Copilot reads custom agents from both folders (plain `.md` files too).
LOADED = re.compile(r"(\.github|\.claude)/agents/[^/]+\.md|\.github/skills/.+/SKILL\.md")
# In the root layout: `.github/agents/` and `.github/skills/` at the project root.
ROOT = re.compile(r"\.github/(agents|skills)/.+")
SHARED: dict[str, tuple[str, ...]] = {}
OPTIONS: dict[str, Any] = {
    "models": models_option("Copilot CLI", "claude-sonnet-4.5, gpt-4.1, ...")
}
INTRO = """\
# GitHub Copilot CLI translation

promptc wrote these Copilot CLI custom agents from the bundle's OpenCode specs. OpenCode gives
every agent its own ordered permission rules (the last matching rule wins). Each agent file
here has a `tools` list and a preToolUse hook: a POSIX shell script, written from the agent's
rules, that Copilot CLI runs before each of that agent's tool calls (as the main session or
started by `task`) and that answers allow, ask or deny as OpenCode does. It decides exactly
where the call is plain (a path in the project with no `.` or `..` segment, a command line of
plain commands joined by `;`, `&&`, `||` or `|` naming no folder outside the project); any
other call is refused where a deny rule could decide it and asks otherwise. A tool goes in an
agent's list where OpenCode lets the agent make some of its calls. The hooks need a POSIX
shell, `sed` and `tr` (and `git`, for the project folder): on Windows, Copilot CLI runs a
hook's PowerShell form, which refuses every call. Modes are not translated (Copilot CLI reads
no command files from a project), and a skill's `allowed-tools` is left out (Copilot would run
those tools unasked for any agent that loads the skill). Every rule this costs is listed
below, once.
"""
HOOK_DENIES = (
    'Write-Output \'{"permissionDecision":"deny","permissionDecisionReason":'
    '"promptc wrote the rules of this agent as a POSIX shell script"}\''
)


def files(project: Translated, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    found = plan(project, COPILOT)
    models = options.get("models", {})
    dumper = yamlout.Dumper()
    for ident in found.tools:
        spec = project.agents[ident]
        front = dumper.dump(agent_frontmatter(spec, found, models))
        script = copilot_script.render(copilot_hooks.hook(found, ident))
        body = spec.body if spec.body.endswith("\n") or not spec.body else spec.body + "\n"
        text = f"---\n{front}{hooks_block(script)}---\n{body}"
        yield f".github/agents/{flat_name(ident)}.agent.md", text
    yield from emit_skills(project, COPILOT.skills, drop=COPILOT.skill_grants).items()
    yield "TRANSLATION.md", translation_report.render_lists(project, INTRO, COPILOT, found, models)


def agent_frontmatter(spec: Spec, found: Plan, models: Mapping[str, str]) -> dict[str, Any]:
    front: dict[str, Any] = {
        "name": flat_name(spec.id),
        "description": description_for(spec, COPILOT),
        "tools": list(found.tools[spec.id]),
    }
    model = model_for(spec, models, COPILOT)[0]
    if model:
        front["model"] = model
    # `targets.copilot.infer` may hide an agent from `task`, never offer one
    # OpenCode does not start as a subagent.
    infer = spec.override(NAME).get("infer")
    if not offered(found, spec.id) or infer is False:
        front["infer"] = False
    elif infer is True:
        front["infer"] = True
    return front


def hooks_block(script: str) -> str:
    """The `hooks` key of an agent file: the script as a literal block, which keeps
    it as written (it is printable ASCII, one command per line)."""
    body = "".join(f"        {line}\n" if line else "\n" for line in script.splitlines())
    return (
        "hooks:\n  preToolUse:\n    - type: command\n      bash: |\n"
        f"{body}      powershell: {yamlout.quote(HOOK_DENIES)}\n"
    )

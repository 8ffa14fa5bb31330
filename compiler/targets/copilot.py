"""GitHub Copilot CLI (@github/copilot 1.0.102): the custom agents `copilot` reads from a project.

Emitted, relative to `<out>/copilot/` (copy or link it into a project root):

- `.github/agents/<name>.agent.md` for every agent OpenCode would load (a
  disabled agent is left out); `team/reviewer` becomes `team-reviewer`.
  Frontmatter, in this order:
  - `name`, `description`.
  - `tools`: always an explicit list, since an agent without one gets every
    tool: the aliases `read`, `search`, `edit`, `execute`, `agent` and `web`
    whose OpenCode permissions the agent's rules allow for every input
    (compiler.tool_lists); `[]` when none is. Copilot gives every agent
    `skill` and `sql` whatever the list says: where OpenCode withholds
    `skill` or `todowrite`, the rule is reported as not kept.
  - `model`: the OpenCode model through the `models` option; left out (the
    session's model) when the spec names none or an unmapped one (reported).
  - `infer: false` for a primary agent, which OpenCode never starts as a
    subagent, and for a subagent OpenCode's default agent `build` may not
    start: Copilot's `task` tool then does not offer it (`copilot --agent
    <name>` still runs it).
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

from compiler import translation_report, yamlout
from compiler.model_map import models_option
from compiler.project import Project, Spec
from compiler.skills import emit_skills
from compiler.tool_lists import (
    COPILOT,
    Plan,
    agent_notes,
    description_for,
    mode_notes,
    model_for,
    offered,
    plan,
    runtime_name,
    skill_notes,
)

NAME = COPILOT.target
RUNTIME = COPILOT.label
# Copilot reads custom agents from both folders (plain `.md` files too).
LOADED = re.compile(r"(\.github|\.claude)/agents/[^/]+\.md|\.github/skills/.+/SKILL\.md")
OPTIONS: dict[str, Any] = {
    "models": models_option("Copilot CLI", "claude-sonnet-4.5, gpt-4.1, ...")
}
INTRO = """\
# GitHub Copilot CLI translation

promptc wrote these Copilot CLI custom agents from the bundle's OpenCode specs. OpenCode gives
every agent its own ordered permission rules (the last matching rule wins). A Copilot agent
has only a `tools` list (`read`, `search`, `edit`, `execute`, `agent`, `web`), and the project
cannot ask or deny per command or path. promptc never grants more than OpenCode does: a tool
goes in an agent's list only when OpenCode allows, for that agent, everything the tool does;
otherwise it is left out. Copilot gives every agent `skill` and `sql` whatever the list says.
Modes are not translated (Copilot CLI reads no command files from a project), and a skill's
`allowed-tools` is left out (Copilot would run those tools unasked for any agent that loads
the skill). Every rule this costs is listed below, once.
"""


def emit(project: Project, options: Mapping[str, Any]) -> dict[str, str]:
    return dict(files(project, options))


def files(project: Project, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    found = plan(project, COPILOT)
    models = options.get("models", {})
    for ident in found.tools:
        spec = project.agents[ident]
        front = agent_frontmatter(spec, found, models)
        yield f".github/agents/{runtime_name(ident)}.agent.md", document(front, spec.body)
    yield from emit_skills(project, COPILOT.skills, drop=COPILOT.skill_grants).items()
    yield "TRANSLATION.md", report(project, found, models)


def agent_frontmatter(spec: Spec, found: Plan, models: Mapping[str, str]) -> dict[str, Any]:
    front: dict[str, Any] = {
        "name": runtime_name(spec.id),
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


def report(project: Project, found: Plan, models: Mapping[str, str]) -> str:
    notes = {
        ident: [
            message for _, message in agent_notes(project.agents[ident], COPILOT, models, found)
        ]
        for ident in found.tools
    }
    for ident in found.hidden:
        notes[ident].append(
            "hidden from Copilot's `task` (`infer: false`): OpenCode's default agent `build` "
            f"may not start {ident} without asking"
        )
    commands = {
        ident: [message for _, message in mode_notes(spec, COPILOT, found.agents)]
        for ident, spec in project.modes.items()
    }
    skills = {
        name: [message for _, message in skill_notes(skill, COPILOT)]
        for name, skill in project.skills.items()
    }
    return translation_report.render_lists(
        project, INTRO, found.tools, found.losses, notes, commands, skills
    )


def document(front: Mapping[str, Any], body: str) -> str:
    if body and not body.endswith("\n"):
        body += "\n"
    return f"---\n{yamlout.dump(front)}---\n{body}"

"""Claude Code (@anthropic-ai/claude-code 2.1.332): the files `claude` reads from a project.

Emitted, relative to `<out>/claude/` (README.md, "The Claude Code targets",
lists every file and key):

- `.claude/agents/<name>.md` for every agent OpenCode would load. Claude Code
  takes an agent's identity from `name` (lowercase words and hyphens, no `:`),
  so `team/reviewer` becomes `team-reviewer`. `tools` is always an explicit
  list (omitting it would mean every tool): the tools the permission
  translation keeps (promptc_compiler.runtimes.claude.translate), with `Agent(a, b)` for a primary.
  Overrides of `tools`, `disallowedTools`, `permissionMode`, `hooks`,
  `mcpServers` or `name` are ignored and reported: tools and permissions come
  only from the translation, which never grants more.
- `.claude/commands/<mode>.md` for every mode; `allowed-tools` pre-approves
  one exact `Bash(cmd)` for each `` !`cmd` `` the mode's agent may run
  without asking in OpenCode, never more, and keeps each rule of the mode's
  own `targets.claude.allowed-tools` (an imported command's) that OpenCode
  allows whoever runs the mode in full, reporting the others; a mode run by a subagent forks
  into it (`context: fork`), as OpenCode's subtask does.
- `.claude/settings.json`: the shared `permissions` of the translation, and
  `agent` for the config's `default_agent`.
- `TRANSLATION.md`: what the proof found (promptc_compiler.pipeline.proof: accepted
  widenings first), then every OpenCode rule Claude Code cannot express.

Options (`[tool.promptc.targets.claude]`):
    models (table, default {}): OpenCode model id -> Claude model (`sonnet`,
        `opus`, `haiku`, `fable`, `inherit`, or a full model id).
    accept_wider (list, default []): OpenCode permissions Claude Code may decide
        more permissively than OpenCode, on purpose (promptc_compiler.pipeline.proof).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.body_syntax import ARGUMENTS
from promptc_compiler.core import yamlout
from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes.adapter import Starter
from promptc_compiler.runtimes.claude import report as claude_report
from promptc_compiler.runtimes.claude.agents import NAME as NAME
from promptc_compiler.runtimes.claude.agents import (
    PASSED,
    agent_notes,
    claude_override,
    color_for,
    command_grants,
    command_notes,
    forked_agent,
    model_for,
    names,
    shell_commands,
)
from promptc_compiler.runtimes.claude.translate import (
    PLUGIN_TRANSLATOR,
    TRANSLATOR,
    Translation,
    skill_grants,
)
from promptc_compiler.runtimes.model_map import models_option
from promptc_compiler.runtimes.skills import Grants, emit_skills
from promptc_compiler.runtimes.translation import flat_name
from promptc_compiler.runtimes.translations import Translated

COMPOSE_AS = NAME
RUNTIME = "Claude Code"
SPEC_KEYS = {"agent": "claudeAgent", "mode": "claudeCommand"}  # in overrides.json
SCHEMAS = (
    (".claude/agents/*.md", "claude-agent"),
    (".claude/commands/*.md", "claude-command"),
    (".claude/skills/*/SKILL.md", "claude-skill"),
    (".claude/settings.json", "claude-settings"),
)
# `--target both` predates the other runtimes; scripts that say it keep working.
STARTER = Starter(
    table=(
        '# models = { "anthropic/claude-sonnet-4-5" = "sonnet" }  # OpenCode model -> Claude model'
    ),
    at_root=".claude/",
    aliases=("both",),
)
# What Claude Code reads from a project (paths under <out>/claude/), so that a
# check can name a file there that promptc did not write.
LOADED = re.compile(
    r"\.claude/(agents|commands)/.+\.md|\.claude/skills/[^/]+/SKILL\.md"
    r"|\.claude/settings(\.local)?\.json|\.claude/output-styles/[^/]+\.md|(\.claude/)?CLAUDE\.md"
)
OPTIONS: dict[str, Any] = {
    "models": models_option("Claude Code", "sonnet, opus, haiku, fable, inherit or a full model id")
}
SCHEMA_URL = "https://json.schemastore.org/claude-code-settings.json"
# In the root layout: `.claude/` at the project root (TRANSLATION.md stays in
# `<out>/claude/`); settings.json's `permissions` are managed list by list.
ROOT = re.compile(r"\.claude/.+")
SHARED: dict[str, tuple[str, ...]] = {".claude/settings.json": ("permissions",)}


def files(project: Translated, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    return layout(project, options, ".claude/", names(project), with_settings=True)


def layout(
    project: Translated,
    options: Mapping[str, Any],
    prefix: str,
    namer: Mapping[str, str],
    *,
    with_settings: bool,
) -> Iterator[tuple[str, str]]:
    """Agents, commands and the report; settings.json when the layout has one
    (without one, each agent keeps only what Claude Code's defaults keep within
    OpenCode's rules: promptc_compiler.runtimes.claude.translate)."""
    translations = project.translations
    translation = translations.of(TRANSLATOR if with_settings else PLUGIN_TRANSLATOR)
    models = options.get("models", {})
    dumper = yamlout.Dumper()
    for ident in translation.tools:
        spec = project.agents[ident]
        front = agent_frontmatter(spec, translation, models, namer)
        yield f"{prefix}agents/{flat_name(ident)}.md", dumper.document(front, spec.body)
    for ident, spec in project.modes.items():
        front = command_frontmatter(spec, translation, models, namer)
        yield f"{prefix}commands/{flat_name(ident)}.md", dumper.document(front, spec.body)
    # Skills keep their folder name: Claude reads .claude/skills/<name>/ and a
    # plugin's skills/<name>/ (no plugin.json key needed for the default folder).
    # A skill's `allowed-tools` keeps only what widens no agent that may load it.
    yield from emit_skills(project, f"{prefix}skills/", grants=grants_of(project)).items()
    settings = settings_json(translation, namer)
    if with_settings:
        yield f"{prefix}settings.json", settings
    yield "TRANSLATION.md", report(project, translation, namer, settings, models, with_settings)


def report(
    project: Translated,
    translation: Translation,
    namer: Mapping[str, str],
    settings: str,
    models: Mapping[str, str],
    with_settings: bool = True,
) -> str:
    agents = {
        ident: [message for _, message in agent_notes(project.agents[ident], models)]
        for ident in translation.tools
    }
    commands = {
        ident: [message for _, message in command_notes(spec, translation, models)]
        for ident, spec in project.modes.items()
    }
    grants = grants_of(project)
    skills = {
        name: [why for why in grants(skill).values() if why]
        for name, skill in project.skills.items()
    }
    return claude_report.render(
        project, translation, namer, settings, agents, commands, with_settings, skills
    )


def grants_of(project: Translated) -> Grants:
    """What Claude Code may keep of each skill's `allowed-tools` (skill_grants)."""
    translations = project.translations
    return functools.partial(skill_grants, translations.of(TRANSLATOR), translations.patterns)


# --- agents -----------------------------------------------------------------------------------


def agent_frontmatter(
    spec: Spec, translation: Translation, models: Mapping[str, str], namer: Mapping[str, str]
) -> dict[str, Any]:
    data = spec.view("opencode")
    override = claude_override(spec)
    front: dict[str, Any] = {
        "name": flat_name(spec.id),
        "description": spec.view(NAME).get("description", ""),
        "tools": tool_list(spec.id, translation, namer),
        "model": model_for(spec, models)[0],
    }
    color = color_for(spec)[0]
    if color:
        front["color"] = color
    turns = override.get("maxTurns", data.get("steps", data.get("maxSteps")))
    if isinstance(turns, int) and not isinstance(turns, bool):
        front["maxTurns"] = turns
    front.update({key: override[key] for key in PASSED if key in override})
    return front


def tool_list(ident: str, translation: Translation, namer: Mapping[str, str]) -> list[str]:
    tools = []
    for tool in translation.tools[ident]:
        if tool == "Agent":
            spawn = ", ".join(namer.get(n, flat_name(n)) for n in translation.spawn[ident])
            tools.append(f"Agent({spawn})")
        else:
            tools.append(tool)
    return tools


# --- commands ---------------------------------------------------------------------------------


def command_frontmatter(
    spec: Spec,
    translation: Translation,
    models: Mapping[str, str],
    namer: Mapping[str, str],
) -> dict[str, Any]:
    data = spec.view("opencode")
    override = claude_override(spec)
    front: dict[str, Any] = {"description": spec.view(NAME).get("description", "")}
    hint = override.get("argument-hint", spec.meta.get("argument-hint"))
    if hint is None and ARGUMENTS in spec.body:
        hint = "<request>"
    if hint is not None:
        front["argument-hint"] = str(hint)
    allowed = [f"Bash({cmd})" for cmd, ok in shell_commands(spec, translation) if ok]
    # An imported command's own pre-approvals, where OpenCode vouches for them.
    allowed += [rule for rule, why in command_grants(spec, translation).items() if why is None]
    allowed = list(dict.fromkeys(allowed))
    if allowed:
        front["allowed-tools"] = allowed
    model = override.get("model") or models.get(str(data.get("model")))
    if model:
        front["model"] = model
    agent = forked_agent(spec, translation)
    if agent:
        front["context"] = "fork"
        front["agent"] = namer.get(agent, flat_name(agent))
    return front


# --- settings ---------------------------------------------------------------------------------


def settings_document(translation: Translation, namer: Mapping[str, str]) -> dict[str, Any]:
    doc: dict[str, Any] = {"$schema": SCHEMA_URL}
    if translation.main_agent:
        doc["agent"] = namer.get(translation.main_agent, flat_name(translation.main_agent))
    permissions = {}
    for key in ("allow", "ask", "deny"):
        entries = getattr(translation, key)
        texts = list(dict.fromkeys(e.text(namer) for e in entries))
        if texts:
            permissions[key] = texts
    doc["permissions"] = permissions
    return doc


def settings_json(translation: Translation, namer: Mapping[str, str]) -> str:
    return json.dumps(settings_document(translation, namer), indent=2, ensure_ascii=False) + "\n"

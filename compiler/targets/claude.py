"""Claude Code (@anthropic-ai/claude-code 2.1.332): the files `claude` reads from a project.

Emitted, relative to `<out>/claude/` (copy or link it into a project root):

- `.claude/agents/<name>.md` for every agent OpenCode would load (a disabled
  agent is left out). Claude Code takes an agent's identity from `name`,
  which must be lowercase words and hyphens without `:`, so the id
  `team/reviewer` becomes the name and file `team-reviewer` (a plugin would
  otherwise namespace a subfolder as `team:`). Frontmatter, in this order:
  `name`, `description`, `tools`, `model`, `color`, `maxTurns`, then the
  Claude-only keys a `targets.claude` override sets (`effort`, `memory`,
  `background`, `isolation`, `skills`, `initialPrompt`).
  - `tools` is always an explicit list (omitting it would mean every tool):
    the tools the permission translation keeps (compiler.translate), and for
    a primary one `Agent(a, b)` naming exactly the subagents it may start.
  - `model`: a `targets.claude.model` override as written; else the OpenCode
    model through the `models` option (`{"anthropic/claude-sonnet-4-5" =
    "sonnet"}`); else `inherit` (an unmapped model is reported).
  - `color`: a `targets.claude.color` override (one of red, blue, green,
    yellow, purple, orange, pink, cyan); else OpenCode's theme colour by
    name (primary blue, secondary purple, accent pink, success green, warning
    yellow, error red, info cyan), or a hex colour as the nearest of the eight
    (RGB distance to red #FF0000, orange #FFA500, yellow #FFFF00, green
    #008000, cyan #00FFFF, blue #0000FF, purple #800080, pink #FFC0CB).
  - `maxTurns` comes from OpenCode's `steps` (or `maxSteps`).
  OpenCode keys with no Claude Code meaning (`temperature`, `top_p`,
  `variant`, `options`, `hidden`, keys passed to the provider) are left out
  and reported. Overrides of `tools`, `disallowedTools`, `permissionMode`,
  `hooks`, `mcpServers` or `name` are ignored and reported: tools and
  permissions come only from the translation, which never grants more.
- `.claude/commands/<mode>.md` for every mode: `description`,
  `argument-hint` (the mode's own, else `<request>` when the body uses
  `$ARGUMENTS`), `allowed-tools` (one exact `Bash(cmd)` for each
  `` !`cmd` `` in the body that the agent running the mode may run without
  asking in OpenCode; never more), `model` when the mode's model is mapped,
  and for a mode run by a subagent (or with `subtask: true`) `context: fork`
  with `agent: <name>`, so the subagent runs it as OpenCode's subtask does. A
  mode run by a primary runs in the main thread: exactly its agent when that
  agent is the config's `default_agent` (settings `agent`), otherwise it is
  reported (start `claude --agent <name>`). The body is the mode composed
  for the `claude` target.
- `.claude/settings.json`: `$schema`, `agent` (the `default_agent`), and the
  shared `permissions` (`allow`, `ask`, `deny`) of the translation.
- `TRANSLATION.md`: every OpenCode rule Claude Code cannot express, per agent
  and once each, in plain words (compiler.translate documents the model).

Options (`[tool.promptc.targets.claude]`):
    models (table, default {}): OpenCode model id -> Claude model (`sonnet`,
        `opus`, `haiku`, `fable`, `inherit`, or a full model id).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from compiler import translation_report, yamlout
from compiler.claude_agents import (
    NAME,
    PASSED,
    agent_notes,
    claude_name,
    claude_override,
    color_for,
    command_notes,
    forked_agent,
    model_for,
    names,
    shell_commands,
)
from compiler.project import Project, Spec
from compiler.skills import emit_skills
from compiler.translate import Translation, translate

# What Claude Code reads from a project (paths under <out>/claude/), so that a
# check can name a file there that promptc did not write.
RUNTIME = "Claude Code"
LOADED = re.compile(
    r"\.claude/(agents|commands)/.+\.md|\.claude/skills/[^/]+/SKILL\.md"
    r"|\.claude/settings(\.local)?\.json|\.claude/output-styles/[^/]+\.md|(\.claude/)?CLAUDE\.md"
)
OPTIONS: dict[str, Any] = {
    "models": {
        "type": "object",
        "additionalProperties": {"type": "string", "minLength": 1},
        "default": {},
        "description": "OpenCode model id -> Claude Code model (sonnet, opus, haiku, fable, "
        "inherit or a full model id).",
    },
}
SCHEMA_URL = "https://json.schemastore.org/claude-code-settings.json"


def emit(project: Project, options: Mapping[str, Any]) -> dict[str, str]:
    return dict(files(project, options))


def files(project: Project, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    return layout(project, options, ".claude/", names(project), with_settings=True)


def layout(
    project: Project,
    options: Mapping[str, Any],
    prefix: str,
    namer: Mapping[str, str],
    *,
    with_settings: bool,
) -> Iterator[tuple[str, str]]:
    """Agents, commands and the report; settings.json when the layout has one."""
    translation = translate(project)
    models = options.get("models", {})
    for ident in translation.tools:
        spec = project.agents[ident]
        front = agent_frontmatter(spec, translation, models, namer)
        yield f"{prefix}agents/{claude_name(ident)}.md", document(front, spec.body)
    for ident, spec in project.modes.items():
        front = command_frontmatter(spec, project, translation, models, namer)
        yield f"{prefix}commands/{claude_name(ident)}.md", document(front, spec.body)
    # Skills keep their folder name: Claude reads .claude/skills/<name>/ and a
    # plugin's skills/<name>/ (no plugin.json key needed for the default folder).
    yield from emit_skills(project, f"{prefix}skills/").items()
    settings = settings_json(translation, namer)
    if with_settings:
        yield f"{prefix}settings.json", settings
    yield "TRANSLATION.md", report(project, translation, namer, settings, models, with_settings)


def report(
    project: Project,
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
        ident: [message for _, message in command_notes(spec, project, translation, models)]
        for ident, spec in project.modes.items()
    }
    return translation_report.render(
        project, translation, namer, settings, agents, commands, with_settings
    )


def document(front: Mapping[str, Any], body: str) -> str:
    if body and not body.endswith("\n"):
        body += "\n"
    return f"---\n{yamlout.dump(front)}---\n{body}"


# --- agents -----------------------------------------------------------------------------------


def agent_frontmatter(
    spec: Spec, translation: Translation, models: Mapping[str, str], namer: Mapping[str, str]
) -> dict[str, Any]:
    data = spec.view("opencode")
    override = claude_override(spec)
    front: dict[str, Any] = {
        "name": claude_name(spec.id),
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
            spawn = ", ".join(namer.get(n, claude_name(n)) for n in translation.spawn[ident])
            tools.append(f"Agent({spawn})")
        else:
            tools.append(tool)
    return tools


# --- commands ---------------------------------------------------------------------------------


def command_frontmatter(
    spec: Spec,
    project: Project,
    translation: Translation,
    models: Mapping[str, str],
    namer: Mapping[str, str],
) -> dict[str, Any]:
    data = spec.view("opencode")
    override = claude_override(spec)
    front: dict[str, Any] = {"description": spec.view(NAME).get("description", "")}
    hint = override.get("argument-hint", spec.meta.get("argument-hint"))
    if hint is None and "$ARGUMENTS" in spec.body:
        hint = "<request>"
    if hint is not None:
        front["argument-hint"] = str(hint)
    allowed = [f"Bash({cmd})" for cmd, ok in shell_commands(spec, project, translation) if ok]
    if allowed:
        front["allowed-tools"] = allowed
    model = override.get("model") or models.get(str(data.get("model")))
    if model:
        front["model"] = model
    agent = forked_agent(spec, project, translation)
    if agent:
        front["context"] = "fork"
        front["agent"] = namer.get(agent, claude_name(agent))
    return front


# --- settings ---------------------------------------------------------------------------------


def settings_document(translation: Translation, namer: Mapping[str, str]) -> dict[str, Any]:
    doc: dict[str, Any] = {"$schema": SCHEMA_URL}
    if translation.main_agent:
        doc["agent"] = namer.get(translation.main_agent, claude_name(translation.main_agent))
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

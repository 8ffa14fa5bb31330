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
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from compiler import yamlout
from compiler.permissions import evaluate
from compiler.project import Project, Spec
from compiler.skills import emit_skills

if TYPE_CHECKING:
    from compiler.translate import Subject, Translation

# compiler.translate (and the report on it) load when a Claude layout is built:
# the option schema above is all a bundle without a Claude target needs here.

NAME = "claude"
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
COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
_RGB = {
    "red": (255, 0, 0),
    "orange": (255, 165, 0),
    "yellow": (255, 255, 0),
    "green": (0, 128, 0),
    "cyan": (0, 255, 255),
    "blue": (0, 0, 255),
    "purple": (128, 0, 128),
    "pink": (255, 192, 203),
}
THEME_COLORS = {
    "primary": "blue",
    "secondary": "purple",
    "accent": "pink",
    "success": "green",
    "warning": "yellow",
    "error": "red",
    "info": "cyan",
}
PASSED = ("effort", "memory", "background", "isolation", "skills", "initialPrompt")
REFUSED = ("tools", "disallowedTools", "permissionMode", "hooks", "mcpServers", "name")
DROPPED = ("temperature", "top_p", "variant", "options", "hidden")
_OPENCODE_ONLY = (
    *DROPPED,
    "description",
    "mode",
    "model",
    "color",
    "steps",
    "maxSteps",
    "permission",
    "tools",
    "disable",
    "prompt",
    "name",
)
_SHELL = re.compile(r"!`([^`\n]+)`")


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
    from compiler.translate import translate

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
    from compiler import translation_report

    return translation_report.render(
        project, translation, namer, settings, agents, commands, with_settings
    )


def claude_name(ident: str) -> str:
    """The Claude Code name of an agent or command: `team/reviewer` -> `team-reviewer`."""
    return ident.replace("/", "-")


def names(project: Project, plugin: str | None = None) -> dict[str, str]:
    """Agent id -> the name other Claude files refer to it by (`plugin:name` in a plugin)."""
    return {
        ident: f"{plugin}:{claude_name(ident)}" if plugin else claude_name(ident)
        for ident in project.agents
    }


def document(front: Mapping[str, Any], body: str) -> str:
    if body and not body.endswith("\n"):
        body += "\n"
    return f"---\n{yamlout.dump(front)}---\n{body}"


# --- agents -----------------------------------------------------------------------------------


def agent_frontmatter(
    spec: Spec, translation: Translation, models: Mapping[str, str], namer: Mapping[str, str]
) -> dict[str, Any]:
    data = spec.view("opencode")
    override = _override(spec)
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


def _override(spec: Spec) -> Mapping[str, Any]:
    targets = spec.meta.get("targets")
    if targets is None:  # most specs: asked six times per agent, no abstract-type checks
        return _NO_OVERRIDE
    mine = targets.get(NAME) if isinstance(targets, Mapping) else None
    return mine if isinstance(mine, Mapping) else _NO_OVERRIDE


_NO_OVERRIDE: Mapping[str, Any] = MappingProxyType({})


def model_for(spec: Spec, models: Mapping[str, str]) -> tuple[str, str | None]:
    """(Claude model, note): the override, the mapped OpenCode model, or inherit."""
    override = _override(spec).get("model")
    if isinstance(override, str) and override:
        return override, None
    model = spec.view("opencode").get("model")
    if not isinstance(model, str) or not model:
        return "inherit", None
    if model in models:
        return models[model], None
    return "inherit", (
        f"model `{model}` has no Claude Code counterpart in the `models` option; "
        "the Claude agent inherits the session's model"
    )


def color_for(spec: Spec) -> tuple[str | None, str | None]:
    override = _override(spec).get("color")
    if isinstance(override, str):
        if override in COLORS:
            return override, None
        return None, f"`targets.claude.color: {override}` is not one of {', '.join(COLORS)}"
    color = spec.view("opencode").get("color")
    if not isinstance(color, str):
        return None, None
    if color in THEME_COLORS:
        return THEME_COLORS[color], None
    if re.fullmatch(r"#[0-9a-fA-F]{6}", color):
        return nearest_color(color), None
    return None, None


def nearest_color(hex_color: str) -> str:
    rgb = tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return min(COLORS, key=lambda n: sum((a - b) ** 2 for a, b in zip(rgb, _RGB[n], strict=True)))


def agent_notes(spec: Spec, models: Mapping[str, str]) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, message) for what the Claude agent file cannot carry."""
    _, note = model_for(spec, models)
    if note:
        yield ("model",), note
    _, note = color_for(spec)
    if note:
        yield ("targets", NAME, "color"), note
    for key in _override(spec):
        if key in REFUSED:
            yield (
                ("targets", NAME, key),
                f"`targets.claude.{key}` is ignored: promptc derives Claude Code's tools "
                "and permissions from `permission`, so they never grant more",
            )
    data = spec.view("opencode")
    for key in data:
        if key in DROPPED or key not in _OPENCODE_ONLY:
            yield (key,), f"`{key}` has no Claude Code equivalent; the Claude agent leaves it out"


# --- commands ---------------------------------------------------------------------------------


def command_frontmatter(
    spec: Spec,
    project: Project,
    translation: Translation,
    models: Mapping[str, str],
    namer: Mapping[str, str],
) -> dict[str, Any]:
    data = spec.view("opencode")
    override = _override(spec)
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


def runner(spec: Spec, translation: Translation) -> Subject | None:
    """Who runs the mode's body: its agent, else the main thread."""
    agent = spec.meta.get("agent")
    found = [s for s in translation.subjects if s.name == agent]
    if found:
        return found[0]
    from compiler.translate import MAIN

    main = translation.main_agent or MAIN
    return next((s for s in translation.subjects if s.name == main), None)


def forked_agent(spec: Spec, project: Project, translation: Translation) -> str | None:
    agent = spec.meta.get("agent")
    if not isinstance(agent, str) or agent not in translation.tools:
        return None
    mode = translation.subject(agent).agent.mode
    if mode == "subagent" or (spec.meta.get("subtask") is True and mode != "primary"):
        return agent
    return None


def shell_commands(
    spec: Spec, project: Project, translation: Translation
) -> list[tuple[str, bool]]:
    """Each `` !`cmd` `` of the body, and whether Claude Code may run it unasked."""
    who = runner(spec, translation)
    found = []
    for cmd in dict.fromkeys(_SHELL.findall(spec.body)):
        ok = (
            who is not None
            and "(" not in cmd
            and ")" not in cmd
            and evaluate(who.rules, "bash", cmd).action == "allow"
        )
        found.append((cmd, ok))
    return found


def command_notes(
    spec: Spec, project: Project, translation: Translation, models: Mapping[str, str]
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, or ("!", cmd) for a shell line of the body; message)."""
    agent = spec.meta.get("agent")
    if isinstance(agent, str) and not forked_agent(spec, project, translation):
        if agent not in translation.tools:
            yield (
                ("agent",),
                f"agent `{agent}` is not a Claude Code agent of this bundle; "
                "the main thread runs the command",
            )
        elif agent != translation.main_agent:
            yield (
                ("agent",),
                f"Claude Code runs the command in the current session: start it with "
                f"`claude --agent {claude_name(agent)}` (or make {agent} the default_agent) "
                f"to run it as {agent}",
            )
    model = spec.view("opencode").get("model")
    if isinstance(model, str) and model not in models and not _override(spec).get("model"):
        yield (
            ("model",),
            f"model `{model}` has no Claude Code counterpart in the `models` option; "
            "the command uses the session's model",
        )
    for cmd, ok in shell_commands(spec, project, translation):
        if not ok:
            yield (
                ("!", cmd),
                (
                    f"`!`{cmd}`` is not pre-approved in Claude Code: the agent running the "
                    "mode may not run it without asking in OpenCode"
                ),
            )


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

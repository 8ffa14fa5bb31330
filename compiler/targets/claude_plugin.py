"""Claude Code plugin (@anthropic-ai/claude-code 2.1.332): the bundle as a plugin folder.

Emitted, relative to `<out>/claude-plugin/` (load it with `claude --plugin-dir`):

- `.claude-plugin/plugin.json`: `name`, `version`, `description`,
  `author` (`{"name": ...}`), then `license`, `homepage`, `repository` and
  `keywords` when configured. The defaults satisfy `claude plugin validate
  --strict`, which warns when description or author is missing.
- `agents/<name>.md` and `commands/<mode>.md`: the same files as the
  `claude` target's `.claude/agents` and `.claude/commands` (composed for the
  `claude` target, with `targets.claude` overrides), except that a plugin's
  agents are named `<plugin>:<name>` in Claude Code, so every reference to
  one (`Agent(...)` in `tools`, a forked command's `agent`) carries the
  prefix. Agent files sit flat in `agents/` because the plugin loader turns a
  subfolder into one more name prefix.
- `README.md`: what the plugin holds and how to load it, and the shared
  permission rules. A plugin cannot carry permission rules (its
  settings.json may only set `agent`), so the agents keep within their
  OpenCode rights only together with these rules in the project's
  `.claude/settings.json`; the README shows them, with plugin names.
- `TRANSLATION.md`: as in the `claude` target.

Options (`[tool.promptc.targets.claude-plugin]`):
    name (string, default: the config folder's name in kebab-case, with a
        `promptc-` prefix when Claude Code reserves it): plugin name. Names
        Claude Code reserves (`claude`, `claude-...`, `anthropic-...`, ...)
        are errors (rule `claude-name`).
    version (string, default "0.1.0").
    description (string, default: "<n> agents and <m> commands for Claude Code").
    author (string, default: the plugin name): `author.name`.
    license, homepage, repository (strings), keywords (list of strings):
        written when set.
    models (table): as in the `claude` target; defaults to that target's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from compiler.claude_agents import NAME as CLAUDE
from compiler.claude_agents import PLUGIN, claude_name, names, plugin_name
from compiler.project import Project
from compiler.targets import claude
from compiler.translate import translate

# compiler.translate loads in the functions that translate (see compiler.targets.claude).

NAME = PLUGIN
COMPOSE_AS = "claude"  # the same bodies as the claude target: the files must match
_NAME_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$"
# What Claude Code reads from a plugin (paths under <out>/claude-plugin/).
RUNTIME = "Claude Code"
LOADED = re.compile(
    r"(agents|commands)/.+\.md|skills/[^/]+/SKILL\.md"
    r"|\.claude-plugin/plugin\.json|hooks/hooks\.json|\.mcp\.json"
)
OPTIONS: dict[str, Any] = {
    "name": {
        "type": "string",
        "pattern": _NAME_PATTERN,
        "description": "Plugin name (kebab-case).",
    },
    "version": {"type": "string", "minLength": 1, "default": "0.1.0"},
    "description": {"type": "string", "minLength": 1},
    "author": {"type": "string", "minLength": 1, "description": "The author's name."},
    "license": {"type": "string", "minLength": 1},
    "homepage": {"type": "string", "minLength": 1},
    "repository": {"type": "string", "minLength": 1},
    "keywords": {"type": "array", "items": {"type": "string", "minLength": 1}},
    "models": claude.OPTIONS["models"],
}


def emit(project: Project, options: Mapping[str, Any]) -> dict[str, str]:
    return dict(files(project, options))


def files(project: Project, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    plugin = plugin_name(project, options)
    namer = names(project, plugin)
    yield from claude.layout(
        project, {"models": models(project, options)}, "", namer, with_settings=False
    )
    yield (
        ".claude-plugin/plugin.json",
        json.dumps(manifest(project, options), indent=2, ensure_ascii=False) + "\n",
    )
    yield "README.md", readme(project, options, namer)


def models(project: Project, options: Mapping[str, Any]) -> Mapping[str, str]:
    if "models" in options:
        return dict(options["models"])
    return dict(project.config.targets.get(CLAUDE, {}).get("models", {}))


def manifest(project: Project, options: Mapping[str, Any]) -> dict[str, Any]:
    plugin = plugin_name(project, options)
    translation = translate(project)
    agents, commands = len(translation.tools), len(project.modes)
    doc: dict[str, Any] = {
        "name": plugin,
        "version": options.get("version", "0.1.0"),
        "description": options.get(
            "description",
            f"{_count(agents, 'agent')} and {_count(commands, 'command')} for Claude Code",
        ),
        "author": {"name": options.get("author", plugin)},
    }
    for key in ("license", "homepage", "repository", "keywords"):
        if key in options:
            doc[key] = list(options[key]) if key == "keywords" else options[key]
    return doc


def readme(project: Project, options: Mapping[str, Any], namer: Mapping[str, str]) -> str:
    plugin = plugin_name(project, options)
    translation = translate(project)
    info = manifest(project, options)
    agents = [
        f"- `{namer[i]}`: {_first_line(project.agents[i].meta.get('description'))}"
        for i in translation.tools
    ]
    commands = [
        f"- `/{plugin}:{claude_name(i)}`: {_first_line(spec.meta.get('description'))}"
        for i, spec in project.modes.items()
    ]
    settings = claude.settings_json(translation, namer)
    return "\n".join(
        [
            f"# {plugin}\n",
            f"{_sentence(info['description'])}\n",
            "Generated by promptc from the bundle's OpenCode specs. Load it for one session "
            "with `claude --plugin-dir <this folder>`, or publish it in a marketplace.\n",
            "## Agents\n",
            "\n".join(agents) or "None.",
            "\n## Commands\n",
            "\n".join(commands) or "None.",
            "\n## Permissions\n",
            "A plugin cannot carry permission rules, and Claude Code has no per-agent allow, "
            "ask or deny. Each agent's `tools` list keeps it within its OpenCode rights only "
            "together with the shared rules below: put them in the project's "
            "`.claude/settings.json`. TRANSLATION.md lists every OpenCode rule that Claude Code "
            "cannot express exactly.\n",
            f"```json\n{settings}```\n",
        ]
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0] if lines else ""

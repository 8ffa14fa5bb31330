"""Claude Code plugin (@anthropic-ai/claude-code 2.1.332): the bundle as a plugin folder.

Emitted, relative to `<out>/claude-plugin/` (load it with `claude --plugin-dir`):
`.claude-plugin/plugin.json`, then `agents/`, `commands/` and `TRANSLATION.md`
as the `claude` target writes them (composed for `claude`), except that a
plugin's agents are named `<plugin>:<name>`, so every reference to one carries
the prefix, and agent files sit flat (a subfolder would add a name prefix).
A plugin cannot carry permission rules: each agent keeps only the tools whose
Claude Code defaults decide no more than OpenCode (promptc_compiler.runtimes.claude.translate
without
settings), and `README.md` and TRANSLATION.md say what that costs.

Options (`[tool.promptc.targets.claude-plugin]`, OPTIONS): the manifest's
fields and `models` (default: the `claude` target's). The default name is the
config folder's name in kebab-case, with a `promptc-` prefix when Claude Code
reserves it; a reserved name configured is an error (rule `claude-name`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.runtimes.adapter import Starter
from promptc_compiler.runtimes.claude import target as claude
from promptc_compiler.runtimes.claude.agents import NAME as CLAUDE
from promptc_compiler.runtimes.claude.agents import PLUGIN, names, plugin_name
from promptc_compiler.runtimes.claude.translate import PLUGIN_TRANSLATOR
from promptc_compiler.runtimes.translation import flat_name
from promptc_compiler.runtimes.translations import Translated

NAME = PLUGIN
COMPOSE_AS = CLAUDE  # the same bodies as the claude target: the files must match
SCHEMAS = (
    (".claude-plugin/plugin.json", "claude-plugin"),
    ("agents/*.md", "claude-agent"),
    ("commands/*.md", "claude-command"),
    ("skills/*/SKILL.md", "claude-skill"),
)
STARTER = Starter()
_NAME_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$"
# What Claude Code reads from a plugin (paths under <out>/claude-plugin/).
# A plugin is a folder of its own, not a project's files: `<out>/claude-plugin/`
# in either layout.
ROOT = None
SHARED: dict[str, tuple[str, ...]] = {}
RUNTIME = claude.RUNTIME
SPEC_KEYS = claude.SPEC_KEYS  # the same agent and command files
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


def files(project: Translated, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    info = manifest(project, options)
    namer = names(project, info["name"])
    yield from claude.layout(
        project, {"models": models(project, options)}, "", namer, with_settings=False
    )
    yield ".claude-plugin/plugin.json", json.dumps(info, indent=2, ensure_ascii=False) + "\n"
    yield "README.md", readme(project, info, namer)


def models(project: Translated, options: Mapping[str, Any]) -> Mapping[str, str]:
    if "models" in options:
        return dict(options["models"])
    return dict(project.config.targets.get(CLAUDE, {}).get("models", {}))


def manifest(project: Translated, options: Mapping[str, Any]) -> dict[str, Any]:
    plugin = plugin_name(project, options)
    translation = project.translations.of(PLUGIN_TRANSLATOR)
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


def readme(project: Translated, info: Mapping[str, Any], namer: Mapping[str, str]) -> str:
    """README.md, from the plugin's manifest (`info`)."""
    plugin = info["name"]
    translation = project.translations.of(PLUGIN_TRANSLATOR)
    agents = [
        f"- `{namer[i]}`: {_first_line(project.agents[i].meta.get('description'))}"
        for i in translation.tools
    ]
    commands = [
        f"- `/{plugin}:{flat_name(i)}`: {_first_line(spec.meta.get('description'))}"
        for i, spec in project.modes.items()
    ]
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
            "ask or deny. So each agent keeps only the tools whose Claude Code defaults never "
            "decide more than its OpenCode rules: Claude Code runs its read-only shell "
            "commands and reads any project file unasked, so an agent whose OpenCode rules ask "
            "for some of those has no Bash or Read here. The `claude` target keeps more, with "
            "a settings file. TRANSLATION.md lists every OpenCode rule that Claude Code cannot "
            "express exactly.\n",
        ]
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0] if lines else ""

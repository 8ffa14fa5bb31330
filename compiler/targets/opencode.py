"""OpenCode (opencode-ai 1.18.33, V1 format): .opencode/agents, .opencode/commands, opencode.json.

Agent frontmatter carries only keys OpenCode knows, in a fixed order
(description, mode, model, variant, temperature, top_p, steps, color, hidden,
disable, options, permission); permission maps keep their source order,
because under last-match-wins order is meaning. Modes become commands run by
the agent the mode names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from compiler import yamlout
from compiler.project import Project, Spec

NAME = "opencode"
OPTIONS: dict[str, Any] = {}

AGENT_KEYS = (
    "description",
    "mode",
    "model",
    "variant",
    "temperature",
    "top_p",
    "steps",
    "color",
    "hidden",
    "disable",
    "options",
    "permission",
)
COMMAND_KEYS = ("description", "agent", "model", "subtask")
SCHEMA_URL = "https://opencode.ai/config.json"


def emit(project: Project, options: Mapping[str, Any]) -> dict[str, str]:
    files: dict[str, str] = {}
    for ident, spec in project.agents.items():
        files[f".opencode/agents/{ident}.md"] = _document(spec, AGENT_KEYS)
    for ident, spec in project.modes.items():
        files[f".opencode/commands/{ident}.md"] = _document(spec, COMMAND_KEYS)
    files["opencode.json"] = _config(project)
    return files


def agent_frontmatter(spec: Spec) -> dict[str, Any]:
    """The frontmatter keys and values an agent file carries (what OpenCode reads)."""
    return _front(spec, AGENT_KEYS)


def _front(spec: Spec, order: tuple[str, ...]) -> dict[str, Any]:
    data = spec.for_target(NAME)
    return {key: data[key] for key in order if key in data}


def _document(spec: Spec, order: tuple[str, ...]) -> str:
    front = _front(spec, order)
    body = spec.body if spec.body.endswith("\n") else spec.body + "\n"
    return f"---\n{yamlout.dump(front)}---\n{body}"


def _config(project: Project) -> str:
    config: dict[str, Any] = {"$schema": SCHEMA_URL}
    if project.config.default_agent:
        config["default_agent"] = project.config.default_agent
    if project.config.permission is not None:
        config["permission"] = _plain(project.config.permission)
    return json.dumps(config, indent=2) + "\n"


def _plain(value: Any) -> Any:
    """Frozen config data back to JSON-ready dicts, order kept (order is meaning)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value

"""OpenCode (opencode-ai 1.18.33, V1 format): the files `opencode` loads from a project.

Emitted, relative to `<out>/opencode/` (README.md, "The OpenCode target", lists
every file and key): `.opencode/agents/<id>.md` for every agent,
`.opencode/commands/<mode>.md` for every mode, `.opencode/skills/<name>/` for
every skill (promptc_compiler.runtimes.skills) and `opencode.json`.

Agent frontmatter keys come in the order of OpenCode's own agent schema
(runtime.AGENT_KEYS), so diffs stay small, then any other key in source order:
OpenCode hands keys it does not know to the model provider, so what the author
wrote passes through rather than silently vanishing. `prompt` is not written
(the body replaces it), nor `name`, which would rename the agent away from its
file path, the id every `task` rule, mode and check refers to. Permission maps
keep their source order, keys and patterns alike: OpenCode's last matching
rule wins, so order is meaning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.source import SOURCE
from promptc_compiler.core import yamlout
from promptc_compiler.core.config import thaw
from promptc_compiler.core.project import Project, Spec
from promptc_compiler.permissions.runtime import agent_frontmatter
from promptc_compiler.runtimes.adapter import Starter
from promptc_compiler.runtimes.skills import emit_skills

NAME = SOURCE
COMPOSE_AS = NAME
OPTIONS: dict[str, Any] = {}
RUNTIME = "OpenCode"
# `targets.opencode` takes OpenCode's own agent keys (the spec's format) and command keys.
SPEC_KEYS = {"agent": "opencodeAgent", "mode": "opencodeCommand"}
SCHEMAS = (
    (".opencode/agents/*.md", "opencode-agent"),
    (".opencode/commands/*.md", "opencode-command"),
    (".opencode/skills/*/SKILL.md", "opencode-skill"),
    ("opencode.json", "opencode-config"),
)
STARTER = Starter(at_root=".opencode/ with opencode.json")
# What `opencode` reads from a project (paths under <out>/opencode/), so that a
# check can name a file there that promptc did not write.
LOADED = re.compile(
    r"(\.opencode/)?opencode\.jsonc?"
    r"|\.opencode/(agents?|commands?)/.+\.md|\.opencode/modes?/[^/]+\.md"
    r"|(\.opencode/skills?|\.claude/skills|\.agents/skills)/.+/SKILL\.md"
    r"|\.opencode/(plugins?|tools?)/[^/]+\.[jt]s"
)

COMMAND_KEYS = ("description", "agent", "model", "subtask")
SCHEMA_URL = "https://opencode.ai/config.json"
SKILLS_DIR = ".opencode/skills/"
# In the root layout (`layout = "root"`): the paths written at the project root,
# and the shared files, whose own keys stay the user's (promptc_compiler.core.merge).
ROOT = re.compile(r"\.opencode/.+|opencode\.json")
SHARED: dict[str, tuple[str, ...]] = {"opencode.json": ()}


def files(project: Project, _options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    dumper = yamlout.Dumper()
    for ident, spec in project.agents.items():
        yield f".opencode/agents/{ident}.md", dumper.document(agent_frontmatter(spec), spec.body)
    for ident, spec in project.modes.items():
        yield (
            f".opencode/commands/{ident}.md",
            dumper.document(command_frontmatter(spec), spec.body),
        )
    yield from emit_skills(project, SKILLS_DIR).items()
    yield "opencode.json", json.dumps(config_document(project), indent=2) + "\n"


def command_frontmatter(spec: Spec) -> dict[str, Any]:
    """The frontmatter of a mode's command: only the keys an OpenCode command takes."""
    data = spec.view(NAME)
    return {key: data[key] for key in COMMAND_KEYS if key in data}


def config_document(project: Project) -> dict[str, Any]:
    """opencode.json. A top-level `permission` would go last: OpenCode places its
    rules after the built-in defaults and before every agent's own."""
    config: dict[str, Any] = {"$schema": SCHEMA_URL}
    if project.config.default_agent:
        config["default_agent"] = project.config.default_agent
    if project.config.permission is not None:
        config["permission"] = thaw(project.config.permission)
    return config

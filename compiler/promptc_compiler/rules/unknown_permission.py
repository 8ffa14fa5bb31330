"""Permission keys no OpenCode tool asks for, unless the bundle declares them.

OpenCode accepts any key as a rule, because MCP tools (`<server>_<tool>`)
and custom tools ask for permissions under their own names. So a misspelt or
invented key is kept silently and never applies: `write: deny` blocks
nothing (the edit, write and apply_patch tools all ask for `edit`),
`file_write` and `bash_execution` match no tool, and a template placeholder
left in (`__OPENCODE_PROTOCOL_PATH_YAML__`) is taken literally. Keys of tools
the bundle does provide go in `custom_tools` in the promptc config; keys with
`*` or `?` (`context7_*`) match tool names and are accepted. (A misspelt
`permission` key itself, such as `permissions:`, is the `key-typo` rule's.)
(`list` is
accepted because OpenCode's schema lists it, although no 1.18.33 tool asks
for it.)

Fails:
    permission:
      write: deny          # OpenCode has no `write` permission: use `edit`
Passes:
    permission:
      edit: deny
      plan_db: allow       # with custom_tools = ["plan_db"]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import KNOWN_KEYS, Locate
from promptc_compiler.permissions.runtime import (
    agent_frontmatter,
    config_locator,
    locator,
    problem_at,
)
from promptc_compiler.runtimes.translations import Translated

ID = "unknown-permission"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

EDIT_ALIASES = ("write", "patch", "apply_patch", "multiedit")
PLACEHOLDER = re.compile(r"^__\w+__$|\{\{|\}\}|\$\{|<<|>>|%\w+%|^\$[A-Z_]+$")


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    custom = project.config.custom_tools
    for agent in runtime.bundle_agents():
        spec = agent.spec
        assert spec is not None
        data = agent_frontmatter(spec).get("permission")
        if isinstance(data, Mapping):
            locate = locator(spec, "permission")
            for key in data:
                yield from _unknown(key, custom, locate)
    value = project.config.permission
    if isinstance(value, Mapping) and project.config.source is not None:
        locate = config_locator(project.config)
        for key in value:
            yield from _unknown(key, custom, locate)


def _unknown(key: str, custom: tuple[str, ...], locate: Locate) -> Iterator[Problem]:
    if key in KNOWN_KEYS or not wildcard.is_literal(key):
        return  # the common case: no position needed
    if any(wildcard.match(key, tool) for tool in custom):
        return
    hint: str | None = None
    if key in EDIT_ALIASES:
        message = (
            f"OpenCode has no `{key}` permission: the edit, write and apply_patch tools "
            "all ask for `edit`, so this rule never applies"
        )
        hint = f"write it under `edit`, not `{key}`"
    elif PLACEHOLDER.search(key):
        message = (
            f"`{key}` looks like a template placeholder that was never filled in: "
            "OpenCode takes it literally, as a permission no tool asks for"
        )
    else:
        message = (
            f"no OpenCode tool asks for `{key}`{did_you_mean(key, KNOWN_KEYS)}: OpenCode keeps "
            "it as a rule for an MCP or custom tool of that name, so it never applies"
        )
        hint = "if the bundle provides a tool of this name, list it in `custom_tools`"
    yield problem_at(locate((key,)), message, hint)

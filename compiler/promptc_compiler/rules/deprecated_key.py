"""Deprecated OpenCode agent keys: the `tools` map and `maxSteps`.

OpenCode still reads them, so this is a warning. `tools: {bash: false}` is
turned into permission rules placed before the agent's own `permission` map
(`write`, `edit` and `patch` all become `edit`); a key in both takes the
`permission` value but keeps the `tools` position, so a file holding both is
hard to read right. `maxSteps` is the old name of `steps`. A `tools` list or
comma string (Claude Code's syntax) is a load error, reported by `schema`.

Options: none.

Fails:
    ---
    description: Reviews diffs for bugs and missing tests.
    tools:                # deprecated: move these into `permission`
      bash: false
    permission:
      edit: deny
    ---
Passes:
    ---
    description: Reviews diffs for bugs and missing tests.
    permission:
      bash: deny
      edit: deny
    ---
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Project
from promptc_compiler.core.validate import opencode_sections

ID = "deprecated-key"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    for spec in project.agents.values():
        for base, section in opencode_sections(spec.meta):
            tools = section.get("tools")
            if isinstance(tools, Mapping):
                pos = spec.where(*base, "tools", key=True)
                yield Problem(*pos, _tools_message(tools, section), path=spec.source.path)
            if "maxSteps" in section:
                pos = spec.where(*base, "maxSteps", key=True)
                message = "`maxSteps` is deprecated: write `steps`"
                if "steps" in section:
                    message += " (`steps` is set too, and wins)"
                yield Problem(*pos, message, path=spec.source.path)


def _tools_message(tools: Mapping[str, Any], section: Mapping[str, Any]) -> str:
    example = ", ".join(
        f"{'edit' if k in ('write', 'patch') else k}: {'allow' if v else 'deny'}"
        for k, v in list(tools.items())[:3]
        if isinstance(v, bool)
    )
    fix = f" (`permission: {{{example}}}`)" if example else ""
    if "permission" in section:
        return (
            "`tools` is deprecated, and next to `permission` it is merged in first: "
            f"its rules come before the permission map's. Move its entries into `permission`{fix}"
        )
    return f"`tools` is deprecated: write the same as `permission`{fix}"

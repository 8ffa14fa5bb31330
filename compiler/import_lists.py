"""Import, Copilot CLI and Gemini CLI side: an agent file or a Gemini command as a promptc spec.

An agent's `tools` list becomes a `permission` map that never grants more
than the runtime would: every OpenCode permission one of the runtime's tools
acts under (the tables of compiler.tool_lists) is allowed when a listed tool
acts under it and denied otherwise; an agent without `tools` (every tool)
gets no map. Copilot also takes its tools' own names (`view`, `bash`,
`create`, ...). Copilot gives every agent `skill` and its todo list anyway,
so those stay at OpenCode's default; Gemini subagents start no subagents, so
a Gemini agent gets `task: deny`. A Copilot agent is `mode: all` (the user
picks it and Copilot's `task` starts it), or `primary` with `infer: false`;
a Gemini agent is a subagent. `max_turns` becomes `steps`. The keys the
target's `targets.<target>` override table takes and OpenCode has no place for
go there as written, so that a build for the same runtime writes them back:
`model` (named without a provider, which OpenCode needs) in both runtimes,
Copilot's `infer: true`, Gemini's `display_name`, `temperature` and
`timeout_mins` (and a `max_turns` that is no step count). A Gemini command's
`{{args}}` becomes `$ARGUMENTS`, its `!{cmd}` becomes `` !`cmd` `` and its
`@{path}` becomes `@path`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from compiler.import_claude import Note
from compiler.tool_lists import COPILOT, GEMINI, Runtime

# Copilot's own tool names, beside its aliases.
COPILOT_NAMES = {
    "view": ("read", "list"),
    "grep": ("grep",),
    "glob": ("glob",),
    "edit": ("edit",),
    "create": ("edit",),
    "bash": ("bash",),
    "task": ("task",),
    "web_fetch": ("webfetch",),
}
# Keys of the agent file that the target's override table takes as written and
# that have no OpenCode key of their own (schemas/agent.schema.json lists them).
OVERRIDES = {
    "copilot": ("model",),
    "gemini": ("display_name", "model", "temperature", "timeout_mins"),
}
_KNOWN = {
    "copilot": ("name", "description", "tools", "infer", *OVERRIDES["copilot"]),
    "gemini": ("kind", "name", "description", "tools", "max_turns", *OVERRIDES["gemini"]),
}
_SHELL = re.compile(r"!\{([^{}`\n]+)\}")
_FILE = re.compile(r"@\{([^{}\s]+)\}")


def agent_spec(
    runtime: Runtime, ident: str, meta: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, list[Note]]:
    """The promptc agent frontmatter for a runtime's agent (None: not importable)."""
    notes: list[Note] = []
    if runtime is GEMINI and meta.get("kind", "local") != "local":
        return None, [Note("kind", f"a `{meta['kind']}` agent runs elsewhere; not imported")]
    stem = ident.rsplit("/", 1)[-1]
    if "name" in meta and meta["name"] != stem:
        notes.append(
            Note("name", f"name `{meta['name']}` differs from the file name: the id is `{ident}`")
        )
    spec: dict[str, Any] = {}
    if "description" in meta:
        spec["description"] = meta["description"]
    if runtime is COPILOT:
        spec["mode"] = "primary" if meta.get("infer") is False else "all"
    else:
        spec["mode"] = "subagent"
    if _step_count(meta.get("max_turns")):
        spec["steps"] = meta["max_turns"]
    if "tools" in meta:
        spec["permission"] = permission_map(runtime, meta["tools"], notes)
    override = override_table(runtime, meta)
    if override:
        spec["targets"] = {runtime.target: override}
    for key in meta:
        if key not in _KNOWN[runtime.target]:
            notes.append(Note(key, f"`{key}` has no promptc equivalent; not carried over"))
    return spec, notes


def override_table(runtime: Runtime, meta: Mapping[str, Any]) -> dict[str, Any]:
    """The agent's keys that only `targets.<target>` can say, as written (the schema
    checks their values when the imported bundle is linted)."""
    table = {key: meta[key] for key in OVERRIDES[runtime.target] if key in meta}
    # `infer: false` is said by `mode: primary`, and no `infer` is Copilot's `true`:
    # an explicit `true` (or a value Copilot refuses) is written back only from here.
    if runtime is COPILOT and "infer" in meta and meta["infer"] is not False:
        table["infer"] = meta["infer"]
    # A `max_turns` that is no step count keeps its place, where the lint says why.
    if runtime is GEMINI and "max_turns" in meta and not _step_count(meta["max_turns"]):
        table["max_turns"] = meta["max_turns"]
    return table


def _step_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def permission_map(runtime: Runtime, tools: Any, notes: list[Note]) -> dict[str, str]:
    listed = [tools] if isinstance(tools, str) else [str(t) for t in tools or ()]
    if "*" in listed:
        return {}
    table = dict(runtime.tools)
    if runtime is COPILOT:
        table.update(COPILOT_NAMES)
    allowed: set[str] = set()
    for tool in listed:
        if tool in table:
            allowed.update(table[tool])
        else:
            notes.append(Note("tools", f"`{tool}` has no OpenCode permission promptc knows"))
    fixed = {p for _, p in runtime.fixed}
    permission = {
        p: "allow" if p in allowed else "deny" for p in runtime.permissions if p not in fixed
    }
    if runtime is GEMINI:
        permission["task"] = "deny"
    return permission


def command_spec(meta: Mapping[str, Any]) -> tuple[dict[str, Any], str | None, list[Note]]:
    """A Gemini command (parsed TOML) as (mode frontmatter, body, notes); body None: none."""
    notes: list[Note] = []
    prompt = meta.get("prompt")
    if not isinstance(prompt, str):
        return {}, None, [Note("prompt", "no `prompt` string; not imported")]
    body = prompt.replace("{{args}}", "$ARGUMENTS")
    body = _FILE.sub(r"@\1", _SHELL.sub(r"!`\1`", body))
    description = meta.get("description")
    if not isinstance(description, str):
        description = next((line.strip("# ") for line in body.split("\n") if line.strip()), "")
        notes.append(Note("description", "no description: the first line of the prompt stands in"))
    for key in meta:
        if key not in ("prompt", "description"):
            notes.append(Note(key, f"`{key}` has no promptc equivalent; not carried over"))
    return {"description": description[:200] or "Imported command"}, body, notes

"""Import, Claude Code side: a `.claude/agents/*.md` frontmatter as a promptc spec.

Claude Code keys keep their meaning for the Claude targets under
`targets.claude`; for OpenCode, `tools` (an allowlist) and `disallowedTools`
become a `permission` map that never grants more than Claude Code would:
every OpenCode permission whose Claude tool is not in the allowlist is
denied (no `Bash` gives `bash: deny`; `Bash(git diff:*)` gives bash
`"*": deny, "git diff *": allow`; `Agent(scout, scribe)` likewise for
`task`), and every disallowed tool is denied. A tool listed in neither gets
no rule: OpenCode's own default applies. `edit` covers OpenCode's edit, write
and patch tools, so it stays open only when both `Edit` and `Write` are
allowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

# OpenCode permission -> the Claude Code tools that must all be allowed for it
# to stay open (any one of the alternatives).
REQUIRES: Mapping[str, tuple[frozenset[str], ...]] = {
    "read": (frozenset({"Read"}),),
    "edit": (frozenset({"Edit", "Write"}),),
    "glob": (frozenset({"Glob"}),),
    "grep": (frozenset({"Grep"}),),
    "list": (frozenset({"LS"}), frozenset({"Glob"})),
    "bash": (frozenset({"Bash"}),),
    "task": (frozenset({"Agent"}), frozenset({"Task"})),
    "webfetch": (frozenset({"WebFetch"}),),
    "websearch": (frozenset({"WebSearch"}),),
    "todowrite": (frozenset({"TodoWrite"}),),
    "skill": (frozenset({"Skill"}),),
    "lsp": (frozenset({"LSP"}),),
}
# Claude tools whose pattern form `Tool(a, b)` narrows an OpenCode pattern permission.
PATTERNED = {"Bash": "bash", "Agent": "task", "Task": "task"}
# Claude Code tools promptc knows have no OpenCode permission of their own.
NO_COUNTERPART = frozenset(
    {"MultiEdit", "NotebookEdit", "NotebookRead", "BashOutput", "KillShell", "KillBash"}
)
CLAUDE_ONLY_KEYS = (
    *("color", "permissionMode", "hooks", "mcpServers", "memory", "skills", "effort"),
    *("isolation", "maxTurns", "background", "initialPrompt"),
)
COMMAND_CLAUDE_KEYS = (
    *("allowed-tools", "model", "disable-model-invocation"),
    *("context", "agent", "hooks"),
)
_TOOL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)(?:\(([^)]*)\))?\s*")


@dataclass(frozen=True)
class Note:
    """Something the import could not carry over, at a frontmatter key."""

    key: str
    message: str


def tool_list(value: Any) -> list[str]:
    """Claude's tools value (comma-separated text or a list) as tool entries."""
    if isinstance(value, str):
        parts: list[str] = []
        depth, current = 0, ""
        for char in value:
            depth += (char == "(") - (char == ")")
            if char == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += char
        parts.append(current)
        return [part.strip() for part in parts if part.strip()]
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    return []


def _split(entry: str) -> tuple[str, list[str] | None]:
    match = _TOOL.fullmatch(entry)
    if match is None:
        return entry, None
    patterns = match.group(2)
    if patterns is None:
        return match.group(1), None
    return match.group(1), [p.strip() for p in patterns.split(",") if p.strip()]


def _bash_pattern(pattern: str) -> str:
    """Claude's prefix form `git diff:*` is OpenCode's `git diff *` (which also matches bare)."""
    return pattern[:-2] + " *" if pattern.endswith(":*") else pattern


def permission_map(meta: Mapping[str, Any]) -> tuple[dict[str, Any], list[Note]]:
    """The OpenCode permission map for a Claude agent's `tools` and `disallowedTools`."""
    notes: list[Note] = []
    permission: dict[str, Any] = {}
    if "tools" in meta and meta["tools"] not in ("*", ["*"]):
        permission.update(_allowlist(tool_list(meta["tools"]), notes))
    for entry in tool_list(meta.get("disallowedTools")):
        _deny(permission, entry, notes)
    return permission, notes


def _allowlist(entries: list[str], notes: list[Note]) -> dict[str, Any]:
    allowed: set[str] = set()
    narrowed: dict[str, dict[str, str]] = {}
    for entry in entries:
        tool, patterns = _split(entry)
        if tool.startswith("mcp__"):
            notes.append(Note("tools", f"`{entry}`: MCP tools have no permission promptc writes"))
            continue
        if patterns is not None and tool in PATTERNED:
            key = PATTERNED[tool]
            rules = narrowed.setdefault(key, {"*": "deny"})
            for pattern in patterns:
                rules[_bash_pattern(pattern) if key == "bash" else pattern] = "allow"
            continue
        if patterns is not None:
            notes.append(Note("tools", f"`{entry}`: only the pattern-less tool is carried over"))
        allowed.add(tool)
        if tool not in NO_COUNTERPART and not any(tool in s for a in REQUIRES.values() for s in a):
            notes.append(Note("tools", f"`{tool}` has no OpenCode permission promptc knows"))
    permission: dict[str, Any] = {}
    for key, alternatives in REQUIRES.items():
        if key in narrowed:
            permission[key] = narrowed[key]
        elif not any(needed <= allowed for needed in alternatives):
            permission[key] = "deny"
    if ({"Edit", "Write"} & allowed) and permission.get("edit") == "deny":
        notes.append(
            Note("tools", "OpenCode's `edit` covers both Edit and Write: denied, as one is missing")
        )
    return permission


def _deny(permission: dict[str, Any], entry: str, notes: list[Note]) -> None:
    tool, patterns = _split(entry)
    keys = [k for k, alts in REQUIRES.items() if any(tool in needed for needed in alts)]
    if not keys:
        notes.append(Note("disallowedTools", f"`{entry}` has no OpenCode permission promptc knows"))
        return
    for key in keys:
        if patterns is None or key not in ("bash", "task"):
            permission[key] = "deny"
            continue
        current = permission.get(key)
        if current == "deny":
            continue
        rules = dict(current) if isinstance(current, dict) else {}
        for pattern in patterns:
            rules[_bash_pattern(pattern) if key == "bash" else pattern] = "deny"
        permission[key] = rules


def agent_spec(ident: str, meta: Mapping[str, Any]) -> tuple[dict[str, Any], list[Note]]:
    """A promptc agent frontmatter for a Claude Code agent, and what did not carry over."""
    notes: list[Note] = []
    stem = ident.rsplit("/", 1)[-1]
    if "name" in meta and meta["name"] != stem:
        notes.append(
            Note(
                "name",
                f"name `{meta['name']}` differs from the file name `{stem}`: the id is `{ident}`",
            )
        )
    spec: dict[str, Any] = {}
    if "description" in meta:
        spec["description"] = meta["description"]
    spec["mode"] = "subagent"
    claude: dict[str, Any] = {}
    if "model" in meta:
        claude["model"] = meta["model"]
        if meta["model"] != "inherit":
            notes.append(
                Note(
                    "model",
                    f"model `{meta['model']}` kept for Claude Code only; OpenCode needs "
                    "`provider/model` (set `model:` or `targets.opencode.model`)",
                )
            )
    permission, permission_notes = permission_map(meta)
    notes.extend(permission_notes)
    if permission:
        spec["permission"] = permission
    for key in ("tools", "disallowedTools", *CLAUDE_ONLY_KEYS):
        if key in meta:
            claude[key] = meta[key]
    known = ("name", "description", "model", "tools", "disallowedTools", *CLAUDE_ONLY_KEYS)
    for key in meta:
        if key not in known:
            notes.append(
                Note(key, f"`{key}` is no Claude Code agent key promptc knows; not carried over")
            )
    if claude:
        spec["targets"] = {"claude": claude, "claude-plugin": claude}
    return spec, notes


def command_spec(meta: Mapping[str, Any], body: str) -> tuple[dict[str, Any], list[Note]]:
    """A promptc mode frontmatter for a Claude Code command."""
    notes: list[Note] = []
    spec: dict[str, Any] = {}
    if "description" in meta:
        spec["description"] = meta["description"]
    else:
        first = next((line.strip() for line in body.split("\n") if line.strip()), "")
        spec["description"] = first.lstrip("# ")[:200] or "Imported command"
        notes.append(Note("description", "no description: the first line of the body stands in"))
    if "argument-hint" in meta:
        spec["argument-hint"] = meta["argument-hint"]
    claude = {key: meta[key] for key in COMMAND_CLAUDE_KEYS if key in meta}
    for key in meta:
        if key not in ("description", "argument-hint", *COMMAND_CLAUDE_KEYS):
            notes.append(
                Note(key, f"`{key}` is no Claude Code command key promptc knows; not carried over")
            )
    if claude:
        spec["targets"] = {"claude": claude, "claude-plugin": claude}
    return spec, notes


def settings_notes(settings: Mapping[str, Any]) -> Iterator[Note]:
    """settings.json: session-wide rules have no per-agent equivalent."""
    permissions = settings.get("permissions")
    if isinstance(permissions, Mapping):
        for key in permissions:
            yield Note(
                f"permissions.{key}",
                "session-wide permission rules have no per-agent equivalent; not carried over",
            )
    for key in settings:
        if key not in ("permissions", "$schema"):
            yield Note(key, "a Claude Code session setting; promptc does not write it")

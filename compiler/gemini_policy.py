"""OpenCode's ordered rules as Gemini CLI policy rules, one subagent at a time.

Gemini CLI 0.61 decides a tool call by the highest-priority policy rule that
matches it (user tier 4.x above extension tier 2.x above its defaults 1.x);
a rule names a tool, optionally the subagent making the call (`subagent`),
and a regular expression over the call's arguments (`argsPattern`), tested
against a stable JSON text of them in which each top-level pair stands
between NUL characters: `{\\x00"command":"git status"\\x00}`. OpenCode decides
by the last matching rule, so each agent's rules for a tool become rules in
OpenCode's order with rising priorities (the later, the higher), under one
rule that asks for every call (so Gemini's own shortcuts, such as running a
read-only command unasked, never decide for the agent).

A pattern cannot say everything OpenCode's path and command handling does
(a path given absolute, `./x`, `a/../b`; a command naming a folder outside
the project, which OpenCode asks `external_directory` about). So a deny or
an ask rule matches more than its pattern does (any leading folders, any
leading words), and an allow matches less: only a plain relative path, only
a command that names no absolute, home or parent path. What falls between
asks. Gemini's check of a regular expression refuses a quantified group, so
none is written.

An extension may not allow (Gemini drops such rules), so the extension holds
the deny and ask rules and a user policy file holds them all: without the
user policy a call OpenCode allows asks, and nothing widens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from compiler.permissions import names_home
from compiler.tool_lists import GEMINI, Plan, runtime_name

EXTENSION_FILE = "policies/promptc.toml"
# Gemini tool -> the argument OpenCode's input of its permission is in.
ARGUMENT = {
    "run_shell_command": "command",
    "read_file": "file_path",
    "write_file": "file_path",
    "replace": "file_path",
    "activate_skill": "name",
}
PATH_ARGUMENTS = frozenset({"file_path"})
BASE = 100  # the priority of an agent's ask-for-everything rule for a tool
DECISIONS = {"allow": "allow", "ask": "ask_user", "deny": "deny"}

_ANY = "[^\\x00]*"  # any part of a JSON string value (NUL is always escaped there)
_ONE = "(?:\\\\u[0-9a-fA-F]{4}|\\\\.|[^\\\\\\x00])"  # one character, JSON-encoded
# A plain relative path, as OpenCode compares it: not absolute, home or `./`;
# no `..` or `.` segment, no `//`, no `/` at its end, no backslash.
_PLAIN_PATH = (
    '(?![/~]|\\.\\.?(?:/|"\\x00)|[^\\x00]*/\\.\\.?(?:/|"\\x00)|[^\\x00]*//'
    '|[^\\x00]*/"\\x00|[^\\x00]*\\\\\\\\)'
)
# A command naming no absolute, home or parent path (OpenCode would ask
# external_directory for one outside the project).
_LOCAL_COMMAND = "(?![/~]|[^\\x00]*\\.\\.|[^\\x00]*[^\\w.\\-/\\x00][/~])"
# What may stand before a deny's or an ask's path (folders) or command (words).
_PATH_LEAD = "(?:|[^\\x00]*/)"
_COMMAND_LEAD = "(?:|[^\\x00]*[^\\w.\\-/\\x00])"


@dataclass(frozen=True)
class PolicyRule:
    subagent: str
    tool: str
    decision: str  # allow | ask_user | deny
    priority: int
    args: str | None  # argsPattern; None for a rule about every call of the tool


def rules(found: Plan) -> tuple[PolicyRule, ...]:
    """Every policy rule of the written agents, agent by agent, tool by tool."""
    out: list[PolicyRule] = []
    for ident, tools in found.tools.items():
        agent = found.agents[ident]
        own = agent.effective(as_subagent=True)
        name = runtime_name(ident)
        for tool, perms in GEMINI.tools:
            if tool not in tools:
                continue
            argument = ARGUMENT.get(tool)
            if argument is None:
                out.append(_whole(name, tool, [r.action for r in own if r.names(perms[0])]))
                continue
            out.append(PolicyRule(name, tool, "ask_user", BASE, _value(argument, _ANY)))
            written = [r for r in own if r.names(perms[0])]
            for offset, rule in enumerate(written, start=1):
                pattern = rule.written if rule.written and names_home(rule.written) else rule.pattern
                regex = _regex(argument, pattern, strict=rule.action == "allow")
                out.append(PolicyRule(name, tool, DECISIONS[rule.action], BASE + offset, regex))
    return tuple(out)


def _whole(name: str, tool: str, actions: list[str]) -> PolicyRule:
    # Kept whole only where OpenCode denies none of its calls (tool_lists).
    decision = "allow" if actions and all(a == "allow" for a in actions) else "ask_user"
    return PolicyRule(name, tool, decision, BASE, None)


def _value(argument: str, body: str) -> str:
    return f'\\x00"{argument}":"{body}"\\x00'


def _regex(argument: str, pattern: str, strict: bool) -> str:
    body = _pattern(pattern)
    if argument in PATH_ARGUMENTS:
        return _value(argument, (_PLAIN_PATH if strict else _PATH_LEAD) + body)
    if argument == "command":
        return _value(argument, (_LOCAL_COMMAND if strict else _COMMAND_LEAD) + body)
    return _value(argument, body)


def _pattern(pattern: str) -> str:
    """OpenCode's wildcard (`*` any text, `?` one character, a trailing ` *`
    optional) as an expression over the JSON-encoded text."""
    # Code points, not wildcard.normal's UTF-16 units: the file is UTF-8.
    units = pattern.replace("\\", "/")
    tail = units.endswith(" *")
    if tail:
        units = units[:-2]
    parts = [_ANY if c == "*" else _ONE if c == "?" else _literal(c) for c in units]
    if tail:
        parts.append(f"(?:| {_ANY})")
    return "".join(parts)


def _literal(char: str) -> str:
    # A `/` in OpenCode's text also stands for a `\\` (it compares both as `/`).
    if char == "/":
        return "(?:/|\\\\\\\\)"
    return re.escape(json.dumps(char, ensure_ascii=False)[1:-1])


def render(found: Iterable[PolicyRule], extension: bool) -> str:
    """The TOML file: every rule (the user policy) or the deny and ask ones (the
    extension's, since Gemini drops an extension's allow rules)."""
    head = (
        "# Written by promptc: the deny and ask rules of the extension's subagents.\n"
        if extension
        else "# Written by promptc: every rule of the extension's subagents. Copy this file to\n"
        "# ~/.gemini/policies/ (or pass it with --policy) for what OpenCode allows to run.\n"
    )
    return head + "".join(_rule(r) for r in found if not (extension and r.decision == "allow"))


def _rule(rule: PolicyRule) -> str:
    lines = [
        "",
        "[[rule]]",
        f"toolName = {_basic(rule.tool)}",
        f"subagent = {_basic(rule.subagent)}",
    ]
    if rule.args is not None:
        lines.append(f"argsPattern = {_basic(rule.args)}")
    lines += [f"decision = {_basic(rule.decision)}", f"priority = {rule.priority}"]
    return "\n".join(lines) + "\n"


def _basic(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, but for DEL)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


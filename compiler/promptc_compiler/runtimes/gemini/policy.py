"""OpenCode's ordered rules as Gemini CLI policy rules, one subagent at a time.

Gemini CLI 0.61 decides a tool call by the highest-priority policy rule that
matches it (user tier 4.x above extension tier 2.x above its defaults 1.x);
a rule names a tool, optionally the subagent making the call (`subagent`),
and a regular expression over the call's arguments (`argsPattern`), tested
against a stable JSON text of them in which each top-level pair stands
between NUL characters: `{\\x00"command":"git status"\\x00}`. OpenCode decides
by the last matching rule, so each agent's rules for a tool become rules in
OpenCode's order with rising priorities (the later, the higher), above one
rule that asks for every call (so Gemini's own shortcuts, such as running a
read-only command unasked, never decide for the agent).

Those rules see the input as OpenCode does only when it is plain: a path
relative to the project with no `.`, `..` or empty segment; a command that
names no absolute, home or parent path (OpenCode would ask
`external_directory` about one outside the project). Each rule is guarded to
plain inputs. Any other input is never allowed: it is refused when a deny
rule could decide it in OpenCode, and asks otherwise. A clean absolute path
(Gemini's file tools refuse one outside the project) is refused by the deny
patterns with any leading folders; another path by any deny rule of the
permission or of `external_directory`; a command naming such a path by the
deny patterns with any leading words, and by any deny rule of
`external_directory`. Reading OpenCode's order any other way is unsound: a
loosened ask placed after a deny (`rm *: deny`, then `git *: ask`) would ask
for `rm git x`, which OpenCode refuses. Gemini drops a rule whose
expression looks like it could backtrack without end (a `)` followed by a
quantifier after a `(` and a quantifier, or over 2,048 characters), so
none is written that way.

An extension may not allow (Gemini drops such rules), so the extension holds
the deny and ask rules and a user policy file holds them all: without the
user policy a call OpenCode allows asks, and nothing widens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from promptc_compiler.permissions.ruleset import Rule, names_home
from promptc_compiler.runtimes.gemini.tools import GEMINI
from promptc_compiler.runtimes.tool_lists import Plan
from promptc_compiler.runtimes.translation import flat_name

EXTENSION_FILE = "policies/promptc.toml"
# Gemini tool -> the argument OpenCode's input of its permission is in.
ARGUMENT = {
    "run_shell_command": "command",
    "read_file": "file_path",
    "write_file": "file_path",
    "replace": "file_path",
    "activate_skill": "name",
}
BASE = 100  # the priority of an agent's ask-for-everything rule for a tool
DECISIONS = {"allow": "allow", "ask": "ask_user", "deny": "deny"}

_ANY = "[^\\x00]*"  # any part of a JSON string value (NUL is always escaped there)
_ONE = "(?:\\\\u[0-9a-fA-F]{4}|\\\\.|[^\\\\\\x00])"  # one character, JSON-encoded
# What makes a path other than plain: absolute, home or `./`; a `..` or `.`
# segment, `//`, a `/` at its end, a backslash.
_ODD_PATH = (
    '[/~]|\\.\\.?(?:/|"\\x00)|[^\\x00]*/\\.\\.?(?:/|"\\x00)|[^\\x00]*//'
    '|[^\\x00]*/"\\x00|[^\\x00]*\\\\\\\\'
)
# A clean absolute path: `/` first, no `.` or `..` segment, `//`, final `/` or backslash.
_CLEAN_ABSOLUTE = (
    '(?=/)(?![^\\x00]*/\\.\\.?(?:/|"\\x00)|[^\\x00]*//|[^\\x00]*/"\\x00|[^\\x00]*\\\\\\\\)'
)
# What makes a command other than plain: it names an absolute, home or parent path.
_ODD_COMMAND = "[/~]|[^\\x00]*\\.\\.|[^\\x00]*[^\\w.\\-/\\x00][/~]"
# A line Gemini may not split as OpenCode does, or not at all (it then asks,
# whatever each command would get): quotes, escapes, substitutions, brackets,
# redirections, comments; an operator with no command before or after it; a
# reserved word opening a command.
_OP = "(?:&&|\\|\\||(?<!&)&(?!&)|(?<!\\|)\\|(?!\\|)|;)"
_WORDS = "if|then|else|elif|fi|do|done|while|until|for|case|esac|select|function|time|coproc"
_RESERVED = f'(?:{_WORDS}|[{{}}!])(?: |"\\x00)'
_ODD_SYNTAX = "|".join(
    (
        "[^\\x00]*[\\\\'`{}()\\[\\]<>#$]",
        " *[&|;]",
        f"[^\\x00]*{_OP} *[&|;]",
        '[^\\x00]*(?:&&|\\|\\||(?<!\\|)\\|(?!\\|)) *"\\x00',
        f" *{_RESERVED}",
        f"[^\\x00]*[;&|] *{_RESERVED}",
    )
)
# What may stand before a deny's path (folders) or command (words), and after
# a command (the next word or operator).
_PATH_LEAD = "(?:|[^\\x00]*/)"
_COMMAND_LEAD = "(?:|[^\\x00]*[^\\w.\\-/\\x00])"
_COMMAND_END = "(?![\\w.\\-/])"


class PolicyRule(NamedTuple):
    subagent: str
    tool: str
    decision: str  # allow | ask_user | deny
    priority: int
    args: str | None  # argsPattern; None for a rule about every call of the tool


def rules(found: Plan) -> tuple[PolicyRule, ...]:
    """Every policy rule of the written agents, agent by agent, tool by tool."""
    out: list[PolicyRule] = []
    for ident, tools in found.tools.items():
        own = found.agents[ident].effective(as_subagent=True)
        name = flat_name(ident)
        for tool, perms in GEMINI.tools:
            if tool not in tools:
                continue
            argument = ARGUMENT.get(tool)
            written = [r for r in own if r.names(perms[0])]
            if argument is None:
                out.append(_whole(name, tool, [r.action for r in written]))
                continue
            folders = [r for r in own if r.names("external_directory")]
            out += _scoped(name, tool, argument, written, folders)
    return tuple(out)


def _scoped(
    name: str, tool: str, argument: str, written: Sequence[Rule], folders: Sequence[Rule]
) -> Iterator[PolicyRule]:
    """The rules of one tool whose argument OpenCode's patterns decide."""
    yield PolicyRule(name, tool, "ask_user", BASE, _value(argument, _ANY))
    guard = {"file_path": f"(?!{_ODD_PATH})", "command": f"(?!{_ODD_COMMAND})"}.get(argument, "")
    top = BASE + len(written) + 1
    for offset, rule in enumerate(written, start=1):
        if not guard and names_home(_written(rule)):
            continue  # below: the home folder is the user's, not the build's
        regex = _value(argument, guard + _pattern(_written(rule)))
        yield PolicyRule(name, tool, DECISIONS[rule.action], BASE + offset, regex)
    if not guard:
        # A value naming the home folder (a skill called `~/x`): refused wherever
        # a deny or an ask rule could decide it, whatever the home folder is.
        for rule in written:
            if rule.action != "allow" and names_home(home := _written(rule)):
                rest = home.removeprefix("$HOME").removeprefix("~")
                yield PolicyRule(name, tool, "deny", top, _value(argument, _ANY + _pattern(rest)))
        return
    # Inputs that are not plain: refused where a deny rule could decide them.
    denies = [r for r in written if r.action == "deny"]
    blanket = any(names_home(_written(r)) for r in denies) or any(
        r.action == "deny" for r in folders
    )
    if argument == "command":
        if blanket:
            yield PolicyRule(
                name, tool, "deny", top, _value(argument, f"(?={_ODD_COMMAND})" + _ANY)
            )
        odd = f"(?={_ODD_COMMAND}|{_ODD_SYNTAX})"
        for rule in denies:
            regex = _value(argument, odd + _COMMAND_LEAD + _pattern(rule.pattern) + _COMMAND_END)
            yield PolicyRule(name, tool, "deny", top, regex)
        return
    if blanket or denies:
        yield PolicyRule(
            name,
            tool,
            "deny",
            top,
            _value(argument, f"(?!{_CLEAN_ABSOLUTE})(?={_ODD_PATH})" + _ANY),
        )
    for rule in denies:
        regex = _value(argument, _CLEAN_ABSOLUTE + _PATH_LEAD + _pattern(rule.pattern))
        yield PolicyRule(name, tool, "deny", top, regex)


def _written(rule: Rule) -> str:
    """The pattern as OpenCode matches it, but a home-relative one as written."""
    return rule.written if rule.written and names_home(rule.written) else rule.pattern


def _whole(name: str, tool: str, actions: list[str]) -> PolicyRule:
    # Kept whole only where OpenCode denies none of its calls (tool_lists).
    decision = "allow" if actions and all(a == "allow" for a in actions) else "ask_user"
    return PolicyRule(name, tool, decision, BASE, None)


def _value(argument: str, body: str) -> str:
    return f'\\x00"{argument}":"{body}"\\x00'


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
    written = [r for r in found if not (extension and r.decision == "allow")]
    return head + "".join(_rule(r) for r in _live(written))


def _live(found: Sequence[PolicyRule]) -> list[PolicyRule]:
    """The rules that can decide a call, in order. Of rules alike but for their
    decision and priority (one subagent, tool and argsPattern), Gemini reads
    the highest priority first (the first written among equals, its sort being
    stable), so that one decides every call the others match. The others come
    from an OpenCode rule that a later one with the same pattern covers
    (OpenCode's own `"*": allow` before a spec's `"*": deny`). The extension's
    allows are left out before (render), so a rule below one stays there."""
    first: dict[tuple[str, str, str | None], PolicyRule] = {}
    for rule in found:
        key = (rule.subagent, rule.tool, rule.args)
        if key not in first or rule.priority > first[key].priority:
            first[key] = rule
    return [rule for rule in found if first[rule.subagent, rule.tool, rule.args] is rule]


def _rule(rule: PolicyRule) -> str:
    lines = [
        "",
        "[[rule]]",
        f"toolName = {basic(rule.tool)}",
        f"subagent = {basic(rule.subagent)}",
    ]
    if rule.args is not None:
        lines.append(f"argsPattern = {basic(rule.args)}")
    lines += [f"decision = {basic(rule.decision)}", f"priority = {rule.priority}"]
    return "\n".join(lines) + "\n"


def basic(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, but for DEL, which TOML escapes."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")

"""OpenCode's ordered rules as the tables of a Copilot CLI agent's preToolUse hook.

Each written agent gets a hook (promptc_compiler.runtimes.copilot.script) whose tables say
what OpenCode decides for it, per context: `m` when it runs as the main
session (an OpenCode primary, or an `all` agent), `s` when another agent
started it (a subagent, or an `all` agent; OpenCode's task tool adds its
rules then). A table of a permission lists the agent's rules for it last
first, as a shell `case` takes the first match and OpenCode the last, and
asks when none matches, as OpenCode does. OpenCode's wildcards are the
shell's: `*` any text, `?` one character, a trailing ` *` optional; a `\\`
in a pattern is a `/`, as OpenCode reads it. Those tables only ever see a
plain value (printable ASCII, no backslash; a `"` only in a one-command
line): a rule whose pattern holds any other character matches none, so it
is left out.

The `_odd` table of a permission decides every other value, never above
OpenCode: it refuses where a deny rule could decide the value and asks
otherwise. For `bash` that is each deny pattern found anywhere in the line
(after a character that cannot go on a word, or an escape, and before one
or the end), each character the JSON text may write otherwise read as any
text; every other permission, and a deny pattern naming the home folder,
refuse every odd value as soon as one deny rule exists. `folders` is
OpenCode's `external_directory`: refused where a deny rule exists, asked
otherwise. `task` names every written agent with OpenCode's answer for it;
`todowrite` and `question` (Copilot's `sql` and `ask_user`) are one answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from promptc_compiler.permissions.ruleset import Rule, evaluate, names_home
from promptc_compiler.permissions.runtime import Agent
from promptc_compiler.runtimes.copilot.script import (
    EDGE,
    HOME,
    ONE,
    STAR,
    TOKENS,
    Hook,
    Pattern,
    Table,
)
from promptc_compiler.runtimes.copilot.tools import COPILOT
from promptc_compiler.runtimes.tool_lists import Plan
from promptc_compiler.runtimes.translation import flat_name

# Copilot alias -> the OpenCode permissions its tools are decided by.
PERMISSIONS = dict(COPILOT.tools)
# Permissions whose value the tables match (the rest are one answer for any call).
VALUED = ("bash", "read", "list", "edit", "grep", "glob", "skill", "webfetch", "websearch")
# Where a command can start in a line's JSON text: after a character that
# cannot go on a word, after an escape (`\\n`, `\\t`), after a `\\u` escape.
_LEADS: tuple[Pattern, ...] = (
    (STAR, EDGE),
    (STAR, "\\", ONE),
    (STAR, "\\u", ONE, ONE, ONE, ONE),
)


def contexts(agent: Agent) -> str:
    """Where OpenCode runs the agent: as the main session, started by another, or both."""
    if agent.mode == "primary":
        return "m"
    return "s" if agent.mode == "subagent" else "ms"


def hook(found: Plan, ident: str) -> Hook:
    """The hook of one written agent."""
    agent = found.agents[ident]
    tools = found.tools[ident]
    where = contexts(agent)
    tables: dict[str, Table] = {}
    for context in where:
        rules = agent.effective(as_subagent=context == "s")
        # The main session always has `skill` and `sql`, whatever `tools` says.
        listed = {*tools, "skill"} if context == "m" else set(tools)
        permissions = [p for alias in listed for p in PERMISSIONS.get(alias, ())]
        for permission in VALUED:
            if permission in permissions:
                own = [r for r in rules if r.names(permission)]
                tables[f"{permission}_{context}"] = exact(f"{permission}_{context}", own)
                tables[f"{permission}_{context}_odd"] = odd(f"{permission}_{context}_odd", own)
        folders = [r for r in rules if r.names("external_directory")]
        tables[f"folders_{context}"] = blanket(f"folders_{context}", folders)
        if "agent" in listed:
            tables[f"task_{context}"] = starts(f"task_{context}", found, rules)
        if context == "m":
            for permission in ("todowrite", "question"):
                action = evaluate(rules, permission, "*").action
                tables[f"{permission}_m"] = Table(f"{permission}_m", ((((STAR,),), action),))
    return Hook(flat_name(ident), where, tables)


def exact(name: str, rules: Sequence[Rule]) -> Table:
    """OpenCode's decision of a plain value: the last matching rule, else ask."""
    items = []
    for rule in reversed(rules):
        alternatives = _alternatives(_as_written(rule))
        if alternatives is None:
            continue
        items.append((alternatives, rule.action))
        if (STAR,) in alternatives:
            return Table(name, tuple(items))  # the rules before it never decide
    return Table(name, (*items, (((STAR,),), "ask")))


def odd(name: str, rules: Sequence[Rule]) -> Table:
    """Refused where a deny rule could decide the value, asked otherwise."""
    denies = [r for r in rules if r.action == "deny"]
    if not name.startswith("bash_") or any(names_home(r.written or r.pattern) for r in denies):
        return blanket(name, rules)
    items = [(tuple(_anywhere(_loose(r.pattern))), "deny") for r in denies]
    return Table(name, (*items, (((STAR,),), "ask")))


def blanket(name: str, rules: Sequence[Rule]) -> Table:
    action = "deny" if any(r.action == "deny" for r in rules) else "ask"
    return Table(name, ((((STAR,),), action),))


def starts(name: str, found: Plan, rules: Sequence[Rule]) -> Table:
    """OpenCode's answer for each written agent as `task`'s target; no other."""
    items = []
    for ident in found.tools:
        target = found.agents[ident]
        action = "deny"
        if target.mode != "primary" and not target.hidden:
            action = evaluate(rules, "task", ident).action
        items.append((((flat_name(ident),),), action))
    return Table(name, (*items, (((STAR,),), "deny")))


def _as_written(rule: Rule) -> str:
    """The pattern OpenCode matches, but one naming the home folder as written
    (the script expands it on the user's machine)."""
    return rule.written if rule.written and names_home(rule.written) else rule.pattern


def _alternatives(pattern: str) -> tuple[Pattern, ...] | None:
    """The pattern as case alternatives (two where a trailing ` *` is optional),
    or None where it can match no plain value. `~/`, `~` and `$HOME` open it
    with the home folder, as OpenCode expands them."""
    lead: Pattern = ()
    if pattern == "~" or pattern.startswith("~/"):
        lead, pattern = (HOME,), pattern[1:]
    elif pattern.startswith("$HOME"):
        lead, pattern = (HOME,), pattern[5:]
    text = pattern.replace("\\", "/")
    if any(not (" " <= c <= "~") for c in text):
        return None
    tail = text.endswith(" *")
    tokens = _merged((*lead, *_tokens(text[:-2] if tail else text)))
    return (tokens, _merged((*tokens, " ", STAR))) if tail else (tokens,)


def _tokens(text: str) -> Pattern:
    tokens: list[str] = []
    for char in text:
        token = STAR if char == "*" else ONE if char == "?" else char
        if token in (STAR, ONE) or not tokens or tokens[-1] in TOKENS:
            tokens.append(token)
        else:
            tokens[-1] += token
    return tuple(tokens)


def _loose(pattern: str) -> Pattern:
    """The pattern over a line's JSON text, loosened: every character the text
    may write otherwise (an escape, a folder separator) or that stands for one
    (`?`) is any text; a trailing ` *` is any text."""
    tokens: list[str] = []
    for char in pattern.removesuffix(" *") + ("*" if pattern.endswith(" *") else ""):
        plain = " " <= char <= "~" and char not in '"\\/*?'
        if not plain:
            if not tokens or tokens[-1] != STAR:
                tokens.append(STAR)
        elif tokens and tokens[-1] not in TOKENS:
            tokens[-1] += char
        else:
            tokens.append(char)
    return tuple(tokens)


def _anywhere(tokens: Pattern) -> Iterator[Pattern]:
    """The pattern found anywhere in a line where a command can start and end."""
    leads: tuple[Pattern, ...] = ((),) if tokens[:1] == (STAR,) else ((), *_LEADS)
    tails: tuple[Pattern, ...] = ((),) if tokens[-1:] == (STAR,) else ((), (EDGE, STAR))
    for lead in leads:
        for tail in tails:
            yield _merged((*lead, *tokens, *tail))


def _merged(tokens: Sequence[str]) -> Pattern:
    """The tokens with neighbouring literals joined and empty ones dropped (the
    form copilot_script reads a script back in)."""
    out: list[str] = []
    for token in tokens:
        if token in TOKENS:
            out.append(token)
        elif token and out and out[-1] not in TOKENS:
            out[-1] += token
        elif token:
            out.append(token)
    return tuple(out)

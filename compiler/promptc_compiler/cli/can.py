"""How `promptc can` prints an answer: the decision, then the rule that decided it,
and the exit code a script tests.

    deny  craftsman  bash "git push origin main"
    specs/agents/craftsman.md:14:7: bash "git push*": deny

The second line reads like a diagnostic, so editors jump to the rule. For a
command line of several commands it also names the command that decides.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from promptc_compiler.base.source import SOURCE
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.delegation import Display, where
from promptc_compiler.permissions.ruleset import KNOWN_KEYS, Rule

if TYPE_CHECKING:
    from promptc_compiler.api import Answer, TargetAnswer
    from promptc_compiler.permissions.calls import Verdict


def unexpected(action: str, expect: str | None, runtime: str) -> str | None:
    """With --expect, the line saying that `runtime`'s decision is another one."""
    if expect is None or action == expect:
        return None
    return f"expected {expect}, but {runtime} answers {action}"


def deciding_command(answer: Answer) -> str | None:
    """The command of a line whose decision is the line's (the first, as OpenCode
    stops at the first command it refuses), or None for a single command."""
    return next((c for c, d in answer.commands if d.action == answer.decision.action), None)


def deciding_target_command(on: TargetAnswer) -> str | None:
    """The first command of the line whose own answer by the runtime is the line's."""
    return next((c for c, v in on.commands if v.action == on.verdict.action), None)


def render_answer(answer: Answer, fmt: str, display: Display, trace: bool) -> Iterator[str]:
    if fmt == "json":
        yield json.dumps(_json(answer, display), indent=2, ensure_ascii=False)
        return
    decision = answer.decision
    shown = json.dumps(answer.input, ensure_ascii=False)
    yield f"{decision.action}  {answer.agent.name}  {answer.permission} {shown}"
    why = answer.why if decision.rule is None and answer.why else None
    yield (why or _line(decision.rule, display, answer)) + _for(deciding_command(answer))
    if answer.commands:
        yield "each question, as OpenCode asks it (the strictest decides the call):"
        for command, part in answer.commands:
            yield f"  {part.action}  {command}  {_line(part.rule, display, answer)}"
    if trace:
        yield "matching rules, in order (the last one decides):"
        for rule in answer.matching:
            yield f"  {_line(rule, display, answer)}"


def render_target_answer(on: TargetAnswer, fmt: str, display: Display) -> Iterator[str]:
    """The runtime's decision and why, then OpenCode's for the same call:

    allow  craftsman  bash "cat .env"  (Claude Code, from the claude files)
    Claude Code runs `cat` unasked (read-only)
    OpenCode: ask  specs/agents/craftsman.md:12:5: bash "*": ask
    """
    answer = on.opencode
    deciding = deciding_target_command(on)
    if fmt == "json":
        found: dict[str, Any] = {"target": on.target, "runtime": on.runtime}
        found |= {"action": on.verdict.action, "why": on.verdict.why, "command": deciding}
        found["commands"] = [_verdict(c, v) for c, v in on.commands]
        found[SOURCE] = _json(answer, display)
        yield json.dumps(found, indent=2, ensure_ascii=False)
        return
    shown = json.dumps(answer.input, ensure_ascii=False)
    yield (
        f"{on.verdict.action}  {answer.agent.name}  {answer.permission} {shown}  "
        f"({on.runtime}, from the {on.target} files)"
    )
    yield on.verdict.why + _for(deciding)
    if on.commands:
        yield f"each command, as {on.runtime} answers it alone:"
        for command, verdict in on.commands:
            yield f"  {verdict.action}  {command}  {verdict.why}"
    opencode = _line(answer.decision.rule, display, answer) + _for(deciding_command(answer))
    yield f"OpenCode: {answer.decision.action}  {opencode}"


def _for(command: str | None) -> str:
    return "" if command is None else f" (for `{command}`)"


def _verdict(command: str, verdict: Verdict) -> dict[str, str]:
    return {"command": command, "action": verdict.action, "why": verdict.why}


def _line(rule: Rule | None, display: Display, answer: Answer) -> str:
    if rule is None:
        return "no rule matched: OpenCode asks"
    text = f"{where(rule, display)}: {rule.text()}"
    if rule.kind == "session":
        text += (
            f" (added because `{answer.agent.name}` runs as a subagent and its rules "
            f"never mention `{rule.permission}`)"
        )
    elif rule.kind == "default":
        text += " (OpenCode's defaults; nothing in the bundle decides this)"
    return text


def _json(answer: Answer, display: Display) -> dict[str, Any]:
    return {
        "agent": answer.agent.name,
        "permission": answer.permission,
        "input": answer.input,
        "as_subagent": answer.as_subagent,
        "action": answer.decision.action,
        "rule": _rule(answer.decision.rule, display),
        "why": answer.why or None,
        "command": deciding_command(answer),
        "matching": [_rule(r, display) for r in answer.matching],
        "commands": [
            {"command": c, "action": d.action, "rule": _rule(d.rule, display)}
            for c, d in answer.commands
        ],
    }


def _rule(rule: Rule | None, display: Display) -> dict[str, Any] | None:
    if rule is None:
        return None
    origin = rule.origin
    return {
        **rule.as_json(),
        "written": rule.written,
        "origin": origin.kind,
        "path": display(origin.path) if origin.path else None,
        "line": origin.line if origin.path else None,
        "column": origin.column if origin.path else None,
        "label": origin.label,
    }


def permission_note(permission: str, custom_tools: Sequence[str]) -> str | None:
    """A permission none of OpenCode's tools asks for, nor a custom tool the config
    lists, is decided by whatever catch-all rule matches: say so, with a did-you-mean."""
    if permission in KNOWN_KEYS or not wildcard.is_literal(permission):
        return None
    if any(wildcard.match(permission, tool) for tool in custom_tools):
        return None
    return (
        f"no OpenCode tool asks for the permission `{permission}`"
        f"{did_you_mean(permission, KNOWN_KEYS)}: this answer is for a tool of that name "
        "(an MCP or custom tool), if there is one"
    )

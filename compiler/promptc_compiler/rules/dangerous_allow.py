"""Rules that let an agent run dangerous commands, or touch any folder, without asking.

The check looks at decisions, not at single lines: a command is dangerous
when some rule allows it and no later rule takes that back. That includes
OpenCode's own default `"*": allow`, which lets an agent whose permission
never mentions `bash` run anything at all. Reported, each at the rule that
decides it (or at the agent's `permission` key when OpenCode's default does):

- any command allowed by a `"*"` pattern (`bash: allow`, `"*": allow`), a
  deny-list that lets through everything it forgot;
- commands matching the configured patterns: `rm *`, `sudo *`, `git push*`,
  and shells (`sh *`, `bash *`, `zsh *`): OpenCode checks each command of a
  pipeline on its own, so `curl … | sh` runs once `curl …` and `sh` are allowed;
- `external_directory` allowed for every path: reading and writing anywhere
  outside the project.

Options:
    commands (list of patterns, default above): bash commands never to allow.
    any_command (boolean, default true): report a bash `"*"` allow.
    any_directory (boolean, default true): report an external_directory `"*"` allow.

Fails:
    permission:
      bash: allow
Passes:
    permission:
      bash:
        "*": ask
        "git status*": allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.coverage import Coverage, Witness
from promptc_compiler.permissions.ruleset import Rule
from promptc_compiler.permissions.runtime import Agent, anchor, problem_at
from promptc_compiler.runtimes.translations import Translated

ID = "dangerous-allow"
DEFAULT_LEVEL = "warning"
STAGE = False
COMMANDS = ["rm *", "sudo *", "git push*", "sh *", "bash *", "zsh *"]
SHELLS = ("sh *", "bash *", "zsh *")
OPTIONS: dict[str, Any] = {
    "commands": {"type": "array", "items": {"type": "string"}, "default": COMMANDS},
    "any_command": {"type": "boolean", "default": True},
    "any_directory": {"type": "boolean", "default": True},
}


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    judged: dict[tuple[object, ...], tuple[Verdict, ...]] = {}
    for agent in runtime.bundle_agents():
        # A permission OpenCode refuses is reported as such; what is left of it
        # once the refused entries are dropped is no map anyone wrote.
        if not agent.problems:
            yield from _agent(agent, options, judged, runtime.coverage)


def _agent(
    agent: Agent,
    options: Mapping[str, Any],
    judged: dict[tuple[object, ...], tuple[Verdict, ...]],
    coverage: Coverage,
) -> Iterator[Problem]:
    rules = agent.rules
    for verdict in _verdicts(rules, options, judged, coverage):
        rule = rules[verdict.at]
        if verdict.kind == "any command":
            risky = verdict.risky
            tail = f" ({', '.join(f'`{c}`' for c in risky)} included)" if risky else ""
            yield _report(
                agent,
                rule,
                "bash",
                f"may run any command no later rule names, without asking{tail}",
                f"bash commands no rule names fall to {{decider}}: this agent may run them "
                f"without asking{tail}",
            )
        elif verdict.kind == "any directory":
            yield _report(
                agent,
                rule,
                "external_directory",
                "may read and write any folder outside the project that no later rule "
                "names, without asking",
                "folders outside the project that no rule names fall to {decider}: this "
                "agent may read and write them without asking",
            )
        else:
            command, witness = verdict.command, verdict.witness
            assert witness is not None
            piped = " (anything piped into it runs too)" if command in SHELLS else ""
            example = f"without asking, `{witness.input}` for one{piped}"
            yield _report(
                agent,
                rule,
                "bash",
                f"may run `{command}` commands {example}",
                f"`{command}` commands fall to {{decider}}: this agent may run them {example}",
            )


class Verdict(NamedTuple):
    """One finding about a list of rules, without its positions."""

    kind: str  # "any command", "any directory" or "command"
    at: int  # the index of the deciding rule
    command: str = ""  # the command pattern it allows ("command")
    risky: tuple[str, ...] = ()  # configured commands it allows too ("any command")
    witness: Witness | None = None  # a command it allows ("command")


def _verdicts(
    rules: Sequence[Rule],
    options: Mapping[str, Any],
    judged: dict[tuple[object, ...], tuple[Verdict, ...]],
    coverage: Coverage,
) -> tuple[Verdict, ...]:
    """What the rules let through. The verdicts depend on each rule's permission,
    pattern and action alone, and agents share those lists (the same defaults,
    maps copied from spec to spec): a run judges each list once (`judged`) and
    reports the verdicts at every agent's own rules."""
    key = tuple([(r.permission, r.pattern, r.action) for r in rules])
    found = judged.get(key)
    if found is None:
        found = judged[key] = tuple(_judge(rules, options, coverage))
    return found


def _judge(
    rules: Sequence[Rule], options: Mapping[str, Any], coverage: Coverage
) -> Iterator[Verdict]:
    commands: Sequence[str] = options["commands"]
    reported: set[int] = set()
    if options["any_command"]:
        index = _universal_allow(rules, "bash", coverage)
        if index is not None:
            reported.add(index)
            risky = tuple(c for c in commands if _decides(rules, index, c, coverage))
            yield Verdict("any command", index, risky=risky)
    if options["any_directory"]:
        index = _universal_allow(rules, "external_directory", coverage)
        if index is not None:
            yield Verdict("any directory", index)
    for command in commands:
        found = _allowed(rules, command, reported, coverage)
        if found is None:
            continue
        index, witness = found
        reported.add(index)
        yield Verdict("command", index, command, witness=witness)


def _universal_allow(rules: Sequence[Rule], permission: str, coverage: Coverage) -> int | None:
    """The last `"*"` allow rule for this permission that still decides something."""
    name = wildcard.normal(permission)
    for index in range(len(rules) - 1, -1, -1):
        rule = rules[index]
        if rule.action != "allow" or not rule.names(name):
            continue
        if not coverage.patterns.universal(rule.pattern):
            continue
        try:
            if coverage.decides(rules, index, permission=permission) is not None:
                return index
        except wildcard.TooComplex:
            continue
    return None


def _decides(rules: Sequence[Rule], index: int, command: str, coverage: Coverage) -> bool:
    try:
        return coverage.decides(rules, index, permission="bash", within=[command]) is not None
    except wildcard.TooComplex:
        return False


def _allowed(
    rules: Sequence[Rule], command: str, skip: set[int], coverage: Coverage
) -> tuple[int, Witness] | None:
    for index in range(len(rules) - 1, -1, -1):
        rule = rules[index]
        if index in skip or rule.action != "allow" or not rule.names("bash"):
            continue
        try:
            found = coverage.decides(rules, index, permission="bash", within=[command])
        except wildcard.TooComplex:
            continue
        if found is not None:
            return index, found
    return None


def _report(agent: Agent, rule: Rule, key: str, written: str, default: str) -> Problem:
    """At the deciding rule when the bundle wrote it, else at the agent's `key`."""
    if rule.path is not None:
        return problem_at(rule.origin, f"`{rule.text()}`: this agent {written}")
    decider = f"OpenCode's {rule.label} `{rule.text()}`"
    return problem_at(
        anchor(agent, key),
        default.format(decider=decider),
        f'start a `{key}` map with `"*": ask` or `"*": deny`',
    )

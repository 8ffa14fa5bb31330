"""Permission patterns with a hard-coded home folder, or a home shorthand OpenCode reads otherwise.

A pattern such as `/home/alice/notes/*` works for one user on one machine;
everyone else's agent silently loses (or gains) that access. OpenCode expands
`~`, `~/`, `$HOME` and `$HOME/` at the start of a pattern to the home folder
of whoever runs it, so write those instead. The expansion is literal prefix
replacement, which surprises in three ways, also reported: `~alice/x` is not
expanded (it stays a relative path), `${HOME}/x` is not expanded, and
`$HOMEwork/*` becomes `<home>work/*`, a sibling of the home folder. Checked
in every permission map of every agent and of the config-level permission,
`external_directory` above all.

Fails:
    permission:
      external_directory:
        "/home/alice/notes/*": allow
Passes:
    permission:
      external_directory:
        "~/notes/*": allow
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.permissions.runtime import problem_at
from promptc_compiler.runtimes.translations import Translated

ID = "home-path"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {}

SHORTHANDS = (
    (re.compile(r"^~[^/]"), "is not expanded: OpenCode expands only `~` and `~/`"),
    (re.compile(r"^\$\{HOME\}"), "is not expanded: OpenCode expands only `$HOME`, not `${HOME}`"),
    (
        re.compile(r"^\$HOME[^/]"),
        "becomes `<home>` followed directly by the rest: OpenCode replaces the "
        "`$HOME` prefix without a `/` after it",
    ),
)
HOME = re.compile(
    r"^(?P<home>/home/[^/*?]+|/Users/[^/*?]+|/root|[A-Za-z]:[\\/]Users[\\/][^\\/*?]+)(?=$|[\\/])"
)


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    seen: set[tuple[object, int, int]] = set()
    own = (rule for agent in runtime.bundle_agents() for _, rule in agent.own_rules())
    # What is wrong with a pattern depends on its text alone, and agents repeat
    # their patterns: each text is judged once.
    judged: dict[str, list[tuple[str, str | None]]] = {}
    for rule in (*runtime.config_rules, *own):
        where = (rule.path, rule.line, rule.column)
        if rule.written is None or where in seen:
            continue
        seen.add(where)
        found = judged.get(rule.written)
        if found is None:
            found = judged[rule.written] = list(_judge(rule.written))
        for message, hint in found:
            yield problem_at(rule.origin, message, hint)


def _judge(written: str) -> Iterator[tuple[str, str | None]]:
    """(message, hint) of each problem with a written pattern."""
    for pattern, why in SHORTHANDS:
        if pattern.search(written):
            yield f"`{written}` {why}", None
    match = HOME.match(written)
    if match is None:
        return
    rest = written[match.end() :].replace("\\", "/")
    yield (
        f"`{written}` names the home folder `{match.group('home')}`: it only "
        "works for that user on that machine",
        f'write "~{rest}" instead; OpenCode expands `~` to the home folder',
    )

"""`skill` permission entries that name a skill that does not exist.

An agent's `skill` permission is matched against the name of the skill to
load. A literal name that is neither a skill of the bundle
(specs/skills/<name>/) nor one listed in `external` is a rule that never
applies: usually a typo, or a skill that was renamed or never written.
Patterns with `*` (`"python-*"`) are not checked: they stand for skills
that may come and go. OpenCode's built-in `customize-opencode` counts as
existing.

Options:
    external (list of skill names, default []): skills the bundle does not
        ship but its users install elsewhere (~/.config/opencode/skills,
        ~/.claude/skills), so naming them is intended.

Fails:
    permission:
      skill:
        "*": deny
        cavemen: allow     # no skill `cavemen` (did you mean `caveman`?)
Passes:
    permission:
      skill:
        "*": deny
        caveman: allow
        "python-*": allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.runtime import BUILT_IN_SKILLS, problem_at
from promptc_compiler.runtimes.translations import Translated

ID = "unknown-skill"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {
    "external": {"type": "array", "items": {"type": "string"}, "default": []},
}


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    runtime = project.translations.opencode
    # Folders count even when their SKILL.md has errors: those are reported already.
    known = {*project.skills, *project.bundle.skills, *options["external"], *BUILT_IN_SKILLS}
    own = (rule for agent in runtime.bundle_agents() for _, rule in agent.own_rules())
    rules = [r for r in (*runtime.config_rules, *own) if r.permission == "skill"]
    for rule in rules:
        if rule.written is None or not wildcard.is_literal(rule.pattern):
            continue
        if rule.pattern in known:
            continue
        hint = did_you_mean(rule.pattern, sorted(known))
        message = (
            f"`skill` names `{rule.pattern}`, but the bundle has no such skill{hint}; "
            f"write specs/skills/{rule.pattern}/SKILL.md or, if it is installed elsewhere, "
            f"list it in rules.{ID}.external"
        )
        yield problem_at(rule.origin, message)

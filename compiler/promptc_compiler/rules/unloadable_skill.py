"""Skills that no agent of the bundle is allowed to load.

OpenCode asks the `skill` permission before an agent loads a skill, with the
skill's name as the input; its built-in default is `"*": allow`, so a skill
is loadable unless a rule denies it. A skill that every agent of the bundle
denies (`skill: {"*": deny, ...}` without it) is dead weight in every
prompt's skill list, and usually an agent's allow list that forgot it.
Each agent is evaluated as OpenCode resolves it (defaults, opencode.json's
`permission`, the agent's own map; last match wins); `ask` counts as
loadable. Disabled agents do not count. A bundle without agents is not
checked: its skills are for OpenCode's own agents.

Options: none.

Fails:
    # specs/agents/scout.md (the only agent)
    permission:
      skill:
        "*": deny
        caveman: allow
    # specs/skills/review/SKILL.md exists: nobody may load it
Passes:
    permission:
      skill:
        "*": deny
        caveman: allow
        review: allow
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.permissions.ruleset import evaluate
from promptc_compiler.runtimes.translations import Translated

ID = "unloadable-skill"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {}


def check(project: Translated, _options: Mapping[str, Any]) -> Iterator[Problem]:
    agents = project.translations.opencode.bundle_agents()
    if not agents:
        return
    for skill in project.skills.values():
        name = skill.spec.meta.get("name")
        name = name if isinstance(name, str) else skill.name
        loaders = [
            a
            for a in agents
            if evaluate(a.effective(a.runs_as_subagent), "skill", name).action != "deny"
        ]
        if loaders:
            continue
        pos = skill.spec.where("name")
        message = (
            f"no agent may load skill `{name}`: every agent's `skill` permission denies it; "
            f"add `{name}: allow` to the agents that need it, or remove the skill"
        )
        yield Problem(*pos, message, path=skill.spec.source.path)

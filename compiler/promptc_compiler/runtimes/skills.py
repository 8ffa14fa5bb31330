"""Emit skills: each skill's folder as the runtimes read it, for any target.

A skill is emitted under `<root_prefix><name>/`: `SKILL.md` with the
frontmatter as the target sees it, keys in the Agent Skills order
(SKILL_KEYS) then the rest in source order, and the composed body; every
supporting file at its path in the skill folder (project.Skill.files). The
targets pass the folder their runtime reads: `.opencode/skills/`,
`.claude/skills/`, `skills/` for a plugin, `.codex/skills/`,
`.github/skills/` (Copilot CLI) or `.gemini/skills/`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from promptc_compiler.core import yamlout
from promptc_compiler.core.bundle import SKILL_FILE
from promptc_compiler.core.project import Project, Skill

SKILL_KEYS = ("name", "description", "license", "compatibility", "allowed-tools", "metadata")
# A runtime's verdict on each `allowed-tools` rule of a skill: None when it may
# keep the rule, else why not (Claude Code's:
# promptc_compiler.runtimes.claude.translate.skill_grants).
Grants = Callable[[Skill], Mapping[str, str | None]]


def emit_skills(
    project: Project, root_prefix: str, drop: tuple[str, ...] = (), grants: Grants | None = None
) -> dict[str, str]:
    """Every skill of the project, each under `<root_prefix><name>/`, its SKILL.md
    without the keys `drop` (ones the runtime would read as more than OpenCode does);
    with `grants`, with only the `allowed-tools` rules the runtime may keep."""
    files: dict[str, str] = {}
    for skill in project.skills.values():
        files.update(emit_skill_tree(project, skill, root_prefix, drop, grants))
    return files


def emit_skill_tree(
    project: Project,
    skill: Skill,
    root_prefix: str,
    drop: tuple[str, ...] = (),
    grants: Grants | None = None,
) -> dict[str, str]:
    """One skill's files, by path relative to the target's folder."""
    folder = f"{root_prefix}{skill.name}/"
    front = skill_frontmatter(skill, project.target)
    front = {key: value for key, value in front.items() if key not in drop}
    verdicts = grants(skill) if grants else {}
    if any(verdicts.values()):  # a rule left out: the rest, as a list in place, or no key
        kept = [rule for rule, why in verdicts.items() if why is None]
        front = {key: kept if key == "allowed-tools" else v for key, v in front.items()}
        if not kept:
            del front["allowed-tools"]
    files = {f"{folder}{rel}": text for rel, text in skill.files.items()}
    return {f"{folder}{SKILL_FILE}": yamlout.document(front, skill.spec.body), **files}


def skill_frontmatter(skill: Skill, target: str) -> dict[str, Any]:
    data = skill.spec.view(target)
    known = {key: data[key] for key in SKILL_KEYS if key in data}
    return {**known, **{k: v for k, v in data.items() if k not in known}}

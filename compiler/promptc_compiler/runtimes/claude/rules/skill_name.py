"""Skill names that a runtime would not find, or would find twice.

A skill's `name` must equal its folder name (specs/skills/<name>/): Claude
Code names a skill after its folder and OpenCode after its `name`, so a
mismatch gives one skill two names. Reported too:

- two skills whose names differ only in case (`Review` and `review`): on a
  case-insensitive file system (macOS, Windows) their folders are one;
- a skill named like a mode: Claude Code merges commands and skills into one
  `/name` list, and the skill hides the command;
- a skill named `customize-opencode`, OpenCode's built-in skill.

The characters of `name` (lowercase letters, digits, single hyphens, at most
64) are checked by the `schema` rule; a folder name that breaks them is
reported here, at the `name` key, since the folder is the name Claude Code
uses. A skill and an agent may share a name: no runtime lists them together.

Options: none.

Fails:
    # specs/skills/code-review/SKILL.md
    ---
    name: review
    description: Reviews a diff for bugs and risky changes.
    ---
Passes:
    # specs/skills/review/SKILL.md
    ---
    name: review
    description: Reviews a diff for bugs and risky changes.
    ---
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Project, Skill
from promptc_compiler.permissions.runtime import BUILT_IN_SKILLS

ID = "skill-name"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_LENGTH = 64


def check(project: Project, _options: Mapping[str, Any]) -> Iterator[Problem]:
    seen: dict[str, Skill] = {}
    for skill in project.skills.values():
        declared = skill.spec.meta.get("name")
        name = declared if isinstance(declared, str) else skill.name
        # One diagnostic per position: every finding about this name in one message.
        messages = [*_own(skill), *_collisions(project, skill, name, seen)]
        if messages:
            yield Problem(
                *skill.spec.where("name"), "; ".join(messages), path=skill.spec.source.path
            )


def _own(skill: Skill) -> Iterator[str]:
    declared = skill.spec.meta.get("name")
    if not NAME.match(skill.name) or len(skill.name) > MAX_LENGTH:
        yield (
            f"folder name `{skill.name}` is not a skill name: use 1-{MAX_LENGTH} lowercase "
            "letters, digits and single hyphens, and rename the folder"
        )
    elif isinstance(declared, str) and declared != skill.name:
        yield (
            f"`name` is `{declared}` but the folder is `{skill.name}`: Claude Code would "
            "call it by the folder name, OpenCode by `name`; make them equal"
        )


def _collisions(project: Project, skill: Skill, name: str, seen: dict[str, Skill]) -> Iterator[str]:
    folded = name.casefold()
    other = seen.get(folded)
    if other is not None:
        where = project.config.display(other.spec.source.path)
        yield f"skill name `{name}` is also the name of {where}; rename one"
    else:
        seen[folded] = skill
    if name in project.modes:
        yield (
            f"skill `{name}` has the name of the mode `{name}`: Claude Code lists both as "
            f"`/{name}` and the skill hides the command; rename one"
        )
    if name in BUILT_IN_SKILLS:
        yield f"`{name}` is OpenCode's built-in skill; pick another name"

"""A snippet's levels are levels its skill defines.

A tone snippet switches on a skill at a level (`<<caveman(level="ultra")>>`
turns on the caveman skill's `ultra`); a level the skill does not describe
leaves the model guessing. The skill declares its levels in its frontmatter,
separated by spaces:

    metadata:
      levels: "lite full ultra wenyan-lite wenyan-full wenyan-ultra"

and this rule checks, against that list, the `enum` the fragment declares
for its parameter (every value a placeholder may pass), the parameter's
`default`, and the values the required-snippet rule is configured with for
that fragment (`params` and `allowed`). The rule is off until `fragment`
names a fragment.

Options:
    fragment (string, default none): the snippet's fragment, e.g. `caveman`.
    skill (string, default none): the skill it switches on; by default the
        skill named like the fragment.
    param (string, default "level"): the fragment parameter holding the level.

Fails (with `fragment = "caveman"`; the skill declares `levels: "lite full"`):
    # fragments/caveman.md
    ---
    params:
      level: {type: string, enum: [lite, full, ultra]}   # `ultra` is no level
    ---
Passes:
    params:
      level: {type: string, enum: [lite, full]}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.loader import SourceFile
from promptc_compiler.core.project import Project, Skill

ID = "skill-levels"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {
    "fragment": {"type": ["string", "null"], "default": None},
    "skill": {"type": ["string", "null"], "default": None},
    "param": {"type": "string", "default": "level"},
}
SNIPPET_RULE = "required-snippet"


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    fragment_name = options["fragment"]
    if fragment_name is None:
        return
    skill_name = options["skill"] or fragment_name
    fragment = project.bundle.fragments.get(fragment_name)
    skill = project.skills.get(skill_name)
    if skill is None and skill_name in project.bundle.skills:
        return  # its SKILL.md did not load; that error says why
    if fragment is None or skill is None:
        what = f"fragment `{fragment_name}`" if fragment is None else f"skill `{skill_name}`"
        key = "fragment" if fragment is None else "skill"
        yield _config_problem(project, (key,), f"{what} does not exist")
        return
    levels = skill.levels
    if levels is None:
        at = skill.spec.where("metadata", key=True) if "metadata" in skill.spec.meta else (1, 1)
        message = (
            f'skill `{skill_name}` declares no levels: add `metadata: {{levels: "..."}}` '
            "with its levels separated by spaces"
        )
        yield Problem(*at, message, path=skill.spec.source.path)
        return
    yield from _fragment_values(fragment, options["param"], skill, levels)
    yield from _snippet_values(project, fragment_name, options["param"], skill, levels)


def _unknown(value: object, skill: Skill, levels: tuple[str, ...]) -> str:
    where = skill.spec.source.path.parent.name
    return (
        f"level `{value}` is not one skill `{skill.name}` defines "
        f"(specs/skills/{where}/SKILL.md: {', '.join(levels)})"
    )


def _fragment_values(
    fragment: SourceFile, param: str, skill: Skill, levels: tuple[str, ...]
) -> Iterator[Problem]:
    front = fragment.frontmatter
    declared = front.data.get("params") if front else None
    spec = declared.get(param) if isinstance(declared, Mapping) else None
    if front is None or not isinstance(spec, Mapping):
        yield Problem(1, 1, f"fragment has no parameter `{param}`", path=fragment.path)
        return
    enum = spec.get("enum")
    for index, value in enumerate(enum if isinstance(enum, list) else []):
        if value not in levels:
            pos = front.where(("params", param, "enum", index))
            yield Problem(*pos, _unknown(value, skill, levels), path=fragment.path)
    default = spec.get("default")
    if default is not None and default not in levels and not isinstance(enum, list):
        pos = front.where(("params", param, "default"))
        yield Problem(*pos, _unknown(default, skill, levels), path=fragment.path)


def _snippet_values(
    project: Project, fragment: str, param: str, skill: Skill, levels: tuple[str, ...]
) -> Iterator[Problem]:
    # The rule's table as written: its options' defaults are all empty.
    table = project.config.rules.get(SNIPPET_RULE)
    if table is None or table.get("fragment") != fragment:
        return
    expected = table.get("params") or {}
    value = expected.get(param) if isinstance(expected, Mapping) else None
    if value is not None and value not in levels:
        problem = _unknown(value, skill, levels)
        yield _config_problem(project, ("params", param), problem, SNIPPET_RULE)
    allowed = table.get("allowed") or {}
    values = allowed.get(param) if isinstance(allowed, Mapping) else None
    for item in values if isinstance(values, (list, tuple)) else []:
        if item not in levels:
            problem = _unknown(item, skill, levels)
            yield _config_problem(project, ("allowed", param), problem, SNIPPET_RULE)


def _config_problem(
    project: Project, key: tuple[str, ...], message: str, rule: str = ID
) -> Problem:
    config = project.config
    if config.source is None:
        return Problem(1, 1, f"{message} (rules.{rule}.{key[0]})", path=config.specs)
    line, column = config.where(("rules", rule, *key))
    return Problem(line, column, message, path=config.source)

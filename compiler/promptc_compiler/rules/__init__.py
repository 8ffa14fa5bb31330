"""The rule registry: every rule id promptc can report, one module each.

The rules of this package, and each runtime's own rules, which its package
holds (promptc_compiler.runtimes: RULES); `exposure` is no rule but the ground
of the security rules.

A rule module has a docstring (its documentation: summary, Options, Fails /
Passes examples), `ID` (kebab-case, the module name with `-` for `_`),
`DEFAULT_LEVEL` (error, warning, info or off), `OPTIONS` (JSON Schema
properties of its options, each with a default) and `check(project, options)`
yielding Problems with `path` set. A rule that reads composed bodies
(`spec.body`) also defines `session(project, options)` (project.Session): the
pipeline runs it one body at a time as each body is composed and emitted, and
its `check` is `project.by_spec(project, session(project, options))`. Modules
with `STAGE = True` document an id
that a pipeline stage reports (syntax, schema, ...): they have no `check`,
and their level cannot be changed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from promptc_compiler import runtimes
from promptc_compiler.core import suppress
from promptc_compiler.rules import (
    agent_id,
    compose,
    dangerous_allow,
    delegation_policy,
    deprecated_key,
    description_length,
    emit,
    empty_body,
    encoded_blob,
    encoding,
    exfiltration_url,
    hidden_markup,
    hidden_text,
    home_path,
    import_,
    internal,
    key_typo,
    lossy_translation,
    lost_tool,
    missing_catch_all,
    mixed_script,
    prompt_injection,
    required_snippet,
    runtime_limits,
    schema,
    secret,
    session_agent,
    shadowed_rule,
    skill_levels,
    stale_output,
    stray_file,
    subagent_delegates,
    syntax,
    task_primary,
    task_unknown_agent,
    unknown_key,
    unknown_permission,
    unknown_skill,
    unloadable_skill,
    unmanaged_file,
    unreachable_subagent,
    unused_fragment,
    unused_suppression,
    wider_translation,
    write,
)

if TYPE_CHECKING:
    from promptc_compiler.base.diagnostics import Problem
    from promptc_compiler.runtimes.translations import Translated


class Rule(Protocol):
    ID: str
    DEFAULT_LEVEL: str
    STAGE: bool
    OPTIONS: Mapping[str, Any]
    __doc__: str | None

    def check(self, project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]: ...


_MODULES: tuple[ModuleType, ...] = (
    syntax,
    encoding,
    stray_file,
    compose,
    schema,
    emit,
    wider_translation,
    lost_tool,
    key_typo,
    unknown_key,
    deprecated_key,
    write,
    stale_output,
    unmanaged_file,
    internal,
    import_,
    unused_suppression,
    agent_id,
    description_length,
    empty_body,
    unused_fragment,
    required_snippet,
    shadowed_rule,
    missing_catch_all,
    unknown_permission,
    dangerous_allow,
    home_path,
    task_unknown_agent,
    task_primary,
    session_agent,
    subagent_delegates,
    delegation_policy,
    unreachable_subagent,
    *runtimes.RULES,  # each runtime's own rules (promptc_compiler.runtimes)
    lossy_translation,
    runtime_limits,
    unknown_skill,
    unloadable_skill,
    skill_levels,
    hidden_text,
    mixed_script,
    hidden_markup,
    prompt_injection,
    exfiltration_url,
    encoded_blob,
    secret,
)

RULES: Mapping[str, Rule] = {module.ID: module for module in _MODULES}


def get(rule_id: str) -> Rule:
    try:
        return RULES[rule_id]
    except KeyError:
        raise KeyError(f"no such rule: '{rule_id}'") from None


def options_schema(rule: Rule) -> dict[str, Any]:
    level = {"enum": ["error", "warning", "info", "off"]}
    properties = {"level": level, **rule.OPTIONS}
    if not fixed_level(rule):
        properties["suppress"] = suppress.OPTION
    return {"type": "object", "additionalProperties": False, "properties": properties}


def fixed_level(rule: Rule) -> bool:
    """A stage's own findings keep their level, unless the stage says they may not; those
    (a file that does not parse, a wider translation, a refused write) cannot be suppressed."""
    return rule.STAGE and getattr(rule, "LEVEL_FIXED", True) is not False


def option_defaults(rule: Rule) -> dict[str, Any]:
    return {name: spec["default"] for name, spec in rule.OPTIONS.items() if "default" in spec}


def summary(rule: Rule) -> str:
    return (rule.__doc__ or "").strip().splitlines()[0]

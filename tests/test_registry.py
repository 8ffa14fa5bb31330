"""Every rule and target module is registered and documented, with valid option defaults."""

from __future__ import annotations

import pkgutil
from types import ModuleType
from typing import cast

import jsonschema
import pytest

import promptc_compiler.rules
import promptc_compiler.runtimes
from promptc_compiler import rules
from promptc_compiler.core.compose import TARGET_NAMES
from promptc_compiler.runtimes import targets


def test_every_rule_module_is_registered() -> None:
    # A module whose id is a Python keyword carries a trailing `_` (`import_`).
    modules = {m.name.rstrip("_") for m in pkgutil.iter_modules(promptc_compiler.rules.__path__)}
    assert {rule_id.replace("-", "_") for rule_id in rules.RULES} == modules


@pytest.mark.parametrize("rule_id", sorted(rules.RULES))
def test_rule_contract(rule_id: str) -> None:
    rule = rules.RULES[rule_id]
    assert rule_id == rule.ID
    assert rule.__doc__
    assert rule.__doc__.strip()
    assert rule.DEFAULT_LEVEL in ("error", "warning", "info", "off")
    jsonschema.Draft202012Validator.check_schema(rules.options_schema(rule))
    jsonschema.validate(rules.option_defaults(rule), rules.options_schema(rule))
    assert set(rules.option_defaults(rule)) == set(rule.OPTIONS)
    assert callable(getattr(rule, "check", None)) != rule.STAGE


def test_every_target_module_is_registered() -> None:
    # Each runtime package holds its targets: `target.py`, and Claude's plugin as `plugin.py`.
    modules = {
        f"{package.name}.{module.name}"
        for package in pkgutil.iter_modules(promptc_compiler.runtimes.__path__)
        if package.ispkg
        for module in pkgutil.iter_modules(
            [f"{promptc_compiler.runtimes.__path__[0]}/{package.name}"]
        )
        if module.name in ("target", "plugin")
    }
    assert {
        # Each registered target is a module (typed as the Target protocol).
        cast("ModuleType", target).__name__.removeprefix("promptc_compiler.runtimes.")
        for target in targets.TARGETS.values()
    } == modules
    for target in targets.TARGETS.values():
        assert target.__doc__
        jsonschema.Draft202012Validator.check_schema(targets.options_schema(target))


def test_every_target_is_a_name_composition_knows() -> None:
    """A spec may compare `target` with any target the registry emits."""
    assert set(targets.TARGETS) <= set(TARGET_NAMES)


def test_unknown_rule_lookup() -> None:
    with pytest.raises(KeyError, match="no such rule: 'nope'"):
        rules.get("nope")

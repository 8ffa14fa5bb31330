"""Every rule, runtime and target is registered and documented, with valid option defaults."""

from __future__ import annotations

import json
import pkgutil
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import jsonschema
import pytest

import promptc_compiler.rules
import promptc_compiler.runtimes
from promptc_compiler import rules, runtimes
from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.resources import load_schema
from tests import spec_schemas

ROOT = Path(__file__).resolve().parent.parent
# Modules of rules/ that are no rule: the ground the security rules share.
SHARED_RULE_MODULES = {"exposure"}


def _modules(path: str) -> set[str]:
    # A module whose id is a Python keyword carries a trailing `_` (`import_`).
    return {m.name.rstrip("_") for m in pkgutil.iter_modules([path]) if not m.ispkg}


def test_every_rule_module_is_registered() -> None:
    """The rules of rules/ and of each runtime package's rules/, and no other."""
    folders = [
        promptc_compiler.rules.__path__[0],
        *(
            str(Path(cast("ModuleType", runtime).__file__ or "").parent / "rules")
            for runtime in runtimes.RUNTIMES.values()
        ),
    ]
    modules = set().union(*(_modules(folder) for folder in folders)) - SHARED_RULE_MODULES
    assert {rule_id.replace("-", "_") for rule_id in rules.RULES} == modules
    assert {rule.__name__ for rule in runtimes.RULES} <= {
        cast("ModuleType", rule).__name__ for rule in rules.RULES.values()
    }


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


def test_every_runtime_package_is_registered() -> None:
    """Each package of runtimes/ is a runtime in the registry, under its folder's name."""
    packages = {m.name for m in pkgutil.iter_modules(promptc_compiler.runtimes.__path__) if m.ispkg}
    assert set(runtimes.RUNTIMES) == packages
    for name, runtime in runtimes.RUNTIMES.items():
        assert cast("ModuleType", runtime).__name__ == f"promptc_compiler.runtimes.{name}"
        assert cast("ModuleType", runtime).__doc__


@pytest.mark.parametrize("name", sorted(runtimes.TARGETS))
def test_target_contract(name: str) -> None:
    target = runtimes.TARGETS[name]
    assert target.__doc__
    assert name == target.NAME
    assert target.COMPOSE_AS in runtimes.TARGETS
    jsonschema.Draft202012Validator.check_schema(runtimes.options_schema(target))
    for _, schema in target.SCHEMAS:
        assert schema in runtimes.RUNTIME_OF[name].FILE_SCHEMAS  # its own runtime's
    assert not target.SHARED or target.ROOT is not None  # shared files stand at the root
    for path in target.SHARED:
        assert target.ROOT is not None
        assert target.ROOT.fullmatch(path), path


@pytest.mark.parametrize("kind", spec_schemas.KINDS)
def test_the_spec_schemas_are_the_registry_s(kind: str) -> None:
    """What schemas/agent.schema.json and mode.schema.json say of the runtimes is
    assembled from their packages (`python -m tests.spec_schemas` rewrites them)."""
    shipped = spec_schemas.path(kind).read_text(encoding="utf-8")
    assert shipped == spec_schemas.text(kind), "run `python -m tests.spec_schemas`"
    targets = load_schema(kind)["properties"]["targets"]["properties"]
    assert list(targets) == [t for t in runtimes.TARGETS if kind in runtimes.TARGETS[t].SPEC_KEYS]


@pytest.mark.parametrize(
    ("file", "definitions"),
    list(spec_schemas.file_schema_paths()),
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_a_runtime_s_file_schemas_take_its_definitions(
    file: Path, definitions: Mapping[str, Any]
) -> None:
    """A definition its overrides.json has is written once: the file's copy is that."""
    assert file.read_text(encoding="utf-8") == spec_schemas.file_schema_text(file, definitions)


def test_every_target_takes_an_agent_s_overrides_from_its_own_package() -> None:
    """A target's definitions are its runtime's (the source's agent keys are the spec's own)."""
    for runtime in runtimes.RUNTIMES.values():
        for target in runtime.TARGETS:
            assert "agent" in target.SPEC_KEYS
            for kind, name in target.SPEC_KEYS.items():
                assert kind in spec_schemas.KINDS
                own = name in runtime.DEFINITIONS
                assert own or (runtime.NAME == SOURCE and kind == "agent"), (target.NAME, name)


def test_assembling_replaces_a_runtime_s_definitions_and_drops_orphans() -> None:
    """A stale copy of a runtime's definition is replaced, one nothing refers to goes,
    and the spec's own definitions stay."""
    runtime = next(r for r in runtimes.RUNTIMES.values() if r.NAME != SOURCE)
    name = runtime.TARGETS[0].SPEC_KEYS["agent"]  # its own (the test above)
    current = load_schema("agent")
    stale = {**current, "$defs": {**current["$defs"], name: {"type": "null"}, "gone": {}}}
    schema = spec_schemas.assembled("agent", stale)
    assert schema["$defs"][name] == runtime.DEFINITIONS[name]
    assert "gone" not in schema["$defs"]
    assert schema["$defs"]["permission"] == current["$defs"]["permission"]
    assert schema == spec_schemas.assembled("agent", current)


def test_each_runtime_follows_the_release_the_tests_pin() -> None:
    pins = json.loads((ROOT / "tests" / "package.json").read_text(encoding="utf-8"))
    released = {r.RELEASE for r in runtimes.RUNTIMES.values()}
    assert released == {f"{name} {version}" for name, version in pins["dependencies"].items()}


def test_the_registry_s_derived_lists() -> None:
    """Each list is the registry's: compose's names, the models, the import folders."""
    assert set(runtimes.TARGET_NAMES) == set(runtimes.TARGETS)
    assert list(runtimes.TARGET_NAMES) == sorted(runtimes.TARGET_NAMES)
    assert set(runtimes.IMPORT_FOLDERS) == set(runtimes.RUNTIMES)
    with_model = {n for n, r in runtimes.RUNTIME_OF.items() if r.MODEL is not None}
    assert set(runtimes.MODELS) == with_model
    assert SOURCE not in runtimes.MODELS  # the others are proved against it
    for name, runtime in runtimes.RUNTIMES.items():
        assert name == runtime.TARGETS[0].NAME  # `promptc import <name>` turns on its target


@pytest.mark.parametrize("name", sorted(runtimes.RUNTIMES))
def test_every_runtime_has_its_docs_page_and_test_folder(name: str) -> None:
    page = f"targets/{name}.md"
    assert (ROOT / "docs" / page).is_file()
    assert page in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert (ROOT / "tests" / name / "__init__.py").is_file()
    assert (ROOT / "tests" / name / "oracle.py").is_file()  # the driver of its real binary


def test_unknown_rule_lookup() -> None:
    with pytest.raises(KeyError, match="no such rule: 'nope'"):
        rules.get("nope")

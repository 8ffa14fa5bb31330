"""compiler.precheck agrees with jsonschema on validity, and spares the common path its import.

The precheck only says "valid" or "invalid" (a failure is explained by
jsonschema, as before), so the one property that matters is agreement: for
every shipped schema and every rule's and target's options schema, on the
documents of the schema case tables and on generated ones.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler import precheck, validate
from compiler import rules as rule_registry
from compiler import targets as target_registry
from compiler.loader import load_bytes
from compiler.resources import load_schema, schema_dir
from tests import test_schema
from tests.conftest import loaded_modules
from tests.schema_cases import CASES, REFERENCE_AGENT

SHIPPED = sorted(p.name.removesuffix(".schema.json") for p in schema_dir().glob("*.schema.json"))
OPTIONS = {
    **{f"rule {k}": rule_registry.options_schema(m) for k, m in rule_registry.RULES.items()},
    **{
        f"target {k}": target_registry.options_schema(t) for k, t in target_registry.TARGETS.items()
    },
}


def full(instance: Any, schema: dict[str, Any]) -> bool:
    """jsonschema's verdict, with the validator promptc uses (x-finite included)."""
    return not any(validate._validator(schema).iter_errors(instance))


def assert_agree(instance: Any, schema: dict[str, Any]) -> None:
    quick = precheck.valid(instance, schema)
    assert quick is not None, "the precheck should decide every shipped schema"
    assert quick == full(instance, schema), instance


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_schema_compiles(name: str) -> None:
    precheck.compile_schema(load_schema(name))


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_options_schema_compiles(name: str) -> None:
    precheck.compile_schema(OPTIONS[name])


def _frontmatters() -> list[dict[str, Any]]:
    texts = [case.text for case in CASES] + [REFERENCE_AGENT, test_schema.CLAUDE_AGENT]
    texts += [f"---\n{front}---\nbody\n" for _, front, *_ in test_schema.CLAUDE_DEFECTS]
    texts += [test_schema.CLAUDE_COMMAND]
    texts += [f"---\ndescription: x\n{front}---\nbody\n" for front, *_ in test_schema.MODE_CASES]
    found = []
    for text in texts:
        source = load_bytes(Path("x.md"), text.lstrip("\n").encode())
        if source.frontmatter is not None:
            found.append(dict(source.frontmatter.data))
    return found


def _json_documents() -> list[Any]:
    documents = [json.loads(test_schema.CLAUDE_SETTINGS), json.loads(test_schema.CLAUDE_PLUGIN)]
    for entry, _ in test_schema.SETTINGS_DEFECTS:
        documents.append(json.loads('{"permissions": {' + entry + "}}"))
    return documents


TABLE = _frontmatters() + _json_documents()


def test_the_case_tables_hold_both_verdicts() -> None:
    verdicts = {full(doc, load_schema("agent")) for doc in TABLE}
    assert verdicts == {True, False}


@pytest.mark.parametrize("name", SHIPPED)
def test_agrees_on_the_case_tables(name: str) -> None:
    schema = load_schema(name)
    for document in TABLE:
        assert_agree(document, schema)


# --- generated documents ------------------------------------------------------------

_KEYS: set[str] = set()
_TEXTS: set[str] = set()


def _harvest(node: Any) -> None:
    """Property names and the strings a schema names: what generated documents are made of."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("properties", "patternProperties"):
                _KEYS.update(value)
            if key in ("enum", "const", "required"):
                values = value if isinstance(value, list) else [value]
                _TEXTS.update(v for v in values if isinstance(v, str))
            _harvest(value)
    elif isinstance(node, list):
        for item in node:
            _harvest(item)


for _name in SHIPPED:
    _harvest(load_schema(_name))
for _schema in OPTIONS.values():
    _harvest(_schema)
_TEXTS.update(["#FF5733", "#ff573", "", " ", "./agents/", "Bash(ls *)", "mcp__*", "a:b", "x" * 80])

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=300),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, 1.5, -1.0, float("inf")]),
    st.sampled_from(sorted(_TEXTS)),
    st.text(max_size=8),
    st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2030, 1, 1)),
)
keys = st.one_of(st.sampled_from(sorted(_KEYS)), st.text(max_size=6))
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=6)),
    max_leaves=24,
)
top_level = st.dictionaries(keys, documents, max_size=8)


def _resolve(node: Any, root: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/$defs/"):
        node = root["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def _members(node: Any, root: dict[str, Any], depth: int = 0) -> tuple[dict[str, Any], list[str]]:
    """Properties and required keys of an object schema, through allOf and $ref."""
    node = _resolve(node, root)
    if not isinstance(node, dict) or depth > 4:
        return {}, []
    properties = dict(node.get("properties", {}))
    required = list(node.get("required", []))
    for sub in node.get("allOf", []):
        more, needed = _members(sub, root, depth + 1)
        properties = {**more, **properties}
        required += needed
    return properties, required


def guided(node: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Documents shaped by the schema, each level sometimes replaced by anything:
    mostly near misses, which is where a wrong verdict would hide."""
    node = _resolve(node, root)
    if depth > 5 or not isinstance(node, dict):
        return scalars
    options: list[st.SearchStrategy[Any]] = []
    for sub in node.get("anyOf", []):
        options.append(st.deferred(lambda sub=sub: guided(sub, root, depth)))
    if "enum" in node:
        options.append(st.sampled_from(node["enum"]))
    if "const" in node:
        options.append(st.just(node["const"]))
    properties, required = _members(node, root)
    kinds = node.get("type")
    if properties or kinds == "object" or "additionalProperties" in node:
        fields = {k: guided(v, root, depth + 1) for k, v in properties.items()}
        extra = node.get("additionalProperties")
        values = guided(extra, root, depth + 1) if isinstance(extra, dict) else documents
        options.append(
            st.builds(
                lambda needed, optional, more: {**more, **needed, **optional},
                st.fixed_dictionaries({k: fields[k] for k in required if k in fields}),
                st.fixed_dictionaries(
                    {}, optional={k: f for k, f in fields.items() if k not in required}
                ),
                st.dictionaries(keys, values, max_size=2),
            )
        )
    if "items" in node or kinds == "array":
        item = guided(node.get("items", {}), root, depth + 1)
        options.append(st.lists(item, max_size=3))
    if kinds == "string" or "pattern" in node or "minLength" in node:
        low = node.get("minLength", 0)
        high = node.get("maxLength", low + 3)
        options.append(st.text(min_size=max(0, low - 1), max_size=min(high + 1, low + 4)))
        if "maxLength" in node:
            options.append(st.sampled_from(["a" * (high - 1), "a" * high, "a" * (high + 1)]))
        if "pattern" in node:
            options.append(st.from_regex(node["pattern"], fullmatch=True))
    if kinds in ("number", "integer") or "minimum" in node:
        low = node.get("minimum", node.get("exclusiveMinimum", 0))
        options.append(st.sampled_from([low - 1, low, low + 1, low + 0.5, float(low)]))
    if not options:
        return scalars
    # The shaped values three times out of four; at the top, only those.
    return st.one_of(options) if depth == 0 else st.one_of(*options, *options, *options, scalars)


GUIDED = {name: guided(load_schema(name), load_schema(name)) for name in SHIPPED}
GUIDED_OPTIONS = {name: guided(schema, schema) for name, schema in OPTIONS.items()}


@pytest.mark.parametrize("name", SHIPPED)
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_agrees_on_documents_shaped_by_the_schema(name: str, data: st.DataObject) -> None:
    assert_agree(data.draw(GUIDED[name]), load_schema(name))


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_agrees_on_options_shaped_by_their_schema(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(OPTIONS)))
    assert_agree(data.draw(GUIDED_OPTIONS[name]), OPTIONS[name])


@pytest.mark.parametrize("name", SHIPPED)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=top_level)
def test_agrees_on_generated_documents(name: str, document: dict[str, Any]) -> None:
    assert_agree(document, load_schema(name))


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(sorted(OPTIONS)), document=top_level)
def test_agrees_on_generated_options(name: str, document: dict[str, Any]) -> None:
    assert_agree(document, OPTIONS[name])


@settings(max_examples=100, deadline=None)
@given(document=documents)
def test_agrees_on_generated_values_of_each_definition(document: Any) -> None:
    for name in ("agent", "mode", "claude-settings", "opencode-config"):
        schema = load_schema(name)
        for definition in schema.get("$defs", {}):
            probe = {**schema, "$ref": f"#/$defs/{definition}"}
            probe.pop("$id")  # a fresh schema: compiled anew, not the cached root
            for key in ("properties", "required", "allOf", "type", "additionalProperties"):
                probe.pop(key, None)
            assert_agree(document, probe)


# --- what it leaves to jsonschema ------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "prefixItems": [{"type": "string"}]},
        {"$ref": "https://example.com/other.json"},
        {"properties": {"a": {"$id": "https://example.com/a", "type": "string"}}},
        {"oneOf": [{"type": "string"}]},
        {"format": "email"},
    ],
)
def test_cannot_tell_outside_its_subset(schema: dict[str, Any]) -> None:
    assert precheck.valid({"a": "x"}, schema) is None


def test_cannot_tell_for_values_no_loader_produces() -> None:
    assert precheck.valid((1, 2), {"type": "array"}) is None
    assert precheck.valid({"a": (1,)}, {"properties": {"a": {"enum": [[1]]}}}) is None


@pytest.mark.parametrize(
    ("instance", "schema", "expected"),
    [
        (True, {"enum": [1]}, False),
        (1.0, {"enum": [1]}, True),
        (2.0, {"type": "integer"}, True),
        (True, {"type": "integer"}, False),
        (float("nan"), {"type": "number", "x-finite": True}, False),
        ([1, True], {"uniqueItems": True}, True),
        ([[1], [1]], {"uniqueItems": True}, False),
        ({"b": 1}, {"patternProperties": {"^a": {}}, "additionalProperties": False}, False),
        ({"ab": 1}, {"patternProperties": {"^a": {}}, "additionalProperties": False}, True),
        ("x", {"not": {"const": "x"}}, False),
        ([], {"minItems": 1}, False),
        (["a"], {"minItems": 1, "maxItems": 1}, True),
        ({"x-y": 1}, {"propertyNames": {"pattern": "^[a-z]+$"}}, False),
        (0, {"exclusiveMinimum": 0}, False),
        ("ab", {"minLength": 2, "maxLength": 2}, True),
    ],
)
def test_edge_values_as_jsonschema_decides(
    instance: Any, schema: dict[str, Any], expected: bool
) -> None:
    assert precheck.valid(instance, schema) is expected
    validator = validate._validator_class()(schema)
    assert (not any(validator.iter_errors(instance))) is expected
    jsonschema.Draft202012Validator.check_schema(schema)


# --- the common path ------------------------------------------------------------------------


def test_a_valid_bundle_is_checked_without_importing_jsonschema(sample: Path) -> None:
    assert loaded_modules(sample, {"jsonschema"}, "build", "--no-cache", "-q") == ["0"]
    assert loaded_modules(sample, {"jsonschema"}, "check", "--no-cache", "-q") == ["0"]

"""A run's Schemas: one validator per schema and run, and every failure explained.

`Schemas.valid` stops at a document's first error; only a document that fails
is walked again by `validate.issues`, which turns each error into a message.
So the property that matters is that the two agree: a document gets no
message exactly when it is valid. And a run's validators check the schemas
with their references put in place (validate._inlined): every document gets
the messages the schema as shipped gives. Both checked on the documents of
the schema case tables and on documents generated from each schema.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc_compiler.core import validate
from promptc_compiler.core.loader import load_bytes
from promptc_compiler.runtimes import FILE_SCHEMAS, TARGETS
from tests import test_schema
from tests.schema_cases import CASES, REFERENCE_AGENT
from tests.test_schema import shipped

pytestmark = pytest.mark.slow

SHIPPED = test_schema.SCHEMAS
# What a run checks with Schemas: the sources, then the emitted files (the
# config is validated once per run, by a validator of its own).
CHECKED = sorted(
    {"agent", "mode", "fragment", "skill"}
    | {schema for target in TARGETS.values() for _, schema in target.SCHEMAS}
)
SCHEMAS = validate.Schemas(FILE_SCHEMAS)  # shared by the examples, as by the documents of one run
OPENCODE_FILES = TARGETS["opencode"].SCHEMAS
# Each schema as shipped, its references followed by jsonschema.
AS_SHIPPED = {name: validate.SchemaValidator(shipped(name)) for name in CHECKED}


def assert_explained_exactly_when_invalid(document: Any, name: str) -> None:
    explained = list(validate.issues(document, SCHEMAS.validator(name)))
    assert SCHEMAS.valid(name, document) == (explained == []), (document, explained)
    assert explained == list(validate.issues(document, AS_SHIPPED[name])), document


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
    assert {SCHEMAS.valid("agent", document) for document in TABLE} == {True, False}


def test_a_run_checks_shipped_schemas() -> None:
    assert set(CHECKED) <= set(SHIPPED)


@pytest.mark.parametrize("name", CHECKED)
def test_the_case_tables_are_explained_exactly_when_invalid(name: str) -> None:
    for document in TABLE:
        assert_explained_exactly_when_invalid(document, name)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_reference_of_a_shipped_schema_is_put_in_place(name: str) -> None:
    """No `$ref` is left for jsonschema to follow at each use."""
    inlined = validate._inlined(shipped(name))
    used = {key: value for key, value in inlined.items() if key != "$defs"}
    assert '"$ref"' not in json.dumps(used)


def test_a_reference_beside_a_keyword_that_validates_is_followed_with_it() -> None:
    schema = {
        "$defs": {"text": {"type": "string"}},
        "properties": {"name": {"$ref": "#/$defs/text", "minLength": 2}},
    }
    validator = validate.SchemaValidator(validate._inlined(schema))
    assert validator.is_valid({"name": "ab"})
    assert not validator.is_valid({"name": "a"})  # the keyword beside it
    assert not validator.is_valid({"name": 1})  # the definition


def test_a_definition_that_refers_to_itself_is_followed_at_every_depth() -> None:
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"child": {"$ref": "#/$defs/node"}},
                "additionalProperties": False,
            }
        },
        "properties": {"tree": {"$ref": "#/$defs/node"}},
    }
    validator = validate.SchemaValidator(validate._inlined(schema))
    assert validator.is_valid({"tree": {"child": {"child": {}}}})
    assert not validator.is_valid({"tree": {"child": {"child": {"leaf": 1}}}})
    assert schema["properties"] == {"tree": {"$ref": "#/$defs/node"}}  # the original untouched


def test_a_non_finite_number_is_refused() -> None:
    assert SCHEMAS.valid("agent", {"description": "d", "temperature": 0.5})
    assert not SCHEMAS.valid("agent", {"description": "d", "temperature": float("inf")})
    assert not SCHEMAS.valid("agent", {"description": "d", "top_p": float("nan")})
    found = list(
        validate.issues({"description": "d", "top_p": float("nan")}, SCHEMAS.validator("agent"))
    )
    assert [(path, message) for path, message, _ in found] == [
        (("top_p",), "$.top_p: must be a finite number, not the number nan")
    ]


def test_checking_leaves_the_schemas_as_they_are() -> None:
    before = {name: copy.deepcopy(shipped(name)) for name in CHECKED}
    schemas = validate.Schemas(FILE_SCHEMAS)
    for name in CHECKED:
        schemas.valid(name, {})
        list(validate.issues({}, schemas.validator(name)))
    assert {name: shipped(name) for name in CHECKED} == before


def test_a_document_is_checked_as_it_is_and_never_filled_in() -> None:
    document = {"description": "d"}
    assert SCHEMAS.valid("agent", document)
    assert document == {"description": "d"}  # no schema default written into it


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
    _harvest(shipped(_name))
_TEXTS.update(["#FF5733", "#FF5733\n", "", " ", "./agents/", "Bash(ls *)", "mcp__*", "a:b"])

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
    mostly near misses, where a failure is likeliest to go unexplained."""
    node = _resolve(node, root)
    if depth > 5 or not isinstance(node, dict):
        return scalars
    options: list[st.SearchStrategy[Any]] = []
    for sub in node.get("anyOf", []):

        def later(sub: Any = sub) -> st.SearchStrategy[Any]:  # deferred takes a function
            return guided(sub, root, depth)

        options.append(st.deferred(later))
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
        least: Any = node.get("minimum", node.get("exclusiveMinimum", 0))
        options.append(st.sampled_from([least - 1, least, least + 1, least + 0.5, float(least)]))
    if not options:
        return scalars
    # The shaped values three times out of four; at the top, only those.
    return st.one_of(options) if depth == 0 else st.one_of(*options, *options, *options, scalars)


GUIDED = {name: guided(shipped(name), shipped(name)) for name in CHECKED}


@pytest.mark.parametrize("name", CHECKED)
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_documents_shaped_by_the_schema_are_explained_exactly_when_invalid(
    name: str, data: st.DataObject
) -> None:
    assert_explained_exactly_when_invalid(data.draw(GUIDED[name]), name)


@pytest.mark.parametrize("name", CHECKED)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=top_level)
def test_any_document_is_explained_exactly_when_invalid(
    name: str, document: dict[str, Any]
) -> None:
    assert_explained_exactly_when_invalid(document, name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "---\ndescription: Reviews code\nmode: sideways\n---\nBody\n",
            (
                3,
                7,
                "$.mode: 'sideways' is not one of subagent, primary, all (opencode-agent.schema.json)",
            ),
        ),
        (
            "---\ndescription: Reviews code\ndescription: again\n---\nBody\n",
            (3, 1, "unreadable frontmatter: duplicate key 'description' (first defined at line 2)"),
        ),
        (
            "---\ndescription: [\n---\nBody\n",
            (3, 1, "unreadable frontmatter: invalid YAML: did not find expected node content"),
        ),
        ("Body only\n", (1, 1, "no frontmatter, but opencode-agent requires one")),
        (
            "---\ndescription: Reviews code\ntemperature: hot\n---\nBody\n",
            (
                3,
                14,
                "$.temperature: must be a number (found the text 'hot') (opencode-agent.schema.json)",
            ),
        ),
    ],
)
def test_a_broken_emitted_agent_gets_the_positioned_diagnostic(
    text: str, expected: tuple[int, int, str]
) -> None:
    rel = ".opencode/agents/reviewer.md"
    found = list(validate.check_emitted(OPENCODE_FILES, rel, text, validate.Schemas(FILE_SCHEMAS)))
    assert [(p.line, p.column, p.message) for p in found] == [expected]


def test_a_valid_emitted_agent_has_no_problem() -> None:
    text = "---\ndescription: Reviews code\nmode: subagent\n---\nBody\n"
    schemas = validate.Schemas(FILE_SCHEMAS)
    assert (
        list(validate.check_emitted(OPENCODE_FILES, ".opencode/agents/r.md", text, schemas)) == []
    )


@pytest.mark.parametrize(
    ("source", "emitted", "reused"),
    [
        # the OpenCode agent of a spec holding only OpenCode's keys: its frontmatter exactly
        (
            "\ufeff---\r\ndescription: Reviews code\r\ntemperature: hot\r\n---\r\n<<steps>>\r\n",
            "---\ndescription: Reviews code\ntemperature: hot\n---\n1. Read.\n",
            True,
        ),
        (
            "---\ndescription: Reviews code\ntemperature: hot\n---",
            "---\ndescription: Reviews code\ntemperature: hot\n---\nBody\n",
            True,
        ),
        (
            "---\ndescription: [unclosed\n---\nBody\n",
            "---\ndescription: [unclosed\n---\nBo\n",
            True,
        ),
        (
            "---\ndescription: Reviews code\n---\nBody\n",
            "---\ndescription: Reviews\n---\nBody\n",
            False,
        ),
        ("Body only\n", "Body only\n", False),
        ("---\ndescription: Reviews code\n", "---\ndescription: Reviews code\n", False),
    ],
)
def test_an_emitted_file_reads_back_as_its_own_text_does(
    source: str, emitted: str, reused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given the file it was generated from, the check finds what it finds in the
    emitted text alone; the text is parsed only when it does not open with that
    file's frontmatter."""
    rel = ".opencode/agents/r.md"
    alone = list(validate.check_emitted(OPENCODE_FILES, rel, emitted, SCHEMAS))
    origin = load_bytes(Path("specs/agents/r.md"), source.encode())
    parsed: list[str] = []

    def load(path: Path, raw: bytes) -> Any:
        parsed.append(path.name)
        return load_bytes(path, raw)

    monkeypatch.setattr(validate, "load_bytes", load)
    assert list(validate.check_emitted(OPENCODE_FILES, rel, emitted, SCHEMAS, origin)) == alone
    assert parsed == ([] if reused else ["r.md"])

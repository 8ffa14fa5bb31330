"""Precheck: answer "is this document valid?" without importing jsonschema.

Most files are valid, and importing and running jsonschema costs more than
the rest of a small run. This module compiles a JSON Schema (the subset of
draft 2020-12 the shipped schemas and the rule and target options use, plus
`x-finite`) into nested Python closures once, and a run asks them only for
a yes or no. Anything outside that subset (a keyword it does not know, a `$ref`
that leaves the document, a value of a type no loader produces) makes it say
"cannot tell", and the caller asks jsonschema as before.

A "no" is never reported as it is: compiler.validate then runs jsonschema,
whose errors it turns into diagnostics, so messages are exactly those of the
full validator. The closures only have to agree with jsonschema on validity;
tests/test_precheck.py holds them to that on the schema case tables and on
generated documents.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]
Entry = Callable[[str, Any], bool]  # one (key, value) of a map
Search = Callable[..., object]  # a compiled pattern's search
# properties, patternProperties, the joined patterns, additionalProperties,
# required, propertyNames
_ObjectParts = tuple[
    dict[str, Check],
    list[tuple[Search, Check]],
    Search | None,
    Check | None,
    tuple[str, ...],
    Check | None,
]

# Keywords that only annotate: jsonschema ignores them when validating.
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$defs",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "deprecationMessage",
        "errorMessage",
        "markdownDescription",
        "readOnly",
        "writeOnly",
        "x-models",
    }
)

# Python types the loaders produce (YAML, TOML, JSON); for any other the
# answer depends on jsonschema's own type checks, so it is asked instead.
_PLAIN = (str, int, float, bool, type(None), dict, list, dt.date, dt.datetime, dt.time)


class Unsupported(Exception):
    """The schema or the document is outside what this module decides."""


_COMPILED: dict[str, Check] = {}


def valid(instance: Any, schema: Mapping[str, Any]) -> bool | None:
    """True or False when decided here; None when jsonschema must decide."""
    key = schema.get("$id")
    check = _COMPILED.get(key) if isinstance(key, str) else None
    try:
        if check is None:
            check = compile_schema(schema)
            if isinstance(key, str):
                _COMPILED[key] = check
        return check(instance)
    except (Unsupported, RecursionError, TypeError, re.error):
        return None


_BY_ENTRY: dict[str, tuple[tuple[str, ...], Entry] | None] = {}


def by_entry(schema: Mapping[str, Any]) -> tuple[tuple[str, ...], Entry] | None:
    """For a schema that judges a map entry by entry: (the names it requires, the
    check of one (key, value)). A map is valid exactly when it holds every
    required name and each of its entries passes, so the verdict on an entry
    can be kept for the next map holding the same entry. None for any other
    schema (or one outside what this module decides).

    The entry check raises what `valid` catches where it cannot tell.
    """
    key = schema.get("$id")
    if isinstance(key, str) and key in _BY_ENTRY:
        return _BY_ENTRY[key]
    try:
        found: tuple[tuple[str, ...], Entry] | None = _Compiler(schema).entries(schema)
    except (Unsupported, RecursionError, TypeError, re.error):
        found = None
    if isinstance(key, str):
        _BY_ENTRY[key] = found
    return found


def compile_schema(root: Mapping[str, Any]) -> Check:
    """The closure deciding validity against `root` (raises Unsupported)."""
    return _Compiler(root).node(root)


class _Compiler:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def node(self, schema: Any) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        if "$id" in schema and schema is not self.root:
            raise Unsupported("$id below the root changes what $ref means")
        checks: list[Check] = []
        for keyword, value in schema.items():
            if keyword in _ANNOTATIONS or keyword in _OBJECT_KEYWORDS:
                continue
            make = _KEYWORDS.get(keyword)
            if make is None:
                raise Unsupported(keyword)
            checks.append(make(self, value))
        if any(k in schema for k in _OBJECT_KEYWORDS):
            checks.append(self.object(schema))
        return _all(checks)

    def ref(self, ref: Any) -> Check:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise Unsupported(f"$ref {ref!r}")
        if ref not in self.refs:
            # Bound late, so a definition that refers to itself compiles.
            slot: list[Check] = []
            self.refs[ref] = lambda x: slot[0](x)
            slot.append(self.node(_pointer(self.root, ref)))
        return self.refs[ref]

    def object(self, schema: Mapping[str, Any]) -> Check:
        parts = self.object_parts(schema)
        properties, patterns, listed, others, required, names = parts

        # The entry check of object_entries, inlined: it runs for every key of
        # every map checked.
        def check(x: Any) -> bool:
            if type(x) is not dict:
                if isinstance(x, dict):
                    raise Unsupported(type(x).__name__)
                return True
            for name in required:
                if name not in x:
                    return False
            for name, value in x.items():
                if names is not None and not names(name):
                    return False
                known = properties.get(name)
                if known is not None and not known(value):
                    return False
                for search, sub in patterns:
                    if search(name) and not sub(value):
                        return False
                additional = known is None and (listed is None or not listed(name))
                if additional and others is not None and not others(value):
                    return False
            return True

        return check

    def object_parts(self, schema: Mapping[str, Any]) -> _ObjectParts:
        """The object keywords of `schema`, compiled."""
        properties = {k: self.node(v) for k, v in schema.get("properties", {}).items()}
        patterns: list[tuple[Search, Check]] = [
            (re.compile(p).search, self.node(v))
            for p, v in schema.get("patternProperties", {}).items()
        ]
        # jsonschema decides what is "additional" with the patterns joined by `|`.
        joined = "|".join(schema.get("patternProperties", {}))
        listed: Search | None = re.compile(joined).search if joined else None
        extra = schema.get("additionalProperties", True)
        others = None if extra is True else self.node(extra)
        required = tuple(schema.get("required", ()))
        names = self.node(schema["propertyNames"]) if "propertyNames" in schema else None
        return properties, patterns, listed, others, required, names

    def object_entries(self, schema: Mapping[str, Any]) -> tuple[tuple[str, ...], Entry]:
        """The object keywords of `schema`: its required names, and the check of
        one entry (the loop body of object's check)."""
        properties, patterns, listed, others, required, names = self.object_parts(schema)

        def entry(name: str, value: Any) -> bool:
            if names is not None and not names(name):
                return False
            known = properties.get(name)
            if known is not None and not known(value):
                return False
            for search, sub in patterns:
                if search(name) and not sub(value):
                    return False
            additional = known is None and (listed is None or not listed(name))
            return not (additional and others is not None and not others(value))

        return required, entry

    def entries(self, schema: Any) -> tuple[tuple[str, ...], Entry]:
        """`schema` as (required names, check of one entry), for a map: raises
        Unsupported unless the schema says nothing of a map but what its
        entries say one by one (object keywords, `type: object`, `allOf`, `$ref`)."""
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        if "$id" in schema and schema is not self.root:
            raise Unsupported("$id below the root changes what $ref means")
        required: list[str] = []
        checks: list[Entry] = []
        for keyword, value in schema.items():
            if keyword in _ANNOTATIONS or keyword in _OBJECT_KEYWORDS:
                continue
            if keyword == "type":
                _type(self, value)  # refuses what node() refuses
                if "object" not in ([value] if isinstance(value, str) else value):
                    raise Unsupported("a map fails this type on its own")
                continue  # a dict passes `type: object` whatever it holds
            if keyword == "allOf" and isinstance(value, list):
                parts = [self.entries(each) for each in value]
            elif keyword == "$ref":
                if not isinstance(value, str) or not value.startswith("#"):
                    raise Unsupported(f"$ref {value!r}")
                parts = [self.entries(_pointer(self.root, value))]
            else:
                raise Unsupported(keyword)
            for names, check in parts:
                required.extend(names)
                checks.append(check)
        if any(k in schema for k in _OBJECT_KEYWORDS):
            names, check = self.object_entries(schema)
            required.extend(names)
            checks.append(check)
        return tuple(dict.fromkeys(required)), _every_entry(checks)


def _every_entry(checks: list[Entry]) -> Entry:
    if len(checks) == 1:
        return checks[0]

    def every(name: str, value: Any) -> bool:
        for check in checks:  # noqa: SIM110
            if not check(name, value):
                return False
        return True

    return every


_OBJECT_KEYWORDS = frozenset(
    {"properties", "patternProperties", "additionalProperties", "required", "propertyNames"}
)


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    node: Any = root
    for part in ref[1:].split("/")[1:] if ref != "#" else ():
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise Unsupported(f"$ref {ref}")
        node = node[part]
    return node


def _always(x: Any) -> bool:
    return True


def _never(x: Any) -> bool:
    return False


def _all(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda x: first(x) and second(x)

    def every(x: Any) -> bool:
        # Loops, not all() or any() over a generator, here and below: they run
        # for every value checked, and a generator costs a frame each time.
        for check in checks:  # noqa: SIM110
            if not check(x):
                return False
        return True

    return every


# --- types ---------------------------------------------------------------------


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, numbers.Number)


def _is_integer(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


_TYPES: dict[str, Check] = {
    "string": lambda x: isinstance(x, str),
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": _is_number,
    "integer": _is_integer,
}


def _type(compiler: _Compiler, value: Any) -> Check:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(n in _TYPES for n in names):
        raise Unsupported(f"type {value!r}")
    tests = [_TYPES[n] for n in names]
    if len(tests) == 1:
        test = tests[0]

        def single(x: Any) -> bool:
            if not isinstance(x, _PLAIN):
                raise Unsupported(type(x).__name__)
            return test(x)

        return single

    def check(x: Any) -> bool:
        if not isinstance(x, _PLAIN):
            raise Unsupported(type(x).__name__)
        for test in tests:  # noqa: SIM110
            if test(x):
                return True
        return False

    return check


# --- values --------------------------------------------------------------------


_TRUE, _FALSE = object(), object()


def _unbool(value: Any) -> Any:
    """jsonschema's trick to keep true apart from 1 (and false from 0)."""
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    return value


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's equality: true is not 1, and lists and maps compare that way inside."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(k in two and _equal(v, two[k]) for k, v in one.items())
    for value in (one, two):
        if not isinstance(value, _PLAIN) and value is not _TRUE and value is not _FALSE:
            raise Unsupported(type(value).__name__)
    if isinstance(one, list | dict) or isinstance(two, list | dict):
        return False
    return bool(_unbool(one) == _unbool(two))


def _enum(compiler: _Compiler, value: Any) -> Check:
    if not isinstance(value, list):
        raise Unsupported("enum")
    if all(isinstance(v, str) for v in value):
        texts = frozenset(value)
        return lambda x: isinstance(x, str) and x in texts
    return lambda x: any(_equal(each, x) for each in value)


def _const(compiler: _Compiler, value: Any) -> Check:
    return lambda x: _equal(x, value)


def _pattern(compiler: _Compiler, value: Any) -> Check:
    search = re.compile(value).search
    return lambda x: not isinstance(x, str) or search(x) is not None


def _min_length(compiler: _Compiler, value: Any) -> Check:
    return lambda x: not isinstance(x, str) or len(x) >= value


def _max_length(compiler: _Compiler, value: Any) -> Check:
    return lambda x: not isinstance(x, str) or len(x) <= value


def _minimum(compiler: _Compiler, value: Any) -> Check:
    return lambda x: not _is_number(x) or x >= value


def _exclusive_minimum(compiler: _Compiler, value: Any) -> Check:
    return lambda x: not _is_number(x) or x > value


def _maximum(compiler: _Compiler, value: Any) -> Check:
    return lambda x: not _is_number(x) or x <= value


def _finite(compiler: _Compiler, value: Any) -> Check:
    if not value:
        return _always
    return lambda x: not isinstance(x, float) or math.isfinite(x)


# --- arrays --------------------------------------------------------------------


def _items(compiler: _Compiler, value: Any) -> Check:
    item = compiler.node(value)

    def check(x: Any) -> bool:
        if isinstance(x, list):
            for each in x:
                if not item(each):
                    return False
        return True

    return check


def _min_items(compiler: _Compiler, value: Any) -> Check:
    return lambda x: not isinstance(x, list) or len(x) >= value


def _max_items(compiler: _Compiler, value: Any) -> Check:
    return lambda x: not isinstance(x, list) or len(x) <= value


def _unique_items(compiler: _Compiler, value: Any) -> Check:
    if not value:
        return _always

    return lambda x: not isinstance(x, list) or _unique(x)


def _unique(items: list[Any]) -> bool:
    """jsonschema's `uniq`, step for step: neighbours once sorted, else every pair."""
    try:
        ordered = sorted(_unbool(i) for i in items)
        return not any(_equal(a, b) for a, b in itertools.pairwise(ordered))
    except (NotImplementedError, TypeError):
        seen: list[Any] = []
        for item in map(_unbool, items):
            if any(_equal(other, item) for other in seen):
                return False
            seen.append(item)
    return True


# --- combinations --------------------------------------------------------------


def _all_of(compiler: _Compiler, value: Any) -> Check:
    return _all([compiler.node(each) for each in value])


def _any_of(compiler: _Compiler, value: Any) -> Check:
    options = [compiler.node(each) for each in value]

    def check(x: Any) -> bool:
        for option in options:  # noqa: SIM110
            if option(x):
                return True
        return False

    return check


def _not(compiler: _Compiler, value: Any) -> Check:
    inner = compiler.node(value)
    return lambda x: not inner(x)


def _ref(compiler: _Compiler, value: Any) -> Check:
    return compiler.ref(value)


_KEYWORDS: dict[str, Callable[[_Compiler, Any], Check]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "pattern": _pattern,
    "minLength": _min_length,
    "maxLength": _max_length,
    "minimum": _minimum,
    "exclusiveMinimum": _exclusive_minimum,
    "maximum": _maximum,
    "x-finite": _finite,
    "items": _items,
    "minItems": _min_items,
    "maxItems": _max_items,
    "uniqueItems": _unique_items,
    "allOf": _all_of,
    "anyOf": _any_of,
    "not": _not,
    "$ref": _ref,
}

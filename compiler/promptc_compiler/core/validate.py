"""Validate: check frontmatter, config and emitted files against the JSON Schemas in schemas/.

Each jsonschema error becomes one message a person can act on: it names the
JSON path, says what was expected and what was found, and points at the
offending value (or at the key, for unknown keys and for maps and lists, whose
value starts on another line). For `anyOf`, the alternative the value was
evidently meant to match is explained (a string is checked against the
string form, a map against the map form); when no alternative stands out, the
schema's own `errorMessage` says what is accepted.

One engine, jsonschema, on the draft the schemas declare (2020-12). A run
builds each validator once, when it first needs it, on its own Schemas, from
the schema with its references to its own definitions put in place
(_inlined); a document is checked by `is_valid`, and only one that fails is
walked again for every error to explain.

Emitted files are checked too, against the schema of the format they are in
(each target's SCHEMAS, promptc_compiler.runtimes.adapter), before anything is
written: a file that fails is a promptc bug, and promptc reports it rather than
leave the runtime to reject it.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.source import SOURCE
from promptc_compiler.base.suggest import closest, did_you_mean, near_miss
from promptc_compiler.core.loader import Frontmatter, JsonPath, SourceFile, load_bytes
from promptc_compiler.core.resources import load_schema

Issue = tuple[JsonPath, str, bool]  # (path, message, points at the key rather than the value)
# The schema of each file a target emits: (fnmatch pattern relative to the
# target's folder, schema name). `*` also matches `/`, so nested agent ids
# (`team/reviewer`) are covered.
Outputs = Sequence[tuple[str, str]]

_TYPE_NAMES = {
    "string": "a string",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "object": "a map",
    "array": "a list",
    "null": "nothing",
}
_YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n"}
_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def _finite(_validator: Any, wanted: Any, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    """`x-finite: true`: OpenCode's `Finite` refuses .inf and .nan, which JSON Schema allows."""
    if wanted and isinstance(instance, float) and not math.isfinite(instance):
        yield ValidationError(f"{instance!r} is not a finite number")


# Draft 2020-12, as the schemas declare, with the one keyword of promptc's own.
SchemaValidator: type[Validator] = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator, {"x-finite": _finite}
)


class Schemas:
    """One run's validators, by schema name, each built when first needed: of the
    schemas shipped in schemas/ and of `files`, the schemas of the files the
    targets write (each runtime's own, promptc_compiler.runtimes.FILE_SCHEMAS).

    Held by the run (promptc_compiler.api's collector), so nothing outlives it: a
    validator costs about 0.2 ms to build and resolves its `$ref`s as it meets
    them, once per run. So are the verdicts on the entries of the maps checked
    (see `valid`).
    """

    def __init__(self, files: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self._files = files or {}
        self._built: dict[str, Validator] = {}
        self._split: dict[str, tuple[Validator, frozenset[str]] | None] = {}
        self._judged: dict[tuple[str, str], tuple[Validator, ...]] = {}
        self._entries: dict[tuple[str, object, object], bool] = {}

    def validator(self, name: str) -> Validator:
        """The validator of the schema `name`: a file's, else `schemas/<name>.schema.json`."""
        found = self._built.get(name)
        if found is None:
            schema = self._files.get(name) or load_schema(name)
            found = self._built[name] = SchemaValidator(_inlined(schema))
        return found

    def valid(self, name: str, instance: Any) -> bool:
        """Whether `instance` satisfies the schema: it stops at the first error,
        and only a document that fails is walked again, by issues(), to explain it.

        Where the schema's verdict on a map is the verdict on each entry alone
        (_per_entry), each distinct entry is checked once in the run: the
        permission map that a thousand agents share is checked once, and each
        agent's own `description` alone, against the schemas that judge its
        key (judges_of).
        """
        split = self.entry_validator(name)
        if split is None or not isinstance(instance, dict):
            return bool(self.validator(name).is_valid(instance))
        validator, required = split
        if not required <= instance.keys():
            return False
        for key, value in instance.items():
            entry = (name, key, _frozen(value))
            verdict = self._entries.get(entry)
            if verdict is None:
                judges = self._judged.get((name, key))
                if judges is None:
                    judges = self._judged[name, key] = judges_of(validator, key)
                verdict = self._entries[entry] = all(judge.is_valid(value) for judge in judges)
            if not verdict:
                return False
        return True

    def entry_validator(self, name: str) -> tuple[Validator, frozenset[str]] | None:
        """The validator of one entry of a map and the keys the map requires, when
        the schema's verdict on a map is its verdict on each entry (_per_entry)."""
        if name not in self._split:
            schema = self.validator(name).schema
            split = _per_entry(schema) if isinstance(schema, Mapping) else None
            self._split[name] = None
            if split is not None:
                entry, required = split
                self._split[name] = (SchemaValidator(entry), required)
        return self._split[name]


# Keywords of a map's schema that judge each entry alone: a property's schema
# (properties), a key pattern's (patternProperties), the schema of the keys
# neither names (additionalProperties, beside those two of the same schema).
_ENTRY_KEYWORDS = frozenset(("properties", "patternProperties", "additionalProperties"))
# Keywords that judge nothing (`$defs` only holds what `$ref`s reach).
_INERT = frozenset(("$schema", "$id", "$defs", "title", "x-models")) | {
    "description",
    "default",
    "deprecated",
    "deprecationMessage",
    "errorMessage",
}


def _per_entry(schema: Mapping[str, Any]) -> tuple[dict[str, Any], frozenset[str]] | None:
    """(the schema of one entry, the keys required) when a map satisfies `schema`
    exactly when it holds the required keys and each entry {key: value} alone
    satisfies the schema of one entry: `schema` is `type: object` (or says no
    type), and each keyword it and its `allOf` parts hold judges each entry
    alone or nothing at all. The schema of one entry is `schema` without its
    `required`; None for any other schema."""
    if schema.get("type", "object") != "object":
        return None
    required: set[str] = set()
    entry: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword == "required" and isinstance(value, list):
            required.update(value)
        elif keyword == "allOf" and isinstance(value, list):
            parts = [_per_entry(part) if isinstance(part, Mapping) else None for part in value]
            if any(part is None for part in parts):
                return None
            entry["allOf"] = [part[0] for part in parts if part is not None]
            required.update(key for part in parts if part is not None for key in part[1])
        elif keyword in _ENTRY_KEYWORDS or keyword in _INERT or keyword == "type":
            entry[keyword] = value
        else:
            return None
    parts = entry.get("allOf", ())
    if len(parts) == 1 and all(k in _INERT for k in entry if k != "allOf"):
        # `allOf` of one schema beside nothing that judges is that schema: each
        # entry checked (a validator's level more, a fifth of its time) descends once less.
        return parts[0], frozenset(required)
    return entry, frozenset(required)


def judges_of(entry: Validator, key: str) -> tuple[Validator, ...]:
    """Validators of the schemas that judge the value at `key` in a map checked
    by `entry` (a schema of _per_entry's): the map {key: value} is valid when
    the value is valid against each. jsonschema checks such a map in 12 us, a
    string against `type: string` in 2 us: its validator descends into the
    subschemas, each validator here starts there (evolve, as descending does,
    keeping the root its `$ref`s resolve against)."""
    schema = entry.schema  # a map: _per_entry makes no other
    applied = _applied(schema, key) if isinstance(schema, Mapping) else ()
    return tuple(entry.evolve(schema=subschema) for subschema in applied)


def _applied(schema: Mapping[str, Any], key: str) -> Iterator[Any]:
    """The subschemas that `schema` (and its `allOf` parts) applies to the value
    at `key`, as jsonschema's properties, patternProperties and
    additionalProperties keywords pick them (re.search, the patterns joined
    with `|` for additionalProperties, as jsonschema's own
    find_additional_properties does)."""
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    if key in properties:
        yield properties[key]
    yield from (sub for pattern, sub in patterns.items() if re.search(pattern, key))
    additional = "additionalProperties" in schema and key not in properties
    if additional and not (patterns and re.search("|".join(patterns), key)):
        yield schema["additionalProperties"]
    for part in schema.get("allOf", ()):
        yield from _applied(part, key)


def _frozen(value: Any) -> object:
    """`value` as a key that tells apart what a schema tells apart: the type of
    every scalar (True, 1 and 1.0 are equal in Python), every map and list."""
    if isinstance(value, dict):
        return (dict, tuple((key, _frozen(item)) for key, item in value.items()))
    if isinstance(value, list):
        return (list, tuple(_frozen(item) for item in value))
    return (type(value), value)


# Keywords that only annotate: a `$ref` beside nothing else is its definition.
_ANNOTATIONS = frozenset(
    ("title", "description", "default", "deprecated", "deprecationMessage", "errorMessage")
)
_LOCAL = "#/$defs/"


def _inlined(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `schema` in which each `$ref` to one of its own `$defs` is that
    definition (built once, shared by every use).

    jsonschema follows a `$ref` by walking its JSON pointer again at every use:
    an agent's frontmatter with a permission map took 440 us to check, 145 us
    with the definitions in place. Errors are the same: each carries the
    subschema it arose in, never the `$ref` that led there. A `$ref` beside a
    keyword that validates, to another document, or back into a definition
    being inlined, is left for jsonschema to follow (the `$defs` stay in the copy).
    """
    definitions = schema.get("$defs", {})
    done: dict[str, Any] = {}
    pending: set[str] = set()

    def copy(node: Any) -> Any:
        if isinstance(node, list):
            return [copy(item) for item in node]
        if not isinstance(node, Mapping):
            return node
        name = _definition_named(node, definitions)
        if name is not None and name not in pending:
            if name not in done:
                pending.add(name)
                done[name] = copy(definitions[name])
                pending.discard(name)
            return done[name]
        return {key: copy(value) for key, value in node.items()}

    found: dict[str, Any] = copy(schema)
    return found


def _definition_named(node: Mapping[str, Any], definitions: Mapping[str, Any]) -> str | None:
    """The definition a `$ref` to `#/$defs/<name>` beside only annotations names."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith(_LOCAL):
        return None
    if not set(node) - {"$ref"} <= _ANNOTATIONS:
        return None  # 2020-12 applies the keywords beside it too: jsonschema's to follow
    name = ref[len(_LOCAL) :]
    return name if name in definitions else None


def issues(
    instance: Any,
    validator: Validator,
    name: Callable[[JsonPath], str] | None = None,
    yaml: bool = True,
) -> Iterator[Issue]:
    """Every problem jsonschema finds, one readable message each, without duplicates.

    `yaml`: the instance was read from YAML, so a message may say how YAML's own
    traps (an unquoted date, `yes` for true) cause it; a TOML document has none.
    """
    seen: set[tuple[JsonPath, str]] = set()
    for error in validator.iter_errors(instance):
        for path, message, at_key in _explain(error, name or json_path, yaml):
            if (path, message) not in seen:
                seen.add((path, message))
                yield path, message, at_key


def _explain(error: Any, name: Callable[[JsonPath], str], yaml: bool) -> Iterator[Issue]:
    if error.validator in ("anyOf", "oneOf") and error.context:
        chosen = _intended(error)
        if not chosen and not error.schema.get("errorMessage"):
            chosen = [best_match(error.context)]  # no message of its own: the likeliest branch
        if chosen:
            for sub in chosen:
                yield from _explain(sub, name, yaml)
            return
    yield from _describe(error, name, yaml)


def _intended(error: Any) -> list[Any]:
    """The errors of the alternative the value was meant to match, or [] when unclear.

    An alternative whose type fits the value beats one that does not; among
    those, the one whose errors lie deeper got further. A tie means the value
    fits no alternative at all, and the holder's own message explains better.
    """
    groups: dict[Any, list[Any]] = {}
    for sub in error.context:
        groups.setdefault(sub.relative_schema_path[0], []).append(sub)

    def score(errors: list[Any]) -> tuple[bool, int]:
        fits = not any(e.validator == "type" and not e.relative_path for e in errors)
        return fits, max(len(e.relative_path) for e in errors)

    ranked = sorted(groups.values(), key=score, reverse=True)
    best = score(ranked[0])
    if len(ranked) > 1 and score(ranked[1]) == best:
        return []
    if not best[0] and best[1] == 0:
        return []
    return ranked[0]


def _slip_of(key: Any, meant: str) -> bool:
    return isinstance(key, str) and near_miss(key, [meant]) == meant


def required_slip(section: Mapping[str, Any], key: str, meant: str) -> bool:
    """`key` is a slip of `meant`, an agent key the schema requires and the
    section lacks: the schema stage reports it, no rule needs to."""
    return meant in _REQUIRED_AGENT_KEYS and meant not in section and _slip_of(key, meant)


def _describe(error: Any, name: Callable[[JsonPath], str], yaml: bool) -> Iterator[Issue]:
    path: JsonPath = tuple(error.absolute_path)
    where = name(path)
    value = error.instance
    if error.validator == "additionalProperties" and isinstance(value, dict):
        known = list(error.schema.get("properties", {}))
        for key in value:
            if key not in known:
                hint = did_you_mean(key, known)
                yield (*path, key), f"unknown key '{key}' at {where}{hint}", True
        return
    if error.validator == "required" and isinstance(value, dict):
        known = error.schema.get("properties", {})
        for missing in error.validator_value:
            if missing in value:
                continue
            # A misspelt required key (`descripton`) is one mistake: said once, at
            # the slip, not also as a missing key and as a typo (rule key-typo).
            slip = next((k for k in value if k not in known and _slip_of(k, missing)), None)
            if slip is not None:
                yield (
                    (*path, slip),
                    f"unknown key '{slip}' (did you mean `{missing}`?): "
                    f"the required key '{missing}' is missing",
                    True,
                )
            else:
                yield path, f"{where}: required key '{missing}' is missing", True
        return
    at_key = isinstance(value, dict | list) and bool(path)
    custom = error.schema.get("errorMessage") if error.validator != "x-finite" else None
    guess = _guess(value, error)
    if custom:
        also = f"; did you mean `{guess}`?" if guess else ""
        text = f"{where}: {custom} (found {describe(value)}{also})"
    elif error.validator == "enum":
        choices = ", ".join(map(str, error.validator_value))
        text = f"{where}: {_show(value)} is not one of {choices}"
        text += f" (did you mean `{guess}`?)" if guess else ""
    elif error.validator == "type":
        text = f"{where}: expected {_expected(error.validator_value)}, found {describe(value)}"
    elif error.validator == "x-finite":
        text = f"{where}: must be a finite number, not {describe(value)}"
    elif error.validator in ("minimum", "exclusiveMinimum"):
        text = f"{where}: must be at least {error.validator_value}, not {describe(value)}"
    else:
        text = f"{where}: {error.message}"
    yield path, text + (_hint(path, value, error) if yaml else ""), at_key


def _guess(value: Any, error: Any) -> str | None:
    """For a misspelt choice (`alow`), the choice meant."""
    if error.validator != "enum" or not isinstance(value, str):
        return None
    best = closest(value, [c for c in error.validator_value if isinstance(c, str)])
    return best if best != value else None


def _expected(types: Any) -> str:
    names = [types] if isinstance(types, str) else list(types)
    return " or ".join(_TYPE_NAMES.get(t, t) for t in names)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    return describe(value)


def describe(value: Any) -> str:
    """How a YAML value reads in a message: its kind, and the value when short."""
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, dt.date):
        return f"the date {value.isoformat()}"
    if isinstance(value, str):
        return f"the text {_show(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a map"
    return type(value).__name__


def _wants(error: Any, kind: str) -> bool:
    wanted = error.schema.get("type")
    return wanted == kind or (isinstance(wanted, list) and kind in wanted)


def _hint(path: JsonPath, value: Any, error: Any) -> str:
    """A sentence saying how to fix the common causes of this mistake."""
    key = path[-1] if path else ""
    if isinstance(value, dt.date) and _wants(error, "string"):
        return f'. YAML reads an unquoted date as a date: quote it ("{value.isoformat()}")'
    if value is None and key == "color":
        return '. An unquoted `#` starts a YAML comment: quote hex colours (color: "#FF5733")'
    if value is None:
        return ". YAML reads an empty value as null: write the value or remove the key"
    if isinstance(value, str) and _wants(error, "number") and _NUMBER.match(value):
        return f". Remove the quotes: {key}: {value.strip()}"
    if isinstance(value, str) and _wants(error, "boolean") and value.lower() in _YAML11_BOOLS:
        return ". The runtimes read YAML 1.2, where only true and false are booleans"
    owner = _colour_of(value, path) if key == "color" else None
    if owner is not None:
        return (
            f". '{value}' is a `{owner}` colour: put it under "
            f"`targets: {{{owner}: {{color: {value}}}}}` and give OpenCode a theme name or hex"
        )
    return ""


def _colour_of(value: Any, path: JsonPath) -> str | None:
    """The first target whose overrides in the spec schema take `value` as a `color`
    by name (a colour OpenCode's own `color` refuses), unless `path` is under it."""
    schema = load_schema("agent")
    for name, entry in schema["properties"]["targets"]["properties"].items():
        definition = schema["$defs"].get(str(entry.get("$ref", "")).removeprefix(_LOCAL), {})
        colour = definition.get("properties", {}).get("color", {})
        if isinstance(value, str) and value in colour.get("enum", ()) and name not in path:
            return str(name)
    return None


def json_path(path: JsonPath) -> str:
    """`$.permission.bash["git *"]`: dotted where the key is a plain name."""
    text = "$"
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            text += f".{part}"
        else:
            text += f"[{json.dumps(part, ensure_ascii=False)}]"
    return text


def within(base: JsonPath) -> str:
    """` in $.targets.opencode` for a section below the top level, else nothing."""
    return f" in {json_path(base)}" if base else ""


def check_frontmatter(frontmatter: Frontmatter, schema: str, schemas: Schemas) -> Iterator[Problem]:
    """Problems against `schemas/<schema>.schema.json`, in document order, each at its
    key or value."""
    data = dict(frontmatter.data)
    if not schemas.valid(schema, data):
        yield from _placed(frontmatter, data, schemas.validator(schema))


def _placed(frontmatter: Frontmatter, data: Any, validator: Validator) -> Iterator[Problem]:
    found = []
    for path, message, at_key in issues(data, validator):
        pos = frontmatter.where(path, key=at_key)
        found.append(Problem(pos.line, pos.column, message))
    yield from sorted(found, key=lambda p: (p.line, p.column, p.message))


# --- emitted files ----------------------------------------------------------


def output_schema(outputs: Outputs, relative: str) -> str | None:
    """The schema an emitted file (path relative to the target's folder) must satisfy,
    from the target's `outputs`."""
    for pattern, schema in outputs:
        if fnmatchcase(relative, pattern):
            return schema
    return None


def check_emitted(
    outputs: Outputs,
    relative: str,
    text: str,
    schemas: Schemas,
    origin: SourceFile | None = None,
) -> Iterator[Problem]:
    """Problems in one emitted file of a target whose files' schemas are `outputs`,
    at their line and column in that file.

    `origin` is the loaded file the text was generated from, if any: see _read_back.
    """
    name = output_schema(outputs, relative)
    if name is None:
        return
    if relative.endswith(".json"):
        yield from _check_json(text, name, schemas)
    else:
        yield from _check_markdown(_read_back(relative, text, origin), name, schemas)


def _read_back(relative: str, text: str, origin: SourceFile | None) -> SourceFile:
    """The emitted markdown file as the loader reads it.

    An emitted file that opens with its source's frontmatter exactly (an
    OpenCode agent whose spec holds only OpenCode's keys, in their order,
    written as promptc writes YAML) reads back as that source did: the loader's
    frontmatter and its syntax findings depend on that text alone, and they
    stand at the same lines in both files. So the loaded source serves, and the
    text is not parsed a second time.
    """
    if origin is not None and origin.frontmatter is not None and text.startswith(origin.head):
        return origin  # a file with frontmatter has a head: its fences at least
    return load_bytes(Path(relative), text.encode("utf-8"))


def _check_markdown(source: SourceFile, schema: str, schemas: Schemas) -> Iterator[Problem]:
    broken = [p for rule, p in source.findings if rule == "syntax"]
    if broken:
        yield from (
            Problem(p.line, p.column, f"unreadable frontmatter: {p.message}") for p in broken
        )
        return
    if source.frontmatter is None:
        yield Problem(1, 1, f"no frontmatter, but {schema} requires one")
    elif not schemas.valid(schema, dict(source.frontmatter.data)):
        yield from _against(source.frontmatter, schema, schemas)


def _check_json(text: str, schema: str, schemas: Schemas) -> Iterator[Problem]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        yield Problem(1, 1, f"not valid JSON: {exc}")
        return
    if schemas.valid(schema, data):
        return
    # JSON is YAML, so the loader gives every key and value its position; the
    # document sits one line down inside the fences it is wrapped in.
    wrapped = load_bytes(Path("emitted.json"), f"---\n{text}\n---\n".encode())
    if wrapped.frontmatter is None:
        yield Problem(1, 1, f"{schema}: the document must be a JSON object")
        return
    for problem in _against(wrapped.frontmatter, schema, schemas):
        yield Problem(problem.line - 1, problem.column, problem.message)


def _against(frontmatter: Frontmatter, schema: str, schemas: Schemas) -> Iterator[Problem]:
    """The problems of a file known to fail, naming the schema file."""
    for problem in _placed(frontmatter, dict(frontmatter.data), schemas.validator(schema)):
        yield Problem(problem.line, problem.column, f"{problem.message} ({schema}.schema.json)")


# --- key sets the frontmatter rules share -------------------------------------


def known_keys(schema: str, definition: str) -> tuple[str, ...]:
    """The property names of `$defs/<definition>` in a shipped schema."""
    properties: Iterable[str] = load_schema(schema)["$defs"][definition]["properties"]
    return tuple(properties)


# The shipped schemas are part of the package: their key sets are constants.
_OPENCODE_AGENT_KEYS = known_keys("agent", "opencodeAgent")
_REQUIRED_AGENT_KEYS = frozenset(load_schema("agent").get("required", ()))


def opencode_agent_keys() -> tuple[str, ...]:
    """The keys of an OpenCode agent."""
    return _OPENCODE_AGENT_KEYS


def opencode_sections(meta: Mapping[str, Any]) -> Iterator[tuple[JsonPath, Mapping[str, Any]]]:
    """The maps of an agent spec that OpenCode reads: the top level and `targets.opencode`."""
    yield (), meta
    targets = meta.get("targets")
    if isinstance(targets, Mapping) and isinstance(targets.get(SOURCE), Mapping):
        yield ("targets", SOURCE), targets[SOURCE]

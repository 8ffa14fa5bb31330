"""Validate: check frontmatter, config and emitted files against the JSON Schemas in schemas/.

Each jsonschema error becomes one message a person can act on: it names the
JSON path, says what was expected and what was found, and points at the
offending value (or at the key, for unknown keys and for maps and lists, whose
value starts on another line). For `anyOf`, the alternative the value was
evidently meant to match is explained (a string is checked against the
string form, a map against the map form); when no alternative stands out, the
schema's own `errorMessage` says what is accepted. Validators are compiled
once per schema and run. A valid document never reaches jsonschema:
compiler.precheck answers first, and jsonschema runs only to explain a failure.

Emitted files are checked too, against the schema of the format they are in
(OUTPUTS), before anything is written: a file that fails is a promptc bug, and
promptc reports it rather than leave the runtime to reject it.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from compiler import precheck
from compiler.diagnostics import Problem
from compiler.loader import (
    NODE_BUDGET,
    Frontmatter,
    JsonPath,
    frontmatter_entries,
    load_bytes,
    plain_frontmatter,
    resolve_plain,
)
from compiler.resources import load_schema
from compiler.suggest import closest, did_you_mean, fold

Issue = tuple[JsonPath, str, bool]  # (path, message, points at the key rather than the value)

# Schema of every file a target emits: (fnmatch pattern relative to the
# target's folder, schema name). `*` also matches `/`, so nested agent ids
# (`team/reviewer`) are covered.
OUTPUTS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "opencode": (
        (".opencode/agents/*.md", "opencode-agent"),
        (".opencode/commands/*.md", "opencode-command"),
        (".opencode/skills/*/SKILL.md", "opencode-skill"),
        ("opencode.json", "opencode-config"),
    ),
    "claude": (
        (".claude/agents/*.md", "claude-agent"),
        (".claude/commands/*.md", "claude-command"),
        (".claude/skills/*/SKILL.md", "claude-skill"),
        (".claude/settings.json", "claude-settings"),
    ),
    "claude-plugin": (
        (".claude-plugin/plugin.json", "claude-plugin"),
        ("agents/*.md", "claude-agent"),
        ("commands/*.md", "claude-command"),
        ("skills/*/SKILL.md", "claude-skill"),
    ),
}

CLAUDE_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
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


def _finite(validator: Any, wanted: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """`x-finite: true`: OpenCode's `Finite` refuses .inf and .nan, which JSON Schema allows."""
    from jsonschema.exceptions import ValidationError

    if wanted and isinstance(instance, float) and not math.isfinite(instance):
        yield ValidationError(f"{instance!r} is not a finite number")


@functools.cache
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, {"x-finite": _finite}
    )


_COMPILED: dict[str, Any] = {}


def _validator(schema: Mapping[str, Any]) -> Any:
    """A validator for `schema`; shipped schemas (they have an `$id`) are compiled once."""
    key = schema.get("$id")
    if isinstance(key, str) and key in _COMPILED:
        return _COMPILED[key]
    compiled = _validator_class()(schema)
    if isinstance(key, str):
        _COMPILED[key] = compiled
    return compiled


def issues(
    instance: Any, schema: Mapping[str, Any], name: Callable[[JsonPath], str] | None = None
) -> Iterator[Issue]:
    """Every problem, one readable message each, without duplicates."""
    if precheck.valid(instance, schema):
        return  # jsonschema is loaded only to explain a failure
    seen: set[tuple[JsonPath, str]] = set()
    for error in _validator(schema).iter_errors(instance):
        for path, message, at_key in _explain(error, name or json_path):
            if (path, message) not in seen:
                seen.add((path, message))
                yield path, message, at_key


def _explain(error: Any, name: Callable[[JsonPath], str]) -> Iterator[Issue]:
    from jsonschema.exceptions import best_match

    if error.validator in ("anyOf", "oneOf") and error.context:
        chosen = _intended(error)
        if not chosen and not error.schema.get("errorMessage"):
            chosen = [best_match(error.context)]  # no message of its own: the likeliest branch
        if chosen:
            for sub in chosen:
                yield from _explain(sub, name)
            return
    yield from _describe(error, name)


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


def _describe(error: Any, name: Callable[[JsonPath], str]) -> Iterator[Issue]:
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
        for missing in error.validator_value:
            if missing not in value:
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
    yield path, text + _hint(path, value, error), at_key


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
    if isinstance(value, str) and _wants(error, "number") and _numeric(value):
        return f". Remove the quotes: {key}: {value.strip()}"
    if isinstance(value, str) and _wants(error, "boolean") and value.lower() in _YAML11_BOOLS:
        return ". The runtimes read YAML 1.2, where only true and false are booleans"
    if key == "color" and value in CLAUDE_COLOURS and "claude" not in map(str, path):
        return (
            f". '{value}' is a Claude Code colour: put it under "
            f"`targets: {{claude: {{color: {value}}}}}` and give OpenCode a theme name or hex"
        )
    return ""


_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def _numeric(text: str) -> bool:
    return bool(_NUMBER.match(text))


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


def first_error(
    instance: Any, schema: Mapping[str, Any], name: Callable[[JsonPath], str] | None = None
) -> tuple[tuple[str, ...], str] | None:
    for path, message, _ in issues(instance, schema, name):
        return tuple(map(str, path)), message
    return None


def check_frontmatter(frontmatter: Frontmatter, schema: Mapping[str, Any]) -> Iterator[Problem]:
    """Problems in document order, each at its key or value."""
    found = []
    for path, message, at_key in issues(dict(frontmatter.data), schema):
        pos = frontmatter.where(path, key=at_key)
        found.append(Problem(pos.line, pos.column, message))
    yield from sorted(found, key=lambda p: (p.line, p.column, p.message))


# --- emitted files ----------------------------------------------------------


def output_schema(target: str, relative: str) -> str | None:
    """The schema an emitted file (path relative to the target's folder) must satisfy."""
    for pattern, schema in OUTPUTS.get(target, ()):
        if fnmatchcase(relative, pattern):
            return schema
    return None


def check_emitted(target: str, relative: str, text: str) -> Iterator[Problem]:
    """Problems in one emitted file, at their line and column in that file."""
    name = output_schema(target, relative)
    if name is None:
        return
    if relative.endswith(".json"):
        yield from _check_json(text, name)
    else:
        yield from _check_markdown(relative, text, name)


def _check_markdown(relative: str, text: str, schema: str) -> Iterator[Problem]:
    head = _head(text)
    # The common case, a valid file, needs no positions: they are built only
    # to report a problem, by the same loader as before.
    if _valid_head(head, schema):
        return
    source = load_bytes(Path(relative), head.encode("utf-8"))
    broken = [p for rule, p in source.findings if rule == "syntax"]
    if broken:
        yield from (
            Problem(p.line, p.column, f"unreadable frontmatter: {p.message}") for p in broken
        )
        return
    if source.frontmatter is None:
        yield Problem(1, 1, f"no frontmatter, but {schema} requires one")
        return
    yield from _against(source.frontmatter, schema)


def _valid_head(head: str, schema: str) -> bool:
    """precheck.valid(emitted_frontmatter(head), schema) is True, judging each
    distinct entry once where the schema judges a map entry by entry
    (precheck.by_entry): generated agents repeat most of their entries."""
    document = load_schema(schema)
    texts = _entry_texts(head)
    split = precheck.by_entry(document) if texts is not None else None
    if texts is None or split is None:
        data = emitted_frontmatter(head)
        return data is not None and precheck.valid(data, document) is True
    required, entry = split
    seen: dict[str, Any] = {}
    for text in texts:
        found = _entry_data(text)
        if found is None or not found.keys().isdisjoint(seen):
            data = plain_frontmatter(head)  # as emitted_frontmatter reads it then
            return data is not None and precheck.valid(data, document) is True
        seen.update(found)
        verdict = _VERDICTS.get((schema, text))
        if verdict is None:
            try:
                verdict = all(entry(key, value) for key, value in found.items())
            except (precheck.Unsupported, RecursionError, TypeError, re.error):
                return _read_whole(texts, head, document)
            if len(_VERDICTS) >= _MEMO_SIZE:
                _VERDICTS.clear()
            _VERDICTS[schema, text] = verdict
        if not verdict:
            return False  # the caller explains it, from the file as the loader reads it
    return all(name in seen for name in required)


def _read_whole(texts: list[str], head: str, document: Mapping[str, Any]) -> bool:
    """precheck.valid on the whole data, for an entry it cannot judge alone."""
    data = _read_entries(texts, head)
    return data is not None and precheck.valid(data, document) is True


def emitted_frontmatter(head: str) -> dict[str, Any] | None:
    """plain_frontmatter(head), reading each top-level entry of the frontmatter
    once per distinct text.

    Generated agents repeat most entries word for word (`mode`, the
    permission map) and differ in a few (`description`). A top-level entry is
    a line starting in the first column with the indented, blank and comment
    lines after it; where nothing ties one entry to another (no anchor, no
    duplicate key, each entry a mapping on its own), the frontmatter reads as
    its entries read apart, in order. Anything else is read whole.
    """
    texts = _entry_texts(head)
    return plain_frontmatter(head) if texts is None else _read_entries(texts, head)


# The line break before the closing fence of a frontmatter, and the fence: a
# line that is `---` or `...` once trailing whitespace is stripped (as
# str.rstrip strips it: `\s` is the same set).
_FENCE = re.compile(r"\n(?:---|\.\.\.)[^\S\n]*(?=\n|\Z)")


def _entry_texts(head: str) -> list[str] | None:
    """The top-level entries of the frontmatter in `head` (loader.frontmatter_entries,
    as the loader reads spec frontmatter); None where the frontmatter must be
    read whole (see emitted_frontmatter)."""
    if "&" in head or len(head) > NODE_BUDGET or not head.startswith("---\n"):
        return None  # anchors and aliases tie entries together
    close = _FENCE.search(head, 3)
    if close is None or head[close.end() :] not in ("", "\n"):
        return None
    return frontmatter_entries(head[4 : close.start()])


def _read_entries(texts: list[str], head: str) -> dict[str, Any] | None:
    data: dict[str, Any] = {}
    for text in texts:
        found = _entry_data(text)
        if found is None or not found.keys().isdisjoint(data):
            return plain_frontmatter(head)
        data.update(found)
    return data


_ENTRIES: dict[str, dict[str, Any] | None] = {}
_VERDICTS: dict[tuple[str, str], bool] = {}  # (schema, entry text) -> every key passes
_MEMO_SIZE = 4096
# An entry of one line, `key: value`, whose value YAML reads as a plain scalar
# or a double-quoted string without escapes: no `: ` or ` #` in it, no
# indicator first, no trailing space, ASCII only (libyaml breaks lines at
# U+0085, U+2028 and U+2029). A key stays under libyaml's 1,024 characters.
_ONE_LINE = re.compile(
    r"([A-Za-z_][A-Za-z0-9_-]{0,127}): "
    r"(?:([A-Za-z](?:[A-Za-z0-9 _.,()/'-]*[A-Za-z0-9_.,()/'-])?)|\"([ !#-\[\]-~]*)\")\n?"
)


def _entry_data(entry: str) -> dict[str, Any] | None:
    """One top-level entry read on its own (as a frontmatter of that entry alone)."""
    if entry in _ENTRIES:
        return _ENTRIES[entry]
    if len(_ENTRIES) >= _MEMO_SIZE:
        _ENTRIES.clear()
    found = _ENTRIES[entry] = _one_line(entry) or plain_frontmatter(f"---\n{entry}\n---\n")
    return found


def _one_line(entry: str) -> dict[str, Any] | None:
    """The entry's data without YAML when it is a `key: value` line _ONE_LINE
    matches (None otherwise): what plain_frontmatter reads it as."""
    match = _ONE_LINE.fullmatch(entry)
    if match is None:
        return None
    key, plain, quoted = match.groups()
    return {key: resolve_plain(plain) if plain is not None else quoted}


def _head(text: str) -> str:
    """The file up to its closing frontmatter fence, as the loader finds it: the
    body cannot change what the loader makes of the frontmatter, and it is most
    of the file. The whole text when anything could (a BOM, a CR, a NUL byte)."""
    if "\r" in text or "\x00" in text or text.startswith("\ufeff"):
        return text
    first = text.find("\n")
    if first < 0 or text[:first].rstrip() != "---":
        return text
    close = _FENCE.search(text, first)
    if close is None or close.end() == len(text):
        return text
    return text[: close.end() + 1]


def _check_json(text: str, schema: str) -> Iterator[Problem]:
    try:
        json.loads(text)
    except ValueError as exc:
        yield Problem(1, 1, f"not valid JSON: {exc}")
        return
    # JSON is YAML, so the loader gives every key and value its position; the
    # document sits one line down inside the fences it is wrapped in.
    wrapped = load_bytes(Path("emitted.json"), f"---\n{text}\n---\n".encode())
    if wrapped.frontmatter is None:
        yield Problem(1, 1, f"{schema}: the document must be a JSON object")
        return
    for problem in _against(wrapped.frontmatter, schema):
        yield Problem(problem.line - 1, problem.column, problem.message)


def _against(frontmatter: Frontmatter, schema: str) -> Iterator[Problem]:
    for problem in check_frontmatter(frontmatter, load_schema(schema)):
        yield Problem(
            problem.line, problem.column, f"{problem.message} (schemas/{schema}.schema.json)"
        )


# --- key sets the frontmatter rules share -------------------------------------


def known_keys(schema: str, definition: str) -> tuple[str, ...]:
    """The property names of `$defs/<definition>` in a shipped schema."""
    properties: Iterable[str] = load_schema(schema)["$defs"][definition]["properties"]
    return tuple(properties)


@functools.cache
def opencode_agent_keys() -> tuple[str, ...]:
    return known_keys("agent", "opencodeAgent")


@functools.cache
def claude_only_keys() -> Mapping[str, str]:
    """Claude Code agent and command keys OpenCode does not know, by normalised spelling
    (so `allowed_tools` and `allowedTools` find `allowed-tools`)."""
    keys = (*known_keys("agent", "claudeAgent"), *known_keys("mode", "claudeCommand"))
    opencode = set(opencode_agent_keys())
    return {fold(k): k for k in keys if k not in opencode}


def claude_key(key: str) -> str | None:
    """The Claude Code key `key` spells, if it is one."""
    return claude_only_keys().get(fold(key))


def opencode_sections(meta: Mapping[str, Any]) -> Iterator[tuple[JsonPath, Mapping[str, Any]]]:
    """The maps of an agent spec that OpenCode reads: the top level and `targets.opencode`."""
    yield (), meta
    targets = meta.get("targets")
    if isinstance(targets, Mapping) and isinstance(targets.get("opencode"), Mapping):
        yield ("targets", "opencode"), targets["opencode"]

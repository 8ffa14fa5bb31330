"""The runtimes' part of the spec schemas, from the registry.

schemas/agent.schema.json and mode.schema.json are one file each, so that an
editor checks a spec with nothing else; what they say of a runtime is that
runtime's, kept in its package: the keys a spec's `targets.<target>` may set
(each target's SPEC_KEYS, naming definitions in its runtime's `overrides.json`)
and the release they follow (RELEASE). Here the two files are assembled from
the registry: `targets` lists every target that takes the kind of spec, the
runtimes' definitions replace their old copies in `$defs`, a definition
nothing refers to any more goes (a runtime removed from the registry leaves
nothing behind), and `x-models` names each runtime's release. A schema of a
runtime's own files (its FILE_SCHEMAS) that has a definition of the same name
(Claude Code's agent file takes the keys `targets.claude` may set) has it from
`overrides.json` too, so each is written once. tests/test_registry.py fails
when a file differs from what is assembled here; `python -m tests.spec_schemas`
(run by `make docs`) rewrites them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from promptc_compiler.base.source import SOURCE
from promptc_compiler.runtimes import RUNTIMES

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("agent", "mode")
_LOCAL = "#/$defs/"


def path(kind: str) -> Path:
    return ROOT / "schemas" / f"{kind}.schema.json"


def _refs(value: Any) -> Iterator[str]:
    """The definitions each `$ref` in `value` names."""
    yield from re.findall(r'"\$ref": "#/\$defs/([^"]+)"', json.dumps(value))


def _reachable(schema: Mapping[str, Any]) -> set[str]:
    """The definitions the schema refers to, directly or through another definition."""
    definitions = schema["$defs"]
    found: set[str] = set()
    todo = list(_refs({k: v for k, v in schema.items() if k != "$defs"}))
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(_refs(definitions[name]))  # a KeyError: a $ref to nothing
    return found


def _models(kind: str) -> str:
    """`x-models`: the release of each runtime whose targets the kind of spec names."""
    parts: list[str] = []
    for runtime in RUNTIMES.values():
        names = [t.NAME for t in runtime.TARGETS if kind in t.SPEC_KEYS]
        if runtime.NAME == SOURCE:
            parts.append(runtime.RELEASE)  # the spec's own format
        elif names:
            parts.append(f"{' and '.join(f'targets.{n}' for n in names)}: {runtime.RELEASE}")
    return "; ".join(parts)


def assembled(kind: str, current: Mapping[str, Any]) -> dict[str, Any]:
    """The spec schema of `kind` with the registry's targets, definitions and releases."""
    owned = {name for runtime in RUNTIMES.values() for name in runtime.DEFINITIONS}
    schema = dict(current)
    schema["x-models"] = _models(kind)
    targets = dict(schema["properties"]["targets"])
    targets["properties"] = {
        target.NAME: {"$ref": _LOCAL + target.SPEC_KEYS[kind]}
        for runtime in RUNTIMES.values()
        for target in runtime.TARGETS
        if kind in target.SPEC_KEYS
    }
    schema["properties"] = {**schema["properties"], "targets": targets}
    definitions = {k: v for k, v in current["$defs"].items() if k not in owned}
    for runtime in RUNTIMES.values():
        definitions.update(runtime.DEFINITIONS)
    schema["$defs"] = definitions
    kept = _reachable(schema)
    schema["$defs"] = {k: v for k, v in definitions.items() if k in kept}
    return schema


def _dumped(schema: Mapping[str, Any]) -> str:
    """The formatting every shipped schema has."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def text(kind: str) -> str:
    """The spec schema's file as it should read."""
    return _dumped(assembled(kind, json.loads(path(kind).read_text(encoding="utf-8"))))


def file_schema_paths() -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Each schema file of a runtime package, with that runtime's definitions."""
    for runtime in RUNTIMES.values():
        folder = Path(cast("ModuleType", runtime).__file__ or "").parent / "schemas"
        for name in sorted(runtime.FILE_SCHEMAS):
            yield folder / f"{name}.schema.json", runtime.DEFINITIONS


def file_schema_text(file: Path, definitions: Mapping[str, Any]) -> str:
    """A runtime's file schema as it should read: its definitions of the names
    `definitions` has are those."""
    text = file.read_text(encoding="utf-8")
    schema = json.loads(text)
    if not schema.get("$defs"):
        return text
    schema["$defs"] = {k: definitions.get(k, v) for k, v in schema["$defs"].items()}
    return _dumped(schema)


def main() -> None:
    for kind in KINDS:
        path(kind).write_text(text(kind), encoding="utf-8")
    for file, definitions in file_schema_paths():
        file.write_text(file_schema_text(file, definitions), encoding="utf-8")


if __name__ == "__main__":
    main()

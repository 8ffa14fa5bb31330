"""The JSON Schemas shipped with promptc: where they are, and each one parsed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# The package folder, promptc_compiler/ (this module is promptc_compiler/core/resources.py).
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_SUFFIX = ".schema.json"


def _find() -> str:
    # In a wheel the schemas sit inside the package (force-include in
    # pyproject.toml); in a source checkout or editable install they sit at
    # the repository root (compiler/promptc_compiler/../../schemas), where the
    # fixed layout keeps them.
    for candidate in (
        os.path.join(_PACKAGE, "schemas"),
        os.path.join(_PACKAGE, "..", "..", "schemas"),
    ):
        if os.path.isfile(os.path.join(candidate, "config.schema.json")):
            return os.path.realpath(candidate)
    raise FileNotFoundError("promptc schemas not found; the installation is incomplete")


def schemas_in(folder: str) -> dict[str, dict[str, Any]]:
    """Each `<name>.schema.json` of `folder`, parsed, by name (none when there is no folder:
    a runtime whose files have no schema has none)."""
    schemas: dict[str, dict[str, Any]] = {}
    if not os.path.isdir(folder):
        return schemas
    for name in sorted(os.listdir(folder)):
        if name.endswith(_SUFFIX):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                schemas[name.removesuffix(_SUFFIX)] = json.load(handle)
    return schemas


SCHEMA_FOLDER = _find()
# Package data, read once at import (about a millisecond for all of them): the
# schemas a run checks against are those of the installed promptc.
SCHEMAS = schemas_in(SCHEMA_FOLDER)


def schema_folder() -> str:
    """The folder holding the schemas, as a string (the cache hashes its files)."""
    return SCHEMA_FOLDER


def schema_dir() -> Path:
    return Path(schema_folder())


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `schemas/<name>.schema.json`, shared: never change it."""
    return SCHEMAS[name]

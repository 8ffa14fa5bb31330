"""Locates the JSON Schemas shipped with promptc and loads them once."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Plain os.path and no pathlib: the cache hashes these files on the warm path.
_HERE = os.path.dirname(os.path.realpath(__file__))
_FOUND: list[str] = []
_LOADED: dict[str, dict[str, Any]] = {}


def schema_folder() -> str:
    """The folder holding the schemas, as a string."""
    if not _FOUND:
        # In a wheel the schemas sit inside the package (force-include in
        # pyproject.toml); in a source checkout or editable install they sit at
        # the repository root, where the fixed layout keeps them.
        for candidate in (os.path.join(_HERE, "schemas"), os.path.join(_HERE, "..", "schemas")):
            if os.path.isfile(os.path.join(candidate, "config.schema.json")):
                _FOUND.append(os.path.realpath(candidate))
                break
        else:
            raise FileNotFoundError("promptc schemas not found; the installation is incomplete")
    return _FOUND[0]


def schema_dir() -> Path:
    from pathlib import Path

    return Path(schema_folder())


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `schemas/<name>.schema.json`."""
    if name not in _LOADED:
        import json

        path = os.path.join(schema_folder(), f"{name}.schema.json")
        with open(path, encoding="utf-8") as handle:
            _LOADED[name] = json.load(handle)
    return _LOADED[name]

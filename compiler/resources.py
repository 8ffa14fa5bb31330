"""Locates the JSON Schemas shipped with promptc and loads them once."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent


@functools.cache
def schema_dir() -> Path:
    # In a wheel the schemas sit inside the package (force-include in
    # pyproject.toml); in a source checkout or editable install they sit at
    # the repository root, where the fixed layout keeps them.
    for candidate in (_HERE / "schemas", _HERE.parent / "schemas"):
        if (candidate / "config.schema.json").is_file():
            return candidate
    raise FileNotFoundError("promptc schemas not found; the installation is incomplete")


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `schemas/<name>.schema.json`."""
    path = schema_dir() / f"{name}.schema.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data

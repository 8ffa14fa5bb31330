"""promptc: compose, check and emit AI coding-agent prompt specs.

The public API is re-exported lazily so that `promptc --version` and other
cheap paths do not import YAML, Jinja2 or jsonschema.
"""

from __future__ import annotations

# Not typing.TYPE_CHECKING: importing typing would cost `promptc --version`
# and a cache hit more than the rest of their work.
TYPE_CHECKING = False

__version__ = "0.1.0"

__all__ = ["Diagnostic", "__version__", "build", "check", "lint", "load_config"]

if TYPE_CHECKING:
    from typing import Any

    from compiler.api import build, check, lint
    from compiler.config import load_config
    from compiler.diagnostics import Diagnostic

_LAZY = {
    "build": "compiler.api",
    "check": "compiler.api",
    "lint": "compiler.api",
    "load_config": "compiler.config",
    "Diagnostic": "compiler.diagnostics",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(module), name)

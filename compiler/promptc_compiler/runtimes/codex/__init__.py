"""Codex CLI: its target, its permission translation, decision model and import.

The adapter (promptc_compiler.runtimes.adapter).
"""

from __future__ import annotations

from types import ModuleType

from promptc_compiler.runtimes.adapter import Decisions, Target, definitions, file_schemas
from promptc_compiler.runtimes.codex import decide, import_, lint, target

NAME = target.NAME
TARGETS: tuple[Target, ...] = (target,)
RELEASE = "@openai/codex 0.171.0"
DEFINITIONS = definitions(__file__)
FILE_SCHEMAS = file_schemas(__file__)
MODEL: Decisions | None = decide
IMPORT_FOLDER = ".codex"
RULES: tuple[ModuleType, ...] = ()
COPIED_KEYS: tuple[str, ...] = ()
import_from = import_.read_folder
losses = lint.losses
limits = lint.Limits

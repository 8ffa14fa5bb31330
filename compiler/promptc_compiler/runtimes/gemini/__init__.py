"""Gemini CLI: its target (an extension), its policy rules, decision model and import.

The adapter (promptc_compiler.runtimes.adapter).
"""

from __future__ import annotations

from types import ModuleType

from promptc_compiler.runtimes.adapter import Decisions, Target, definitions, file_schemas
from promptc_compiler.runtimes.gemini import decide, import_, lint, target

NAME = target.NAME
TARGETS: tuple[Target, ...] = (target,)
RELEASE = "@google/gemini-cli 0.61.0"
DEFINITIONS = definitions(__file__)
FILE_SCHEMAS = file_schemas(__file__)
MODEL: Decisions | None = decide
IMPORT_FOLDER = ".gemini"
RULES: tuple[ModuleType, ...] = ()
COPIED_KEYS: tuple[str, ...] = ()
import_from = import_.read_folder
losses = lint.losses
limits = lint.limits

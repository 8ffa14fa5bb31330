"""GitHub Copilot CLI: its target, the preToolUse hook it writes, its decision model and import.

The adapter (promptc_compiler.runtimes.adapter).
"""

from __future__ import annotations

from types import ModuleType

from promptc_compiler.runtimes.adapter import Decisions, Target, definitions, file_schemas
from promptc_compiler.runtimes.copilot import decide, import_, lint, target

NAME = target.NAME
TARGETS: tuple[Target, ...] = (target,)
RELEASE = "@github/copilot 1.0.102"
DEFINITIONS = definitions(__file__)
FILE_SCHEMAS = file_schemas(__file__)
MODEL: Decisions | None = decide
IMPORT_FOLDER = ".github"
RULES: tuple[ModuleType, ...] = ()
COPIED_KEYS: tuple[str, ...] = ()
import_from = import_.read_folder
losses = lint.losses
limits = lint.limits

"""OpenCode: the source runtime; its target writes the specs back as OpenCode reads them.

The adapter (promptc_compiler.runtimes.adapter). OpenCode has no decision model
of its own here: its permission model is the core's
(promptc_compiler.permissions), which every other runtime is proved against.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.project import Project, Session
from promptc_compiler.runtimes.adapter import Decisions, Target, definitions, file_schemas
from promptc_compiler.runtimes.opencode import import_, target

NAME = SOURCE
TARGETS: tuple[Target, ...] = (target,)
RELEASE = "opencode-ai 1.18.33"
DEFINITIONS = definitions(__file__)
FILE_SCHEMAS = file_schemas(__file__)
MODEL: Decisions | None = None
IMPORT_FOLDER = ".opencode"
RULES: tuple[ModuleType, ...] = ()
COPIED_KEYS: tuple[str, ...] = ()
import_from = import_.read_folder


def losses(_project: Project) -> Iterator[Problem]:
    return iter(())  # the specs are OpenCode's: nothing is translated


def limits(_project: Project) -> Session | None:
    return None

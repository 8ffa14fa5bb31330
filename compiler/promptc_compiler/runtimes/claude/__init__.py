"""Claude Code: its targets (project layout and plugin), its permission translation,
decision model, import and rules.

The adapter (promptc_compiler.runtimes.adapter).
"""

from __future__ import annotations

from types import ModuleType

from promptc_compiler.core.project import Project, Session
from promptc_compiler.runtimes.adapter import Decisions, Target, file_schemas
from promptc_compiler.runtimes.claude import decide, import_, lint, plugin, target
from promptc_compiler.runtimes.claude.agents import COPIED_KEYS as COPIED_KEYS
from promptc_compiler.runtimes.claude.agents import DEFINITIONS as DEFINITIONS
from promptc_compiler.runtimes.claude.agents import NAME as NAME
from promptc_compiler.runtimes.claude.rules import (
    claude_name,
    cross_ecosystem,
    positional_arguments,
    skill_name,
)

TARGETS: tuple[Target, ...] = (target, plugin)
RELEASE = "@anthropic-ai/claude-code 2.1.332"
FILE_SCHEMAS = file_schemas(__file__)
MODEL: Decisions | None = decide
IMPORT_FOLDER = ".claude"
RULES: tuple[ModuleType, ...] = (
    claude_name,
    cross_ecosystem,
    positional_arguments,
    skill_name,
)
import_from = import_.read_folder
losses = lint.losses


def limits(_project: Project) -> Session | None:
    return None  # the claude-name rule says which names Claude Code refuses

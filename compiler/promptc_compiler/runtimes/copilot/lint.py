"""What the lint reports of Copilot CLI's files: its parts of lossy-translation and runtime-limits.

lossy-translation: what the tool lists lose (promptc_compiler.runtimes.tool_lists).
runtime-limits: two agents that take one name, and an agent body over
30,000 characters, GitHub's limit for a custom agent's prompt.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes import tool_lists
from promptc_compiler.runtimes.copilot.tools import COPILOT
from promptc_compiler.runtimes.translations import Translated

BODY_LIMIT = 30_000


def losses(project: Translated) -> Iterator[Problem]:
    return tool_lists.losses(project, COPILOT)


def limits(project: Translated) -> tool_lists.Limits:
    return tool_lists.Limits(project, COPILOT, _checks)


def _checks(spec: Spec, agent: bool) -> Iterator[Problem]:
    if agent and len(spec.body) > BODY_LIMIT:
        yield Problem(
            spec.source.body_line,
            1,
            f"body is {len(spec.body):,} characters; Copilot CLI takes at most "
            f"{BODY_LIMIT:,} for a custom agent: shorten it",
            path=spec.source.path,
        )

"""Fragments that no agent or mode includes, directly or through another fragment.

An unused fragment is usually a typo in a placeholder or text left behind by a
refactor.

Options:
    ignore (list of fragment names, default []): fragments kept on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Project

ID = "unused-fragment"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {
    "ignore": {"type": "array", "items": {"type": "string"}, "default": []},
}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    used = project.composition.used
    for name, source in project.bundle.fragments.items():
        if name not in used and name not in options["ignore"] and source.ok:
            yield Problem(
                1, 1, f"fragment '{name}' is not used by any agent or mode", path=source.path
            )

"""What the lint reports of the Gemini CLI files: its parts of lossy-translation and runtime-limits.

lossy-translation: what the tool lists lose (promptc_compiler.runtimes.tool_lists).
runtime-limits: two subagents that take one name; a name that is not a slug
(`^[a-z0-9-_]+$`) or starts with `_`, or an agent without a description, which
Gemini refuses or skips; `${name}` in an agent body, which Gemini fills from the
agent's inputs, refusing to run the agent when one is missing; `!{` or `@{` in
a mode body, which Gemini would run as a shell command or replace with a
file's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes import tool_lists
from promptc_compiler.runtimes.gemini.tools import GEMINI
from promptc_compiler.runtimes.translation import flat_name
from promptc_compiler.runtimes.translations import Translated

NAME = re.compile(r"^[a-z0-9-_]+$")
INPUT = re.compile(r"\$\{(\w+)\}")  # Gemini's templateString placeholder
INJECTION = re.compile(r"[!@]\{")


def losses(project: Translated) -> Iterator[Problem]:
    return tool_lists.losses(project, GEMINI)


def limits(project: Translated) -> tool_lists.Limits:
    return tool_lists.Limits(project, GEMINI, _checks)


def _checks(spec: Spec, agent: bool) -> Iterator[Problem]:
    if agent:
        name = flat_name(spec.id)
        if not NAME.match(name) or name.startswith("_"):
            yield Problem(
                1,
                1,
                "Gemini CLI names an agent by a slug (lowercase letters, digits, `-`, `_`) "
                f"and skips files starting with `_`; '{name}' will not load: rename the file",
                path=spec.source.path,
            )
        if not tool_lists.description_for(spec, GEMINI).strip():
            yield Problem(
                1, 1, "Gemini CLI refuses an agent without a description", path=spec.source.path
            )
    yield from _text(spec, INPUT if agent else INJECTION, agent)


def _text(spec: Spec, pattern: re.Pattern[str], agent: bool) -> Iterator[Problem]:
    for text in dict.fromkeys(m.group(0) for m in pattern.finditer(spec.body)):
        line, column = _position(spec, text)
        why = (
            f"Gemini CLI fills `{text}` from the agent's inputs and refuses to run the "
            "agent without that input"
            if agent
            else f"Gemini CLI reads `{text}` in a command as "
            + ("a shell command to run" if text.startswith("!") else "a file to include")
        )
        yield Problem(line, column, f"{why}; write it another way", path=spec.source.path)


def _position(spec: Spec, text: str) -> tuple[int, int]:
    """Where `text` first stands in the spec's own body, else the body's first line."""
    for number, line in enumerate(spec.source.text.split("\n"), start=1):
        if number >= spec.source.body_line and text in line:
            return number, line.index(text) + 1
    return spec.source.body_line, 1

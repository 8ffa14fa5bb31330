"""Agents and modes that Copilot CLI, Gemini CLI or Codex would not load, or would run otherwise.

Reported only for the configured `copilot`, `gemini` and `codex` targets
(promptc_compiler.runtimes.tool_lists says which agents the first two write):

- both: two ids that become one name (`team/reviewer` and `team-reviewer`
  are both `team-reviewer`), so one file would overwrite the other;
- Copilot CLI: an agent body over 30,000 characters, GitHub's limit for a
  custom agent's prompt;
- Gemini CLI: an agent name that is not a slug (`^[a-z0-9-_]+$`) or starts
  with `_`, or an agent without a description, which Gemini refuses or
  skips; `${name}` in an agent body, which Gemini fills from the agent's
  inputs, refusing to run the agent when one is missing; `!{` or `@{` in a
  mode body, which Gemini would run as a shell command or replace with a
  file's text.
- Codex CLI: a role whose description is blank, which Codex 0.171 refuses
  to load (its `targets.codex.description`, else the spec's).

Bodies are read as composed for the run's lint target (the first configured
target): branch on `target` only where it changes none of these.

Options: none.

Fails (with `[tool.promptc.targets.gemini]` configured):
    specs/agents/Code Reviewer.md
    Usa ${PROJECT_ROOT} como raíz.
Passes:
    specs/agents/code-reviewer.md
    Usa la raíz del proyecto.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Session, Spec, by_spec
from promptc_compiler.runtimes.codex import translate as codex_rules
from promptc_compiler.runtimes.tool_lists import (
    COPILOT,
    GEMINI,
    PLANS,
    RUNTIMES,
    Runtime,
    description_for,
)
from promptc_compiler.runtimes.translation import flat_name
from promptc_compiler.runtimes.translations import Translated

ID = "runtime-limits"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

COPILOT_BODY_LIMIT = 30_000
GEMINI_NAME = re.compile(r"^[a-z0-9-_]+$")
GEMINI_INPUT = re.compile(r"\$\{(\w+)\}")  # Gemini's templateString placeholder
GEMINI_INJECTION = re.compile(r"[!@]\{")


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    return by_spec(project, session(project, options))


def session(project: Translated, _options: Mapping[str, Any]) -> Session:
    runtimes = [r for r in RUNTIMES if r.target in project.config.targets]
    return _Limits(project, runtimes)


class _Limits:
    def __init__(self, project: Translated, runtimes: list[Runtime]) -> None:
        self.project = project
        translations = project.translations
        self.written = {r.target: set(translations.of(PLANS[r.target]).tools) for r in runtimes}
        self.runtimes = runtimes
        # The agents the codex target writes a role for.
        codex = codex_rules.NAME in project.config.targets
        self.roles = set(translations.of(codex_rules.TRANSLATOR).shell) if codex else set()
        self.names: dict[tuple[str, str, str], str] = {}  # (target, kind, name) -> first id

    def spec(self, spec: Spec) -> Iterator[Problem]:
        agent = spec.id in self.project.agents and self.project.agents[spec.id] is spec
        if agent and spec.id in self.roles and not codex_rules.description_for(spec).strip():
            yield Problem(
                *spec.where("description"),
                "Codex CLI refuses a role without a description: write one (or "
                "`targets.codex.description`)",
                path=spec.source.path,
            )
        for runtime in self.runtimes:
            if agent and spec.id not in self.written[runtime.target]:
                continue
            yield from self._name(spec, runtime, "agent" if agent else "command")
            if agent and runtime is COPILOT and len(spec.body) > COPILOT_BODY_LIMIT:
                yield Problem(
                    spec.source.body_line,
                    1,
                    f"body is {len(spec.body):,} characters; Copilot CLI takes at most "
                    f"{COPILOT_BODY_LIMIT:,} for a custom agent: shorten it",
                    path=spec.source.path,
                )
            if runtime is GEMINI:
                pattern = GEMINI_INPUT if agent else GEMINI_INJECTION
                yield from self._gemini_text(spec, pattern, agent)

    def _name(self, spec: Spec, runtime: Runtime, kind: str) -> Iterator[Problem]:
        name = flat_name(spec.id)
        if kind == "agent" and runtime is GEMINI:
            if not GEMINI_NAME.match(name) or name.startswith("_"):
                yield Problem(
                    1,
                    1,
                    "Gemini CLI names an agent by a slug (lowercase letters, digits, `-`, `_`) "
                    f"and skips files starting with `_`; '{name}' will not load: rename the file",
                    path=spec.source.path,
                )
            if not description_for(spec, runtime).strip():
                yield Problem(
                    1, 1, "Gemini CLI refuses an agent without a description", path=spec.source.path
                )
        first = self.names.setdefault((runtime.target, kind, name), spec.id)
        if first != spec.id:
            yield Problem(
                1,
                1,
                f"{kind} '{spec.id}' and '{first}' are both named '{name}' in {runtime.label}; "
                "rename one",
                path=spec.source.path,
            )

    def _gemini_text(self, spec: Spec, pattern: re.Pattern[str], agent: bool) -> Iterator[Problem]:
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

    def end(self) -> Iterator[Problem]:
        return iter(())


def _position(spec: Spec, text: str) -> tuple[int, int]:
    """Where `text` first stands in the spec's own body, else the body's first line."""
    for number, line in enumerate(spec.source.text.split("\n"), start=1):
        if number >= spec.source.body_line and text in line:
            return number, line.index(text) + 1
    return spec.source.body_line, 1

"""What the lint reports of the Codex files: its parts of lossy-translation and runtime-limits.

lossy-translation: a role left without a shell, a command rule that forbids or
asks where OpenCode allows, and the permissions and keys a Codex role has no
place for (promptc_compiler.runtimes.codex.translate), each once at the line
that wrote it. runtime-limits: a role whose description is blank, which Codex
0.171 refuses to load (its `targets.codex.description`, else the spec's).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes.codex import translate as codex_rules
from promptc_compiler.runtimes.translation import loss_problems, note_problems
from promptc_compiler.runtimes.translations import Translated


def losses(project: Translated) -> Iterator[Problem]:
    models = dict(project.config.targets.get(codex_rules.NAME, {}).get("models", {}))
    translation = project.translations.of(codex_rules.TRANSLATOR)
    yield from loss_problems(translation.losses, "Codex")
    for ident in translation.shell:
        spec = project.agents[ident]
        yield from note_problems(
            spec, codex_rules.agent_notes(spec, translation.agent(ident), models)
        )


class Limits:
    """The roles Codex would not load."""

    def __init__(self, project: Translated) -> None:
        self.project = project
        # The agents written as roles.
        self.roles = set(project.translations.of(codex_rules.TRANSLATOR).shell)

    def spec(self, spec: Spec) -> Iterable[Problem]:
        agent = spec.id in self.project.agents and self.project.agents[spec.id] is spec
        if agent and spec.id in self.roles and not codex_rules.description_for(spec).strip():
            yield Problem(
                *spec.where("description"),
                "Codex CLI refuses a role without a description: write one (or "
                "`targets.codex.description`)",
                path=spec.source.path,
            )

    def end(self) -> Iterable[Problem]:
        return ()

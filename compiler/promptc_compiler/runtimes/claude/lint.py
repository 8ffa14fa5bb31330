"""What the lint reports of the Claude Code files: its part of the lossy-translation rule.

Claude Code has no per-agent allow, ask or deny, so the translation
(promptc_compiler.runtimes.claude.translate) narrows what it cannot say
exactly: each such rule is reported once at the line that wrote it, then what
an agent, command or skill file cannot carry (promptc_compiler.runtimes.claude.agents)
at its key. Both targets read the same `targets.claude` keys; the plugin's
`models` stand in when only it is configured.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.runtimes.claude.agents import NAME, PLUGIN, agent_notes, command_notes
from promptc_compiler.runtimes.claude.target import RUNTIME, grants_of
from promptc_compiler.runtimes.claude.translate import TRANSLATOR
from promptc_compiler.runtimes.translation import loss_problems, note_problems
from promptc_compiler.runtimes.translations import Translated


def losses(project: Translated) -> Iterator[Problem]:
    targets = project.config.targets
    models = dict(targets.get(NAME, targets.get(PLUGIN, {})).get("models", {}))
    translation = project.translations.of(TRANSLATOR)
    yield from loss_problems(translation.losses, RUNTIME)
    for ident in translation.tools:
        yield from note_problems(project.agents[ident], agent_notes(project.agents[ident], models))
    for spec in project.modes.values():
        yield from note_problems(spec, command_notes(spec, translation, models))
    grants = grants_of(project)
    for skill in project.skills.values():
        notes = [why for why in grants(skill).values() if why]
        yield from note_problems(skill.spec, ((("allowed-tools",), note) for note in notes))

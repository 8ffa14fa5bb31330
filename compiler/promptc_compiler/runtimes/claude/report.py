"""TRANSLATION.md for Claude Code: the tools each agent got, the shared settings, and every
OpenCode rule the files cannot say (promptc_compiler.runtimes.translation_report's sections)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from promptc_compiler.core.project import Project
from promptc_compiler.runtimes import translation_report as report
from promptc_compiler.runtimes.claude.translate import Translation
from promptc_compiler.runtimes.translation import Loss

INTRO = """\
# Claude Code translation

promptc wrote these Claude Code files from the bundle's OpenCode specs. OpenCode gives every
agent its own ordered permission rules (the last matching rule wins). Claude Code has no
per-agent allow, ask or deny: an agent's `tools` list says which tools exist for it, and one
list of settings rules (deny, then ask, then allow) applies to the whole session, main thread
and subagents alike. promptc never grants more than OpenCode does: where a rule cannot be
said exactly, Claude Code asks or denies instead, or the tool is left out. Every such rule is
listed below, once.
"""


def render(
    project: Project,
    translation: Translation,
    namer: Mapping[str, str],
    settings: str,
    agent_notes: Mapping[str, Sequence[str]],
    command_notes: Mapping[str, Sequence[str]],
    with_settings: bool = True,
    skill_notes: Mapping[str, Sequence[str]] | None = None,
) -> str:
    root = project.config.root
    parts = [INTRO, _settings(settings, translation, with_settings)]
    parts.append("## Agents\n")
    own = report.own_losses(translation.losses)
    for ident, tools in translation.tools.items():
        notes = agent_notes.get(ident, ())
        parts.append(_agent(ident, tools, translation, namer, own.get(ident, ()), notes, root))
    disabled = [i for i in project.agents if i not in translation.tools]
    if disabled:
        names = ", ".join(disabled)
        parts.append(f"Not emitted (disabled, so OpenCode does not load them either): {names}.\n")
    parts += report.commands_section(
        {ident: command_notes.get(ident, ()) for ident in project.modes}
    )
    parts += report.notes_sections(
        "## Skills\n", {n: x for n, x in (skill_notes or {}).items() if x}
    )
    parts += report.shared_section(translation.losses, root)
    return "\n".join(parts)


def _settings(settings: str, translation: Translation, written: bool) -> str:
    if not written:
        return (
            "## Settings\n\nA plugin carries no settings: each agent keeps only the tools "
            "whose Claude Code defaults decide no more than its OpenCode rules, and the "
            "main thread is the user's own.\n"
        )
    main = translation.main_agent
    who = (
        f"The main thread runs as `{main}` (settings `agent`)."
        if main
        else "The main thread has every tool and stands for OpenCode's default agent, `build`."
    )
    where = (
        "They are in `.claude/settings.json`."
        if written
        else "A plugin cannot carry them: they belong in the project's `.claude/settings.json`."
    )
    return f"## Shared settings\n\n{who} {where}\n\n```json\n{settings}```\n"


def _agent(
    ident: str,
    tools: tuple[str, ...],
    translation: Translation,
    namer: Mapping[str, str],
    own: Sequence[Loss],
    notes: Sequence[str],
    root: Path,
) -> str:
    shown = [
        f"Agent({', '.join(namer.get(n, n) for n in translation.spawn[ident])})"
        if t == "Agent"
        else t
        for t in tools
    ]
    return report.agent_section(ident, f"Tools: {', '.join(shown) or 'none'}.", own, notes, root)

"""TRANSLATION.md of the Claude Code targets: each agent's tools, what Claude Code cannot say.

The sections are the shared ones (promptc_compiler.runtimes.translation_report):
one per agent with its Claude tools and every rule of its own that Claude Code
cannot express, the commands, the skills, then the rules every agent shares;
before them, the shared settings (or, in a plugin, why there are none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from promptc_compiler.core.project import Project
from promptc_compiler.runtimes.claude.translate import Translation
from promptc_compiler.runtimes.translation import Loss
from promptc_compiler.runtimes.translation_report import (
    Places,
    agent_section,
    commands_sections,
    notes_sections,
    own_losses,
    shared_section,
)

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
    places = Places(project.config.root)
    parts = [INTRO, _settings(settings, translation, with_settings)]
    parts.append("## Agents\n")
    own = own_losses(translation.losses)
    for ident, tools in translation.tools.items():
        notes = agent_notes.get(ident, ())
        parts.append(_agent(ident, tools, translation, namer, own.get(ident, ()), notes, places))
    disabled = [i for i in project.agents if i not in translation.tools]
    if disabled:
        names = ", ".join(disabled)
        parts.append(f"Not emitted (disabled, so OpenCode does not load them either): {names}.\n")
    parts += commands_sections({ident: command_notes.get(ident, ()) for ident in project.modes})
    parts += notes_sections("## Skills\n", {n: x for n, x in (skill_notes or {}).items() if x})
    parts += shared_section(translation.losses, places)
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
    places: Places,
) -> str:
    shown = [
        f"Agent({', '.join(namer.get(n, n) for n in translation.spawn[ident])})"
        if t == "Agent"
        else t
        for t in tools
    ]
    return agent_section(ident, f"Tools: {', '.join(shown) or 'none'}.", own, notes, places)

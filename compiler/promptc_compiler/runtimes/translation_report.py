"""TRANSLATION.md: what a runtime's files could not say of the OpenCode spec, for maintainers.

One section per agent lists its Claude tools and every rule of its own that
Claude Code cannot express, once each, with where it is written; rules every
agent shares (OpenCode's built-in defaults, the config's `permission`) are
listed once at the end with the agents they affect. Paths are relative to
the config file's folder, so the report is the same on every machine.
`render` writes Claude Code's; `render_lists` that of a runtime whose agents
have only a tool list (Copilot CLI, Gemini CLI: promptc_compiler.runtimes.tool_lists); Codex
writes its own from the same sections.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from promptc_compiler.core.project import Project
from promptc_compiler.permissions.ruleset import Rule
from promptc_compiler.runtimes.claude.translate import MAIN, Loss, Translation
from promptc_compiler.runtimes.tool_lists import (
    Plan,
    Runtime,
    agent_notes,
    mode_notes,
    runtime_name,
    skill_notes,
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
    root = project.config.root
    parts = [INTRO, _settings(settings, translation, with_settings)]
    parts.append("## Agents\n")
    own = own_losses(translation.losses)
    for ident, tools in translation.tools.items():
        notes = agent_notes.get(ident, ())
        parts.append(_agent(ident, tools, translation, namer, own.get(ident, ()), notes, root))
    disabled = [i for i in project.agents if i not in translation.tools]
    if disabled:
        names = ", ".join(disabled)
        parts.append(f"Not emitted (disabled, so OpenCode does not load them either): {names}.\n")
    parts += _commands({ident: command_notes.get(ident, ()) for ident in project.modes})
    parts += _notes_sections("## Skills\n", {n: x for n, x in (skill_notes or {}).items() if x})
    parts += shared_section(translation.losses, root)
    return "\n".join(parts)


def shared_section(losses: Sequence[Loss], root: Path, main: str = "") -> list[str]:
    """The rules every agent shares, each once with the agents it affects; `main`
    says after "every agent" who stands for the main session, if anyone does."""
    shared = _shared(losses, root)
    if not shared:
        return []
    return [
        "## Rules every agent shares\n",
        f"OpenCode's built-in defaults and the config's `permission` hold for every agent{main}; "
        "each is listed once with the agents it affects.\n",
        *shared,
    ]


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
    return agent_section(ident, f"Tools: {', '.join(shown) or 'none'}.", own, notes, root)


def agent_section(
    ident: str, headline: str, own: Sequence[Loss], notes: Sequence[str], root: Path
) -> str:
    """An agent's section: its headline (what it got), then each loss of its own
    rules with where the rule is written, then each note."""
    losses = [f"`{loss.rule.text()}` ({where(loss.rule, root)}): {loss.message}" for loss in own]
    return _section(ident, [*losses, *notes], f"{headline}\n\n")


def render_lists(
    project: Project, intro: str, runtime: Runtime, found: Plan, models: Mapping[str, str]
) -> str:
    """The report for a runtime whose agents have a tool list and nothing else
    (promptc_compiler.runtimes.tool_lists): each agent's tools or why it is not written, its
    losses and notes; the commands; the skills; the shared rules."""
    root = project.config.root
    parts = [intro, "## Agents\n"]
    own = own_losses(found.losses)
    for ident, spec in project.agents.items():
        if ident in found.tools:
            shown = ", ".join(f"`{tool}`" for tool in found.tools[ident]) or "none"
            headline = f"Tools: {shown}."
        elif ident in found.left_out:
            headline = "Not written."
        else:
            continue  # disabled: OpenCode does not load it either
        notes = [message for _, message in agent_notes(spec, runtime, models, found)]
        if ident in found.hidden:
            notes.append(
                "hidden from Copilot's `task` (`infer: false`): OpenCode's default agent `build` "
                f"may not start {ident} without asking"
            )
        parts.append(agent_section(ident, headline, own.get(ident, ()), notes, root))
    parts += _commands(
        {
            ident: [message for _, message in mode_notes(spec, runtime, found.agents)]
            for ident, spec in project.modes.items()
        }
    )
    # A runtime that reads no grant from a skill leaves nothing out of one: no section.
    if runtime.skill_grants:
        skills = {n: [m for _, m in skill_notes(s, runtime)] for n, s in project.skills.items()}
        parts += _notes_sections("## Skills\n", skills)
    parts += shared_section(found.losses, root)
    return "\n".join(parts)


def own_losses(losses: Sequence[Loss]) -> dict[str, list[Loss]]:
    """Each agent's losses of its own rules, in order: gathered in one pass, as
    filtering every loss for every agent would cost N² for N agents."""
    own: dict[str, list[Loss]] = {}
    for loss in losses:
        if _own(loss.rule):
            own.setdefault(loss.subject, []).append(loss)
    return own


def _commands(notes: Mapping[str, Sequence[str]]) -> list[str]:
    """The commands' sections, each mode by its command's name (`/team-review`)."""
    named = {f"/{runtime_name(ident)}": found for ident, found in notes.items()}
    return _notes_sections("## Commands\n", named)


def _notes_sections(heading: str, notes: Mapping[str, Sequence[str]]) -> list[str]:
    """A heading and one section per title (none when there are no titles)."""
    if not notes:
        return []
    return [heading, *(_section(title, found) for title, found in notes.items())]


def _section(title: str, notes: Sequence[str], headline: str = "") -> str:
    body = "\n".join(f"- {note}" for note in notes) + "\n" if notes else "Nothing lost.\n"
    return f"### {title}\n\n{headline}{body}"


def _own(rule: Rule) -> bool:
    return rule.origin.kind == "agent"


def where(rule: Rule, root: Path) -> str:
    """Where a rule is written, as the report shows it: `specs/agents/a.md:9:5`
    relative to the config's folder, else the file's name; a built-in rule's label."""
    origin = rule.origin
    if origin.path is None:
        return origin.label
    try:
        path = origin.path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        path = origin.path.name
    return f"{path}:{origin.line}:{origin.column}"


def _shared(losses: Sequence[Loss], root: Path) -> list[str]:
    """One entry per shared rule: its messages, each with the agents it applies to."""
    grouped: dict[tuple[str, str], dict[str, list[str]]] = {}
    for loss in losses:
        if _own(loss.rule):
            continue
        key = (loss.rule.text(), where(loss.rule, root))
        who = "the main thread" if loss.subject == MAIN else loss.subject
        grouped.setdefault(key, {}).setdefault(loss.message, []).append(who)
    entries = []
    for (text, place), messages in grouped.items():
        lines = [f"- `{text}` ({place})"]
        for message, agents in messages.items():
            lines.append(f"  - for {', '.join(dict.fromkeys(agents))}: {message}")
        entries.append("\n".join(lines) + "\n")
    return entries

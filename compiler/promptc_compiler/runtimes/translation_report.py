"""TRANSLATION.md: what a runtime's files could not say of the OpenCode spec, for maintainers.

One section per agent lists what it got and every rule of its own that the
runtime cannot express, once each, with where it is written; rules every
agent shares (OpenCode's built-in defaults, the config's `permission`) are
listed once at the end with the agents they affect. Paths are relative to
the config file's folder, so the report is the same on every machine.
`render_lists` writes the report of a runtime whose agents have only a tool
list (promptc_compiler.runtimes.tool_lists); the other runtimes write theirs
from the same sections.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from promptc_compiler.core.project import Project
from promptc_compiler.permissions.ruleset import Rule
from promptc_compiler.runtimes.tool_lists import Plan, Runtime, agent_notes, mode_notes, skill_notes
from promptc_compiler.runtimes.translation import MAIN, Loss, flat_name


def shared_section(losses: Sequence[Loss], places: Places, main: str = "") -> list[str]:
    """The rules every agent shares, each once with the agents it affects; `main`
    says after "every agent" who stands for the main session, if anyone does."""
    shared = _shared(losses, places)
    if not shared:
        return []
    return [
        "## Rules every agent shares\n",
        f"OpenCode's built-in defaults and the config's `permission` hold for every agent{main}; "
        "each is listed once with the agents it affects.\n",
        *shared,
    ]


def agent_section(
    ident: str, headline: str, own: Sequence[Loss], notes: Sequence[str], places: Places
) -> str:
    """An agent's section: its headline (what it got), then each loss of its own
    rules with where the rule is written, then each note."""
    losses = [f"`{loss.rule.text()}` ({places.of(loss.rule)}): {loss.message}" for loss in own]
    return _section(ident, [*losses, *notes], f"{headline}\n\n")


def render_lists(
    project: Project, intro: str, runtime: Runtime, found: Plan, models: Mapping[str, str]
) -> str:
    """The report for a runtime whose agents have a tool list and nothing else
    (promptc_compiler.runtimes.tool_lists): each agent's tools or why it is not written, its
    losses and notes; the commands; the skills; the shared rules."""
    places = Places(project.config.root)
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
            notes.append(runtime.hidden.format(ident=ident))
        parts.append(agent_section(ident, headline, own.get(ident, ()), notes, places))
    parts += commands_sections(
        {
            ident: [message for _, message in mode_notes(spec, runtime, found.agents)]
            for ident, spec in project.modes.items()
        }
    )
    # A runtime that reads no grant from a skill leaves nothing out of one: no section.
    if runtime.skill_grants:
        skills = {n: [m for _, m in skill_notes(s, runtime)] for n, s in project.skills.items()}
        parts += notes_sections("## Skills\n", skills)
    parts += shared_section(found.losses, places)
    return "\n".join(parts)


def own_losses(losses: Sequence[Loss]) -> dict[str, list[Loss]]:
    """Each agent's losses of its own rules, in order: gathered in one pass, as
    filtering every loss for every agent would cost N² for N agents."""
    own: dict[str, list[Loss]] = {}
    for loss in losses:
        if _own(loss.rule):
            own.setdefault(loss.subject, []).append(loss)
    return own


def commands_sections(notes: Mapping[str, Sequence[str]]) -> list[str]:
    """The commands' sections, each mode by its command's name (`/team-review`)."""
    named = {f"/{flat_name(ident)}": found for ident, found in notes.items()}
    return notes_sections("## Commands\n", named)


def notes_sections(heading: str, notes: Mapping[str, Sequence[str]]) -> list[str]:
    """A heading and one section per title (none when there are no titles)."""
    if not notes:
        return []
    return [heading, *(_section(title, found) for title, found in notes.items())]


def _section(title: str, notes: Sequence[str], headline: str = "") -> str:
    body = "\n".join(f"- {note}" for note in notes) + "\n" if notes else "Nothing lost.\n"
    return f"### {title}\n\n{headline}{body}"


def _own(rule: Rule) -> bool:
    return rule.kind == "agent"


class Places:
    """Where rules are written, as a report shows them: `specs/agents/a.md:9:5`
    relative to the config's folder, else the file's name; a built-in rule's
    label. The path as the bundle was read, as diagnostics name it: the
    config's folder is resolved when found, and every file is read below it (a
    link is named as the link, not as the file it points to). Each file's part
    is worked out once per report: pathlib's relative_to costs some 5 us, and
    a report of 1,000 agents named their files 5,000 times."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[Path, str] = {}

    def of(self, rule: Rule) -> str:
        if rule.path is None:
            return rule.label
        shown = self._files.get(rule.path)
        if shown is None:
            try:
                shown = rule.path.relative_to(self.root).as_posix()
            except ValueError:
                shown = rule.path.name
            self._files[rule.path] = shown
        return f"{shown}:{rule.line}:{rule.column}"


def _shared(losses: Sequence[Loss], places: Places) -> list[str]:
    """One entry per shared rule: its messages, each with the agents it applies to."""
    grouped: dict[tuple[str, str], dict[str, list[str]]] = {}
    for loss in losses:
        if _own(loss.rule):
            continue
        key = (loss.rule.text(), places.of(loss.rule))
        who = "the main thread" if loss.subject == MAIN else loss.subject
        grouped.setdefault(key, {}).setdefault(loss.message, []).append(who)
    entries = []
    for (text, place), messages in grouped.items():
        lines = [f"- `{text}` ({place})"]
        for message, agents in messages.items():
            lines.append(f"  - for {', '.join(dict.fromkeys(agents))}: {message}")
        entries.append("\n".join(lines) + "\n")
    return entries

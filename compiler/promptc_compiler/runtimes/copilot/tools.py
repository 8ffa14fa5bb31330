"""Copilot CLI's tools: what each custom agent's `tools` list names, and what it costs.

The record promptc_compiler.runtimes.tool_lists plans an agent's tools with
(its table says which OpenCode permissions each alias acts under); the
preToolUse hook promptc writes beside the list decides each call
(promptc_compiler.runtimes.copilot.hooks).
"""

from __future__ import annotations

from collections.abc import Iterator

from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes.tool_lists import DROPPED, Plan, Runtime, offered

NAME = "copilot"


def _override_notes(spec: Spec, found: Plan) -> Iterator[tuple[tuple[str, ...], str]]:
    if spec.override(NAME).get("infer") is True and not offered(found, spec.id):
        yield (
            ("targets", NAME, "infer"),
            f"`targets.copilot.infer: true` is not kept: OpenCode never starts {spec.id} as a "
            "subagent from its default agent, so Copilot's `task` does not offer it either",
        )


COPILOT = Runtime(
    NAME,
    "Copilot CLI",
    (
        ("read", ("read", "list")),
        ("search", ("grep", "glob")),
        ("edit", ("edit",)),
        ("execute", ("bash",)),
        ("agent", ("task",)),
        ("web", ("webfetch", "websearch")),
        ("skill", ("skill",)),
    ),
    (("skill", "skill"), ("sql", "todowrite")),
    primaries=True,
    folders="asks before a call outside the project that OpenCode allows (the agent's hook)",
    dropped=(*DROPPED, "steps", "maxSteps"),
    overrides=("description", "model"),
    opencode_keys=("description",),
    skills=".github/skills/",
    # Copilot runs the tools a skill's `allowed-tools` names without asking.
    skill_grants=("allowed-tools",),
    # The agent's preToolUse hook decides every call of its tools, `skill` and
    # `sql` too (promptc_compiler.runtimes.copilot.hooks).
    scoped=("read", "search", "edit", "execute", "agent", "web", "skill", "sql"),
    # A subagent started by `task` has exactly its `tools`; an agent run as the
    # main session (`copilot --agent`) also has `skill` and `sql`.
    fixed_main_only=True,
    commands=False,  # Copilot CLI reads no command files from a project
    hidden=(
        "hidden from Copilot's `task` (`infer: false`): OpenCode's default agent `build` "
        "may not start {ident} without asking"
    ),
    override_notes=_override_notes,
)

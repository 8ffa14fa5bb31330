"""Gemini CLI's tools: what each subagent's `tools` list names, and what it costs.

The record promptc_compiler.runtimes.tool_lists plans a subagent's tools with
(its table says which OpenCode permission each built-in tool acts under); the
policy rules promptc writes beside the list decide each call
(promptc_compiler.runtimes.gemini.policy).
"""

from __future__ import annotations

from collections.abc import Iterator

from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes.tool_lists import DROPPED, Plan, Runtime

NAME = "gemini"


def _override_notes(spec: Spec, _found: Plan) -> Iterator[tuple[tuple[str, ...], str]]:
    if "temperature" in spec.override(NAME):
        yield (
            ("targets", NAME, "temperature"),
            "`targets.gemini.temperature` is written, but Gemini CLI 0.61 does not send a "
            "subagent's temperature to the model",
        )


GEMINI = Runtime(
    NAME,
    "Gemini CLI",
    (
        ("read_file", ("read",)),
        ("read_many_files", ("read",)),
        ("list_directory", ("list",)),
        ("glob", ("glob",)),
        ("grep_search", ("grep",)),
        ("replace", ("edit",)),
        ("write_file", ("edit",)),
        ("run_shell_command", ("bash",)),
        ("web_fetch", ("webfetch",)),
        ("google_web_search", ("websearch",)),
        ("write_todos", ("todowrite",)),
        ("ask_user", ("question",)),
        ("activate_skill", ("skill",)),
    ),
    (),
    primaries=False,
    folders="keeps its file tools inside the workspace, but not its shell",
    dropped=DROPPED,
    overrides=("description", "display_name", "model", "temperature", "max_turns", "timeout_mins"),
    opencode_keys=("description", "max_turns"),
    skills="skills/",
    skill_grants=(),  # Gemini reads a skill's name, description and body only
    # Policy rules scoped to the subagent decide these by their arguments.
    scoped=("run_shell_command", "read_file", "replace", "write_file", "activate_skill"),
    # A policy rule may make any tool ask, for one subagent.
    asking=(
        "read_many_files",
        "list_directory",
        "glob",
        "grep_search",
        "web_fetch",
        "google_web_search",
        "write_todos",
        "ask_user",
    ),
    override_notes=_override_notes,
)

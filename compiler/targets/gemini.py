"""Gemini CLI (@google/gemini-cli 0.61.0): the subagents and commands `gemini` reads from a project.

Emitted, relative to `<out>/gemini/` (copy or link it into a project root):

- `.gemini/agents/<name>.md` for every agent OpenCode would load as a
  subagent (`team/reviewer` becomes `team-reviewer`). Gemini CLI has no
  primary agents: its main session may start any subagent, which OpenCode
  never does with a primary, so primaries are not written, nor are subagents
  OpenCode's default agent `build` may not start (both reported).
  Frontmatter (a strict schema in Gemini CLI: unknown keys are errors), in
  this order:
  - `kind: local`, `name`, `description`.
  - `tools`: always an explicit list (an agent without one gets every tool):
    the built-in tools (`read_file`, `grep_search`, `run_shell_command`, ...)
    whose OpenCode permission the agent's rules allow for every input
    (compiler.tool_lists); `[]` when none is. Project policies are disabled
    in 0.61, so nothing narrower can be said.
  - `model`: the OpenCode model through the `models` option; left out (the
    session's model) when the spec names none or an unmapped one (reported).
  - `max_turns` from OpenCode's `steps` (or `maxSteps`).
  - A spec's `targets.gemini` keys as written: `description`,
    `display_name`, `model` (a Gemini model, in place of the `models`
    mapping), `temperature` (reported: 0.61 does not send it), `max_turns`,
    `timeout_mins`; `tools` and `mcp_servers` are not overridable.
  The body, composed for the `gemini` target, is the system prompt. Gemini
  fills `${name}` in it from the agent's inputs and refuses to run the agent
  when one is missing: such a body is an error (rule `runtime-limits`), as is
  a name that is not a Gemini slug (`^[a-z0-9-_]+$`). `temperature` is left
  out and reported (0.61 does not send it to the model), as are OpenCode keys
  with no Gemini meaning.
- `.gemini/commands/<mode>.toml` for every mode (a custom command: `/build
  <request>`): `description`, and `prompt`, the mode composed for `gemini`
  with `$ARGUMENTS` as Gemini's `{{args}}` and each `` !`cmd` `` as Gemini's
  `!{cmd}` when the mode's agent may run it without asking in OpenCode (else
  kept as text, reported; so is a positional `$1`, which Gemini never fills).
  Gemini runs a command in its main session, not as the mode's agent: reported.
- `.gemini/skills/<name>/` for every skill (Gemini reads its name,
  description and body; an agent loads one through `activate_skill`, which
  its tools hold only where OpenCode allows `skill` wholly).
- `TRANSLATION.md`: every OpenCode rule and key Gemini CLI cannot express,
  per agent and once each.

Options (`[tool.promptc.targets.gemini]`):
    models (table, default {}): OpenCode model id -> Gemini model
        (`gemini-2.5-pro`, `gemini-2.5-flash`, ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from compiler import translation_report, yamlout
from compiler.model_map import models_option
from compiler.project import Project, Spec
from compiler.skills import emit_skills
from compiler.tool_lists import (
    GEMINI,
    SHELL_LINE,
    Plan,
    mode_runner,
    model_for,
    overridden,
    plan,
    runnable,
    runtime_name,
)

NAME = GEMINI.target
RUNTIME = GEMINI.label
# Agents are not searched in subfolders, and files starting with `_` are skipped.
LOADED = re.compile(
    r"\.gemini/agents/[^/_][^/]*\.md|\.gemini/commands/.+\.toml|\.gemini/skills/([^/]+/)?SKILL\.md"
    r"|GEMINI\.md"
)
OPTIONS: dict[str, Any] = {"models": models_option("Gemini CLI", "gemini-2.5-pro, ...")}
INTRO = """\
# Gemini CLI translation

promptc wrote these Gemini CLI subagents and commands from the bundle's OpenCode specs.
OpenCode gives every agent its own ordered permission rules (the last matching rule wins). A
Gemini subagent has only a `tools` list, and Gemini CLI 0.61 reads no policy rules from a
project. promptc never grants more than OpenCode does: a tool goes in an agent's list only
when OpenCode allows, for that agent, everything the tool does; otherwise it is left out.
Gemini has no primary agents and its subagents start no subagents. Every rule this costs is
listed below, once.
"""
_SHELL = re.compile(SHELL_LINE)


def files(project: Project, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    found = plan(project, GEMINI)
    models = options.get("models", {})
    for ident in found.tools:
        spec = project.agents[ident]
        front = agent_frontmatter(spec, found, models)
        yield f".gemini/agents/{runtime_name(ident)}.md", yamlout.document(front, spec.body)
    for ident, spec in project.modes.items():
        yield f".gemini/commands/{runtime_name(ident)}.toml", command(spec, found)
    yield from emit_skills(project, GEMINI.skills).items()
    yield "TRANSLATION.md", translation_report.render_lists(project, INTRO, GEMINI, found, models)


def agent_frontmatter(spec: Spec, found: Plan, models: Mapping[str, str]) -> dict[str, Any]:
    data = spec.view("opencode")
    front: dict[str, Any] = {
        "kind": "local",
        "name": runtime_name(spec.id),
        "description": str(data.get("description", "")),
        "tools": list(found.tools[spec.id]),
    }
    model = model_for(spec, models, GEMINI)[0]
    if model:
        front["model"] = model
    turns = data.get("steps", data.get("maxSteps"))
    if isinstance(turns, int) and not isinstance(turns, bool) and turns > 0:
        front["max_turns"] = turns
    front.update(overridden(spec, GEMINI))
    return front


# --- commands ---------------------------------------------------------------------------------


def command(spec: Spec, found: Plan) -> str:
    lines = []
    description = spec.view("opencode").get("description")
    if isinstance(description, str):
        lines.append(f"description = {_basic(description)}")
    lines.append(f"prompt = {_multiline(prompt(spec, found))}")
    return "\n".join(lines) + "\n"


def prompt(spec: Spec, found: Plan) -> str:
    runner = mode_runner(spec, found.agents)

    def shell(match: re.Match[str]) -> str:
        cmd = match.group(1)
        return f"!{{{cmd}}}" if runnable(runner, cmd) else match.group(0)

    return _SHELL.sub(shell, spec.body).replace("$ARGUMENTS", "{{args}}")


def _basic(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, but for DEL, which TOML escapes."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _multiline(text: str) -> str:
    """A multi-line literal string when the text allows one (readable, nothing escaped)."""
    plain = all(c in "\n\t" or (c >= " " and c != "\x7f") for c in text)
    if plain and "'''" not in text and not text.endswith("'"):
        return f"'''\n{text}'''"
    return _basic(text)

"""Gemini CLI (@google/gemini-cli 0.61.0): an extension holding the bundle's subagents, their
policy rules, commands and skills.

Gemini CLI 0.61 reads no policy rules from a project's `.gemini/policies/`
on its own (its workspace policy tier is off), but it does from an
extension, and an extension's policy rules may deny or ask, never allow
(Gemini drops an extension's `allow` rules itself). So the agents travel in
an extension with the rules that narrow them, and the rules that allow
travel in a user policy file beside it:

    gemini extensions link build/gemini     # or: gemini extensions install
    cp build/gemini/user-policies/<name>.toml ~/.gemini/policies/
    # (or pass that file to each run: gemini --policy <file>)

Skipping the second step narrows (what OpenCode allows asks), never widens:
the extension's deny and ask rules hold whatever the user tier says or does
not say. The decision model (promptc_compiler.runtimes.gemini.decide) assumes both steps.

Emitted, relative to `<out>/gemini/` (the extension's root):

- `gemini-extension.json`: the extension's `name` (option `name`, default
  `promptc`) and version.
- `agents/<name>.md` for every agent OpenCode would load as a subagent
  (`team/reviewer` becomes `team-reviewer`). Gemini CLI has no primary
  agents: its main session may start any subagent, which OpenCode never does
  with a primary, so primaries are not written, nor are subagents OpenCode's
  default agent `build` may not start (both reported). Frontmatter (a strict
  schema in Gemini CLI: unknown keys are errors), in this order:
  - `kind: local`, `name`, `description`.
  - `tools`: always an explicit list (an agent without one gets every tool):
    the built-in tools the agent keeps (promptc_compiler.runtimes.tool_lists): a tool whose
    OpenCode permission is allowed for every input; `run_shell_command`,
    `read_file`, `write_file`, `replace` and `activate_skill` wherever
    OpenCode allows or asks some of their calls (policy rules decide each
    call); any other tool wherever OpenCode denies none of its calls (a rule
    makes it ask). `[]` when none is kept.
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
  a name that is not a Gemini slug (`^[a-z0-9-_]+$`).
- `policies/promptc.toml`: the deny and ask rules, and
  `user-policies/<name>.toml`: every rule (see promptc_compiler.runtimes.gemini.policy for how
  OpenCode's ordered rules become Gemini's prioritised ones).
- `commands/<mode>.toml` for every mode (a custom command: `/build
  <request>`): `description`, and `prompt`, the mode composed for `gemini`
  with `$ARGUMENTS` as Gemini's `{{args}}` and each `` !`cmd` `` as Gemini's
  `!{cmd}` when the mode's agent may run it without asking in OpenCode (else
  kept as text, reported; so is a positional `$1`, which Gemini never fills).
  Gemini runs a command in its main session, not as the mode's agent: reported.
  A mode's `targets.gemini.literal_arguments: true` keeps `$ARGUMENTS` as
  text (what `promptc import gemini` writes for a command that says it so).
- `skills/<name>/` for every skill (Gemini reads its name, description and
  body; an agent loads one through `activate_skill`, decided by the rules).
- `TRANSLATION.md`: every OpenCode rule and key Gemini CLI cannot express,
  per agent and once each, and the set-up steps above.

Options (`[tool.promptc.targets.gemini]`):
    models (table, default {}): OpenCode model id -> Gemini model
        (`gemini-2.5-pro`, `gemini-2.5-flash`, ...).
    name (string, default "promptc"): the extension's name, and its user
        policy file's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.body_syntax import ARGUMENTS, SHELL
from promptc_compiler.core import yamlout
from promptc_compiler.core.project import Spec
from promptc_compiler.runtimes import translation_report
from promptc_compiler.runtimes.adapter import Starter
from promptc_compiler.runtimes.gemini import policy as gemini_policy
from promptc_compiler.runtimes.gemini.tools import GEMINI
from promptc_compiler.runtimes.model_map import models_option
from promptc_compiler.runtimes.skills import emit_skills
from promptc_compiler.runtimes.tool_lists import (
    Plan,
    mode_runner,
    model_for,
    overridden,
    plan,
    runnable,
)
from promptc_compiler.runtimes.translation import flat_name
from promptc_compiler.runtimes.translations import Translated

NAME = GEMINI.target
COMPOSE_AS = NAME
RUNTIME = GEMINI.label
SPEC_KEYS = {"agent": "geminiAgent", "mode": "geminiCommand"}  # in overrides.json
SCHEMAS: tuple[tuple[str, str], ...] = ()
STARTER = Starter()
# Agents are not searched in subfolders, and files starting with `_` are skipped.
LOADED = re.compile(
    r"agents/[^/_][^/]*\.md|commands/.+\.toml|skills/([^/]+/)?SKILL\.md"
    r"|gemini-extension\.json|policies/[^/]+\.toml|user-policies/[^/]+\.toml|GEMINI\.md"
)
# Nothing at the project root, whatever the layout: Gemini CLI 0.61 reads no
# policy rules from a project's `.gemini/policies/`, so subagents written to
# `.gemini/agents/` would run without the deny and ask rules that keep them
# within OpenCode's. The extension keeps them together, in `<out>/gemini/`.
ROOT = None
SHARED: dict[str, tuple[str, ...]] = {}
OPTIONS: dict[str, Any] = {
    "models": models_option("Gemini CLI", "gemini-2.5-pro, ..."),
    "name": {
        "type": "string",
        "pattern": "^[a-z0-9][a-z0-9-]*$",
        "default": "promptc",
        "description": (
            "the extension's name (`gemini extensions list`), and its user policy file's"
        ),
    },
}
INTRO = """\
# Gemini CLI translation

promptc wrote this Gemini CLI extension (subagents, their policy rules, commands and skills)
from the bundle's OpenCode specs. OpenCode gives every agent its own ordered permission rules
(the last matching rule wins). Gemini CLI decides each tool call by policy rules, the highest
priority first; a rule may name the subagent it is for. promptc writes each agent's rules as
such rules, in OpenCode's order, for the shell, `read_file`, `write_file`, `replace` and
`activate_skill`; another tool is kept only where OpenCode denies none of its calls (it then
asks, or runs where OpenCode allows it wholly). The rules decide exactly for plain paths
relative to the project and commands naming no path outside it (run `gemini` in the project
folder); any other call is refused where a deny rule could decide it and asks otherwise.
Gemini has no primary agents and its subagents start no subagents. Every rule this costs is
listed below, once.
"""
SETUP = """
## Setting it up

An extension's policy rules may deny or ask, never allow (Gemini CLI drops them), so the
rules that allow are in a user policy file beside the extension:

    gemini extensions link build/gemini
    cp build/gemini/user-policies/{name}.toml ~/.gemini/policies/

(or pass `--policy build/gemini/user-policies/{name}.toml` to each `gemini` run; Gemini then
reads no other user policy). Without the user policy every call OpenCode allows asks; nothing
is allowed that OpenCode does not allow. The rules name each subagent: a subagent of the same
name from another extension or project would get them too.
"""


def files(project: Translated, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    found = plan(project, GEMINI)
    models = options.get("models", {})
    name = str(options.get("name", "promptc"))
    for ident in found.tools:
        spec = project.agents[ident]
        front = agent_frontmatter(spec, found, models)
        yield f"agents/{flat_name(ident)}.md", yamlout.document(front, spec.body)
    yield "gemini-extension.json", json.dumps({"name": name, "version": "1.0.0"}, indent=2) + "\n"
    rules = gemini_policy.rules(found)
    yield gemini_policy.EXTENSION_FILE, gemini_policy.render(rules, extension=True)
    yield f"user-policies/{name}.toml", gemini_policy.render(rules, extension=False)
    for ident, spec in project.modes.items():
        yield f"commands/{flat_name(ident)}.toml", command(spec, found)
    yield from emit_skills(project, GEMINI.skills).items()
    intro = INTRO + SETUP.format(name=name)
    yield "TRANSLATION.md", translation_report.render_lists(project, intro, GEMINI, found, models)


def agent_frontmatter(spec: Spec, found: Plan, models: Mapping[str, str]) -> dict[str, Any]:
    data = spec.view("opencode")
    front: dict[str, Any] = {
        "kind": "local",
        "name": flat_name(spec.id),
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
        lines.append(f"description = {gemini_policy.basic(description)}")
    lines.append(f"prompt = {_multiline(prompt(spec, found))}")
    return "\n".join(lines) + "\n"


def prompt(spec: Spec, found: Plan) -> str:
    runner = mode_runner(spec, found.agents)

    def shell(match: re.Match[str]) -> str:
        cmd = match.group(1)
        return f"!{{{cmd}}}" if runnable(runner, cmd) else match.group(0)

    text = SHELL.sub(shell, spec.body)
    if spec.override(NAME).get("literal_arguments") is True:
        return text  # `$ARGUMENTS` is text here (a Gemini command imported as written)
    return text.replace(ARGUMENTS, "{{args}}")


def _multiline(text: str) -> str:
    """A multi-line literal string when the text allows one (readable, nothing escaped)."""
    plain = all(c in "\n\t" or (c >= " " and c != "\x7f") for c in text)
    if plain and "'''" not in text and not text.endswith("'"):
        return f"'''\n{text}'''"
    return gemini_policy.basic(text)

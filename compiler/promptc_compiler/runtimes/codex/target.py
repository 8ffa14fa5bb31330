"""Codex CLI (@openai/codex 0.171.0): the files `codex` reads from a trusted project.

Emitted, relative to `<out>/codex/` (copy or link it into a project root;
Codex reads a project's `.codex/` only when `~/.codex/config.toml` trusts the
project: `[projects."<path>"] trust_level = "trusted"`):

- `.codex/agents/<id>.toml` for every agent OpenCode would load, as a Codex
  role (`team/reviewer` keeps its name and lands in `agents/team/`):
  `name`, `description`, `nickname_candidates` (only from the override),
  `model` (the OpenCode model through the `models` option; unmapped, the
  role runs on the session's model and it is reported),
  `model_reasoning_effort` (OpenCode's `options.reasoningEffort`, else a
  `variant` named after an effort), `sandbox_mode = "read-only"` when
  OpenCode denies every edit (for `promptc import`: Codex 0.171 does not
  apply it to a spawned role, and the decision model never counts on it),
  `developer_instructions` (the composed body), and `[features] shell_tool =
  false` when the role may run no command (promptc_compiler.runtimes.codex.translate decides
  which).
- `.codex/config.toml`: what every role inherits whatever its own file says:
  the workspace-write sandbox on the project alone (no network, not `/tmp`;
  read-only when OpenCode denies every edit to every agent and `build`),
  `view_image`, `web_search`, `update_plan` and `[agents] max_depth` set on
  or off for all (promptc_compiler.runtimes.codex.translate), an
  `[agents.<id>]` entry per role (`description`, `config_file`), and
  `[features] shell_tool = false` when the main session's own rules cannot
  be said as command rules.
- `.codex/rules/promptc.rules`: the bundle's bash rules as `prefix_rule`s,
  project-wide (promptc_compiler.runtimes.codex.translate documents the model), each with a
  `match` example made from the OpenCode pattern it stands for and
  `not_match` examples from the bundle's other patterns; Codex checks both
  when it loads the file.
- `.codex/skills/<name>/` for every skill (Codex also reads `.agents/skills`).
- `TRANSLATION.md`: every OpenCode rule and key Codex cannot hold, per agent.

Modes are not emitted: promptc writes no Codex command for them (reported).

A spec's `targets.codex` sets `description`, `model` (a Codex model, in
place of the `models` mapping), `model_reasoning_effort` and
`nickname_candidates` for Codex alone; what a role may do comes only from
`permission` (schemas/agent.schema.json refuses `sandbox_mode`, `tools`, ...).

Options (`[tool.promptc.targets.codex]`):
    models (table, default {}): OpenCode model id -> Codex model (`gpt-5.5`, ...).
    accept_wider (list): the permissions whose widenings the build accepts
    (promptc_compiler.pipeline.proof);
        `task` and `bash` also keep the tools Codex cannot narrow (roles may delegate; a
        role whose rules Codex cannot say keeps its shell). TRANSLATION.md lists them first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.core.project import Project, Spec
from promptc_compiler.runtimes import translation_report
from promptc_compiler.runtimes.adapter import Starter
from promptc_compiler.runtimes.codex import translate as codex_rules
from promptc_compiler.runtimes.codex.translate import CodexTranslation, PrefixRule
from promptc_compiler.runtimes.model_map import models_option
from promptc_compiler.runtimes.skills import emit_skills
from promptc_compiler.runtimes.translation import MAIN
from promptc_compiler.runtimes.translations import Translated

NAME = codex_rules.NAME
COMPOSE_AS = NAME
SCHEMAS: tuple[tuple[str, str], ...] = ()
STARTER = Starter(
    table=(
        "# Codex gives every role apply_patch, which writes anywhere in the project: lead\n"
        "# and reviewer (`edit: deny`) can edit there. Without this line that is an error\n"
        "# (wider-translation); with it, every build prints the calls it widens.\n"
        'accept_wider = ["edit"]'
    ),
    at_root=".codex/",
)
OPTIONS: dict[str, Any] = {"models": models_option("Codex", "gpt-5.5, ...")}
RULES_FILE = ".codex/rules/promptc.rules"
# In the root layout: `.codex/` at the project root (TRANSLATION.md stays in
# `<out>/codex/`); config.toml's keys are managed one by one.
ROOT = re.compile(r"\.codex/.+")
SHARED: dict[str, tuple[str, ...]] = {".codex/config.toml": ()}
# What Codex reads from a project (paths under <out>/codex/), so that a check
# can name a file there that promptc did not write.
RUNTIME = "Codex CLI"
SPEC_KEYS = {"agent": "codexAgent"}  # in overrides.json; a mode has no Codex keys
LOADED = re.compile(
    r"\.codex/agents/.+\.toml|\.codex/config\.toml|\.codex/rules/[^/]+\.rules"
    r"|(\.codex|\.agents)/skills/.+/SKILL\.md|AGENTS\.md"
)


def files(project: Translated, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    translation = project.translations.of(codex_rules.TRANSLATOR)
    models = options.get("models", {})
    written: dict[str, str] = {}
    for ident in translation.shell:
        spec = project.agents[ident]
        written[f".codex/agents/{ident}.toml"] = role_file(spec, translation, models)
    written.update(emit_skills(project, ".codex/skills/"))
    written[".codex/config.toml"] = config_file(project, translation)
    written[RULES_FILE] = rules_file(translation)
    yield from written.items()
    yield "TRANSLATION.md", report(project, translation, models)


# --- TOML -------------------------------------------------------------------------------------


# What a TOML basic string escapes (a tab stands as it is), and a multi-line one
# (a newline and a quote stand too).
_ESCAPE = re.compile(r'[\\"\x00-\x08\x0a-\x1f\x7f]')
_ESCAPE_MULTILINE = re.compile(r"[\\\x00-\x08\x0b-\x1f\x7f]")


def toml_string(text: str, multiline: bool = False) -> str:
    """A TOML basic string (multi-line: the text as it reads, only what must be escaped)."""
    body = (_ESCAPE_MULTILINE if multiline else _ESCAPE).sub(_escaped, text)
    if not multiline:
        return f'"{body}"'
    # Three quotes in a row would close the string: escape every third.
    body = body.replace('"""', '""\\"')
    return f'"""\n{body}"""'


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return "\\" + char if char in '\\"' else f"\\u{ord(char):04X}"


def _line(key: str, value: Any) -> str:
    if isinstance(value, list):
        return f"{key} = [{', '.join(toml_string(v) for v in value)}]"
    return f"{key} = {toml_string(value)}"


def role_file(spec: Spec, translation: CodexTranslation, models: Mapping[str, str]) -> str:
    lines = [_line("name", spec.id), _line("description", codex_rules.description_for(spec))]
    optional = {  # each written only when it has a value
        "nickname_candidates": codex_rules.nicknames_for(spec),
        "model": codex_rules.model_for(spec, models)[0],
        "model_reasoning_effort": codex_rules.effort_for(spec)[0],
        "sandbox_mode": "read-only" if spec.id in translation.read_only else None,
    }
    lines += [_line(key, value) for key, value in optional.items() if value]
    body = spec.body if spec.body.endswith("\n") else spec.body + "\n"
    lines.append(f"developer_instructions = {toml_string(body, multiline=True)}")
    if not translation.shell[spec.id]:
        lines += ["", "[features]", "shell_tool = false"]
    return "\n".join(lines) + "\n"


def config_file(project: Project, translation: CodexTranslation) -> str:
    tools = translation.tools
    search = "live" if tools.web_search else "disabled"
    # Read-only when no role nor the main session may edit: apply_patch then asks.
    sandbox = "read-only" if translation.all_read_only else "workspace-write"
    lines = [
        "# What every role inherits, whatever its own file says (promptc: TRANSLATION.md).",
        f"sandbox_mode = {toml_string(sandbox)}",
        f"web_search = {toml_string(search)}",
        "",
        "[sandbox_workspace_write]",
        "network_access = false",
        "exclude_slash_tmp = true",
        "exclude_tmpdir_env_var = true",
        "",
        "[features]",
        f"view_image = {_bool(tools.view_image)}",
    ]
    if translation.shell_off:
        lines.append("shell_tool = false")
    lines += [
        "",
        "[tools.update_plan]",
        f"enabled = {_bool(tools.update_plan)}",
        "",
        "[agents]",
        f"max_depth = {tools.max_depth}",
        "",
    ]
    for ident in translation.shell:
        bare = codex_rules.PLAIN.fullmatch(ident) and not set(ident) & set("./@%+:,")
        key = ident if bare else json.dumps(ident)
        lines += [
            f"[agents.{key}]",
            _line("description", codex_rules.description_for(project.agents[ident])),
            _line("config_file", f"agents/{ident}.toml"),
            "",
        ]
    return "\n".join(lines)


def _bool(value: bool) -> str:
    return "true" if value else "false"


# --- command rules ----------------------------------------------------------------------------


def rules_file(translation: CodexTranslation) -> str:
    """Every prefix rule, with its examples; Codex refuses the file if one is wrong."""
    shown = [" ".join(r.words) for r in translation.rules]
    parts = [
        "# The bundle's OpenCode bash rules as Codex command rules, written by promptc\n"
        "# (TRANSLATION.md says what they cannot hold). The strictest matching rule wins.\n"
    ]
    for rule in translation.rules:
        examples = _examples(rule)
        misses = [s for s in dict.fromkeys(shown) if not rule.matches(s.split(" "))][:2]
        pattern = [choices[0] if len(choices) == 1 else list(choices) for choices in rule.pattern]
        fields = [
            f"    pattern = {json.dumps(pattern)},",
            f"    decision = {json.dumps(rule.decision)},",
            f"    justification = {json.dumps(_justification(rule))},",
            f"    match = {json.dumps(examples)},",
        ]
        if misses:
            fields.append(f"    not_match = {json.dumps(misses)},")
        parts.append("prefix_rule(\n" + "\n".join(fields) + "\n)\n")
    return "\n".join(parts)


def _examples(rule: PrefixRule) -> list[str]:
    """The OpenCode patterns as commands (wildcards filled in) that the rule matches."""
    found = []
    for pattern in rule.patterns:
        words = " ".join(pattern.replace("*", " ").replace("?", "x").split()).split(" ")
        if all(codex_rules.PLAIN.fullmatch(w) for w in words) and rule.matches(words):
            found.append(" ".join(words))
    return list(dict.fromkeys(found)) or [" ".join(rule.words)]


def _justification(rule: PrefixRule) -> str:
    names = list(dict.fromkeys(s.subject for s in rule.sources))
    who = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    verb = {"forbidden": "denies", "prompt": "asks for", "allow": "allows"}[rule.decision]
    if rule.reason:
        verb = {"forbidden": "denies", "prompt": "asks", "allow": "allows"}[rule.decision]
        return f"{rule.reason}, where OpenCode {verb} for {who}"
    return f"OpenCode {verb} `{rule.patterns[0]}` for {who}"


# --- TRANSLATION.md ---------------------------------------------------------------------------

INTRO = """\
# Codex translation

promptc wrote these Codex files from the bundle's OpenCode specs. OpenCode gives every agent
its own ordered permission rules (the last matching rule wins). Codex 0.171 can take only the
shell away from one role: everything else a role may do is the project's, in
`.codex/config.toml` (the sandbox, and whether roles may search the web, ask the user, keep a
plan, look at images or start other roles) and `.codex/rules/promptc.rules` (command rules,
the strictest matching `prefix_rule` winning, the same for every role). A command no rule names
runs in the sandbox without asking, and every role has `apply_patch`, which writes anywhere in
the project. promptc never lets a role do what OpenCode would not let it do without asking:
where a rule cannot be said, Codex forbids or asks instead, or the tool is off; what Codex
cannot narrow at all is refused by the build unless the config accepts it
(`accept_wider`), and then it is listed first below. Every rule Codex cannot hold is listed
below, once.
"""


def report(
    project: Translated,
    translation: CodexTranslation,
    models: Mapping[str, str],
) -> str:
    places = translation_report.Places(project.config.root)
    own = translation_report.own_losses(translation.losses)
    parts = [INTRO]
    parts += ["## Every role\n", _tools_summary(translation)]
    parts += ["## Command rules\n", _rules_summary(project, translation), "## Agents\n"]
    for ident in translation.shell:
        spec = project.agents[ident]
        model = codex_rules.model_for(spec, models)[0] or "the session's"
        shell = "yes" if translation.shell[ident] and not translation.shell_off else "no"
        notes = codex_rules.agent_notes(spec, translation.agent(ident), models)
        headline = f"Model: {model}. Shell: {shell}."
        messages = [message for _, message in notes]
        parts.append(
            translation_report.agent_section(ident, headline, own.get(ident, ()), messages, places)
        )
    disabled = ", ".join(i for i in project.agents if i not in translation.shell)
    if disabled:
        parts.append(f"Not emitted (disabled, OpenCode does not load them either): {disabled}.\n")
    if project.modes:
        names = ", ".join(f"/{m}" for m in project.modes)
        parts.append(f"## Modes\n\nNot emitted: promptc writes no Codex command for {names}.\n")
    main = f" ({MAIN}: Codex's own session)"
    parts += translation_report.shared_section(translation.losses, places, main)
    return "\n".join(parts)


def _tools_summary(translation: CodexTranslation) -> str:
    tools = translation.tools
    shown = {
        "view_image": tools.view_image,
        "web_search": tools.web_search,
        "update_plan": tools.update_plan,
        "spawn_agent": tools.max_depth >= 2,
    }
    on = ", ".join(f"`{t}`" for t, kept in shown.items() if kept) or "none"
    off = ", ".join(f"`{t}`" for t, kept in shown.items() if not kept) or "none"
    return (
        "Every role runs in the workspace-write sandbox of the project (no network, not "
        f"`/tmp`) with `apply_patch`. Tools on for every role: {on}. Off for every role: {off}.\n"
    )


def _rules_summary(project: Project, translation: CodexTranslation) -> str:
    count = len(translation.rules)
    text = (
        f"{count} prefix rule{'' if count == 1 else 's'} in `{RULES_FILE}`. Codex's own main "
        "session stands for OpenCode's default agent, `build`"
    )
    if project.config.default_agent:
        text += f" (the config's default_agent, {project.config.default_agent}, is a role)"
    text += "."
    if translation.shell_off:
        text += " Its rules need a rule for every command, so no role has a shell."
    return text + "\n"

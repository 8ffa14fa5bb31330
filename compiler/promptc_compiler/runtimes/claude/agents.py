"""How an OpenCode agent and mode map onto Claude Code: names, models, colours,
overrides, the shell lines a command may run, and what a Claude file cannot
carry. The claude and claude-plugin targets write files from it; the rules
that report what a translation loses (lossy-translation, claude-name,
positional-arguments) read the same answers, so both always agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.body_syntax import shell_lines
from promptc_compiler.base.suggest import fold
from promptc_compiler.core.project import Project, Spec
from promptc_compiler.core.validate import opencode_agent_keys
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import Rule, evaluate
from promptc_compiler.runtimes.adapter import definitions
from promptc_compiler.runtimes.claude import permission_rules as claude_rules
from promptc_compiler.runtimes.claude.translate import Translation
from promptc_compiler.runtimes.model_map import mapped_model
from promptc_compiler.runtimes.translation import (
    MAIN,
    Subject,
    allows_every,
    flat_name,
    hits,
    spans,
)

NAME = "claude"
PLUGIN = "claude-plugin"
# The targets that emit Claude Code files.
TARGETS = (NAME, PLUGIN)

# Claude Code's agent colours, in the order its messages list them (the
# schemas' `color` enums say the same: tests/test_schema.py holds them to it),
# each with the RGB a hex colour is matched against.
_RGB = {
    "red": (255, 0, 0),
    "blue": (0, 0, 255),
    "green": (0, 128, 0),
    "yellow": (255, 255, 0),
    "purple": (128, 0, 128),
    "orange": (255, 165, 0),
    "pink": (255, 192, 203),
    "cyan": (0, 255, 255),
}
COLORS = tuple(_RGB)
THEME_COLORS = {
    "primary": "blue",
    "secondary": "purple",
    "accent": "pink",
    "success": "green",
    "warning": "yellow",
    "error": "red",
    "info": "cyan",
}
# The keys a spec's `targets.claude` may give an agent (the schema's claudeAgent
# checks their values): the agent file takes PASSED as written, and `model`,
# `color` and `maxTurns` from there before their OpenCode counterparts
# (`description` too, through Spec.view). REFUSED ones say what the agent may do,
# which promptc derives from `permission` alone, so they are ignored (reported).
PASSED = ("effort", "memory", "background", "isolation", "skills", "initialPrompt")
OVERRIDES = ("description", "model", "color", "maxTurns", *PASSED)
REFUSED = ("tools", "disallowedTools", "permissionMode", "hooks", "mcpServers", "name")
DROPPED = ("temperature", "top_p", "variant", "options", "hidden")
# Claude Code agent and command keys OpenCode does not know: a spec copied from a
# Claude Code file carries them (the cross-ecosystem rule reports them).
# The keys a spec's `targets.claude` may set (overrides.json: the package's adapter's).
DEFINITIONS = definitions(__file__)
COPIED_KEYS = tuple(
    key
    for definition in ("claudeAgent", "claudeCommand")
    for key in DEFINITIONS[definition]["properties"]
    if key not in opencode_agent_keys()
)
# By normalised spelling (so `allowed_tools` and `allowedTools` find `allowed-tools`).
_COPIED = {fold(key): key for key in COPIED_KEYS}
_OPENCODE_ONLY = (
    *DROPPED,
    *("description", "mode", "model", "color", "steps", "maxSteps", "permission", "tools"),
    *("disable", "prompt", "name"),
)


def claude_key(key: str) -> str | None:
    """The Claude Code key `key` spells, if it is one OpenCode does not know."""
    return _COPIED.get(fold(key))


def names(project: Project, plugin: str | None = None) -> dict[str, str]:
    """Agent id -> the name other Claude files refer to it by (`plugin:name` in a plugin)."""
    return {
        ident: f"{plugin}:{flat_name(ident)}" if plugin else flat_name(ident)
        for ident in project.agents
    }


def claude_override(spec: Spec) -> Mapping[str, Any]:
    """The spec's `targets.claude` override (empty when it has none)."""
    return spec.override(NAME)


def model_for(spec: Spec, models: Mapping[str, str]) -> tuple[str, str | None]:
    """(Claude model, note): the override, the mapped OpenCode model, or inherit."""
    model, note = mapped_model(
        spec, models, NAME, "Claude Code", "the Claude agent inherits the session's model"
    )
    return model or "inherit", note


def color_for(spec: Spec) -> tuple[str | None, str | None]:
    override = claude_override(spec).get("color")
    if isinstance(override, str):
        if override in COLORS:
            return override, None
        return None, f"`targets.claude.color: {override}` is not one of {', '.join(COLORS)}"
    color = spec.view("opencode").get("color")
    if not isinstance(color, str):
        return None, None
    if color in THEME_COLORS:
        return THEME_COLORS[color], None
    if re.fullmatch(r"#[0-9a-fA-F]{6}", color):
        return nearest_color(color), None
    return None, None


def nearest_color(hex_color: str) -> str:
    rgb = tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return min(COLORS, key=lambda n: sum((a - b) ** 2 for a, b in zip(rgb, _RGB[n], strict=True)))


def agent_notes(spec: Spec, models: Mapping[str, str]) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, message) for what the Claude agent file cannot carry."""
    _, note = model_for(spec, models)
    if note:
        yield ("model",), note
    _, note = color_for(spec)
    if note:
        yield ("targets", NAME, "color"), note
    for key in claude_override(spec):
        if key in REFUSED:
            yield (
                ("targets", NAME, key),
                f"`targets.claude.{key}` is ignored: promptc derives Claude Code's tools "
                "and permissions from `permission`, so they never grant more",
            )
    data = spec.view("opencode")
    for key in data:
        if key in DROPPED or key not in _OPENCODE_ONLY:
            yield (key,), f"`{key}` has no Claude Code equivalent; the Claude agent leaves it out"


def runner(spec: Spec, translation: Translation) -> Subject | None:
    """Who runs the mode's body: its agent, else the main thread."""
    agent = spec.meta.get("agent")
    if not any(s.name == agent for s in translation.subjects):
        agent = translation.main_agent or MAIN
    return next((s for s in translation.subjects if s.name == agent), None)


def forked_agent(spec: Spec, translation: Translation) -> str | None:
    agent = spec.meta.get("agent")
    if not isinstance(agent, str) or agent not in translation.tools:
        return None
    mode = translation.subject(agent).agent.mode
    if mode == "subagent" or (spec.meta.get("subtask") is True and mode != "primary"):
        return agent
    return None


def shell_commands(spec: Spec, translation: Translation) -> list[tuple[str, bool]]:
    """Each `` !`cmd` `` of the body, and whether Claude Code may run it unasked."""
    who = runner(spec, translation)
    found = []
    for cmd in shell_lines(spec.body):
        ok = (
            who is not None
            and "(" not in cmd
            and ")" not in cmd
            and evaluate(who.rules, "bash", cmd).action == "allow"
        )
        found.append((cmd, ok))
    return found


def command_grants(spec: Spec, translation: Translation) -> dict[str, str | None]:
    """Each rule of the mode's `targets.claude` `allowed-tools` (an imported
    command's own): None when Claude Code may keep it, else why not. Claude Code
    pre-approves it while the command runs, so it is kept only where OpenCode
    allows every call it names to whoever runs the mode."""
    written = claude_override(spec).get("allowed-tools")
    who = runner(spec, translation)
    patterns = wildcard.Patterns()
    grants: dict[str, str | None] = {}
    for rule in claude_rules.split_rules(written) if written else ():
        reach = claude_rules.pre_approved(rule)
        # a whole Read, Edit or Bash holds outside the project too
        outside = reach is not None and "(" not in rule and reach[0] in ("read", "edit", "bash")
        kept = (
            who is not None
            and reach is not None
            and all(_allows_all(patterns, who.rules, reach[0], p) for p in reach[1])
            and not (outside and not allows_every(patterns, who.rules, "external_directory", "*"))
        )
        name = "the main thread" if who is None or who.name == MAIN else f"`{who.name}`"
        grants[rule] = (
            None
            if kept
            else f"`{rule}` is left out of the command's `allowed-tools`: Claude Code "
            f"pre-approves it while the command runs, and OpenCode does not allow all of "
            f"it for {name}"
        )
    return grants


# Command lines Claude Code asks about whatever a rule pre-approves (a command
# substitution cannot be checked before it runs): OpenCode may ask them too.
_SUBSTITUTED = ("*$(*", "*`*")


def _allows_all(
    patterns: wildcard.Patterns, rules: tuple[Rule, ...], permission: str, pattern: str
) -> bool:
    """Whether OpenCode allows every input of `pattern` that Claude Code would run
    on a pre-approval alone (for `bash`, a line without a command substitution)."""
    if permission != "bash":
        return allows_every(patterns, rules, permission, pattern)
    return all(
        span.action == "allow"
        for span in spans(patterns, rules, permission)
        if hits(patterns, (pattern, span.pattern), (*span.later, *_SUBSTITUTED))
    )


def command_notes(
    spec: Spec, translation: Translation, models: Mapping[str, str]
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, or ("!", cmd) for a shell line of the body; message)."""
    agent = spec.meta.get("agent")
    if isinstance(agent, str) and not forked_agent(spec, translation):
        if agent not in translation.tools:
            yield (
                ("agent",),
                f"agent `{agent}` is not a Claude Code agent of this bundle; "
                "the main thread runs the command",
            )
        elif agent != translation.main_agent:
            yield (
                ("agent",),
                f"Claude Code runs the command in the current session: start it with "
                f"`claude --agent {flat_name(agent)}` (or make {agent} the default_agent) "
                f"to run it as {agent}",
            )
    model = spec.view("opencode").get("model")
    if isinstance(model, str) and model not in models and not claude_override(spec).get("model"):
        yield (
            ("model",),
            f"model `{model}` has no Claude Code counterpart in the `models` option; "
            "the command uses the session's model",
        )
    for why in command_grants(spec, translation).values():
        if why is not None:
            yield ("targets", NAME, "allowed-tools"), why
    for cmd, ok in shell_commands(spec, translation):
        if not ok:
            yield (
                ("!", cmd),
                (
                    f"`!`{cmd}`` is not pre-approved in Claude Code: the agent running the "
                    "mode may not run it without asking in OpenCode"
                ),
            )


def plugin_name(project: Project, options: Mapping[str, Any]) -> str:
    """The plugin's name: the `name` option, else the bundle folder's words."""
    configured = options.get("name")
    if isinstance(configured, str):
        return configured
    words = re.findall(r"[a-z0-9]+", project.config.root.name.lower())
    name = "-".join(words) or "bundle"
    return f"promptc-{name}" if reserved(name) else name


_RESERVED = {"claude", "anthropic", "anthropics", "claude-code", "claude-mods"}
_RESERVED_PREFIXES = ("claude-", "anthropic-", "anthropics-", "cc-plugin-")


def reserved(name: str) -> bool:
    """Names `claude plugin validate` refuses as passing for Anthropic's own plugins."""
    words = name.split("-")
    official = "official" in words and ("claude" in words or "anthropic" in words)
    return name in _RESERVED or name.startswith(_RESERVED_PREFIXES) or official

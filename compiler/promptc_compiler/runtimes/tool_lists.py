"""Per-agent tool lists for Copilot CLI and Gemini CLI, and the rules beside them.

A Copilot custom agent (@github/copilot 1.0.102) and a Gemini subagent
(@google/gemini-cli 0.61.0) each have a `tools` list, and each runtime decides
every call of a tool by rules promptc writes beside the agent: Copilot runs
the agent file's own preToolUse hook (promptc_compiler.runtimes.copilot.hooks), Gemini the
policy rules that name the subagent (promptc_compiler.runtimes.gemini.policy). So a tool is
kept wherever OpenCode lets the agent make some of its calls (`scoped`), and
those rules decide each call as OpenCode does, or narrower. A Gemini tool
with no argument the rules can see (`asking`) is kept only where OpenCode
denies none of its calls: it then asks, or runs where OpenCode allows it
wholly. An agent's rules are the ones promptc_compiler.runtimes.translation decides with (a
subagent's with the task tool's `task` and `todowrite` denies), cut into
spans the same way (translation.spans).

    Copilot alias   OpenCode permissions    Gemini tool                      OpenCode permission
    read            read and list           read_file, read_many_files       read
    search          grep and glob           list_directory                   list
    edit            edit                    glob / grep_search               glob / grep
    execute         bash                    replace, write_file              edit
    agent           task                    run_shell_command                bash
    web             webfetch and websearch  web_fetch / google_web_search    webfetch / websearch
    skill           skill                   write_todos / ask_user           todowrite / question
                                            activate_skill                   skill

Copilot gives an agent run as its main session `skill` and `sql` (its session
store, where its todo list lives) whatever `tools` says; the hook decides
those calls too. Gemini subagents start no subagents, so `task` has no Gemini
tool, and a primary agent (which OpenCode never starts as a subagent) is not
written for Gemini at all. Both runtimes' main session may start any custom
agent, as OpenCode's default agent `build` may: a subagent `build` may not
start is hidden from Copilot's `task` (`infer: false`) and not written for
Gemini.

Both read skills (`.github/skills/`, the extension's `skills/`). Copilot
runs the tools a skill's `allowed-tools` names without asking, for any agent
that loads it, where OpenCode grants nothing through a skill: the key is left
out of Copilot's SKILL.md (reported).

Every rule this costs is a translation.Loss, one message per agent and rule; the
targets write them to TRANSLATION.md and the lossy-translation rule reports
them at the spec's line.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from promptc_compiler.base.body_syntax import positionals, shell_lines
from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.project import Project, Skill, Spec
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import KNOWN_KEYS, Rule, evaluate
from promptc_compiler.permissions.runtime import Agent
from promptc_compiler.permissions.runtime import Runtime as Agents
from promptc_compiler.runtimes.model_map import mapped_model
from promptc_compiler.runtimes.translation import (
    Loss,
    Notes,
    Subject,
    Translator,
    flat_name,
    join_names,
    loss_problems,
    note_problems,
    spans,
    subjects,
)
from promptc_compiler.runtimes.translations import Translated


@dataclass(frozen=True)
class Runtime:
    target: str  # the promptc target name
    label: str  # the runtime's name in messages
    tools: tuple[tuple[str, tuple[str, ...]], ...]  # runtime tool -> OpenCode permissions
    fixed: tuple[tuple[str, str], ...]  # tools every agent has -> the permission they act under
    primaries: bool  # whether a primary agent is written
    folders: str  # what the runtime does with paths outside the project, for every agent
    dropped: tuple[str, ...]  # OpenCode agent keys the runtime's agent file cannot carry
    # Keys of a spec's `targets.<target>` the agent file takes as written (the
    # schema checks them; none says what the agent may do).
    overrides: tuple[str, ...]
    # Those of them an import writes as OpenCode's own keys (`description`;
    # Gemini's `max_turns` as `steps`), not under `targets.<target>`.
    opencode_keys: tuple[str, ...]
    skills: str  # the folder (relative to the output) the runtime reads skills from
    # SKILL.md keys the runtime reads as a grant (OpenCode grants nothing through a skill).
    skill_grants: tuple[str, ...]
    # Tools whose calls the runtime decides input by input from rules promptc
    # writes (Gemini's policy rules): kept unless OpenCode denies them wholly.
    scoped: tuple[str, ...] = ()
    # Tools the runtime can make ask for every call of one agent (a rule, or its
    # own default): kept, asking, wherever OpenCode denies none of their calls.
    asking: tuple[str, ...] = ()
    # Tools every agent the main session runs has whatever `tools` says (fixed
    # applies to every agent when False).
    fixed_main_only: bool = False
    # Whether it reads commands (modes) from what promptc writes.
    commands: bool = True
    # TRANSLATION.md's note on an agent written but hidden from the main session's
    # delegation (Plan.hidden), `{ident}` standing for the agent.
    hidden: str = ""
    # What an agent file cannot carry of the spec's own `targets.<target>` keys.
    override_notes: Callable[[Spec, Plan], Notes] | None = None

    @functools.cached_property
    def planner(self) -> Translator[Plan]:
        """How the runtime plans a bundle's tools: one Translator, so that a run's
        Translations works the plan out once (see plan)."""
        return Translator(functools.partial(_plan, runtime=self))

    @property
    def permissions(self) -> tuple[str, ...]:
        found = [p for _, perms in self.tools for p in perms] + [p for _, p in self.fixed]
        return tuple(dict.fromkeys(found))


# OpenCode agent keys neither runtime's agent file carries.
DROPPED = ("temperature", "top_p", "variant", "options", "color", "hidden")
# OpenCode permissions that no tool asks for: their losses are told apart.
_NOT_TOOLS = ("external_directory", "doom_loop")
# OpenCode agent keys that every runtime's file carries in its own way.
_CARRIED = ("description", "mode", "model", "permission", "tools", "disable", "prompt", "name")


class Plan(NamedTuple):
    """One runtime's reading of a bundle: what each written agent keeps and loses."""

    tools: Mapping[str, tuple[str, ...]]  # agent id -> runtime tools, for every agent written
    hidden: tuple[str, ...]  # written agents the main session may not start (Copilot)
    losses: tuple[Loss, ...]
    left_out: Mapping[str, str]  # agent id -> why it is not written
    agents: Mapping[str, Agent]  # every agent OpenCode loads, by id (the bundle's and its own)


class _Verdict(NamedTuple):
    """One permission in one rule list: allowed for every input, denied for every
    input, or neither; and the indexes of the rules behind each kind of region."""

    action: str  # allow | deny | part
    granting: tuple[int, ...]  # rules deciding an allowed or asked region
    withholding: tuple[int, ...]  # rules deciding a denied or asked region
    asks_only: bool  # every region asks
    denies: bool  # some region is denied


def _plan(project: Project, opencode: Agents, runtime: Runtime) -> Plan:
    found, patterns = subjects(project, opencode)
    agents = opencode.agents
    # OpenCode's tools (and the bundle's own) the runtime has no counterpart for.
    lacking = tuple(
        p
        for p in (*KNOWN_KEYS, *project.config.custom_tools)
        if p not in runtime.permissions and p not in _NOT_TOOLS
    )
    build = agents.get("build")
    # Agents repeat their permission maps: one verdict per distinct list of rules.
    verdicts: dict[tuple[tuple[str, str, str], ...], dict[str, _Verdict]] = {}
    tools: dict[str, tuple[str, ...]] = {}
    hidden: list[str] = []
    left_out: dict[str, str] = {}
    notes: dict[tuple[str, Rule], list[str]] = {}
    for subject in found:
        if not subject.removable:
            continue
        name = subject.name
        primary = subject.agent.mode == "primary"
        started = primary or build is None or evaluate(build.rules, "task", name).action == "allow"
        if primary and not runtime.primaries:
            left_out[name] = (
                f"a primary agent: {runtime.label} has no primary agents, and its main "
                "session would start it as a subagent, which OpenCode never does"
            )
            continue
        if not started and not runtime.primaries:
            left_out[name] = (
                f"{runtime.label}'s main session may start any agent, and OpenCode's "
                f"default agent `build` may not start {name} without asking"
            )
            continue
        if not started:
            hidden.append(name)
        shape = tuple((r.permission, r.pattern, r.action) for r in subject.rules)
        judged = verdicts.get(shape)
        if judged is None:
            judged = verdicts[shape] = {
                p: _verdict(patterns, subject.rules, p) for p in (*runtime.permissions, *lacking)
            }
        tools[name] = tuple(
            tool for tool, perms in runtime.tools if _keeps(runtime, tool, perms, judged)
        )
        for rule, message in _losses(runtime, subject, judged, tools[name], lacking):
            notes.setdefault((name, rule), []).append(message)
    return Plan(tools, tuple(hidden), Loss.gather(notes), left_out, agents)


def plan(project: Translated, runtime: Runtime) -> Plan:
    """The runtime's plan for the bundle: the run works it out once."""
    return project.translations.of(runtime.planner)


def _keeps(
    runtime: Runtime, tool: str, perms: tuple[str, ...], judged: Mapping[str, _Verdict]
) -> bool:
    """Whether the agent keeps the tool: OpenCode allows everything it does; or
    the runtime decides its calls one by one (scoped) and OpenCode allows or
    asks some; or the runtime can ask before each call and OpenCode denies none."""
    verdicts = [judged[p] for p in perms]
    if all(v.action == "allow" for v in verdicts):
        return True
    if tool in runtime.scoped:
        return not all(v.action == "deny" for v in verdicts)
    return tool in runtime.asking and not any(v.denies for v in verdicts)


def _verdict(patterns: wildcard.Patterns, rules: tuple[Rule, ...], permission: str) -> _Verdict:
    found = spans(patterns, rules, permission)
    actions = {span.action for span in found}
    action = "allow" if actions == {"allow"} else "deny" if actions == {"deny"} else "part"
    granting = tuple(s.at for s in found if s.action != "deny" and s.at is not None)
    withholding = tuple(s.at for s in found if s.action != "allow" and s.at is not None)
    return _Verdict(action, granting, withholding, actions == {"ask"}, "deny" in actions)


def _losses(
    runtime: Runtime,
    subject: Subject,
    judged: Mapping[str, _Verdict],
    kept: tuple[str, ...],
    lacking: tuple[str, ...],
) -> Iterator[tuple[Rule, str]]:
    rules = subject.rules
    # Tools left out: every rule that allowed or asked for part of what they do.
    groups: dict[tuple[str, ...], list[str]] = {}
    for tool, perms in runtime.tools:
        if tool not in kept:
            groups.setdefault(perms, []).append(tool)
    for perms, names in groups.items():
        if all(judged[p].action == "deny" for p in perms):
            continue  # denied wholly: nothing is lost
        why = _why(runtime, perms, judged)
        quoted = join_names([f"`{name}`" for name in names])
        message = f"{quoted}: lost, left out of {subject.name}'s tools: {why}"
        for permission in perms:
            for at in judged[permission].granting:
                yield rules[at], message
    for tool, perms in runtime.tools:
        if (
            tool in kept
            and tool in runtime.asking
            and any(judged[p].action != "allow" for p in perms)
        ):
            message = (
                f"`{tool}`: narrowed to ask: {runtime.label} can only ask before every `{tool}` "
                f"call of {subject.name}, not allow part of them"
            )
            for permission in perms:
                for at in judged[permission].granting:
                    if rules[at].action == "allow":
                        yield rules[at], message
    main = subject.agent.mode != "subagent"
    for tool, permission in runtime.fixed if main or not runtime.fixed_main_only else ():
        if tool in runtime.scoped:
            continue  # decided call by call, as OpenCode decides it
        message = (
            f"`{tool}`: not kept, {runtime.label} gives every agent its `{tool}` tool "
            f"and `tools` cannot take it away, so {subject.name} may use it for any input"
        )
        for at in judged[permission].withholding:
            yield rules[at], message
    for permission in lacking:
        if permission == "task":
            message = f"lost: {runtime.label} subagents start no subagents"
        else:
            message = f"lost: {runtime.label} gives {subject.name} no `{permission}` tool"
        for at in judged[permission].granting:
            yield rules[at], message
    for rule in subject.agent.rules:
        if rule.kind in ("agent", "config") and rule.permission not in lacking:
            unmapped = _unmapped(runtime, subject, rule, kept)
            if unmapped:
                yield rule, unmapped


def _why(runtime: Runtime, perms: tuple[str, ...], judged: Mapping[str, _Verdict]) -> str:
    # The tools were left out: one of their permissions is not allowed wholly.
    permission = next(p for p in perms if judged[p].action != "allow")
    if judged[permission].action == "deny":
        return f"`{permission}` is denied, and the tool also does what `{permission}` decides"
    if judged[permission].asks_only:
        return f"OpenCode asks before every `{permission}` call; {runtime.label} cannot ask"
    return f"{runtime.label} cannot allow only part of `{permission}` for one agent, nor ask for it"


def _unmapped(runtime: Runtime, subject: Subject, rule: Rule, kept: tuple[str, ...]) -> str | None:
    """The loss of a rule whose permission no tool of the runtime acts under."""
    key = rule.permission
    if key in runtime.permissions or key == "*":
        return None
    if key == "external_directory":
        shell = "run_shell_command" in kept
        if rule.action == "allow":
            return f"narrowed: {runtime.label} {runtime.folders}"
        if rule.action == "deny" and shell:
            return f"not kept: {runtime.label} has no per-agent folder rules; it {runtime.folders}"
        return None
    if key == "doom_loop":
        if rule.action == "allow":
            return None
        return f"not kept: {runtime.label} never stops a repeated identical tool call to ask"
    if rule.action == "deny":
        return None
    return f"lost: {runtime.label} gives {subject.name} no `{key}` tool"


# --- keys, models and modes -------------------------------------------------------------------


def model_for(
    spec: Spec, models: Mapping[str, str], runtime: Runtime
) -> tuple[str | None, str | None]:
    """(the runtime's model, note): the OpenCode model through the `models` option;
    None (the runtime's own default) when the spec names no model or an unmapped one."""
    fallback = "the agent runs with the session's model"
    return mapped_model(spec, models, runtime.target, runtime.label, fallback)


def overridden(spec: Spec, runtime: Runtime) -> dict[str, Any]:
    """The keys of the spec's `targets.<target>` that the agent file takes as written."""
    override = spec.override(runtime.target)
    return {key: override[key] for key in runtime.overrides if key in override}


def description_for(spec: Spec, runtime: Runtime) -> str:
    """The agent's description: `targets.<target>.description`, else the spec's."""
    value = overridden(spec, runtime).get("description")
    if not isinstance(value, str) or not value:  # the schema reports an empty one
        value = spec.view(SOURCE).get("description")
    return value if isinstance(value, str) else ""


def offered(found: Plan, ident: str) -> bool:
    """Whether OpenCode may start the agent as a subagent from its default agent
    `build`: a primary never is, nor one `build` may not start without asking."""
    agent = found.agents[ident]
    return agent.mode != "primary" and not agent.hidden and ident not in found.hidden


def agent_notes(
    spec: Spec, runtime: Runtime, models: Mapping[str, str], found: Plan
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, message) for what the runtime's agent file cannot carry."""
    why_left_out = found.left_out.get(spec.id)
    if why_left_out is not None:
        yield ("mode",), f"not written for {runtime.label}: {why_left_out}"
        return
    _, note = model_for(spec, models, runtime)
    if note:
        yield ("model",), note
    for key in spec.view(SOURCE):
        if key in runtime.dropped or key not in (*_CARRIED, *DROPPED, "steps", "maxSteps"):
            yield (key,), f"`{key}` has no {runtime.label} equivalent; the agent leaves it out"
    if runtime.override_notes is not None:
        yield from runtime.override_notes(spec, found)


def skill_notes(skill: Skill, runtime: Runtime) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, message) for what the runtime's SKILL.md leaves out."""
    for key in runtime.skill_grants:
        if key in skill.spec.meta:
            yield (
                (key,),
                f"`{key}` is left out of the {runtime.label} skill: {runtime.label} would let "
                "any agent that loads the skill use those tools without asking, and OpenCode "
                "grants nothing through a skill",
            )


def mode_runner(spec: Spec, agents: Mapping[str, Agent]) -> Agent | None:
    """Who runs a mode's shell lines in OpenCode: its agent, else `build`."""
    agent = spec.meta.get("agent")
    found = agents.get(agent) if isinstance(agent, str) else None
    return found or agents.get("build")


def runnable(runner: Agent | None, command: str) -> bool:
    """A mode's `` !`command` `` becomes Gemini's `!{command}`: only when the agent
    running the mode may run it without asking in OpenCode (and no brace would
    end Gemini's form early)."""
    if runner is None or "{" in command or "}" in command:
        return False
    return evaluate(runner.rules, "bash", command).action == "allow"


def mode_notes(
    spec: Spec, runtime: Runtime, agents: Mapping[str, Agent]
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, ("!", cmd) for a shell line of the body or ("$", "1") for
    a positional argument in it; message)."""
    if not runtime.commands:
        yield (), f"not translated: {runtime.label} reads no command files from a project"
        return
    agent = spec.meta.get("agent")
    if isinstance(agent, str):
        yield ("agent",), f"{runtime.label} runs the command in its main session, not as {agent}"
    for key in ("model", "subtask"):
        if key in spec.meta:
            yield (key,), f"`{key}` has no {runtime.label} command equivalent; it is left out"
    runner = mode_runner(spec, agents)
    for cmd in shell_lines(spec.body):
        if not runnable(runner, cmd):
            yield (
                ("!", cmd),
                f"`!`{cmd}`` stays text in {runtime.label}: the agent running the mode may "
                "not run it without asking in OpenCode",
            )
    for number in positionals(spec.body):
        yield (
            ("$", number),
            f"`${number}` stays text in {runtime.label}: a command takes its arguments whole, "
            "as `{{args}}` (`$ARGUMENTS`), with no positional ones",
        )


# --- what the lint reports --------------------------------------------------------------------


def losses(project: Translated, runtime: Runtime) -> Iterator[Problem]:
    """The lossy-translation rule's findings for the runtime: each rule its plan
    loses, once, then what an agent, mode or skill file cannot carry."""
    models = dict(project.config.targets.get(runtime.target, {}).get("models", {}))
    found = plan(project, runtime)
    yield from loss_problems(found.losses, runtime.label)
    for ident in (*found.tools, *found.left_out):
        spec = project.agents[ident]
        yield from note_problems(spec, agent_notes(spec, runtime, models, found))
    for spec in project.modes.values():
        yield from note_problems(spec, mode_notes(spec, runtime, found.agents))
    for skill in project.skills.values():
        yield from note_problems(skill.spec, skill_notes(skill, runtime))


class Limits:
    """The runtime-limits rule's session for the runtime: two agents it writes, or
    two modes, that take one name (`team/reviewer` and `team-reviewer`), so that
    one file would overwrite the other; and the runtime's own `checks` of each
    agent it writes (True) and each mode (False)."""

    def __init__(
        self,
        project: Translated,
        runtime: Runtime,
        checks: Callable[[Spec, bool], Iterable[Problem]],
    ) -> None:
        self.project = project
        self.runtime = runtime
        self.checks = checks
        self.written = set(plan(project, runtime).tools)
        self.names: dict[tuple[str, str], str] = {}  # (kind, name) -> the first id

    def spec(self, spec: Spec) -> Iterator[Problem]:
        agent = spec.id in self.project.agents and self.project.agents[spec.id] is spec
        if agent and spec.id not in self.written:
            return
        yield from self.checks(spec, agent)
        kind, name = "agent" if agent else "command", flat_name(spec.id)
        first = self.names.setdefault((kind, name), spec.id)
        if first != spec.id:
            yield Problem(
                1,
                1,
                f"{kind} '{spec.id}' and '{first}' are both named '{name}' in "
                f"{self.runtime.label}; rename one",
                path=spec.source.path,
            )

    def end(self) -> Iterator[Problem]:
        return iter(())

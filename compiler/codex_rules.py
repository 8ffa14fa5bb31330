"""Codex CLI (@openai/codex 0.171.0): OpenCode's bash rules as Codex command rules, never wider.

Codex decides a command the same way whoever runs it: the project's
`.codex/rules/*.rules` hold `prefix_rule`s, a rule matches a command whose
words start with its pattern's words, and the strictest matching decision
wins (forbidden > prompt > allow). A command no rule matches runs in Codex's
sandbox without asking (approval `on-request`, the only policy 0.171 has
that asks at all). What Codex has per role is the shell tool itself: a role
file's `[features] shell_tool = false` takes `exec_command` away from the
spawned role; its `sandbox_mode` is not applied (a spawned role runs in its
parent's sandbox). So promptc uses this decision model, for an agent A and a
command of plain words c:

    A's role has no shell tool              -> deny
    a forbidden rule's words start c        -> deny
    a prompt rule's words start c           -> ask
    otherwise (an allow rule, or no rule)   -> allow

and requires it never above OpenCode's decision for A's rules and the command
as text (deny < ask < allow). Who runs commands: every agent OpenCode loads,
as a role, and Codex's own main session, which stands for OpenCode's default
agent `build` (Codex has no setting that starts a session as a role).

How the rules are chosen, from each agent's regions (compiler.translate.spans):

- A region that denies or asks becomes a forbidden or prompt rule over the
  words every command it holds starts with: exact when the pattern's text
  ends at a whole word (`git push *`, `sudo *`, `rm -rf`), wider otherwise
  (`git push*` holds `git pushx` too, so its rule is `["git"]`).
- A region no prefix rule can hold (it does not start with a whole word:
  `"*": ask`, `*.sh`) would need a rule for every command: the agent's role
  gets no shell instead, and its allows and asks are reported lost. The main
  session's shell can only go for everyone (`.codex/config.toml`).
- An allow becomes an allow rule when its pattern holds every command that
  starts with its words (`git status*`, `ls *`); a literal (`zig build`)
  has none and runs in the sandbox. An allow never decides a command another
  rule forbids or prompts for, so no holder of the shell gets more from it.

A plain word is one Codex reads back as itself (shlex leaves it unquoted, no
`=`): commands with quotes, variables, redirections or globs are never held
against rules by Codex, which runs them in its sandbox, so the model speaks
of plain commands only. Whatever cannot be kept is a translate.Loss, one per
OpenCode rule and agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compiler import wildcard
from compiler.model_map import mapped_model
from compiler.permissions import Rule
from compiler.project import Project, Spec
from compiler.runtime import Agent, resolve
from compiler.translate import ENVIRONMENT, MAIN, Loss, Source, Span, Subject, hits, spans

NAME = "codex"
PLAIN = re.compile(r"[A-Za-z0-9_@%+:,./-]+")
STRICTNESS = {"allow": 0, "prompt": 1, "forbidden": 2}
DECISION = {"deny": "forbidden", "ask": "prompt", "allow": "allow"}
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")
# OpenCode keys a Codex role has no place for.
DROPPED = ("temperature", "top_p", "steps", "maxSteps", "color", "hidden", "options")


@dataclass(frozen=True)
class PrefixRule:
    words: tuple[str, ...]
    decision: str  # allow | prompt | forbidden
    sources: tuple[Source, ...]  # the agents and OpenCode rules it stands for
    patterns: tuple[str, ...]  # their OpenCode patterns, for the examples

    def matches(self, command: Sequence[str]) -> bool:
        return tuple(command[: len(self.words)]) == self.words


@dataclass(frozen=True)
class CodexTranslation:
    subjects: tuple[Subject, ...]
    shell: Mapping[str, bool]  # agent id -> its role keeps exec_command
    shell_off: bool  # the main session's rules need every command: no shell for anyone
    rules: tuple[PrefixRule, ...]  # strictest first, then by words
    losses: tuple[Loss, ...]
    read_only: frozenset[str]  # agents whose every edit OpenCode denies

    def agent(self, name: str) -> Agent:
        return next(s.agent for s in self.subjects if s.name == name)


def cover_words(patterns: wildcard.Patterns, pattern: str) -> tuple[str, ...] | None:
    """The most words every plain command the pattern matches starts with (None: none)."""
    words = _head_words(pattern)
    for size in range(len(words), 0, -1):
        if patterns.covers(" ".join(words[:size]) + " *", pattern):
            return words[:size]
    return None


def inside_words(patterns: wildcard.Patterns, pattern: str) -> tuple[str, ...] | None:
    """Words such that every command starting with them matches the pattern (None: none)."""
    words = _head_words(pattern, partial=True)
    if words and patterns.covers(pattern, " ".join(words) + " *"):
        return words
    return None


def _head_words(pattern: str, partial: bool = False) -> tuple[str, ...]:
    """The plain words before the pattern's first wildcard; the last one only when
    a space ends it (or with `partial`, as a command's word may be longer)."""
    head = wildcard.head(pattern)
    whole = head == pattern or pattern == head + " *" or head.endswith(" ")
    found: list[str] = []
    parts = head.split(" ")
    for index, word in enumerate(parts):
        last = index == len(parts) - 1
        if not PLAIN.fullmatch(word) or (last and not whole and not partial):
            break
        found.append(word)
    return tuple(found)


def subjects(project: Project) -> tuple[tuple[Subject, ...], wildcard.Patterns]:
    """Every agent OpenCode loads, then the main session (OpenCode's `build`)."""
    runtime = resolve(project, ENVIRONMENT)
    found = [Subject(a.name, a, a.effective(a.mode != "primary")) for a in runtime.bundle_agents()]
    build = runtime.agents.get("build") or Agent("build", "primary", ())
    found.append(Subject(MAIN, build, build.rules, removable=False))
    return tuple(found), runtime.patterns


def translate(project: Project) -> CodexTranslation:
    """The Codex roles' shells and the project's command rules, once per bundle."""
    return project.once("codex-translation", _translate)


def _translate(project: Project) -> CodexTranslation:
    people, patterns = subjects(project)
    return _Planner(people, patterns, set(project.config.custom_tools)).run()


@dataclass
class _Plan:
    """One bash rule list's regions and the prefix rules they need (shared by every
    subject whose list has the same bash-relevant rules)."""

    spans: tuple[Span, ...]
    stops: list[tuple[Span, tuple[str, ...]]] = field(default_factory=list)
    blocking: Span | None = None  # the first region no prefix rule can hold

    @property
    def denies_all(self) -> bool:
        return all(s.action == "deny" for s in self.spans)


class _Planner:
    def __init__(
        self, people: tuple[Subject, ...], patterns: wildcard.Patterns, custom: set[str]
    ) -> None:
        self.people = people
        self.patterns = patterns
        self.custom = custom
        self.plans: dict[tuple[tuple[str, str, str], ...], _Plan] = {}
        self.notes: dict[tuple[str, Rule], list[str]] = {}

    def plan(self, subject: Subject) -> _Plan:
        bash = wildcard.normal("bash")
        key = tuple((r.permission, r.pattern, r.action) for r in subject.rules if r.names(bash))
        found = self.plans.get(key)
        if found is None:
            found = self.plans[key] = _Plan(spans(self.patterns, subject.rules, "bash"))
            for span in found.spans:
                if span.action == "allow":
                    continue
                words = cover_words(self.patterns, span.pattern)
                if words is None:
                    found.blocking = found.blocking or span
                else:
                    found.stops.append((span, words))
        return found

    def run(self) -> CodexTranslation:
        plans = {s.name: self.plan(s) for s in self.people}
        main = next(s for s in self.people if not s.removable)
        shell_off = plans[main.name].blocking is not None
        shell = {
            s.name: not shell_off and p.blocking is None and not p.denies_all
            for s, p in zip(self.people, plans.values(), strict=True)
            if s.removable
        }
        holders = [s for s in self.people if not shell_off and shell.get(s.name, True)]
        stops = self._stops(holders, plans)
        allows = self._allows(holders, plans, stops)
        for subject in self.people:
            plan = plans[subject.name]
            if shell_off:
                self._off(subject, plan, main, plans[main.name].blocking)
            elif shell.get(subject.name, True):
                self._narrowed(subject, plan, stops)
            else:
                self._left_out(subject, plan)
            if subject.removable:
                self._other_permissions(subject)
        read_only = frozenset(
            s.name
            for s in self.people
            if s.removable
            and all(x.action == "deny" for x in spans(self.patterns, s.rules, "edit"))
        )
        losses = Loss.gather(self.notes)
        return CodexTranslation(self.people, shell, shell_off, (*stops, *allows), losses, read_only)

    def _note(self, subject: Subject, rule: Rule, message: str) -> None:
        self.notes.setdefault((subject.name, rule), []).append(message)

    def _note_granting(self, subject: Subject, plan: _Plan, message: str) -> None:
        """Note `message` at every rule that allows or asks for some command."""
        for span in plan.spans:
            if span.action != "deny" and span.at is not None:
                self._note(subject, subject.rules[span.at], message)

    def _stops(self, holders: list[Subject], plans: Mapping[str, _Plan]) -> list[PrefixRule]:
        """One forbidden or prompt rule per words, the strictest any holder needs."""
        found: dict[tuple[str, ...], tuple[str, list[Source], list[str]]] = {}
        for subject in holders:
            for span, words in plans[subject.name].stops:
                decision = DECISION[span.action]
                rule = None if span.at is None else subject.rules[span.at]
                old = found.get(words)
                if old is None or STRICTNESS[decision] > STRICTNESS[old[0]]:
                    old = found[words] = (decision, [], [])
                if old[0] == decision:
                    old[1].append(Source(subject.name, rule))
                    old[2].append(span.pattern)
        rules = [
            PrefixRule(w, d, tuple(src), tuple(dict.fromkeys(pats)))
            for w, (d, src, pats) in found.items()
            if not _shadowed(w, d, found)
        ]
        return sorted(rules, key=lambda r: (-STRICTNESS[r.decision], r.words))

    def _allows(
        self, holders: list[Subject], plans: Mapping[str, _Plan], stops: list[PrefixRule]
    ) -> list[PrefixRule]:
        found: dict[tuple[str, ...], tuple[list[Source], list[str]]] = {}
        for subject in holders:
            for span in plans[subject.name].spans:
                if span.action != "allow" or span.at is None:
                    continue
                words = inside_words(self.patterns, span.pattern)
                if words is None or any(words[: len(s.words)] == s.words for s in stops):
                    continue  # no exact form, or a stricter rule decides it anyway
                entry = found.setdefault(words, ([], []))
                entry[0].append(Source(subject.name, subject.rules[span.at]))
                entry[1].append(span.pattern)
        rules = [
            PrefixRule(w, "allow", tuple(src), tuple(dict.fromkeys(pats)))
            for w, (src, pats) in found.items()
            if not any(w[:size] in found for size in range(1, len(w)))
        ]
        return sorted(rules, key=lambda r: r.words)

    # --- what each agent loses ------------------------------------------------------------

    def _off(self, subject: Subject, plan: _Plan, main: Subject, block: Span | None) -> None:
        message = (
            "exec_command: lost, Codex's shell is off for every role and the main "
            "session: the main session's rules (OpenCode's `build`) ask or deny where "
            f"no prefix rule can say it{_written(main, block)}"
        )
        self._note_granting(subject, plan, message)

    def _left_out(self, subject: Subject, plan: _Plan) -> None:
        block = plan.blocking
        why = "deny" if block is not None and block.action == "deny" else "ask for"
        message = (
            f"exec_command: lost, left out of {subject.name}'s tools: Codex runs a command "
            f"no rule names without asking, so it cannot {why} only part of `bash` for one "
            f"role{_written(subject, block)}"
        )
        self._note_granting(subject, plan, message)

    def _narrowed(self, subject: Subject, plan: _Plan, stops: list[PrefixRule]) -> None:
        for span in plan.spans:
            if span.action == "deny" or span.at is None:
                continue
            rule = subject.rules[span.at]
            for stop in stops:
                if stop.decision == "prompt" and span.action == "ask":
                    continue
                if hits(self.patterns, (span.pattern, " ".join(stop.words) + " *"), span.later):
                    forbidden = stop.decision == "forbidden"
                    verb, says = ("deny", "forbid") if forbidden else ("ask", "prompt for")
                    self._note(
                        subject,
                        rule,
                        f"narrowed to {verb}: the project-wide rules {says} "
                        f"`{' '.join(stop.words)}` (for {_writers(stop, subject.name)}), and "
                        "Codex's command rules apply to every role",
                    )
            exact = self.patterns.universal(span.pattern) or inside_words(
                self.patterns, span.pattern
            )
            if span.action == "allow" and not exact:
                self._note(
                    subject,
                    rule,
                    f"runs in Codex's sandbox: no prefix rule holds exactly `{span.pattern}`",
                )

    def _other_permissions(self, subject: Subject) -> None:
        """Rules of permissions a Codex role cannot hold per role."""
        for rule in subject.agent.rules:
            if rule.origin.kind not in ("agent", "config"):
                continue
            message = _other_message(rule, self.custom)
            if message is not None:
                self._note(subject, rule, message)


def _shadowed(
    words: tuple[str, ...], decision: str, found: Mapping[tuple[str, ...], tuple[str, Any, Any]]
) -> bool:
    """A shorter rule at least as strict matches every command this one does."""
    for size in range(1, len(words)):
        shorter = found.get(words[:size])
        if shorter is not None and STRICTNESS[shorter[0]] >= STRICTNESS[decision]:
            return True
    return False


def _written(subject: Subject, block: Span | None) -> str:
    if block is None or block.at is None:
        return ""
    return f" (`{subject.rules[block.at].text()}`)"


def _writers(stop: PrefixRule, me: str) -> str:
    names = list(dict.fromkeys(s.subject for s in stop.sources))
    shown = [f"its own `{s.rule.text()}`" for s in stop.sources if s.subject == me and s.rule]
    shown += [n for n in names if n != me]
    if len(shown) > 4:
        shown = [*shown[:3], f"{len(shown) - 3} more"]
    return ", ".join(dict.fromkeys(shown))


_OTHER = {
    "edit": "not kept: Codex gives every role apply_patch, and 0.171 runs a spawned role in its "
    "parent's sandbox (a `sandbox_mode` in the role file is written but not applied)",
    "task": "not kept: any Codex role may start any role (spawn_agent lists them all)",
}


def _other_message(rule: Rule, custom: set[str]) -> str | None:
    key = rule.permission
    if key in ("bash", "*"):
        return None
    if rule.action != "allow":
        return _OTHER.get(key, f"not kept: Codex has no per-role `{key}` rule")
    if key in custom or key.startswith("mcp") or "*" in key:
        return f"lost: Codex gives the role no `{key}` tool"
    return None


# --- the role file's other keys -----------------------------------------------------------


def model_for(spec: Spec, models: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(Codex model or None to inherit the session's, note): through the `models` option."""
    return mapped_model(spec, models, NAME, "Codex", "the role runs on the session's model")


def description_for(spec: Spec) -> str:
    """The role's description: `targets.codex.description`, else the spec's."""
    override = spec.override(NAME).get("description")
    if isinstance(override, str) and override.strip():
        return override
    return str(spec.view("opencode").get("description", ""))


def nicknames_for(spec: Spec) -> list[str]:
    """`targets.codex.nickname_candidates`, when it is a list of names (the schema says so)."""
    names = spec.override(NAME).get("nickname_candidates")
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        return names
    return []


def effort_for(spec: Spec) -> tuple[str | None, str | None]:
    """The reasoning effort the spec asks for (`targets.codex.model_reasoning_effort`,
    else OpenCode's `options.reasoningEffort`, else a `variant` named after an
    effort), and a note when Codex has no such effort."""
    override = spec.override(NAME).get("model_reasoning_effort")
    if override is not None:  # the schema checks it: a wrong one is an error there
        return (override if override in EFFORTS else None), None
    data = spec.view("opencode")
    options = data.get("options")
    asked = options.get("reasoningEffort") if isinstance(options, Mapping) else None
    if asked is None:
        asked = data.get("variant")
    if not isinstance(asked, str):
        return None, None
    if asked in EFFORTS:
        return asked, None
    return None, f"`{asked}` is no Codex reasoning effort ({', '.join(EFFORTS)}); not written"


def agent_notes(
    spec: Spec, agent: Agent, models: Mapping[str, str]
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(frontmatter path, message) for what the Codex role file cannot carry."""
    _, note = model_for(spec, models)
    if note:
        yield ("model",), note
    data = spec.view("opencode")
    options = data.get("options")
    option_keys = set(options) if isinstance(options, Mapping) else None
    _, note = effort_for(spec)
    if note:
        asked = option_keys is not None and "reasoningEffort" in option_keys
        yield (("options", "reasoningEffort") if asked else ("variant",)), note
    # `options` holding only the effort: model_reasoning_effort says it.
    effort_only = option_keys is not None and option_keys <= {"reasoningEffort"}
    for key in data:
        if key in DROPPED and not (key == "options" and effort_only):
            yield (key,), f"`{key}` has no Codex equivalent; the role leaves it out"
    if agent.mode == "primary":
        yield (
            ("mode",),
            f"{spec.id} is a primary: Codex starts no session as a role, and spawn_agent "
            "offers every role, so Codex may start it as a subagent (OpenCode never does)",
        )

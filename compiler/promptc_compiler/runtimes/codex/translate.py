"""Codex CLI (@openai/codex 0.171.0): OpenCode's permissions as Codex's files, never wider.

What Codex can say, per role and for the project (promptc_compiler.runtimes.codex.decide has
the facts, seen on the binary):

- per role, only whether it has a shell (`[features] shell_tool = false`);
- for the whole project, in `.codex/config.toml`, which every role inherits
  whatever its file says: the sandbox, `view_image`, `web_search`,
  `update_plan`, and `[agents] max_depth` (whether a
  role has `spawn_agent` at all); and the command rules of
  `.codex/rules/promptc.rules`: `prefix_rule`s, the strictest matching one
  winning, the same for every role;
- never: which roles a role may start, which files it may edit
  (`apply_patch` is every role's, and writes anywhere in the project), or
  that a command no rule names must ask (Codex 0.171 runs it in its
  sandbox: `approval_policy = "untrusted"` is refused as no longer
  supported, and a prefix rule has no wildcard).

So, for an agent A and a command of plain words c, the decision model is

    A's role has no shell                   -> deny
    a forbidden rule's words start c        -> deny
    a prompt rule's words start c           -> ask
    otherwise (an allow rule, or no rule)   -> allow

and it must never be above OpenCode's decision for A's rules and the command
as text (deny < ask < allow). Who runs commands: every agent OpenCode loads,
as a role, and Codex's own main session, which stands for OpenCode's default
agent `build` (Codex has no setting that starts a session as a role).

How the rules are chosen, from each agent's regions (promptc_compiler.runtimes.translation.spans):

- A region that denies or asks becomes a forbidden or prompt rule over the
  words every command it holds starts with: exact when the pattern's text
  ends at a whole word (`git push *`, `sudo *`, `rm -rf`), wider otherwise
  (`git push*` holds `git pushx` too, so its rule is `["git"]`).
- A region no prefix rule can hold (it does not start with a whole word:
  `"*": ask`, `*.sh`) would need a rule for every command: the agent's role
  gets no shell instead, and its allows and asks are reported lost. The main
  session's shell can only go for everyone (`.codex/config.toml`), since a
  role cannot have a shell its session has not. `accept_wider = ["bash"]`
  keeps them all (a Codex import proposes it: its rules by path, `*/curl *`,
  take `echo a/curl` too).
- OpenCode asks `external_directory` for a path outside the project in a
  file command (`cat`, `rm`, `cd`, ...); no prefix rule can see a path, so
  where a holder of the shell would be asked, the file commands ask (or are
  forbidden) for everyone.
- A line that is not plain words (a redirection, `$(…)`, a variable) reaches
  the rules as `bash -lc <line>`, hiding its commands: when a holder's rules
  ask or deny anything, one rule on the shells asks for (or forbids) such
  lines.
- An allow becomes an allow rule when its pattern holds every command that
  starts with its words (`git status*`, `ls *`); a literal (`zig build`)
  has none and runs in the sandbox. An allow never decides a command another
  rule forbids or prompts for, so no holder of the shell gets more from it.

The project-wide tools are on only when no role would get more from them
than OpenCode gives it, or when the target's `accept_wider` lists their
permission (`task` raises `max_depth` so that roles may delegate, `bash`
keeps the shell of a role whose rules Codex cannot say): the proof
(promptc_compiler.pipeline.proof) then reports each accepted widening first. Whatever cannot
be kept is a translation.Loss, one per OpenCode rule and agent.

A plain word is one Codex reads back as itself (shlex leaves it unquoted, no
`=`): commands with quotes, variables, redirections or globs are never held
against a pattern's words, so the rules speak of plain commands only.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from promptc_compiler.core.project import Project, Spec
from promptc_compiler.permissions import shell as shell_words
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.calls import RANK
from promptc_compiler.permissions.ruleset import Rule, evaluate
from promptc_compiler.permissions.runtime import Agent, Runtime
from promptc_compiler.runtimes.model_map import mapped_model
from promptc_compiler.runtimes.translation import (
    MAIN,
    Loss,
    Source,
    Span,
    Subject,
    Translator,
    hits,
    spans,
)

NAME = "codex"
PLAIN = re.compile(r"[A-Za-z0-9_@%+:,./-]+")
STRICTNESS = {"allow": 0, "prompt": 1, "forbidden": 2}
DECISION = {"deny": "forbidden", "ask": "prompt", "allow": "allow"}
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")
# OpenCode keys a Codex role has no place for.
DROPPED = ("temperature", "top_p", "steps", "maxSteps", "color", "hidden", "options")
# The shells Codex reads a line with: a line that is not plain words reaches
# the rules as `<shell> -lc <line>`.
SHELLS = ("bash", "sh", "zsh")


class PrefixRule(NamedTuple):
    pattern: tuple[tuple[str, ...], ...]  # per word, its alternatives
    decision: str  # allow | prompt | forbidden
    sources: tuple[Source, ...]  # the agents and OpenCode rules it stands for
    patterns: tuple[str, ...]  # their OpenCode patterns, or example commands it holds
    reason: str = ""  # why it exists, when no bash pattern says it

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(choices[0] for choices in self.pattern)

    def matches(self, command: Sequence[str]) -> bool:
        return len(command) >= len(self.pattern) and all(
            word in choices for word, choices in zip(command, self.pattern, strict=False)
        )


@dataclass(frozen=True)
class Tools:
    """The project-wide tools every role inherits (.codex/config.toml)."""

    view_image: bool = False
    web_search: bool = False
    update_plan: bool = False
    max_depth: int = 1
    off: Mapping[str, str] = field(default_factory=dict)  # permission -> why its tool is off


@dataclass(frozen=True)
class CodexTranslation:
    subjects: tuple[Subject, ...]
    shell: Mapping[str, bool]  # agent id -> its role keeps exec_command
    shell_off: bool  # the main session's rules need every command: no shell for anyone
    rules: tuple[PrefixRule, ...]  # strictest first, then by words
    losses: tuple[Loss, ...]
    read_only: frozenset[str]  # agents whose every edit OpenCode denies
    tools: Tools = field(default_factory=Tools)
    accepted: frozenset[str] = frozenset()  # the target's accept_wider
    # Every role and the main session: then the project's sandbox is read-only.
    all_read_only: bool = False

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


def subjects(runtime: Runtime) -> tuple[tuple[Subject, ...], wildcard.Patterns]:
    """Every agent OpenCode loads (`runtime`: resolved in ENVIRONMENT), then the
    main session (OpenCode's `build`)."""
    found = [Subject(a.name, a, a.effective(a.mode != "primary")) for a in runtime.bundle_agents()]
    build = runtime.agents.get("build") or Agent("build", "primary", ())
    found.append(Subject(MAIN, build, build.rules, removable=False))
    return tuple(found), runtime.patterns


def accepted(project: Project) -> frozenset[str]:
    """The permissions whose widenings the codex target's config accepts."""
    options = project.config.targets.get(NAME, {})
    return frozenset(options.get("accept_wider", ()))


def _translate(project: Project, opencode: Runtime) -> CodexTranslation:
    people, patterns = subjects(opencode)
    planner = _Planner(people, patterns, set(project.config.custom_tools), accepted(project))
    return planner.run()


# The Codex roles' shells, the project's tools and command rules (a run works it out once).
TRANSLATOR = Translator(_translate)


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
        self,
        people: tuple[Subject, ...],
        patterns: wildcard.Patterns,
        custom: set[str],
        accepted: frozenset[str],
    ) -> None:
        self.people = people
        self.patterns = patterns
        self.custom = custom
        self.accepted = accepted
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
        keeps_any = "bash" in self.accepted
        shell_off = plans[main.name].blocking is not None and not keeps_any
        shell = {
            s.name: not shell_off and not p.denies_all and (p.blocking is None or keeps_any)
            for s, p in zip(self.people, plans.values(), strict=True)
            if s.removable
        }
        holders = [s for s in self.people if not shell_off and shell.get(s.name, True)]
        stops = self._stops(holders, plans)
        catch = [*self._files(holders, stops), *self._catch(holders, plans)]
        allows = self._allows(holders, plans, [*stops, *catch])
        for subject in self.people:
            plan = plans[subject.name]
            if shell_off:
                self._off(subject, plan, main, plans[main.name].blocking)
            elif shell.get(subject.name, True):
                self._narrowed(subject, plan, [*stops, *catch])
            else:
                self._left_out(subject, plan)
        tools = self._tools()
        for subject in self.people:
            if subject.removable:
                self._other_permissions(subject, tools)
        no_edit = {
            s.name
            for s in self.people
            if all(x.action == "deny" for x in spans(self.patterns, s.rules, "edit"))
        }
        read_only = frozenset(s.name for s in self.people if s.removable and s.name in no_edit)
        losses = Loss.gather(self.notes)
        rules = (*stops, *catch, *allows)
        return CodexTranslation(
            self.people,
            shell,
            shell_off,
            rules,
            losses,
            read_only,
            tools,
            self.accepted,
            all_read_only=len(no_edit) == len(self.people),
        )

    def _note(self, subject: Subject, rule: Rule, message: str) -> None:
        self.notes.setdefault((subject.name, rule), []).append(message)

    def _note_granting(self, subject: Subject, plan: _Plan, message: str) -> None:
        """Note `message` at every rule that allows or asks for some command."""
        for span in plan.spans:
            if span.action != "deny" and span.at is not None:
                self._note(subject, subject.rules[span.at], message)

    # --- the command rules --------------------------------------------------------------

    def _stops(self, holders: list[Subject], plans: Mapping[str, _Plan]) -> list[PrefixRule]:
        """One forbidden or prompt rule per words, the strictest any holder needs."""
        found: dict[tuple[str, ...], tuple[str, list[Source], list[str]]] = {}

        def need(words: tuple[str, ...], decision: str, source: Source, pattern: str) -> None:
            old = found.get(words)
            if old is None or STRICTNESS[decision] > STRICTNESS[old[0]]:
                old = found[words] = (decision, [], [])
            if old[0] == decision:
                old[1].append(source)
                old[2].append(pattern)

        for subject in holders:
            for span, words in plans[subject.name].stops:
                rule = None if span.at is None else subject.rules[span.at]
                need(words, DECISION[span.action], Source(subject.name, rule), span.pattern)
        rules = [
            PrefixRule(tuple((w,) for w in words), decision, tuple(src), tuple(dict.fromkeys(pats)))
            for words, (decision, src, pats) in found.items()
            if not _shadowed(words, decision, found)
        ]
        return sorted(rules, key=lambda r: (-STRICTNESS[r.decision], r.words))

    def _files(self, holders: list[Subject], stops: list[PrefixRule]) -> list[PrefixRule]:
        """One rule on the file commands (`cat`, `rm`, `cd`, ...), as strict as the
        strictest holder is about a folder outside the project: a prefix rule cannot
        see a path, so every use of them asks (or is forbidden)."""
        worst: tuple[str, Source] | None = None
        for subject in holders:
            outside = self._outside(subject)
            if outside is not None and (worst is None or RANK[outside[0]] < RANK[worst[0]]):
                worst = (outside[0], Source(subject.name, outside[1]))
        if worst is None:
            return []
        decision = DECISION[worst[0]]
        said = {
            s.words[0]
            for s in stops
            if len(s.pattern) == 1 and STRICTNESS[s.decision] >= STRICTNESS[decision]
        }
        names = tuple(n for n in sorted(shell_words.PATH_COMMANDS) if n not in said)
        if not names:
            return []
        reason = "a file command may name a path outside the project (`external_directory`)"
        examples = tuple(f"{name} x" for name in names)
        return [PrefixRule((names,), decision, (worst[1],), examples, reason)]

    def _outside(self, subject: Subject) -> tuple[str, Rule | None] | None:
        """How OpenCode decides a folder outside the project for the subject at its
        strictest, and the rule that says it; None when it allows them all."""
        strict = [
            s
            for s in spans(self.patterns, subject.rules, "external_directory")
            if s.action != "allow"
        ]
        if not strict:
            return None
        worst = min(strict, key=lambda s: RANK[s.action])
        return worst.action, None if worst.at is None else subject.rules[worst.at]

    def _catch(self, holders: list[Subject], plans: Mapping[str, _Plan]) -> list[PrefixRule]:
        """The rule for lines Codex matches as `<shell> -lc <line>`: as strict as the
        strictest region any holder has, bash or outside folders."""
        worst: tuple[str, Subject, Rule | None] | None = None
        for subject in holders:
            found = [
                (s.action, None if s.at is None else subject.rules[s.at])
                for s in plans[subject.name].spans
            ]
            outside = self._outside(subject)
            if outside is not None:
                found.append(outside)
            for action, rule in found:
                if action != "allow" and (worst is None or RANK[action] < RANK[worst[0]]):
                    worst = (action, subject, rule)
        if worst is None:
            return []
        action, subject, rule = worst
        reason = "a line that is not plain words reaches these rules as `bash -lc <line>`"
        return [
            PrefixRule(
                (SHELLS,),
                DECISION[action],
                (Source(subject.name, rule),),
                tuple(f"{name} -lc x" for name in SHELLS),
                reason,
            )
        ]

    def _allows(
        self, holders: list[Subject], plans: Mapping[str, _Plan], stops: list[PrefixRule]
    ) -> list[PrefixRule]:
        found: dict[tuple[str, ...], tuple[list[Source], list[str]]] = {}
        for subject in holders:
            for span in plans[subject.name].spans:
                if span.action != "allow" or span.at is None:
                    continue
                words = inside_words(self.patterns, span.pattern)
                if words is None or any(s.matches(words) for s in stops):
                    continue  # no exact form, or a stricter rule decides it anyway
                entry = found.setdefault(words, ([], []))
                entry[0].append(Source(subject.name, subject.rules[span.at]))
                entry[1].append(span.pattern)
        rules = [
            PrefixRule(tuple((w,) for w in words), "allow", tuple(src), tuple(dict.fromkeys(pats)))
            for words, (src, pats) in found.items()
            if not any(words[:size] in found for size in range(1, len(words)))
        ]
        return sorted(rules, key=lambda r: r.words)

    # --- the project-wide tools ---------------------------------------------------------

    def _tools(self) -> Tools:
        """Each project-wide tool on when no role gets more from it than OpenCode
        gives it, or when its widening is accepted."""
        roles = [s for s in self.people if s.removable]
        off: dict[str, str] = {}
        on: dict[str, bool] = {}
        for permission, tool in _SESSION_TOOLS.items():
            refusing = [
                s.name for s in roles if not _allows_all(s.agent, permission, roles, self.patterns)
            ]
            using = [s.name for s in roles if _uses(s.agent, permission)]
            on[permission] = bool(using) and (not refusing or permission in self.accepted)
            if not on[permission]:
                off[permission] = _off_because(tool, permission, refusing)
        return Tools(
            view_image=on["read"],
            web_search=on["websearch"],
            update_plan=on["todowrite"],
            max_depth=2 if on["task"] else 1,
            off=off,
        )

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

    def _narrowed(self, subject: Subject, plan: _Plan, stops: Sequence[PrefixRule]) -> None:
        for span in plan.spans:
            if span.action == "deny" or span.at is None:
                continue
            rule = subject.rules[span.at]
            for stop in stops:
                if stop.decision == "allow" or (stop.decision == "prompt" and span.action == "ask"):
                    continue
                if stop.pattern == (SHELLS,):
                    continue  # said once below
                heads = [
                    h for h in _heads(stop) if hits(self.patterns, (span.pattern, h), span.later)
                ]
                if heads:
                    forbidden = stop.decision == "forbidden"
                    verb, says = ("deny", "forbid") if forbidden else ("ask", "prompt for")
                    shown = ", ".join(f"`{h.removesuffix(' *')}`" for h in heads[:4])
                    self._note(
                        subject,
                        rule,
                        f"narrowed to {verb}: the project-wide rules {says} "
                        f"{shown} (for {_writers(stop, subject.name)}), and "
                        "Codex's command rules apply to every role",
                    )
            catch = next((s for s in stops if s.pattern == (SHELLS,)), None)
            if catch is not None and span.action == "allow":
                verb = "deny" if catch.decision == "forbidden" else "ask"
                self._note(
                    subject,
                    rule,
                    f"narrowed to {verb} for a line Codex does not read as plain commands "
                    "(a redirection, `$(…)`, a variable): its rules see it as `bash -lc "
                    "<line>`",
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

    def _other_permissions(self, subject: Subject, tools: Tools) -> None:
        """Rules of the other permissions that a Codex role loses (what it gets
        wider, the proof reports)."""
        for rule in subject.agent.rules:
            if rule.kind not in ("agent", "config") or rule.action == "deny":
                continue
            message = _lost_message(rule, tools)
            if message is not None:
                self._note(subject, rule, message)


# OpenCode permissions whose Codex tool is one setting for the project, and the tool.
_SESSION_TOOLS = {
    "read": "view_image",
    "websearch": "web_search",
    "todowrite": "update_plan",
    "task": "spawn_agent",
}


def _contexts(agent: Agent) -> tuple[bool, ...]:
    """As a subagent, as the main agent, or both (an `all` agent)."""
    return {"subagent": (True,), "primary": (False,)}.get(agent.mode, (False, True))


def _allows_all(
    agent: Agent, permission: str, roles: Sequence[Subject], patterns: wildcard.Patterns
) -> bool:
    """OpenCode allows every call of the permission, in each context the agent runs in
    (for `read`, outside the project too; for `task`, of every role, and OpenCode
    never starts a primary)."""
    for delegated in _contexts(agent):
        rules = agent.effective(delegated)
        found = [evaluate(rules, permission, "*")]
        if permission == "read":  # view_image reads outside the project too
            found.append(evaluate(rules, "external_directory", "/*"))
        if permission == "task":
            if any(r.agent.mode == "primary" or r.agent.hidden for r in roles):
                return False
            found += [evaluate(rules, "task", r.name) for r in roles]
        if any(d.action != "allow" for d in found) or _some_not(rules, permission, patterns):
            return False
        if permission == "read" and _some_not(rules, "external_directory", patterns):
            return False
    return True


def _some_not(rules: Sequence[Rule], permission: str, patterns: wildcard.Patterns) -> bool:
    """Some input of the permission is not allowed: a region of its rules that a
    later rule does not cover asks or denies (a default that `read: allow` after it
    covers decides nothing)."""
    return any(s.action != "allow" for s in spans(patterns, rules, permission))


def _uses(agent: Agent, permission: str) -> bool:
    """Some call of the permission is not denied, in some context."""
    name = wildcard.normal(permission)
    for delegated in _contexts(agent):
        rules = [r for r in agent.effective(delegated) if r.names(name)]
        if not rules or any(r.action != "deny" for r in rules):
            return True
    return False


def _off_because(tool: str, permission: str, refusing: list[str]) -> str:
    if permission == "task":
        return (
            "a Codex role runs one level below the session, and `[agents] max_depth = 1` "
            "gives it no spawn_agent (a higher depth would let every role start any role)"
        )
    if permission == "read":
        return (
            "Codex has no tool to read or search files but the shell (view_image, which reads "
            "any file, is off for every role)"
        )
    who = _names(refusing) or "no agent"
    return f"Codex's {tool} is one setting for every role, and it is off: {who} may not use it"


def _names(names: Sequence[str]) -> str:
    shown = [f"`{n}`" for n in names[:4]] + ([f"{len(names) - 4} more"] if len(names) > 4 else [])
    return ", ".join(shown)


def _lost_message(rule: Rule, tools: Tools) -> str | None:
    key = rule.permission
    if key in ("bash", "*", "edit", "external_directory", "doom_loop", "plan_enter", "plan_exit"):
        return None
    session_key = "read" if key in ("list", "glob", "grep") else key
    if session_key in _SESSION_TOOLS:
        on = {
            "read": tools.view_image and key == "read",
            "websearch": tools.web_search,
            "todowrite": tools.update_plan,
            "task": tools.max_depth >= 2,
        }[session_key]
        if on:
            return None
        return "lost: " + tools.off.get(session_key, _off_because("", session_key, []))
    if key == "question":
        return "lost: Codex's request_user_input refuses every role (only the root thread may ask)"
    if key == "webfetch":
        return "lost: Codex has no tool to fetch a URL"
    if key == "skill":
        return "lost: Codex has no skill tool (a role reads a skill's SKILL.md with the shell)"
    return f"lost: Codex gives the role no `{key}` tool"


def _heads(rule: PrefixRule) -> list[str]:
    """The OpenCode patterns of the commands a rule matches: `git push *`."""
    return [" ".join(words) + " *" for words in itertools.product(*rule.pattern)]


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
            f"{spec.id} is a primary: Codex starts no session as a role, so its role runs "
            "only when the user's own session spawns it",
        )

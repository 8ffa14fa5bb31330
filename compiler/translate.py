"""Translate OpenCode permissions into Claude Code tools and settings, never granting more.

OpenCode decides per agent: an ordered rule list, last match wins
(compiler.permissions). Claude Code has no per-agent allow/ask/deny. What it
has is, per agent, the `tools` list (which tools exist for it), and one list
of settings rules for the whole session (`.claude/settings.json`: deny, then
ask, then allow, whatever the order or specificity), shared by the main
thread and every subagent. So promptc uses this decision model, for an agent
A, a Claude tool T and an input x (a command, a path, a subagent name):

    T not in A's tools (for Agent: x not in A's `Agent(...)`)  -> deny
    a settings deny rule matches (T, x)                        -> deny
    a settings ask rule matches                                -> ask
    a settings allow rule matches                              -> allow
    nothing matches: ask for tools that need permission (Bash, Edit, Write,
    NotebookEdit, WebFetch, WebSearch, Skill), allow for the others

and requires, with deny < ask < allow, that this decision is never above
OpenCode's for the same agent, tool permission and input. OpenCode's
decision is the agent's resolved rule list (a subagent, and an agent of mode
`all`, with the `todowrite` and `task` denies the task tool appends; for
`task`, an `all` agent's primary rules, as it is the only context in which it
can start subagents). Inputs are what OpenCode matches: the command, the path
relative to the project, the subagent's id; Claude Code is assumed to run in
the project root. A shell line of several commands is split and decided per
command by both runtimes, so the model speaks of single commands.

How the files are chosen, per OpenCode permission and its Claude tools:

- A tool whose permission denies every input is left out of the agent's
  `tools`.
- A denied region that only a whole-tool rule could express (`"*": deny`
  with exceptions after it, any deny or ask on a tool without patterns, an
  ask on a tool that otherwise runs without asking) would change every agent
  if written to the shared settings; the tool is left out of that one agent
  instead, and its allows and asks are reported as lost.
- Every other denied region becomes a settings deny rule that matches at least
  that region (a deny never widens anything; what it takes from other agents
  is reported). Asked regions become settings ask rules, except a whole-tool
  ask on a tool that asks anyway.
- An allow rule is written only when no agent holding the tool, nor the main
  thread, would get more from it: every input it may match is allowed by all
  of them, or denied or asked by a rule already written.
- Agent: a primary's `Agent(a, b)` lists exactly the subagents its `task`
  rules allow (not those it only asks for); subagents get no Agent (Claude
  Code subagents start no subagents, and neither do OpenCode's at its default
  depth). Every primary is denied as `Agent(name)`, since OpenCode never
  starts a primary as a subagent.
- The main thread: when the config names a `default_agent` of the bundle,
  settings.json sets `agent` to it, so plain `claude` runs as that agent.
  Otherwise the main thread has every tool and stands for OpenCode's default
  agent (`build`): its tools cannot be narrowed, so its denies go to the
  shared settings.

Everything that cannot be expressed is a Loss: one message per OpenCode rule
and agent, in plain words (rules from OpenCode's built-in defaults and from
the config are shared by every agent and reported once).
"""

from __future__ import annotations

import itertools
import weakref
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from compiler import claude_rules, wildcard
from compiler.claude_rules import Pattern, Tool
from compiler.permissions import Decider, Environment, Rule
from compiler.project import Project
from compiler.runtime import Agent, resolve

MAIN = "the main thread"
# Translation must not depend on the machine: the home folder is a stand-in.
ENVIRONMENT = Environment(
    home=claude_rules.HOME,
    data=f"{claude_rules.HOME}/.local/share/opencode",
    tmp="/tmp/opencode",
    worktree="/",
)
_NO_TOOL = {
    "external_directory",
    "doom_loop",
    "plan_enter",
    "plan_exit",
}


@dataclass(frozen=True)
class Subject:
    """Whoever runs with Claude tools: a bundle agent, or the main thread."""

    name: str  # the OpenCode agent id, or MAIN
    agent: Agent
    rules: tuple[Rule, ...]  # the rules OpenCode decides this subject's calls with
    removable: bool = True  # False: its tools cannot be narrowed


@dataclass(frozen=True)
class Source:
    subject: str
    rule: Rule | None  # None: OpenCode's own behaviour, not a written rule


@dataclass(frozen=True)
class Entry:
    """One settings rule: `Tool` or `Tool(specifier)`."""

    tool: str
    specifier: str | None
    exact: tuple[str, ...]
    reach: tuple[str, ...]
    sources: tuple[Source, ...] = ()
    agent: bool = False  # the specifier is an agent id

    def text(self, namer: Mapping[str, str]) -> str:
        if self.specifier is None:
            return self.tool
        spec = namer.get(self.specifier, self.specifier) if self.agent else self.specifier
        return f"{self.tool}({spec})"


@dataclass(frozen=True)
class Loss:
    subject: str
    rule: Rule
    message: str


@dataclass(frozen=True)
class Translation:
    subjects: tuple[Subject, ...]
    tools: Mapping[str, tuple[str, ...]]  # agent id -> Claude tool names
    spawn: Mapping[str, tuple[str, ...]]  # agent id -> subagent ids for Agent(...)
    deny: tuple[Entry, ...]
    ask: tuple[Entry, ...]
    allow: tuple[Entry, ...]
    main_agent: str | None
    losses: tuple[Loss, ...]

    def subject(self, name: str) -> Subject:
        return next(s for s in self.subjects if s.name == name)


@lru_cache(maxsize=65536)
def hits(include: tuple[str, ...], exclude: tuple[str, ...] = ()) -> bool:
    """Some input matches every `include` pattern and no `exclude` one.
    Too complex to decide counts as yes: the safe answer for every caller."""
    if wildcard.apart(include):
        return False
    try:
        found = wildcard.witness(
            [wildcard.glob(p) for p in include], [wildcard.glob(p) for p in exclude]
        )
    except wildcard.TooComplex:
        return True
    return found is not None


class _Heads:
    """Patterns by head (wildcard.head), to find the few a question is about.

    Two patterns whose heads differ before either ends share no input
    (wildcard.apart). An exclude that shares no input with one of the include
    patterns cannot change whether some input matches every include and no
    exclude, so `hits` may be asked with only the excludes `near` every include:
    agents' maps that differ make the lists of written denies and asks as long
    as the bundle, while a question is about a few of them. (The one answer
    that could change is "too complex to decide", counted as yes: the search
    over fewer machines meets no more states, so it may answer where the full
    one gave up, never the other way round.)

    `prune=False` keeps every pattern near every other: the plain computation.
    """

    def __init__(self, patterns: Iterable[str], prune: bool = True) -> None:
        self.patterns = tuple(patterns)
        self.prune = prune
        self.at: dict[str, list[int]] = {}  # head -> positions of the patterns with it
        for index, pattern in enumerate(self.patterns):
            self.at.setdefault(wildcard.head(pattern), []).append(index)
        self.heads = sorted(self.at)
        self.sizes = sorted({len(h) for h in self.at})
        # heads by length, for the pairs too long for wildcard.apart to call apart
        self.long = sorted((len(h), h) for h in self.at)
        self.found: dict[str, frozenset[int]] = {}
        self.kept: dict[tuple[str, ...], tuple[str, ...]] = {}

    def near(self, pattern: str) -> frozenset[int]:
        """The positions of the patterns `wildcard.apart` does not set apart from
        `pattern`: heads one of which starts with the other."""
        found = self.found.get(pattern)
        if found is None:
            found = self.found[pattern] = frozenset(self._near(pattern))
        return found

    def _near(self, pattern: str) -> Iterator[int]:
        if not self.prune:
            yield from range(len(self.patterns))
            return
        head = wildcard.head(pattern)
        heads: set[str] = set()
        for size in self.sizes:  # the heads `head` starts with
            if size > len(head):
                break
            if head[:size] in self.at:
                heads.add(head[:size])
        at = bisect_left(self.heads, head)  # the heads starting with `head`
        while at < len(self.heads) and self.heads[at].startswith(head):
            heads.add(self.heads[at])
            at += 1
        # wildcard.apart calls no pair apart past SEARCH_LIMIT units together
        at = bisect_left(self.long, (wildcard.SEARCH_LIMIT - len(head), ""))
        heads.update(h for _, h in self.long[at:])
        for one in heads:
            yield from self.at[one]

    def select(self, include: tuple[str, ...]) -> tuple[str, ...]:
        """The patterns near every `include` pattern, in their order: the
        excludes that may change a question about these includes."""
        kept = self.kept.get(include)
        if kept is None:
            sets = sorted((self.near(p) for p in include), key=len)
            positions = sets[0].intersection(*sets[1:]) if sets else range(len(self.patterns))
            kept = self.kept[include] = tuple(self.patterns[i] for i in sorted(positions))
        return kept


def _related(include: tuple[str, ...], patterns: tuple[str, ...], prune: bool) -> tuple[str, ...]:
    """`patterns` without those apart from some `include` pattern (see _Heads):
    for a rule list's few later patterns, where an index would cost more. Asked
    for every agent's spans about every allow, so wildcard.apart is spelled out
    on the heads here (an empty head is apart from none)."""
    if not prune or not patterns:
        return patterns
    heads = [h for h in map(wildcard.head, include) if h]
    if not heads:
        return patterns
    limit = wildcard.SEARCH_LIMIT
    kept: list[str] = []
    for pattern in patterns:
        one = wildcard.head(pattern)
        for other in heads:
            if (
                not (one.startswith(other) or other.startswith(one))
                and len(one) + len(other) < limit
            ):
                break
        else:
            kept.append(pattern)
    return tuple(kept)


def _hits_past(
    include: tuple[str, ...], own: tuple[str, ...], shared: tuple[str, ...], prune: bool = True
) -> bool:
    """hits(include, own + shared), for a rule list's few `own` later patterns and
    written excludes `shared` by many lists: an input past the shared ones is
    found once, and when none of `own` matches it, it answers for every list.
    (When no input is past the shared ones, there is none past more excludes,
    a search over them could only have given up: the same nuance as _Heads.)
    `prune=False` asks with every exclude at once: the plain computation."""
    if not own or not prune:
        return hits(include, own + shared)
    if wildcard.apart(include):
        return False
    text, known = _past(include, shared)
    if known and text is None:
        return False
    # The text is exact unless spelling it replaced a lone surrogate.
    if (
        text is not None
        and "\ufffd" not in text
        and not any(wildcard.match(text, pattern) for pattern in own)
    ):
        return True
    return hits(include, own + shared)


@lru_cache(maxsize=4096)
def _past(include: tuple[str, ...], exclude: tuple[str, ...]) -> tuple[str | None, bool]:
    """An input matching every `include` pattern and no `exclude` one (None: there
    is none), and False in place of True when the search gave up."""
    try:
        found = wildcard.witness(
            [wildcard.glob(p) for p in include], [wildcard.glob(p) for p in exclude]
        )
    except wildcard.TooComplex:
        return None, False
    return found, True


class Span(NamedTuple):
    """The inputs one rule decides: its pattern minus every later pattern.

    The rule is named by its index in the list: which spans a list has depends
    only on its (permission, pattern, action)s, so agents whose lists have the
    same ones share them, each reading its own rule at the index.
    """

    at: int | None  # None: no rule matches, OpenCode asks
    action: str
    pattern: str
    later: tuple[str, ...]


def spans(rules: Sequence[Rule], permission: str) -> tuple[Span, ...]:
    relevant = [i for i, r in enumerate(rules) if wildcard.match(permission, r.permission)]
    found: list[Span] = []
    for position, index in enumerate(relevant):
        rule = rules[index]
        later = tuple(dict.fromkeys(rules[i].pattern for i in relevant[position + 1 :]))
        if not any(wildcard.universal(p) for p in later) and hits((rule.pattern,), later):
            found.append(Span(index, rule.action, rule.pattern, later))
    every = tuple(dict.fromkeys(rules[i].pattern for i in relevant))
    if not any(wildcard.universal(p) for p in every):
        found.append(Span(None, "ask", "*", every))
    return tuple(found)


def main_agent(project: Project, runtime_agents: Mapping[str, Agent]) -> str | None:
    name = project.config.default_agent
    agent = runtime_agents.get(name) if name else None
    return name if agent is not None and not agent.native else None


def subjects(project: Project) -> tuple[Subject, ...]:
    runtime = resolve(project, ENVIRONMENT)
    found = [Subject(a.name, a, a.effective(a.mode != "primary")) for a in runtime.bundle_agents()]
    if main_agent(project, runtime.agents) is None:
        default = runtime.agents.get("build")
        rules = default.rules if default else ()
        found.append(Subject(MAIN, default or Agent("build", "primary", ()), rules, False))
    return tuple(found)


def translate(project: Project) -> Translation:
    """The Claude Code tools and settings for a bundle (computed once per bundle)."""
    if _CACHE and _CACHE[0][0] is project.bundle and _CACHE[0][1] is project.config:
        return _CACHE[0][2]
    result = planner(project).run()
    _CACHE[:] = [(project.bundle, project.config, result)]
    return result


def planner(
    project: Project, share: bool = True, prune: bool = True, compact: bool = True
) -> _Planner:
    """The translation of a bundle, not run yet. `share=False` plans every agent
    on its own, as if no two agents had the same rules, `prune=False` asks
    every question with every exclude (see _Heads), and `compact=False` lists
    every objection to an allow as a Source (see _Objected) and every entry a
    region meets (see _Reach.meeting): the fast paths' oracles."""
    found = subjects(project)
    main = main_agent(project, {s.name: s.agent for s in found})
    return _Planner(found, main, project.config.custom_tools, share, prune, compact)


# Lists of objections and of entries met are read compactly (_Objected, _Met)
# from this many holders' plans or candidate entries: below it, the lists are
# short and listing them is cheaper than reading them from a summary.
COMPACT_FROM = 32

# Targets and rules of one run share a bundle: translate it once. The cache
# holds the objects themselves, so an identity match is never a stale address.
_CACHE: list[tuple[object, object, Translation]] = []


@dataclass
class _Built:
    """An entry while rules are still added to it."""

    exact: dict[str, None] = field(default_factory=dict)
    reach: dict[str, None] = field(default_factory=dict)
    sources: list[Source] = field(default_factory=list)
    agent: bool = False


@dataclass
class _Entries:
    # Built in place and frozen when read: one entry may gather a source from
    # every agent, and rebuilding it per source would cost N² for N agents.
    built: dict[tuple[str, str | None], _Built] = field(default_factory=dict)
    frozen: dict[tuple[str, str | None], Entry] | None = None

    def add(self, tool: str, pattern: Pattern, source: Source, agent: bool = False) -> _Built:
        entry = self.built.get((tool, pattern.specifier))
        if entry is None:
            entry = self.built[tool, pattern.specifier] = _Built()
        entry.exact.update(dict.fromkeys(pattern.exact))
        entry.reach.update(dict.fromkeys(pattern.reach))
        entry.sources.append(source)
        entry.agent = agent
        self.frozen = None
        return entry

    def again(self, entries: list[_Built], source: Source) -> None:
        """add() once more of what made these entries, for another source: its
        patterns are in them already."""
        for entry in entries:
            entry.sources.append(source)
        self.frozen = None

    @property
    def items(self) -> dict[tuple[str, str | None], Entry]:
        if self.frozen is None:
            self.frozen = {
                (tool, specifier): Entry(
                    tool, specifier, tuple(b.exact), tuple(b.reach), tuple(b.sources), b.agent
                )
                for (tool, specifier), b in self.built.items()
            }
        return self.frozen

    def of(self, tools: tuple[Tool, ...]) -> list[Entry]:
        names = {t.name for t in tools}
        return [e for e in self.items.values() if e.tool in names]

    def exact(self, tools: tuple[Tool, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(g for e in self.of(tools) for g in e.exact))


class _Held(NamedTuple):
    """A subject that holds a permission's tools: its rules and their spans."""

    rules: tuple[Rule, ...]
    plan: _Plan


class _Plan:
    """One permission's spans in a rule list, and what follows from them alone:
    every subject whose rules have the same (permission, pattern, action)s
    shares it, and reads its own rule at each span's index."""

    def __init__(self, rules: tuple[Rule, ...], permission: str, kind: str, asks: bool) -> None:
        self.spans = spans(rules, permission)
        self.denies_all = all(s.action == "deny" for s in self.spans)
        # the first region only a whole-tool rule could deny or ask for
        self.blocking = next((s for s in self.spans if _needs_whole(kind, asks, s)), None)
        # the settings deny and ask rules its other regions become, in order
        self.stops: list[tuple[Span, Pattern]] = []
        for span in self.spans:
            if span.action == "allow":
                continue
            pattern = claude_rules.cover(kind, span.pattern)
            if span.action == "ask" and pattern.whole and asks:
                continue  # the tool asks anyway
            self.stops.append((span, pattern))
        # The spans as seen from a pattern apart from each of the plan's patterns
        # with a head (see _Outlines): those with an empty head are all that is left.
        self.outline = tuple(
            (
                span.action,
                None if wildcard.head(span.pattern) else span.pattern,
                tuple(q for q in span.later if not wildcard.head(q)),
            )
            for span in self.spans
        )
        self.headed = tuple(
            dict.fromkeys(
                p for span in self.spans for p in (span.pattern, *span.later) if wildcard.head(p)
            )
        )


class _Outlines:
    """The plans of a permission's holders, indexed by their patterns with a head.

    Whether an allow reaches into a plan's denied or asked regions is a question
    about the allow's patterns, each span's pattern and later ones, and the
    written excludes. Patterns apart from the allow's drop out of it (see
    _Heads), so for a plan none of whose patterns with a head is near the allow
    the answer depends on its outline alone: agents' maps that differ in their
    own commands share an outline, and the question is asked once per outline.
    """

    def __init__(self, plans: Iterable[_Plan], prune: bool) -> None:
        self.owners: list[_Plan] = []
        patterns: list[str] = []
        self.ids: dict[_Plan, int] = {}  # plan -> a number for its outline
        numbers: dict[tuple[tuple[str, str | None, tuple[str, ...]], ...], int] = {}
        for plan in plans:
            if plan in self.ids:
                continue
            self.ids[plan] = numbers.setdefault(plan.outline, len(numbers))
            for pattern in plan.headed:
                patterns.append(pattern)
                self.owners.append(plan)
        self.heads = _Heads(patterns, prune)
        self.prune = prune

    def near(self, reach: Iterable[str]) -> set[_Plan] | None:
        """The plans with a pattern with a head near one of `reach` (None: every
        plan, when not pruning)."""
        if not self.prune:
            return None
        return {self.owners[i] for g in reach for i in self.heads.near(g)}


class _Reason(NamedTuple):
    """Why an allow or ask is narrowed: in words once the agent is known."""

    kind: str  # denied | asked | not allowed
    hit: list[Entry]  # the entries met (or their first four: all the words show)
    who: _Who | _Met | _Objected | None  # None: the pattern has no exact Claude Code form

    def words(self, subject: Subject) -> str:
        if self.kind == "denied" and isinstance(self.who, _Who | _Met):
            return _denied(subject, self.hit, self.who)
        if self.kind == "asked" and isinstance(self.who, _Who | _Met):
            return _asked(subject, self.hit, self.who)
        return _not_allowed(subject, self.who)


def _rule(held: _Held, span: Span) -> Rule | None:
    return None if span.at is None else held.rules[span.at]


class _Planner:
    def __init__(
        self,
        subjects: tuple[Subject, ...],
        main: str | None,
        custom_tools: Iterable[str],
        share: bool = True,
        prune: bool = True,
        compact: bool = True,
    ) -> None:
        self.subjects = subjects
        self.prune = prune
        self.compact = compact
        # the first subject of each name, as a search in order would find it
        self.named = {s.name: s for s in reversed(self.subjects)}
        self.main = main
        self.custom = set(custom_tools)
        self.tools: dict[str, list[str]] = {s.name: [] for s in self.subjects if s.removable}
        self.spawn: dict[str, tuple[str, ...]] = {}
        self.deny, self.ask, self.allow = _Entries(), _Entries(), _Entries()
        self.notes: dict[tuple[str, Rule], list[str]] = {}
        # One Source per agent and rule that objects to an allow (see _objector).
        self.objectors: dict[tuple[str, int], Source] = {}
        # Agents repeat their permission maps: subjects whose rules have the same
        # (permission, pattern, action)s have one number and share their plans.
        shapes: dict[tuple[tuple[str, str, str], ...], int] = {}
        self.shapes = [
            shapes.setdefault(tuple([(r.permission, r.pattern, r.action) for r in s.rules]), i)
            if share
            else i
            for i, s in enumerate(self.subjects)
        ]

    def run(self) -> Translation:
        kept: dict[str, set[str]] = {name: set() for name in self.tools}
        for permission in claude_rules.PERMISSIONS:
            if permission == "task":
                self._task(kept)
            else:
                self._permission(permission, kept)
        self._unmapped()
        tools = {
            name: tuple(t for t in claude_rules.TOOL_NAMES if t in kept[name]) for name in kept
        }
        losses = tuple(
            Loss(subject, rule, "; ".join(dict.fromkeys(parts)))
            for (subject, rule), parts in self.notes.items()
        )
        denied = set(self.deny.items)
        return Translation(
            self.subjects,
            tools,
            self.spawn,
            tuple(self.deny.items.values()),
            # an ask that a deny of the same rule already beats says nothing
            tuple(e for key, e in self.ask.items.items() if key not in denied),
            tuple(self.allow.items.values()),
            self.main,
            losses,
        )

    def _note(self, subject: Subject, rule: Rule | None, message: str) -> None:
        if rule is not None:
            self.notes.setdefault((subject.name, rule), []).append(message)

    # --- tools decided by patterns or as a whole ------------------------------------------

    def _permission(self, permission: str, kept: dict[str, set[str]]) -> None:
        group = claude_rules.group(permission)
        kind, asks = group[0].kind, group[0].asks
        names = [t.name for t in group]
        plans: dict[int, _Plan] = {}
        holders: dict[str, _Held] = {}
        for subject, shape in zip(self.subjects, self.shapes, strict=True):
            plan = plans.get(shape)
            if plan is None:
                plan = plans[shape] = _Plan(subject.rules, permission, kind, asks)
            if subject.removable and plan.denies_all:
                continue
            if plan.blocking is not None and subject.removable:
                self._left_out(subject, group, plan, plan.blocking)
                continue
            holders[subject.name] = _Held(subject.rules, plan)
            if subject.removable:
                kept[subject.name].update(names)
        self._deny_and_ask(group, holders)
        rejected = self._allows(group, holders) if asks else {}
        # Held while a plan's words are written: when maps differ, each list of
        # objections and of entries a region meets is its own and as long as the
        # bundle, and holding every one's writers would cost N² memory.
        self.who: weakref.WeakValueDictionary[tuple[int, ...], _Who] = weakref.WeakValueDictionary()
        self.writers: dict[int, _Writers] = {}
        self._losses(group, holders, rejected)

    def _who(self, sources: list[Entry] | list[Source]) -> _Who:
        """The writers of these entries' sources (or of these sources), each list
        read once per permission: entries and objections stay alive meanwhile,
        so their ids are keys."""
        key = tuple(id(item) for item in sources)
        found = self.who.get(key)
        if found is None:
            if isinstance(sources[0], Entry):
                parts = [self._writers(e.sources) for e in sources]
            else:  # one list of objections: read for this _Who alone
                parts = [_Writers(sources)]
            found = self.who[key] = _Who(parts)
        return found

    def _writers(self, sources: Sequence[Source]) -> _Writers:
        found = self.writers.get(id(sources))
        if found is None:
            found = self.writers[id(sources)] = _Writers(sources)
        return found

    def _by_name(self, name: str) -> Subject:
        return self.named[name]

    def _deny_and_ask(self, group: tuple[Tool, ...], holders: Mapping[str, _Held]) -> None:
        # The holders of one plan add to the same entries: the first finds them.
        into: dict[_Plan, list[tuple[int | None, _Entries, list[_Built]]]] = {}
        for name, held in holders.items():
            known = into.get(held.plan)
            if known is not None:
                rules = held.rules
                for at, target, entries in known:
                    target.again(entries, Source(name, None if at is None else rules[at]))
                continue
            known = into[held.plan] = []
            for span, pattern in held.plan.stops:
                target = self.deny if span.action == "deny" else self.ask
                entries = self._add(target, group, pattern, Source(name, _rule(held, span)))
                known.append((span.at, target, entries))

    def _add(
        self, target: _Entries, group: tuple[Tool, ...], pattern: Pattern, source: Source
    ) -> list[_Built]:
        if pattern.whole:
            return [target.add(tool.name, pattern, source) for tool in group]
        return [target.add(claude_rules.rule_tool(group).name, pattern, source)]

    def _allows(
        self, group: tuple[Tool, ...], holders: Mapping[str, _Held]
    ) -> dict[str, _Objections]:
        """Write every allow no holder objects to; return, per OpenCode pattern that
        was not written, who objected (None: no exact Claude form)."""
        kind = group[0].kind
        denied = _Heads(self.deny.exact(group), self.prune)
        stopped = _Heads(dict.fromkeys(denied.patterns + self.ask.exact(group)), self.prune)
        outlines = _Outlines((held.plan for held in holders.values()), self.prune)
        # as many plans as agents: read objections compactly (see COMPACT_FROM)
        compact = self.compact and len(outlines.ids) >= COMPACT_FROM
        ordered = _Holders(holders, outlines) if compact else None
        rejected: dict[str, _Objections] = {}
        # Neither the objections nor what an allow adds depend on who writes it:
        # each pattern is judged once (None: it adds nothing).
        judged: dict[str, Pattern | None] = {}
        # Whether a pattern is written is decided at its first holder, so the
        # holders of one plan write the same allows: the first finds them.
        into: dict[_Plan, list[tuple[int | None, list[_Built]]]] = {}
        for name, held in holders.items():
            known = into.get(held.plan)
            if known is not None:
                rules = held.rules
                for at, entries in known:
                    self.allow.again(entries, Source(name, None if at is None else rules[at]))
                continue
            known = into[held.plan] = []
            for span in held.plan.spans:
                if span.action != "allow" or span.pattern in rejected:
                    continue
                if span.pattern not in judged:
                    pattern = claude_rules.inside(kind, span.pattern)
                    if pattern is None:
                        rejected[span.pattern] = None
                        continue
                    blockers: _Objections
                    if ordered is not None:
                        blockers = self._objected(pattern, ordered, outlines, denied, stopped)
                    else:
                        blockers = self._objections(pattern, holders, outlines, denied, stopped)
                    if blockers:
                        rejected[span.pattern] = blockers
                        continue
                    adds = any(hits((g,), stopped.select((g,))) for g in pattern.reach)
                    judged[span.pattern] = pattern if adds else None
                written = judged[span.pattern]
                if written is not None:
                    source = Source(name, _rule(held, span))
                    known.append((span.at, self._add(self.allow, group, written, source)))
        return rejected

    def _objections(
        self,
        pattern: Pattern,
        holders: Mapping[str, _Held],
        outlines: _Outlines,
        denied: _Heads,
        stopped: _Heads,
    ) -> list[Source]:
        """Every holder with a denied or asked region the allow would reach, at
        its first such region. Which region that is depends on the plan alone,
        and for a plan with no pattern near the allow's, on its outline."""
        near = outlines.near(pattern.reach)
        first: dict[_Plan, Span | None] = {}
        by_outline: dict[int, int | None] = {}  # outline -> position of that region
        found: list[Source] = []
        for name, held in holders.items():
            plan = held.plan
            if plan not in first:
                if near is None or plan in near:
                    first[plan] = self._first(pattern, plan, denied, stopped)
                else:
                    number = outlines.ids[plan]
                    if number not in by_outline:
                        span = self._first(pattern, plan, denied, stopped)
                        by_outline[number] = None if span is None else plan.spans.index(span)
                    at = by_outline[number]
                    first[plan] = None if at is None else plan.spans[at]
            span = first[plan]
            if span is not None:
                found.append(self._objector(name, _rule(held, span)))
        return found

    def _objected(
        self,
        pattern: Pattern,
        holders: _Holders,
        outlines: _Outlines,
        denied: _Heads,
        stopped: _Heads,
    ) -> _Objected | None:
        """_objections() as the regions found per outline and for the plans near the
        allow, never a Source per holder: when maps differ, nearly every holder
        objects to every other's allows, and the lists would hold N² Sources."""
        near = outlines.near(pattern.reach)
        plans = holders.positions if near is None else near
        own = {plan: self._first(pattern, plan, denied, stopped) for plan in plans}
        verdicts: list[int | None] = []
        for same in holders.plans:  # per outline, read at its first plan not near
            plan = next((p for p in same if p not in own), None)
            span = None if plan is None else self._first(pattern, plan, denied, stopped)
            verdicts.append(None if plan is None or span is None else plan.spans.index(span))
        if all(at is None for at in verdicts) and all(s is None for s in own.values()):
            return None
        return _Objected(holders, tuple(verdicts), own)

    def _objector(self, name: str, rule: Rule | None) -> Source:
        """The Source of an objection, one object per agent and rule: when maps
        differ, each agent objects to nearly every other agent's allows, and a
        Source per objection held N² of them (300 MB at 1,000 agents)."""
        key = (name, id(rule))  # the rules outlive the planner
        found = self.objectors.get(key)
        if found is None:
            found = self.objectors[key] = Source(name, rule)
        return found

    def _first(self, pattern: Pattern, plan: _Plan, denied: _Heads, stopped: _Heads) -> Span | None:
        objects = (s for s in plan.spans if _objects(pattern, s, denied, stopped, self.prune))
        return next(objects, None)

    # --- what each agent loses ------------------------------------------------------------

    def _left_out(
        self, subject: Subject, group: tuple[Tool, ...], plan: _Plan, block: Span
    ) -> None:
        names = _join([t.name for t in group])
        why = "deny" if block.action == "deny" else "ask for"
        rule = None if block.at is None else subject.rules[block.at]
        written = f" (`{rule.text()}`)" if rule else ""
        message = (
            f"{names}: lost, left out of {subject.name}'s tools: Claude Code "
            f"cannot {why} only part of `{group[0].permission}` for one agent{written}"
        )
        for span in plan.spans:
            if span.action != "deny" and span.at is not None:
                self._note(subject, subject.rules[span.at], message)

    def _losses(
        self,
        group: tuple[Tool, ...],
        holders: Mapping[str, _Held],
        rejected: Mapping[str, _Objections],
    ) -> None:
        # What the settings hold for these tools is fixed by now: read it once.
        denies = self.deny.of(group)
        asks_ = [e for e in self.ask.of(group) if (e.tool, e.specifier) not in self.deny.items]
        stopped = tuple(g for e in (*denies, *asks_) for g in e.exact)
        written = _Heads(self.allow.exact(group) + stopped, self.prune)
        # each span meets only the entries it may overlap
        by_deny = _Reach(denies, self.prune)
        by_ask = _Reach(asks_, self.prune)
        names = _join([t.name for t in group])
        # Why a region is narrowed depends on its plan; the words name the agent.
        found: dict[_Plan, list[tuple[int, list[_Reason]]]] = {}
        left = Counter(held.plan for held in holders.values())  # holders still to write
        for name, held in holders.items():
            lost = found.get(held.plan)
            if lost is None:
                lost = found[held.plan] = []
                for span in held.plan.spans:
                    if span.action == "deny" or span.at is None:
                        continue
                    reasons = self._reasons(span, group, by_deny, by_ask, written, rejected)
                    if reasons:
                        lost.append((span.at, reasons))
            left[held.plan] -= 1
            if not left[held.plan]:
                del found[held.plan]  # its last holder: its writers may go
            if not lost:
                continue
            subject = self._by_name(name)
            for at, reasons in lost:
                words = "; ".join(reason.words(subject) for reason in reasons)
                self._note(subject, held.rules[at], f"{names}: {words}")

    def _reasons(
        self,
        span: Span,
        group: tuple[Tool, ...],
        denies: _Reach,
        asks_: _Reach,
        written: _Heads,
        rejected: Mapping[str, _Objections],
    ) -> list[_Reason]:
        reasons = self._met("denied", denies, span)
        if span.action == "allow":
            reasons += self._met("asked", asks_, span)
        include = (span.pattern,)
        later = _related(include, span.later, self.prune)
        if (
            span.action == "allow"
            and group[0].asks
            and _hits_past(include, later, written.select(include), self.prune)
        ):
            blockers = rejected.get(span.pattern)
            who = self._who(blockers) if isinstance(blockers, list) else blockers
            reasons.append(_Reason("not allowed", [], who))
        return reasons

    def _met(self, kind: str, reach: _Reach, span: Span) -> list[_Reason]:
        """The reason the entries the span meets give, if any."""
        if self.compact and self.prune and len(reach.candidates_of(span)) >= COMPACT_FROM:
            met = reach.meeting(span)
            return [_Reason(kind, met.entries(4), met.who(self._writers))] if met else []
        hit = reach.overlapping(span)
        return [_Reason(kind, hit, self._who(hit))] if hit else []

    # --- task: Agent(...) -----------------------------------------------------------------

    def _task(self, kept: dict[str, set[str]]) -> None:
        bundle = [s for s in self.subjects if s.removable]
        spawnable = [s.name for s in bundle if s.agent.mode != "primary"]
        for primary in (s for s in bundle if s.agent.mode == "primary"):
            self.deny.add(
                "Agent",
                Pattern(primary.name, (primary.name,), (primary.name,)),
                Source(primary.name, None),
                agent=True,
            )
        main = next((s for s in self.subjects if not s.removable), None)
        if main is not None:
            decide = Decider(main.rules, "task")
            for name in spawnable:
                decision = decide(name)
                if decision.action != "allow":
                    target = self.deny if decision.action == "deny" else self.ask
                    target.add(
                        "Agent",
                        Pattern(name, (name,), (name,)),
                        Source(MAIN, decision.rule),
                        agent=True,
                    )
        # Every Agent entry is written by now: who blocks each subagent, in order.
        blocked: dict[str | None, list[Entry]] = {}
        for entry in (*self.deny.of(_AGENT), *self.ask.of(_AGENT)):
            blocked.setdefault(entry.specifier, []).append(entry)
        denied = set(self.deny.items.values())
        positions: dict[str, list[int]] = {}
        for index, name in enumerate(spawnable):
            positions.setdefault(wildcard.normal(name), []).append(index)
        for subject in bundle:
            if subject.agent.mode == "subagent":
                continue
            # evaluate(rules, "task", name) for the names it may allow or ask for
            reached = subject.agent.task_decider.reaching(("allow", "ask"))
            names = (
                spawnable
                if reached is None
                else [
                    spawnable[i] for i in sorted(i for n in reached for i in positions.get(n, ()))
                ]
            )
            self._spawn(subject, names, blocked, denied, kept)

    def _spawn(
        self,
        subject: Subject,
        names: list[str],
        blocked: Mapping[str | None, list[Entry]],
        denied: set[Entry],
        kept: dict[str, set[str]],
    ) -> None:
        allowed: list[str] = []
        for name in names:
            decision = subject.agent.task_decider(name)
            if decision.action == "ask":
                self._note(
                    subject,
                    decision.rule,
                    f"Agent: lost, {name} is left out of {subject.name}'s Agent(...): "
                    "Claude Code cannot ask before starting a subagent for one agent",
                )
            if decision.action != "allow":
                continue
            if name in blocked:
                verb = "denies" if blocked[name][0] in denied else "asks before"
                self._note(
                    subject,
                    decision.rule,
                    f"Agent: narrowed, Claude Code {verb} starting {name}: the main thread "
                    "(OpenCode's default agent) does not allow it, and settings are shared",
                )
            allowed.append(name)
        self.spawn[subject.name] = tuple(allowed)
        if allowed:
            kept[subject.name].add("Agent")

    # --- permissions with no Claude tool --------------------------------------------------

    def _unmapped(self) -> None:
        # Whether a rule has words here depends on its permission and action (the
        # words may name the agent): the places are found once per shape.
        places: dict[int, list[int]] = {}
        for subject, shape in zip(self.subjects, self.shapes, strict=True):
            if not subject.removable:
                continue
            found = places.get(shape)
            if found is None:
                found = places[shape] = [
                    i
                    for i, rule in enumerate(subject.rules)
                    if _unmapped_message(subject, rule, self.custom) is not None
                ]
            rules = subject.agent.rules  # the start of subject.rules
            for index in found:
                if index >= len(rules):
                    break
                rule = rules[index]
                if rule.origin.kind not in ("agent", "config"):
                    continue
                message = _unmapped_message(subject, rule, self.custom)
                if message:
                    self._note(subject, rule, message)


_AGENT = claude_rules.group("task")


def _needs_whole(kind: str, asks: bool, span: Span) -> bool:
    if span.action == "allow" or (span.action == "ask" and asks):
        return False
    return claude_rules.cover(kind, span.pattern).whole


class _Reach:
    """Settings entries by the heads of their reach patterns (see _Heads)."""

    def __init__(self, entries: Sequence[Entry], prune: bool) -> None:
        self.entries = entries
        self.prune = prune
        self.owner = [i for i, e in enumerate(entries) for _ in e.reach]
        self.index = _Heads((g for e in entries for g in e.reach), prune)
        self.candidates: dict[str, list[int]] = {}
        # (span pattern, later patterns without a head) -> entry -> overlaps
        self.answers: dict[tuple[str, tuple[str, ...]], dict[int, bool]] = {}
        # the same key -> the candidates that overlap, as entries untouched read them
        self.shared: dict[tuple[str, tuple[str, ...]], _Shared] = {}
        self.sets: dict[str, set[int]] = {}  # span pattern -> its candidates
        # positions in a list of entries' sources (see _Tables)
        self.scale = 1 + max((len(e.sources) for e in entries), default=0)

    def candidates_of(self, span: Span) -> list[int]:
        """The entries with a reach pattern near the span's, in order."""
        candidates = self.candidates.get(span.pattern)
        if candidates is None:
            near = self.index.near(span.pattern)
            candidates = self.candidates[span.pattern] = sorted({self.owner[i] for i in near})
        return candidates

    def _touched(self, span: Span) -> set[int]:
        """The entries with a pattern near one of the span's later ones with a head.
        Any other entry meets only those without one (see _related): its answer
        holds for every span with the same pattern and those, as agents' own
        commands differ."""
        return {self.owner[i] for q in span.later if wildcard.head(q) for i in self.index.near(q)}

    def _answer(self, key: tuple[str, tuple[str, ...]], at: int) -> bool:
        answers = self.answers.setdefault(key, {})
        known = answers.get(at)
        if known is None:
            pattern, base = key
            known = answers[at] = any(hits((pattern, g), base) for g in self.entries[at].reach)
        return known

    def overlapping(self, span: Span) -> list[Entry]:
        """The entries with a reach pattern sharing an input with the span, in order:
        only entries with a reach pattern near the span's can."""
        candidates = self.candidates_of(span)
        touched = self._touched(span)
        key = (span.pattern, tuple(q for q in span.later if not wildcard.head(q)))
        found: list[Entry] = []
        for at in candidates:
            entry = self.entries[at]
            if not self.prune or at in touched:
                hit = any(self._hits(span, g) for g in entry.reach)
            else:
                hit = self._answer(key, at)
            if hit:
                found.append(entry)
        return found

    def meeting(self, span: Span) -> _Met | None:
        """overlapping() without listing the entries (None: there are none): those
        every span with the same pattern and later patterns without a head meets,
        read once, corrected at the entries its later patterns with a head touch.
        When agents' maps differ, a span of every input meets nearly every
        agent's deny, and the lists would hold N² entries. (Pruned only.)"""
        key = (span.pattern, tuple(q for q in span.later if not wildcard.head(q)))
        shared = self.shared.get(key)
        if shared is None:
            units = [at for at in self.candidates_of(span) if self._answer(key, at)]
            shared = self.shared[key] = _Shared(units, set(units))
        touched = self._touched(span)
        gone = touched & shared.members
        candidates = self._members(span)
        added = [
            at
            for at in sorted(touched & candidates)
            if any(self._hits(span, g) for g in self.entries[at].reach)
        ]
        if len(shared.units) == len(gone) and not added:
            return None
        return _Met(self, shared, gone, added)

    def _members(self, span: Span) -> set[int]:
        found = self.sets.get(span.pattern)
        if found is None:
            found = self.sets[span.pattern] = set(self.candidates_of(span))
        return found

    def _hits(self, span: Span, g: str) -> bool:
        include = (span.pattern, g)
        return hits(include, _related(include, span.later, self.prune))


@dataclass
class _Shared:
    """The entries every span with one pattern and later patterns without a
    head overlaps, by position in a _Reach, and who wrote them (built once)."""

    units: list[int]
    members: set[int]
    tables: _Tables | None = None
    started: int = 0  # how many are not of agents Claude Code never starts


class _Met:
    """The entries a span overlaps (see _Reach.meeting), and who wrote them, as
    a _Who of the list reads: the shared entries without `gone`, and `added`."""

    def __init__(self, reach: _Reach, shared: _Shared, gone: set[int], added: list[int]) -> None:
        self.reach = reach
        self.shared = shared
        self.gone = gone
        self.added = added
        self.read: _Patched | None = None
        self.writers: Callable[[Sequence[Source]], _Writers] = _Writers
        self.started_only = False  # set by who()

    def entries(self, limit: int) -> list[Entry]:
        """The first `limit` entries, in order."""
        kept = (at for at in self.shared.units if at not in self.gone)
        first = [*itertools.islice(kept, limit), *self.added]
        return [self.reach.entries[at] for at in sorted(first)[:limit]]

    def who(self, writers: Callable[[Sequence[Source]], _Writers]) -> _Met:
        """Ready to describe, with each entry's writers from `writers`."""
        if self.read is not None:
            return self
        entries, shared, scale = self.reach.entries, self.shared, self.reach.scale
        if shared.tables is None:
            shared.tables = _Tables(scale)
            for at in shared.units:
                part = writers(entries[at].sources)
                shared.tables.add(at, part)
                shared.started += not part.started_only
        added = _Tables(scale)
        changed: set[str] = set()
        started = shared.started
        for at in self.gone:
            part = writers(entries[at].sources)
            changed.update(part.first)
            started -= not part.started_only
        for at in self.added:
            part = writers(entries[at].sources)
            added.add(at, part)
            changed.update(part.first)
            started += not part.started_only
        self.started_only = not started
        self.writers = writers
        self.read = _Patched(shared.tables, self.gone, added, changed)
        return self

    @property
    def subjects(self) -> list[str]:
        """As _Who.subjects, read from every entry: asked only when every writer
        is an agent Claude Code never starts."""
        kept = [at for at in self.shared.units if at not in self.gone]
        parts = (self.writers(self.reach.entries[at].sources) for at in sorted(kept + self.added))
        return list(dict.fromkeys(s for p in parts for s in p.subjects))

    def describe(self, me: Subject) -> str:
        assert self.read is not None, "who() first"
        return self.read.describe(me)


def _objects(pattern: Pattern, span: Span, denied: _Heads, stopped: _Heads, prune: bool) -> bool:
    """An allow of `pattern` would reach into this denied or asked region
    beyond what the written denies (for an ask: denies and asks) already stop."""
    if span.action == "allow":
        return False
    covered = denied if span.action == "deny" else stopped
    for g in pattern.reach:
        include = (g, span.pattern)
        if wildcard.apart(include):
            continue  # hits() says no without its excludes
        later = _related(include, span.later, prune)
        if _hits_past(include, later, covered.select(include), prune):
            return True
    return False


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class _Writers:
    """Who wrote one list of sources: each writer's words at their first position."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.size = len(sources)
        self.first: dict[str, int] = {}  # each writer's words -> first position
        self.fixed: dict[str, int] = {}  # the same, for the words of non-agent rules
        self.own: dict[str, list[tuple[int, Rule]]] = {}  # agent -> its own rules here
        self.started_only = True  # every source is an agent Claude Code never starts
        for index, source in enumerate(sources):
            words, fixed = _writer(source.subject, source.rule)
            if fixed:
                self.fixed.setdefault(words, index)
            elif source.rule is not None and source.rule.origin.kind == "agent":
                self.own.setdefault(source.subject, []).append((index, source.rule))
            self.first.setdefault(words, index)
            self.started_only &= source.rule is None and source.subject != MAIN
        self.subjects = dict.fromkeys(s.subject for s in sources)


class _Who:
    """Who wrote the rules behind settings entries, in words, for each agent.

    The message names the first few writers of the entries' sources, in order,
    and counts the rest, leaving out the agent it is for (or naming its own rule
    instead). An entry may have a writer in every agent: each entry's sources
    are read once (_Writers), and each agent's message reads only what it shows
    and its own rules.
    """

    def __init__(self, parts: Sequence[_Writers]) -> None:
        self.parts = parts
        self.words: set[str] = set().union(*(p.first for p in parts))
        self.started_only = all(p.started_only for p in parts)
        self.others: str | None = None  # describe() for an agent not among the writers

    @property
    def subjects(self) -> list[str]:
        return list(dict.fromkeys(s for p in self.parts for s in p.subjects))

    def describe(self, me: Subject) -> str:
        """As listing every writer's words in order, without repeats, would read."""
        name = me.name
        if name not in self.words:
            # `me` wrote none of it (nor its own rules, whose words are its name):
            # the words read the same for every such agent.
            if self.others is None:
                self.others = self._describe(name)
            return self.others
        return self._describe(name)

    def _describe(self, name: str) -> str:
        fixed = [o + p.fixed[name] for o, p in self._offsets() if name in p.fixed]
        own = [(o + i, rule) for o, p in self._offsets() for i, rule in p.own.get(name, ())]
        return _listing(
            name,
            self.words.__contains__,
            len(self.words),
            fixed[0] if fixed else None,
            own,
            self._leading(name, 5),
        )

    def _offsets(self) -> Iterator[tuple[int, _Writers]]:
        offset = 0
        for part in self.parts:
            yield offset, part
            offset += part.size

    def _leading(self, skip: str, limit: int) -> list[tuple[int, str]]:
        """The first `limit` writers' words but `skip`, with their first positions."""
        found: list[tuple[int, str]] = []
        seen = {skip}
        for offset, part in self._offsets():
            for words, index in part.first.items():
                if words not in seen:
                    seen.add(words)
                    found.append((offset + index, words))
                    if len(found) == limit:
                        return found
        return found


_WRITERS = {"config": "the config's `permission`", "session": "OpenCode's subagent defaults"}


def _writer(subject: str, rule: Rule | None) -> tuple[str, bool]:
    """A source's words in a list of writers, and whether they are those of a
    non-agent rule (the same for every agent) rather than the subject's name."""
    kind = rule.origin.kind if rule else None
    if kind == "agent" or kind is None:
        return subject, False
    return _WRITERS.get(kind, "OpenCode's built-in rules"), True


def _listing(
    name: str,
    has: Callable[[str], bool],
    count: int,
    fixed: int | None,
    own: list[tuple[int, Rule]],
    leading: list[tuple[int, str]],
) -> str:
    """The words of a list of writers for agent `name`, from what it shows: which
    words it has and how many, the first position of `name` as a non-agent
    rule's words, `name`'s own rules with their positions, and the first five
    writers' words but `name`, with their first positions."""
    gone = has(name) and fixed is None  # only `me` wrote it
    texts = dict.fromkeys(f"its own `{rule.text()}`" for _, rule in own)
    count -= gone
    count += sum(1 for t in texts if not has(t) or (gone and t == name))
    found = [
        *leading,
        *((i, f"its own `{rule.text()}`") for i, rule in own),
        *([(fixed, name)] if fixed is not None else []),
    ]
    words = list(dict.fromkeys(w for _, w in sorted(found)))
    if count > 4:  # a long list hides the point
        words = [*words[:3], f"{count - 3} more"]
    return _join(words[:count])


class _Tables:
    """Who wrote a list of sources, by position: each writer's words at their
    first position in each part, those of non-agent rules again, and each
    agent's own rules. A position is `part * scale + index in the part`, so
    positions keep the list's order when parts are left out."""

    def __init__(self, scale: int) -> None:
        self.scale = scale
        self.positions: dict[str, list[int]] = {}
        self.fixed: dict[str, list[int]] = {}
        self.own: dict[str, list[tuple[int, Rule]]] = {}

    def add(self, part: int, writers: _Writers) -> None:
        base = part * self.scale
        for words, index in writers.first.items():
            self.positions.setdefault(words, []).append(base + index)
        for words, index in writers.fixed.items():
            self.fixed.setdefault(words, []).append(base + index)
        for name, rules in writers.own.items():
            self.own.setdefault(name, []).extend((base + i, rule) for i, rule in rules)


def _first_of(base: Sequence[int], gone: Callable[[int], bool], added: Sequence[int]) -> int | None:
    """The first of `base` not `gone`, or of `added`, whichever comes first."""
    found = next((i for i in base if not gone(i)), None)
    extra = min(added, default=None)
    if found is None or (extra is not None and extra < found):
        return extra
    return found


class _Patched:
    """The writers of a list of sources read from those of a longer or nearby
    list (`base`, shared by many) without some of its parts (`gone`) and with
    some more (`added`): describe() reads only the words the change touches
    (`changed`) and the first few others, where the list may hold a writer in
    every agent."""

    def __init__(self, base: _Tables, gone: set[int], added: _Tables, changed: set[str]) -> None:
        self.base = base
        self.gone = gone
        self.added = added
        self.changed = changed
        self.others: str | None = None  # describe() for an agent not among the writers
        self.count = len(base.positions)
        self.count -= sum(1 for w in changed if w in base.positions)
        self.count += sum(1 for w in changed if self._first(w) is not None)

    def _left(self, position: int) -> bool:
        return position // self.base.scale in self.gone

    def _first(self, words: str) -> int | None:
        base = self.base.positions.get(words, ())
        if words not in self.changed:
            return base[0] if base else None
        return _first_of(base, self._left, self.added.positions.get(words, ()))

    def has(self, words: str) -> bool:
        return self._first(words) is not None

    def _leading(self, skip: str, limit: int) -> list[tuple[int, str]]:
        """The first `limit` writers' words but `skip`, with their first positions:
        among the first `limit` unchanged ones and the changed ones."""
        found: list[tuple[int, str]] = []
        for words, positions in self.base.positions.items():
            if len(found) == limit:
                break
            if words != skip and words not in self.changed:
                found.append((positions[0], words))
        for words in self.changed:
            first = self._first(words)
            if words != skip and first is not None:
                found.append((first, words))
        return sorted(found)[:limit]

    def describe(self, me: Subject) -> str:
        """As _Who.describe() for the whole list."""
        name = me.name
        if not self.has(name):
            if self.others is None:
                self.others = self._describe(name)
            return self.others
        return self._describe(name)

    def _describe(self, name: str) -> str:
        fixed = _first_of(self.base.fixed.get(name, ()), self._left, self.added.fixed.get(name, ()))
        kept = [o for o in self.base.own.get(name, ()) if not self._left(o[0])]
        own = sorted([*kept, *self.added.own.get(name, ())], key=lambda o: o[0])
        return _listing(name, self.has, self.count, fixed, own, self._leading(name, 5))


class _Holders:
    """A permission's holders in order, by plan and by outline (see _Outlines):
    lists of objections are read from these (see _Objected)."""

    def __init__(self, holders: Mapping[str, _Held], outlines: _Outlines) -> None:
        self.names = list(holders)
        self.held = list(holders.values())
        self.at = {name: i for i, name in enumerate(self.names)}
        self.number = [outlines.ids[held.plan] for held in self.held]
        self.positions: dict[_Plan, list[int]] = {}  # plan -> its holders' positions
        self.plans: list[list[_Plan]] = []  # outline -> its plans, in order
        for i, held in enumerate(self.held):
            positions = self.positions.get(held.plan)
            if positions is None:
                positions = self.positions[held.plan] = []
                if self.number[i] == len(self.plans):
                    self.plans.append([])
                self.plans[self.number[i]].append(held.plan)
            positions.append(i)
        self.summaries: dict[tuple[int | None, ...], _Tables] = {}

    def add(self, tables: _Tables, i: int, span: Span) -> None:
        """Holder `i`'s objection at `span` into the tables."""
        tables.add(i, _Writers((Source(self.names[i], _rule(self.held[i], span)),)))

    def words(self, i: int, span: Span) -> str:
        return _writer(self.names[i], _rule(self.held[i], span))[0]

    def summary(self, verdicts: tuple[int | None, ...]) -> _Tables:
        """Who objects to an allow when each holder's first region in its way is
        read from its outline. Allows that no holder's own patterns are near read
        the same summary, so it is built once for all of them."""
        found = self.summaries.get(verdicts)
        if found is None:
            found = self.summaries[verdicts] = _Tables(1)
            for i, held in enumerate(self.held):
                at = verdicts[self.number[i]]
                if at is not None:
                    self.add(found, i, held.plan.spans[at])
        return found


class _Objected:
    """The holders objecting to an allow, as _objections() lists them (a Source
    per holder, at a holder's position in `holders`), without listing them: the
    first region in the allow's way per outline (the index of its span, None:
    none) and per plan near the allow (`own`). describe() reads the summary of
    the outlines' verdicts, corrected at the near plans' holders: a few per
    allow, where the list holds nearly every holder."""

    def __init__(
        self, holders: _Holders, verdicts: tuple[int | None, ...], own: dict[_Plan, Span | None]
    ) -> None:
        self.holders = holders
        self.verdicts = verdicts
        self.own = own
        self.read: _Patched | None = None

    def _read(self) -> _Patched:
        gone: set[int] = set()
        added = _Tables(1)
        changed: set[str] = set()
        for plan, span in self.own.items():
            at = self.verdicts[self.holders.number[self.holders.positions[plan][0]]]
            for i in self.holders.positions[plan]:
                gone.add(i)
                if at is not None:
                    changed.add(self.holders.words(i, plan.spans[at]))
                if span is not None:
                    self.holders.add(added, i, span)
                    changed.add(self.holders.words(i, span))
        return _Patched(self.holders.summary(self.verdicts), gone, added, changed)

    def describe(self, me: Subject) -> str:
        """As _Who.describe() for the list of objections."""
        if self.read is None:
            self.read = self._read()
        return self.read.describe(me)


# Who objects to an allow that is not written: every Source (compact=False), or
# the same read without listing them; None: the pattern has no exact Claude form.
_Objections = list[Source] | _Objected | None


def _entries(hit: list[Entry]) -> str:
    shown = [f"`{e.text({})}`" for e in hit[:3]]
    return _join(shown) + (" and more" if len(hit) > 3 else "")


def _denied(subject: Subject, hit: list[Entry], who: _Who | _Met) -> str:
    if who.started_only:
        names = _join(who.subjects)
        return f"narrowed to deny: Claude Code never starts {names} as a subagent"
    return (
        f"narrowed to deny: the shared settings deny {_entries(hit)} "
        f"(from {who.describe(subject)}), and a deny applies to every agent"
    )


def _asked(subject: Subject, hit: list[Entry], who: _Who | _Met) -> str:
    return (
        f"narrowed to ask: the shared settings ask for {_entries(hit)} "
        f"(from {who.describe(subject)}), and an ask beats any allow"
    )


def _not_allowed(subject: Subject, who: _Who | _Met | _Objected | None) -> str:
    if who is None:
        return "narrowed to ask: the pattern has no exact Claude Code form"
    return (
        "narrowed to ask: settings are shared, and OpenCode does not allow all of it "
        f"for {who.describe(subject)}"
    )


def _unmapped_message(subject: Subject, rule: Rule, custom: set[str]) -> str | None:
    key = rule.permission
    if key in claude_rules.PERMISSIONS or key in ("*", "list"):
        return None
    if key == "external_directory":
        if rule.action == "allow":
            return (
                "narrowed to ask: Claude Code has no per-agent access to folders outside "
                "the project; it asks each time"
            )
        if rule.action == "deny":
            return (
                "not kept: Claude Code has no per-agent folder rules; it asks before "
                "touching files outside the project instead of denying"
            )
        return None
    if key == "doom_loop":
        if rule.action == "allow":
            return None
        return "not kept: Claude Code never stops a repeated identical tool call to ask"
    if rule.action == "deny":
        return None
    if key in _NO_TOOL or key in custom or "*" in key or key.startswith("mcp"):
        return f"lost: Claude Code gives {subject.name} no `{key}` tool"
    return None

"""Translate OpenCode permissions into Claude Code tools and settings, never granting more.

The decision model this keeps below OpenCode's, and how the tools and settings
rules are chosen: docs/targets/claude.md ("Permissions: never more than
OpenCode"). OpenCode's decision is the agent's resolved rule list (a subagent,
and an agent of mode `all`, with the `todowrite` and `task` denies the task
tool appends; for `task`, an `all` agent's primary rules, as it is the only
context in which it can start subagents). Inputs are what OpenCode matches: the
command, the path relative to the project, the subagent's id; Claude Code is
assumed to run in the project root. A shell line of several commands is split
and decided per command by both runtimes, so the model speaks of single
commands. Everything that cannot be expressed is a Loss: one message per
OpenCode rule and agent (rules from OpenCode's built-in defaults and from the
config are shared by every agent and reported once).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from promptc_compiler.core.project import Project, Skill
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import Rule, evaluate, reaching
from promptc_compiler.permissions.runtime import Runtime
from promptc_compiler.runtimes.claude import permission_rules as claude_rules
from promptc_compiler.runtimes.claude import variants
from promptc_compiler.runtimes.claude.permission_rules import Pattern, Tool
from promptc_compiler.runtimes.translation import (
    MAIN,
    Loss,
    Source,
    Span,
    Subject,
    Translator,
    allows_every,
    hits,
    join_names,
    main_agent,
    spans,
    subjects,
)

_NO_TOOL = {"external_directory", "doom_loop", "plan_enter", "plan_exit"}
Run = tuple[Source, ...]  # sources recorded together, which entries hold as one (_Runs)


class Entry(NamedTuple):
    """One settings rule: `Tool` or `Tool(specifier)`."""

    tool: str
    specifier: str | None
    exact: tuple[str, ...]
    reach: tuple[str, ...]
    # Whose rules it stands for, in order: the runs it was written for, each
    # held as recorded (the same run may stand in many entries: _Runs).
    runs: tuple[Run, ...] = ()
    agent: bool = False  # the specifier is an agent id

    def text(self, namer: Mapping[str, str]) -> str:
        if self.specifier is None:
            return self.tool
        spec = namer.get(self.specifier, self.specifier) if self.agent else self.specifier
        return f"{self.tool}({spec})"


class Translation(NamedTuple):
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


def _translate(project: Project, opencode: Runtime) -> Translation:
    found, patterns = subjects(project, opencode)
    main = main_agent(project, {s.name: s.agent for s in found})
    return _Planner(found, main, project.config.custom_tools, patterns).run()


def _translate_plugin(project: Project, opencode: Runtime) -> Translation:
    found, patterns = subjects(project, opencode)
    bundle = tuple(s for s in found if s.removable)  # the plugin does not hold the main thread
    return _Planner(bundle, None, project.config.custom_tools, patterns, shared=False).run()


# The Claude Code tools and settings for a bundle (a run works each out once);
# the plugin's carry no settings: each agent keeps only the tools Claude
# Code's own defaults keep within OpenCode's rules.
TRANSLATOR = Translator(_translate)
PLUGIN_TRANSLATOR = Translator(_translate_plugin)


def skill_grants(
    translation: Translation, patterns: wildcard.Patterns, skill: Skill
) -> dict[str, str | None]:
    """Each `allowed-tools` rule of the skill: None when Claude Code may keep it, else
    why not. Claude Code pre-approves those tools for whoever loads the skill, and
    OpenCode's `skill` permission says who may (a deny: not that agent).
    `translation`: TRANSLATOR's, whose subjects are every agent and the main
    thread; `patterns`: the run's answers about patterns."""
    loaders = [
        s for s in translation.subjects if evaluate(s.rules, "skill", skill.name).action != "deny"
    ]
    grants: dict[str, str | None] = {}
    for rule in claude_rules.split_rules(skill.spec.view("claude").get("allowed-tools")):
        reach = claude_rules.pre_approved(rule)
        # a whole Read, Edit, Glob, Grep or Bash holds outside the project too
        outside = reach is not None and reach[0] in _OUTSIDE and "(" not in rule
        wider = [
            s.name
            for s in loaders
            if not reach
            or not all(allows_every(patterns, s.rules, reach[0], p) for p in reach[1])
            or (outside and not allows_every(patterns, s.rules, "external_directory", "*"))
        ]
        if loaders and not wider:
            grants[rule] = None
            continue
        why = (
            f"OpenCode does not allow all of it for {join_names(wider)}"
            if wider
            else "no agent may load the skill in OpenCode, so no agent's rules vouch for it"
        )
        grants[rule] = (
            f"`{rule}` is left out of the Claude Code skill's `allowed-tools`: Claude Code "
            f"pre-approves it for any agent that loads the skill, and {why}"
        )
    return grants


# Claude tools whose specifiers are paths, which Claude Code matches in any case.
_PATH_TOOLS = frozenset(tool.name for tool in claude_rules.TOOLS if tool.kind == "path")


def _key(tool: str, specifier: str | None) -> tuple[str, str | None]:
    """One settings rule per tool and specifier; path specifiers that differ only
    in case (`**/.env*`, `**/.ENV*`) are one rule to Claude Code."""
    folded = specifier.lower() if specifier is not None and tool in _PATH_TOOLS else specifier
    return tool, folded


@dataclass
class _Built:
    """An entry while rules are still added to it."""

    specifier: str | None  # as first written
    exact: dict[str, None] = field(default_factory=dict)
    reach: dict[str, None] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)
    agent: bool = False


@dataclass
class _Entries:
    # Built in place and frozen when read: one entry may gather a source from
    # every agent, and rebuilding it per source would cost N² for N agents.
    built: dict[tuple[str, str | None], _Built] = field(default_factory=dict)

    def add(self, tool: str, pattern: Pattern, run: Run, agent: bool = False) -> None:
        """Write the rule for the sources of `run`, which the entry keeps as it is."""
        key = _key(tool, pattern.specifier)
        entry = self.built.get(key)
        if entry is None:
            entry = self.built[key] = _Built(pattern.specifier)
        entry.exact.update(dict.fromkeys(pattern.exact))
        entry.reach.update(dict.fromkeys(pattern.reach))
        entry.runs.append(run)
        entry.agent = agent

    @property
    def items(self) -> dict[tuple[str, str | None], Entry]:
        return {
            (tool, key): Entry(
                tool, b.specifier, tuple(b.exact), tuple(b.reach), tuple(b.runs), b.agent
            )
            for (tool, key), b in self.built.items()
        }

    def of(self, tools: tuple[Tool, ...]) -> list[Entry]:
        names = {t.name for t in tools}
        return [e for e in self.items.values() if e.tool in names]

    def exact(self, tools: tuple[Tool, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(g for e in self.of(tools) for g in e.exact))


class _Held(NamedTuple):
    """A subject that holds a permission's tools: its rules and their spans."""

    rules: tuple[Rule, ...]
    plan: _Plan


Group = tuple[Tool, ...]  # the Claude tools of one OpenCode permission
Holders = Mapping[str, _Held]  # by subject name
Rejected = Mapping[str, "_Who | None"]  # allows not written, by pattern: who objected


class _Plan:
    """One permission's spans in a rule list, and what follows from them alone:
    every subject whose rules have the same (permission, pattern, action)s
    shares it, and reads its own rule at each span's index."""

    def __init__(self, shape: int, found: tuple[Span, ...], kind: str, asks: bool) -> None:
        self.shape = shape  # its subjects' (_Planner.shapes)
        self.spans = found
        self.first_stop = next((s for s in found if s.action != "allow"), None)
        self.denies_all = all(s.action == "deny" for s in self.spans)
        # the first region only a whole-tool rule could deny or ask for
        self.blocking = next((s for s in self.spans if _needs_whole(kind, asks, s)), None)
        # the settings deny and ask rules its other regions become, in order
        self.stops: list[tuple[Span, Pattern]] = []
        for span in self.spans:
            if span.action == "allow":
                continue
            pattern = claude_rules.cover(kind, span.pattern, span.action)
            if span.action == "ask" and pattern.whole and asks:
                continue  # the tool asks anyway
            self.stops.append((span, pattern))


class _Runs:
    """The holders' sources, each at the region its plan gives, as one run.

    The region is asked of each plan, not of each holder, and each distinct
    answer of the plans makes one run: where agents share a map, it asks for
    every read-only command (claude_rules.READ_ONLY, 119) in the same region,
    and those entries hold one run of a Source per agent, not a Source per
    agent each (119,000 at 1,000 agents)."""

    def __init__(self, holders: Holders) -> None:
        self.holders = holders
        self.plans = tuple(dict.fromkeys(held.plan for held in holders.values()))
        self.made: dict[tuple[Span | None, ...], Run] = {}

    def at(self, region: Callable[[_Plan], Span | None]) -> Run:
        """Each holder's source at the region of its plan (None: none), in order."""
        found = tuple(region(plan) for plan in self.plans)
        run = self.made.get(found)
        if run is None:
            where = dict(zip(self.plans, found, strict=True))
            run = self.made[found] = tuple(
                Source(name, _rule(held, span))
                for name, held in self.holders.items()
                if (span := where[held.plan]) is not None
            )
        return run


class _ByHead:
    """Items filed under how their patterns start (wildcard.start), to find
    those that may start as a pattern does without comparing it with each."""

    def __init__(self, patterns: wildcard.Patterns) -> None:
        self.patterns = patterns
        # by head: the items of patterns without, then with, the optional trailing ` *`
        self.filed: dict[str, tuple[list[int], list[int]]] = {}
        self._sorted: list[str] | None = None
        # the items near each start asked about since the last add: a translation
        # asks about the same few starts (`*`, `git *`) for every agent
        self._near: dict[wildcard.Start, frozenset[int]] = {}

    def add(self, pattern: str, item: int) -> None:
        start = self.patterns.start(pattern)
        self.filed.setdefault(start.head, ([], []))[start.spaced].append(item)
        self._sorted = None
        self._near.clear()

    def near(self, globs: Iterable[str]) -> set[int]:
        """The items with a pattern that may start as one of the globs does
        (wildcard.may_meet): those whose head the glob's head starts with, and
        those starting with it, but where a trailing ` *` needs a space the
        other head does not have there (`git status 1 *`, `git status 12 *`)."""
        found: set[int] = set()
        for glob in globs:
            start = self.patterns.start(glob)
            items = self._near.get(start)
            if items is None:
                items = self._near[start] = self._starting(start)
            found.update(items)
        return found

    def _starting(self, start: wildcard.Start) -> frozenset[int]:
        if self._sorted is None:
            self._sorted = sorted(self.filed)
        head, spaced = start
        found: set[int] = set()
        for end in range(len(head) + 1):
            plain, with_space = self.filed.get(head[:end], _NONE)
            found.update(plain)
            if end == len(head) or head[end] == " ":
                found.update(with_space)
        at = bisect.bisect_right(self._sorted, head)
        for other in itertools.islice(self._sorted, at, None):
            if not other.startswith(head):
                break
            if not spaced or other[len(head)] == " ":
                for items in self.filed[other]:
                    found.update(items)
        return frozenset(found)


_NONE: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # filed under no head


class _Filed:
    """Settings entries filed by the heads of what they reach (_ByHead), to find
    those a span shares an input with.

    A span is its pattern but its later rules, and a later rule apart from
    every glob an entry reaches (their heads differ before either ends) takes
    nothing from what the entry shares with the pattern. So which entries
    meet the pattern is worked out once per pattern, and for each span only
    the entries a later rule may start like are weighed again: with a map per
    agent, every agent's `"*": ask` meets every other agent's deny, and its
    own later rules are apart from nearly all of them (300 agents: 90,000
    questions, now 300 and a few per agent).
    """

    def __init__(self, patterns: wildcard.Patterns, entries: list[Entry]) -> None:
        self.patterns = patterns
        self.entries = entries
        self.by_head = _ByHead(patterns)
        for number, entry in enumerate(entries):
            for g in entry.reach:
                self.by_head.add(g, number)
        self.meeting: dict[str, list[int]] = {}  # pattern -> the entries it shares an input with

    def met(self, span: Span) -> list[int]:
        """The entries the span shares an input with, by number, in order."""
        meeting = self.meeting.get(span.pattern)
        if meeting is None:
            # Only the entries that may start as the pattern does (a map per agent: few).
            near = sorted(self.by_head.near((span.pattern,)))
            meeting = [n for n in near if self._shares(n, span.pattern, ())]
            self.meeting[span.pattern] = meeting
        touched = self.by_head.near(span.later) if span.later else set()
        return [n for n in meeting if n not in touched or self._shares(n, span.pattern, span.later)]

    def writers(self, numbers: list[int]) -> _Who | None:
        """Who wrote the entries `numbers`, as the pool of every entry's sources
        less those of the others, when they are few (a fifth of the pool at
        most) and no two entries share a run (a run's sources stand where it is
        first met); else None.

        With a map per agent, each agent's `"*": ask` meets every other agent's
        deny: each list of writers is every agent but one, read once here
        rather than once per agent."""
        found = self._pool
        if found is None:
            return None
        pool, ranges = found
        kept = sum(ranges[n][1] - ranges[n][0] for n in numbers)
        if (len(pool.sources) - kept) * 5 > len(pool.sources):
            return None
        missed = set(range(len(ranges))).difference(numbers)
        return _Who(pool, frozenset(i for n in missed for i in range(*ranges[n])))

    @functools.cached_property
    def _pool(self) -> tuple[_Pool, list[tuple[int, int]]] | None:
        """Every entry's sources in order, and where each entry's stand; None
        when two entries, or one twice, hold a run."""
        seen: set[int] = set()
        sources: list[Source] = []
        ranges = []
        for entry in self.entries:
            start = len(sources)
            for run in entry.runs:
                if id(run) in seen:
                    return None
                seen.add(id(run))
                sources += run
            ranges.append((start, len(sources)))
        return _Pool(sources), ranges

    def _shares(self, number: int, pattern: str, later: tuple[str, ...]) -> bool:
        reach = self.entries[number].reach
        return any(hits(self.patterns, (pattern, g), later) for g in reach)


class _Heads:
    """Which plans an allow can reach into, found without asking each one.

    A plan whose denied and asked regions all start apart from the allow (their
    patterns' heads differ before either ends, and so do those of the rules
    after them) decides it only through its regions that match every input:
    plans alike in those are alike for that allow. With a map per agent, each
    allow is then weighed against the few plans that name something it may
    start like, and once against each shape of the rest, not against every
    agent's plan (300 agents: 271,000 questions).

    A glob that starts with a wildcard may start like anything: every allow of
    a command reaches the same few (`*'*`: Claude Code also runs it quoted,
    variants.reach), which made every plan one to ask. The allow's other globs
    pick its plans as above; each plan is weighed against those few once
    (`anywhere`), and only where they may come first."""

    def __init__(
        self,
        patterns: wildcard.Patterns,
        holders: Holders,
        denied: tuple[str, ...],
        stopped: tuple[str, ...],
    ) -> None:
        # Each plan's holders, by their position in `holders` (the order objectors are named in).
        self.holders: dict[_Plan, list[tuple[int, str, _Held]]] = {}
        for position, (name, held) in enumerate(holders.items()):
            self.holders.setdefault(held.plan, []).append((position, name, held))
        self.plans = list(self.holders)
        self.patterns = patterns
        # One Source per agent and rule that objects, by the rule's index in the
        # agent's list: hashing a Rule reads all of its fields.
        self._sources: dict[tuple[str, int | None], Source] = {}
        # Per shape, answer and globs that start with a wildcard: each holder's
        # source, and its plan (see chunk).
        self._chunks: dict[Chunked, list[tuple[tuple[int, Source], _Plan]]] = {}
        self._pools: dict[tuple[Chunked, ...], tuple[_Pool, dict[_Plan, list[int]]]] = {}
        # The written denies, and denies and asks, an allow must stay clear of.
        self.denied, self.stopped = denied, stopped
        self._near: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        # Per plan and globs that start with a wildcard: the first region they reach.
        self.anywhere: dict[tuple[_Plan, tuple[str, ...]], Span | None] = {}
        self._denied, self._stopped = _ByHead(patterns), _ByHead(patterns)
        for filed, texts in ((self._denied, denied), (self._stopped, stopped)):
            for number, text in enumerate(texts):
                filed.add(text, number)
        self.by_head = _ByHead(patterns)
        self.shape: dict[_Plan, Shape] = {}
        self.wide: dict[_Plan, list[Span]] = {}  # its denied and asked regions of every input
        for number, plan in enumerate(self.plans):
            shape, wide = [], []
            for span in plan.spans:
                if span.action == "allow":
                    continue
                for text in (span.pattern, *span.later):
                    if not patterns.universal(text):
                        self.by_head.add(text, number)
                if patterns.universal(span.pattern):
                    every = tuple(t for t in span.later if patterns.universal(t))
                    shape.append((span.action, span.pattern, every))
                    wide.append(span)
            self.shape[plan], self.wide[plan] = tuple(shape), wide
        self.by_shape: dict[Shape, list[_Plan]] = {}  # the plans of each shape, in order
        for plan in self.plans:
            self.by_shape.setdefault(self.shape[plan], []).append(plan)

    def sources(self, plan: _Plan, span: Span) -> list[tuple[int, Source]]:
        """The plan's holders' sources at `span`, with their positions."""
        found = []
        for position, name, held in self.holders[plan]:
            source = self._sources.get((name, span.at))
            if source is None:
                source = self._sources[name, span.at] = Source(name, _rule(held, span))
            found.append((position, source))
        return found

    def chunk(
        self,
        shape: Shape,
        at: int | None,
        anywhere: tuple[str, ...],
        reach: Callable[[_Plan, Span | None, tuple[str, ...], _Heads], Span | None],
    ) -> list[tuple[tuple[int, Source], _Plan]]:
        """The sources of the holders of every plan of `shape`, at its wide region
        `at` (None: none) or the earlier region the globs `anywhere` reach
        (`reach`), each with its plan: read once per answer, not once per allow."""
        key = (shape, at, anywhere)
        found = self._chunks.get(key)
        if found is None:
            found = self._chunks[key] = []
            for plan in self.by_shape[shape]:
                met = reach(plan, None if at is None else self.wide[plan][at], anywhere, self)
                if met is not None:
                    found.extend((item, plan) for item in self.sources(plan, met))
        return found

    def pool(
        self,
        chunks: tuple[Chunked, ...],
        reach: Callable[[_Plan, Span | None, tuple[str, ...], _Heads], Span | None],
    ) -> tuple[_Pool, dict[_Plan, list[int]]]:
        """The sources of the chunks (see chunk), ordered by their holders'
        places, and where each plan's holders stand among them: read once."""
        found = self._pools.get(chunks)
        if found is None:
            items = sorted(
                (item for key in chunks for item in self.chunk(*key, reach)),
                key=lambda item: item[0][0],
            )
            by_plan: dict[_Plan, list[int]] = {}
            for index, (_, plan) in enumerate(items):
                by_plan.setdefault(plan, []).append(index)
            pool = _Pool([source for (_, source), _ in items], [at for (at, _), _ in items])
            found = self._pools[chunks] = (pool, by_plan)
        return found

    def near(self, globs: Iterable[str]) -> set[_Plan]:
        """The plans with a pattern that may start as one of the globs does."""
        return {self.plans[number] for number in self.by_head.near(globs)}

    def near_written(self, glob: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The written denies, and the written denies and asks, that may start as
        the glob does, in order; once per glob, which allows share (their other
        spellings)."""
        if glob not in self._near:
            denied = tuple(self.denied[n] for n in sorted(self._denied.near((glob,))))
            stopped = tuple(self.stopped[n] for n in sorted(self._stopped.near((glob,))))
            self._near[glob] = denied, stopped
        return self._near[glob]

    def split(self, globs: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The globs with a head, then those that start with a wildcard."""
        heads = [bool(self.patterns.head(g)) for g in globs]
        own = tuple(g for g, head in zip(globs, heads, strict=True) if head)
        return own, tuple(g for g, head in zip(globs, heads, strict=True) if not head)


# A plan's denied and asked regions of every input: (action, pattern, the later
# patterns of every input), in order.
Shape = tuple[tuple[str, str, tuple[str, ...]], ...]
Chunked = tuple[Shape, int | None, tuple[str, ...]]  # see _Heads.chunk


class _Reason(NamedTuple):
    """Why an allow or ask is narrowed: in words once the agent is known."""

    kind: str  # denied | asked | not allowed | spelled
    hit: list[Entry]  # the entries met
    who: _Who | None  # None: the pattern has no exact Claude Code form
    pattern: str = ""  # the OpenCode pattern, for "spelled"

    def words(self, subject: Subject) -> str:
        if self.kind == "denied" and self.who is not None:
            return _denied(subject, self.hit, self.who)
        if self.kind == "asked" and self.who is not None:
            return _asked(subject, self.hit, self.who)
        if self.kind == "spelled" and self.who is not None:
            return _spelled(subject, self.pattern, self.who)
        return _not_allowed(subject, self.who)


def _rule(held: _Held, span: Span) -> Rule | None:
    return None if span.at is None else held.rules[span.at]


class _Planner:
    def __init__(
        self,
        subjects: tuple[Subject, ...],
        main: str | None,
        custom_tools: Iterable[str],
        patterns: wildcard.Patterns,
        *,
        shared: bool = True,
    ) -> None:
        self.subjects = subjects
        self.patterns = patterns
        self.shared = shared  # False: no settings file, Claude Code's defaults only
        # the first subject of each name, as a search in order would find it
        self.named = {s.name: s for s in reversed(self.subjects)}
        self.main = main
        self.custom = set(custom_tools)
        self.tools: dict[str, list[str]] = {s.name: [] for s in self.subjects if s.removable}
        self.spawn: dict[str, tuple[str, ...]] = {}
        self.deny, self.ask, self.allow = _Entries(), _Entries(), _Entries()
        # The entry lists _losses weighs, each filed by head (see _filed).
        self.filed: list[_Filed] = []
        self.written: tuple[tuple[str, ...], _ByHead] | None = None  # see _near_written
        self.notes: dict[tuple[str, Rule], list[str]] = {}
        # Agents repeat their permission maps: subjects whose rules have the same
        # (permission, pattern, action)s have one number (the first one's index)
        # and share their plans and spans.
        shapes: dict[tuple[tuple[str, str, str], ...], int] = {}
        self.shapes = [
            shapes.setdefault(tuple([(r.permission, r.pattern, r.action) for r in s.rules]), i)
            for i, s in enumerate(self.subjects)
        ]
        self.shape_of = {s.name: shape for s, shape in zip(subjects, self.shapes, strict=True)}
        self.spans: dict[tuple[int, str], tuple[Span, ...]] = {}  # see _spans
        # The writers of the last list of runs entries met, read again when the
        # next span meets the same runs (the agent's next rule, most often):
        # 300 agents with a map each meet 1,504 lists, 600 the one before.
        self.writers: tuple[list[Run], _Who] | None = None
        # Per plan and read-only command: the first region OpenCode asks or denies it in.
        self.read_only: dict[tuple[int, str], Span | None] = {}
        self.fronts: dict[int, Span | None] = {}  # per plan: see _first_front
        # Allows left out only because Claude Code would run other spellings of them.
        self.spelled: set[str] = set()
        # Agents for whom Claude Code cannot deny what OpenCode denies outside the
        # project: the region that says so.
        self.outside: dict[str, Span] = {}

    def run(self) -> Translation:
        kept: dict[str, set[str]] = {name: set() for name in self.tools}
        self._external()
        for permission in claude_rules.PERMISSIONS:
            if permission == "task":
                self._task(kept)
            else:
                self._permission(permission, kept)
        self._unmapped()
        for name, held in kept.items():
            if "Bash" in held and held & _SEARCH:
                held -= _SEARCH
                self._searches_in_bash(self.named[name])
        tools = {
            name: tuple(t for t in claude_rules.TOOL_NAMES if t in kept[name]) for name in kept
        }
        losses = Loss.gather(self.notes)
        denied = set(self.deny.built)
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

    def _spans(self, shape: int, permission: str) -> tuple[Span, ...]:
        """The spans of `permission` for the subjects of a shape, worked out once."""
        key = (shape, permission)
        if key not in self.spans:
            self.spans[key] = spans(self.patterns, self.subjects[shape].rules, permission)
        return self.spans[key]

    def _note(self, subject: Subject, rule: Rule | None, message: str) -> None:
        if rule is not None:
            self.notes.setdefault((subject.name, rule), []).append(message)

    # --- tools decided by patterns or as a whole ------------------------------------------

    def _permission(self, permission: str, kept: dict[str, set[str]]) -> None:
        group = claude_rules.group(permission)
        kind, asks = group[0].kind, group[0].asks_always
        names = [t.name for t in group]
        plans: dict[int, _Plan] = {}
        holders: dict[str, _Held] = {}
        for subject, shape in zip(self.subjects, self.shapes, strict=True):
            plan = plans.get(shape)
            if plan is None:
                found = self._spans(shape, permission)
                plan = plans[shape] = _Plan(shape, found, kind, asks)
            if subject.removable and plan.denies_all:
                continue
            outside = self.outside.get(subject.name) if permission in _OUTSIDE else None
            if outside is not None and subject.removable:
                self._left_out(subject, group, plan, outside, _OUTSIDE_WHY)
                continue
            block = plan.blocking if self.shared else self._unsafe_default(group, plan)
            if block is not None and subject.removable:
                why = None if self.shared else _DEFAULT_WHY
                self._left_out(subject, group, plan, block, why)
                continue
            holders[subject.name] = _Held(subject.rules, plan)
            if subject.removable:
                kept[subject.name].update(names)
        if not self.shared:
            self._default_losses(group, holders)
            return
        self._deny_and_ask(group, holders)
        if permission == "bash":
            self._ask_read_only(group, holders)
        rejected = self._allows(group, holders) if asks else {}
        self.writers = None
        self._losses(group, holders, rejected)

    # --- what Claude Code does with no rule -----------------------------------------------

    def _read_only_span(self, plan: _Plan, form: str) -> Span | None:
        """The first region of the plan that asks or denies some run of the read-only
        command `form` (alone or with arguments) in some spelling Claude Code runs
        unasked (`git  status`, `'git' status`, `LANG=C git status`: variants)."""
        key = (id(plan), form)
        if key not in self.read_only:
            self.read_only[key] = self._first_stop(plan, self._spellings[form])
            if self.read_only[key] is None:
                self.read_only[key] = self._first_front(plan)
        return self.read_only[key]

    @functools.cached_property
    def _spellings(self) -> dict[str, tuple[str, ...]]:
        """Each read-only command's spellings (variants.spellings), for every plan."""
        return {form: variants.spellings(form) for form in claude_rules.READ_ONLY}

    def _first_front(self, plan: _Plan) -> Span | None:
        """What may stand in front of any command: one answer per plan."""
        if id(plan) not in self.fronts:
            self.fronts[id(plan)] = self._first_stop(plan, variants.fronts())
        return self.fronts[id(plan)]

    def _first_stop(self, plan: _Plan, globs: tuple[str, ...]) -> Span | None:
        """The plan's first region that asks or denies an input of one of the globs."""
        found = (
            span
            for span in plan.spans
            if span.action != "allow"
            for glob in globs
            if hits(self.patterns, (glob, span.pattern), span.later)
        )
        return next(found, None)

    def _ask_read_only(self, group: Group, holders: Holders) -> None:
        """Claude Code runs its read-only commands unasked unless a rule asks or
        denies them: ask for each one some holder's OpenCode does not allow. An
        agent with Bash searches with `find` and `grep` (Claude Code offers it no
        Glob and Grep): where its `glob` or `grep` is not allowed, they are
        asked for too, or denied where OpenCode denies the search."""
        runs = _Runs(holders)
        self._search_through_bash(runs)
        stopped = tuple(dict.fromkeys(self.deny.exact(group) + self.ask.exact(group)))
        heads = _Heads(self.patterns, holders, (), ())
        fronts = self._first_stops(heads, variants.fronts())
        for form in claude_rules.READ_ONLY:
            pattern = f"{form} *"
            stops = self._first_stops(heads, self._spellings[form])
            region = {plan: stops[plan] or fronts[plan] for plan in stops}
            run = runs.at(region.__getitem__)
            if run and hits(self.patterns, (pattern,), stopped):
                self.ask.add("Bash", Pattern(pattern, (pattern,), (pattern,)), run)

    def _first_stops(self, heads: _Heads, globs: tuple[str, ...]) -> dict[_Plan, Span | None]:
        """_first_stop of every plan: asked of the plans that name something the
        globs may start like, and of one plan of each shape for the rest (_Heads):
        with a map per agent, asking each plan for each of the 119 read-only
        commands was 36,000 questions at 300 agents."""
        loud = heads.near(globs)
        found: dict[_Plan, Span | None] = {}
        for plans in heads.by_shape.values():
            quiet = next((plan for plan in plans if plan not in loud), None)
            met = None if quiet is None else self._first_stop(quiet, globs)
            at = None if met is None or quiet is None else heads.wide[quiet].index(met)
            for plan in plans:
                if plan in loud:
                    found[plan] = self._first_stop(plan, globs)
                else:
                    found[plan] = None if at is None else heads.wide[plan][at]
        return found

    def _search_through_bash(self, runs: _Runs) -> None:
        for permission, form in _SEARCH_COMMANDS.items():
            pattern = Pattern(f"{form} *", (f"{form} *",), (f"{form} *",))
            for target, action in ((self.deny, "deny"), (self.ask, "ask")):
                found = functools.partial(self._search_span, permission=permission, action=action)
                run = runs.at(found)
                if run:
                    target.add("Bash", pattern, run)

    def _search_span(self, plan: _Plan, permission: str, action: str | None = None) -> Span | None:
        """The first region of `glob` or `grep` OpenCode asks or denies (a deny
        first) for the subjects of the plan, if its action is `action` (None: any)."""
        found = [s for s in self._spans(plan.shape, permission) if s.action != "allow"]
        span = next((s for s in found if s.action == "deny"), found[0] if found else None)
        return span if span is None or action in (None, span.action) else None

    def _unsafe_default(self, group: Group, plan: _Plan) -> Span | None:
        """With no settings: the first region where Claude Code's own default for the
        tools decides more than OpenCode (they ask: a deny; they run unasked: an
        ask or a deny; Bash: a read-only command, or a search it makes for Glob
        and Grep, OpenCode asks or denies)."""
        tool = group[0]
        if tool.name == "Bash":
            searches = (self._search_span(plan, p) for p in _SEARCH_COMMANDS)
            searched = next((span for span in searches if span is not None), None)
            if searched is not None:
                return searched
        for span in plan.spans:
            # Read asks outside the project itself, as OpenCode does there
            outside = tool.name == "Read" and span.pattern.startswith("/")
            if span.action == "deny" or (
                span.action == "ask" and not tool.asks_always and not outside
            ):
                return span
        if tool.name == "Bash":
            found = (self._read_only_span(plan, form) for form in claude_rules.READ_ONLY)
            return next((span for span in found if span is not None), None)
        return None

    def _default_losses(self, group: Group, holders: Holders) -> None:
        """With no settings, an allow of a tool Claude Code asks for is an ask."""
        if not group[0].asks_always:
            return
        names = join_names([t.name for t in group])
        for name, held in holders.items():
            for span in held.plan.spans:
                if span.action == "allow" and span.at is not None:
                    self._note(
                        self.named[name],
                        held.rules[span.at],
                        f"{names}: narrowed to ask: a plugin carries no settings, and Claude "
                        "Code asks for these tools when no rule allows them",
                    )

    # --- folders outside the project ------------------------------------------------------

    def _external(self) -> None:
        """OpenCode's `external_directory` denies: a folder Claude Code can name becomes
        a Read and an Edit deny (they hold for the shell's file commands and for Glob
        and Grep too); where it cannot (every folder, or a pattern that starts with a
        wildcard), the agent's file and shell tools are left out."""
        for subject, shape in zip(self.subjects, self.shapes, strict=True):
            for span in self._spans(shape, "external_directory"):
                if span.action != "deny":
                    continue
                rule = None if span.at is None else subject.rules[span.at]
                if not span.pattern.startswith("/"):
                    if span.pattern[:1] in "*?" and subject.name not in self.outside:
                        self.outside[subject.name] = span
                    continue  # otherwise relative: it matches no folder outside the project
                if not self.shared:
                    self.outside.setdefault(subject.name, span)
                    continue
                pattern = claude_rules.cover("path", span.pattern)
                run = (Source(subject.name, rule),)
                for tool in ("Read", "Edit"):
                    self.deny.add(tool, pattern, run)

    def _deny_and_ask(self, group: Group, holders: Holders) -> None:
        for name, held in holders.items():
            for span, pattern in held.plan.stops:
                target = self.deny if span.action == "deny" else self.ask
                self._add(target, group, pattern, (Source(name, _rule(held, span)),))

    def _add(self, target: _Entries, group: Group, pattern: Pattern, run: Run) -> None:
        tools = group if pattern.whole else (claude_rules.rule_tool(group),)
        for tool in tools:
            target.add(tool.name, pattern, run)

    def _allows(self, group: Group, holders: Holders) -> dict[str, _Who | None]:
        """Write every allow no holder objects to; return, per OpenCode pattern that
        was not written, who objected (None: no exact Claude form)."""
        kind = group[0].kind
        denied = self.deny.exact(group)
        stopped = tuple(dict.fromkeys(denied + self.ask.exact(group)))
        rejected: dict[str, _Who | None] = {}
        # Neither the objections nor what an allow adds depend on who writes it:
        # each pattern is judged once (None: it adds nothing).
        judged: dict[str, Pattern | None] = {}
        heads = _Heads(self.patterns, holders, denied, stopped)
        for name, held in holders.items():
            for span in held.plan.spans:
                if span.action != "allow" or span.pattern in rejected:
                    continue
                if span.pattern not in judged:
                    pattern = claude_rules.inside(kind, span.pattern)
                    if pattern is None:
                        rejected[span.pattern] = None
                        continue
                    blockers = self._objections(pattern, heads)
                    if blockers.size:
                        rejected[span.pattern] = blockers
                        plain = replace(pattern, reach=pattern.exact)
                        if (
                            pattern.reach != pattern.exact
                            and blockers.size > self._objections(plain, heads).size
                        ):
                            self.spelled.add(span.pattern)  # some object to other spellings
                        continue
                    adds = any(hits(self.patterns, (g,), stopped) for g in pattern.exact)
                    judged[span.pattern] = pattern if adds else None
                written = judged[span.pattern]
                if written is not None:
                    self._add(self.allow, group, written, (Source(name, _rule(held, span)),))
        return rejected

    def _objections(self, pattern: Pattern, heads: _Heads) -> _Who:
        """Every holder with a denied or asked region the allow would reach, at
        its first such region (which depends on the plan alone), in order.

        The plans that name something the allow's globs may start like are
        asked one by one; each shape of the others once, and its holders' sources
        at that answer are read from the pool made for it (_Heads.pool): with a
        map per agent, every agent objects to nearly every other agent's allows,
        and asking each plan for each allow took seconds at 300 agents. The
        objectors are that pool less the holders of the plans asked one by one,
        and those of them that object: not listed again for each allow."""
        own, anywhere = heads.split(pattern.reach)
        loud = heads.near(own)
        found: list[tuple[int, Source]] = []
        for plan in loud:
            met = self._anywhere(plan, self._first(own, plan, heads), anywhere, heads)
            if met is not None:
                found.extend(heads.sources(plan, met))
        chunks: list[Chunked] = []
        for shape, plans in heads.by_shape.items():
            quiet = next((plan for plan in plans if plan not in loud), None)
            if quiet is None:
                continue
            met = self._first(own, quiet, heads)
            at = None if met is None else heads.wide[quiet].index(met)
            chunks.append((shape, at, anywhere))
        pool, by_plan = heads.pool(tuple(chunks), self._anywhere)
        removed = frozenset(i for plan in loud for i in by_plan.get(plan, ()))
        if len(removed) * 5 > len(pool.sources):
            # Most of the pool is left out: the rest are listed, as a pool of their own.
            places, sources = pool.places, pool.sources
            found += [(places[i], sources[i]) for i in range(len(sources)) if i not in removed]
            pool, removed = _Pool([]), frozenset()
        found.sort(key=operator.itemgetter(0))
        return _Who(pool, removed, found)

    def _anywhere(
        self, plan: _Plan, met: Span | None, anywhere: tuple[str, ...], heads: _Heads
    ) -> Span | None:
        """The plan's first region an allow reaches, given the first its globs with
        a head reach (`met`): the globs that start with a wildcard may reach one
        before it."""
        if not anywhere or met == plan.first_stop:
            return met
        return _earliest(plan, (met, self._first_anywhere(anywhere, plan, heads)))

    def _first(self, globs: tuple[str, ...], plan: _Plan, heads: _Heads) -> Span | None:
        """The plan's first denied or asked region an allow reaching `globs` would
        reach into beyond what the written denies (for an ask: denies and asks)
        stop. Only the written rules that may start as a glob does are weighed:
        with a map per agent they number in the hundreds, and nearly all of them
        are apart from any one allow."""
        for span in plan.spans:
            if span.action == "allow":
                continue
            for g in globs:
                denied, stopped = heads.near_written(g)
                covered = denied if span.action == "deny" else stopped
                if hits(self.patterns, (g, span.pattern), span.later + covered):
                    return span
        return None

    def _first_anywhere(self, globs: tuple[str, ...], plan: _Plan, heads: _Heads) -> Span | None:
        """_first of globs that start with a wildcard, once per plan (_Heads)."""
        key = (plan, globs)
        if key not in heads.anywhere:
            heads.anywhere[key] = self._first(globs, plan, heads)
        return heads.anywhere[key]

    # --- what each agent loses ------------------------------------------------------------

    def _left_out(
        self, subject: Subject, group: Group, plan: _Plan, block: Span, why: str | None = None
    ) -> None:
        names = join_names([t.name for t in group])
        rule = None if block.at is None else subject.rules[block.at]
        written = f" (`{rule.text()}`)" if rule else ""
        if why is None:
            verb = "deny" if block.action == "deny" else "ask for"
            why = f"Claude Code cannot {verb} only part of `{group[0].permission}` for one agent"
        message = f"{names}: lost, left out of {subject.name}'s tools: {why}{written}"
        for span in plan.spans:
            if span.action != "deny" and span.at is not None:
                self._note(subject, subject.rules[span.at], message)

    def _losses(self, group: Group, holders: Holders, rejected: Rejected) -> None:
        # What the settings hold for these tools is fixed by now: read it once.
        denies = self.deny.of(group)
        asks_ = [e for e in self.ask.of(group) if _key(e.tool, e.specifier) not in self.deny.built]
        self.filed = []  # this group's lists only
        stopped = tuple(g for e in (*denies, *asks_) for g in e.exact)
        written = tuple(dict.fromkeys(self.allow.exact(group) + stopped))
        names = join_names([t.name for t in group])
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
                    reasons = self._reasons(span, group, denies, asks_, written, rejected)
                    if reasons:
                        lost.append((span.at, reasons))
            left[held.plan] -= 1
            if not left[held.plan]:
                del found[held.plan]  # its last holder: its writers may go
            if not lost:
                continue
            subject = self.named[name]
            for at, reasons in lost:
                words = "; ".join(reason.words(subject) for reason in reasons)
                self._note(subject, held.rules[at], f"{names}: {words}")

    def _reasons(
        self,
        span: Span,
        group: Group,
        denies: list[Entry],
        asks_: list[Entry],
        written: tuple[str, ...],
        rejected: Rejected,
    ) -> list[_Reason]:
        reasons = self._met("denied", denies, span)
        if span.action == "allow":
            reasons += self._met("asked", asks_, span)
        if (
            span.action == "allow"
            and group[0].asks_always
            and hits(self.patterns, (span.pattern,), span.later + self._near_written(written, span))
        ):
            who = rejected.get(span.pattern)
            kind = "spelled" if span.pattern in self.spelled else "not allowed"
            reasons.append(_Reason(kind, [], who, span.pattern))
        return reasons

    def _near_written(self, written: tuple[str, ...], span: Span) -> tuple[str, ...]:
        """The written patterns that may start as the span does, in order (those
        apart from it change no answer, and a map per agent writes hundreds)."""
        if self.written is None or self.written[0] is not written:
            filed = _ByHead(self.patterns)
            for number, text in enumerate(written):
                filed.add(text, number)
            self.written = (written, filed)
        return tuple(written[n] for n in sorted(self.written[1].near((span.pattern,))))

    def _filed(self, entries: list[Entry]) -> _Filed:
        """The entries filed by the heads of what they reach, once per list."""
        for filed in self.filed:
            if filed.entries is entries:
                return filed
        filed = _Filed(self.patterns, entries)
        self.filed.append(filed)
        return filed

    def _met(self, kind: str, entries: list[Entry], span: Span) -> list[_Reason]:
        """The reason the entries the span shares an input with give, if any."""
        filed = self._filed(entries)
        numbers = filed.met(span)
        if not numbers:
            return []
        hit = [entries[n] for n in numbers]
        who = filed.writers(numbers)
        if who is None:  # a list of its own
            who = self._writers([run for e in hit for run in e.runs])
        return [_Reason(kind, hit, who)]

    def _writers(self, runs: list[Run]) -> _Who:
        """Who wrote the runs: the last list's writers when these are its runs."""
        last = self.writers
        if last is not None and len(last[0]) == len(runs) and all(map(operator.is_, last[0], runs)):
            return last[1]
        who = _Who.of_runs(runs)
        self.writers = (runs, who)
        return who

    # --- task: Agent(...) -----------------------------------------------------------------

    def _task(self, kept: dict[str, set[str]]) -> None:
        bundle = [s for s in self.subjects if s.removable]
        # OpenCode's task tool starts no primary and no hidden agent
        spawnable = [s.name for s in bundle if s.agent.mode != "primary" and not s.agent.hidden]
        for primary in (s for s in bundle if s.agent.mode == "primary" and self.shared):
            self.deny.add(
                "Agent",
                Pattern(primary.name, (primary.name,), (primary.name,)),
                (Source(primary.name, None),),
                agent=True,
            )
        main = next((s for s in self.subjects if not s.removable), None)
        if main is not None:
            for name in spawnable:
                decision = evaluate(main.rules, "task", name)
                if decision.action != "allow":
                    target = self.deny if decision.action == "deny" else self.ask
                    target.add(
                        "Agent",
                        Pattern(name, (name,), (name,)),
                        (Source(MAIN, decision.rule),),
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
            reached = reaching(subject.agent.task_rules, "task", ("allow", "ask"))
            names = (
                spawnable
                if reached is None
                else [
                    spawnable[i] for i in sorted(i for n in reached for i in positions.get(n, ()))
                ]
            )
            if subject.agent.mode == "primary":
                self._spawn(subject, names, blocked, denied, kept)
            else:
                self._no_spawn(subject, names)

    def _no_spawn(self, subject: Subject, names: list[str]) -> None:
        """An agent that also runs as a subagent gets no Agent tool: Claude Code reads
        `Agent(...)` only for the main thread, and a subagent holding Agent starts any
        agent, Claude Code's own general-purpose one included."""
        self.spawn[subject.name] = ()
        for name in names:
            decision = evaluate(subject.agent.task_rules, "task", name)
            self._note(
                subject,
                decision.rule,
                f"Agent: lost, left out of {subject.name}'s tools: {subject.name} also runs "
                "as a subagent, where Claude Code reads no `Agent(...)` list and would let it "
                "start any agent",
            )

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
            decision = evaluate(subject.agent.task_rules, "task", name)
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

    def _searches_in_bash(self, subject: Subject) -> None:
        for permission in ("glob", "grep"):
            for span in self._spans(self.shape_of[subject.name], permission):
                if span.action != "deny" and span.at is not None:
                    self._note(
                        subject,
                        subject.rules[span.at],
                        "Glob and Grep: Claude Code offers neither beside Bash; the agent "
                        "searches with find and grep through Bash, as the shared rules decide",
                    )

    # --- permissions with no Claude tool --------------------------------------------------

    def _unmapped(self) -> None:
        for subject in self.subjects:
            if not subject.removable:
                continue
            for rule in subject.agent.rules:
                if rule.kind in ("agent", "config"):
                    message = _unmapped_message(subject, rule, self.custom)
                    if message:
                        self._note(subject, rule, message)


_AGENT = claude_rules.group("task")
_SEARCH = frozenset({"Glob", "Grep"})  # not offered beside Bash (claude 2.1.332)
# What an agent with Bash runs instead of Glob and Grep, by OpenCode permission.
_SEARCH_COMMANDS = {"glob": "find", "grep": "grep"}
# The tools that reach files outside the project (a path, a folder to search, a
# shell command's file), and why an agent loses them.
_OUTSIDE = frozenset({"read", "edit", "glob", "grep", "bash"})
_OUTSIDE_WHY = (
    "OpenCode denies it folders outside the project that Claude Code cannot name in a "
    "deny rule, and Claude Code only asks there"
)
_DEFAULT_WHY = (
    "a plugin carries no settings, and Claude Code's own default for these tools "
    "decides more than OpenCode here"
)


def _earliest(plan: _Plan, found: Iterable[Span | None]) -> Span | None:
    """The first of the plan's regions found (None: none is)."""
    return min((s for s in found if s is not None), key=plan.spans.index, default=None)


def _needs_whole(kind: str, asks: bool, span: Span) -> bool:
    if span.action == "allow" or (span.action == "ask" and asks):
        return False
    return claude_rules.cover(kind, span.pattern, span.action).whole


# Readings of a list of writers by a scan at C speed before its agents' rules
# are filed in Python (_Who._own). With a map per agent most lists are read by
# one or two agents; the read-only commands' asks of a shared map, by every one.
SCANS = 8


class _Pool:
    """Sources as lists of writers read them: each one's words and kind, in
    order, and its place (`places`: the holder's position among the holders,
    by which the sources of several pools are ordered; by default its index).

    A pool is read once for every list drawn from it: with a map per agent,
    the objectors to each agent's allows are every other agent, one pool
    less the few agents near the allow (see _Who)."""

    def __init__(self, sources: list[Source], places: Sequence[int] | None = None) -> None:
        self.sources = sources
        self.places = range(len(sources)) if places is None else places
        # Read in whole-list passes: a writer list may name every agent, and one
        # is read for nearly every agent's loss.
        kinds = [None if s.rule is None else s.rule.kind for s in sources]
        fixed_at = self.fixed_at = [k is not None and k != "agent" for k in kinds]
        words = self.words = [
            _WRITERS.get(k or "", _BUILT_IN) if fixed else s.subject
            for s, k, fixed in zip(sources, kinds, fixed_at, strict=True)
        ]
        self.kinds = kinds
        self.first = dict.fromkeys(words)  # each writer's words, in the order first met
        # the first index of the words of each non-agent rule (reversed: the first wins)
        self.fixed = {words[i]: i for i in reversed(range(len(words))) if fixed_at[i]}
        self._scans = 0  # readings by a scan so far (see own)
        self._own_by_name: dict[str, list[tuple[int, Rule]]] | None = None

    @functools.cached_property
    def tally(self) -> Counter[str]:
        """How many sources give each writer's words."""
        return Counter(self.words)

    @functools.cached_property
    def started(self) -> list[int]:
        """The indices of the sources that are not an agent Claude Code never starts."""
        return [i for i, s in enumerate(self.sources) if s.rule is not None or s.subject == MAIN]

    def indices(self, words: str, start: int = 0) -> Iterator[int]:
        """Where the words stand from index `start`, in order (list.index:
        scans at C speed)."""
        at = start - 1
        while True:
            try:
                at = self.words.index(words, at + 1)
            except ValueError:
                return
            yield at

    def own(self, name: str) -> list[tuple[int, Rule]]:
        """The agent's own rules among the sources, with their indices.

        Most lists are read for one agent's message: its name is looked up
        among the words (a scan at C speed). A list read for many (the
        read-only commands' asks, where agents share a map, name every agent)
        files every agent's rules once, past its first SCANS readings."""
        if self._own_by_name is None:
            if self._scans < SCANS:
                self._scans += 1
                return [
                    (i, rule) for i in self.indices(name) if (rule := self._rule(i)) is not None
                ]
            self._own_by_name = {}
            for at, (source, kind) in enumerate(zip(self.sources, self.kinds, strict=True)):
                if kind == "agent" and source.rule is not None:
                    self._own_by_name.setdefault(source.subject, []).append((at, source.rule))
        return self._own_by_name.get(name, [])

    def _rule(self, index: int) -> Rule | None:
        """The source's rule when it is an agent's own."""
        return self.sources[index].rule if self.kinds[index] == "agent" else None


class _Who:
    """Who wrote the rules behind settings entries, in words, for each agent.

    The message names the first few writers of the sources, in order, and counts
    the rest, leaving out the agent it is for (or naming its own rule instead),
    as listing every writer's words in order, without repeats, would read. An
    entry may have a writer in every agent: the sources are read once, and each
    agent's message reads only what it shows and its own rules.

    The sources are those of a pool less the indices `removed`, and those of
    `near`, a pool of the few sources placed among them: the objectors to an
    allow are read without listing them (_Planner._objections). Those of
    settings entries come in runs (of_runs). A run met again (the read-only
    commands' entries share one) repeats words and rules already read at
    earlier positions, which changes none of the words: it is read once, not
    once per entry that holds it.
    """

    def __init__(
        self,
        pool: _Pool,
        removed: frozenset[int] = frozenset(),
        near: Sequence[tuple[int, Source]] = (),
    ) -> None:
        self.pool, self.removed = pool, removed
        self._near = near  # the sources placed among the pool's, by their places
        self.size = len(pool.sources) - len(removed) + len(near)
        self.others: str | None = None  # describe() for an agent not among the writers
        # Nothing removed, nothing placed among them, each at its index: what
        # every list of runs is (see _describe).
        self.plain = not removed and not near and isinstance(pool.places, range)

    @functools.cached_property
    def near(self) -> _Pool | None:
        """The pool of the sources placed among the pool's: read only for a message
        (an allow's objectors to other spellings are only counted)."""
        near = self._near
        return _Pool([s for _, s in near], [at for at, _ in near]) if near else None

    @functools.cached_property
    def gone(self) -> set[str]:
        """The words only the removed sources gave: no longer among the writers."""
        pool = self.pool
        found = Counter(pool.words[i] for i in self.removed)
        return {w for w, count in found.items() if count == pool.tally[w]}

    @functools.cached_property
    def count(self) -> int:
        """How many writers' words there are."""
        pool, near, gone = self.pool, self.near, self.gone
        added = [w for w in near.first if w not in pool.first or w in gone] if near else []
        return len(pool.first) - len(gone) + len(added)

    @classmethod
    def of_runs(cls, runs: Iterable[Sequence[Source]]) -> _Who:
        distinct = {id(run): run for run in runs}.values()
        return cls(_Pool(list(itertools.chain.from_iterable(distinct))))

    @functools.cached_property
    def sources(self) -> list[Source]:
        """Every source, in order."""
        pool, near = self.pool, self.near
        if near is None and not self.removed:  # the pool's, as they are
            return pool.sources
        kept = [i for i in range(len(pool.sources)) if i not in self.removed]
        if near is None:
            return [pool.sources[i] for i in kept]
        placed = [(pool.places[i], pool.sources[i]) for i in kept]
        placed += [(near.places[i], source) for i, source in enumerate(near.sources)]
        return [source for _, source in sorted(placed, key=operator.itemgetter(0))]

    @functools.cached_property
    def subjects(self) -> list[str]:
        return list(dict.fromkeys(s.subject for s in self.sources))

    @functools.cached_property
    def started_only(self) -> bool:
        """Every source is an agent Claude Code never starts."""
        if self.plain:
            return all(s.rule is None and s.subject != MAIN for s in self.pool.sources)
        near = self.near
        kept = (i for i in self.pool.started if i not in self.removed)
        return next(kept, None) is None and (near is None or not near.started)

    def has(self, words: str) -> bool:
        if words in self.pool.first and not (self.removed and words in self.gone):
            return True
        return self.near is not None and words in self.near.first

    def describe(self, me: Subject) -> str:
        name = me.name
        if self.has(name):
            return self._describe(name)
        # `me` wrote none of it (nor its own rules, whose words are its name):
        # the words read the same for every such agent.
        if self.others is None:
            self.others = self._describe(name)
        return self.others

    def _describe(self, name: str) -> str:
        pool = self.pool
        if self.plain:
            # A list of runs, as nearly all are: each writer at its first index,
            # read without the bookkeeping of removals and places below, which
            # cost 10% of the translation of a map shared by 1,000 agents.
            others = itertools.islice((w for w in pool.first if w != name), 5)
            leading = [(pool.words.index(words), words) for words in others]
            first = pool.first
            return _listing(
                name, first.__contains__, len(first), pool.fixed.get(name), pool.own(name), leading
            )
        return _listing(
            name, self.has, self.count, self._fixed(name), self._own(name), self._leading(name)
        )

    def _leading(self, name: str) -> list[tuple[int, str]]:
        """The first five writers' words but `name`, with their first places.

        The pool's words are read in the order they first stand in it, each at
        its first index not removed: past five, a word stands later than the
        fifth unless a removal moved one, so the reading stops there."""
        pool, removed, near = self.pool, self.removed, self.near
        found: dict[str, int] = {}  # words -> first place
        fifth = 0  # the fifth place found, once five are
        for words in pool.first:
            if words == name:
                continue
            first = pool.words.index(words)
            if len(found) >= 5 and (not removed or pool.places[first] > fifth):
                break
            at: int | None = first
            while at in removed:
                at = next(pool.indices(words, at + 1), None)
            if at is not None:
                found[words] = pool.places[at]
                if len(found) >= 5:
                    fifth = sorted(found.values())[4]
        if near is not None:
            for words in near.first:
                if words != name:
                    at = near.places[near.words.index(words)]
                    found[words] = min(found.get(words, at), at)
        return sorted((at, words) for words, at in found.items())[:5]

    def _fixed(self, name: str) -> int | None:
        """The first place of `name` as a non-agent rule's words."""
        pool, near = self.pool, self.near
        found = []
        if name in pool.fixed:  # rarely: an agent named as a non-agent rule's words
            kept = (i for i in pool.indices(name) if pool.fixed_at[i] and i not in self.removed)
            found += [pool.places[i] for i in itertools.islice(kept, 1)]
        if near is not None and name in near.fixed:
            found.append(near.places[near.fixed[name]])
        return min(found, default=None)

    def _own(self, name: str) -> list[tuple[int, Rule]]:
        """The agent's own rules among the sources, with their places, in order."""
        pool, near = self.pool, self.near
        own = [(pool.places[i], rule) for i, rule in pool.own(name) if i not in self.removed]
        if near is not None and name in near.first:
            own += [(near.places[i], rule) for i, rule in near.own(name)]
            own.sort(key=operator.itemgetter(0))
        return own


# The words of a non-agent rule in a list of writers (the same for every agent).
_WRITERS = {"config": "the config's `permission`", "session": "OpenCode's subagent defaults"}
_BUILT_IN = "OpenCode's built-in rules"


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
    return join_names(words[:count])


def _entries(hit: list[Entry]) -> str:
    shown = [f"`{e.text({})}`" for e in hit[:3]]
    return join_names(shown) + (" and more" if len(hit) > 3 else "")


def _denied(subject: Subject, hit: list[Entry], who: _Who) -> str:
    if who.started_only:
        names = join_names(who.subjects)
        return f"narrowed to deny: Claude Code never starts {names} as a subagent"
    return (
        f"narrowed to deny: the shared settings deny {_entries(hit)} "
        f"(from {who.describe(subject)}), and a deny applies to every agent"
    )


def _asked(subject: Subject, hit: list[Entry], who: _Who) -> str:
    return (
        f"narrowed to ask: the shared settings ask for {_entries(hit)} "
        f"(from {who.describe(subject)}), and an ask beats any allow"
    )


def _spelled(subject: Subject, pattern: str, who: _Who) -> str:
    head = variants.first_words(pattern)
    words = head.split(" ")
    spelled = [" ".join(words).replace(" ", "  ", 1)] if len(words) > 1 else []
    shown = ", ".join(f"`{s}`" for s in [*spelled, f"\\{head}", f"LANG=C {head}"])
    return (
        f"narrowed to ask: Claude Code would also run other spellings of it ({shown}), "
        f"and OpenCode does not allow all of them for {who.describe(subject)}"
    )


def _not_allowed(subject: Subject, who: _Who | None) -> str:
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
        # A deny is written as Read and Edit denies, or costs the agent its file
        # tools (_Planner._external); an ask is what Claude Code does anyway.
        if rule.action == "allow":
            return (
                "narrowed to ask: Claude Code has no per-agent access to folders outside "
                "the project; it asks each time"
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

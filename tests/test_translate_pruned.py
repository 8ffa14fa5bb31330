"""The Claude translation asks each question with only the patterns it may be
about, and answers as asking with all of them.

When agents' maps differ, the written denies and asks are as many as the
bundle's agents, and every allow of every agent is a question about them.
compiler.translate indexes patterns by head (`_Heads`, `_Reach`,
`_Outlines`): two patterns whose heads differ before either ends share no
input (wildcard.apart), so an exclude apart from an include cannot change
whether some input is left. The oracles here are the plain definitions: the
filter by wildcard.apart, hits with every exclude, and the planner with
`prune=False`, which keeps every pattern near every other.

Nor does it list, per allow, every agent objecting to it, or per region every
entry it meets: both are read from what is shared by every allow (region)
that no agent's own patterns are near, corrected at the few they are
(`_Objected`, `_Reach.meeting`). The oracles are the lists, and the planner
with `compact=False`, which builds them.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import api, translate, wildcard
from compiler.permissions import Origin, Rule
from compiler.runtime import Agent
from compiler.translate import MAIN, Entry, Span, Subject, Translation, hits
from tests import bundles
from tests.conftest import every_field
from tests.strategies import bundle_on_disk
from tests.test_fast_paths import SOURCE, WRITER, describe_oracle
from tests.test_translate_shared import DEFAULTS

# Units that make heads differ, stop them (`*`, `?`), end them with the
# optional ` *`, count as `/` (`\`), or take two UTF-16 units (the emoji).
PATTERN = st.text(alphabet="ab *?/\\é😀", max_size=7)
PATTERNS = st.lists(PATTERN, max_size=10)


def near_oracle(patterns: list[str], pattern: str) -> frozenset[int]:
    return frozenset(i for i, q in enumerate(patterns) if not wildcard.apart((pattern, q)))


def select_oracle(patterns: list[str], include: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(q for q in patterns if not any(wildcard.apart((p, q)) for p in include))


@settings(max_examples=500, deadline=None)
@given(patterns=PATTERNS, asked=st.lists(PATTERN, max_size=3))
def test_near_is_every_pattern_not_apart(patterns: list[str], asked: list[str]) -> None:
    heads = translate._Heads(patterns)
    for pattern in (*patterns, *asked):
        assert heads.near(pattern) == near_oracle(patterns, pattern)
        assert heads.near(pattern) == near_oracle(patterns, pattern)  # remembered


@settings(max_examples=300, deadline=None)
@given(patterns=PATTERNS, include=st.lists(PATTERN, max_size=3))
def test_select_and_related_keep_the_patterns_near_every_include_in_order(
    patterns: list[str], include: list[str]
) -> None:
    heads = translate._Heads(patterns)
    expected = select_oracle(patterns, tuple(include))
    assert heads.select(tuple(include)) == expected
    assert translate._related(tuple(include), tuple(patterns), True) == expected
    # not pruning: every pattern
    assert translate._Heads(patterns, prune=False).select(tuple(include)) == tuple(patterns)
    assert translate._related(tuple(include), tuple(patterns), False) == tuple(patterns)


@settings(max_examples=200, deadline=None)
@given(patterns=st.lists(st.text(alphabet="ab*", min_size=1, max_size=6), max_size=8))
def test_near_keeps_heads_too_long_to_set_apart(patterns: list[str]) -> None:
    # wildcard.apart sets no two heads apart past SEARCH_LIMIT units together
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wildcard, "SEARCH_LIMIT", 5)
        heads = translate._Heads(patterns)
        for pattern in patterns:
            assert heads.near(pattern) == near_oracle(patterns, pattern)
            include = (pattern,)
            expected = select_oracle(patterns, include)
            assert translate._related(include, tuple(patterns), True) == expected


def test_near_sets_apart_only_heads_that_differ() -> None:
    patterns = ["git status *", "git *", "gi?", "*", "git status 1 *", "rm *", "git\\x"]
    heads = translate._Heads(patterns)
    found = [patterns[i] for i in sorted(heads.near("git status 2 *"))]
    assert found == ["git status *", "git *", "gi?", "*"]
    found = [patterns[i] for i in sorted(heads.near("git/x"))]  # `\` counts as `/`
    assert found == ["git *", "gi?", "*", "git\\x"]


# --- the questions: pruned as asked with every exclude ----------------------------------


@settings(max_examples=400, deadline=None)
@given(
    include=st.lists(PATTERN, min_size=1, max_size=2),
    own=st.lists(PATTERN, max_size=3),
    shared=PATTERNS,
)
def test_pruned_questions_answer_as_with_every_exclude(
    include: list[str], own: list[str], shared: list[str]
) -> None:
    ask = tuple(include)
    plain = hits(ask, (*own, *shared))
    near = translate._Heads(shared).select(ask)
    assert hits(ask, translate._related(ask, tuple(own), True) + near) == plain
    assert translate._hits_past(ask, tuple(own), tuple(shared)) == plain
    assert translate._hits_past(ask, tuple(own), tuple(shared), prune=False) == plain
    assert translate._hits_past(ask, translate._related(ask, tuple(own), True), near) == plain


def _entry(reach: list[str]) -> Entry:
    return Entry("Bash", reach[0] if reach else None, tuple(reach), tuple(reach))


@settings(max_examples=300, deadline=None)
@given(
    reaches=st.lists(st.lists(PATTERN, max_size=2), max_size=6),
    pattern=PATTERN,
    laters=st.lists(st.lists(PATTERN, max_size=3), min_size=1, max_size=3),
)
def test_overlapping_entries_are_those_a_span_shares_an_input_with(
    reaches: list[list[str]], pattern: str, laters: list[list[str]]
) -> None:
    # one index asked about spans with one pattern and other later ones, as
    # agents' `"*"` regions are, remembering answers between them
    entries = [_entry(reach) for reach in reaches]
    pruned, plain_index = translate._Reach(entries, True), translate._Reach(entries, False)
    for later in laters:
        span = Span(0, "allow", pattern, tuple(later))
        plain = [e for e in entries if any(hits((pattern, g), span.later) for g in e.reach)]
        assert pruned.overlapping(span) == plain
        assert plain_index.overlapping(span) == plain


@settings(max_examples=300, deadline=None)
@given(
    entries=st.lists(
        st.builds(
            lambda reach, sources: Entry("Bash", None, tuple(reach), tuple(reach), tuple(sources)),
            st.lists(PATTERN, max_size=2),
            st.lists(SOURCE, min_size=1, max_size=3),
        ),
        max_size=8,
    ),
    pattern=PATTERN,
    laters=st.lists(st.lists(PATTERN, max_size=3), min_size=1, max_size=3),
    readers=st.lists(WRITER, min_size=1, max_size=4),
)
def test_entries_met_read_as_the_overlapping_list(
    entries: list[Entry], pattern: str, laters: list[list[str]], readers: list[str]
) -> None:
    """meeting() reads as overlapping() and a _Who of the list: the first entries,
    who wrote them for each agent, and whether only agents never started did."""
    reach = translate._Reach(entries, True)
    for later in laters:
        span = Span(0, "allow", pattern, tuple(later))
        plain = reach.overlapping(span)
        met = reach.meeting(span)
        assert (met is None) is (not plain)
        if met is None:
            continue
        assert met.entries(4) == plain[:4]
        who = met.who(translate._Writers)
        sources = [source for entry in plain for source in entry.sources]
        for name in readers:
            subject = Subject(name, Agent(name, "primary", ()), ())
            assert who.describe(subject) == describe_oracle(sources, subject)
        started = all(s.rule is None and s.subject != MAIN for s in sources)
        assert who.started_only is started
        assert who.subjects == list(dict.fromkeys(s.subject for s in sources))


# --- translation: agents whose maps differ ------------------------------------------------

# Each agent's own commands, as monorepo agents have them, and some shared ones.
TEMPLATES = [
    "*",
    "git status {i} *",
    "git diff {i} *",
    "tool{i} *",
    "rm {i} *",
    "git *",
    "rm *",
    "{i}?",
    "é{i} *",
    "src/{i}/*",
    "*.env",
]
PERMISSIONS = ["bash", "bash", "bash", "edit", "read", "webfetch", "*"]
ACTIONS = ["allow", "ask", "deny"]
KEY = st.tuples(st.sampled_from(PERMISSIONS), st.sampled_from(TEMPLATES), st.sampled_from(ACTIONS))


def _rules(name: str, keys: list[tuple[str, str, str]], i: int) -> tuple[Rule, ...]:
    origin = functools.partial(Origin, "agent", name, Path(f"specs/agents/{name}.md"))
    return tuple(
        Rule(permission, template.format(i=i), action, origin(line, 5))
        for line, (permission, template, action) in enumerate(keys, start=4)
    )


@st.composite
def distinct(draw: st.DrawFn) -> tuple[tuple[Subject, ...], str | None]:
    found = []
    count = draw(st.integers(5, 30))
    for i in range(count):
        name = f"a{i}"
        keys = draw(st.lists(KEY, max_size=6))
        mode = draw(st.sampled_from(["subagent", "primary", "all"]))
        agent = Agent(name, mode, (*DEFAULTS, *_rules(name, keys, i)))
        found.append(Subject(name, agent, agent.effective(mode != "primary")))
    main = draw(st.sampled_from([None, "a0", f"a{count - 1}"]))
    if main is None:
        build = Agent("build", "primary", DEFAULTS)
        found.append(Subject(MAIN, build, build.rules, False))
    return tuple(found), main


def _plan(found: tuple[Subject, ...], main: str | None, prune: bool) -> Translation:
    return translate._Planner(found, main, (), True, prune).run()


@settings(max_examples=30, deadline=None)
@given(case=distinct())
def test_distinct_maps_translate_as_asking_with_every_exclude(
    case: tuple[tuple[Subject, ...], str | None],
) -> None:
    found, main = case
    assert _plan(found, main, prune=True) == _plan(found, main, prune=False)


AGENT = """---
description: Agent {i} explores the code and reports findings with paths and lines.
mode: {mode}
permission:
  edit: deny
  webfetch: ask
  bash:
    "*": ask
    "git status {i} *": allow
    "git diff {i} *": allow
    "tool{i} *": allow
    "rm {i} *": deny
  task:
    "*": deny
---
Agent {i} body.
"""


@pytest.mark.parametrize(
    ("plain", "count", "compact_from"),
    [
        ({"prune": False}, 12, translate.COMPACT_FROM),
        ({"compact": False}, 12, 0),  # compact for 12 agents too
        ({"compact": False}, translate.COMPACT_FROM + 1, translate.COMPACT_FROM),
    ],
)
@pytest.mark.parametrize("main", ["", "default_agent = 'a1'\n"])
def test_a_bundle_of_distinct_maps_gives_the_same_diagnostics_and_files_unpruned(
    main: str,
    plain: dict[str, bool],
    count: int,
    compact_from: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pruned and compact, as asking with every exclude, or listing every
    objection and every entry a region meets."""
    monkeypatch.setattr(translate, "COMPACT_FROM", compact_from)
    files = {"promptc.toml": f"{main}[targets.opencode]\n\n[targets.claude]\n".encode()}
    for i in range(count):
        mode = "primary" if i == 1 else "subagent"
        files[f"specs/agents/a{i}.md"] = AGENT.format(i=i, mode=mode).encode()
    with bundle_on_disk(files) as (root, _):
        pruned = api.render(bundles.config(root))
        with monkeypatch.context() as patch:
            patch.setattr(translate, "planner", functools.partial(translate.planner, **plain))
            plain_result = api.render(bundles.config(root))
    assert every_field(pruned.diagnostics) == every_field(plain_result.diagnostics)
    assert dict(pruned.files) == dict(plain_result.files)
    # every agent's allows are narrowed by the others' `"*": ask`: the losses are there
    lossy = [d for d in pruned.diagnostics if d.rule == "lossy-translation"]
    assert len(lossy) >= count * 3


def _keeping_objections(
    monkeypatch: pytest.MonkeyPatch,
) -> list[dict[str, translate._Objections]]:
    """Every permission's objections to the allows not written, as _allows returns them."""
    rejected: list[dict[str, translate._Objections]] = []
    real = translate._Planner._allows

    def keeping(self: translate._Planner, *args: object) -> dict[str, object]:
        found = real(self, *args)  # type: ignore[arg-type]
        rejected.append(found)
        return found  # type: ignore[return-value]

    monkeypatch.setattr(translate._Planner, "_allows", keeping)
    return rejected


@pytest.mark.parametrize("compact", [True, False])
def test_an_agent_objecting_to_many_allows_is_read_once(
    compact: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each agent's `"*": ask` objects to every other agent's allows. Listed
    (compact=False), the lists share one Source per agent and rule, not one per
    objection (N² of them at N agents); compact, as it is from COMPACT_FROM
    agents, an objection holds only the regions of the plans near the allow:
    the agent's own, and those whose number starts with its own."""
    count = translate.COMPACT_FROM + 1
    rejected = _keeping_objections(monkeypatch)
    if not compact:
        monkeypatch.setattr(
            translate, "planner", functools.partial(translate.planner, compact=False)
        )
    files = {"promptc.toml": b"[targets.opencode]\n\n[targets.claude]\n"}
    for i in range(count):
        files[f"specs/agents/a{i}.md"] = AGENT.format(i=i, mode="subagent").encode()
    with bundle_on_disk(files) as (root, _):
        api.render(bundles.config(root))
    objections = [blockers for found in rejected for blockers in found.values() if blockers]
    assert len(objections) >= count * 3  # every agent's three allows
    if compact:
        for pattern, o in ((p, o) for found in rejected for p, o in found.items() if o):
            assert isinstance(o, translate._Objected)
            if pattern != "*":  # an agent's own
                number = pattern.split()[-2].removeprefix("tool")
                near = [
                    j
                    for j in map(str, range(count))
                    if j.startswith(number) or number.startswith(j)
                ]
                assert len(o.own) == len(near) < count // 2
        return
    sources = [s for blockers in objections if isinstance(blockers, list) for s in blockers]
    assert len(sources) >= count * (count - 1) * 3  # every agent objects to the others' allows
    by_writer = {(s.subject, id(s.rule)) for s in sources}
    assert len({id(s) for s in sources}) == len(by_writer)


# --- objections read without listing them ------------------------------------------------

# Agent numbers whose texts start one another (`{i}?`: heads 1, 10, 100), so that
# some agents' own patterns are near another's allow, and repeat, so that maps
# are shared. Rules of every origin a writer's words depend on.
NUMBERS = st.sampled_from([1, 10, 100, 2, 2])
ORIGINS = st.sampled_from(["agent", "agent", "agent", "config", "session", "default"])


@st.composite
def mixed(draw: st.DrawFn) -> tuple[tuple[Subject, ...], str | None]:
    """Agents whose maps differ in their own commands, share a map, or have
    prefixes of each other's commands, with rules from the config, the session
    and the built-in defaults, primaries (never started as subagents), and the
    main thread."""
    maps = draw(st.lists(st.lists(KEY, max_size=5), min_size=1, max_size=3))
    found = []
    count = draw(st.integers(2, 12))
    for i in range(count):
        name = f"a{i}"
        keys = draw(st.sampled_from(maps))
        number = draw(NUMBERS)
        rules = []
        for rule in _rules(name, keys, number):
            kind = draw(ORIGINS)
            if kind != "agent":
                rule = Rule(rule.permission, rule.pattern, rule.action, Origin(kind, kind))
            rules.append(rule)
        mode = draw(st.sampled_from(["subagent", "primary", "all"]))
        agent = Agent(name, mode, (*DEFAULTS, *rules))
        found.append(Subject(name, agent, agent.effective(mode != "primary")))
    main = draw(st.sampled_from([None, "a0"]))
    if main is None:
        build = Agent("build", "primary", DEFAULTS)
        found.append(Subject(MAIN, build, build.rules, False))
    return tuple(found), main


@settings(max_examples=150, deadline=None)
@given(case=mixed(), prune=st.booleans())
def test_objections_read_compact_translate_as_listed(
    case: tuple[tuple[Subject, ...], str | None], prune: bool
) -> None:
    found, main = case
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(translate, "COMPACT_FROM", 0)  # compact for a few agents too
        compact = translate._Planner(found, main, (), True, prune, compact=True).run()
    assert compact == translate._Planner(found, main, (), True, prune, compact=False).run()


@settings(max_examples=150, deadline=None)
@given(case=mixed())
def test_objections_read_compact_are_described_as_the_listed_ones(
    case: tuple[tuple[Subject, ...], str | None],
) -> None:
    """For every agent (those that objected, those that did not, and the words
    of non-agent rules as a name), as listing every objection would read."""
    found, main = case
    rejected: dict[bool, list[dict[str, translate._Objections]]] = {}
    for compact in (True, False):
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setattr(translate, "COMPACT_FROM", 0)
            rejected[compact] = _keeping_objections(monkeypatch)
            translate._Planner(found, main, (), True, True, compact).run()
    names = [*(s.name for s in found), *translate._WRITERS.values(), "OpenCode's built-in rules"]
    readers = [Subject(n, Agent(n, "primary", ()), ()) for n in names]
    assert len(rejected[True]) == len(rejected[False])
    for read, listed in zip(rejected[True], rejected[False], strict=True):
        assert read.keys() == listed.keys()
        for pattern, objections in read.items():
            sources = listed[pattern]
            assert (objections is None) is (sources is None)
            if isinstance(objections, translate._Objected):
                assert isinstance(sources, list)
                for reader in readers:
                    assert objections.describe(reader) == describe_oracle(sources, reader)

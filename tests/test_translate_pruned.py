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
from tests.strategies import bundle_on_disk
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


@pytest.mark.parametrize("main", ["", "default_agent = 'a1'\n"])
def test_a_bundle_of_distinct_maps_gives_the_same_diagnostics_and_files_unpruned(
    main: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"promptc.toml": f"{main}[targets.opencode]\n\n[targets.claude]\n".encode()}
    for i in range(12):
        mode = "primary" if i == 1 else "subagent"
        files[f"specs/agents/a{i}.md"] = AGENT.format(i=i, mode=mode).encode()
    with bundle_on_disk(files) as (root, _):
        pruned = api.render(bundles.config(root))
        with monkeypatch.context() as patch:
            patch.setattr(translate, "planner", functools.partial(translate.planner, prune=False))
            plain = api.render(bundles.config(root))
    assert pruned.diagnostics == plain.diagnostics
    assert dict(pruned.files) == dict(plain.files)
    # every agent's allows are narrowed by the others' `"*": ask`: the losses are there
    lossy = [d for d in pruned.diagnostics if d.rule == "lossy-translation"]
    assert len(lossy) >= 12 * 3


def test_an_agent_objecting_to_many_allows_is_one_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each agent's `"*": ask` objects to every other agent's allows: the lists
    of objections share one Source per agent and rule, not one per objection
    (N² of them at N agents)."""
    rejected: list[dict[str, list[translate.Source] | None]] = []
    real = translate._Planner._allows

    def keeping(self: translate._Planner, *args: object) -> dict[str, object]:
        found = real(self, *args)  # type: ignore[arg-type]
        rejected.append(found)
        return found  # type: ignore[return-value]

    monkeypatch.setattr(translate._Planner, "_allows", keeping)
    files = {"promptc.toml": b"[targets.opencode]\n\n[targets.claude]\n"}
    for i in range(12):
        files[f"specs/agents/a{i}.md"] = AGENT.format(i=i, mode="subagent").encode()
    with bundle_on_disk(files) as (root, _):
        api.render(bundles.config(root))
    sources = [s for found in rejected for blockers in found.values() if blockers for s in blockers]
    assert len(sources) >= 12 * 11 * 3  # every agent objects to the others' three allows
    by_writer = {(s.subject, id(s.rule)) for s in sources}
    assert len({id(s) for s in sources}) == len(by_writer)

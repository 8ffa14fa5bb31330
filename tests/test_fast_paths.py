"""The analyses' fast paths give exactly what the plain definitions give.

Each oracle here is the straightforward implementation the fast one replaced
(kept only as a test oracle); hypothesis compares the two on small alphabets
that reach the corner cases (backslashes, `?`, the optional trailing ` *`,
astral characters, numeric keys).
"""

from __future__ import annotations

import difflib
import re
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import coverage, delegation, snippet, translate, wildcard
from compiler.permissions import Decider, Environment, Origin, Rule, evaluate
from compiler.runtime import Agent, Runtime
from compiler.snippet import MAX_WINDOW, PART, THRESHOLD, Snippet
from compiler.wildcard import Glob, glob, witness

PATTERN = st.text(alphabet="ab */?\\", max_size=5)
NAME = st.text(alphabet="ab/\\\U0001f600", min_size=1, max_size=3)
ACTION = st.sampled_from(["allow", "ask", "deny"])
PERMISSION = st.sampled_from(["task", "t*", "*", "bash", "ta?k"])
ORIGIN = Origin("agent", "a")
RULE = st.builds(lambda p, pat, a: Rule(p, pat, a, ORIGIN), PERMISSION, PATTERN, ACTION)
# Agent names: the same letters, so literal task patterns name them.
AGENT_NAME = st.text(alphabet="ab\\", min_size=1, max_size=3)


# --- wildcard --------------------------------------------------------------------------


States = frozenset[int]
T = TypeVar("T")


def step(machine: Glob, states: States, symbol: str | None) -> States:
    """One Glob's positions after reading one unit (None: a unit no pattern names)."""
    found: set[int] = set()
    for state in states:
        if state >= len(machine.tokens):
            continue
        token = machine.tokens[state]
        if token == wildcard.STAR:
            found.add(state)
        elif token in (wildcard.ANY, symbol):
            found.add(state + 1)
    todo = list(found)
    while todo:
        state = todo.pop()
        star = state < len(machine.tokens) and machine.tokens[state] == wildcard.STAR
        if star and state + 1 not in found:
            found.add(state + 1)
            todo.append(state + 1)
    return frozenset(found)


def accepts(machine: Glob, states: States) -> bool:
    return not machine.accept.isdisjoint(states)


def saturated(machine: Glob, states: States) -> bool:
    return not machine.universal.isdisjoint(states)


def relevant_symbols(machines: Sequence[Glob], config: tuple[States, ...]) -> list[str | None]:
    units: set[str] = set()
    for machine, states in zip(machines, config, strict=True):
        n = len(machine.tokens)
        units |= {machine.tokens[i] for i in states if i < n} - {wildcard.STAR, wildcard.ANY}
    return [None, *sorted(units)]


def witness_oracle(include: Sequence[Glob], exclude: Sequence[Glob] = ()) -> str | None:
    """The search stepping each pattern's Glob in turn over tuples of state sets."""
    exclude = tuple({m.pattern: m for m in exclude}.values())
    machines = (*include, *exclude)
    if not include:
        machines = (wildcard.ANYTHING, *machines)
        include = (wildcard.ANYTHING,)
    literals: set[str] = set()
    for machine in machines:
        literals |= machine.literals()
    cut = len(include)
    start = tuple(m.start() for m in machines)
    if any(saturated(m, s) for m, s in zip(machines[cut:], start[cut:], strict=True)):
        return None
    Config = tuple[frozenset[int], ...]
    parent: dict[Config, tuple[Config, str | None]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        config = queue.popleft()
        if all(
            accepts(m, s) for m, s in zip(machines[:cut], config[:cut], strict=True)
        ) and not any(accepts(m, s) for m, s in zip(machines[cut:], config[cut:], strict=True)):
            units: list[str] = []
            other = wildcard.other_char(literals)
            while config in parent:
                config, symbol = parent[config]
                units.append(other if symbol is None else symbol)
            return wildcard.from_units("".join(reversed(units)))
        for symbol in relevant_symbols(machines, config):
            nxt = tuple(step(m, s, symbol) for m, s in zip(machines, config, strict=True))
            if any(not s for s in nxt[:cut]) or nxt in seen:
                continue
            seen.add(nxt)
            if any(saturated(m, s) for m, s in zip(machines[cut:], nxt[cut:], strict=True)):
                continue
            if len(seen) > wildcard.SEARCH_LIMIT:
                raise wildcard.TooComplex()
            parent[nxt] = (config, symbol)
            queue.append(nxt)
    return None


def outcome(search: Callable[[], T]) -> T | type[Exception]:
    try:
        return search()
    except wildcard.TooComplex:
        return wildcard.TooComplex


WIDE = st.text(alphabet="ab */?\\\U0001f600", max_size=7)


@settings(max_examples=500, deadline=None)
@given(
    include=st.lists(WIDE, max_size=3),
    exclude=st.lists(WIDE, max_size=4),
    limit=st.sampled_from([3, 10, 40, 200_000]),
)
def test_witness_finds_what_the_plain_search_finds(
    include: list[str], exclude: list[str], limit: int
) -> None:
    # The same text, or the same give-up (the same states, in the same order).
    saved = wildcard.SEARCH_LIMIT
    wildcard.SEARCH_LIMIT = limit
    try:
        inc, exc = [glob(p) for p in include], [glob(p) for p in exclude]
        assert outcome(lambda: witness(inc, exc)) == outcome(lambda: witness_oracle(inc, exc))
    finally:
        wildcard.SEARCH_LIMIT = saved


def covers_oracle(outer: str, inner: str) -> bool:
    return witness_oracle([glob(inner)], [glob(outer)]) is None


@settings(max_examples=300, deadline=None)
@given(outer=PATTERN, inner=PATTERN)
def test_covers_and_universal_agree_with_the_search(outer: str, inner: str) -> None:
    assert wildcard.covers(outer, inner) == covers_oracle(outer, inner)
    assert wildcard.universal(outer) == covers_oracle(outer, "*")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab/\\\U0001f600\ud83d\ude00", max_size=4), pattern=PATTERN)
def test_a_literal_pattern_matches_exactly_its_normal_form(text: str, pattern: str) -> None:
    if wildcard.is_literal(pattern):
        same = wildcard.normal(text) == wildcard.normal(pattern)
        assert wildcard.match(text, pattern) == same


# --- permissions.Decider -----------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(
    rules=st.lists(RULE, max_size=7),
    permission=st.sampled_from(["task", "bash", "tak"]),
    texts=st.lists(NAME, min_size=1, max_size=5),
)
def test_decider_decides_as_evaluate(rules: list[Rule], permission: str, texts: list[str]) -> None:
    decide = Decider(rules, permission)
    for text in texts:
        expected = evaluate(rules, permission, text)
        found = decide(text)
        assert found == expected
        assert found.rule is expected.rule  # the very rule: reports group on its identity
        reached = decide.reaching(("allow", "ask"))
        if reached is not None and found.action != "deny":
            assert wildcard.normal(text) in reached


def _runtime(agents: dict[str, Agent]) -> Runtime:
    env = Environment(home="/h", data="/d", tmp="/t", worktree="/")
    return Runtime(agents, (), env)


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(AGENT_NAME, min_size=1, max_size=5, unique=True),
    modes=st.lists(st.sampled_from(["primary", "subagent", "all"]), min_size=5, max_size=5),
    task=st.lists(
        st.tuples(st.one_of(AGENT_NAME, PATTERN), ACTION).map(
            lambda pa: Rule("task", pa[0], pa[1], ORIGIN)
        ),
        max_size=5,
    ),
)
def test_edges_are_every_offered_agent_not_denied(
    names: list[str], modes: list[str], task: list[Rule]
) -> None:
    source = Agent("source", "primary", tuple(task))
    agents = {"source": source}
    agents.update({n: Agent(n, m, ()) for n, m in zip(names, modes, strict=False)})
    runtime = _runtime(agents)
    expected = [
        (target.name, evaluate(source.task_rules, "task", target.name))
        for target in agents.values()
        if target.mode != "primary"
        and evaluate(source.task_rules, "task", target.name).action != "deny"
    ]
    found = [(e.target.name, e.decision) for e in delegation.edges_from(runtime, source)]
    assert found == expected


# --- snippet windows ---------------------------------------------------------------------


def score_oracle(text: str, target: str, words: set[str]) -> float | None:
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    part = len(text) >= PART * len(target) and text in target
    if not part and len(text) < 0.66 * len(target):
        return None
    if not part and len(words & set(text.split())) < len(words) / 2:
        return None
    matcher.set_seq1(text)
    if not part and matcher.quick_ratio() < THRESHOLD:
        return None
    score = matcher.ratio()
    return score if part or score >= THRESHOLD else None


def code_lines_oracle(lines: Sequence[str]) -> set[int]:
    inside: set[int] = set()
    fence: str | None = None
    for index, line in enumerate(lines):
        marker = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence is not None:
            inside.add(index)
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None
        elif marker:
            fence = marker.group(1)
            inside.add(index)
    return inside


def windows_oracle(lines: Sequence[str], target_text: str) -> list[tuple[int, int]]:
    """Every window scored, the most similar chosen: the plain definition."""
    code = code_lines_oracle(lines)
    target = snippet._normal(target_text)
    words = set(target.split())
    scored: list[tuple[float, int, int]] = []
    normal = [snippet._normal(line) for line in lines]
    for start in range(len(lines)):
        if not normal[start] or start in code:
            continue
        text = ""
        for end in range(start + 1, min(len(lines), start + MAX_WINDOW) + 1):
            if (end - 1) in code:
                break
            if not normal[end - 1]:
                continue
            text = f"{text} {normal[end - 1]}" if text else normal[end - 1]
            if len(text) > 1.5 * len(target):
                break
            score = score_oracle(text, target, words)
            if score is not None:
                scored.append((score, start, end))
    chosen: list[tuple[int, int]] = []
    for _, start, end in sorted(scored, key=lambda s: (-s[0], s[2] - s[1], s[1])):
        if all(end <= a or start >= b for a, b in chosen):
            chosen.append((start, end))
    return sorted(chosen)


SNIPPET_LINES = [
    "Tono: caveman por default, nivel full.",
    "Activa siempre.",
    "Excepción: prosa normal para advertencias.",
]
OTHER_LINES = [
    "",
    "```",
    "````",
    "   ~~~",
    "    ```",
    "``` x",
    "\u2003caveman\x1c",
    "Activa  siempre.",
    "c d e",
    "e f g h",
    "h",
    "veman",
    "no: cave",
    "o: c",
    "ción: pro",
    "# Agent",
    "Paso 1: lee el test.",
    "nivel",
    "caveman",
    "ción: prosa",
    "Tono: caveman por default, nivel ultra.",
    "Excepción: prosa normal para advertencias. Y algo más que no está.",
]
LINE = st.sampled_from(SNIPPET_LINES + OTHER_LINES)


def _snippet(text: str) -> Snippet:
    return Snippet("s", Path("s.md"), text, re.compile(re.escape(text)), {}, (), {}, {}, "<<s>>")


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(LINE, max_size=14),
    target=st.sampled_from(
        # long snippets (parts are long), short ones (a part may be two bits of words)
        [
            "\n".join(SNIPPET_LINES),
            SNIPPET_LINES[0],
            "nivel",
            "",
            "a b c d e f g h",
            "c d e f",
            "Tono: caveman",
        ]
    ),
)
def test_windows_agree_with_scoring_every_window(lines: list[str], target: str) -> None:
    assert snippet._code_lines(lines) == code_lines_oracle(lines)
    expected = windows_oracle(lines, target)
    assert snippet._windows(lines, _snippet(target)) == expected
    assert snippet._windows(lines, _snippet(target), "\n".join(lines)) == expected


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet="ab c", min_size=1, max_size=12),
    target=st.text(alphabet="ab c", max_size=12),
)
def test_score_agrees_with_difflib(text: str, target: str) -> None:
    text, target = snippet._normal(text) or "a", snippet._normal(target)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    words = set(target.split())
    assert snippet._score(matcher, text, target, words) == score_oracle(text, target, words)


FILLER = st.sampled_from(["", "", "x", "Paso 1: lee el test.", "```", "~~~~"])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(LINE, FILLER, FILLER), max_size=80))
def test_windows_of_long_bodies_look_for_fences_only_as_far_as_they_reach(
    lines: list[str],
) -> None:
    target = "\n".join(SNIPPET_LINES)
    expected = windows_oracle(lines, target)
    assert snippet._windows(lines, _snippet(target), "\n".join(lines)) == expected


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "x", "```", "````", "  ```", "~~~~", "~~~"]), max_size=30),
    last=st.integers(min_value=0, max_value=30),
)
def test_code_lines_up_to_an_offset_are_the_plain_ones(lines: list[str], last: int) -> None:
    """Lines up to `last` are classified as with the whole text read."""
    text = "\n".join(lines)
    last = min(last, len(lines) - 1)
    until = sum(map(len, lines[: last + 1])) + last
    found = snippet._code_lines(lines, text, until=until)
    expected = code_lines_oracle(lines)
    assert {i for i in found if i <= last} == {i for i in expected if i <= last}


@given(text=st.text(alphabet="<a\n", max_size=30), needle=st.sampled_from(["<<", "a", "<a"]))
def test_lines_holding_are_the_plain_ones(text: str, needle: str) -> None:
    lines = text.split("\n")
    ends = [sum(map(len, lines[: i + 1])) + i for i in range(len(lines))]
    expected = [(i, ends[i]) for i, line in enumerate(lines) if needle in line]
    assert snippet._lines_holding(text, needle) == expected


def calls_oracle(body: str, name: str) -> list[tuple[int, tuple[int, int]]]:
    """(line, span) of every placeholder outside code: every line looked at."""
    call = snippet._call_pattern(name)
    lines = body.split("\n")
    code = code_lines_oracle(lines)
    found = []
    for index, line in enumerate(lines):
        if index in code or "<<" not in line:
            continue
        spans = [m.span() for m in re.finditer(r"(`+)(?:(?!\1).)+?\1", line)]
        for match in call.finditer(line):
            if not any(a <= match.start() < b for a, b in spans):
                found.append((index, match.span()))
    return found


class _Source:
    def __init__(self, body: str) -> None:
        self.body = body


class _Spec:
    def __init__(self, body: str) -> None:
        self.source = _Source(body)


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(
            ["", "x", "```", "~~~", "<<s>>", "`<<s>>`", "a <<s>> b <<s(level=1)>>", "<<", "<<t>>"]
        ),
        max_size=12,
    )
)
def test_calls_are_those_of_every_line(lines: list[str]) -> None:
    body = "\n".join(lines)
    spec: Any = _Spec(body)
    found = [(i, m.span()) for i, m in snippet._calls(spec, _snippet("s"))]
    assert found == calls_oracle(body, "s")


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(st.sampled_from(["a", "b", "", "c"]), max_size=8),
    b=st.lists(st.sampled_from(["a", "b", "", "c"]), max_size=8),
    names=st.permutations(["p", "q", "r", "s"]),
)
def test_opcodes_remembered_by_pattern_are_difflibs(
    a: list[str], b: list[str], names: list[str]
) -> None:
    """The same pattern of equal lines under other names: the same opcodes as
    difflib gives for those names."""
    rename = dict(zip(["a", "b", "", "c"], names, strict=True))
    other_a, other_b = [rename[x] for x in a], [rename[x] for x in b]
    for x, y in ((a, b), (other_a, other_b)):
        plain = difflib.SequenceMatcher(None, x, y, False).get_opcodes()
        assert snippet._opcodes(x, y) == [tuple(op) for op in plain]


# --- coverage: answers remembered per shape ---------------------------------------------


def overlapping_oracle(rules: Sequence[Rule], index: int) -> list[int]:
    rule = rules[index]
    return [
        j
        for j in range(index + 1, len(rules))
        if witness_oracle([glob(rule.permission), glob(rules[j].permission)]) is not None
        and witness_oracle([glob(rule.pattern), glob(rules[j].pattern)]) is not None
    ]


def covering_oracle(rules: Sequence[Rule], index: int) -> int | None:
    rule = rules[index]
    for j in range(len(rules) - 1, index, -1):
        if covers_oracle(rules[j].permission, rule.permission) and covers_oracle(
            rules[j].pattern, rule.pattern
        ):
            return j
    return None


@settings(max_examples=300, deadline=None)
@given(rules=st.lists(RULE, min_size=1, max_size=6), actions=st.lists(ACTION, max_size=6))
def test_coverage_answers_per_shape_are_the_plain_ones(
    rules: list[Rule], actions: list[str]
) -> None:
    # The same shape with other actions and positions: a second agent's rules.
    other = tuple(
        Rule(r.permission, r.pattern, a, Origin("agent", "b", Path("b.md"), n + 1, 3))
        for n, (r, a) in enumerate(zip(rules, actions + ["deny"] * len(rules), strict=False))
    )
    for index in range(len(rules)):
        fresh = coverage._decides.__wrapped__(coverage._shape(rules), index, None, ())
        assert coverage.decides(tuple(rules), index) == fresh
        assert coverage.decides(other, index) == fresh
        assert coverage.overlapping(other, index) == overlapping_oracle(rules, index)
        assert coverage.covering(other, index) == covering_oracle(rules, index)


def test_windows_reach_as_far_as_max_window_lines() -> None:
    head, tail = SNIPPET_LINES[0], " ".join(SNIPPET_LINES[1:])
    target = "\n".join(SNIPPET_LINES)
    for blanks in range(MAX_WINDOW - 4, MAX_WINDOW + 2):
        for lines in ([head, *[""] * blanks, tail], ["x", *[""] * blanks, head, tail]):
            assert snippet._windows(lines, _snippet(target)) == windows_oracle(lines, target)


def starts_oracle(lines: Sequence[str], useful: set[int], limit: float) -> list[int]:
    """Starts whose windows reach a useful line, found by growing every window."""
    code = code_lines_oracle(lines)
    found = []
    for start in range(len(lines)):
        if not snippet._normal(lines[start]) or start in code:
            continue
        text = ""
        for end in range(start + 1, min(len(lines), start + MAX_WINDOW) + 1):
            if (end - 1) in code:
                break
            line = snippet._normal(lines[end - 1])
            if not line:
                continue
            text = f"{text} {line}" if text else line
            if len(text) > limit:
                break
            if end - 1 in useful:
                found.append(start)
                break
    return found


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "", "", "ab", "a b c", "```", "x"]), max_size=90),
    picks=st.sets(st.integers(min_value=0, max_value=89)),
    limit=st.sampled_from([0, 2, 7, 20, 1000]),
)
def test_starts_are_those_whose_windows_reach_a_useful_line(
    lines: list[str], picks: set[int], limit: float
) -> None:
    useful = {i for i in picks if i < len(lines) and lines[i]}
    code = snippet._code_lines(lines)
    at = lambda i: snippet._normal(lines[i])  # noqa: E731
    assert snippet._starts(useful, code, at, limit) == starts_oracle(lines, useful, limit)


def test_starts_reach_exactly_max_window_lines() -> None:
    for blanks in range(MAX_WINDOW - 4, MAX_WINDOW + 2):
        lines = ["x", *[""] * blanks, "ab"]
        useful = {len(lines) - 1}
        at = lambda i: snippet._normal(lines[i])  # noqa: E731, B023
        expected = starts_oracle(lines, useful, 1000)
        assert snippet._starts(useful, set(), at, 1000) == expected
        assert (0 in expected) == (blanks + 2 <= MAX_WINDOW)


@settings(max_examples=500, deadline=None)
@given(
    include=st.lists(WIDE, min_size=1, max_size=3),
    exclude=st.lists(WIDE, max_size=3),
    limit=st.sampled_from([2, 5, 200_000]),
)
@example(include=["aab*", "aac"], exclude=[], limit=2)  # the search gives up first
@example(include=["ab *", "ab"], exclude=["b"], limit=200_000)
def test_hits_answers_as_the_plain_search(
    include: list[str], exclude: list[str], limit: int
) -> None:
    saved = wildcard.SEARCH_LIMIT
    wildcard.SEARCH_LIMIT = limit
    try:
        found = outcome(
            lambda: witness_oracle([glob(p) for p in include], [glob(p) for p in exclude])
        )
        expected = found is not None  # a text, or too complex: both count as a hit
        assert translate.hits.__wrapped__(tuple(include), tuple(exclude)) is expected
    finally:
        wildcard.SEARCH_LIMIT = saved


@settings(max_examples=300, deadline=None)
@given(pattern=WIDE, data=st.data())
def test_every_text_a_pattern_matches_starts_with_its_head(
    pattern: str, data: st.DataObject
) -> None:
    # A text the pattern matches: each `*` and `?` filled in, maybe without the
    # optional trailing ` *`.
    fill = st.text(alphabet="ab *", max_size=3)
    units = pattern[:-2] if pattern.endswith(" *") and data.draw(st.booleans()) else pattern
    text = "".join(
        data.draw(fill) if c == "*" else data.draw(st.sampled_from("ab/")) if c == "?" else c
        for c in units
    )
    assert wildcard.match(text, pattern)
    assert wildcard.normal(text).startswith(wildcard.head(pattern))


def name_groups_oracle(pattern: str, later: Sequence[str]) -> dict[frozenset[int], str]:
    distinct = sorted(set(later))
    machines = [glob(pattern), *(glob(p) for p in distinct)]
    literals: set[str] = set()
    for machine in machines:
        literals |= machine.literals()
    other = wildcard.other_char(literals)
    start = tuple(m.start() for m in machines)
    seen = {start: ""}
    queue = deque([start])
    found: dict[frozenset[str], str] = {}
    while queue:
        config = queue.popleft()
        if accepts(machines[0], config[0]):
            accepting = frozenset(
                p
                for p, m, s in zip(distinct, machines[1:], config[1:], strict=True)
                if accepts(m, s)
            )
            found.setdefault(accepting, wildcard.from_units(seen[config]))
        for symbol in relevant_symbols(machines, config):
            nxt = tuple(step(m, s, symbol) for m, s in zip(machines, config, strict=True))
            if not nxt[0] or nxt in seen:
                continue
            seen[nxt] = seen[config] + (other if symbol is None else symbol)
            if len(seen) > wildcard.SEARCH_LIMIT:
                raise wildcard.TooComplex(pattern)
            queue.append(nxt)
    return {
        frozenset(j for j, p in enumerate(later) if p in accepting): name
        for accepting, name in found.items()
    }


@settings(max_examples=300, deadline=None)
@given(pattern=WIDE, later=st.lists(WIDE, max_size=4), limit=st.sampled_from([3, 20, 200_000]))
def test_name_groups_agree_with_the_plain_search(
    pattern: str, later: list[str], limit: int
) -> None:
    saved = wildcard.SEARCH_LIMIT
    wildcard.SEARCH_LIMIT = limit
    try:
        expected = outcome(lambda: name_groups_oracle(pattern, later))
        assert outcome(lambda: coverage._name_groups(pattern, later)) == expected
    finally:
        wildcard.SEARCH_LIMIT = saved


# --- translation: who wrote the shared settings -------------------------------------------


def describe_oracle(sources: Sequence[translate.Source], me: translate.Subject) -> str:
    parts: list[str] = []
    for source in sources:
        kind = source.rule.origin.kind if source.rule else None
        if kind == "agent" or kind is None:
            if source.subject != me.name:
                parts.append(source.subject)
            elif kind == "agent" and source.rule:
                parts.append(f"its own `{source.rule.text()}`")
        elif kind == "config":
            parts.append("the config's `permission`")
        elif kind == "session":
            parts.append("OpenCode's subagent defaults")
        else:
            parts.append("OpenCode's built-in rules")
    names = list(dict.fromkeys(parts))
    if len(names) > 4:
        names = [*names[:3], f"{len(names) - 3} more"]
    return translate._join(names)


# Subject names include the words of non-agent writers, to reach every tie.
WRITER = st.sampled_from(["a", "b", "c", "d", "e", translate.MAIN, "the config's `permission`"])
SOURCE = st.builds(
    lambda subject, kind, pattern: translate.Source(
        subject,
        None
        if kind is None
        else Rule("bash", pattern, "deny", Origin(kind, "x", Path("x.md") if kind else None)),
    ),
    WRITER,
    st.sampled_from([None, "agent", "agent", "config", "session", "default", "native"]),
    st.sampled_from(["*", "rm *", "git push*"]),
)


@settings(max_examples=500, deadline=None)
@given(parts=st.lists(st.lists(SOURCE, max_size=6), min_size=1, max_size=3), me=WRITER)
def test_writers_are_described_as_listing_them_all(
    parts: list[list[translate.Source]], me: str
) -> None:
    sources = [s for part in parts for s in part]
    subject = translate.Subject(me, Agent(me, "primary", ()), ())
    who = translate._Who([translate._Writers(part) for part in parts])
    if sources:
        assert who.describe(subject) == describe_oracle(sources, subject)
    assert who.started_only is all(s.rule is None and s.subject != translate.MAIN for s in sources)
    assert who.subjects == list(dict.fromkeys(s.subject for s in sources))

"""Coverage: what each rule of an ordered list can still decide under last-match-wins.

A rule decides a (permission, input) pair when it matches the pair and no
later rule does. `decides` finds such a pair or proves there is none, exactly,
by treating patterns as automata (compiler.wildcard): first over permission
names (a later rule keyed `"*"` or `mcp_*` covers many names), then, for each
group of names that the same later rules apply to, over inputs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from compiler import wildcard
from compiler.permissions import Rule
from compiler.wildcard import glob


@dataclass(frozen=True)
class Witness:
    """A (permission, input) pair the rule decides."""

    permission: str
    input: str


def decides(
    rules: Sequence[Rule],
    index: int,
    *,
    permission: str | None = None,
    within: Sequence[str] = (),
) -> Witness | None:
    """A pair that rules[index] decides, optionally for one permission name and
    with an input every pattern in `within` matches; None when there is none.
    Raises wildcard.TooComplex when the patterns are too large to explore."""
    return _decides(_shape(rules), index, permission, tuple(within))


# The answers depend on the (permission, pattern) pairs alone, and agents share
# them: every agent inherits the same defaults, and bundles repeat their maps.
# So each rule list is reduced to its shape, numbered once, and the answers are
# remembered per shape (positions in them are the callers' indices).
Shape = tuple[tuple[str, str], ...]
_SHAPES: dict[Shape, int] = {}
_SHAPE_LIST: list[Shape] = []
_SEEN: dict[int, tuple[Sequence[Rule], int]] = {}  # id(rules) -> (rules, shape number)


def _shape(rules: Sequence[Rule]) -> int:
    """The number of the rules' shape. Tuples (immutable, and the same object for
    every question about one agent) are remembered by identity."""
    seen = _SEEN.get(id(rules))
    if seen is not None and seen[0] is rules:
        return seen[1]
    number = _number(tuple(_pair(r.permission, r.pattern) for r in rules))
    if isinstance(rules, tuple):
        if len(_SEEN) >= 4096:
            _SEEN.clear()  # holding the rules keeps their id from being reused
        _SEEN[id(rules)] = (rules, number)
    return number


def _pair(permission: str, pattern: str) -> tuple[str, str]:
    pair = (permission, pattern)
    return _PAIRS.setdefault(pair, pair)


_PAIRS: dict[tuple[str, str], tuple[str, str]] = {}


@lru_cache(maxsize=65536)
def _decides(
    shape: int, index: int, permission: str | None, within: tuple[str, ...]
) -> Witness | None:
    pairs = _SHAPE_LIST[shape]
    key, pattern = pairs[index]
    later = pairs[index + 1 :]
    if permission is not None:
        if not wildcard.match(permission, key) or _taken_over(shape, index, permission):
            return None
        groups = {
            frozenset(j for j, (p, _) in enumerate(later) if wildcard.match(permission, p)): (
                permission
            )
        }
    else:
        groups = _name_groups(key, [p for p, _ in later])
    if within and wildcard.apart((pattern, *within)):
        # No input matches the rule's pattern and `within` both, whatever the
        # later rules: every search below would find nothing (dangerous-allow
        # asks this of most allow rules against each command it looks for).
        return None
    include = [glob(pattern), *(glob(p) for p in within)]
    for members, name in groups.items():
        text = wildcard.witness(include, [glob(later[j][1]) for j in sorted(members)])
        if text is not None:
            return Witness(name, text)
    return None


@lru_cache(maxsize=16384)
def _taken_over(shape: int, index: int, permission: str) -> bool:
    """A later rule matches `permission` with every input (a `"*"` pattern): it
    decides every pair this rule matches, so there is nothing to search for,
    whatever `within` is asked (dangerous-allow asks of a default `"*"` allow
    for each command, where the agent's own `"*"` rule comes later)."""
    for key, pattern in _SHAPE_LIST[shape][index + 1 :]:
        if not wildcard.match(permission, key):
            continue
        try:
            if wildcard.universal(pattern):
                return True
        except wildcard.TooComplex:
            continue  # not known to match everything: the search decides
    return False


def decides_any(
    rules: Sequence[Rule],
    index: int,
    *,
    permission: str | None = None,
    within: Sequence[str] = (),
) -> bool:
    """`decides(...) is not None`, asked with only the later rules that may match
    a pair the rule matches: those whose key shares a name with its key, and
    whose pattern is not apart (wildcard.apart) from its pattern or any `within`.
    The others never match what it matches, so they cannot change whether a
    pair is left; without them, agents whose own commands differ ask the same
    question about the rules they share, and it is answered once, or at once
    when nothing later is left. Raises TooComplex as decides does; the smaller
    search may answer where the full one gives up, never the reverse."""
    return _decides_any(_shape(rules), index, permission, tuple(within))


@lru_cache(maxsize=65536)
def _decides_any(shape: int, index: int, permission: str | None, within: tuple[str, ...]) -> bool:
    pairs = _SHAPE_LIST[shape]
    rule = pairs[index]
    include = (rule[1], *within)
    if within and wildcard.apart(include):
        return False  # no input matches them all: nothing left to decide
    key = rule[0]
    near = [
        pair
        for pair in pairs[index + 1 :]
        if _meet(key, pair[0]) and not _apart_from(pair[1], include)
    ]
    if not near and not within and (permission is None or wildcard.match(permission, key)):
        # Nothing later matches what it matches, and a pattern alone always
        # matches some input: that pair is its own.
        return True
    return _decides(_number((rule, *near)), 0, permission, within) is not None


def _apart_from(pattern: str, include: tuple[str, ...]) -> bool:
    return any(wildcard.apart((pattern, other)) for other in include)


def _number(shape: Shape) -> int:
    number = _SHAPES.get(shape)
    if number is None:
        number = _SHAPES[shape] = len(_SHAPE_LIST)
        _SHAPE_LIST.append(shape)
    return number


def _name_groups(pattern: str, later: Sequence[str]) -> dict[frozenset[int], str]:
    """For the names `pattern` matches: each distinct set of `later` patterns that
    also match them, with one example name per set."""
    return {
        frozenset(j for j, p in enumerate(later) if p in accepting): name
        for accepting, name in _groups(
            pattern, tuple(sorted(set(later))), wildcard.SEARCH_LIMIT
        ).items()
    }


@lru_cache(maxsize=16384)
def _groups(pattern: str, distinct: tuple[str, ...], limit: int) -> dict[frozenset[str], str]:
    """_name_groups by the later patterns themselves (agents' keys repeat); the
    answer holds for one SEARCH_LIMIT."""
    machines = wildcard.product((pattern,), distinct)
    alive, accepts = machines.alive[0], machines.accepts[0]
    start = machines.start
    seen = {start: ""}
    queue = deque([start])
    found: dict[frozenset[str], str] = {}
    while queue:
        state = queue.popleft()
        if state & accepts:
            accepting = frozenset(
                p for p, bits in zip(distinct, machines.parts, strict=True) if state & bits
            )
            found.setdefault(accepting, wildcard.from_units(seen[state]))
        for symbol in machines.symbols(state):
            nxt = machines.step(state, symbol)
            if not nxt & alive or nxt in seen:
                continue
            seen[nxt] = seen[state] + (machines.other if symbol is None else symbol)
            if len(seen) > limit:
                raise wildcard.TooComplex(pattern)
            queue.append(nxt)
    return found


def overlapping(rules: Sequence[Rule], index: int) -> list[int]:
    """Indices of the later rules that match some pair rules[index] matches."""
    return list(_overlapping(_shape(rules), index))


@lru_cache(maxsize=16384)
def _overlapping(shape: int, index: int) -> tuple[int, ...]:
    pairs = _SHAPE_LIST[shape]
    key, pattern = pairs[index]
    return tuple(
        j
        for j in range(index + 1, len(pairs))
        if _meet(key, pairs[j][0]) and _meet(pattern, pairs[j][1])
    )


@lru_cache(maxsize=65536)
def _meet(one: str, other: str) -> bool:
    """Some text matches both patterns."""
    return wildcard.witness([glob(one), glob(other)]) is not None


def covering(rules: Sequence[Rule], index: int) -> int | None:
    """The last later rule that alone matches everything rules[index] matches."""
    return _covering(_shape(rules), index)


@lru_cache(maxsize=16384)
def _covering(shape: int, index: int) -> int | None:
    pairs = _SHAPE_LIST[shape]
    key, pattern = pairs[index]
    for j in range(len(pairs) - 1, index, -1):
        other_key, other = pairs[j]
        if wildcard.covers(other_key, key) and wildcard.covers(other, pattern):
            return j
    return None

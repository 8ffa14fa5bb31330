"""Coverage: what each rule of an ordered list can still decide under last-match-wins.

A rule decides a (permission, input) pair when it matches the pair and no
later rule does. `decides` finds such a pair or proves there is none, exactly,
by treating patterns as automata (promptc_compiler.permissions.wildcard): first over permission
names (a later rule keyed `"*"` or `mcp_*` covers many names), then, for each
group of names that the same later rules apply to, over inputs.

The functions answer afresh; a run that asks about many agents holds one
`Coverage` (the permission model's Runtime does), which answers each question
once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import NamedTuple

from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import Rule


class Witness(NamedTuple):
    """A (permission, input) pair the rule decides."""

    permission: str
    input: str


# A rule and the rules after it, as (permission, pattern) pairs: all an answer
# about the rule depends on.
Pairs = tuple[tuple[str, str], ...]


class Coverage:
    """What rules can still decide, each question answered once.

    The answers depend on the (permission, pattern) pairs alone, and agents
    share them: every agent inherits the same defaults, and bundles repeat
    their maps. Hold one per run, never longer.
    """

    def __init__(self, patterns: wildcard.Patterns | None = None) -> None:
        self.patterns = patterns or wildcard.Patterns()
        self._decided: dict[tuple[Pairs, str | None, tuple[str, ...]], Witness | None] = {}
        self._groups: dict[tuple[str, tuple[str, ...]], dict[frozenset[str], str]] = {}

    def decides(
        self,
        rules: Sequence[Rule],
        index: int,
        *,
        permission: str | None = None,
        within: Sequence[str] = (),
    ) -> Witness | None:
        """A pair that rules[index] decides, optionally for one permission name and
        with an input every pattern in `within` matches; None when there is none.
        Raises wildcard.TooComplex when the patterns are too large to explore."""
        pairs = tuple([(r.permission, r.pattern) for r in rules[index:]])
        key = (pairs, permission, tuple(within))
        if key not in self._decided:
            self._decided[key] = self._decides(*key)
        return self._decided[key]

    def _decides(
        self, pairs: Pairs, permission: str | None, within: tuple[str, ...]
    ) -> Witness | None:
        (key, pattern), later = pairs[0], pairs[1:]
        include = (pattern, *within)
        if self.patterns.apart(include):
            # No input matches them all, whatever the later rules (dangerous-allow
            # asks this of most allow rules against each command it looks for).
            return None
        if permission is not None:
            # One name: the later rules for it are the excludes.
            if not self.patterns.match(permission, key):
                return None
            match = self.patterns.match
            text = self.patterns.witness(
                include, tuple(p for k, p in later if match(permission, k))
            )
            return None if text is None else Witness(permission, text)
        groups = self._name_groups(key, [p for p, _ in later])
        for members, name in groups.items():
            text = self.patterns.witness(include, tuple(later[j][1] for j in sorted(members)))
            if text is not None:
                return Witness(name, text)
        return None

    def _name_groups(self, pattern: str, later: Sequence[str]) -> dict[frozenset[int], str]:
        """For the names `pattern` matches: each distinct set of `later` patterns that
        also match them, with one example name per set."""
        distinct = tuple(sorted(set(later)))
        groups = self._groups.get((pattern, distinct))
        if groups is None:
            groups = self._groups[pattern, distinct] = self._by_later(pattern, distinct)
        return {
            frozenset(j for j, p in enumerate(later) if p in accepting): name
            for accepting, name in groups.items()
        }

    def _by_later(self, pattern: str, distinct: tuple[str, ...]) -> dict[frozenset[str], str]:
        """_name_groups by the later patterns themselves: a breadth-first walk over
        the names `pattern` matches, noting which of `distinct` match each."""
        machines = self.patterns.product((pattern,), distinct)
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
                if len(seen) > wildcard.SEARCH_LIMIT:
                    raise wildcard.TooComplex(pattern)
                queue.append(nxt)
        return found

    def overlapping(self, rules: Sequence[Rule], index: int) -> list[int]:
        """Indices of the later rules that match some pair rules[index] matches."""
        rule = rules[index]
        return [
            j
            for j in range(index + 1, len(rules))
            if self._meet(rule.permission, rules[j].permission)
            and self._meet(rule.pattern, rules[j].pattern)
        ]

    def covering(self, rules: Sequence[Rule], index: int) -> int | None:
        """The last later rule that alone matches everything rules[index] matches."""
        rule = rules[index]
        for j in range(len(rules) - 1, index, -1):
            other = rules[j]
            if self.patterns.covers(other.permission, rule.permission) and self.patterns.covers(
                other.pattern, rule.pattern
            ):
                return j
        return None

    def _meet(self, one: str, other: str) -> bool:
        """Some text matches both patterns."""
        return self.patterns.witness((one, other)) is not None

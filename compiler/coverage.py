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

from compiler import wildcard
from compiler.permissions import Rule
from compiler.wildcard import Glob, glob


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
    rule = rules[index]
    later = rules[index + 1 :]
    if permission is not None:
        if not wildcard.match(permission, rule.permission):
            return None
        groups = {
            frozenset(
                j for j, r in enumerate(later) if wildcard.match(permission, r.permission)
            ): permission
        }
    else:
        groups = _name_groups(rule.permission, [r.permission for r in later])
    include = [glob(rule.pattern), *(glob(p) for p in within)]
    for members, name in groups.items():
        text = wildcard.witness(include, [glob(later[j].pattern) for j in sorted(members)])
        if text is not None:
            return Witness(name, text)
    return None


def _name_groups(pattern: str, later: Sequence[str]) -> dict[frozenset[int], str]:
    """For the names `pattern` matches: each distinct set of `later` patterns that
    also match them, with one example name per set."""
    distinct = sorted(set(later))
    machines: list[Glob] = [glob(pattern), *(glob(p) for p in distinct)]
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
        if machines[0].accepts(config[0]):
            accepting = frozenset(
                p
                for p, m, s in zip(distinct, machines[1:], config[1:], strict=True)
                if m.accepts(s)
            )
            found.setdefault(accepting, wildcard.from_units(seen[config]))
        for symbol in wildcard.relevant_symbols(machines, config):
            nxt = tuple(m.step(s, symbol) for m, s in zip(machines, config, strict=True))
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


def overlapping(rules: Sequence[Rule], index: int) -> list[int]:
    """Indices of the later rules that match some pair rules[index] matches."""
    rule = rules[index]
    out = []
    for j in range(index + 1, len(rules)):
        other = rules[j]
        if (
            wildcard.witness([glob(rule.permission), glob(other.permission)]) is not None
            and wildcard.witness([glob(rule.pattern), glob(other.pattern)]) is not None
        ):
            out.append(j)
    return out


def covering(rules: Sequence[Rule], index: int) -> int | None:
    """The last later rule that alone matches everything rules[index] matches."""
    rule = rules[index]
    for j in range(len(rules) - 1, index, -1):
        other = rules[j]
        if wildcard.covers(other.permission, rule.permission) and wildcard.covers(
            other.pattern, rule.pattern
        ):
            return j
    return None

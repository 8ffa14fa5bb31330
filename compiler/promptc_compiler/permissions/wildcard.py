"""OpenCode's wildcard patterns: matching exactly as opencode-ai 1.18.33 does, and
reasoning about everything a pattern can match.

OpenCode decides every permission with one function, `Wildcard.match(text,
pattern)`; in the 1.18.33 bundle it reads:

    function match(text, pattern) {
      let t = text.replaceAll("\\\\", "/"),
          p = pattern.replaceAll("\\\\", "/").replace(/[.+^${}()|[\\]\\\\]/g, "\\\\$&")
                     .replace(/\\*/g, ".*").replace(/\\?/g, ".");
      if (p.endsWith(" .*")) p = p.slice(0, -3) + "( .*)?";
      return new RegExp("^" + p + "$", "s").test(t);
    }

What that means for a pattern (`*` crosses `/`, `?` is one UTF-16 code unit,
a trailing ` *` is optional, the permission name is a pattern too):
docs/permissions.md.

A pattern is a tiny automaton, and this module has one engine for it (a set
of positions as the bits of an int, `Masks` and `step`). `match` runs it over
the text, one step per code unit: time linear in pattern times text. (A
backtracking engine running the expression above tries every way to place
the stars of `*a*a*a*a*b` in a run of `a`s: a power of the text's length,
one per star.) Beyond matching, rules need to know what a pattern *can*
match: whether one pattern covers another, or which text a set of patterns
lets through. These questions have exact answers (`witness`, `covers`),
found by a breadth-first search over the product of the automata with an
alphabet of the patterns' own characters plus "any other". The functions
answer each question afresh; a run that asks many holds one `Patterns`,
which answers each once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import NamedTuple

STAR = "\x00*"  # token for `*` (a two-character string never equals a code unit)
ANY = "\x00?"  # token for `?`
SEARCH_LIMIT = 200_000  # product states explored before a question is given up


class TooComplex(Exception):
    """The patterns' product automaton is too large to explore; no answer."""


def utf16_units(text: str) -> str:
    """`text` with every astral character split into its two surrogates, so one
    Python character is one UTF-16 code unit, as in a JavaScript string."""
    if text.isascii() or all(ord(c) <= 0xFFFF for c in text):
        return text
    out: list[str] = []
    for char in text:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(chr(0xD800 + (code >> 10)))
            out.append(chr(0xDC00 + (code & 0x3FF)))
        else:
            out.append(char)
    return "".join(out)


def from_units(units: str) -> str:
    """Inverse of utf16_units (lone surrogates stay as they are)."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def normal(text: str) -> str:
    """The text as OpenCode compares it: backslashes as `/`, in UTF-16 code units.
    A pattern without `*` or `?` matches exactly the texts with its normal form."""
    return utf16_units(text.replace("\\", "/"))


def match(text: str, pattern: str) -> bool:
    """True when OpenCode's Wildcard.match(text, pattern) is true."""
    return accepts(matcher(pattern), normal(text))


class Matcher(NamedTuple):
    """A pattern ready to match texts: its automaton, and the units every text it
    matches starts and ends with."""

    head: str  # see head()
    tail: str  # the units after its last `*` or `?` ("" when it has none, or ends in ` *`)
    least: int  # len(head) + len(tail)
    after: int  # the automaton's positions once it has read `head`
    machine: Masks


def matcher(pattern: str) -> Matcher:
    """The pattern, ready to match (see accepts)."""
    machine = masks(pattern)
    units = normal(pattern)
    last = max(units.rfind("*"), units.rfind("?"))
    tail = "" if last < 0 or units.endswith(" *") else units[last + 1 :]
    first = head(pattern)
    state = machine.start
    for unit in first:
        state = step(state, machine.any | machine.units.get(unit, 0), machine.star)
    return Matcher(first, tail, len(first) + len(tail), state, machine)


def accepts(found: Matcher, units: str) -> bool:
    """Whether the pattern matches a text in `normal` form: its automaton run
    over the text, one step per unit, each a few operations on ints of the
    pattern's length; time linear in pattern times text, whatever both hold.

    Most texts a rule is asked about differ from its pattern in their first or
    last units (`task` against `bash`, `a.ts` against `*.env`), so those are
    compared first, and the run starts after the head. It stops as soon as no
    position is left, or one accepts whatever follows (a trailing `*`)."""
    head, tail, least, state, machine = found
    if len(units) < least or not units.startswith(head) or not units.endswith(tail):
        return False
    universal = machine.universal
    if len(units) > len(head) and not state & universal:
        star, table, any_ = machine.star, machine.units, machine.any
        for unit in units[len(head) :]:
            state = step(state, any_ | table.get(unit, 0), star)
            if not state or state & universal:
                break
    return bool(state & machine.accept)


def step(state: int, moves: int, star: int) -> int:
    """The positions after reading one unit: from `state`, those that read it
    (`moves`) go to the next position and a `*` stays; then a `*` reached may
    match nothing, so the rest of its run of `*` and the position after it are
    reached too. `star + (reached stars)` carries each reached bit up through
    the rest of its run to the position after it, and `^ star` keeps the bits
    that changed: the closure in one addition, however long the run."""
    found = ((state & moves) << 1) | (state & star)
    return found | ((star + (found & star)) ^ star)


@dataclass(frozen=True)
class Glob:
    """A pattern as an automaton: states 0..n over its tokens; `accept` holds n,
    and n-2 too when the pattern ends in the optional ` *`."""

    pattern: str
    tokens: tuple[str, ...]
    accept: frozenset[int]
    # States from which every continuation is accepted: a `*` with only `*` after it.
    universal: frozenset[int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        tail = len(self.tokens)
        while tail > 0 and self.tokens[tail - 1] == STAR:
            tail -= 1
        object.__setattr__(self, "universal", frozenset(range(tail, len(self.tokens))))

    def start(self) -> frozenset[int]:
        """State 0 and every state a run of `*` matching nothing reaches from it."""
        state = 0
        while state < len(self.tokens) and self.tokens[state] == STAR:
            state += 1
        return frozenset(range(state + 1))


def glob(pattern: str) -> Glob:
    units = utf16_units(pattern.replace("\\", "/"))
    tokens = tuple(STAR if c == "*" else ANY if c == "?" else c for c in units)
    accept = {len(tokens)}
    if units.endswith(" *"):
        accept.add(len(tokens) - 2)
    return Glob(pattern, tokens, frozenset(accept))


def other_char(literals: set[str]) -> str:
    """A concrete character that none of the patterns names (never `\\`)."""
    for char in "xyzqjkw0123456789abcdefghilmnoprstuv_-":
        if char not in literals:
            return char
    code = 0xE000
    while chr(code) in literals:
        code += 1
    return chr(code)


def witness(include: Sequence[Glob], exclude: Sequence[Glob] = ()) -> str | None:
    """The shortest text every `include` pattern matches and no `exclude` pattern
    does, or None when there is none. Raises TooComplex past SEARCH_LIMIT states."""
    return Patterns().witness(tuple(m.pattern for m in include), tuple(m.pattern for m in exclude))


def covers(outer: str, inner: str) -> bool:
    """True when every text `inner` matches is matched by `outer` too."""
    return Patterns().covers(outer, inner)


def universal(pattern: str) -> bool:
    """True when the pattern matches every text (`*`, `**`, `* *`, ...)."""
    return Patterns().universal(pattern)


class Patterns:
    """Patterns and questions about them, each worked out once.

    Every agent inherits the same defaults and bundles repeat their maps, so
    a run asks the same questions many times: an analysis holds one of these
    for its run (never longer), and asks it instead of the functions above.
    """

    def __init__(self) -> None:
        self._pairs: dict[tuple[str, str], tuple[Matcher, Matcher]] = {}
        self._matchers: dict[str, Matcher] = {}
        self._matches: dict[tuple[str, str], bool] = {}
        self._masks: dict[str, Masks] = {}
        # the exclude lists asked about, side by side (see Product)
        self._blocks: dict[tuple[str, ...], tuple[Masks, tuple[int, ...]]] = {}
        self._found: dict[tuple[tuple[str, ...], tuple[str, ...]], str | None] = {}
        self._universal: dict[str, bool] = {}
        self._starts: dict[str, Start] = {}

    def matcher(self, pattern: str) -> Matcher:
        found = self._matchers.get(pattern)
        if found is None:
            found = self._matchers[pattern] = matcher(pattern)
        return found

    def matchers(self, key: str, pattern: str) -> tuple[Matcher, Matcher]:
        """A rule's two matchers (its key's, its pattern's), one tuple for every
        rule that writes both alike: bundles repeat their maps, and each rule
        would otherwise hold a pair of its own for the whole run."""
        found = self._pairs.get((key, pattern))
        if found is None:
            found = self._pairs[key, pattern] = (self.matcher(key), self.matcher(pattern))
        return found

    def match(self, text: str, pattern: str) -> bool:
        found = self._matches.get((text, pattern))
        if found is None:
            found = self._matches[text, pattern] = accepts(self.matcher(pattern), normal(text))
        return found

    def witness(self, include: tuple[str, ...], exclude: tuple[str, ...] = ()) -> str | None:
        """wildcard.witness over patterns: remembered, as TooComplex is not."""
        # What cannot change the answer only adds states and keys: an include that
        # matches every text, the same exclude twice, and an exclude no text of
        # the includes can start like (so the same question is asked again less).
        include = tuple(p for p in include if not self.universal(p))
        starts = [self.start(i) for i in include]
        exclude = tuple(p for p in dict.fromkeys(exclude) if may_meet(starts, self.start(p)))
        key = (include or ("*",), exclude)
        if key not in self._found:
            block, _ = self.block(exclude)
            # The search's first step, before the product is built: an exclude
            # that matches every text leaves nothing to find.
            saturated = block.start & block.universal
            if saturated or any(p in exclude for p in include):
                self._found[key] = None  # every text is excluded, or every one of an include
            else:
                shortest = self._shortest(include, exclude)
                self._found[key] = shortest if shortest is not None else self.product(*key).search()
        return self._found[key]

    def _shortest(self, include: tuple[str, ...], exclude: tuple[str, ...]) -> str | None:
        """The longest head of the includes, when it is a witness itself: every
        text they all match starts with it, so no witness is shorter and none
        other is as short, and the search would find it first. Most questions
        end here (`*` but the later rules: the empty text), without a product."""
        head = max((self.start(p).head for p in include), key=len, default="")
        if not all(accepts(self.matcher(p), head) for p in include):
            return None
        if any(accepts(self.matcher(p), head) for p in exclude):
            return None
        return from_units(head)

    def covers(self, outer: str, inner: str) -> bool:
        return self.witness((inner,), (outer,)) is None

    def universal(self, pattern: str) -> bool:
        if pattern and not pattern.strip("*"):
            return True
        if "*" not in pattern:
            return False  # it matches texts of one length only
        if self.start(pattern).head:
            return False  # it matches only texts that start with its head
        found = self._universal.get(pattern)
        if found is None:
            found = self._universal[pattern] = self.covers(pattern, "*")
        return found

    def start(self, pattern: str) -> Start:
        found = self._starts.get(pattern)
        if found is None:
            found = self._starts[pattern] = start(pattern)
        return found

    def head(self, pattern: str) -> str:
        return self.start(pattern).head

    def apart(self, patterns: Sequence[str]) -> bool:
        if len(patterns) == 2:  # the common question, asked hundreds of thousands of times
            return not may_meet((self.start(patterns[0]),), self.start(patterns[1]))
        return apart(patterns, self.start)

    def masks(self, pattern: str) -> Masks:
        found = self._masks.get(pattern)
        if found is None:
            found = self._masks[pattern] = masks(pattern)
        return found

    def block(self, patterns: tuple[str, ...]) -> tuple[Masks, tuple[int, ...]]:
        """The patterns' masks side by side (see _block), with each one's accepting bits."""
        found = self._blocks.get(patterns)
        if found is None:
            found = self._blocks[patterns] = _block([self.masks(p) for p in patterns])
        return found

    def product(self, include: tuple[str, ...], exclude: tuple[str, ...]) -> Product:
        return Product(self, include, exclude)


class Masks(NamedTuple):
    """One pattern's automaton as bit masks over its positions 0..n (n: the end)."""

    size: int  # n + 1 bits
    star: int  # positions holding `*`
    any: int  # positions holding `?`
    units: dict[str, int]  # literal unit -> positions holding it
    start: int
    accept: int
    universal: int  # positions from which every continuation is accepted
    literals: frozenset[str]


def masks(pattern: str) -> Masks:
    """The pattern's automaton as bit masks."""
    machine = glob(pattern)
    star = any_ = 0
    units: dict[str, int] = {}
    for position, token in enumerate(machine.tokens):
        if token == STAR:
            star |= 1 << position
        elif token == ANY:
            any_ |= 1 << position
        else:
            units[token] = units.get(token, 0) | 1 << position
    return Masks(
        len(machine.tokens) + 1,
        star,
        any_,
        units,
        _bits(machine.start()),
        _bits(machine.accept),
        _bits(machine.universal),
        frozenset(units),
    )


def _bits(states: Iterable[int]) -> int:
    return sum(1 << state for state in states)


def _block(machines: Sequence[Masks]) -> tuple[Masks, tuple[int, ...]]:
    """Several patterns side by side, as one set of masks: `accept` holds every
    one's accepting bits, `universal` every one's all-accepting bits; and each
    one's accepting bits in it."""
    size = star = any_ = start = accept = universal = 0
    units: dict[str, int] = {}
    literals: set[str] = set()
    parts: list[int] = []
    for masks in machines:
        star |= masks.star << size
        any_ |= masks.any << size
        for unit, bits in masks.units.items():
            units[unit] = units.get(unit, 0) | bits << size
        start |= masks.start << size
        accept |= masks.accept << size
        parts.append(masks.accept << size)
        universal |= masks.universal << size
        literals |= masks.literals
        size += masks.size
    block = Masks(size, star, any_, units, start, accept, universal, frozenset(literals))
    return block, tuple(parts)


class Product:
    """The product of several patterns' automata: `include` patterns a text must
    match and `exclude` patterns it must not.

    A state of the product is one int: each machine owns a run of bits (one per
    position, plus its end), set for the positions it may be in, so a tuple of
    every machine's set of positions maps one to one onto an int, and a step of
    every machine at once is a few operations on it. Breadth first from the
    start, trying "other" (a unit no pattern names) first and then each unit
    some machine expects next in sorted order, searches find the shortest,
    plainest text; any other unit moves every machine as "other" does.
    """

    def __init__(self, memo: Patterns, include: Sequence[str], exclude: tuple[str, ...]) -> None:
        self.patterns = ", ".join((*include, *exclude))
        # The excludes first, as one block: callers ask about many patterns
        # against the same long list of excludes.
        block, self.parts = memo.block(exclude)  # parts: each exclude's accepting bits
        literals = set(block.literals)
        star, any_, start = block.star, block.any, block.start
        units = dict(block.units)
        self.alive: list[int] = []  # per include machine: all its bits
        self.accepts: list[int] = []  # per include machine: its accepting bits
        offset = block.size
        for pattern in include:
            masks = memo.masks(pattern)
            literals |= masks.literals
            star |= masks.star << offset
            any_ |= masks.any << offset
            for unit, bits in masks.units.items():
                units[unit] = units.get(unit, 0) | bits << offset
            start |= masks.start << offset
            self.alive.append(((1 << masks.size) - 1) << offset)
            self.accepts.append(masks.accept << offset)
            offset += masks.size
        self.star, self.start = star, start
        self.refused, self.saturated = block.accept, block.universal
        # unit -> the positions that read it; sorted, as the search tries them
        self.names = sorted(units)
        self.masks = [units[unit] for unit in self.names]
        self.units, self.any = units, any_
        # unit -> the positions that move on reading it; filled as searches read
        self.moves: dict[str | None, int] = {None: any_}
        self.other = other_char(literals)

    def step(self, state: int, symbol: str | None) -> int:
        """Every machine reads one unit (None: one no pattern names)."""
        moves = self.moves.get(symbol)
        if moves is None:
            moves = self.moves[symbol] = self.any | (self.units[symbol] if symbol else 0)
        return step(state, moves, self.star)

    # symbols and search test a state against each mask with map(state.__and__,
    # masks), not a generator or a comprehension: they run for every state of a
    # search (up to SEARCH_LIMIT), and the plain forms made it 5% slower.
    def symbols(self, state: int) -> list[str | None]:
        """The units worth trying from `state`: None ("other") first, then, sorted,
        every unit some machine expects next."""
        return [None, *compress(self.names, map(state.__and__, self.masks))]

    def search(self) -> str | None:
        """The shortest, plainest text in the product (None: there is none)."""
        start = self.start
        if start & self.saturated:
            return None
        alive, accepts, refused, saturated = self.alive, self.accepts, self.refused, self.saturated
        parent: dict[int, tuple[int, str | None]] = {}
        seen = {start}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            if not state & refused and all(map(state.__and__, accepts)):
                return self._spell(state, parent)
            for symbol in self.symbols(state):
                nxt = self.step(state, symbol)
                if nxt in seen or not all(map(nxt.__and__, alive)):
                    continue
                seen.add(nxt)
                # An exclude pattern that now accepts every continuation rules out
                # everything below this state: nothing there to find.
                if nxt & saturated:
                    continue
                if len(seen) > SEARCH_LIMIT:
                    raise TooComplex(self.patterns)
                parent[nxt] = (state, symbol)
                queue.append(nxt)
        return None

    def _spell(self, state: int, parent: dict[int, tuple[int, str | None]]) -> str:
        units: list[str] = []
        while state in parent:
            state, symbol = parent[state]
            units.append(self.other if symbol is None else symbol)
        return from_units("".join(reversed(units)))


class Start(NamedTuple):
    """How every text a pattern matches starts (see start)."""

    head: str  # the units every text starts with, in normal form
    # True for the optional trailing ` *`: a text longer than the head goes on
    # with a space (`git status 1 *` matches `git status 1`, never `git status 12`)
    spaced: bool


def start(pattern: str) -> Start:
    """The units every text the pattern matches starts with (in normal form): those
    before its first `*` or `?`, but for the optional trailing ` *` the space too."""
    units = normal(pattern)
    cut = min((i for i in (units.find("*"), units.find("?")) if i >= 0), default=len(units))
    spaced = cut == len(units) - 1 and units.endswith(" *")
    return Start(units[: cut - 1] if spaced else units[:cut], spaced)


def head(pattern: str) -> str:
    """The units every text the pattern matches starts with (see start)."""
    return start(pattern).head


def apart(patterns: Sequence[str], start_of: Callable[[str], Start] = start) -> bool:
    """Two of the patterns start with texts that differ before either ends, so no
    input matches both. (The search would find that too, stepping along the one
    text both heads allow, so it could never give up on it: asking here first
    gives the same answer without building the product.)"""
    starts = [start_of(p) for p in patterns]
    return any(
        not may_meet((one,), other) for i, one in enumerate(starts) for other in starts[i + 1 :]
    )


def may_meet(starts: Sequence[Start], other: Start) -> bool:
    """Some text may start as each of `starts` and `other` say: the starts of
    patterns (see start) that `apart` does not tell apart."""
    for one in starts:
        short, long = (one, other) if len(one.head) <= len(other.head) else (other, one)
        differ = not long.head.startswith(short.head) or (
            # a text as long as the longer head goes on from the shorter one with a space
            short.spaced and len(long.head) > len(short.head) and long.head[len(short.head)] != " "
        )
        if differ and len(one.head) + len(other.head) < SEARCH_LIMIT:
            return False
    return True


def is_literal(pattern: str) -> bool:
    """True when the pattern matches exactly one text (no `*`, no `?`)."""
    return "*" not in pattern and "?" not in pattern

"""Star patterns of the runtimes' own matchers, matched in time linear in the text.

Claude Code's Bash rules and the `case` tables of a Copilot hook promptc wrote
match a text against a pattern of fixed-length pieces joined by `*` (any
text): a piece is literal characters and, in a hook, `?` or a one-character
class. A regular expression with `.*` for each star backtracks through every
way to place the stars: `*a*a*a*a*a*a*a*a*a*a*b` against a line of 40 `a`s
did not end in a minute, and a spec may write that pattern and the matrix, or
`promptc can`, ask about that line. `Star.matches` places each piece at its
first place instead: the first piece at the start, the last at the end, each
one between at the first place after the one before. That is the only
placement to try, as the pieces have fixed lengths and a star takes any
text: if the pieces fit at all, they fit with each one as early as it can
be, which leaves the most text for the ones after it. Each piece is a
regular expression without repetition, searched once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

STAR = "*"  # the piece separator in a list of parts (see Star.of)


class Star(NamedTuple):
    """A pattern as its fixed-length pieces, each a compiled expression of one
    character per part; with no star, one piece that is the whole text."""

    pieces: tuple[re.Pattern[str], ...]
    widths: tuple[int, ...]
    starred: bool

    @classmethod
    def of(cls, parts: Sequence[str]) -> Star:
        """The pattern of `parts`: STAR, or an expression matching exactly one
        character (`a`, `\\*`, `.`, `[^/]`); `re.DOTALL` holds for every piece."""
        pieces: list[list[str]] = [[]]
        for part in parts:
            if part == STAR:
                pieces.append([])
            else:
                pieces[-1].append(part)
        return cls(
            tuple(re.compile("".join(piece), re.DOTALL) for piece in pieces),
            tuple(len(piece) for piece in pieces),
            len(pieces) > 1,
        )

    @classmethod
    def literal(cls, pattern: str) -> Star:
        """A pattern whose only special character is `*`."""
        return cls.of([STAR if char == "*" else re.escape(char) for char in pattern])

    def matches(self, text: str) -> bool:
        """The whole text matches the pattern."""
        if not self.starred:
            return self.pieces[0].fullmatch(text) is not None
        first, *middle, last = self.pieces
        start, end = self.widths[0], len(text) - self.widths[-1]
        if end < start:
            return False
        # An empty first or last piece (a pattern opening or ending with `*`) fits anywhere.
        if start and first.match(text) is None:
            return False
        if self.widths[-1] and last.fullmatch(text, end) is None:
            return False
        for piece in middle:
            found = piece.search(text, start, end)
            if found is None:
                return False
            start = found.end()
        return True

"""Compose: expand `<<fragment>>` placeholders in agent and mode bodies.

First pass: a placeholder is `<<name>>` outside fenced code blocks and inline
code; it is replaced by the fragment's body without its final newline, so a
placeholder on its own line becomes exactly the fragment's lines. Fragments
may include fragments; a cycle is an error naming the whole chain. Any other
text passes through byte for byte.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from compiler.bundle import Bundle
from compiler.diagnostics import Problem
from compiler.loader import SourceFile
from compiler.suggest import did_you_mean

PLACEHOLDER = re.compile(r"<<\s*([A-Za-z_][A-Za-z0-9_]*)\s*>>")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TICKS = re.compile(r"`+")
MAX_DEPTH = 32

Finding = tuple[str, Path, Problem]


@dataclass(frozen=True)
class Composition:
    agents: Mapping[str, str]
    modes: Mapping[str, str]
    used: frozenset[str]
    findings: tuple[Finding, ...] = field(default=())


def compose_bundle(bundle: Bundle, target: str) -> Composition:
    state = _State(bundle, target)
    agents = {ident: state.expand(src, ()) for ident, src in bundle.agents.items() if src.ok}
    modes = {ident: state.expand(src, ()) for ident, src in bundle.modes.items() if src.ok}
    return Composition(agents, modes, frozenset(state.used), tuple(state.findings))


@dataclass
class _State:
    bundle: Bundle
    target: str
    used: set[str] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)

    def expand(self, source: SourceFile, chain: tuple[str, ...]) -> str:
        out: list[str] = []
        fence: str | None = None
        for offset, line in enumerate(source.body.split("\n")):
            marker = _FENCE.match(line)
            if fence is not None:
                if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                    fence = None
                out.append(line)
                continue
            if marker:
                fence = marker.group(1)
                out.append(line)
                continue
            out.append(self._line(source, source.body_line + offset, line, chain))
        return "\n".join(out)

    def _line(self, source: SourceFile, number: int, line: str, chain: tuple[str, ...]) -> str:
        code = code_spans(line)
        starts = [start for start, _ in code]
        pieces: list[str] = []
        last = 0
        for match in PLACEHOLDER.finditer(line):
            inside = bisect.bisect_right(starts, match.start()) - 1
            if inside >= 0 and match.start() < code[inside][1]:
                continue
            pieces.append(line[last : match.start()])
            pieces.append(self._include(source, number, match, chain))
            last = match.end()
        pieces.append(line[last:])
        return "".join(pieces)

    def _include(
        self, source: SourceFile, number: int, match: re.Match[str], chain: tuple[str, ...]
    ) -> str:
        name = match.group(1)
        fragment = self.bundle.fragments.get(name)
        where = Problem(number, match.start() + 1, "")
        if fragment is None:
            if name not in self.hints:  # once per name: a file may repeat it 100,000 times
                self.hints[name] = did_you_mean(name, self.bundle.fragments)
            return self._fail(source, where, f"unknown fragment '{name}'{self.hints[name]}", match)
        if name in chain:
            cycle = " -> ".join((*chain[chain.index(name) :], name))
            return self._fail(source, where, f"fragment cycle: {cycle}", match)
        if len(chain) >= MAX_DEPTH:
            return self._fail(source, where, f"fragments nested deeper than {MAX_DEPTH}", match)
        self.used.add(name)
        if not fragment.ok:
            return match.group(0)
        text = self.expand(fragment, (*chain, name))
        return text[:-1] if text.endswith("\n") else text

    def _fail(self, source: SourceFile, where: Problem, message: str, match: re.Match[str]) -> str:
        self.findings.append(("compose", source.path, Problem(where.line, where.column, message)))
        return match.group(0)


def code_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each inline code span, as CommonMark pairs backtick runs.

    A run of n backticks opens a span closed by the next run of exactly n;
    a run with no partner is literal text. Linear in the line's length (a
    backreference regex took seconds on a line of a thousand backticks).
    """
    runs = [m.span() for m in _TICKS.finditer(line)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        partner = bisect.bisect_right(same, index)
        if partner < len(same):
            close = same[partner]
            spans.append((start, runs[close][1]))
            index = close + 1
        else:
            index += 1
    return spans

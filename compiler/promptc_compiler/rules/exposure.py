"""What the agents read, and where each line of it reaches: the ground of the security rules.

An agent's prompt is text the model executes, assembled from fragments that
people copy from the web. The security rules (hidden-text, mixed-script,
hidden-markup, prompt-injection, encoded-blob, exfiltration-url, secret) scan
every source file once, where it is written: a fragment included by ten
agents gives one finding at its own line, and the finding names the agents,
modes and skills that line reaches, for each runtime the bundle is built for.

- `Exposure`, one per run for every security rule: `sources`, every file the
  rules scan (agents, modes, fragments, skill files, skill supporting files
  and, for secrets, the config), each with offsets to line and column; and
  `reach`, built from the composed bodies' source maps only when a rule has
  something to report, so a clean bundle never builds a source map.
- `Lines`, the distinct lines of the run's sources: what the rules look for
  in every line (their trigger words, the characters a finding starts with)
  is looked for once in each distinct line, and each source reads the answer
  for its own lines (`Source.windows`, `Source.holds`). Agents share most of
  their lines (a team's rules, a generator's template), so a line that a
  thousand agents hold is read once, not a thousand times.
- `report`: findings to Problems: one per line and kind, with what it reaches, less the
  ones the rule's `accept` list accepts (each entry with a required reason);
  an entry that accepts nothing is reported too.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.base.body_syntax import fenced_blocks, in_code_span
from promptc_compiler.base.diagnostics import Fix, Problem
from promptc_compiler.core.bundle import Bundle
from promptc_compiler.core.compose import Composition, SourceMap
from promptc_compiler.core.config import Config
from promptc_compiler.core.project import Project
from promptc_compiler.runtimes import compose_as
from promptc_compiler.runtimes.translations import Shared, Translated

# Roles of the files the rules read. Markdown bodies are what a renderer shows;
# supporting files and the config are plain text.
AGENT, MODE, FRAGMENT, SKILL = "agent", "mode", "fragment", "skill"
ASSET, CONFIG = "asset", "config"
PROMPTS = (AGENT, MODE, FRAGMENT, SKILL)
TEXT = (*PROMPTS, ASSET)  # every file but the config


class Lines:
    """The distinct lines of a run's sources, joined in one text, and each
    source's lines (`rows`, in the order they were added), each distinct line
    one string shared by every source that holds it.

    What a rule looks for in a line is looked for once per distinct line, in
    the joined text, at C speed (`holding`, `matching`): the answer is the set
    of lines that hold it, and a source holds it where one of its lines is in
    that set. Only what never spans a newline is looked for so: a trigger
    word, a character, a pattern that matches within one line and reads
    nothing beyond it. Lowering a line does not depend on the lines around it
    (a newline is neither cased nor ignorable, which is all that final sigma
    reads), so the lowered joined text holds each line lowered. Every source
    is added before the first look: the joined text is made then.
    """

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._lines: dict[str, str] = {}  # each distinct line, to itself
        self.rows: list[list[str]] = []
        self._found: dict[object, frozenset[str]] = {}
        for text in texts:
            self.add(text)

    def add(self, text: str) -> int:
        """Add a source's text; its row's number."""
        assert "_joined" not in self.__dict__, "a source added after a look"
        split = text.split("\n")
        self.rows.append(list(map(self._lines.setdefault, split, split)))  # at C speed
        return len(self.rows) - 1

    @functools.cached_property
    def _joined(self) -> tuple[list[str], str, list[int]]:
        """The distinct lines, joined, and where each starts (and the end)."""
        lines = list(self._lines)
        starts = itertools.accumulate(map(len, lines), lambda at, size: at + size + 1, initial=0)
        return lines, "\n".join(lines), list(starts)

    @functools.cached_property
    def _lowered(self) -> tuple[str, list[int], frozenset[str]]:
        """The joined text lowered, where its lines start, and the lines whose
        length lowering changes (a rare letter such as U+0130 lowers to two)."""
        lines, text, starts = self._joined
        low = text.lower()
        if len(low) == len(text):
            return low, starts, frozenset()
        lowered = [line.lower() for line in lines]
        moved = itertools.accumulate(map(len, lowered), lambda at, size: at + size + 1, initial=0)
        changed = (a for a, b in zip(lines, lowered, strict=True) if len(a) != len(b))
        return "\n".join(lowered), list(moved), frozenset(changed)

    @property
    def unlowerable(self) -> frozenset[str]:
        """The lines that lowering makes longer."""
        return self._lowered[2]

    def holding_any(self, words: Sequence[str]) -> frozenset[str]:
        """The lines whose lowered text holds one of `words` (see holding)."""
        key = tuple(words)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = frozenset().union(*map(self.holding, words))
        return found

    def holding(self, word: str) -> frozenset[str]:
        """The lines whose lowered text holds `word` (lower case, no newline)."""
        found = self._found.get(word)
        if found is None:
            lines = self._joined[0]
            low, starts, _ = self._lowered
            held = set()
            at = low.find(word)
            while at >= 0:
                line = bisect.bisect_right(starts, at) - 1
                held.add(lines[line])
                at = low.find(word, starts[line + 1])  # the next line on
            found = self._found[word] = frozenset(held)
        return found

    def matching(self, pattern: re.Pattern[str]) -> frozenset[str]:
        """The lines that hold a match of `pattern`, which matches within one
        line and reads nothing beyond it (a character class, a literal)."""
        found = self._found.get(pattern)
        if found is None:
            lines, text, starts = self._joined
            held = set()
            match = pattern.search(text)
            while match is not None:
                line = bisect.bisect_right(starts, match.start()) - 1
                held.add(lines[line])
                match = pattern.search(text, starts[line + 1])  # the next line on
            found = self._found[pattern] = frozenset(held)
        return found


@dataclass(frozen=True)
class Source:
    """One file a rule scans: its whole text and where its markdown body starts.

    `lines` and `row`: the run's distinct lines and this file's among them
    (`Lines.rows[row]`); a source made on its own has a Lines of its own.
    """

    path: Path
    text: str
    role: str
    body: int = 0  # offset of the body (after the frontmatter); 0 without one
    body_line: int = 1
    owner: tuple[str, str] | None = None  # (kind, id) of the spec the file is, if any
    lines: Lines | None = field(default=None, compare=False, repr=False)
    row: int = field(default=0, compare=False, repr=False)

    @property
    def _row(self) -> list[str]:
        """This file's lines, each the run's one string of that line. Not made a
        set of its own: a thousand files' sets held 8 MiB, and a look at the
        lines' strings costs about as much as building the set."""
        return self._index.rows[self.row]

    @functools.cached_property
    def _index(self) -> Lines:
        return self.lines if self.lines is not None else Lines([self.text])

    @functools.cached_property
    def _starts(self) -> array[int]:
        """Where each line starts: the lengths of the lines before it and their
        newlines, summed at C speed from the lines the run holds already."""
        # An array, not a list: a list holds an object for each offset past 256
        # (36 bytes a line where an array takes 8), for every file a rule reads.
        row = self._row
        lengths = itertools.accumulate(map(len, row), initial=0)
        return array("q", map(operator.add, lengths, range(len(row))))

    def holds(self, pattern: re.Pattern[str]) -> bool:
        """Whether a line of the text holds a match of `pattern`, which matches
        within one line and reads nothing beyond it (Lines.matching): a test a
        rule makes before a scan that finds nothing where it fails."""
        found = self._index.matching(pattern)
        return bool(found) and not found.isdisjoint(self._row)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in code points) of `offset`."""
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1

    def line_span(self, line: int) -> tuple[int, int]:
        """Offsets of line `line` (1-based), its newline excluded."""
        start = self._starts[line - 1]
        end = self.text.find("\n", start)
        return start, len(self.text) if end < 0 else end

    def line_text(self, line: int) -> str:
        start, end = self.line_span(line)
        return self.text[start:end]

    def is_prose(self, offset: int) -> bool:
        """Whether `offset` is in text the model reads as words: the body, a
        supporting file, or a `description` in the frontmatter (the rest of the
        frontmatter is configuration, such as `permissionMode: ...`)."""
        if offset >= self.body or self.role == ASSET:
            return True
        line = self.position(offset)[0]
        return self.line_text(line).lstrip().startswith("description:")

    def windows(self, triggers: Sequence[str], around: int = 0) -> Iterator[tuple[int, int]]:
        """Offsets (start, end) of the lines that hold one of `triggers` (lower-case
        words, looked for in the lowered text), with `around` lines on each side,
        merged where they touch; the whole text where it cannot be lowered.

        A rule whose patterns each hold one of its triggers runs them on these
        windows only: a literal search costs a fraction of a regular expression's
        scan, and triggers are rare in prose.
        """
        index = self._index
        row = self._row
        # A set that is empty (as these nearly always are) is disjoint from the
        # row without a look at each of its lines.
        unlowerable = index.unlowerable
        if unlowerable and not unlowerable.isdisjoint(row):
            yield 0, len(self.text)
            return
        # The triggers are looked for once in each of the run's distinct lines
        # (Lines): the file's lines are read only where one holds a trigger.
        holding = index.holding_any(triggers)
        if not holding or holding.isdisjoint(row):
            return
        lines = itertools.compress(itertools.count(1), map(holding.__contains__, row))
        yield from _offsets(row, _merged(lines, around, len(row)))

    @functools.cached_property
    def code(self) -> tuple[tuple[int, int], ...]:
        """Offsets (start, end) of the body's fenced code blocks, fences included."""
        return tuple(_fences(self.text, self.body)) if self.role in PROMPTS else ()

    def in_code(self, offset: int) -> bool:
        """Whether `offset` is in a fenced code block or an inline code span."""
        index = bisect.bisect_right(self.code, (offset, len(self.text))) - 1
        if index >= 0 and self.code[index][0] <= offset < self.code[index][1]:
            return True
        line, column = self.position(offset)
        return in_code_span(self.line_text(line), column - 1)


def _merged(lines: Iterable[int], around: int, last: int) -> Iterator[tuple[int, int]]:
    """(first, final) of each run of lines (1-based, `last` the text's last) that
    `lines` (in order) with `around` lines on each side cover, merged where they touch."""
    start = end = 0
    for line in lines:
        first, final = max(1, line - around), min(last, line + around)
        if end and first <= end + 1:
            end = max(end, final)
            continue
        if end:
            yield start, end
        start, end = first, final
    if end:
        yield start, end


def _offsets(row: list[str], runs: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Offsets (start, end) of each run of lines (first, final; 1-based, in order)
    of the text whose lines are `row`, the final line's newline excluded. The
    lengths are summed only as far as the last run: a trigger near the top of
    a file (its frontmatter's `permission:`) reads none of the lines below it,
    and a file whose lines no rule reports on is never cut into offsets
    (Source._starts)."""
    line = offset = 0  # the first line not summed yet (0-based), where it starts
    for first, final in runs:
        start = offset + sum(map(len, row[line : first - 1])) + first - 1 - line
        end = start + sum(map(len, row[first - 1 : final])) + final - first
        yield start, end
        line, offset = final, end + 1


def _fences(text: str, start: int) -> Iterator[tuple[int, int]]:
    """The fenced code blocks of the body from offset `start` (body_syntax), as
    offsets: from their opening fence to the end of their last line."""
    lines = text[start:].split("\n")
    offsets = list(itertools.accumulate((len(line) + 1 for line in lines), initial=start))
    for fence in fenced_blocks(lines):
        yield offsets[fence.start], offsets[fence.end] - 1


@dataclass(frozen=True)
class Exposure:
    """What the security rules read of one run's bundle, for all of them at once:
    the files they scan, and which bodies each line reaches (built only when a
    rule has something to report)."""

    config: Config
    bundle: Bundle
    target: str  # the lint target, whose composition this is
    composition: Composition = field(repr=False)

    @functools.cached_property
    def sources(self) -> tuple[Source, ...]:
        """Every file the rules scan, with the run's distinct lines (Lines)."""
        bundle = self.bundle
        found: list[Source] = []
        lines = Lines()
        kinds = ((AGENT, bundle.agents), (MODE, bundle.modes), (SKILL, bundle.skill_files()))
        for role, files in kinds:
            for ident, file in files.items():
                if file.ok:
                    owner = (role, ident.split("/", 1)[0] if role == SKILL else ident)
                    at = lines.add(file.text)  # the file's own text: no copy of it
                    head = file.body_at
                    found.append(
                        Source(file.path, file.text, role, head, file.body_line, owner, lines, at)
                    )
        for file in bundle.fragments.values():
            if file.ok:
                head, at = file.body_at, lines.add(file.text)
                found.append(
                    Source(file.path, file.text, FRAGMENT, head, file.body_line, None, lines, at)
                )
        for name, skill in bundle.skills.items():
            for rel, text in skill.assets.items():
                at = lines.add(text)
                owner = (SKILL, name)
                found.append(Source(skill.folder / rel, text, ASSET, 0, 1, owner, lines, at))
        if self.config.source is not None:
            text, at = self.config.text, lines.add(self.config.text)
            found.append(Source(self.config.source, text, CONFIG, lines=lines, row=at))
        return tuple(found)

    @functools.cached_property
    def reach(self) -> Reach:
        return Reach(self)


def _exposure(project: Project) -> Exposure:
    return Exposure(project.config, project.bundle, project.target, project.composition)


# The run's Exposure, made from the project the run lints, once for every security rule.
EXPOSURE = Shared(_exposure)


def of(project: Translated) -> Exposure:
    """The Exposure of the run `project` belongs to."""
    return project.translations.shared(EXPOSURE)


class Finding(NamedTuple):
    """What a rule found at one offset of one source, before it becomes a Problem.

    `kind` names the detector (`aws-access-key`, `bidi-control`): messages start
    with it, and `accept` entries may name it.
    """

    source: Source
    offset: int
    kind: str
    message: str
    hint: str | None = None
    fix: Fix | None = None


def accept_option(kinds: Sequence[str]) -> dict[str, Any]:
    """The `accept` option every security rule takes: findings accepted on purpose."""
    entry = {
        "type": "object",
        "additionalProperties": False,
        "required": ["path", "reason"],
        "properties": {
            "path": {"type": "string", "minLength": 1},
            "kind": {"enum": list(kinds)},
            "contains": {"type": "string", "minLength": 1},
            "reason": {"type": "string", "pattern": r"\S"},
        },
    }
    return {"type": "array", "items": entry, "default": []}


def report_scan(
    exposure: Exposure,
    rule: str,
    options: Mapping[str, Any],
    scan: Callable[[Source], Iterable[Finding]],
    roles: tuple[str, ...] = PROMPTS,
) -> Iterator[Problem]:
    """`report` of what `scan` finds in every source of `roles` (by default, those a
    model reads as prompt text)."""
    found = (
        finding for source in exposure.sources if source.role in roles for finding in scan(source)
    )
    yield from report(exposure, rule, options, found)


def report(
    exposure: Exposure, rule: str, options: Mapping[str, Any], findings: Iterable[Finding]
) -> Iterator[Problem]:
    """One Problem per line and kind (at the first finding), with what it reaches; accepted
    findings left out, and every `accept` entry that accepts nothing reported."""
    accepted = list(options.get("accept", ()))
    used: set[int] = set()
    # One finding per line and kind, at the first: the rest of the line is counted.
    first: dict[tuple[Path, int, str], tuple[Finding, int]] = {}
    for finding in findings:
        source = finding.source
        line = source.position(finding.offset)[0]
        hit = _accepting(exposure.config, accepted, finding, line)
        if hit is not None:
            used.add(hit)
            continue
        key = (source.path, line, finding.kind)
        found = first.get(key)
        first[key] = (finding, 1) if found is None else (found[0], found[1] + 1)
    for finding, count in first.values():
        source = finding.source
        line, column = source.position(finding.offset)
        reach = exposure.reach
        more = f" (and {count - 1} more on this line)" if count > 1 else ""
        message = f"{finding.kind}: {finding.message}{more}{reach.text(source, line)}"
        yield Problem(line, column, message, finding.hint, finding.fix, path=source.path)
    config = exposure.config
    for index, entry in enumerate(accepted):
        if index not in used and config.source is not None:
            line, column = config.where(("rules", rule, "accept"))
            what = f"`{entry['path']}`" + (f" ({entry['kind']})" if "kind" in entry else "")
            message = f"accept entry {index + 1} for {what} accepts no finding: remove it"
            yield Problem(line, column, message, path=config.source)


def _accepting(
    config: Config, accepted: Sequence[Mapping[str, Any]], finding: Finding, line: int
) -> int | None:
    """The index of the first `accept` entry that accepts the finding."""
    if not accepted:
        return None
    source = finding.source
    rel = _relative(config, source.path)
    for index, entry in enumerate(accepted):
        if not fnmatchcase(rel, entry["path"]):
            continue
        if entry.get("kind", finding.kind) != finding.kind:
            continue
        if "contains" in entry and entry["contains"] not in source.line_text(line):
            continue
        return index
    return None


def _relative(config: Config, path: Path) -> str:
    try:
        return path.relative_to(config.root).as_posix()
    except ValueError:
        return path.as_posix()


# A shorter line (`- sí`) could stand in any body by chance.
MIN_SEARCHED = 12


class Reach:
    """Which composed agents, modes and skills each source line reaches, per runtime.

    Built from the source maps of every target the bundle is built for (the
    lint target's composition, and the others composed as the emitter composes
    them): a line reaches a body when a line of that body comes from it, or
    when the body's text holds it word for word (a fragment included in the
    middle of a line has no map entry for its first line). Lines shorter than
    MIN_SEARCHED, or holding a placeholder or tag, are not searched for.
    """

    def __init__(self, exposure: Exposure) -> None:
        names = sorted(exposure.config.targets) or [exposure.target]
        # Targets by the target their text is composed for (a plugin reads as its project layout).
        self.runtimes: dict[str, list[str]] = {}
        for name in names:
            self.runtimes.setdefault(compose_as(name), []).append(name)
        self.index: dict[tuple[Path, int], set[tuple[str, str, str]]] = {}
        self.texts: dict[tuple[str, str, str], str] = {}
        for target in self.runtimes:
            composition = (
                exposure.composition
                if target == exposure.target
                else exposure.composition.for_target(target)
            )
            for index, kind in enumerate((AGENT, MODE, SKILL)):
                self._add(target, kind, composition.mapped(index))

    def _add(self, target: str, kind: str, bodies: Iterable[tuple[str, str, SourceMap]]) -> None:
        for ident, text, origins in bodies:
            root = (kind, ident.split("/", 1)[0] if kind == SKILL else ident, target)
            self.texts[root] = self.texts.get(root, "") + text
            for origin in origins:
                self.index.setdefault((origin.path, origin.line), set()).add(root)

    def roots(self, source: Source, line: int) -> set[tuple[str, str, str]]:
        """(kind, id, composed-for target) of every body the line reaches."""
        if source.role == CONFIG:
            return set()
        if source.owner is not None and (source.role == ASSET or line < source.body_line):
            kind, ident = source.owner  # frontmatter or supporting file: the spec itself
            return {root for root in self.texts if root[:2] == (kind, ident)}
        found = set(self.index.get((source.path, line), ()))
        text = source.line_text(line).strip()
        if line < source.body_line or len(text) < MIN_SEARCHED or "<<" in text or "<%" in text:
            return found
        return found | {root for root, body in self.texts.items() if text in body}

    def text(self, source: Source, line: int) -> str:
        """`; reaches ...` for a message: the bodies, grouped by their runtimes."""
        if source.role == CONFIG:
            return ""
        runtimes: dict[tuple[str, str], list[str]] = {}
        for kind, ident, target in self.roots(source, line):
            runtimes.setdefault((kind, ident), []).extend(self.runtimes[target])
        if not runtimes:
            return "; no agent, mode or skill includes it yet"
        groups: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        for root, names in sorted(runtimes.items()):
            groups.setdefault(tuple(sorted(names)), []).append(root)
        parts = [f"{_names(roots)} ({', '.join(names)})" for names, roots in groups.items()]
        return "; reaches " + "; ".join(parts)


def _names(roots: list[tuple[str, str]]) -> str:
    """`agents a, b, mode m`: the bodies of one group, by kind."""
    parts = []
    for kind in (AGENT, MODE, SKILL):
        idents = [ident for k, ident in roots if k == kind]
        if idents:
            parts.append(f"{kind}{'s' if len(idents) > 1 else ''} {', '.join(idents)}")
    return ", ".join(parts)


def shown(text: str, limit: int) -> str:
    """`text` for a message: on one line, at most `limit` characters, and every
    character that does not print (a bidi control, a zero-width space) as `<U+XXXX>`."""
    flat = " ".join(text.split())
    cut = flat if len(flat) <= limit else flat[: limit - 1] + "…"
    return "".join(c if c.isprintable() else f"<U+{ord(c):04X}>" for c in cut)


def line_fix(source: Source, line: int, text: str) -> Fix | None:
    """A Fix replacing line `line` with `text` (its newline kept); None when the
    line is in the config or unchanged."""
    if source.role == CONFIG or source.line_text(line) == text:
        return None
    return Fix(line, line, text + "\n")

"""Compose: expand fragments into agent and mode bodies for one target, with a source map.

The user-facing rules are in docs/composition.md and rules/compose.py.
How it works:

1. Every body is scanned (promptc_compiler.core.scan) into literal text, placeholders and
   block tags; the scan does not depend on the target and is remembered with
   the file (scan.scan_of).
2. Static checks, over every branch of every file whatever the target:
   placeholder names, call arguments against the callee's declared
   parameters (promptc_compiler.core.params), conditions (promptc_compiler.core.sandbox), include
   cycles and the depth limit. A placeholder that fails any check is never
   expanded: it stays as written, and the error blocks all output.
3. Each agent and mode is rendered for the target (each kind when first read:
   Composition). A body is its segments in order; where block tags stand, the
   runs of segments between them are emitted as the if/elif/else blocks
   select, each condition evaluated by Jinja in the sandbox
   (sandbox.Conditions: compiled once per distinct condition). Fragments are
   rendered once per target and argument set (memoised).

Errors inside a fragment are reported in the fragment's file, followed by the
chain of placeholders that reached it, and the source map gives each composed
line's origin: both are described in docs/composition.md. A body's rendering
records where its lines start (anchors); the maps are built from them when
first read.
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from jinja2 import TemplateError

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core import params as fragment_params
from promptc_compiler.core.bundle import Bundle
from promptc_compiler.core.loader import SourceFile
from promptc_compiler.core.params import Param
from promptc_compiler.core.sandbox import Conditions
from promptc_compiler.core.scan import (
    ESCAPE_HINT,
    Placeholder,
    Scan,
    Tag,
    Unclosed,
    Value,
    is_literal,
    literal_text,
    scan_of,
)

MAX_DEPTH = 32
MAX_CHARS = 1_000_000

Finding = tuple[str, Path, Problem]


class Site(NamedTuple):
    """A placeholder that included a fragment: its file, line and column."""

    path: Path
    line: int
    column: int


class LineOrigin(NamedTuple):
    """Where one composed line comes from."""

    path: Path
    line: int
    chain: tuple[Site, ...] = ()  # placeholders that included `path`, outermost first


SourceMap = tuple[LineOrigin, ...]  # entry i describes composed line i + 1


class BodyLines(NamedTuple):
    """Where each line of a composed body comes from in the body's own file, as
    two lists by composed line: the file's line, and whether that line is the
    file's own text (else the line of its placeholder that included the text).
    What a SourceMap says of the body's own file, as numbers: a rule asks it of
    every agent, and a SourceMap costs an object per line."""

    lines: list[int]
    own: list[bool]


class Composition:
    """The composed bodies of one target, their source maps and the findings.

    A body is rendered when read, and only the last body read is kept: the
    rules read an agent's body spec by spec, a target's files read one body
    a few times over, then the next. Keeping every body held a second copy
    of the bundle's prose through the lint (111 MB RSS of a 10,000-agent
    lint's 474 MB) for one more rendering per body in a build. Rendering a
    body again gives the same text and findings. `findings` renders every
    body not rendered yet, so it is complete whenever it is read.
    """

    def __init__(self, engine: _Engine) -> None:
        self._engine = engine
        self._units = tuple(
            {unit.name: unit for unit in units if unit.source.ok} for units in engine.kinds()
        )
        self._last: tuple[int, str, _Rendered] | None = None
        self._seen: set[tuple[int, str]] = set()  # every body rendered once
        self.used = engine.used()
        # The values `target` may be compared with: a body composed for another
        # target compares with the same ones.
        self.targets = engine.targets

    # Views made when asked, not held: held, each would hold the composition that
    # holds it, a cycle only a full collection frees.
    @property
    def agents(self) -> Bodies:
        return Bodies(self, 0)

    @property
    def modes(self) -> Bodies:
        return Bodies(self, 1)

    @property
    def skills(self) -> Bodies:
        """Skill markdown files by `<skill>/<path in its folder>`: their bodies composed."""
        return Bodies(self, 2)

    def rendered(self, index: int, name: str) -> _Rendered:
        """The body `name` of a kind (0 agents, 1 modes, 2 skill files), rendered."""
        key = (index, name)
        last = self._last
        if last is not None and last[:2] == key:
            return last[2]
        unit = self._units[index][name]
        found = self._engine.render_root(unit, {"target": self._engine.target})
        self._seen.add(key)
        self._last = (index, name, found)
        return found

    def mapped(self, index: int) -> Iterator[tuple[str, str, SourceMap]]:
        """Each body of a kind with its source map: (name, text, map), each
        body rendered once."""
        for name in self._units[index]:
            rendered = self.rendered(index, name)
            yield name, rendered.text, source_map(rendered.text, rendered.anchors)

    def _maps(self, index: int) -> Mapping[str, SourceMap]:
        return {name: found for name, _, found in self.mapped(index)}

    # Source maps are built when first read: most runs never read them, and a
    # map costs an object per line.
    @functools.cached_property
    def agent_maps(self) -> Mapping[str, SourceMap]:
        return self._maps(0)

    @functools.cached_property
    def mode_maps(self) -> Mapping[str, SourceMap]:
        return self._maps(1)

    @functools.cached_property
    def skill_maps(self) -> Mapping[str, SourceMap]:
        return self._maps(2)

    @property
    def findings(self) -> tuple[Finding, ...]:
        for index, units in enumerate(self._units):
            for name in units:
                if (index, name) not in self._seen:
                    self.rendered(index, name)
        return self._engine.result()

    def failed(self, path: Path) -> bool:
        """Whether composing so far found a problem in `path` (the rest may find more)."""
        return path in self._engine.failed

    def for_target(self, target: str) -> Composition:
        """The same bundle composed for `target` (see _Engine.for_target)."""
        return Composition(self._engine.for_target(target))


class Bodies(Mapping[str, str]):
    """One kind of body of a composition, by name, each rendered when read."""

    def __init__(self, composition: Composition, index: int) -> None:
        self._composition = composition
        self._index = index
        self._names = composition._units[index]

    def __getitem__(self, name: str) -> str:
        if name not in self._names:
            raise KeyError(name)
        return self._composition.rendered(self._index, name).text

    def lines(self, name: str) -> BodyLines:
        """Where each line of the body `name` comes from in its file (BodyLines)."""
        if name not in self._names:
            raise KeyError(name)
        return body_lines(self._composition.rendered(self._index, name))

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def compose_bundle(
    bundle: Bundle,
    target: str,
    targets: Sequence[str],
    display: Callable[[Path], str] | None = None,
) -> Composition:
    """Compose every agent and mode of `bundle` for `target`.

    `targets` are the values `target` may be compared with: every target promptc
    emits (the runtime registry's, promptc_compiler.runtimes), in the order a
    message lists them. `display` names files in messages (the include chain);
    by default, relative to the working directory, as diagnostics are.
    """
    engine = _Engine(bundle, target, tuple(targets), display or _relative)
    engine.check()
    return Composition(engine)


def _relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


# A unit's sets start as this one empty set and become their own at the first
# item (_added): three empty sets were 648 bytes of every unit, and a build
# holds a unit per agent in each composition alive (13 MB at 10,000 agents).
_NONE: frozenset[Any] = frozenset()
T = TypeVar("T")


def _added(found: AbstractSet[T], item: T) -> set[T]:
    """`found` with `item` in it: `found` itself once it is a set of its own."""
    grown = found if isinstance(found, set) else set(found)
    grown.add(item)
    return grown


@dataclass(slots=True)
class _Unit:
    """One file's body: scanned, checked, and what it includes."""

    kind: str  # agent, mode, skill (any markdown file of a skill) or fragment
    name: str
    source: SourceFile
    scan: Scan
    params: dict[str, Param]
    problems: list[Problem] = field(default_factory=list)
    bad: AbstractSet[int] = _NONE  # placeholders left as written
    conditions: AbstractSet[int] = _NONE  # tags whose condition passed its checks
    includes: list[tuple[int, str]] = field(default_factory=list)  # expandable includes
    refs: AbstractSet[str] = _NONE  # every fragment it names
    chain: tuple[Site, ...] = ()  # how the first agent or mode to include it reached it

    @property
    def path(self) -> Path:
        return self.source.path

    @property
    def scope(self) -> set[str]:
        return {"target", *self.params}

    def variable(self, name: str) -> bool:
        return name == "target" or name in self.params


class _Anchor(NamedTuple):
    """From `offset` on, output text comes from `path` starting at `line`."""

    offset: int
    path: Path
    line: int
    chain: tuple[Site, ...]
    advances: bool  # False for printed values: all of them map to one line


class _Rendered(NamedTuple):
    """One rendered body: its text, the anchors of its lines, and whether it printed nothing."""

    text: str
    anchors: tuple[_Anchor, ...]
    nothing: bool  # rendered to no text at all (before the final newline was dropped)


class _Engine:
    def __init__(
        self,
        bundle: Bundle,
        target: str,
        targets: tuple[str, ...],
        display: Callable[[Path], str],
    ) -> None:
        self.target = target
        self.targets = targets
        self.display = display
        self.findings: dict[tuple[Path, int, int], Finding] = {}
        self.failed: set[Path] = set()  # files with findings
        self.memo: dict[tuple[object, ...], _Rendered] = {}  # fragments by their values
        self.conditions = Conditions()
        self.fragments = {
            name: self._unit("fragment", name, source)
            for name, source in sorted(bundle.fragments.items())
        }
        self.agents = [self._unit("agent", i, s) for i, s in bundle.agents.items()]
        self.modes = [self._unit("mode", i, s) for i, s in bundle.modes.items()]
        self.skills = [self._unit("skill", i, s) for i, s in bundle.skill_files().items()]
        self.names = tuple(self.fragments)
        # The findings of check() and the files they are about (see for_target).
        self.checked: tuple[dict[tuple[Path, int, int], Finding], set[Path]] | None = None

    def _unit(self, kind: str, name: str, source: SourceFile) -> _Unit:
        return _Unit(kind, name, source, scan_of(source), {})

    # -- static checks ----------------------------------------------------

    def check(self) -> None:
        names = list(self.fragments)
        for unit in self.fragments.values():
            if unit.source.ok:
                unit.params, problems = fragment_params.declare(unit.source, names)
                unit.problems = list(problems)
        if "target" in self.fragments:
            unit = self.fragments["target"]
            unit.problems.append(
                Problem(1, 1, "fragment name 'target' is reserved for the target variable")
            )
        for unit in self.fragments.values():
            unit.problems.extend(unit.scan.problems)
            self._check_segments(unit)
        for unit in self._roots():
            self._check_root(unit)
        self._walk_includes()
        self._limit_depth()
        for unit in self._units():
            if unit.source.ok:
                for problem in unit.problems:
                    self.report(unit.path, problem, unit.chain)
        self.checked = (dict(self.findings), set(self.failed))

    def for_target(self, target: str) -> _Engine:
        """An engine for another target, sharing this one's checked units and
        starting from the findings of its checks: check() reads no target (only
        rendering does), and a build composes a bundle once per runtime."""
        assert self.checked is not None, "checked first"
        other = copy.copy(self)  # the units, fragments and conditions shared
        other.target = target
        other.findings, other.failed = dict(self.checked[0]), set(self.checked[1])
        other.memo = {}  # its own: the lint's composition lives through a build
        return other

    def _check_root(self, unit: _Unit) -> None:
        """An agent, mode or skill file's own checks."""
        unit.problems.extend(unit.scan.problems)
        self._check_segments(unit)

    def _reach(self, names: Iterable[str]) -> set[str]:
        """The fragments `names`, and every fragment they name in turn."""
        seen: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(self.fragments[name].refs)
        return seen

    def render_root(self, unit: _Unit, values: Mapping[str, Value]) -> _Rendered:
        """An agent, mode or skill file rendered."""
        return self.render(unit, values, (), strip=False)

    def kinds(self) -> tuple[list[_Unit], list[_Unit], list[_Unit]]:
        return self.agents, self.modes, self.skills

    def _units(self) -> Iterator[_Unit]:
        yield from self._roots()
        yield from self.fragments.values()

    def _roots(self) -> Iterator[_Unit]:
        yield from self.agents
        yield from self.modes
        yield from self.skills

    def _check_segments(self, unit: _Unit) -> None:
        for opened in unit.scan.unclosed:
            if unit.variable(opened.name):
                unit.problems.append(_unclosed(opened))
            elif opened.name in self.fragments:
                unit.refs = _added(unit.refs, opened.name)  # no unused-fragment beside it
                unit.problems.append(_unclosed(opened))
        for index, segment in enumerate(unit.scan.segments):
            if isinstance(segment, Placeholder):
                self._check_placeholder(unit, index, segment)
            elif isinstance(segment, Tag) and segment.known and segment.keyword in ("if", "elif"):
                message = self.conditions.problem(segment.condition, unit.scope, self._enums(unit))
                if message:
                    unit.problems.append(Problem(segment.line, segment.condition_column, message))
                else:
                    unit.conditions = _added(unit.conditions, index)

    def _enums(self, unit: _Unit) -> dict[str, tuple[Value, ...]]:
        enums = {name: param.enum for name, param in unit.params.items() if param.enum is not None}
        return {"target": self.targets, **enums}

    def _check_placeholder(self, unit: _Unit, index: int, placeholder: Placeholder) -> None:
        name = placeholder.name
        callee = None if unit.variable(name) else self.fragments.get(name)
        if callee is not None:
            unit.refs = _added(unit.refs, name)
        problems = self._placeholder_problems(unit, placeholder)
        unit.problems.extend(problems)
        # A fragment file that failed to load is not expanded; its syntax error says why.
        if problems or (callee is not None and not callee.source.ok):
            unit.bad = _added(unit.bad, index)
        elif callee is not None:
            unit.includes.append((index, name))

    def _placeholder_problems(self, unit: _Unit, placeholder: Placeholder) -> list[Problem]:
        name = placeholder.name
        at = (placeholder.line, placeholder.column)
        if unit.variable(name):
            if placeholder.called:
                what = "the target variable" if name == "target" else "a parameter of this fragment"
                return [Problem(*at, f"'{name}' is {what}, not a fragment; it takes no arguments")]
            return []
        callee = self.fragments.get(name)
        if callee is None:
            hint = did_you_mean(name, [*self.fragments, *unit.scope])
            return [Problem(*at, f"unknown fragment '{name}'{hint}", ESCAPE_HINT)]
        if not callee.source.ok:
            return []
        return list(self._argument_problems(unit, placeholder, callee))

    def _argument_problems(
        self, unit: _Unit, placeholder: Placeholder, callee: _Unit
    ) -> Iterator[Problem]:
        declared = callee.params
        for arg in placeholder.args:
            param = declared.get(arg.name)
            if param is None:
                yield Problem(placeholder.line, arg.column, _unknown_param(callee, arg.name))
            elif arg.variable is not None and not unit.variable(arg.variable):
                hint = did_you_mean(arg.variable, unit.scope)
                quoted = f'; for text write "{arg.variable}"' if not hint else ""
                yield Problem(
                    placeholder.line,
                    arg.value_column,
                    f"unknown variable '{arg.variable}' for parameter '{arg.name}'{hint}{quoted}",
                )
            elif arg.value is not None and (message := fragment_params.check(param, arg.value)):
                yield Problem(
                    placeholder.line, arg.value_column, f"fragment '{callee.name}': {message}"
                )
        given = {arg.name for arg in placeholder.args}
        for param in declared.values():
            if param.required and param.name not in given:
                kind = f" ({param.type})" if param.type else ""
                about = f": {param.description}" if param.description else ""
                yield Problem(
                    placeholder.line,
                    placeholder.column,
                    f"fragment '{callee.name}' needs parameter '{param.name}'{kind}{about}",
                )

    def _walk_includes(self) -> None:
        """Depth-first over includes: first chains, cycles (broken where they close)."""
        done: set[str] = set()
        for start in [*self._roots(), *self.fragments.values()]:
            if start.kind == "fragment" and start.name in done:
                continue
            if start.kind == "fragment":
                done.add(start.name)
            self._visit(start, done)

    def _visit(self, start: _Unit, done: set[str]) -> None:
        stack: list[tuple[_Unit, Iterator[tuple[int, str]]]] = [(start, iter(start.includes))]
        path = [start.name] if start.kind == "fragment" else []
        while stack:
            unit, todo = stack[-1]
            step = next(todo, None)
            if step is None:
                stack.pop()
                if unit.kind == "fragment" and path:
                    path.pop()
                continue
            index, name = step
            placeholder = unit.scan.segments[index]
            assert isinstance(placeholder, Placeholder)
            if name in path:
                cycle = " -> ".join([*path[path.index(name) :], name])
                unit.bad = _added(unit.bad, index)
                unit.problems.append(
                    Problem(placeholder.line, placeholder.column, f"fragment cycle: {cycle}")
                )
                continue
            if name in done:
                continue
            done.add(name)
            child = self.fragments[name]
            if start.kind != "fragment":
                child.chain = (*unit.chain, Site(unit.path, placeholder.line, placeholder.column))
            path.append(name)
            stack.append((child, iter(child.includes)))

    def _limit_depth(self) -> None:
        heights = self._heights()
        for root in self._roots():
            while self._root_height(root, heights) > MAX_DEPTH:
                self._cut_deepest(root, heights)
                heights = self._heights()

    def _good(self, unit: _Unit) -> list[str]:
        return [name for index, name in unit.includes if index not in unit.bad]

    def _root_height(self, root: _Unit, heights: Mapping[str, int]) -> int:
        return max((1 + heights[name] for name in self._good(root)), default=0)

    def _heights(self) -> dict[str, int]:
        """Longest chain of includes below each fragment (cycles are already cut)."""
        heights: dict[str, int] = {}
        for name, unit in self.fragments.items():
            if name in heights:
                continue
            stack = [(unit, iter(self._good(unit)))]
            while stack:  # iterative post-order: chains can be long
                current, todo = stack[-1]
                child = next((n for n in todo if n not in heights), None)
                if child is None:
                    stack.pop()
                    heights[current.name] = self._root_height(current, heights)
                else:
                    stack.append((self.fragments[child], iter(self._good(self.fragments[child]))))
        return heights

    def _cut_deepest(self, root: _Unit, heights: Mapping[str, int]) -> None:
        """Refuse the include that goes one level too deep on the longest chain."""
        unit, names = root, [root.name]
        for depth in itertools.count(1):
            index, name = max(
                ((i, n) for i, n in unit.includes if i not in unit.bad),
                key=lambda step: heights[step[1]],
            )
            names.append(name)
            if depth > MAX_DEPTH:
                placeholder = unit.scan.segments[index]
                assert isinstance(placeholder, Placeholder)
                unit.bad = _added(unit.bad, index)
                message = f"fragments nested more than {MAX_DEPTH} deep: {' -> '.join(names)}"
                unit.problems.append(Problem(placeholder.line, placeholder.column, message))
                return
            unit = self.fragments[name]

    def used(self) -> frozenset[str]:
        return frozenset(self._reach(name for root in self._roots() for name in root.refs))

    # -- findings ---------------------------------------------------------

    def report(self, path: Path, problem: Problem, chain: tuple[Site, ...]) -> None:
        message = problem.message + self._chain_text(chain)
        key = (path, problem.line, problem.column)
        if key not in self.findings:
            found = Problem(problem.line, problem.column, message, problem.hint, path=path)
            self.findings[key] = ("compose", path, found)
            self.failed.add(path)

    def _chain_text(self, chain: tuple[Site, ...]) -> str:
        if not chain:
            return ""
        sites = [f"{self.display(s.path)}:{s.line}:{s.column}" for s in reversed(chain)]
        return "; included from " + ", from ".join(sites)

    def result(self) -> tuple[Finding, ...]:
        return tuple(self.findings[key] for key in sorted(self.findings, key=_finding_key))

    # -- rendering --------------------------------------------------------

    def render(
        self, unit: _Unit, values: Mapping[str, Value], chain: tuple[Site, ...], *, strip: bool
    ) -> _Rendered:
        frame = _Frame(self, unit, values, chain)
        segments = unit.scan.segments
        if unit.scan.has_tags and unit.scan.blocks_ok:
            self._run_blocks(frame)
        else:
            frame.emit(0, len(segments))
        text = "".join(frame.parts)
        if strip and text.endswith("\n"):
            text = text[:-1]
        return _Rendered(text, _line_anchors(text, frame.anchors), frame.size == 0)

    def _run_blocks(self, frame: _Frame) -> None:
        """Emit the runs of segments between tags that the if/elif/else blocks select.

        A condition is evaluated only where, and in the order, an `if` in
        Jinja would evaluate it: when its tag is reached in a branch being
        emitted, and for an `elif` only while no branch was taken. One that
        cannot be evaluated is an error, and the body ends there.
        """
        segments = frame.unit.scan.segments
        stack: list[tuple[bool, bool]] = []  # per open if: (enclosing active, a branch taken)
        active = True
        start: int | None = None  # first segment of the run of text being walked
        for index, segment in enumerate(segments):
            if not isinstance(segment, Tag):
                start = index if start is None else start
                continue
            if start is not None and active:
                frame.emit(start, index)
            start = None
            keyword = segment.keyword
            if keyword == "if":
                stack.append((active, False))
            if keyword in ("if", "elif"):
                enclosing, taken = stack[-1]
                holds = enclosing and not taken and self._holds(frame, index, segment)
                if holds is None:
                    return
                active = holds
                stack[-1] = (enclosing, taken or holds)
            elif keyword == "else":
                enclosing, taken = stack[-1]
                active = enclosing and not taken
                stack[-1] = (enclosing, True)
            elif keyword == "endif":
                active = stack.pop()[0]
        if start is not None and active:
            frame.emit(start, len(segments))

    def _holds(self, frame: _Frame, index: int, tag: Tag) -> bool | None:
        """Whether the branch of `if`/`elif` tag number `index` is taken; None, with
        the error reported, when its condition cannot be evaluated."""
        if index not in frame.unit.conditions:
            return False  # a condition that failed its checks is never evaluated
        try:
            return self.conditions.holds(tag.condition, frame.values)
        except (TemplateError, TypeError, ValueError) as exc:
            message = f"cannot evaluate the condition ({exc}) for target {self.target}"
            problem = Problem(tag.line, tag.condition_column, message)
            self.report(frame.unit.path, problem, frame.chain)
            return None

    def include(self, frame: _Frame, placeholder: Placeholder) -> _Rendered | None:
        callee = self.fragments[placeholder.name]
        values: dict[str, Value] = {"target": self.target}
        for arg in placeholder.args:
            if arg.variable is None:
                assert arg.value is not None
                values[arg.name] = arg.value
                continue
            value = frame.values.get(arg.variable)
            if value is None:
                return None
            problem = fragment_params.check(callee.params[arg.name], value)
            if problem:
                where = Problem(
                    placeholder.line, arg.value_column, f"fragment '{callee.name}': {problem}"
                )
                self.report(frame.unit.path, where, frame.chain)
                return None
            values[arg.name] = value
        for param in callee.params.values():
            if param.name not in values and param.default is not None:
                values[param.name] = param.default
        key = (placeholder.name, *sorted((k, type(v).__name__, v) for k, v in values.items()))
        if key not in self.memo:
            site = Site(frame.unit.path, placeholder.line, placeholder.column)
            self.memo[key] = self.render(callee, values, (*frame.chain, site), strip=True)
        return self.memo[key]


def _finding_key(key: tuple[Path, int, int]) -> tuple[str, int, int]:
    return (key[0].as_posix(), key[1], key[2])


def _unclosed(opened: Unclosed) -> Problem:
    """A placeholder of a name the body may use, left open: it would reach every
    target as the text `<<name...`, so it is an error, not text."""
    name = opened.name
    return Problem(
        opened.line,
        opened.column,
        f"`<<{name}` has no `>>` to close it on its line, so it would stay text",
        f"close it (`<<{name}>>`, `<<{name}(...)>>`), or put it in `code` to keep it as text",
    )


def _unknown_param(callee: _Unit, name: str) -> str:
    if not callee.params:
        return f"fragment '{callee.name}' takes no parameters; '{name}' is not one"
    hint = did_you_mean(name, callee.params)
    known = fragment_params.signature(callee.params)
    return f"fragment '{callee.name}' has no parameter '{name}'{hint}; its parameters: {known}"


class _Frame:
    """One rendering of one body: its values, its output so far and its anchors."""

    def __init__(
        self, engine: _Engine, unit: _Unit, values: Mapping[str, Value], chain: tuple[Site, ...]
    ) -> None:
        self.engine = engine
        self.unit = unit
        self.values = values
        self.chain = chain  # from the agent or mode being composed: for messages
        self.body = unit.source.body  # literals are offsets into it
        self.parts: list[str] = []
        self.anchors: list[_Anchor] = []
        self.size = 0

    def emit(self, first: int, last: int) -> None:
        """Emit segments first..last-1 (no tags among them)."""
        segments = self.unit.scan.segments
        body = self.body
        for index in range(first, last):
            segment = segments[index]
            if is_literal(segment):
                self._put(literal_text(segment, body), segment[2])  # its text, at its line
            elif isinstance(segment, Placeholder):
                self._placeholder(index, segment)

    def _put(self, text: str, line: int, *, advances: bool = True) -> None:
        if text:
            self.anchors.append(_Anchor(self.size, self.unit.path, line, (), advances))
            self.parts.append(text)
            self.size += len(text)

    def _placeholder(self, index: int, placeholder: Placeholder) -> None:
        if index in self.unit.bad:
            self._put(placeholder.source, placeholder.line)
            return
        if self.unit.variable(placeholder.name):
            self._value(placeholder)
            return
        rendered = self.engine.include(self, placeholder)
        if rendered is None:
            self._put(placeholder.source, placeholder.line)
            return
        if placeholder.alone and rendered.nothing:
            return
        if self.size + len(rendered.text) > MAX_CHARS:
            problem = Problem(
                placeholder.line,
                placeholder.column,
                f"composed text would exceed {MAX_CHARS} characters "
                "(a fragment included too many times?)",
            )
            self.engine.report(self.unit.path, problem, self.chain)
            return
        self._put(placeholder.lead, placeholder.line)
        site = Site(self.unit.path, placeholder.line, placeholder.column)
        for anchor in rendered.anchors:
            self.anchors.append(
                _Anchor(
                    self.size + anchor.offset,
                    anchor.path,
                    anchor.line,
                    (site, *anchor.chain),
                    anchor.advances,
                )
            )
        self.parts.append(rendered.text)
        self.size += len(rendered.text)
        self._put(placeholder.trail, placeholder.line)

    def _value(self, placeholder: Placeholder) -> None:
        value = self.values.get(placeholder.name)
        if value is None:  # a malformed declaration (reported by the schema) has no value
            self._put(placeholder.source, placeholder.line)
            return
        text = fragment_params.render(value)
        if placeholder.alone and not text:
            return
        self._put(placeholder.lead, placeholder.line)
        self._put(text, placeholder.line, advances=False)
        self._put(placeholder.trail, placeholder.line)


def _line_anchors(text: str, anchors: list[_Anchor]) -> tuple[_Anchor, ...]:
    """The anchors a source map needs: those whose text holds the start of a line.

    The others only name characters in the middle of a line; dropping them
    keeps a fragment included 2**n times from carrying 2**n anchors.
    """
    kept: list[_Anchor] = []
    for k, anchor in enumerate(anchors):
        end = min(anchors[k + 1].offset if k + 1 < len(anchors) else len(text), len(text))
        if anchor.offset >= end:
            continue
        starts_line = anchor.offset == 0 or text[anchor.offset - 1] == "\n"
        if starts_line or text.find("\n", anchor.offset, end - 1) >= 0:
            kept.append(anchor)
    return tuple(kept)


def _starts(text: str, anchors: Sequence[_Anchor]) -> Iterator[tuple[_Anchor, int, int]]:
    """The lines that start in each anchor's text: (anchor, first, count), the
    lines `first` (0, or 1 when its text starts inside a line) to `first + count`
    of the anchor's, each at its line plus that number when it advances."""
    at_line_start = True
    for k, anchor in enumerate(anchors):
        end = anchors[k + 1].offset if k + 1 < len(anchors) else len(text)
        if end <= anchor.offset:
            continue  # an anchor that covers nothing: a later one at its offset wins
        ends_line = text[end - 1] == "\n"
        # Newlines inside the text start lines it also covers.
        inner = text.count("\n", anchor.offset, end) - ends_line
        first = 0 if at_line_start else 1
        yield anchor, first, inner + 1 - first
        at_line_start = ends_line


def body_lines(rendered: _Rendered) -> BodyLines:
    """Where the lines of a body rendered from its own file come from (BodyLines):
    source_map's origins, each a line of that file."""
    lines: list[int] = []
    own: list[bool] = []
    for anchor, first, count in _starts(rendered.text, rendered.anchors):
        mine = not anchor.chain
        if mine and anchor.advances:
            lines.extend(range(anchor.line + first, anchor.line + first + count))
        else:
            lines.extend([anchor.line if mine else anchor.chain[0].line] * count)
        own.extend([mine] * count)
    return BodyLines(lines, own)


def source_map(text: str, anchors: tuple[_Anchor, ...]) -> SourceMap:
    """The origin of each line's first character (see LineOrigin)."""
    origins: list[LineOrigin] = []
    for anchor, first, count in _starts(text, anchors):
        step = 1 if anchor.advances else 0
        origins.extend(
            LineOrigin(anchor.path, anchor.line + i * step, anchor.chain)
            for i in range(first, first + count)
        )
    return tuple(origins)

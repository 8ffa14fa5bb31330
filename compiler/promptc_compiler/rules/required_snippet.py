"""A configured snippet stands, exactly once, right after the frontmatter of the agents it governs.

Use it for text that must open many prompts word for word, such as a tone
line: copies drift (a changed character, a re-wrapped line, another level),
and this rule makes drift impossible to miss and `promptc lint --fix` puts it
right. The rule is off until `fragment` names a fragment.

Detection works on the composed output, so it holds whether a spec writes the
placeholder (`<<caveman>>`, `<<caveman(level="full")>>`) or the text inline.
A block of lines that resembles the snippet (whitespace-normalised
similarity of 80 % or more), or that holds a quarter or more of it word for
word (a copy that lost a line), counts as a copy; one that is not identical
to the fragment rendered with `params` is reported with a diff. Placeholders are
also read in the spec's source, so a call with the wrong parameter is
reported at the argument itself. Fenced code blocks are never a copy.

Reported, each at the line (and column) where it happens:
- missing: an agent it applies to has no copy;
- drifted: a copy differs from the fragment (the hint shows a unified diff);
- wrong value: a parameter has another allowed value (`nivel ultra`);
- unknown value: a parameter value outside the allowed ones;
- misplaced: the copy is not the first text after the frontmatter;
- duplicated: a second copy in one agent;
- exempt: an exempt agent carries it;
- count: the number of agents carrying it differs from `expected_count`
  (reported at that key in the config file);
- config: `fragment`, `params` or `applies_to` name something that is not there.

`--fix` replaces a drifted or wrong copy with the placeholder (or the text,
see `fix_style`), inserts a missing one before the first line of the body,
moves a misplaced one there, and removes duplicates and copies in exempt
agents. It edits only the snippet's own lines (and one blank line next to a
removed copy); running it again changes nothing. A copy that comes from
inside another fragment is reported at the line that includes it, without a
fix.

Options:
    fragment (string, default none): the snippet's fragment name, e.g.
        `caveman`; without it the rule does nothing.
    params (table, default {}): expected parameter values, e.g.
        `{level = "full"}`; unset ones take the fragment's declared defaults.
    allowed (table of lists, default {}): allowed values per parameter;
        by default the `enum` the fragment declares under `params`.
    applies_to ("subagents", "all" or a list of agent ids, default
        "subagents"): the agents that must carry it.
    exempt (list of agent ids, default []): agents that must not carry it.
        Ids not in the bundle are ignored, so one config serves a bundle
        that grows.
    position ("after-frontmatter" or "anywhere", default
        "after-frontmatter"): "after-frontmatter" means the first non-blank
        text of the body, before the first heading.
    expected_count (integer, default none): how many agents carry it.
    fix_style ("placeholder" or "text", default "placeholder"): what
        `--fix` writes: `<<fragment>>` or the fragment's text.
    allow_inline (boolean, default true): false reports exact copies written
        inline too, and `--fix` replaces them with the placeholder.

Fails (with `fragment = "caveman"`, `params = {level = "full"}`):
    ---
    description: Explora el código en modo solo lectura.
    mode: subagent
    ---
    # Scout

    Tono: caveman por default, nivel full. Activa siempre.
    Excepción: prosa normal para advertencias de seguridad,
    acciones irreversibles o ambigüedad multi-paso.
Passes:
    ---
    description: Explora el código en modo solo lectura.
    mode: subagent
    ---
    <<caveman>>

    # Scout
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from promptc_compiler.base.diagnostics import Fix, Problem
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.core import params as fragment_params
from promptc_compiler.core.config import Config
from promptc_compiler.core.loader import SourceFile
from promptc_compiler.core.project import Project, Session, Spec, by_spec
from promptc_compiler.core.snippet import (
    Copy,
    Snippet,
    allowed_values,
    declared_params,
    find_copies,
    make_snippet,
)

ID = "required-snippet"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {
    "fragment": {"type": ["string", "null"], "default": None},
    "params": {
        "type": "object",
        "additionalProperties": {"type": ["string", "integer", "number", "boolean"]},
        "default": {},
    },
    "allowed": {
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
        "default": {},
    },
    "applies_to": {
        "anyOf": [
            {"enum": ["subagents", "all"]},
            {"type": "array", "items": {"type": "string"}},
        ],
        "default": "subagents",
    },
    "exempt": {"type": "array", "items": {"type": "string"}, "default": []},
    "position": {"enum": ["after-frontmatter", "anywhere"], "default": "after-frontmatter"},
    "expected_count": {"type": ["integer", "null"], "minimum": 0, "default": None},
    "fix_style": {"enum": ["placeholder", "text"], "default": "placeholder"},
    "allow_inline": {"type": "boolean", "default": True},
}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    return by_spec(project, session(project, options))


def session(project: Project, options: Mapping[str, Any]) -> Session:
    """The rule as a session over composed bodies (see project.Session)."""
    name = options["fragment"]
    if not name:
        return _Settled(())
    fragment = project.bundle.fragments.get(name)
    if fragment is None:
        hint = did_you_mean(name, project.bundle.fragments)
        problem = _config_problem(
            project, "fragment", f"fragment '{name}' does not exist in the bundle{hint}"
        )
        return _Settled((problem,))
    if not fragment.ok:
        return _Settled(())  # its syntax errors are reported already
    config_problems = tuple(_check_options(project, fragment, options))
    if config_problems:
        return _Settled(config_problems)
    return _Agents(
        project, make_snippet(name, fragment, options["params"], options["allowed"]), options
    )


class _Settled:
    """Decided without reading any body: the configuration is missing or wrong."""

    def __init__(self, problems: tuple[Problem, ...]) -> None:
        self.problems = problems

    def spec(self, _spec: Spec) -> Iterator[Problem]:
        return iter(())

    def end(self) -> Iterator[Problem]:
        return iter(self.problems)


class _Agents:
    """Each agent's copies of the snippet, then their count."""

    def __init__(self, project: Project, snippet: Snippet, options: Mapping[str, Any]) -> None:
        self.project = project
        self.snippet = snippet
        self.options = options
        self.scope = _scope(project, options)
        self.exempt = set(options["exempt"])
        self.carriers: list[str] = []

    def spec(self, spec: Spec) -> Iterator[Problem]:
        if self.project.agents.get(spec.id) is not spec:
            return  # a mode, or a skill
        copies = find_copies(spec, self.snippet)
        if copies:
            self.carriers.append(spec.id)
        if spec.id in self.exempt:
            yield from _exempt(spec, self.snippet, copies)
        else:
            config = self.project.config
            yield from _check_agent(
                config, spec, self.snippet, self.options, copies, spec.id in self.scope
            )

    def end(self) -> Iterator[Problem]:
        return _count(self.project, self.snippet, self.options, sorted(self.carriers))


# --- configuration -------------------------------------------------------------------


def _check_options(
    project: Project, fragment: SourceFile, options: Mapping[str, Any]
) -> Iterator[Problem]:
    declared = declared_params(fragment)
    allowed = allowed_values(fragment, options["allowed"])
    for key, value in options["params"].items():
        if declared and key not in declared:
            hint = did_you_mean(key, declared)
            message = f"fragment '{options['fragment']}' declares no parameter '{key}'{hint}"
            yield _config_problem(project, "params", message)
        elif key in allowed and fragment_params.render(value) not in allowed[key]:
            message = (
                f"{key} '{fragment_params.render(value)}' is not one of {', '.join(allowed[key])}"
            )
            yield _config_problem(project, "params", message)
    applies = options["applies_to"]
    if not isinstance(applies, str):
        for ident in applies:
            if ident not in project.bundle.agents:
                hint = did_you_mean(ident, project.bundle.agents)
                yield _config_problem(project, "applies_to", f"no agent '{ident}'{hint}")
    if not options["allow_inline"] and options["fix_style"] == "text":
        message = "allow_inline = false needs fix_style = 'placeholder'"
        yield _config_problem(project, "allow_inline", message)


def _scope(project: Project, options: Mapping[str, Any]) -> set[str]:
    applies = options["applies_to"]
    if applies == "all":
        return set(project.agents)
    if applies == "subagents":
        return {ident for ident, spec in project.agents.items() if spec.mode == "subagent"}
    return set(applies)


def _config_problem(project: Project, key: str, message: str, hint: str | None = None) -> Problem:
    config = project.config
    if config.source is None:
        first = min(project.bundle.agents.items(), default=None)
        path = first[1].path if first else config.specs
        return Problem(1, 1, f"{message} (rules.{ID}.{key})", hint, path=path)
    line, column = config.where(("rules", ID, key))
    return Problem(line, column, message, hint, path=config.source)


# --- verdicts --------------------------------------------------------------------------


def _value_problem(
    snippet: Snippet, name: str, value: str, line: int, column: int
) -> tuple[int, int, str] | None:
    expected = snippet.expected.get(name)
    if expected is None or value == expected:
        return None
    allowed = snippet.allowed.get(name)
    if allowed and value not in allowed:
        hint = did_you_mean(value, allowed)
        message = (
            f"{name} '{value}' of the `{snippet.name}` snippet is not one of "
            f"{', '.join(allowed)}{hint}; this bundle expects {name} = '{expected}'"
        )
    else:
        message = f"the `{snippet.name}` snippet has {name} '{value}'; expected '{expected}'"
    return line, column, message


def _position(start: int, text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return start + before.count("\n"), offset - (before.rfind("\n") + 1) + 1


def _diff(snippet: Snippet, spec: Spec, copy: Copy, config: Config) -> str:
    expected = ", ".join(f"{k}={v}" for k, v in sorted(snippet.expected.items()))
    lines = difflib.unified_diff(
        snippet.text.split("\n"),
        copy.text.split("\n"),
        f"{config.display(snippet.path)}" + (f" ({expected})" if expected else ""),
        f"{config.display(spec.source.path)}:{copy.start}",
        lineterm="",
    )
    return "\n".join(lines)


def _verdict(spec: Spec, snippet: Snippet, copy: Copy, config: Config) -> Problem | None:
    """What is wrong with one copy, or None when it is the snippet exactly."""
    path = spec.source.path
    if copy.origin == "call":
        for name in snippet.expected:
            # A parameter neither passed nor defaulted is the composer's to report.
            value, column = copy.args.get(name, (snippet.defaults.get(name), copy.column))
            found = value is not None and _value_problem(snippet, name, value, copy.start, column)
            if found:
                return Problem(*found, path=path)
        return None
    if copy.text == snippet.text:
        return None
    hint = _diff(snippet, spec, copy, config)
    where = "" if copy.origin == "text" else " (it comes from a fragment this line includes)"
    match = snippet.pattern.fullmatch(copy.text)
    if match:
        for name in snippet.expected:
            group = f"p_{name}"
            if group not in snippet.pattern.groupindex or match.group(group) is None:
                continue
            line, column = _position(copy.start, copy.text, match.start(group))
            if copy.origin != "text":
                line, column = copy.start, 1
            found = _value_problem(snippet, name, match.group(group), line, column)
            if found:
                return Problem(found[0], found[1], found[2] + where, hint, path=path)
    line, column = _first_difference(copy, snippet.text)
    origin = config.display(snippet.path)
    message = f"the `{snippet.name}` snippet has drifted from {origin}{where}"
    return Problem(line, column, message, hint, path=path)


def _first_difference(copy: Copy, expected: str) -> tuple[int, int]:
    if copy.origin != "text":
        return copy.start, 1
    offset = next(
        (i for i, (a, b) in enumerate(zip(copy.text, expected, strict=False)) if a != b),
        min(len(copy.text), len(expected)),
    )
    return _position(copy.start, copy.text, offset)


# --- fixes -----------------------------------------------------------------------------


def _real_lines(spec: Spec) -> int:
    """How many lines the file has (a final newline does not start another one)."""
    text = spec.source.text
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _first_content(spec: Spec) -> int | None:
    """The file line of the body's first non-blank line."""
    first = _first_line(spec.source.body)
    return None if first is None else spec.source.body_line + first


def _first_line(text: str) -> int | None:
    """The index of the first non-blank line of `text` (None: there is none)."""
    lead = len(text) - len(text.lstrip())
    return text.count("\n", 0, lead) if lead < len(text) else None


class _File:
    """A spec's file as its fixes read it: cut into lines when a fix first needs
    them, once for every copy of the agent (one split per copy was quadratic in
    an agent that repeats the snippet thousands of times)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    @functools.cached_property
    def lines(self) -> list[str]:
        return self.spec.source.text.split("\n")

    @functools.cached_property
    def total(self) -> int:
        return _real_lines(self.spec)


def _removal(file: _File, copy: Copy) -> tuple[int, int]:
    """The file lines to delete for a copy: its own, and one blank line so no gap doubles."""
    spec, lines, total = file.spec, file.lines, file.total

    def blank(number: int) -> bool:
        return 1 <= number <= total and not lines[number - 1].strip()

    body_start = copy.start == spec.source.body_line
    if blank(copy.end + 1) and (blank(copy.start - 1) or body_start):
        return copy.start, copy.end + 1
    if copy.end >= total and blank(copy.start - 1) and not body_start:
        return copy.start - 1, copy.end
    return copy.start, copy.end


def _replace(snippet: Snippet, copy: Copy, form: str) -> Fix | None:
    if copy.origin == "call":
        # A call is corrected where it stands; the rest of its line is left alone.
        at = copy.column - 1
        line = copy.text[:at] + snippet.placeholder + copy.text[at + copy.width :]
        return Fix(copy.start, copy.end, line + "\n")
    return Fix(copy.start, copy.end, form + "\n") if copy.alone else None


def _delete(file: _File, copy: Copy) -> Fix | None:
    if not copy.alone:
        return None
    start, end = _removal(file, copy)
    return Fix(start, end, "")


def _insert(spec: Spec, form: str) -> Fix:
    top = _first_content(spec)
    if top is None:
        end = _real_lines(spec) + 1
        return Fix(end, end - 1, form + "\n")
    return Fix(top, top - 1, form + "\n\n")


def _move(file: _File, copy: Copy, form: str) -> Fix | None:
    top = _first_content(file.spec)
    if not copy.alone or top is None or top >= copy.start:
        return None
    start, end = _removal(file, copy)
    between = file.lines[top - 1 : start - 1]
    return Fix(top, end, "".join(f"{line}\n" for line in [form, "", *between]))


# --- per agent -------------------------------------------------------------------------


def _exempt(spec: Spec, snippet: Snippet, copies: Sequence[Copy]) -> Iterator[Problem]:
    file = _File(spec)
    for copy in copies:
        message = f"agent '{spec.id}' is exempt from the `{snippet.name}` snippet but carries it"
        fix = _delete(file, copy)
        yield Problem(copy.start, copy.column, message, fix=fix, path=spec.source.path)


def _check_agent(
    config: Config,
    spec: Spec,
    snippet: Snippet,
    options: Mapping[str, Any],
    copies: Sequence[Copy],
    required: bool,
) -> Iterator[Problem]:
    path = spec.source.path
    form = snippet.placeholder if options["fix_style"] == "placeholder" else snippet.text
    if not copies:
        if required:
            top = _first_content(spec) or spec.source.body_line
            message = (
                f"agent '{spec.id}' lacks the `{snippet.name}` snippet: "
                f"write {snippet.placeholder} right after the frontmatter"
            )
            yield Problem(top, 1, message, fix=_insert(spec, form), path=path)
        return
    head = _first_line(spec.body) or 0
    kept = next((c for c in copies if c.composed == head), copies[0])
    file = _File(spec)
    for copy in copies:
        if copy is not kept:
            message = f"the `{snippet.name}` snippet appears again (first at line {kept.start})"
            yield Problem(copy.start, copy.column, message, fix=_delete(file, copy), path=path)
    moved = None
    if options["position"] == "after-frontmatter" and kept.composed != head:
        moved = _move(file, kept, form)
        message = (
            f"the `{snippet.name}` snippet must be the first text after the frontmatter, "
            "before the first heading"
        )
        yield Problem(kept.start, kept.column, message, fix=moved, path=path)
    problem = _verdict(spec, snippet, kept, config)
    if problem is None and kept.origin == "text" and not options["allow_inline"]:
        message = f"inline copy of the `{snippet.name}` snippet: write {snippet.placeholder}"
        problem = Problem(kept.start, 1, message, path=path)
    if problem is not None:
        # A misplaced copy is rewritten by its move; fixing it in place too would clash.
        fix = moved if moved is not None else _replace(snippet, kept, form)
        yield Problem(problem.line, problem.column, problem.message, problem.hint, fix, path)


def _count(
    project: Project, snippet: Snippet, options: Mapping[str, Any], carriers: Sequence[str]
) -> Iterator[Problem]:
    expected = options["expected_count"]
    if expected is None or expected == len(carriers):
        return
    message = (
        f"expected_count is {expected}, but {len(carriers)} agent"
        f"{'' if len(carriers) == 1 else 's'} carry the `{snippet.name}` snippet"
    )
    hint = f"carried by: {', '.join(carriers)}" if carriers else None
    yield _config_problem(project, "expected_count", message, hint)

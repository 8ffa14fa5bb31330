"""The emit path's fast paths, each held against its plain definition.

Emitting and checking a file is done once per file, so for 1,000 agents the
targets and the emitted-file check remember what depends only on repeated
content, and find fences and entries with one search instead of a walk over
lines. Each oracle below is the plain computation as it was written before
(kept here verbatim, so a change to the fast path cannot drift from it); the
emitted-file check must fail, with the same diagnostics, on every input the
plain one fails on.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compiler import precheck, translation_report, validate, yamlout
from compiler.diagnostics import Problem
from compiler.loader import NODE_BUDGET, plain_frontmatter
from compiler.project import Spec, target_view
from compiler.resources import load_schema
from tests.test_precheck import GUIDED, SHIPPED, top_level
from tests.test_run_memo import _slow
from tests.test_yamlout import _dump_oracle as dump_oracle

# --- oracles: the plain computations --------------------------------------------------------


def head_oracle(text: str) -> str:
    """validate._head, line by line."""
    if "\r" in text or "\x00" in text or text.startswith("\ufeff"):
        return text
    start = 0
    first = True
    while True:
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if first and line.rstrip() != "---":
            return text
        if not first and line.rstrip() in ("---", "..."):
            return text if end < 0 else text[: end + 1]
        if end < 0:
            return text
        start, first = end + 1, False


KEY_START = string.ascii_letters + string.digits + "_'\""


def entries_oracle(head: str) -> list[str] | None:
    """The top-level entries of a frontmatter, grouped line by line."""
    if "&" in head or len(head) > NODE_BUDGET or not head.startswith("---\n"):
        return None
    lines = head.split("\n")
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if close is None or lines[close + 1 :] not in ([], [""]):
        return None
    entries: list[list[str]] = []
    lead: list[str] = []  # blank and comment lines before the first entry: part of it
    for line in lines[1:close]:
        if line[:1] not in ("", " ", "#"):
            if line[0] not in KEY_START:
                return None  # a list, a flow map, a tag...: read whole
            entries.append([*lead, line] if not entries else [line])
        elif entries:
            entries[-1].append(line)
        elif line.strip(" ") and not line.lstrip(" ").startswith("#"):
            return None
        else:
            lead.append(line)
    if not entries:
        return None
    last = len(entries) - 1
    return ["\n".join(entry) + ("" if i == last else "\n") for i, entry in enumerate(entries)]


def check_markdown_oracle(relative: str, text: str, schema: str) -> list[Problem]:
    """The emitted-markdown check: the whole frontmatter read by the plain
    reader and judged whole, else the loader's positions and jsonschema."""
    head = head_oracle(text)
    data = plain_frontmatter(head)
    if data is not None and precheck.valid(data, load_schema(schema)):
        return []
    return _slow(relative, head, schema)


def _same(found: object, expected: object) -> bool:
    """Equal, with key order, types and NaN compared too."""
    return repr(found) == repr(expected)


# --- the frontmatter's head and entries -----------------------------------------------------

# Lines around fences: every whitespace str.rstrip strips (the fence search must
# strip the same), line breaks only "\n" splits on, and entry starts.
_FENCES = ["---", "...", "--- ", "---\t", "---\x0b", "---\x85", "---\u2028", "---\u3000", "...\xa0"]
_HEAD_PIECES = st.sampled_from(
    [*_FENCES, "---x", " ---", "a: 1", "b:", "  c: d", "# e", "", "\t", "\r", "x: '---'", "-- -"]
)
HEADS = st.lists(_HEAD_PIECES, max_size=8).map("\n".join) | st.text(
    alphabet="-.\n \t#a:\x0b\x85\u2028", max_size=24
)


@settings(max_examples=600, deadline=None)
@given(text=HEADS, ending=st.sampled_from(["", "\n", "\nbody\n", "\n---\n"]))
@example(text="---\n---", ending="")
@example(text="---\n...  ", ending="\n")
@example(text="---\na: 1\n---\x85", ending="\nbody")
def test_head_is_the_line_walk(text: str, ending: str) -> None:
    assert validate._head(text + ending) == head_oracle(text + ending)


def test_head_of_every_short_piece_sequence_is_the_line_walk() -> None:
    pieces = ["---", "...", "--- ", "---x", "a: 1", "", "  ---", "---\u2029", "\t..."]
    for size in range(1, 5):
        for lines in itertools.product(pieces, repeat=size):
            for ending in ("", "\n"):
                text = "\n".join(lines) + ending
                assert validate._head(text) == head_oracle(text), text


@settings(max_examples=600, deadline=None)
@given(lines=st.lists(_HEAD_PIECES, max_size=8), end=st.sampled_from(["---\n", "...\n", "---"]))
@example(lines=[], end="---")
@example(lines=[""], end="---\n")
@example(lines=["# c", "  x", "a: 1"], end="---\n")
def test_entries_are_those_grouped_line_by_line(lines: list[str], end: str) -> None:
    head = "---\n" + "".join(f"{line}\n" for line in lines) + end
    assert validate._entry_texts(head) == entries_oracle(head)


# --- one-line entries, read without YAML ----------------------------------------------------

# Keys and values near the edge of what the shortcut takes: YAML indicators,
# words YAML reads as other types, quotes, escapes and the line breaks libyaml
# knows beyond "\n".
_NEAR = st.text(alphabet="aZ_09 -.:#'\"\\,()/tTrueFalsnNyYo\t\u2028\x85é~*&!|>%@`[]{}", max_size=10)
_WORDS = st.sampled_from(["true", "False", "null", "NULL", "yes", "on", "~", "a", "x1", "=", "<<"])


@settings(max_examples=1000, deadline=None)
@given(
    entry=st.from_regex(validate._ONE_LINE, fullmatch=True)
    | st.builds(lambda k, v: f"{k}: {v}", _NEAR | _WORDS, _NEAR | _WORDS)
    | st.builds(lambda k, v: f'{k}: "{v}"', _NEAR | _WORDS, _NEAR),
    newline=st.booleans(),
)
@example(entry="a: true", newline=False)
@example(entry="on: null", newline=True)
@example(entry="a: b c", newline=False)
@example(entry="a: b'c", newline=False)
@example(entry='a: "x # y: z"', newline=False)
@example(entry='a: " "', newline=False)
@example(entry="a: Null", newline=False)
@example(entry="a-_: x.", newline=False)
@example(entry="a: b -c", newline=False)
def test_a_one_line_entry_reads_as_yaml_reads_it(entry: str, newline: bool) -> None:
    entry += "\n" if newline else ""
    found = validate._one_line(entry)
    if found is not None:
        assert _same(found, plain_frontmatter(f"---\n{entry}\n---\n"))


def test_one_line_entries_generated_frontmatter_holds_take_the_shortcut() -> None:
    assert validate._one_line("name: a5\n") == {"name": "a5"}
    assert validate._one_line("description: Agent 5 explores the code.") is not None
    assert validate._one_line('description: "Reviews: code"\n') == {"description": "Reviews: code"}
    assert validate._one_line("model: true") == {"model": True}
    assert validate._one_line("a: b: c") is None
    assert validate._one_line('a: "\\u2028"') is None


# --- a schema judged entry by entry -------------------------------------------------------

MARKDOWN_OUTPUTS = sorted(
    {
        (target, pattern, schema)
        for target, outputs in validate.OUTPUTS.items()
        for pattern, schema in outputs
        if pattern.endswith(".md")
    }
)
MARKDOWN_SCHEMAS = sorted({schema for _, _, schema in MARKDOWN_OUTPUTS})


@pytest.mark.parametrize("name", MARKDOWN_SCHEMAS)
def test_every_emitted_markdown_schema_is_judged_entry_by_entry(name: str) -> None:
    assert precheck.by_entry(load_schema(name)) is not None


def by_entry_verdict(document: dict[str, Any], schema: dict[str, Any]) -> bool | None:
    split = precheck.by_entry(schema)
    assert split is not None
    required, entry = split
    try:
        every = all(entry(key, value) for key, value in document.items())
    except (precheck.Unsupported, RecursionError, TypeError):
        return None
    return every and all(name in document for name in required)


SPLIT = [name for name in SHIPPED if precheck.by_entry(load_schema(name)) is not None]


@pytest.mark.parametrize("name", SPLIT)
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_entry_by_entry_verdict_is_the_whole_verdict(name: str, data: st.DataObject) -> None:
    schema = load_schema(name)
    document = data.draw(GUIDED[name] | top_level)
    if isinstance(document, dict):
        whole = precheck.valid(document, schema)
        found = by_entry_verdict(document, schema)
        assert found is None or whole is None or found == whole, document
        assert found is not None or whole is None, document


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "minProperties": 1},
        {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
        {"not": {"required": ["a"]}},
        {"type": "array"},
        {"type": ["string", "null"]},
        {"allOf": [{"$ref": "https://example.com/x.json"}]},
    ],
)
def test_a_schema_that_ties_entries_together_is_not_split(schema: dict[str, Any]) -> None:
    assert precheck.by_entry(schema) is None


def test_required_names_come_through_all_of_and_refs() -> None:
    schema = {
        "$defs": {"x": {"required": ["b"], "properties": {"b": {"type": "string"}}}},
        "required": ["a"],
        "allOf": [{"$ref": "#/$defs/x"}, {"type": "object", "required": ["a", "c"]}],
    }
    split = precheck.by_entry(schema)
    assert split is not None
    assert sorted(split[0]) == ["a", "b", "c"]  # each once
    assert split[1]("b", "x") and not split[1]("b", 1)


# --- the emitted-file check -----------------------------------------------------------------


def _paths() -> dict[str, tuple[str, str]]:
    """Schema -> (target, a relative path the schema applies to)."""
    found = {}
    for target, pattern, schema in MARKDOWN_OUTPUTS:
        found.setdefault(schema, (target, pattern.replace("*", "x")))
    return found


PATHS = _paths()
_ODD = ["# note", "", "  indented: 1", "name: a:b", "tools: Read", "a: &x 1", "b: *x"]
_ODD_LINES = st.sampled_from(
    [*_ODD, "name: a", "name: b", "\tx: 1", "description: [", "mode: subagent", "'q': 1"]
)


# Frontmatter as the targets write it, with a few near misses: most of these
# are valid, so the shortcut's "valid" is tested as much as its "invalid".
_NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True)
_DESCRIPTIONS = st.from_regex(r"[A-Z][a-z ,.:#]{0,24}", fullmatch=True) | st.text(max_size=12)
_TOOLS = st.lists(
    st.sampled_from(["Read", "Grep", "Bash", "Edit", "Agent(a, b)", "WebFetch", "read"]),
    min_size=1,
    max_size=4,
    unique=True,
)
_ACTION = st.sampled_from(["allow", "ask", "deny", "maybe"])
_PERMISSION = st.dictionaries(
    st.sampled_from(["edit", "bash", "webfetch", "task"]),
    _ACTION | st.dictionaries(st.sampled_from(["*", "git status *", "rm *"]), _ACTION, max_size=3),
    max_size=4,
)
_SKILL = st.fixed_dictionaries(
    {"name": _NAMES, "description": _DESCRIPTIONS},
    optional={"metadata": st.dictionaries(st.sampled_from(["levels", "x"]), _NAMES, max_size=2)},
)
_COMMAND = st.fixed_dictionaries(
    {"description": _DESCRIPTIONS},
    optional={
        "agent": _NAMES,
        "model": st.sampled_from(["sonnet", "anthropic/claude-x"]),
        "subtask": st.booleans(),
        "argument-hint": st.sampled_from(["<request>", ""]),
        "allowed-tools": _TOOLS,
        "context": st.sampled_from(["fork", "main"]),
    },
)
AS_WRITTEN: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "claude-agent": st.fixed_dictionaries(
        {"name": _NAMES, "description": _DESCRIPTIONS, "tools": _TOOLS},
        optional={
            "model": st.sampled_from(["inherit", "sonnet", "anthropic/claude-x"]),
            "color": st.sampled_from(["red", "cyan", "teal"]),
            "maxTurns": st.integers(0, 3),
        },
    ),
    "opencode-agent": st.fixed_dictionaries(
        {"description": _DESCRIPTIONS},
        optional={
            "mode": st.sampled_from(["subagent", "primary", "all", "other"]),
            "permission": _PERMISSION,
            "temperature": st.floats(0, 1.5),
        },
    ),
    "claude-skill": _SKILL,
    "opencode-skill": _SKILL,
    "claude-command": _COMMAND,
    "opencode-command": _COMMAND,
}


def _mutated(front: str, extra: list[str], where: int) -> str:
    lines = front.split("\n")
    where = where % (len(lines) or 1)
    return "\n".join(lines[:where] + extra + lines[where:])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_emitted_markdown_check_is_the_plain_check(data: st.DataObject) -> None:
    schema = data.draw(st.sampled_from(MARKDOWN_SCHEMAS))
    target, relative = PATHS[schema]
    document = data.draw(AS_WRITTEN[schema] | GUIDED[schema] | top_level)
    if not isinstance(document, dict):
        return
    front = yamlout.dump(document)
    if data.draw(st.booleans()):
        front = _mutated(
            front, data.draw(st.lists(_ODD_LINES, max_size=3)), data.draw(st.integers())
        )
        front = front if front.endswith("\n") or not front else front + "\n"
    text = f"---\n{front}---\nThe body.\n"
    for _ in range(2):  # the second time from the entries' memory
        found = list(validate.check_emitted(target, relative, text))
        assert found == check_markdown_oracle(relative, text, schema), text


def test_an_entry_judged_under_one_schema_is_judged_again_under_another() -> None:
    permission = "permission:\n  edit: deny\n"
    opencode = f"---\ndescription: Reviews code.\n{permission}---\nbody\n"
    claude = f"---\nname: rev\ndescription: Reviews code.\n{permission}---\nbody\n"
    assert list(validate.check_emitted("opencode", ".opencode/agents/rev.md", opencode)) == []
    found = list(validate.check_emitted("claude", ".claude/agents/rev.md", claude))
    assert [(p.line, p.column) for p in found] == [(4, 1)]
    assert "unknown key 'permission'" in found[0].message
    # And the other way round, each from the memory of the first.
    assert list(validate.check_emitted("claude", ".claude/agents/rev.md", claude)) == found
    assert list(validate.check_emitted("opencode", ".opencode/agents/rev.md", opencode)) == []


def test_a_missing_required_key_fails_however_the_entries_were_judged_before() -> None:
    whole = "---\nname: rev\ndescription: Reviews code.\n---\nbody\n"
    assert list(validate.check_emitted("claude", ".claude/agents/rev.md", whole)) == []
    found = list(validate.check_emitted("claude", ".claude/agents/rev.md", "---\nname: rev\n---\n"))
    assert [p.message.split(" (")[0] for p in found] == ["$: required key 'description' is missing"]


def test_entries_that_tie_together_are_judged_whole() -> None:
    text = "---\nname: rev\ndescription: a\nname: rev\n---\nbody\n"  # a duplicate key
    found = list(validate.check_emitted("claude", ".claude/agents/rev.md", text))
    assert found == check_markdown_oracle(".claude/agents/rev.md", text, "claude-agent")
    assert found and "unreadable frontmatter" in found[0].message


# --- the YAML writer ------------------------------------------------------------------------

_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(alphabet="ab *:#-\n\u2028é", max_size=6),
    st.sampled_from(["allow", "ask", "deny", "git status *", "yes", "0.5", ""]),
)


class _Listed(list[Any]):
    """A list subclass: written as a list, by the same checks."""


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = st.one_of(st.text(alphabet="ab *:", max_size=4), st.integers(), st.booleans(), st.none())
    maps = st.dictionaries(keys, inner, max_size=4)
    return st.one_of(
        maps,
        maps.map(MappingProxyType),
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.lists(inner, max_size=3).map(_Listed),
    )


_VALUES = st.recursive(_LEAF, _containers, max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(data=st.dictionaries(st.text(alphabet="ab *:#", max_size=5) | st.integers(), _VALUES))
@example(data={"a": {}, "b": [], "c": (), "d": MappingProxyType({}), "e": _Listed()})
@example(data={"a": [{"b": [1, (2,)]}, [], {}], 1: None, "c": _Listed([{"d": "e"}])})
def test_yaml_writer_writes_as_first_written(data: dict[Any, Any]) -> None:
    assert yamlout.dump(data) == dump_oracle(data)
    assert yamlout.dump(data, 4) == dump_oracle(data, 4)


# --- a target's view of a spec --------------------------------------------------------------

_META_VALUES = st.one_of(st.none(), st.text(max_size=3), st.integers(), st.lists(st.integers()))
_OVERRIDE = st.dictionaries(st.sampled_from(["mode", "model", "color", "x"]), _META_VALUES)
_META = st.dictionaries(
    st.sampled_from(["description", "mode", "model", "targets", "permission", "color"]),
    _META_VALUES
    | st.dictionaries(st.sampled_from(["opencode", "claude", "x"]), _OVERRIDE | _META_VALUES),
)


def _spec(meta: dict[str, Any]) -> Spec:
    source = SimpleNamespace(frontmatter=SimpleNamespace(data=meta))
    return Spec("a", cast(Any, source), {})


@settings(max_examples=300, deadline=None)
@given(meta=_META, targets=st.lists(st.sampled_from(["opencode", "claude", "x"]), max_size=6))
def test_a_target_view_is_the_plain_one_every_time(
    meta: dict[str, Any], targets: list[str]
) -> None:
    spec = _spec(meta)
    for target in targets:
        expected = target_view(meta, target)
        assert _same(spec.view(target), expected)
        fresh = spec.for_target(target)
        assert _same(fresh, expected)
        fresh["description"] = "changed"  # a caller's own copy: the next view is unchanged
        assert _same(spec.view(target), expected)


def test_a_view_is_built_once_per_spec_and_target() -> None:
    spec = _spec({"mode": "primary", "targets": {"claude": {"mode": "x"}}})
    assert spec.view("claude") is spec.view("claude")
    assert spec.view("opencode") is not spec.view("claude")
    # The views remembered take no part in what a spec is.
    assert spec == _spec({"mode": "primary", "targets": {"claude": {"mode": "x"}}})


# --- the translation report -----------------------------------------------------------------


def _losses() -> Iterator[Any]:
    from compiler.permissions import Origin, Rule
    from compiler.translate import Loss

    agent = Origin("agent", "", Path("a.md"), 2, 3)
    shared = Origin("default", "built-in default")
    for index in range(12):
        subject = "abc"[index % 3] if index % 5 else "main"
        origin = agent if index % 2 else shared
        yield Loss(subject, Rule("bash", f"x{index}", "deny", origin), f"lost {index}")


def test_own_losses_are_those_filtered_per_agent() -> None:
    losses = list(_losses())
    grouped = translation_report._own_losses(losses)
    for ident in ("a", "b", "c", "main", "none"):
        expected = [
            loss for loss in losses if loss.subject == ident and translation_report._own(loss.rule)
        ]
        assert grouped.get(ident, []) == expected


def where_oracle(rule: Any, root: Path) -> str:
    """Where a rule is written, as the report first computed it for every rule."""
    origin = rule.origin
    if origin.path is None:
        return str(origin.label)
    try:
        path = origin.path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        path = origin.path.name
    return f"{path}:{origin.line}:{origin.column}"


def test_places_resolved_once_are_those_resolved_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compiler.permissions import Origin, Rule

    root = tmp_path / "bundle"
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "a.md").write_text("x")
    (tmp_path / "outside.md").write_text("x")
    (root / "specs" / "link.md").symlink_to(tmp_path / "outside.md")
    (tmp_path / "root-link").symlink_to(root)
    monkeypatch.chdir(root)
    paths = [
        root / "specs" / "a.md",
        Path("specs/a.md"),  # relative to the working directory
        root / "specs" / ".." / "specs" / "a.md",
        root / "specs" / "link.md",  # leads outside: shown by name
        tmp_path / "outside.md",
        tmp_path / "root-link" / "specs" / "a.md",
        root / "missing.md",
        None,
    ]
    rules = [
        Rule("edit", "*", "deny", Origin("agent", "label", path, line, line + 1))
        for path, line in itertools.product(paths, (1, 7))
    ]
    for base in (root, tmp_path / "root-link", Path(".")):
        where = translation_report.Where(base)
        for _ in range(2):  # the second time from memory
            assert [where(rule) for rule in rules] == [where_oracle(rule, base) for rule in rules]

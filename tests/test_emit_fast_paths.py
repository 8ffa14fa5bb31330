"""The emit path's fast paths, each held against its plain definition.

Emitting is done once per file, so for 1,000 agents the targets remember what
depends only on repeated content. Each oracle below is the plain computation
as it was written before (kept here verbatim, so a change to the fast path
cannot drift from it).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import translation_report, yamlout
from compiler.project import Spec, target_view
from tests.test_yamlout import _dump_oracle as dump_oracle


def _same(found: object, expected: object) -> bool:
    """Equal, with key order, types and NaN compared too."""
    return repr(found) == repr(expected)


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

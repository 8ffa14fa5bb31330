"""What a run remembers to go faster gives exactly what looking again gives.

Emitted files are checked without positions first (loader.plain_frontmatter)
and loaded with them only when something is wrong; display() and the writer's
plan remember real paths for the run. Each is compared with the plain answer.
"""

from __future__ import annotations

import difflib
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from compiler import api, snippet, validate, writer
from compiler.config import load_config
from compiler.diagnostics import Problem
from compiler.loader import load_bytes, plain_frontmatter
from tests.conftest import MakeBundle
from tests.strategies import spec_bytes, tick, yaml_text


def _same(a: Any, b: Any) -> bool:
    """Equal data, NaN included, and of the same types (1 is not True)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def _agrees(text: str) -> None:
    plain = plain_frontmatter(text)
    if plain is None:
        return
    loaded = load_bytes(Path("x.md"), text.encode("utf-8"))
    assert loaded.findings == ()
    assert loaded.frontmatter is not None
    assert _same(plain, loaded.frontmatter.data)


@given(yaml_text)
@example("a: 1\na: 2")
@example("a: &a [*a]")
@example("? [a]\n: b")
@example("a: !!python/object/apply:os.system ['true']")
@example("a: .nan\nb: 2024-01-02\nc: yes\nd: '1'\ne: 0x1f")
@example("\ta: 1")
def test_plain_frontmatter_is_the_loaders_data(text: str) -> None:
    tick("loader: plain frontmatter")
    try:
        document = f"---\n{text}\n---\nbody\n"
        document.encode("utf-8")
    except UnicodeEncodeError:
        return  # not a text promptc can write
    _agrees(document)


@given(spec_bytes())
def test_plain_frontmatter_on_spec_files(raw: bytes) -> None:
    tick("loader: plain frontmatter, spec-shaped")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    _agrees(text)


@pytest.mark.parametrize(
    "text",
    [
        "---\na: 1\na: 2\n---\n",
        "---\n\tname: x\n---\n",
        "---\nname: [\n---\n",
        "---\n- a\n---\n",
        "---\nname: x\n",
        "name: x\n",
        "---\r\nname: x\r\n---\r\n",
        "\ufeff---\nname: x\n---\n",
        "---\nname: !custom x\n---\n",
    ],
)
def test_plain_frontmatter_leaves_every_finding_to_the_loader(text: str) -> None:
    assert plain_frontmatter(text) is None
    loaded = load_bytes(Path("x.md"), text.encode("utf-8"))
    assert loaded.findings or loaded.frontmatter is None


def _slow(relative: str, text: str, schema: str) -> list[Problem]:
    """check_emitted on a markdown file as it was before the plain path: load with positions."""
    source = load_bytes(Path(relative), text.encode("utf-8"))
    broken = [p for rule, p in source.findings if rule == "syntax"]
    if broken:
        return [Problem(p.line, p.column, f"unreadable frontmatter: {p.message}") for p in broken]
    if source.frontmatter is None:
        return [Problem(1, 1, f"no frontmatter, but {schema} requires one")]
    return list(validate._against(source.frontmatter, schema, validate.Schemas()))


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("---\ndescription: Reviews code\nmode: sideways\n---\nBody\n", (3, 7)),
        ("---\ndescription: Reviews code\ndescription: again\n---\nBody\n", (3, 1)),
        ("---\ndescription: [\n---\nBody\n", None),
        ("Body only\n", (1, 1)),
        ("---\ndescription: Reviews code\ntemperature: hot\n---\nBody\n", (3, 14)),
    ],
)
def test_a_broken_emitted_agent_gets_the_positioned_diagnostic(
    text: str, where: tuple[int, int] | None
) -> None:
    rel = ".opencode/agents/reviewer.md"
    found = list(validate.check_emitted("opencode", rel, text, validate.Schemas()))
    assert found
    assert found == _slow(rel, text, "opencode-agent")
    if where is not None:
        assert (found[0].line, found[0].column) == where


def test_a_valid_emitted_agent_has_no_problem() -> None:
    text = "---\ndescription: Reviews code\nmode: subagent\n---\nBody\n"
    schemas = validate.Schemas()
    assert list(validate.check_emitted("opencode", ".opencode/agents/r.md", text, schemas)) == []
    assert _slow(".opencode/agents/r.md", text, "opencode-agent") == []


def test_display_follows_the_working_directory_and_each_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "promptc.toml").write_text("")
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    config = load_config(cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    assert config.display(tmp_path / "link" / "a.md") == "real/a.md"
    assert config.display(tmp_path / "link" / "deep" / "b.md") == "real/deep/b.md"
    assert config.display(tmp_path / "link" / "c.md") == "real/c.md"
    assert config.display(tmp_path) == "."
    monkeypatch.chdir(tmp_path / "real")
    # Same paths, another working directory: nothing remembered for the first one shows.
    assert config.display(tmp_path / "link" / "a.md") == "a.md"
    assert config.display(tmp_path / "link" / "deep" / "b.md") == "deep/b.md"
    assert config.display(tmp_path / "x.md") == (tmp_path / "x.md").as_posix()
    # A fresh Config (a new run) sees a folder that became a symlink since.
    os.rename(tmp_path / "real" / "deep", tmp_path / "real" / "moved")
    (tmp_path / "real" / "deep").symlink_to(tmp_path / "real" / "moved")
    fresh = load_config(cwd=tmp_path)
    assert fresh.display(tmp_path / "link" / "deep" / "b.md") == "moved/b.md"


def test_plan_refuses_each_file_behind_a_symlinked_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "agents").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (out / "escape").symlink_to(tmp_path / "elsewhere")
    files = {
        "agents/a.md": b"a",
        "agents/b.md": b"b",
        "escape/c.md": b"c",
        "escape/d.md": b"d",
        "top.md": b"t",
    }
    todo = writer.plan(out, files, {"escape/old.md": ["0" * 64], "agents/old.md": ["0" * 64]})
    assert [c.path for c in todo.conflicts] == ["escape/c.md", "escape/d.md", "escape/old.md"]
    assert todo.missing == ("agents/a.md", "agents/b.md", "top.md")
    assert todo.forget == ("agents/old.md",)


def _plain_ends(source: list[str], composed: list[str]) -> tuple[int, int]:
    """The common head and tail as align() found them with a loop per line."""
    head = 0
    limit = min(len(source), len(composed))
    while head < limit and source[head] == composed[head]:
        head += 1
    tail = 0
    while tail < limit - head and source[-1 - tail] == composed[-1 - tail]:
        tail += 1
    return head, tail


LINES = st.lists(st.sampled_from(["a", "b", "", "<<x>>"]), max_size=8)


@given(LINES, LINES)
@example(["a", "a"], ["a"])
@example(["a", "b", "a"], ["a", "a"])
@example([], ["a"])
def test_align_matches_the_same_head_and_tail(source: list[str], composed: list[str]) -> None:
    tick("snippet: align ends")
    head, tail = _plain_ends(source, composed)
    opcodes = snippet.align(source, composed)
    expected: list[snippet.Opcode] = [("equal", 0, head, 0, head)] if head else []
    middle = difflib.SequenceMatcher(
        None, source[head : len(source) - tail], composed[head : len(composed) - tail], False
    )
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        expected.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        expected.append(
            ("equal", len(source) - tail, len(source), len(composed) - tail, len(composed))
        )
    assert opcodes == expected


def test_agents_with_the_same_lines_get_their_own_positions(make_bundle: MakeBundle) -> None:
    """Agents sharing lines: each agent's copy is found at its own lines."""
    from tests.rules.test_required_snippet import CONFIG, FRAGMENT, ONE_CHARACTER, QUIET, agent

    bodies = {
        "scout": f"{ONE_CHARACTER}\n\n# Scout\n",
        "smith": f"# Smith\n\nLee.\n\n{ONE_CHARACTER}\n",
        "sage": f"# Sage\n\n{ONE_CHARACTER}\n\n{ONE_CHARACTER}\n",
    }
    files: dict[str, str | bytes] = {
        f"specs/agents/{name}.md": agent(body) for name, body in bodies.items()
    }
    make_bundle({"promptc.toml": CONFIG + QUIET, "fragments/caveman.md": FRAGMENT, **files})
    found = sorted(
        (d.path, d.line, d.column, d.message.split(";")[0])
        for d in api.lint(load_config()).diagnostics
        if d.rule == "required-snippet"
    )
    first = "the `caveman` snippet must be the first text after the frontmatter, before the first heading"
    drift = "the `caveman` snippet has drifted from fragments/caveman.md"
    # Column 54 is the changed character, as for one agent alone (test_required_snippet).
    assert found == [
        ("specs/agents/sage.md", 7, 1, first),
        ("specs/agents/sage.md", 7, 54, drift),
        ("specs/agents/sage.md", 10, 1, "the `caveman` snippet appears again (first at line 7)"),
        ("specs/agents/scout.md", 5, 54, drift),
        ("specs/agents/smith.md", 9, 1, first),
        ("specs/agents/smith.md", 9, 54, drift),
    ]


def test_a_run_leaves_the_cycle_collector_as_it_found_it(make_bundle: MakeBundle) -> None:
    """Runs pause the collector (compiler.api); it is back on after, and stays off if it was."""
    import gc

    make_bundle({"specs/agents/scout.md": "---\ndescription: Explores the code base.\n---\nLee.\n"})
    assert gc.isenabled()
    api.lint(load_config())
    api.build(load_config(), check=True)
    assert gc.isenabled()
    gc.disable()
    try:
        api.lint(load_config())
        assert not gc.isenabled()
    finally:
        gc.enable()


@given(st.text(alphabet="a \n\t\x0b\x85\u2028", max_size=12))
@example("")
@example("\n\n")
@example(" \n a")
def test_first_line_is_the_first_non_blank_line(text: str) -> None:
    from compiler.rules.required_snippet import _first_line

    lines = text.split("\n")
    assert _first_line(text) == next((i for i, line in enumerate(lines) if line.strip()), None)


def test_plan_compares_bytes_of_the_same_size_and_hashes_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    written = b"old text\n"  # what promptc wrote before, as the manifest records
    (out / "same.md").write_bytes(b"new text\n")
    (out / "ours.md").write_bytes(written)  # same size as the new text, different bytes
    (out / "edited.md").write_bytes(b"by hand!\n")  # same size, not in the manifest's hashes
    (out / "longer.md").write_bytes(written + b"more\n")
    files = {name: b"new text\n" for name in ("same.md", "ours.md", "edited.md", "longer.md")}
    manifest = {
        "ours.md": [writer.digest(written)],
        "edited.md": [writer.digest(written)],
        "longer.md": [writer.digest(written + b"more\n")],
    }
    todo = writer.plan(out, files, manifest)
    assert todo.unchanged == ("same.md",)
    assert todo.write == ("longer.md", "ours.md")
    assert [c.path for c in todo.conflicts] == ["edited.md"]
    assert "edited by hand" in todo.conflicts[0].message


@given(spec_bytes())
@example(b"---\na: 1\n---")
@example(b"---\na: 1\n---\nbody")
@example(b"---\na: 1\n")
@example(b"no frontmatter\n")
def test_a_source_keeps_its_whole_text(raw: bytes) -> None:
    """SourceFile holds head and body apart; its text is still the file's."""
    tick("loader: head and body")
    source = load_bytes(Path("x.md"), raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    if "\r" in text or "\x00" in text or text.startswith(("\ufeff", "\ufffe")):
        return
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return
    assert source.text == text
    assert source.text.endswith(source.body)
    assert source.head + source.body == text

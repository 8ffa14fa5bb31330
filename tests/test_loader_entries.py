"""The loader reads a frontmatter entry by entry exactly as it reads it whole.

The oracle is the whole read (loader._BY_ENTRIES off): every file must load to
the same data (key order and NaN included), the same positions of every key
and value, the same findings and the same body. Hypothesis builds frontmatters
from entries that repeat (so later files are read from memory at other lines)
and from the lines that could tie entries together: anchors and aliases,
duplicate keys, tags, flow collections and quoted text running over lines,
block scalars, odd indentation, tabs, comments, document markers, a BOM or a
CR, control characters.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import loader, yamlout
from compiler.loader import SourceFile, load_bytes
from tests.strategies import yaml_documents, yaml_text

P = Path("specs/agents/x.md")
YAML_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="ab :#*-&\"'\n", max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet="ab :#", max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)

ENTRY = st.sampled_from(
    [
        "description: An agent.",
        "description: Another agent & more.",
        "description: >-\n  Folded\n  over lines.",
        "description: |+\n  kept\n\n",
        "description:",
        "mode: subagent",
        "mode: primary # a comment",
        'permission:\n  edit: deny\n  bash:\n    "*": ask\n    "git status *": allow',
        "permission:\n  edit: deny\n  webfetch: ask",
        "permission:\n  edit:\n  task:\n    '*': deny",
        "temperature: 0.2",
        "steps: 0x1F",
        "when: 2026-01-13",
        "n: .NaN",
        "tools: [read, write]",
        "tools: {read: true}",
        "'quoted key': 1",
        '"q": "two\n  lines"',
        "a: &x {edit: deny}",
        "b: *x",
        "c: &x 1",
        "d: !!binary aGk=",
        "e: !custom 1",
        "f: !!str 3",
        "1: one",
        "g:\n- one\n- two",
        "h:\n  - [1,\n     2]",
    ]
)
LINE = st.sampled_from(
    [
        "",
        "   ",
        "# a comment",
        "  # an indented comment",
        "  indented: 1",
        "  - item",
        "- item",
        "? key",
        ": value",
        "\tf: tab",
        "g: [1,",
        "2]",
        'c: "two',
        'lines"',
        "k",
        "%YAML 1.2",
        "--- x",
        ".. y",
        "!!str m: n",
        "<<: *x",
        "x: a: b",
        "a: |",
        "b: >",
        "  block text",
        "mode: subagent",
        "mode: primary",
        "\ufeffbom: 1",
        "cr: 1\r",
        "ctl: \x01",
        "\x0bvt: 1",
        "nel: a\x85b",
        "deep: " + "[" * 70 + "]" * 70,
    ]
)
# One-line entries, which are read without composing when their value is plain text.
ONE_LINE = st.builds(
    "{}:{}{}".format,
    st.sampled_from(["description", "a", "b-c", "_d", "1", "e f", "'g'"]),
    st.sampled_from([" ", "  ", "", "\t"]),
    st.text(
        alphabet="aZ09 #:,.-[]{}&*!|>'\"%@`\t\xa0\x85\u2028\u3000\ufeff\x7f\U0001f600", max_size=8
    ),
)
PIECE = ENTRY | LINE | ONE_LINE | yaml_text


@contextmanager
def whole_reads() -> Iterator[None]:
    saved = loader._BY_ENTRIES
    loader._BY_ENTRIES = False
    try:
        yield
    finally:
        loader._BY_ENTRIES = saved


def _facts(source: SourceFile) -> object:
    front = source.frontmatter
    shown = None
    if front is not None:
        # repr: key order, types and NaN (never equal to itself) compared too.
        shown = (
            repr(front.data),
            list(front.values.items()),
            list(front.keys.items()),
            front.start_line,
            front.end_line,
        )
    return shown, source.findings, source.head, source.body, source.body_line


def assert_read_alike(raw: bytes) -> None:
    by_entries = load_bytes(P, raw)
    with whole_reads():
        whole = load_bytes(P, raw)
    assert _facts(by_entries) == _facts(whole), raw


@settings(max_examples=800, deadline=None)
@given(pieces=st.lists(PIECE, max_size=10), end=st.sampled_from(["---\nbody\n", "...\n", "---"]))
@example(pieces=["description: a", "description: b"], end="---\n")
@example(pieces=["a: &x 1", "b: &x 2", "c: *x"], end="---\n")
@example(pieces=["a: &x 1", "b: *x"], end="---\n")
@example(pieces=["a: &x 1", "b: &x 2"], end="---\n")
@example(pieces=[f"{key}: [{'0, ' * 12_000}0]" for key in "ab"], end="---\n")
@example(pieces=["# lead", "  ", "mode: subagent"], end="---\n")
@example(pieces=["  lead: 1", "mode: subagent"], end="---\n")
@example(pieces=["a: |+", "  kept", "", "b: 1"], end="---\n")
@example(pieces=["a:", "# c", "b:"], end="---\n")
@example(pieces=["a:\n  ? '\x85 '\n  : 1", "b:"], end="---\n")
@example(pieces=["a: '\u2028'", "b:"], end="---\n")
@example(pieces=["a: x #y"], end="---\n")
@example(pieces=["b: c:"], end="---\n")
@example(pieces=["d: e: f"], end="---\n")
@example(pieces=["g: h "], end="---\n")
@example(pieces=["h: a\x85b", "i: 2026-01-13", "j: 0x1F"], end="---\n")
@example(pieces=["k: \ufeffa"], end="---\n")
@example(pieces=["a: x\u3000", "b: x\xa0y", "c: 1e3", "d: C#", "e: http://x"], end="---\n")
@example(pieces=["a" * 128 + ": x", "b" * 1025 + ": y"], end="---\n")  # libyaml: 1,024 at most
def test_files_read_by_entries_read_as_whole(pieces: list[str], end: str) -> None:
    assert_read_alike(("---\n" + "".join(f"{p}\n" for p in pieces) + end).encode("utf-8"))


@settings(max_examples=300, deadline=None)
@given(st.lists(yaml_documents, min_size=1, max_size=4))
def test_generated_documents_read_by_entries_read_as_whole(documents: list[str]) -> None:
    for text in documents:  # several: entries read before are read again from memory
        assert_read_alike(f"---\n{text}---\nbody\n".encode())


@settings(max_examples=600, deadline=None)
@given(pieces=st.lists(PIECE, max_size=4), end=st.sampled_from(["---\n", "...\nbody", "---", ""]))
@example(pieces=["description: An agent."], end="---\n")
@example(pieces=["a: x #y"], end="---\n")
@example(pieces=["d: e: f"], end="---\n")
@example(pieces=["g: h "], end="---\n")
@example(pieces=["\tg: h"], end="---\n")
@example(pieces=["b" * 1025 + ": y"], end="---\n")
def test_plain_frontmatter_is_the_whole_reads_data(pieces: list[str], end: str) -> None:
    """plain_frontmatter gives the data of a file the loader reads without a finding,
    and None for any other: held to the whole read, as emitted files are checked by it."""
    text = "---\n" + "".join(f"{p}\n" for p in pieces) + end
    with whole_reads():
        whole = load_bytes(P, text.encode("utf-8"))
    expected = None if whole.findings or whole.frontmatter is None else whole.frontmatter.data
    assert repr(loader.plain_frontmatter(text)) == repr(expected), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.text(alphabet="abc :", max_size=4), YAML_DATA, max_size=4)))
def test_dumped_frontmatters_read_by_entries_read_as_whole(
    documents: list[dict[str, object]],
) -> None:
    for data in documents:
        assert_read_alike(f"---\n{yamlout.dump(data)}---\n".encode())


def test_repeated_entries_are_composed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the entry-wise read: the permission map every agent repeats is
    composed once, also where it stands at another line of another file."""
    composed: list[str] = []
    real = yaml.compose

    def counting(text: str, Loader: type[yaml.SafeLoader]) -> object:
        composed.append(text)
        return real(text, Loader=Loader)

    monkeypatch.setattr(yaml, "compose", counting)
    permission = 'permission:\n  edit: deny\n  bash:\n    "*": ask\n'
    for index, description in enumerate(["One agent.", "Two\n  lines.", "One agent."]):
        raw = f"---\ndescription: {description}\nrepeat{index}: x\n{permission}---\n"
        source = load_bytes(P, raw.encode())
        assert source.frontmatter is not None
        line = 8 if "\n" in description else 7
        assert source.frontmatter.keys[("permission", "bash", "*")] == loader.Pos(line, 5)
    assert composed.count(permission.rstrip("\n")) == 1  # the last entry: no line break
    assert composed.count("description: Two\n  lines.\n") == 1
    assert not any("One agent" in text for text in composed)  # plain text: read without YAML


def test_copies_do_not_share_their_maps() -> None:
    """Each file gets maps of its own: a change to one cannot reach another."""
    raw = b"---\npermission:\n  bash:\n    '*': ask\n---\n"
    first, second = load_bytes(P, raw), load_bytes(P, raw)
    assert first.frontmatter is not None and second.frontmatter is not None
    first.frontmatter.data["permission"]["bash"]["*"] = "deny"
    third = load_bytes(P, raw).frontmatter
    assert third is not None
    assert second.frontmatter.data == third.data == {"permission": {"bash": {"*": "ask"}}}


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("a: 1\nb:\n  c: 2\n\n# x\nd: 3", ["a: 1\n", "b:\n  c: 2\n\n# x\n", "d: 3"]),
        ("# lead\n  \n  # more\na: 1\n", ["# lead\n  \n  # more\na: 1\n"]),
        ("'q': 1\n\"r\": 2", ["'q': 1\n", '"r": 2']),
        ("", None),
        ("# only\n", None),
        ("  a: 1\nb: 2", None),
        ("a: 1\n- b", None),
        ("? a\n: b", None),
        ("{a: 1}", None),
        ("\ufeffa: 1", None),
        ("\x0ba: 1", None),
    ],
)
def test_entries_of_a_frontmatter(text: str, entries: list[str] | None) -> None:
    assert loader.frontmatter_entries(text) == entries


FENCE_LINES = st.sampled_from(
    [
        *("---", "...", "--- ", "---\t", "---\x0b", "...\x1c", "---\x85", "---\u2028"),
        *("---\u3000", "----", "---x", " ---", ". ..", "a: 1", "", "  b", "x: '---'", "---\x00"),
    ]
)


@given(lines=st.lists(FENCE_LINES, max_size=6), ending=st.sampled_from(["", "\n"]))
def test_the_frontmatter_ends_at_the_first_closing_fence_line(
    lines: list[str], ending: str
) -> None:
    """The split as defined on lines (`\\n` only) and str.rstrip, blanks of any kind after a fence."""
    text = "\n".join(["---", *lines]) + ending
    source = load_bytes(P, text.encode())
    if any(rule == "syntax" and "NUL" in p.message for rule, p in source.findings):
        return
    every = text.split("\n")
    closes = [i for i in range(1, len(every)) if every[i].rstrip() in ("---", "...")]
    if not closes:
        assert (source.frontmatter, source.head, source.body_line) == (None, text, len(every))
        return
    close = closes[0]
    assert source.head == "".join(f"{line}\n" for line in every[: close + 1])[: len(text)]
    assert source.body == "\n".join(every[close + 1 :])
    assert source.body_line == min(close + 2, len(every))
    if source.frontmatter is not None:
        assert source.frontmatter.end_line == close + 1


def test_agent_ids_and_order_are_the_relative_paths(tmp_path: Path) -> None:
    """Ids are the paths under specs/agents/ without `.md`, in the order of their parts,
    through subfolders and a symlinked folder; other files are stray."""
    from compiler.bundle import load_bundle
    from compiler.config import load_config

    root = tmp_path / "b"
    names = ["z.md", "a.b.md", "team/x.md", "team-a/y.md", "team/sub/w.md", "é.md", "n.txt"]
    for name in names:
        path = root / "specs" / "agents" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\ndescription: d\n---\n", encoding="utf-8")
    (root / "specs" / "agents" / "linked").symlink_to(root / "specs" / "agents" / "team")
    (root / "promptc.toml").write_text("[targets.opencode]\n", encoding="utf-8")
    config = load_config(root / "promptc.toml")
    bundle = load_bundle(config)
    folder = config.specs / "agents"
    expected = sorted(
        (p for p in folder.rglob("*") if p.suffix == ".md" and "linked" not in p.parts),
        key=lambda p: p.relative_to(folder).parts,
    )
    linked = [
        folder / "linked" / p.relative_to(folder / "team")
        for p in expected
        if "team" in p.parts[-3:-1]
    ]
    expected = sorted([*expected, *linked], key=lambda p: p.relative_to(folder).parts)
    assert list(bundle.agents) == [
        p.relative_to(folder).with_suffix("").as_posix() for p in expected
    ]
    assert [s.path for s in bundle.agents.values()] == expected
    assert "linked/sub/w" in bundle.agents
    assert [(rule, p.name) for rule, p, _ in bundle.findings] == [("stray-file", "n.txt")]


@pytest.mark.parametrize("size_hint", [0, 1, 99_999, 100_000, 100_001, 10**7])
@pytest.mark.parametrize("most", [1, 65_536, 100_000, 100_001, 10**6])
def test_reads_stop_at_the_end_or_the_limit_whatever_size_was_expected(
    tmp_path: Path, size_hint: int, most: int
) -> None:
    """A file read whole, or its first `most` bytes, however far its size at the
    open (a file can grow or shrink meanwhile) is from what it holds."""
    data = bytes(range(256)) * 390 + b"end!"  # 99,844 bytes
    path = tmp_path / "f.md"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert loader._read_up_to(fd, most, size_hint) == data[:most]
    finally:
        os.close(fd)


def test_a_file_over_the_limit_is_refused_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "f.md"
    path.write_bytes(b"x" * 11)
    assert loader.read_bounded(path, limit=11) == b"x" * 11
    with pytest.raises(
        loader._Unreadable, match="file is 11 bytes; promptc reads spec files up to 10 bytes"
    ):
        loader.read_bounded(path, limit=10)


def test_long_entries_are_read_each_time_not_remembered() -> None:
    """Memory stays bounded: an entry past _ENTRY_CHARS_KEPT is read, not remembered,
    and reads as the whole read does wherever it stands."""
    rules = "".join(f'    "cmd{i} *": allow\n' for i in range(100))
    entry = f"permission:\n  bash:\n{rules}"
    assert len(entry) > loader._ENTRY_CHARS_KEPT
    for lead in ("", "description: One.\n", "description: Two\n  lines.\n"):
        assert_read_alike(f"---\n{lead}{entry}mode: subagent\n---\nbody\n".encode())
    assert not any(len(text) > loader._ENTRY_CHARS_KEPT for text in loader._UNPLACED)
    assert not any(len(text) > loader._ENTRY_CHARS_KEPT for text, _ in loader._PLACED)


def test_one_line_values_take_exactly_the_plain_characters() -> None:
    """_ONE_LINE is written as the characters it refuses; it takes exactly these
    ranges (printable ASCII and the rest of Unicode but line breaks YAML counts,
    surrogates, the BOM and non-characters), checked on every code point."""
    allowed = re.compile(
        r"([A-Za-z_][A-Za-z0-9_-]{0,127}):( +)"
        "([A-Za-z0-9][ -~\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*)"
        r"\n?\Z"
    )
    differ = [
        hex(code)
        for code in range(0x110000)
        for text in (f"k: a{chr(code)}", f"k: a{chr(code)}b\n")
        if bool(loader._ONE_LINE.match(text)) != bool(allowed.match(text))
    ]
    assert differ == []

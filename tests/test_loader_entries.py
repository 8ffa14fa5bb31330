"""The loader's frontmatter, entry by entry: the top-level entries of a
frontmatter (frontmatter_entries), the data of one read without positions
(plain_frontmatter) held to the full read, where a frontmatter ends, how ids
follow paths, and how large a file may be.

Hypothesis builds frontmatters from entries and from the lines that could tie
entries together: anchors and aliases, duplicate keys, tags, flow collections
and quoted text running over lines, block scalars, odd indentation, tabs,
comments, document markers, a BOM or a CR, control characters.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import loader
from compiler.loader import load_bytes
from tests.strategies import yaml_text

P = Path("specs/agents/x.md")

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
    whole = load_bytes(P, text.encode("utf-8"))
    expected = None if whole.findings or whole.frontmatter is None else whole.frontmatter.data
    assert repr(loader.plain_frontmatter(text)) == repr(expected), text


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


def test_a_file_over_the_limit_is_refused_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "f.md"
    path.write_bytes(b"x" * 11)
    assert loader.read_bounded(path, limit=11) == b"x" * 11
    with pytest.raises(
        loader._Unreadable, match="file is 11 bytes; promptc reads spec files up to 10 bytes"
    ):
        loader.read_bounded(path, limit=10)


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

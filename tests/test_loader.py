"""Loader: exact positions, and every malformed input as a finding, never a fix."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptc_compiler.core import loader
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.config import load_config
from promptc_compiler.core.loader import load_bytes, resolve_plain
from tests.strategies import spec_bytes

P = Path("x.md")


def findings(raw: bytes) -> list[tuple[str, int, int]]:
    source = load_bytes(P, raw)
    return [(rule, p.line, p.column) for rule, p in source.findings]


def test_positions_are_file_lines_and_columns() -> None:
    raw = b'---\ndescription: d\nmode: subagent\npermission:\n  bash:\n    "*": ask\n  edit: deny\n---\nbody\n'
    fm = load_bytes(P, raw).frontmatter
    assert fm is not None
    pos = fm.where(("description",), key=True)
    assert (pos.line, pos.column) == fm.keys[("description",)] == (2, 1)
    assert fm.values[("mode",)] == (3, 7)
    # line 7, column 3: the `edit` key inside `permission`
    assert fm.keys[("permission", "edit")] == (7, 3)
    assert fm.keys[("permission", "bash", "*")] == (6, 5)


def test_positions_are_pairs_and_where_gives_a_pos() -> None:
    raw = b"---\ndescription: d\npermission:\n  edit: deny\n---\nbody\n"
    fm = load_bytes(P, raw).frontmatter
    assert fm is not None
    keys = dict(fm.keys.items())
    assert keys == {
        ("description",): (2, 1),
        ("permission",): (3, 1),
        ("permission", "edit"): (4, 3),
    }
    # Plain pairs of ints, which the garbage collector stops tracking.
    assert all(type(pos) is tuple for pos in keys.values())
    assert all(type(fm.where(path, key=True)) is loader.Pos for path in keys)
    assert len(fm.keys) == 3
    assert ("permission", "edit") in fm.keys
    assert ("x",) not in fm.keys
    assert fm.keys.get(("x",)) is None
    assert fm.values[()] == (2, 1)
    assert fm.values[("permission", "edit")] == (4, 9)
    # A path that is not there is reported at its nearest written ancestor.
    assert fm.where(("permission", "edit", "more")) == fm.values[("permission", "edit")]
    assert fm.where(("nothing",)) == loader.Pos(fm.start_line, 1)


# YAML breaks lines at NEL, LS and PS too; files (and editors) do not.
_YAML_ONLY_BREAKS = ["\x85", "\u2028", "\u2029"]


def test_positions_after_a_yaml_only_line_break_are_file_lines() -> None:
    raw = 'description: "a\u2028b\x85c"\nmode: subagent\nx: "\u2029"\ny: 1\n'
    fm = load_bytes(P, f"---\n{raw}---\nbody\n".encode()).frontmatter
    assert fm is not None
    assert fm.keys[("mode",)] == (3, 1)
    assert fm.values[("mode",)] == (3, 7)
    assert (fm.keys[("y",)][0], fm.values[("y",)][1]) == (5, 4)


def test_a_yaml_error_after_a_yaml_only_line_break_is_at_its_file_line() -> None:
    raw = '---\ndescription: "a\u2028b"\nmode: [\n---\nbody\n'.encode()
    [(rule, line, _)] = findings(raw)
    assert rule == "syntax"
    assert line <= 4  # YAML's own count put it past the fence


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet=["a", " ", *_YAML_ONLY_BREAKS], max_size=6), min_size=1, max_size=6)
)
def test_every_key_stands_where_the_file_has_it(values: list[str]) -> None:
    lines = [f'k{i}: "{value}"' for i, value in enumerate(values)]
    fm = load_bytes(P, ("---\n" + "\n".join(lines) + "\n---\n").encode()).frontmatter
    assert fm is not None
    file_lines = ["---", *lines, "---"]
    for i in range(len(values)):
        line, column = fm.keys[(f"k{i}",)]
        assert file_lines[line - 1][column - 1 :].startswith(f"k{i}:")
        line, column = fm.values[(f"k{i}",)]
        assert file_lines[line - 1][column - 1] == '"'


def test_body_line_and_text() -> None:
    source = load_bytes(P, b"---\na: 1\n---\nline one\nline two\n")
    assert source.body_line == 4
    assert source.body == "line one\nline two\n"


def test_body_line_of_a_file_ending_on_its_fence() -> None:
    source = load_bytes(P, b"---\na: 1\n---")
    assert (source.body_line, source.body) == (3, "")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"---\na: 1\na: 2\n---\n", [("syntax", 3, 1)]),
        (b"---\nperm:\n\tedit: deny\n---\n", [("syntax", 3, 1)]),
        (b"---\nperm:\n  \tedit: deny\n---\n", [("syntax", 3, 3)]),
        (b"---\na: 1\n", [("syntax", 1, 1)]),
        (b"---\na: [1\n---\n", [("syntax", 3, 1)]),
        (b"---\nx: *\n---\n", [("syntax", 2, 4)]),
        (b"  ---\na: 1\n  ---\n", [("syntax", 1, 3)]),
        (b"\n---\na: 1\n---\n", [("syntax", 2, 1)]),
        (b"---\n- a\n- b\n---\n", [("syntax", 2, 1)]),
        (b"ok\nbad \xff here\n", [("syntax", 2, 5)]),
        (b"ok\nnul\x00\n", [("syntax", 2, 4)]),
        (b"\xef\xbb\xbf---\na: 1\n---\n", [("encoding", 1, 1)]),
        (b"---\r\na: 1\r\n---\r\nbody\r\n", [("encoding", 1, 4)]),
    ],
    ids=[
        "duplicate",
        "tab",
        "tab-after-spaces",
        "unclosed",
        "bad-yaml",
        "bare-star",
        "indented-fence",
        "fence-not-first",
        "not-mapping",
        "utf8",
        "nul",
        "bom",
        "crlf",
    ],
)
def test_malformed_input_is_reported(raw: bytes, expected: list[tuple[str, int, int]]) -> None:
    assert findings(raw) == expected


@pytest.mark.parametrize(
    ("front", "line", "column", "quote"),
    [
        # YAML reads on to the next `"` (before `*`) and fails there, five lines
        # down, with "a bare * starts a YAML alias": the mistake is line 2's.
        ('description: "Reviews a diff: for bugs\npermission:\n  bash:\n    "*": ask\n', 2, 14, '"'),
        ('description: "Reviews a diff: for bugs\n', 2, 14, '"'),  # no closing quote at all
        ("mode: subagent\ndescription: 'Reviews a diff\nmodel: x\ntools: {'a': 1}\n", 3, 14, "'"),
        ('tools:\n  - "bash\n  - "read"\n', 3, 5, '"'),
    ],
    ids=["closed-lines-below", "never-closed", "single-quote", "list-item"],
)  # fmt: skip
def test_an_unclosed_quote_is_reported_at_its_line(
    front: str, line: int, column: int, quote: str
) -> None:
    source = load_bytes(P, f"---\n{front}---\nbody\n".encode())
    [(rule, problem)] = source.findings
    assert (rule, problem.line, problem.column) == ("syntax", line, column)
    assert problem.message == (
        f"invalid YAML: the quote {quote} that opens this value is never closed"
    )


def test_a_quoted_value_over_several_lines_is_no_unclosed_quote() -> None:
    front = 'description: "Reviews a diff\n  for bugs"\nmodel: [\n'
    [(_, problem)] = load_bytes(P, f"---\n{front}---\n".encode()).findings
    assert "never closed" not in problem.message


def test_crlf_and_bom_are_read_through() -> None:
    source = load_bytes(P, b"\xef\xbb\xbf---\r\ndescription: d\r\n---\r\nbody\r\n")
    assert source.frontmatter is not None
    assert source.frontmatter.data == {"description": "d"}
    assert source.body == "body\n"


def test_duplicate_key_message_names_first_line() -> None:
    source = load_bytes(P, b"---\ndescription: a\nmode: x\ndescription: b\n---\n")
    [(_, problem)] = source.findings
    assert "duplicate key 'description' (first defined at line 2)" in problem.message


def test_alias_bomb_is_bounded() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    raw = ("---\n" + "\n".join(lines) + "\n---\n").encode()
    source = load_bytes(P, raw)
    assert [rule for rule, _ in source.findings] == ["syntax"]
    assert "alias bomb" in source.findings[0][1].message


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    raw = ("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n").encode()
    assert [rule for rule, _ in load_bytes(P, raw).findings] == ["syntax"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("yes", "yes"),
        ("on", "on"),
        ("true", True),
        ("0", 0),
        ("0.1", 0.1),
        ("~", None),
        ("2026-01-13", dt.date(2026, 1, 13)),
        ("0x1F", 31),
        ("allow", "allow"),
        ("9" * 400, float("inf")),  # past a double's range: Infinity, as js-yaml reads it
        ("-" + "9" * 5000, float("-inf")),  # past Python's digit limit too
        ("0x" + "f" * 5000, float("inf")),  # hex has no digit limit: never written in decimal
        (str(2**1023), 2**1023),
        (str(2**1024 - 2**970 - 1), 2**1024 - 2**970 - 1),  # a double rounds it down
        (str(2**1024 - 2**970), float("inf")),  # and this one up, to Infinity
    ],
)
def test_plain_scalars_resolve_like_yaml_1_2(text: str, value: object) -> None:
    assert resolve_plain(text) == value


def test_quoted_scalars_stay_strings() -> None:
    fm = load_bytes(P, b"---\na: \"true\"\nb: '2026-01-13'\n---\n").frontmatter
    assert fm is not None
    assert fm.data == {"a": "true", "b": "2026-01-13"}


def test_plain_scalars_in_a_file_are_resolved() -> None:
    # libyaml marks plain scalars with style "" (the Python parser with None):
    # both must resolve, or `temperature: 0` would be emitted as the text "0".
    raw = b"---\ntemperature: 0\ntop_p: 0.5\nhidden: true\nmode: ~\nsteps: '3'\n---\n"
    fm = load_bytes(P, raw).frontmatter
    assert fm is not None
    assert fm.data == {"temperature": 0, "top_p": 0.5, "hidden": True, "mode": None, "steps": "3"}
    assert type(fm.data["temperature"]) is int


def test_file_without_frontmatter_is_all_body() -> None:
    source = load_bytes(P, b"# Title\n\ntext\n")
    assert source.frontmatter is None
    assert source.body_line == 1
    assert source.findings == ()


def _documents() -> list[bytes]:
    from tests.schema_cases import CASES, REFERENCE_AGENT

    texts = [case.text.encode() for case in CASES] + [REFERENCE_AGENT.encode()]
    texts += [
        b"---\na: 1\na: 2\n---\n",
        b"---\na: [1\n---\n",
        b"---\nx: *\n---\n",
        b"---\n- a\n- b\n---\n",
        b"---\nbase: &b {edit: deny}\nperm: *b\nlist: [*b, *b]\n---\n",
        b"---\nt: !!binary aGk=\nu: !foo bar\nv: ! 12\nw: !!str 3\n---\n",
        b"---\nyes: on\nno: off\nd: 2026-01-13\nts: 2026-01-13 10:00:00\nf: .inf\nn: ~\n---\n",
        b"---\n? [a, b]\n: c\n\"q\": 'r'\nm: |\n  line\n  line\n---\n",
        b"---\n{a: 1, b: [2, {c: 3}]}\n---\n",
    ]
    return texts


@pytest.mark.skipif(not hasattr(__import__("yaml"), "CSafeLoader"), reason="no libyaml")
def test_the_c_and_the_python_composer_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """libyaml when present, else PyYAML's own parser: the same data, positions and findings
    (only the wording of a YAML syntax error is each parser's own)."""
    import yaml

    from promptc_compiler.core import loader

    with_c = [load_bytes(P, raw) for raw in _documents()]
    monkeypatch.setattr(loader, "_Loader", loader.composer(yaml.SafeLoader))
    in_python = [load_bytes(P, raw) for raw in _documents()]
    for c, python in zip(with_c, in_python, strict=True):
        assert c.frontmatter == python.frontmatter, c.text
        if any("invalid YAML" in p.message for _, p in c.findings):
            assert [r for r, _ in c.findings] == [r for r, _ in python.findings]
        else:
            assert c.findings == python.findings, c.text


PIECES = ["---", "...", "--- ", "---x", "a: 1", "", "  ---", "body", "x: '---'", " ---"]


def test_body_starts_after_the_first_closing_fence() -> None:
    """The split as defined on lines, for every arrangement of these lines."""
    import itertools

    for size in range(5):
        for pieces in itertools.product(PIECES, repeat=size):
            for ending in ("", "\n"):
                text = "\n".join(pieces) + ending
                source = load_bytes(P, text.encode())
                lines = text.split("\n")
                if lines[0].rstrip() != "---":
                    assert (source.frontmatter, source.body, source.body_line) == (None, text, 1)
                    continue
                closes = [i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")]
                if not closes:
                    assert (source.body, source.body_line) == ("", len(lines))
                    assert source.frontmatter is None
                    continue
                assert source.body == "\n".join(lines[closes[0] + 1 :]), text
                # A file ending on the closing fence has no body line: the fence's.
                assert source.body_line == min(closes[0] + 2, len(lines))


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


@given(spec_bytes())
@example(b"---\na: 1\n---")
@example(b"---\na: 1\n---\nbody")
@example(b"---\na: 1\n")
@example(b"no frontmatter\n")
def test_a_source_keeps_its_whole_text(raw: bytes) -> None:
    """SourceFile holds head and body apart; its text is still the file's."""
    source = load_bytes(P, raw)
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


def test_agent_ids_and_order_are_the_relative_paths(tmp_path: Path) -> None:
    """Ids are the paths under specs/agents/ without `.md`, in the order of their parts,
    through subfolders and a symlinked folder; other files are stray."""
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

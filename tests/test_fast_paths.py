"""Fast paths give exactly what the plain definitions give.

Each oracle here is the straightforward implementation the fast one replaced
(kept only as a test oracle); hypothesis compares the two on inputs that reach
the corner cases.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import validate, yamlout
from compiler.loader import plain_frontmatter
from tests.strategies import markdown

# --- emitted frontmatter read entry by entry ---------------------------------------------


ENTRY_LINES = st.sampled_from(
    [
        "description: An agent.",
        "description: Another agent.",
        "mode: subagent",
        "permission:",
        "  edit: deny",
        '  "*": ask',
        "  bash:",
        '    "git status *": allow',
        "    rm *: deny",
        "# a comment",
        "  # an indented comment",
        "",
        "   ",
        "- item",
        "  - item",
        "? key",
        ": value",
        "a: |",
        "a: |+",
        "  block text",
        "b: >",
        'c: "two',
        'lines"',
        "d: &x 1",
        "e: *x",
        "\tf: tab",
        "mode: primary",
        "g: [1,",
        "2]",
        "h: {}",
        "i: []",
        "j: .nan",
        "k",
        "  l: 1",
        "...",
        "---",
        "%YAML 1.2",
        "!!str m: n",
    ]
)
YAML_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="ab :#*-&\"'\n", max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet="ab :#", max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


def _same(found: object, expected: object) -> bool:
    """Equal data, with the key order and NaN compared too."""
    return repr(found) == repr(expected)


@settings(max_examples=600, deadline=None)
@given(lines=st.lists(ENTRY_LINES, max_size=10), end=st.sampled_from(["---\n", "...\n", "---"]))
def test_frontmatter_read_by_entries_is_read_whole(lines: list[str], end: str) -> None:
    head = "---\n" + "".join(f"{line}\n" for line in lines) + end
    assert _same(validate.emitted_frontmatter(head), plain_frontmatter(head))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.text(alphabet="abc :", max_size=4), YAML_DATA, max_size=4)))
def test_generated_frontmatter_read_by_entries_is_read_whole(
    documents: list[dict[str, Any]],
) -> None:
    for data in documents:  # several, so entries read before are read again from memory
        head = f"---\n{yamlout.dump(data)}---\n"
        assert _same(validate.emitted_frontmatter(head), plain_frontmatter(head))


# --- scan --------------------------------------------------------------------------------


# Short lines of constructs, code and text, joined by line breaks, blank lines and
# fences: the block structure the shortcut depends on.
_SCAN_LINE = st.lists(
    st.sampled_from(["<<a>>", "x", "`", "``", "<% if target == 'claude' %>", "<% endif %>"])
    | st.sampled_from(["\\<<a>>", "<#c#>", "# H", "  ", "~~~", "```"]),
    max_size=4,
).map("".join)
_SCAN_BODY = st.lists(
    st.tuples(_SCAN_LINE, st.sampled_from(["\n", "\n\n", "\n```\n", "\n  \n"])), max_size=8
).map(lambda parts: "".join(a + b for a, b in parts))


@given(body=markdown | _SCAN_BODY, first_line=st.integers(min_value=1, max_value=40))
@example(body="<<a>>\n\n`x\ny`\n\nplain\ntail\n", first_line=4)
@example(body="```\n<<a>>\n\ntext\n```\nafter\n", first_line=1)
@example(body="a `<<b>>\n\nc` d\n", first_line=2)
@settings(deadline=None)
def test_the_text_after_the_last_opener_scans_as_the_full_walk_does(
    body: str, first_line: int
) -> None:
    from compiler import scan

    assert scan._TAIL_IS_TEXT
    try:
        scan._TAIL_IS_TEXT = False  # the oracle: every line walked
        walked = scan.scan(body, first_line)
    finally:
        scan._TAIL_IS_TEXT = True
    assert scan.scan(body, first_line) == walked

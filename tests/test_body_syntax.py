"""One reading of a body's syntax (promptc_compiler.base.body_syntax), and every reader on it.

The fence cases were checked against markdown-it-py 4.3 (CommonMark 0.31):
where each old reader said otherwise, the case says which.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptc_compiler.base import body_syntax
from promptc_compiler.base.body_syntax import Fence, code_spans, fenced_blocks
from promptc_compiler.core.scan import scan
from promptc_compiler.pipeline import import_text
from promptc_compiler.rules.exposure import AGENT, Source

# (id, body, fenced blocks as (start, end, closed))
FENCES = [
    ("top-level", "```\ncode\n```", [(0, 3, True)]),
    ("tilde-with-info", "~~~python\ncode\n~~~", [(0, 3, True)]),
    ("three-spaces", "   ```\nx\n   ```", [(0, 3, True)]),
    # Old: the scanner, the import and the rules' search took it for a fence.
    ("four-spaces-is-indented-code", "    ```\nx\n    ```", []),
    ("four-spaces-after-text-go-on", "Text\n    ```\nx\n    ```", []),
    ("tab-is-four-columns", "\t```\nx\n\t```", []),
    # Old: the snippet search (at most three spaces at any depth) missed these.
    ("nested-list-item", "- a\n  - b\n    ```sh\n    x\n    ```", [(2, 5, True)]),
    ("ordered-item-of-two-digits", "10. step\n    ```\n    x\n    ```", [(1, 4, True)]),
    ("list-item-after-blank", "1. a\n\n   ```\n   x\n   ```\n", [(2, 5, True)]),
    ("fence-right-after-marker", "- ```\n  x\n  ```", [(0, 3, True)]),
    ("lazy-line-keeps-the-item", "- a\nb\n  ```\n  x\n  ```", [(2, 5, True)]),
    (
        "the-compose-case",
        "- item\n    ````\n    <<x>>\n    ```\n    <<x>>\n    `````\n<<x>>",
        [(1, 6, True)],
    ),
    ("too-deep-in-its-item", "- a\n\n      ```\n      x", []),
    ("two-is-no-list-after-text", "Some text\n2. not a list\n    ```\nx", []),
    ("an-empty-item-ends-at-a-blank", "10. \n\n    ````\n```", [(3, 4, False)]),
    # Old: the snippet search and the import closed the block at ```` ``` y ````.
    ("info-after-a-closing-run-is-code", "```\nx\n``` y\nz\n```", [(0, 5, True)]),
    # Old: all but the scanner opened a block here.
    ("backtick-in-info-is-inline-code", "```a`b\nx", []),
    ("tildes-close-tildes-only", "~~~\nx\n```\n~~~", [(0, 4, True)]),
    ("a-shorter-run-does-not-close", "````\nx\n```\n````", [(0, 4, True)]),
    ("unclosed-runs-to-the-end", "```\nx", [(0, 2, False)]),
    # Old: every reader ran the block to the end of the body.
    ("the-item-ends-the-block", "- a\n  ```\n  x\nb", [(1, 3, False)]),
    ("heading-ends-the-list", "- a\n# h\n    ```\nx", []),
    ("thematic-break-is-no-item", "* * *\n    ```\nx", []),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in FENCES], ids=[c[0] for c in FENCES])
def test_fenced_blocks(body: str, expected: list[tuple[int, int, bool]]) -> None:
    assert fenced_blocks(body.split("\n")) == [Fence(*block) for block in expected]


def test_code_lines_are_the_blocks_lines() -> None:
    lines = ["a", "```", "b", "```", "c", "~~~"]
    assert body_syntax.code_lines(lines) == {1, 2, 3, 5}


# --- every reader on the same blocks ------------------------------------------------------------

NESTED = "- a\n  - b\n    ```sh\n    <<x>>\n    ```\n\n    <<x>>\n"
# An indented ``` opens nothing (the old scanner read the rest of the body as code).
INDENTED = "Intro.\n\n    ```\n\n<<x>>\n"


def placeholders(body: str) -> list[int]:
    """The lines of the placeholders the composer fills."""
    return [p.line for p in scan(body, 1).placeholders]


def test_the_composer_leaves_code_alone_and_fills_the_rest() -> None:
    assert placeholders(NESTED) == [7]  # line 4 is code in `b`'s fenced block
    assert placeholders(INDENTED) == [5]


def test_the_rules_search_reads_the_same_code() -> None:
    source = Source(Path("a.md"), NESTED, AGENT)
    inside, after = NESTED.index("<<x>>"), NESTED.rindex("<<x>>")
    assert source.in_code(inside)
    assert not source.in_code(after)
    indented = Source(Path("a.md"), INDENTED, AGENT)
    assert not indented.in_code(INDENTED.index("<<x>>"))


def test_the_import_never_splits_a_block_closed_only_by_a_bare_fence() -> None:
    """```` ``` y ```` closes nothing: the blank line is inside the block (old: two paragraphs)."""
    lines = ["```", "a", "``` y", "", "b", "```", "", "c"]
    assert import_text.paragraphs(lines) == [import_text.Block(0, 6), import_text.Block(7, 8)]
    # A block that runs to the end of the body takes the paragraphs there with it.
    assert import_text.paragraphs(["a", "", "b", "```", "c"]) == [import_text.Block(0, 1)]


# --- inline code --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("a `b` c", [(2, 5)]),
        ("``a`b``", [(0, 7)]),
        ("`a\nb`", [(0, 5)]),  # within a paragraph, across lines
        ("``a`", []),  # no run of two closes it
        ("\\`a` b`", [(3, 7)]),  # an escaped backtick is text
    ],
)
def test_code_spans(text: str, spans: list[tuple[int, int]]) -> None:
    assert code_spans(text) == spans
    assert all(body_syntax.in_code_span(text, start) for start, _ in spans)


# --- what OpenCode fills in a command -------------------------------------------------------------


def test_shell_lines_as_opencode_finds_them() -> None:
    body = "Estado: !`git status`\n!`git log\n--oneline` y !`git status`; !`` no"
    # OpenCode's pattern takes a command over several lines (the old one did not).
    assert body_syntax.shell_lines(body) == ["git status", "git log\n--oneline"]


def test_positionals_leave_escaped_dollars() -> None:
    assert body_syntax.positionals("$1 y $2, $1, $$3, \\$4, $10") == ["1", "2", "10"]
    assert body_syntax.positional("1").findall("$1 $10 $$1") == ["$1"]


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        ("Lee @src/app.py y @README.md.", ["src/app.py", "README.md"]),
        ("a@b.com, `@code`, @x,y", ["x"]),
        ("@.env @dir/", [".env", "dir/"]),
    ],
)
def test_file_references_as_opencode_finds_them(text: str, paths: list[str]) -> None:
    assert body_syntax.FILE.findall(text) == paths

"""Import, shared text: blocks repeated across imported bodies become fragments.

`find_shared` and `replace_shared`: blocks of text repeated verbatim across
agents become one fragment, each copy replaced by its placeholder, so the
composed text is unchanged (docs/import.md says what a block is and how its
fragment is named). Each body was escaped as it was read
(promptc_compiler.runtimes.reading.escape), so it composes to itself.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from promptc_compiler.base.body_syntax import fenced_blocks

_WORD = re.compile(r"[A-Za-z0-9]+")
MIN_LINES = 2
MIN_CHARS = 80


class Block(NamedTuple):
    """A run of lines [start, end) of one body."""

    start: int
    end: int


def paragraphs(lines: Sequence[str]) -> list[Block]:
    """Paragraphs of a body split into lines; a fenced block never splits, and
    one that runs to the end of the body ends the paragraphs there."""
    blocks: list[Block] = []
    start: int | None = None
    fences = {fence.start: fence for fence in fenced_blocks(lines)}
    index = 0
    while index < len(lines):
        fence = fences.get(index)
        if fence is not None:
            if not fence.closed and fence.end == len(lines):
                return blocks
            start = index if start is None else start
            index = fence.end
            continue
        if not lines[index].strip():
            if start is not None:
                blocks.append(Block(start, index))
            start = None
        elif start is None:
            start = index
        index += 1
    if start is not None:
        blocks.append(Block(start, len(lines)))
    return blocks


def _big_enough(text: str) -> bool:
    return text.count("\n") >= MIN_LINES - 1 or len(text) >= MIN_CHARS


@dataclass(frozen=True)
class Shared:
    """A block found in several bodies: its fragment name, text and where it stands."""

    name: str
    text: str  # the block's lines, each ending in a newline
    carriers: tuple[str, ...]  # ids of the bodies holding it
    at_top: tuple[str, ...]  # ids whose body opens with it

    @functools.cached_property
    def opening(self) -> tuple[str, int]:
        """Its first line and its length in lines: read once, for every body."""
        return self.text.split("\n", 1)[0], self.text.count("\n")


def _block_text(lines: Sequence[str], block: Block) -> str:
    return "".join(line + "\n" for line in lines[block.start : block.end])


def _runs(lines: Sequence[str], blocks: Sequence[Block], shared: set[str]) -> list[Block]:
    """Consecutive shared paragraphs merged into runs (they are kept together)."""
    runs: list[Block] = []
    for block in blocks:
        if _block_text(lines, block) not in shared:
            continue
        if runs and all(not line.strip() for line in lines[runs[-1].end : block.start]):
            runs[-1] = Block(runs[-1].start, block.end)
        else:
            runs.append(block)
    return runs


def find_shared(bodies: Mapping[str, str]) -> list[Shared]:
    """Blocks repeated verbatim in two or more bodies, largest units first."""
    split = {ident: body.split("\n") for ident, body in bodies.items()}
    blocks = {ident: paragraphs(lines) for ident, lines in split.items()}
    counts: dict[str, set[str]] = {}
    for ident, found in blocks.items():
        for block in found:
            counts.setdefault(_block_text(split[ident], block), set()).add(ident)
    shared = {text for text, ids in counts.items() if len(ids) >= 2}
    # Merge paragraphs that travel together; keep a run only when it repeats too.
    run_counts: dict[str, list[tuple[str, Block]]] = {}
    for ident, found in blocks.items():
        for run in _runs(split[ident], found, shared):
            run_counts.setdefault(_block_text(split[ident], run), []).append((ident, run))
    result: list[Shared] = []
    taken: set[str] = set()
    for text, places in run_counts.items():
        ids = sorted({ident for ident, _ in places})
        if len(ids) < 2 or not _big_enough(text.rstrip("\n")) or text.startswith("---"):
            continue
        top = sorted({ident for ident, run in places if _opens(split[ident], run)})
        result.append(
            Shared(_name(text, len(top) * 2 > len(ids), taken), text, tuple(ids), tuple(top))
        )
    return result


def _opens(lines: Sequence[str], block: Block) -> bool:
    return all(not line.strip() for line in lines[: block.start])


def _name(text: str, top: bool, taken: set[str]) -> str:
    words = _WORD.findall(text.split("\n", 1)[0].lower())[:3]
    base = "shared_intro" if top else "_".join(["shared", *words]) if words else "shared_text"
    name, number = base, 2
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    taken.add(name)
    return name


def replace_shared(body: str, shared: Sequence[Shared]) -> str:
    """`body` with each copy of a shared block replaced by its placeholder: from the
    top, the longest shared block that starts and ends where paragraphs do."""
    lines = body.split("\n")
    by_text = {item.text: item.name for item in shared}
    # Only a block that opens with a line can start where that line stands: the
    # sizes (in lines, longest first) to try there are those of such blocks, so
    # that a body is read in time linear in its bytes, however many blocks there are.
    sizes: dict[str, list[int]] = {}
    for first, size in sorted({item.opening for item in shared}, key=lambda o: -o[1]):
        sizes.setdefault(first, []).append(size)
    blocks = paragraphs(lines)
    starts = {block.start for block in blocks}
    ends = {block.end for block in blocks}
    out: list[str] = []
    index = 0
    while index < len(lines):
        found = None
        if index in starts:
            tried = sizes.get(lines[index], [])
            runs = (Block(index, index + size) for size in tried if index + size in ends)
            found = next((run for run in runs if _block_text(lines, run) in by_text), None)
        if found is None:
            out.append(lines[index])
            index += 1
        else:
            out.append(f"<<{by_text[_block_text(lines, found)]}>>")
            index = found.end
    return "\n".join(out)

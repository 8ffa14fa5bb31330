"""Discover and load a bundle: agents, modes and fragments, with their ids.

An agent's id is its path under specs/agents/ without `.md` (subfolders give
`team/reviewer`); a mode's id is its path under specs/modes/; a fragment's name
is its path under fragments/ with `/` and `-` turned into `_`.
Files that resolve outside the project (symlinks) are refused, never read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from compiler.config import Config
from compiler.diagnostics import Problem
from compiler.loader import SourceFile, load_file

_FRAGMENT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Bundle:
    agents: Mapping[str, SourceFile]
    modes: Mapping[str, SourceFile]
    fragments: Mapping[str, SourceFile]
    # Findings about the tree itself: (rule, file, problem).
    findings: tuple[tuple[str, Path, Problem], ...] = field(default=())

    def sources(self) -> Iterator[SourceFile]:
        yield from self.agents.values()
        yield from self.modes.values()
        yield from self.fragments.values()


def load_bundle(config: Config) -> Bundle:
    findings: list[tuple[str, Path, Problem]] = []
    agents = _load_tree(config, config.specs / "agents", findings)
    modes = _load_tree(config, config.specs / "modes", findings)
    fragments = _load_fragments(config, findings)
    return Bundle(agents, modes, fragments, tuple(findings))


def _markdown_files(
    config: Config, folder: Path, findings: list[tuple[str, Path, Problem]]
) -> Iterator[tuple[str, Path]]:
    """(relative id without .md, path) for every .md file under folder, sorted."""
    if not folder.is_dir():
        return
    root = config.root.resolve()
    for path in sorted(folder.rglob("*")):
        if path.is_dir() or any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if not _inside(path, root):
            findings.append(
                ("syntax", path, Problem(1, 1, "symlink points outside the project; refused"))
            )
            continue
        if path.suffix != ".md":
            findings.append(("stray-file", path, Problem(1, 1, "not a .md file; ignored")))
            continue
        yield path.relative_to(folder).with_suffix("").as_posix(), path


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _load_tree(
    config: Config, folder: Path, findings: list[tuple[str, Path, Problem]]
) -> dict[str, SourceFile]:
    return {ident: load_file(path) for ident, path in _markdown_files(config, folder, findings)}


def fragment_name(relative: str) -> str:
    return relative.replace("/", "_").replace("-", "_")


def _load_fragments(
    config: Config, findings: list[tuple[str, Path, Problem]]
) -> dict[str, SourceFile]:
    fragments: dict[str, SourceFile] = {}
    origin: dict[str, Path] = {}
    for relative, path in _markdown_files(config, config.fragments, findings):
        name = fragment_name(relative)
        if not _FRAGMENT_NAME.match(name):
            message = f"fragment name '{name}' is not an identifier (letters, digits, `_`)"
            findings.append(("compose", path, Problem(1, 1, message)))
            continue
        if name in origin:
            other = config.display(origin[name])
            message = f"fragment name '{name}' is also the name of {other}; rename one"
            findings.append(("compose", path, Problem(1, 1, message)))
            continue
        origin[name] = path
        fragments[name] = load_file(path)
    return fragments

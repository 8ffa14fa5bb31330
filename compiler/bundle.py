"""Discover and load a bundle: agents, modes, skills and fragments, with their ids.

An agent's id is its path under specs/agents/ without `.md` (subfolders give
`team/reviewer`); a mode's id is its path under specs/modes/; a fragment's name
is its path under fragments/ with `/` and `-` turned into `_`.
A skill is a folder directly under specs/skills/ that holds a SKILL.md; every
other file in that folder is a supporting file: markdown ones are composed
like specs, any other UTF-8 text file (a script, a template) is copied as it
is. Binary files are refused: the emitted tree is text, and a byte-exact copy
of an image or an archive is not something a prompt compiler should own.
Files that resolve outside the project (symlinks) are refused, never read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from compiler.config import Config
from compiler.diagnostics import Problem
from compiler.loader import SourceFile, load_file

_FRAGMENT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class SkillSource:
    """One skill folder: its SKILL.md, its markdown files and its other text files.

    `markdown` holds every .md file of the folder by path relative to it,
    SKILL.md included; `assets` the other files' text, copied unchanged.
    """

    name: str  # the folder name
    folder: Path
    markdown: Mapping[str, SourceFile]
    assets: Mapping[str, str] = field(default_factory=dict)

    @property
    def main(self) -> SourceFile:
        return self.markdown[SKILL_FILE]


@dataclass(frozen=True)
class Bundle:
    """Every source file of a bundle, loaded, with the findings about its folders."""

    agents: Mapping[str, SourceFile]
    modes: Mapping[str, SourceFile]
    fragments: Mapping[str, SourceFile]
    # Findings about the tree itself: (rule, file, problem).
    findings: tuple[tuple[str, Path, Problem], ...] = field(default=())
    skills: Mapping[str, SkillSource] = field(default_factory=dict)

    def sources(self) -> Iterator[SourceFile]:
        yield from self.agents.values()
        yield from self.modes.values()
        yield from self.fragments.values()
        for skill in self.skills.values():
            yield from skill.markdown.values()

    def skill_files(self) -> dict[str, SourceFile]:
        """Every markdown file of every skill, by `<skill>/<path in its folder>`."""
        return {
            f"{name}/{rel}": source
            for name, skill in self.skills.items()
            for rel, source in skill.markdown.items()
        }


def load_bundle(config: Config) -> Bundle:
    findings: list[tuple[str, Path, Problem]] = []
    agents = _load_tree(config, config.specs / "agents", findings)
    modes = _load_tree(config, config.specs / "modes", findings)
    fragments = _load_fragments(config, findings)
    skills = _load_skills(config, findings)
    return Bundle(agents, modes, fragments, tuple(findings), skills)


def _load_skills(
    config: Config, findings: list[tuple[str, Path, Problem]]
) -> dict[str, SkillSource]:
    folder = config.specs / "skills"
    if not folder.is_dir():
        return {}
    root = config.root.resolve()
    skills: dict[str, SkillSource] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if not _inside(entry, root):
            findings.append(
                ("syntax", entry, Problem(1, 1, "symlink points outside the project; refused"))
            )
            continue
        if not entry.is_dir():
            message = "not a skill: a skill is a folder specs/skills/<name>/ holding SKILL.md"
            findings.append(("stray-file", entry, Problem(1, 1, message)))
            continue
        if not (entry / SKILL_FILE).is_file():
            message = f"skill folder without {SKILL_FILE}; nothing here is emitted"
            findings.append(("stray-file", entry, Problem(1, 1, message)))
            continue
        skills[entry.name] = _load_skill(entry, root, findings)
    return skills


def _load_skill(folder: Path, root: Path, findings: list[tuple[str, Path, Problem]]) -> SkillSource:
    markdown: dict[str, SourceFile] = {}
    assets: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir() or any(part.startswith(".") for part in rel.split("/")):
            continue
        if not _inside(path, root):
            findings.append(
                ("syntax", path, Problem(1, 1, "symlink points outside the project; refused"))
            )
            continue
        if path.suffix == ".md":
            markdown[rel] = load_file(path)
            continue
        text = _asset_text(path, findings)
        if text is not None:
            assets[rel] = text
    return SkillSource(folder.name, folder, markdown, assets)


def _asset_text(path: Path, findings: list[tuple[str, Path, Problem]]) -> str | None:
    """A supporting file's text, unchanged; None (and a finding) when it is not UTF-8 text."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        findings.append(("syntax", path, Problem(1, 1, f"cannot read file: {exc.strerror}")))
        return None
    try:
        if b"\x00" in raw:
            raise UnicodeDecodeError("utf-8", raw, raw.index(b"\x00"), 1, "NUL byte")
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        message = "binary file in a skill; only text supporting files are emitted"
        findings.append(("syntax", path, Problem(1, 1, message)))
        return None


def _markdown_files(
    config: Config, folder: Path, findings: list[tuple[str, Path, Problem]]
) -> Iterator[tuple[str, Path]]:
    """(relative id without .md, path) for every .md file under folder, sorted."""
    if not folder.is_dir():
        return
    root = config.root.resolve()
    # A file that is no symlink, in a folder that is none (symlinked folders are
    # not entered), is inside the project exactly when the folder is.
    folder_inside = _inside(folder, root)
    for parts, is_link in sorted(_entries(str(folder), ())):
        if any(part.startswith(".") for part in parts):
            continue
        path = folder.joinpath(*parts)
        if (is_link or not folder_inside) and not _inside(path, root):
            findings.append(
                ("syntax", path, Problem(1, 1, "symlink points outside the project; refused"))
            )
            continue
        if not parts[-1].endswith(".md") or parts[-1] == ".md":
            findings.append(("stray-file", path, Problem(1, 1, "not a .md file; ignored")))
            continue
        yield "/".join(parts)[:-3], path


def _entries(folder: str, parts: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], bool]]:
    """(path parts below the top folder, is a symlink) of every file under `folder`.

    What `Path.rglob("*")` lists, less the folders: every entry that is not a
    folder (symlinks to files and dangling ones included), in every folder
    reached without following a symlink. Plain strings: pathlib costs a few
    microseconds per file, which a thousand agents notice.
    """
    try:
        with os.scandir(folder) as scan:
            entries = list(scan)
    except OSError:  # unreadable: as rglob, nothing is listed
        return
    for entry in entries:
        is_link = entry.is_symlink()
        try:
            is_dir = entry.is_dir()  # follows a symlink, as Path.is_dir does
        except OSError:
            is_dir = False
        if is_dir:
            if not is_link:
                yield from _entries(entry.path, (*parts, entry.name))
            continue
        yield (*parts, entry.name), is_link


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

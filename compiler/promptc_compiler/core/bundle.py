"""Discover and load a bundle: agents, modes, skills and fragments, with their ids.

The layout and the ids: docs/bundle.md and docs/skills.md; what the walk
refuses or reports: docs/robustness.md ("The tree"). A fragment's name is its
path under fragments/ with `/` and `-` turned into `_`. Binary files in a skill
are refused: the emitted tree is text, and a byte-exact copy of an image or an
archive is not something a prompt compiler should own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.files import NotRegular, read_regular
from promptc_compiler.core.config import Config
from promptc_compiler.core.loader import KeptFiles, SourceFile, load_file

_FRAGMENT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_OUTSIDE = "symlink points outside the project; refused"
Findings = list[tuple[str, Path, Problem]]  # (rule, file, problem) about the tree itself
Read = Callable[[Path], SourceFile]  # one run's load_file


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


SPEC_FOLDERS = ("agents", "modes", "skills")


def load_bundle(config: Config, kept: KeptFiles | None = None) -> Bundle:
    """Every file of the bundle, the editor's unsaved texts over them; with
    `kept`, the files whose bytes did not change since the last run as it made them."""
    findings: Findings = []

    def read(path: Path) -> SourceFile:
        return load_file(path, config.overlays, kept)

    if kept is not None:
        kept.begin()
    _strays_in_specs(config, findings)
    agents = _load_tree(config, config.specs / "agents", config.specs, findings, read)
    modes = _load_tree(config, config.specs / "modes", config.specs, findings, read)
    fragments = _load_fragments(config, findings, read)
    skills = _load_skills(config, findings, read)
    if kept is not None:
        kept.end()
    return Bundle(agents, modes, fragments, tuple(findings), skills)


def _load_skills(config: Config, findings: Findings, read: Read) -> dict[str, SkillSource]:
    folder = config.specs / "skills"
    if not folder.is_dir():
        return {}
    root = config.root.resolve()
    skills: dict[str, SkillSource] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if not _inside(entry, root):
            findings.append(("syntax", entry, Problem(1, 1, _OUTSIDE)))
            continue
        if not entry.is_dir():
            message = "not a skill: a skill is a folder specs/skills/<name>/ holding SKILL.md"
            findings.append(("stray-file", entry, Problem(1, 1, message)))
            continue
        if not (entry / SKILL_FILE).is_file():
            message = f"skill folder without {SKILL_FILE}; nothing here is emitted"
            findings.append(("stray-file", entry, Problem(1, 1, message)))
            continue
        skills[entry.name] = _load_skill(entry, root, findings, read)
    return skills


def _load_skill(folder: Path, root: Path, findings: Findings, read: Read) -> SkillSource:
    markdown: dict[str, SourceFile] = {}
    assets: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir() or any(part.startswith(".") for part in rel.split("/")):
            continue
        if not _inside(path, root):
            findings.append(("syntax", path, Problem(1, 1, _OUTSIDE)))
            continue
        if path.suffix == ".md":
            markdown[rel] = read(path)
            continue
        text = _asset_text(path, findings)
        if text is not None:
            assets[rel] = text
    return SkillSource(folder.name, folder, markdown, assets)


def _asset_text(path: Path, findings: Findings) -> str | None:
    """A supporting file's text, unchanged; None (and a finding) when it is not UTF-8 text."""
    try:
        raw = read_regular(path, follow_symlinks=True)  # a FIFO would block the run for good
    except NotRegular as exc:
        findings.append(("syntax", path, Problem(1, 1, f"{exc}; refused")))
        return None
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


def _strays_in_specs(config: Config, findings: Findings) -> None:
    """specs/ holds only agents/ and modes/: anything else would be skipped silently."""
    try:
        entries = sorted(os.scandir(config.specs), key=lambda e: e.name)
    except OSError as exc:
        findings.append(("syntax", config.specs, _unreadable_folder(exc)))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.name in SPEC_FOLDERS and (_is_dir(entry) or entry.is_symlink()):
            continue  # a symlink that goes nowhere is reported by the walk
        what = "folder" if _is_dir(entry) else "file"
        message = (
            f"{what} directly under specs/ is ignored; agents go in specs/agents/, "
            "modes in specs/modes/, skills in specs/skills/<name>/"
        )
        findings.append(("stray-file", Path(entry.path), Problem(1, 1, message)))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _markdown_files(
    config: Config, folder: Path, base: Path, findings: Findings
) -> Iterator[tuple[str, Path]]:
    """(relative id without .md, path) for every .md file under folder, sorted.

    `base` is the configured folder (specs/ or fragments/, already resolved):
    it may lie outside the project on purpose, a symlink inside it may not.
    """
    if not folder.is_dir():
        if folder.is_symlink():  # is_dir() is False for a broken or looping link
            message = "symlink points to nothing or loops; refused"
            findings.append(("syntax", folder, Problem(1, 1, message)))
        return
    walk = _Walk((config.root.resolve(), base), findings)
    real = folder.resolve()
    if not any(_within(real, root) for root in walk.allowed):
        walk.refuse(folder, _OUTSIDE)
        return
    walk.folder(folder, frozenset({real}))
    # Every path found is `folder / ...`: its parts past the folder's are its relative path.
    depth = len(folder.parts)
    for path in sorted(walk.files, key=lambda p: p.parts[depth:]):
        if path.suffix != ".md":
            findings.append(("stray-file", path, Problem(1, 1, "not a .md file; ignored")))
            continue
        yield "/".join(path.parts[depth:])[: -len(".md")], path


@dataclass
class _Walk:
    """A walk of one source folder that follows symlinks only where it is safe.

    Hidden entries (`.git`, `.DS_Store`) are skipped. A symlink is followed
    only when it resolves inside the project (or the walked folder, which may
    be configured elsewhere); one pointing outside is refused, never read. A
    symlinked folder that leads back to a folder being walked is a loop and is
    reported instead of walked again.
    """

    allowed: tuple[Path, ...]
    findings: Findings
    files: list[Path] = field(default_factory=list)

    def refuse(self, path: Path, message: str) -> None:
        self.findings.append(("syntax", path, Problem(1, 1, message)))

    def folder(self, folder: Path, ancestors: frozenset[Path]) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            self.findings.append(("syntax", folder, _unreadable_folder(exc)))
            return
        for entry in entries:
            if not entry.name.startswith("."):
                self.entry(folder / entry.name, entry, ancestors)

    def entry(self, path: Path, entry: os.DirEntry[str], ancestors: frozenset[Path]) -> None:
        if not _utf8(entry.name):
            self.refuse(path, "file name is not valid UTF-8; rename it")
            return
        if not entry.is_symlink():
            if _is_dir(entry):
                self.folder(path, ancestors | {path.resolve()})
            else:
                self.files.append(path)  # the loader refuses anything but a regular file
            return
        try:
            target = path.resolve(strict=True)
        except FileNotFoundError:
            self.refuse(path, "symlink points to nothing (broken link)")
            return
        except (OSError, RuntimeError):
            self.refuse(path, "symlink loop; refused")
            return
        if not any(_within(target, root) for root in self.allowed):
            self.refuse(path, _OUTSIDE)
        elif not target.is_dir():
            self.files.append(path)
        elif target in ancestors:
            self.refuse(path, "symlink loop: this folder links back to a folder above it")
        else:
            self.folder(path, ancestors | {target})


def _unreadable_folder(exc: OSError) -> Problem:
    return Problem(1, 1, f"cannot read folder: {exc.strerror or exc}")


def _utf8(name: str) -> bool:
    # Undecodable bytes in a file name arrive as lone surrogates.
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _inside(path: Path, root: Path) -> bool:
    """Whether `path`, symlinks followed, stays inside `root`."""
    try:
        return _within(path.resolve(), root)
    except (OSError, RuntimeError):
        return False


def _load_tree(
    config: Config, folder: Path, base: Path, findings: Findings, read: Read
) -> dict[str, SourceFile]:
    files = _markdown_files(config, folder, base, findings)
    return {ident: read(path) for ident, path in files}


def fragment_name(relative: str) -> str:
    return relative.replace("/", "_").replace("-", "_")


def _load_fragments(config: Config, findings: Findings, read: Read) -> dict[str, SourceFile]:
    fragments: dict[str, SourceFile] = {}
    origin: dict[str, Path] = {}
    files = _markdown_files(config, config.fragments, config.fragments, findings)
    for relative, path in files:
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
        fragments[name] = read(path)
    return fragments

"""`promptc init`: a small starting bundle, written from
compiler/promptc_compiler/cli/templates/init/.

The bundle is data, not code: the files under templates/init/ are copied as
they are, except two lines. `@targets@` in promptc.toml becomes one
`[targets.<name>]` table per target of the registry (promptc_compiler.runtimes),
with the lines its STARTER gives, those not chosen commented out, and
`@targets@` in next-steps.txt the output folders the chosen ones get. A file
already there is never replaced: init then writes nothing. The one file it may
change is .gitignore, and only by adding the lines it lacks.
"""

from __future__ import annotations

import os
import textwrap
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from promptc_compiler.base.errors import PromptcError, UsageError
from promptc_compiler.base.limits import tomllib_loads
from promptc_compiler.base.source import SOURCE
from promptc_compiler.base.suggest import did_you_mean
from promptc_compiler.runtimes import TARGETS
from promptc_compiler.runtimes.translation import join_names

TEMPLATES = Path(__file__).resolve().parent / "templates" / "init"
DEFAULT_TARGETS = (SOURCE,)
# Other names of `--target` (`both`), each choosing a target with the source's.
ALIASES = {
    alias: (SOURCE, name) for name, target in TARGETS.items() for alias in target.STARTER.aliases
}
MARK = "@targets@"
# `--layout root`: the runtimes' files at the project root (docs/reference/config.md),
# where each target's STARTER says they land.
OUT_LINE = 'out = "build"            # promptc build writes build/<target>/\n'
_AT_ROOT = [t.STARTER.at_root for t in TARGETS.values() if t.STARTER.at_root]
_SHARED = [path for t in TARGETS.values() if t.ROOT is not None for path in t.SHARED]
ROOT_LINES = (
    'out = "build"            # what no runtime reads from the project: build/<target>/\n'
    + textwrap.fill(
        f"Each runtime's files at the project root, where it reads them ({', '.join(_AT_ROOT)}); "
        f"the project's own keys in {join_names(_SHARED)} are kept.",
        width=80,
        initial_indent="# ",
        subsequent_indent="# ",
    )
    + '\nlayout = "root"\n'
)


@dataclass
class Created:
    """What one `promptc init` did, with paths relative to the bundle's folder."""

    written: list[str] = field(default_factory=list)
    # "" when .gitignore held every line already, else "created" or "updated".
    gitignore: str = ""
    refused: list[str] = field(default_factory=list)  # "<path>: <why>"
    next_steps: str = ""


def choose_targets(values: Iterable[str]) -> tuple[str, ...]:
    """The targets `--target` names (each value one name or several, comma-separated),
    in the registry's order; the default when none. UsageError for a name not in it."""
    named: set[str] = set()
    for value in values:
        for name in filter(None, (part.strip() for part in value.split(","))):
            if name not in TARGETS and name not in ALIASES:
                known = ", ".join(TARGETS)
                hint = did_you_mean(name, TARGETS)
                raise UsageError(f"--target: unknown target '{name}'{hint}; the targets: {known}")
            named.update(ALIASES.get(name, (name,)))
    return tuple(name for name in TARGETS if name in named) or DEFAULT_TARGETS


def bundle_files(targets: Sequence[str], layout: str = "out") -> dict[str, str]:
    """Relative path -> text of every bundle file init writes (not .gitignore)."""
    config = _text("promptc.toml").replace(MARK, _targets_tables(targets))
    if layout == "root":
        config = config.replace(OUT_LINE, ROOT_LINES)
    files = {"promptc.toml": config}
    for folder in ("specs", "fragments"):
        for path in sorted((TEMPLATES / folder).rglob("*.md")):
            files[path.relative_to(TEMPLATES).as_posix()] = path.read_text(encoding="utf-8")
    return files


def init(folder: Path, targets: Sequence[str], layout: str = "out") -> Created:
    """Write the bundle into `folder` (made if missing), or nothing when a file is in the way."""
    files = bundle_files(targets, layout)
    done = Created(refused=_refusals(folder, files))
    if done.refused:
        return done
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for rel, text in files.items():
            _create(folder / rel, text)
            done.written.append(rel)
        done.gitignore = _update_gitignore(folder / ".gitignore")
    except OSError as exc:
        for rel in done.written:  # all or nothing: no half a bundle
            (folder / rel).unlink(missing_ok=True)
        where = Path(exc.filename).as_posix() if exc.filename else folder.as_posix()
        raise PromptcError(f"cannot write {where}: {exc.strerror or exc}; nothing written") from exc
    folders = [
        (layout == "root" and TARGETS[name].STARTER.at_root) or f"build/{name}/" for name in targets
    ]
    outputs = ", ".join(folders[:-1]) + " and " * (len(folders) > 1) + folders[-1]
    steps = _text("next-steps.txt").replace(MARK, outputs)
    if folder != Path("."):  # the commands run inside the bundle
        header, rest = steps.split("\n", 1)
        steps = f"{header}\n  cd {folder.as_posix()}\n{rest}"
    done.next_steps = steps
    return done


def _targets_tables(chosen: Sequence[str]) -> str:
    """A `[targets.<name>]` table per target in the registry; those not chosen commented out."""
    lines = []
    for name, target in TARGETS.items():
        table = [f"[targets.{name}]", *target.STARTER.table.splitlines()]
        if name not in chosen:
            table = [line if line.startswith("#") else f"# {line}" for line in table]
        lines += [f"# build/{name}/, for {target.RUNTIME}", *table]
    return "\n".join(lines)


def _refusals(folder: Path, files: dict[str, str]) -> list[str]:
    if folder.exists() and not folder.is_dir():
        return [f"{folder.as_posix()}: not a folder"]
    refused = [
        f"{(folder / rel).as_posix()}: exists; not replaced"
        for rel in files
        if os.path.lexists(folder / rel)
    ]
    ignore = folder / ".gitignore"
    if os.path.lexists(ignore) and not ignore.is_file():
        refused.append(f"{ignore.as_posix()}: not a regular file")
    if _has_promptc_table(folder / "pyproject.toml"):
        refused.append(f"{(folder / 'pyproject.toml').as_posix()}: holds [tool.promptc], a config")
    return refused


def _has_promptc_table(path: Path) -> bool:
    try:
        data = tomllib_loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # no readable pyproject.toml: promptc.toml is the config
    return "promptc" in data.get("tool", {})


def _create(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # "x": fail rather than replace a file that appeared since the check. Bytes,
    # so that Windows writes LF line endings too (CRLF is an encoding warning).
    with open(path, "xb") as handle:
        handle.write(text.encode("utf-8"))


def _update_gitignore(path: Path) -> str:
    wanted = _text("gitignore")
    if not path.exists():
        _create(path, wanted)
        return "created"
    old = path.read_text(encoding="utf-8")
    present = {line.strip() for line in old.splitlines()}
    lines = [ln for ln in wanted.splitlines() if ln and not ln.startswith("#")]
    missing = [ln for ln in lines if ln not in present]
    if not missing:
        return ""
    separator = "" if old.endswith("\n") or not old else "\n"
    with open(path, "ab") as handle:
        handle.write((separator + "\n".join(["# promptc", *missing]) + "\n").encode("utf-8"))
    return "updated"


def _text(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")

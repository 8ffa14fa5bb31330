"""Which files under specs/ a bundle loads, refuses or reports, and in which order.

compiler.bundle walks the folders with os.scandir; the rule it follows is the
one `Path.rglob("*")` gives, written out below as the reference: every entry
that is not a folder, from folders reached without following a symlink, in
path order, hidden paths skipped, symlinks resolving outside refused.
"""

from __future__ import annotations

import os
from pathlib import Path

from compiler import bundle
from compiler.config import load_config
from compiler.diagnostics import Problem


def reference(
    folder: Path, root: Path
) -> tuple[list[tuple[str, Path]], list[tuple[str, Path, Problem]]]:
    """The pathlib definition the walk must match."""
    found: list[tuple[str, Path]] = []
    findings: list[tuple[str, Path, Problem]] = []
    for path in sorted(folder.rglob("*")):
        if path.is_dir() or any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if not bundle._inside(path, root.resolve()):
            findings.append(
                ("syntax", path, Problem(1, 1, "symlink points outside the project; refused"))
            )
            continue
        if path.suffix != ".md":
            findings.append(("stray-file", path, Problem(1, 1, "not a .md file; ignored")))
            continue
        found.append((path.relative_to(folder).with_suffix("").as_posix(), path))
    return found, findings


def make_tree(root: Path, outside: Path) -> Path:
    agents = root / "specs" / "agents"
    for rel in [
        "a.md",
        "a-b.md",
        "a/b.md",
        "a/c/d.md",
        "Z.md",
        "x.MD",
        "notes.txt",
        "no-suffix",
        "dots.v2.md",
        ".hidden.md",
        ".git/config.md",
        "team/.draft/x.md",
        "team/lead.md",
    ]:
        path = agents / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\ndescription: x\n---\nbody\n")
    outside.mkdir()
    (outside / "far.md").write_text("far\n")
    (outside / "sub").mkdir()
    (outside / "sub" / "inner.md").write_text("inner\n")
    (agents / "link-out.md").symlink_to(outside / "far.md")
    (agents / "link-in.md").symlink_to(agents / "a.md")
    (agents / "dangling.md").symlink_to(root / "nowhere.md")
    (agents / "folder-link").symlink_to(outside / "sub")
    (agents / "inner-folder-link").symlink_to(agents / "a")
    return agents


def test_the_walk_lists_what_rglob_lists(tmp_path: Path) -> None:
    root = tmp_path / "project"
    agents = make_tree(root, tmp_path / "outside")
    (root / "promptc.toml").write_text("")
    config = load_config(cwd=root)
    findings: list[tuple[str, Path, Problem]] = []
    walked = list(bundle._markdown_files(config, agents, findings))
    expected, expected_findings = reference(agents, root)
    assert walked == expected
    assert findings == expected_findings
    # Path order compares parts: `a/b` comes before `a-b`, which comes before `a`.
    assert [ident for ident, _ in walked] == [
        "Z", "a/b", "a/c/d", "a-b", "a", "dangling", "dots.v2", "link-in", "team/lead",
    ]  # fmt: skip
    assert {p.name for _, p, _ in findings} == {"x.MD", "notes.txt", "no-suffix", "link-out.md"}


def test_a_symlinked_specs_folder_is_judged_by_where_it_points(tmp_path: Path) -> None:
    root = tmp_path / "project"
    real = tmp_path / "elsewhere" / "agents"
    real.mkdir(parents=True)
    (real / "scout.md").write_text("---\ndescription: x\n---\nbody\n")
    (root / "specs").mkdir(parents=True)
    os.symlink(real, root / "specs" / "agents")
    (root / "promptc.toml").write_text("")
    config = load_config(cwd=root)
    findings: list[tuple[str, Path, Problem]] = []
    walked = list(bundle._markdown_files(config, root / "specs" / "agents", findings))
    expected, expected_findings = reference(root / "specs" / "agents", root)
    assert (walked, findings) == (expected, expected_findings)
    assert walked == [] and [rule for rule, _, _ in findings] == ["syntax"]

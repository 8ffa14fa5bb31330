"""Skills: discovery, composition of every markdown file, byte-exact copies, emitted trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from compiler import api
from compiler.config import load_config
from compiler.skills import emit_skill_tree, emit_skills
from tests import bundles
from tests.conftest import MakeBundle

FIXTURE = bundles.FIXTURES / "skills"
AGENT = "---\ndescription: Reads the code and reports what it found.\nmode: subagent\n---\nBody.\n"
SKILL = "---\nname: demo\ndescription: Demo skill for the tests.\n---\nUse <<frag>> well.\n"
PREFIXES = {
    "opencode": ".opencode/skills/",
    "claude": ".claude/skills/",
    "claude-plugin": "skills/",
}


class TextSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "md"


def diagnostics(root: Path) -> list[tuple[str, int, int, str]]:
    result = api.lint(load_config(cwd=root))
    return [(d.path, d.line, d.column, d.rule) for d in result.diagnostics]


def test_every_markdown_file_is_composed_and_others_copied(make_bundle: MakeBundle) -> None:
    raw = b"#!/bin/sh\r\necho \xc3\xa9\r\n"
    root = make_bundle(
        {
            "specs/agents/a.md": AGENT,
            "specs/skills/demo/SKILL.md": SKILL,
            "specs/skills/demo/roles/r/role.md": "---\nx:   'kept'  # as is\n---\nRole <<frag>>\n",
            "specs/skills/demo/scripts/run.sh": raw,
            "fragments/frag.md": "FRAG",
        }
    )
    result = api.build(load_config(cwd=root))
    assert result.ok, result.diagnostics
    out = root / "build/opencode/.opencode/skills/demo"
    assert (out / "SKILL.md").read_text() == (
        "---\nname: demo\ndescription: Demo skill for the tests.\n---\nUse FRAG well.\n"
    )
    assert (out / "roles/r/role.md").read_text() == "---\nx:   'kept'  # as is\n---\nRole FRAG\n"
    assert (out / "scripts/run.sh").read_bytes() == raw


def test_markdown_without_placeholders_comes_out_byte_for_byte() -> None:
    project = bundles.project(FIXTURE, "opencode")
    skill = project.skills["team-flow"]
    rel = "roles/coder/commands/verbatim.md"
    source = (FIXTURE / "specs/skills/team-flow" / rel).read_text()
    assert emit_skill_tree(project, skill, "x/")[f"x/team-flow/{rel}"] == source


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # A folder without SKILL.md, and a loose file, are stray, never silently skipped.
        ({"specs/skills/empty/notes.md": "x\n"}, [("specs/skills/empty", 1, 1, "stray-file")]),
        ({"specs/skills/loose.md": "x\n"}, [("specs/skills/loose.md", 1, 1, "stray-file")]),
        # Binary files are refused.
        (
            {"specs/skills/demo/SKILL.md": SKILL, "specs/skills/demo/logo.png": b"\x89PNG\x00"},
            [("specs/skills/demo/logo.png", 1, 1, "syntax")],
        ),
        # SKILL.md without frontmatter, without description, with a bad name.
        (
            {"specs/skills/demo/SKILL.md": "Body\n"},
            [("specs/skills/demo/SKILL.md", 1, 1, "schema")],
        ),
        (
            {"specs/skills/demo/SKILL.md": "---\nname: demo\n---\nBody\n"},
            [("specs/skills/demo/SKILL.md", 1, 1, "schema")],
        ),
        (
            {"specs/skills/demo/SKILL.md": "---\nname: Demo--x\ndescription: Demo.\n---\nB\n"},
            [
                ("specs/skills/demo/SKILL.md", 2, 7, "schema"),
                ("specs/skills/demo/SKILL.md", 2, 7, "skill-name"),
            ],
        ),
        # metadata values are strings in the Agent Skills format.
        (
            {
                "specs/skills/demo/SKILL.md": (
                    "---\nname: demo\ndescription: Demo.\nmetadata:\n  levels: [a, b]\n---\nB\n"
                )
            },
            [("specs/skills/demo/SKILL.md", 5, 3, "schema")],
        ),
        # A fragment error inside a supporting file is reported there.
        (
            {"specs/skills/demo/SKILL.md": SKILL, "specs/skills/demo/x.md": "<<nope>>\n"},
            [("specs/skills/demo/x.md", 1, 1, "compose")],
        ),
    ],
)
def test_bad_skill_trees(
    make_bundle: MakeBundle,
    files: dict[str, str | bytes],
    expected: list[tuple[str, int, int, str]],
) -> None:
    root = make_bundle({"specs/agents/a.md": AGENT, "fragments/frag.md": "F", **files})
    found = [d for d in diagnostics(root) if d[3] not in ("dangerous-allow", "unused-fragment")]
    assert found == expected
    # stray-file is a warning (the folder is not a skill); every other finding blocks output.
    blocking = any(rule != "stray-file" for *_, rule in found)
    assert bool(api.build(load_config(cwd=root)).written) is not blocking


def test_symlink_out_of_the_project_is_refused(make_bundle: MakeBundle, tmp_path: Path) -> None:
    secret = tmp_path.parent / f"{tmp_path.name}-secret.txt"
    secret.write_text("secret\n")
    root = make_bundle({"specs/agents/a.md": AGENT, "specs/skills/demo/SKILL.md": SKILL})
    (root / "fragments").mkdir(exist_ok=True)
    (root / "fragments/frag.md").write_text("F")
    os.symlink(secret, root / "specs/skills/demo/leak.txt")
    assert ("specs/skills/demo/leak.txt", 1, 1, "syntax") in diagnostics(root)
    result = api.build(load_config(cwd=root))
    assert not result.ok
    assert not any("leak" in rel for rel in result.files)


def test_every_target_folder_gets_the_same_tree() -> None:
    trees = {}
    for target, prefix in PREFIXES.items():
        files = emit_skills(bundles.project(FIXTURE, target), prefix)
        trees[target] = {rel.removeprefix(prefix): text for rel, text in files.items()}
    assert trees["opencode"] == trees["claude"] == trees["claude-plugin"]
    assert sorted(trees["opencode"]) == [
        "review-notes/SKILL.md",
        "team-flow/SKILL.md",
        "team-flow/roles/coder/commands/verbatim.md",
        "team-flow/roles/coder/role.md",
        "team-flow/roles/planner/commands/plan.md",
        "team-flow/roles/planner/role.md",
        "team-flow/scripts/show-task.sh",
    ]


def test_target_override_and_promptc_keys(make_bundle: MakeBundle) -> None:
    front = (
        "---\nmetadata:\n  a: b\ndescription: Demo.\nname: demo\n"
        "targets:\n  claude:\n    disable-model-invocation: true\n---\nB\n"
    )
    root = make_bundle({"specs/agents/a.md": AGENT, "specs/skills/demo/SKILL.md": front})
    for target, extra in (("opencode", ""), ("claude", "disable-model-invocation: true\n")):
        project = bundles.project(root, target)
        text = emit_skill_tree(project, project.skills["demo"], "")["demo/SKILL.md"]
        assert text == f"---\nname: demo\ndescription: Demo.\nmetadata:\n  a: b\n{extra}---\nB\n"


def tree_cases() -> list[object]:
    files = emit_skills(bundles.project(FIXTURE, "opencode"), "")
    return [pytest.param(rel, id=rel.replace("/", ".")) for rel in sorted(files)]


@pytest.mark.parametrize("rel", tree_cases())
def test_emitted_skill_tree_snapshot(rel: str, snapshot: SnapshotAssertion) -> None:
    files = emit_skills(bundles.project(FIXTURE, "opencode"), "")
    assert files[rel] == snapshot(extension_class=TextSnapshot)

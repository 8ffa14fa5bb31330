"""The OpenCode target: key order, quoting, permission order, overrides, commands, snapshots.

Every emitted file of tests/fixtures/team (a team of real shape) and of
tests/fixtures/opencode (a bundle of awkward values) is compared with a
snapshot, one file each, and parsed back with PyYAML to the data promptc meant
to write.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from promptc_compiler.permissions import runtime
from promptc_compiler.runtimes.opencode import target as opencode
from promptc_compiler.runtimes.skills import skill_frontmatter
from tests import bundles, snapshots
from tests.conftest import MakeBundle, Run

FIXTURE = bundles.FIXTURES / "opencode"
BUNDLES = {"team": bundles.TEAM, "fixture": FIXTURE}


def split(text: str) -> tuple[Any, str]:
    """(frontmatter read by PyYAML, body) of an emitted markdown file."""
    assert text.startswith("---\n")
    front, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(front + "\n"), body


def ordered(value: Any) -> Any:
    """Data with every mapping's key order made visible, so comparisons check order too."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


@functools.cache
def emitted(bundle: str) -> dict[str, str]:
    """Every file the OpenCode target emits for a bundle (rendered once per session)."""
    return {rel: data.decode() for rel, data in bundles.render(BUNDLES[bundle], "opencode").items()}


@pytest.fixture
def fixture_files() -> dict[str, str]:
    return emitted("fixture")


# --- frontmatter: order, overrides, omitted keys ------------------------------------------


def test_known_keys_come_in_the_documented_order(fixture_files: dict[str, str]) -> None:
    # lead.md lists its keys in reverse; the output order is AGENT_KEYS.
    front, _ = split(fixture_files[".opencode/agents/lead.md"])
    assert list(front) == list(runtime.AGENT_KEYS)


def test_other_keys_follow_in_source_order(fixture_files: dict[str, str]) -> None:
    front, _ = split(fixture_files[".opencode/agents/passthrough.md"])
    assert list(front) == ["description", "mode", "reasoningEffort", "textVerbosity"]


def test_opencode_override_wins_and_other_targets_never_leak(
    fixture_files: dict[str, str],
) -> None:
    text = fixture_files[".opencode/agents/lead.md"]
    front, _ = split(text)
    assert front["temperature"] == 0.2  # targets.opencode.temperature over 0.7
    assert (front["model"], front["color"]) == ("anthropic/claude-sonnet-4-5", "#FF5733")
    assert "targets" not in text
    assert "sonnet\n" not in text
    assert "blue" not in text


def test_name_and_prompt_are_not_emitted(make_bundle: MakeBundle) -> None:
    root = make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/scout.md": """\
                ---
                name: other-name
                description: Explores the codebase read-only and reports findings.
                prompt: replaced by the body anyway
                mode: subagent
                ---
                Body.
                """,
        }
    )
    text = bundles.render(root, "opencode")[".opencode/agents/scout.md"].decode()
    assert text == (
        "---\n"
        "description: Explores the codebase read-only and reports findings.\n"
        "mode: subagent\n"
        "---\n"
        "Body.\n"
    )


# --- quoting --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "line"),
    [
        ("agents/lead.md", '  "*": deny'),
        ("agents/lead.md", '    "src/**": allow'),
        ("agents/lead.md", '    "git push*": ask'),
        ("agents/lead.md", "    team/reviewer: allow"),
        ("agents/lead.md", '  "mymcp_*": deny'),
        ("agents/lead.md", 'color: "#FF5733"'),
        (
            "agents/lead.md",
            'description: "Líder del equipo: planifica, delega y revisa # sin atajos"',
        ),
        ("agents/lead.md", "temperature: 0.2"),
        ("agents/lead.md", "hidden: false"),
        ("agents/lead.md", "    budgetTokens: 8000"),
        (
            "agents/team/reviewer.md",
            'description: "@team/reviewer revisa diffs: busca bugs y pruebas que faltan."',
        ),
        ("agents/team/reviewer.md", "temperature: 0"),
        ("agents/team/reviewer.md", '    "~/notas/*": allow'),
        (
            "agents/yolo.md",
            'description: "[experimental] agente sin restricciones para pruebas locales"',
        ),
        ("agents/yolo.md", "permission: allow"),
        (
            "agents/quoting.md",
            'description: "!important: primera línea con acentos (ñ, á, ü).\\n'
            'Segunda línea: `código` y \\"comillas\\" # no es comentario\\n"',
        ),
        ("agents/quoting.md", "color: accent"),
        ("agents/retired.md", "disable: true"),
        ("commands/build.md", 'description: "Construye: planifica e implementa $ARGUMENTS"'),
        ("commands/review.md", "subtask: true"),
    ],
)
def test_values_are_quoted_where_yaml_needs_it(
    fixture_files: dict[str, str], rel: str, line: str
) -> None:
    assert line in fixture_files[f".opencode/{rel}"].splitlines()


# --- round trip -----------------------------------------------------------------------------


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Both tests over every emitted file take the snapshot test's cases: read from
    the snapshot files, not rendered in every worker (tests/snapshots.py)."""
    if metafunc.definition.name == SNAPSHOT_TEST:
        ids = snapshot_ids(metafunc.config)
        metafunc.parametrize("case", ids, ids=ids)
    elif metafunc.definition.name == "test_emitted_markdown_reads_back_as_intended":
        # The JSON config is the one file that is not markdown.
        ids = [case for case in snapshot_ids(metafunc.config) if not case.endswith("-opencode")]
        metafunc.parametrize("case", ids, ids=ids)


def test_emitted_markdown_reads_back_as_intended(case: str) -> None:
    bundle, rel = emitted_file(case)
    project = bundles.project(BUNDLES[bundle], "opencode")
    kind, ident = rel.removeprefix(".opencode/").split("/", 1)
    ident = ident.removesuffix(".md")
    if kind == "skills":
        skill = project.skills[ident.split("/", 1)[0]]
        if not ident.endswith("/SKILL"):  # supporting files: covered in tests/test_skills.py
            return
        spec, intended = skill.spec, skill_frontmatter(skill, "opencode")
    elif kind == "agents":
        spec, intended = project.agents[ident], runtime.agent_frontmatter(project.agents[ident])
    else:
        spec, intended = project.modes[ident], opencode.command_frontmatter(project.modes[ident])
    front, body = split(emitted(bundle)[rel])
    assert ordered(front or {}) == ordered(intended)
    assert body == spec.body


def test_permission_maps_keep_source_order(fixture_files: dict[str, str]) -> None:
    front, _ = split(fixture_files[".opencode/agents/lead.md"])
    rules = [
        (key, pattern)
        for key, value in front["permission"].items()
        for pattern in (value if isinstance(value, dict) else {"*": value})
    ]
    assert rules == [
        ("*", "*"),
        ("read", "*"),
        ("edit", "*"),
        ("edit", "src/**"),
        ("edit", "*.lock"),
        ("bash", "*"),
        ("bash", "git status*"),
        ("bash", "git diff*"),
        ("bash", "git push*"),
        ("task", "*"),
        ("task", "team/reviewer"),
        ("task", "quoting"),
        ("plan_db", "*"),
        ("mymcp_*", "*"),
        ("webfetch", "*"),
        ("doom_loop", "*"),
    ]


# --- commands and opencode.json -------------------------------------------------------------


def test_commands_carry_only_command_keys_and_the_body_verbatim(
    fixture_files: dict[str, str],
) -> None:
    assert fixture_files[".opencode/commands/review.md"] == (
        "---\n"
        "description: Revisa los cambios pendientes con el revisor del equipo.\n"
        "agent: team/reviewer\n"
        "subtask: true\n"
        "---\n"
        "Revisa: $ARGUMENTS\n"
        "Plantillas intactas: {{injected_rules}} y ${{ runner.os }}.\n"
    )
    assert fixture_files[".opencode/commands/build.md"].endswith(
        "---\nPedido: $ARGUMENTS\n\nEstado: !`git status --short`\nContexto: @README.md\n"
    )


def test_opencode_json_names_the_default_agent(fixture_files: dict[str, str]) -> None:
    assert fixture_files["opencode.json"] == (
        '{\n  "$schema": "https://opencode.ai/config.json",\n  "default_agent": "lead"\n}\n'
    )


def test_opencode_json_without_a_default_agent(make_bundle: MakeBundle) -> None:
    root = make_bundle({"promptc.toml": ""})
    assert bundles.render(root, "opencode") == {
        "opencode.json": b'{\n  "$schema": "https://opencode.ai/config.json"\n}\n'
    }


# --- removing an agent ----------------------------------------------------------------------


def test_removing_an_agent_removes_its_file_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Callable[..., Run]
) -> None:
    root = tmp_path / "bundle"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    assert run("build").code == 0
    out = root / "build" / "opencode"

    def state() -> dict[str, tuple[bytes, int]]:
        return {
            p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*"))
            if p.is_file()
        }

    for path in out.rglob("*"):  # old mtimes: any rewrite would show
        if path.is_file():
            os.utime(path, ns=(1, 1))
    before = state()
    (root / "specs/agents/yolo.md").unlink()
    result = run("build")
    assert result.code == 0, result.out
    after = state()
    assert ".opencode/agents/yolo.md" in before
    assert after == {rel: v for rel, v in before.items() if rel != ".opencode/agents/yolo.md"}


# --- snapshots: one file per emitted file ---------------------------------------------------


class MarkdownSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "md"


class JsonSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "json"


def snapshot_files() -> dict[str, tuple[str, str]]:
    """{case id: (bundle, emitted file)} for every file the two bundles emit."""
    cases = {}
    for name in BUNDLES:
        for rel in emitted(name):
            label = rel.removeprefix(".opencode/").rsplit(".", 1)[0].replace("/", ".")
            cases[f"{name}-{label}"] = (name, rel)
    return cases


SNAPSHOT_TEST = "test_emitted_file_matches_snapshot"


def snapshot_ids(config: pytest.Config) -> list[str]:
    """The snapshot test's cases, named without rendering (tests/snapshots.py says why)."""
    return snapshots.case_ids(config, __file__, SNAPSHOT_TEST, snapshot_files)


def test_every_emitted_file_has_a_snapshot_and_every_snapshot_a_file(
    request: pytest.FixtureRequest,
) -> None:
    # A file emitted with no snapshot, or a snapshot of no emitted file: the
    # snapshot test's cases come from the snapshot files (tests/snapshots.py).
    assert sorted(snapshot_files()) == snapshot_ids(request.config), "pytest --snapshot-update"


def emitted_file(case: str) -> tuple[str, str]:
    """(bundle, emitted file) of a snapshot case."""
    files = snapshot_files()
    assert case in files, f"no longer emitted: `pytest --snapshot-update` deletes {case}'s snapshot"
    return files[case]


def test_emitted_file_matches_snapshot(case: str, snapshot: SnapshotAssertion) -> None:
    bundle, rel = emitted_file(case)
    extension = JsonSnapshot if rel.endswith(".json") else MarkdownSnapshot
    assert emitted(bundle)[rel] == snapshot(extension_class=extension)

"""The Claude Code targets: agent and command files, settings, the plugin, the rules, snapshots.

tests/fixtures/claude is a bundle of tricky cases (a primary with a task
allow-list, bash maps that differ per agent, a config-level deny, a custom
tool, unmapped models, a subfolder id, forked and main-thread commands);
tests/fixtures/opencode adds a `default_agent` and awkward values;
tests/fixtures/team is a team of real shape. Every emitted file of the team
and of the fixture is compared with a snapshot, one file each.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from promptc_compiler.runtimes.claude import agents as claude_agents
from promptc_compiler.runtimes.claude import permission_rules as claude_rules
from tests import bundles, snapshots
from tests.conftest import MakeBundle

FIXTURE = bundles.FIXTURES / "claude"
BUNDLES = {
    "team": bundles.TEAM,
    "fixture": FIXTURE,
    "opencode": bundles.FIXTURES / "opencode",
}
TARGETS = ("claude", "claude-plugin")


@functools.cache
def emitted(bundle: str, target: str) -> dict[str, str]:
    return {rel: data.decode() for rel, data in bundles.render(BUNDLES[bundle], target).items()}


def front(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    data = yaml.safe_load(text[4:].split("\n---\n", 1)[0])
    assert isinstance(data, dict)
    return data


def agent(name: str, bundle: str = "fixture") -> dict[str, Any]:
    return front(emitted(bundle, "claude")[f".claude/agents/{name}.md"])


# --- agents ---------------------------------------------------------------------------------


def test_agent_keys_come_in_the_documented_order() -> None:
    assert list(agent("craftsman")) == [
        "name",
        "description",
        "tools",
        "model",
        "color",
        "maxTurns",
    ]
    assert list(agent("foreman")) == ["name", "description", "tools", "model", "color", "effort"]


def test_a_subfolder_id_becomes_a_hyphenated_name_and_file() -> None:
    files = emitted("fixture", "claude")
    assert ".claude/agents/team-painter.md" in files
    assert agent("team-painter")["name"] == "team-painter"
    assert not any("/team/" in rel for rel in files)


def test_every_agent_has_an_explicit_tools_list() -> None:
    for bundle in BUNDLES:
        for rel, text in emitted(bundle, "claude").items():
            if rel.startswith(".claude/agents/"):
                assert isinstance(front(text)["tools"], list), rel


def test_tools_follow_the_permissions() -> None:
    assert agent("scout")["tools"] == ["Read", "Glob", "Grep", "WebSearch", "Skill", "LSP"]
    # No Glob and Grep beside Bash (Claude Code offers neither then); no hidden
    # team/painter in Agent(...) (OpenCode's task tool does not start it).
    assert agent("craftsman")["tools"] == [
        "Read",
        "Edit",
        "Write",
        "NotebookEdit",
        "Bash",
        "WebSearch",
        "Agent(scout, smith)",
        "TodoWrite",
        "AskUserQuestion",
        "Skill",
        "LSP",
    ]
    assert "Bash" not in agent("sage")["tools"]  # "*": deny with one exception
    assert "Glob" not in agent("guild")["tools"]  # glob: ask on a tool that never asks


@pytest.mark.parametrize(
    ("name", "model"),
    [("craftsman", "inherit"), ("foreman", "sonnet"), ("scout", "haiku"), ("smith", "inherit")],
)
def test_models_go_through_the_mapping_or_inherit(name: str, model: str) -> None:
    assert agent(name)["model"] == model


def test_a_claude_model_override_wins() -> None:
    assert agent("lead", "opencode")["model"] == "sonnet"


@pytest.mark.parametrize(
    ("color", "expected"),
    [
        ("#FF5733", "orange"),
        ("#ff0000", "red"),
        ("#00A000", "green"),
        ("#2040E0", "blue"),
        ("#20B2AA", "cyan"),
        ("#FFD700", "yellow"),
        ("#9932CC", "purple"),
        ("#FFB6C1", "pink"),
    ],
)
def test_hex_colours_become_the_nearest_claude_colour(color: str, expected: str) -> None:
    assert claude_agents.nearest_color(color) == expected


def test_colours_from_themes_hex_and_overrides() -> None:
    assert agent("craftsman")["color"] == "orange"  # "#FF5733"
    assert agent("foreman")["color"] == "cyan"  # targets.claude.color over success (green)
    assert agent("quoting", "opencode")["color"] == "pink"  # accent
    assert "color" not in agent("scout")


def test_steps_become_max_turns() -> None:
    assert agent("craftsman")["maxTurns"] == 60
    assert agent("quoting", "opencode")["maxTurns"] == 3


def test_refused_overrides_never_reach_the_file() -> None:
    text = emitted("fixture", "claude")[".claude/agents/foreman.md"]
    assert "permissionMode" not in text
    assert "bypassPermissions" not in text


def test_a_disabled_agent_is_not_emitted() -> None:
    assert not any("retired" in rel for rel in emitted("fixture", "claude"))


# --- commands -------------------------------------------------------------------------------


def test_a_primary_mode_runs_in_the_main_thread_with_only_allowed_shell_lines() -> None:
    assert emitted("fixture", "claude")[".claude/commands/build.md"] == (
        "---\n"
        "description: Planifica e implementa el pedido del usuario.\n"
        'argument-hint: "<request>"\n'
        "allowed-tools:\n"
        "  - Bash(git status --short)\n"
        "model: sonnet\n"
        "---\n"
        "Pedido: $ARGUMENTS\n"
        "\n"
        "Estado: !`git status --short`\n"
        "Borrado: !`rm -rf tmp`\n"
    )


def test_a_subagent_mode_forks_into_its_agent() -> None:
    assert emitted("fixture", "claude")[".claude/commands/review.md"] == (
        "---\n"
        "description: Revisa los cambios pendientes con el implementador.\n"
        'argument-hint: "[ruta]"\n'
        "allowed-tools:\n"
        "  - Bash(git diff)\n"
        "context: fork\n"
        "agent: smith\n"
        "---\n"
        "Revisa $ARGUMENTS con el diff: !`git diff`\n"
    )


def test_a_plugin_command_names_the_plugin_agent() -> None:
    text = emitted("fixture", "claude-plugin")["commands/review.md"]
    assert "\nagent: taller:smith\n" in text


# --- settings -------------------------------------------------------------------------------


def test_settings_hold_the_shared_rules() -> None:
    settings = json.loads(emitted("fixture", "claude")[".claude/settings.json"])
    # Every read-only command some agent holding Bash asks about in some spelling
    # is asked for (git log and git diff too: their allows would also run
    # `git  log` and `'git' diff`, which OpenCode asks about); no path allow
    # but the project's own (smith's `src/**` would allow `SRC/` too).
    read_only = [f"Bash({form} *)" for form in claude_rules.READ_ONLY]
    assert settings == {
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "permissions": {
            "allow": ["WebFetch"],
            "ask": ["Read(//**/*.env)", "Read(//**/*.env.*)", *read_only],
            "deny": [
                "Edit(//**/*.lock)",  # OpenCode's `*.lock` matches ../../x.lock too
                "Bash(rm *)",
                "Bash(git push*)",
                "Agent(craftsman)",
                "Agent(foreman)",
            ],
        },
    }


def test_an_edit_allow_of_every_path_holds_in_the_project_only() -> None:
    settings = json.loads(emitted("team", "claude")[".claude/settings.json"])
    assert "Edit(/**)" in settings["permissions"]["allow"]
    assert not {"Edit", "Write", "NotebookEdit"} & set(settings["permissions"]["allow"])


def test_settings_name_the_default_agent() -> None:
    settings = json.loads(emitted("opencode", "claude")[".claude/settings.json"])
    assert settings["agent"] == "lead"


# --- the plugin -----------------------------------------------------------------------------


def test_plugin_manifest_from_options() -> None:
    manifest = json.loads(emitted("fixture", "claude-plugin")[".claude-plugin/plugin.json"])
    assert manifest == {
        "name": "taller",
        "version": "1.2.0",
        "description": "Equipo de agentes de prueba para promptc",
        "author": {"name": "Equipo promptc"},
        "license": "MIT",
        "keywords": ["agents", "fixture"],
    }


def test_plugin_manifest_defaults(make_bundle: MakeBundle) -> None:
    root = make_bundle(
        {
            "promptc.toml": "[targets.claude-plugin]\n",
            "specs/agents/scout.md": "---\ndescription: Explora el código y reporta.\nmode: subagent\n---\nLee.\n",
        }
    )
    manifest = json.loads(bundles.render(root, "claude-plugin")[".claude-plugin/plugin.json"])
    assert manifest == {
        "name": "bundle",
        "version": "0.1.0",
        "description": "1 agent and 0 commands for Claude Code",
        "author": {"name": "bundle"},
    }


@pytest.mark.parametrize(
    ("folder", "name"),
    [
        ("claude", "promptc-claude"),
        ("Claude Tools", "promptc-claude-tools"),
        ("My_Team", "my-team"),
    ],
)
def test_the_default_plugin_name_is_kebab_case_and_never_reserved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, name: str
) -> None:
    root = tmp_path / folder
    (root / "specs").mkdir(parents=True)
    (root / "promptc.toml").write_text("")
    monkeypatch.chdir(root)
    assert claude_agents.plugin_name(bundles.project(root, "claude"), {}) == name


def test_plugin_readme_lists_agents_commands_and_what_a_plugin_cannot_hold() -> None:
    readme = emitted("fixture", "claude-plugin")["README.md"]
    assert "- `taller:team-painter`: Diseño de UI y UX; solo alcanzable vía craftsman." in readme
    assert "- `/taller:review`: Revisa los cambios pendientes con el implementador." in readme
    assert "has no Bash or Read here" in readme
    assert "```json" not in readme  # no settings to copy: they would not hold for it
    assert len(readme.split()) >= 40  # the plugin directory's minimum


def _namespaced(text: str, plugin: str) -> str:
    """A `.claude` file as the plugin carries it: agent references get the plugin prefix."""

    def spawn(match: re.Match[str]) -> str:
        names = ", ".join(f"{plugin}:{n}" for n in match[1].split(", "))
        return f"  - Agent({names})"

    text = re.sub(r"^  - Agent\((.*)\)$", spawn, text, flags=re.MULTILINE)
    return re.sub(r"^agent: (.*)$", rf"agent: {plugin}:\1", text, flags=re.MULTILINE)


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_the_plugin_carries_the_claude_layout_s_files_with_fewer_tools(bundle: str) -> None:
    # A plugin has no settings, so its agents keep only some of the tools (and
    # Glob and Grep where they lose Bash: Claude Code offers them only then).
    layout = emitted(bundle, "claude")
    plugin = emitted(bundle, "claude-plugin")
    name = json.loads(plugin[".claude-plugin/plugin.json"])["name"]
    ours = {rel.removeprefix(".claude/"): text for rel, text in layout.items()}
    theirs = {rel: text for rel, text in plugin.items() if rel.startswith(("agents/", "commands/"))}
    assert set(theirs) == {rel for rel in ours if rel.startswith(("agents/", "commands/"))}
    for rel, text in theirs.items():
        expected = _namespaced(ours[rel], name)
        if rel.startswith("commands/"):
            assert text == expected, rel
            continue
        mine, wanted = front(text), front(expected)
        assert set(mine.pop("tools")) - {"Glob", "Grep"} <= set(wanted.pop("tools")), rel
        assert (mine, text.split("\n---\n", 1)[1]) == (wanted, expected.split("\n---\n", 1)[1])


# --- snapshots: one file per emitted file ---------------------------------------------------


class MarkdownSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "md"


class JsonSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "json"


def snapshot_files() -> dict[str, tuple[str, str, str]]:
    """{case id: (bundle, target, emitted file)} for every file the two bundles emit."""
    cases = {}
    for bundle in ("team", "fixture"):
        for target in TARGETS:
            for rel in emitted(bundle, target):
                label = rel.removeprefix(".").rsplit(".", 1)[0].replace("/", ".")
                cases[f"{bundle}-{target}-{label}"] = (bundle, target, rel)
    return cases


SNAPSHOT_TEST = "test_emitted_file_matches_snapshot"


def snapshot_ids(config: pytest.Config) -> list[str]:
    """The snapshot test's cases, named without rendering (tests/snapshots.py says why)."""
    return snapshots.case_ids(config, __file__, SNAPSHOT_TEST, snapshot_files)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.name == SNAPSHOT_TEST:
        ids = snapshot_ids(metafunc.config)
        metafunc.parametrize("case", ids, ids=ids)


def test_every_emitted_file_has_a_snapshot_and_every_snapshot_a_file(
    request: pytest.FixtureRequest,
) -> None:
    # A file emitted with no snapshot, or a snapshot of no emitted file: the
    # snapshot test's cases come from the snapshot files (tests/snapshots.py).
    assert sorted(snapshot_files()) == snapshot_ids(request.config), "pytest --snapshot-update"


def test_emitted_file_matches_snapshot(case: str, snapshot: SnapshotAssertion) -> None:
    files = snapshot_files()
    assert case in files, f"no longer emitted: `pytest --snapshot-update` deletes {case}'s snapshot"
    bundle, target, rel = files[case]
    extension = JsonSnapshot if rel.endswith(".json") else MarkdownSnapshot
    assert emitted(bundle, target)[rel] == snapshot(extension_class=extension)

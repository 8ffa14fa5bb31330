"""`layout = "root"`: every target's files at the project root, where each runtime reads
them, in a project that holds files of its own (docs/reference/output.md)."""

from __future__ import annotations

import json
import re
import textwrap
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.core.merge import MergeError, merge, strip
from tests.conftest import MakeBundle, Run

Runner = Callable[..., Run]

SCOUT = """\
    ---
    description: Reads the code and answers questions about it.
    mode: subagent
    permission:
      edit: deny
      bash:
        "*": ask
        "git status*": allow
    ---
    You explore the code base and report what you find.
    """
LEAD = """\
    ---
    description: Plans the work and hands it to scout.
    mode: primary
    permission:
      bash:
        "*": ask
      task:
        "*": deny
        scout: allow
    ---
    You plan the work.
    """
CONFIG = """\
    layout = "root"
    default_agent = "lead"

    [targets.opencode]
    [targets.claude]
    [targets.claude-plugin]
    [targets.codex]
    accept_wider = ["edit"]
    [targets.gemini]
    [targets.copilot]
    """
# The project's own files, each with keys promptc must keep byte for byte.
USER_OPENCODE = """\
    {
      "$schema": "https://opencode.ai/config.json",
      "mcp": {
        "docs": { "type": "local", "command": ["npx", "docs-mcp"] }
      },
      "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "x"}}}
    }
    """
USER_SETTINGS = """\
    {
      "env": {"FOO": "1"},
      "permissions": {
        "defaultMode": "default"
      }
    }
    """
USER_CODEX = """\
    model = "gpt-5.5"   # the team's model

    [mcp_servers.docs]
    command = "npx"
    args = ["docs-mcp"]
    """
OWN_AGENT = "---\nname: own\ndescription: the project's own agent\n---\nHello.\n"


@pytest.fixture
def project(make_bundle: MakeBundle) -> Path:
    return make_bundle(
        {
            "promptc.toml": CONFIG,
            "specs/agents/scout.md": SCOUT,
            "specs/agents/lead.md": LEAD,
            "opencode.json": USER_OPENCODE,
            ".claude/settings.json": USER_SETTINGS,
            ".codex/config.toml": USER_CODEX,
            ".github/agents/own.agent.md": OWN_AGENT,
        }
    )


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".promptc-cache" not in p.parts
    }


def test_every_runtime_reads_its_files_from_the_project_root(project: Path, run: Runner) -> None:
    result = run("build")
    assert result.code == 0, result.out + result.err
    files = set(tree(project))
    for rel in (
        ".opencode/agents/scout.md",
        ".opencode/agents/lead.md",
        ".claude/agents/scout.md",
        ".codex/agents/scout.toml",
        ".codex/rules/promptc.rules",
        ".github/agents/scout.agent.md",
        # What no runtime reads from a project stays in a folder of its own.
        "build/claude/TRANSLATION.md",
        "build/codex/TRANSLATION.md",
        "build/claude-plugin/.claude-plugin/plugin.json",
        "build/gemini/gemini-extension.json",
        "build/gemini/policies/promptc.toml",
    ):
        assert rel in files, rel
    assert not any(rel.startswith(("build/opencode/", "opencode/", ".gemini/")) for rel in files)


def test_the_projects_own_keys_stay_byte_for_byte(project: Path, run: Runner) -> None:
    before = tree(project)
    assert run("build").code == 0
    opencode = (project / "opencode.json").read_text()
    # The user's members, as they were written, and promptc's key after them.
    assert '"mcp": {\n    "docs": { "type": "local", "command": ["npx", "docs-mcp"] }\n  }' in (
        opencode
    )
    assert '"provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL"' in (
        opencode
    )
    assert json.loads(opencode)["default_agent"] == "lead"
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert settings["env"] == {"FOO": "1"}
    assert settings["permissions"]["defaultMode"] == "default"
    assert settings["permissions"]["deny"] or settings["permissions"]["ask"]
    codex = (project / ".codex/config.toml").read_text()
    assert codex.startswith('model = "gpt-5.5"   # the team\'s model\n')
    assert '[mcp_servers.docs]\ncommand = "npx"\nargs = ["docs-mcp"]\n' in codex
    assert tomllib.loads(codex)["sandbox_mode"] == "workspace-write"
    assert (project / ".github/agents/own.agent.md").read_bytes() == before[
        ".github/agents/own.agent.md"
    ]
    manifest = json.loads((project / ".promptc-manifest.json").read_text())
    assert ".github/agents/own.agent.md" not in manifest["files"]
    assert set(manifest["keys"]) == {"opencode.json", ".claude/settings.json", ".codex/config.toml"}


def test_a_shared_file_keeps_its_permission_bits(project: Path, run: Runner) -> None:
    settings = project / ".claude/settings.json"
    settings.chmod(0o600)
    assert run("build").code == 0
    assert settings.stat().st_mode & 0o777 == 0o600
    assert "permissions" in json.loads(settings.read_text())


def test_a_second_build_changes_nothing_and_check_finds_no_drift(
    project: Path, run: Runner
) -> None:
    assert run("build").code == 0
    first = tree(project)
    again = run("build")
    assert again.code == 0
    assert "wrote" not in again.err
    assert tree(project) == first
    checked = run("check")
    assert checked.code == 0, checked.out
    assert "stale-output" not in checked.out
    assert "unmanaged-file" not in checked.out


def test_editing_the_projects_own_keys_is_not_drift(project: Path, run: Runner) -> None:
    assert run("build").code == 0
    path = project / "opencode.json"
    path.write_text(path.read_text().replace("docs-mcp", "docs-mcp@2"))
    codex = project / ".codex/config.toml"
    codex.write_text(codex.read_text().replace("gpt-5.5", "gpt-5.4"))
    edited = tree(project)
    assert run("check").code == 0
    assert run("build").code == 0
    assert tree(project) == edited


def test_a_managed_key_edited_by_hand_is_drift_and_is_kept(project: Path, run: Runner) -> None:
    assert run("build").code == 0
    path = project / "opencode.json"
    path.write_text(path.read_text().replace('"default_agent": "lead"', '"default_agent": "x"'))
    edited = path.read_bytes()
    checked = run("check")
    assert checked.code == 1
    line = path.read_text().splitlines().index('  "default_agent": "x"') + 1
    assert f"opencode.json:{line}:3: error [stale-output] `default_agent`" in checked.out
    built = run("build")
    assert built.code == 1
    assert "edited by hand" in built.out
    assert path.read_bytes() == edited
    assert run("build", "--force").code == 0
    assert json.loads(path.read_text())["default_agent"] == "lead"


def test_a_project_key_promptc_would_manage_is_not_taken_without_force(
    project: Path, run: Runner
) -> None:
    path = project / ".claude/settings.json"
    path.write_text('{"permissions": {"allow": ["Bash(make *)"]}}\n')
    built = run("build")
    assert built.code == 1
    assert ".claude/settings.json:1:18: error [write] `permissions.allow` is the project's own" in (
        built.out
    )
    assert path.read_text() == '{"permissions": {"allow": ["Bash(make *)"]}}\n'
    assert not (project / ".opencode").exists()  # nothing written at all


def test_a_shared_file_that_does_not_parse_is_an_error_at_its_place(
    project: Path, run: Runner
) -> None:
    # A missing value: every Python from 3.11 reports it at the same place
    # (3.13 words a trailing comma differently from 3.11 and 3.12).
    (project / "opencode.json").write_text('{\n  "mcp": {},\n  "x": ,\n}\n')
    built = run("build")
    assert built.code == 1
    assert "opencode.json:3:8: error [write] invalid JSON" in built.out
    assert not (project / ".opencode").exists()
    (project / "opencode.json").write_text("{}\n")
    (project / ".codex/config.toml").write_text('model = "a"\nmodel = "b"\n')
    built = run("build")
    assert built.code == 1
    assert ".codex/config.toml:2:" in built.out
    assert "invalid TOML" in built.out


def test_a_value_too_large_or_deep_to_write_back_is_an_error_at_its_place(
    project: Path, run: Runner
) -> None:
    """A merge writes every value of the user's file back: a JSON number of
    5,000 digits (json.loads refuses it), a TOML integer past 64 bits (tomllib
    reads it; Python cannot write it in decimal) and TOML nested 900 deep were
    internal errors."""
    digits = "9" * 5000
    (project / "opencode.json").write_text(f'{{"a": "{digits}",\n  "b": {digits}}}\n')
    built = run("build")
    assert (built.code, "internal error" in built.err) == (1, False)
    message = "invalid JSON: a number of 5,000 digits; promptc reads up to 4,300"
    assert f"opencode.json:2:8: error [write] {message}" in built.out
    (project / "opencode.json").write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    built = run("build")  # json.loads's RecursionError, at the bracket past 64 levels
    assert (built.code, "internal error" in built.err) == (1, False)
    assert "opencode.json:1:70: error [write] invalid JSON: nested deeper than 64" in built.out
    (project / "opencode.json").write_text("{}\n")
    (project / ".codex/config.toml").write_text('model = "a"\nbig = 0x' + "f" * 5000 + "\n")
    built = run("build")
    assert (built.code, "internal error" in built.err) == (1, False)
    assert ".codex/config.toml:2:1: error [write] integer out of TOML's range" in built.out
    # Nesting that tomllib itself stops at (a RecursionError), and that it reads.
    for depth, where in ((900, "2:69"), (100, "2:1")):
        deep = "[" * depth + "]" * depth
        (project / ".codex/config.toml").write_text(f'model = "a"\nx = {deep}\n')
        built = run("build")
        assert (built.code, "internal error" in built.err) == (1, False)
        assert f".codex/config.toml:{where}: error [write] " in built.out
        assert "nested deeper than 64 levels" in built.out
    assert not (project / ".opencode").exists()


def test_removing_an_agent_removes_only_its_generated_files(project: Path, run: Runner) -> None:
    assert run("build").code == 0
    (project / "specs/agents/scout.md").unlink()
    lead = project / "specs/agents/lead.md"
    lead.write_text(lead.read_text().replace("    scout: allow\n", ""))
    before = tree(project)
    assert run("build").code == 0
    after = tree(project)
    gone = set(before) - set(after)
    assert gone
    assert all("scout" in rel for rel in gone)
    assert ".github/agents/own.agent.md" in after
    codex = tomllib.loads(after[".codex/config.toml"].decode())
    assert "scout" not in codex["agents"]
    assert codex["model"] == "gpt-5.5"


def test_a_target_no_longer_built_leaves_only_the_projects_keys(project: Path, run: Runner) -> None:
    assert run("build").code == 0
    config = project / "promptc.toml"
    config.write_text(config.read_text().replace('[targets.codex]\naccept_wider = ["edit"]\n', ""))
    assert run("build").code == 0
    assert not (project / ".codex/agents").exists()
    assert (project / ".codex/config.toml").read_text() == textwrap.dedent(USER_CODEX)


def test_a_shared_file_promptc_made_goes_with_its_target(
    make_bundle: MakeBundle, run: Runner
) -> None:
    root = make_bundle(
        {
            "promptc.toml": 'layout = "root"\ndefault_agent = "lead"\n[targets.opencode]\n',
            "specs/agents/lead.md": LEAD,
            "specs/agents/scout.md": SCOUT,
        }
    )
    assert run("build").code == 0
    assert json.loads((root / "opencode.json").read_text())["default_agent"] == "lead"
    (root / "promptc.toml").write_text('layout = "root"\n[targets.claude]\n')
    assert run("build").code == 0
    assert not (root / "opencode.json").exists()
    assert not (root / ".opencode").exists()


def test_a_projects_own_shared_file_stays_when_its_target_goes(
    make_bundle: MakeBundle, run: Runner
) -> None:
    own = '{"$schema": "https://opencode.ai/config.json"}\n'
    root = make_bundle(
        {
            "promptc.toml": 'layout = "root"\ndefault_agent = "lead"\n[targets.opencode]\n',
            "specs/agents/lead.md": LEAD,
            "specs/agents/scout.md": SCOUT,
            "opencode.json": own,
        }
    )
    assert run("build").code == 0
    assert json.loads((root / "opencode.json").read_text())["default_agent"] == "lead"
    (root / "promptc.toml").write_text('layout = "root"\n[targets.claude]\n')
    assert run("build").code == 0
    assert (root / "opencode.json").read_text() == own


def test_a_build_of_one_target_keeps_the_others(project: Path, run: Runner) -> None:
    assert run("build").code == 0
    before = tree(project)
    assert run("build", "--target", "claude").code == 0
    assert tree(project) == before
    assert run("build", "--check", "--target", "codex").code == 0


def test_never_writes_in_the_sources_or_through_a_symlink(
    make_bundle: MakeBundle, run: Runner, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = make_bundle(
        {"promptc.toml": 'layout = "root"\n[targets.claude]\n', "specs/agents/scout.md": SCOUT}
    )
    (root / ".claude").symlink_to(outside)
    built = run("build")
    assert built.code == 1
    assert "symlink" in built.out
    assert list(outside.iterdir()) == []


@pytest.mark.usefixtures("project")
def test_two_targets_writing_one_path_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from promptc_compiler.runtimes.copilot import target as copilot

    # Copilot reads `.claude/agents/` too: a target that wrote there would collide.
    monkeypatch.setattr(copilot, "ROOT", re.compile(r"\.claude/.+|\.github/.+"))
    original = copilot.files

    def colliding(project_: object, options: object) -> object:
        yield ".claude/agents/scout.md", "x"
        yield from original(project_, options)  # type: ignore[arg-type]

    monkeypatch.setattr(copilot, "files", colliding)
    with pytest.raises(Exception, match="targets `claude` and `copilot` both write"):
        api.build(load_config())


def test_the_default_layout_is_unchanged(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle({"promptc.toml": "[targets.claude]\n", "specs/agents/scout.md": SCOUT})
    assert run("build").code == 0
    assert (root / "build/claude/.claude/agents/scout.md").is_file()
    assert "keys" not in json.loads((root / "build/.promptc-manifest.json").read_text())


# --- promptc_compiler.core.merge on its own ------------------------------------------------------------


def test_merge_keeps_every_other_byte_and_strip_gives_the_file_back() -> None:
    user = b'{\n  "a": [1,2],\n  "b": {"c": true}\n}\n'
    generated = b'{"$schema": "s", "permission": {"bash": "ask"}, "default_agent": "x"}'
    merged = merge("opencode.json", user, generated, (), None)
    text = merged.content.decode()
    assert text.startswith('{\n  "a": [1,2],\n  "b": {"c": true},\n  "permission": {')
    assert "$schema" not in text  # a project's file keeps its own
    assert strip("opencode.json", merged.content, merged.digests) == user
    assert merge("opencode.json", merged.content, generated, (), merged.digests) == merged


def test_merge_refuses_a_value_it_cannot_edit_in_place() -> None:
    user = b"[features]\nview_image = [\n  true,\n]\n"
    with pytest.raises(MergeError):
        merge("config.toml", user, b"[features]\nview_image = false\n", (), None, force=True)


# --- the real runtime ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.conformance
def test_opencode_loads_the_root_layout_and_keeps_the_projects_mcp(
    project: Path, run: Runner, tmp_path: Path
) -> None:
    from tests.oracle import run as runtime

    assert run("build").code == 0
    home = tmp_path / "home"
    home.mkdir()
    listed = runtime("opencode", ["agent", "list"], project, home=home)
    assert listed.returncode == 0, listed.stderr
    assert "lead (primary)" in listed.stdout
    assert "scout (subagent)" in listed.stdout
    config = runtime("opencode", ["debug", "config"], project, home=home)
    assert config.returncode == 0, config.stderr
    loaded = json.loads(config.stdout)
    assert loaded["mcp"]["docs"]["command"] == ["npx", "docs-mcp"]
    assert loaded["default_agent"] == "lead"


@pytest.mark.slow
@pytest.mark.conformance
def test_codex_loads_the_merged_config_and_the_roles_without_a_warning(
    project: Path, run: Runner, tmp_path: Path
) -> None:
    from tests.oracle import run as runtime

    assert run("build").code == 0
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    trust = f'[projects.{json.dumps(str(project.resolve()))}]\ntrust_level = "trusted"\n'
    (home / ".codex/config.toml").write_text(trust)
    # doctor exits 1 without credentials: its JSON says what it loaded.
    report = json.loads(runtime("codex", ["doctor", "--json"], project, home=home).stdout)
    details = report["checks"]["config.load"]["details"]
    assert details.get("startup warning") is None
    assert details["model"] == "gpt-5.5"  # the project's own key, read from the merged file


# --- promptc_compiler.core.merge, property-based ----------------------------------------------------------

_NAMES = st.text(alphabet="abcdefghij_-", min_size=1, max_size=6)
_SCALARS = st.one_of(st.booleans(), st.integers(-5, 5), st.text(max_size=8))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_NAMES, inner, max_size=3),
    max_leaves=6,
)


@given(
    user=st.dictionaries(_NAMES, _VALUES, max_size=5),
    managed=st.dictionaries(st.sampled_from(["permission", "default_agent"]), _VALUES, max_size=2),
    indent=st.sampled_from([None, 2, 4, "\t"]),
)
def test_merge_keeps_the_projects_json_and_strip_gives_it_back(
    user: dict[str, object], managed: dict[str, object], indent: int | str | None
) -> None:
    user = {key: value for key, value in user.items() if key not in managed}
    text = (json.dumps(user, indent=indent, ensure_ascii=False) + "\n").encode()
    generated = json.dumps({"$schema": "s", **managed}).encode()
    merged = merge("opencode.json", text, generated, (), None)
    assert json.loads(merged.content) == {**user, **managed}
    assert merge("opencode.json", merged.content, generated, (), merged.digests) == merged
    # The project's file stays, even when nothing is left in it.
    assert strip("opencode.json", merged.content, merged.digests) == text


_TOML_SCALARS = st.one_of(st.booleans(), st.integers(-5, 5), st.text(max_size=8))


@given(
    user=st.dictionaries(_NAMES, _TOML_SCALARS, max_size=4),
    table=st.dictionaries(_NAMES, _TOML_SCALARS, max_size=3),
    managed=st.dictionaries(
        st.sampled_from([("sandbox_mode",), ("features", "view_image"), ("agents", "x", "d")]),
        _TOML_SCALARS,
        min_size=1,
    ),
)
def test_merge_keeps_the_projects_toml_and_strip_gives_it_back(
    user: dict[str, object], table: dict[str, object], managed: dict[tuple[str, ...], object]
) -> None:
    def toml(document: dict[tuple[str, ...], object]) -> str:
        tables: dict[tuple[str, ...], list[str]] = {}
        for path, value in document.items():
            tables.setdefault(path[:-1], []).append(f"{path[-1]} = {toml_value(value)}")
        return "".join(
            (f"\n[{'.'.join(name)}]\n" if name else "") + "".join(f"{line}\n" for line in lines)
            for name, lines in sorted(tables.items())
        )

    own: dict[tuple[str, ...], object] = {
        (key,): value for key, value in user.items() if key != "sandbox_mode"
    }
    own.update({("mcp_servers", key): value for key, value in table.items()})
    text = toml(own).lstrip("\n").encode()
    generated = toml(managed).encode()
    merged = merge("config.toml", text, generated, (), None)
    loaded = tomllib.loads(merged.content.decode())
    for path, value in {**own, **managed}.items():
        found: object = loaded
        for part in path:
            assert isinstance(found, dict)
            found = found[part]
        assert found == value
    assert strip("config.toml", merged.content, merged.digests) == text


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    # JSON's escapes, and DEL, which TOML refuses raw.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007F")


def test_import_from_the_project_itself_chooses_the_root_layout(
    make_bundle: MakeBundle, run: Runner
) -> None:
    helper = (
        "---\ndescription: Helps with the code base and its tests.\nmode: subagent\n---\nHelp.\n"
    )
    root = make_bundle({".opencode/agents/helper.md": helper, "opencode.json": USER_OPENCODE})
    imported = run("import", "opencode", ".")
    assert imported.code == 0, imported.out + imported.err
    assert (root / "promptc.toml").read_text().startswith('layout = "root"\n')
    # A file the build generates exactly as it was imported becomes promptc's.
    assert run("build").code == 0
    manifest = json.loads((root / ".promptc-manifest.json").read_text())
    assert ".opencode/agents/helper.md" in manifest["files"]
    assert json.loads((root / "opencode.json").read_text())["mcp"]["docs"]["type"] == "local"
    assert run("check").code == 0


CLAUDE_AGENT = """\
---
name: {name}
description: Agent {name} reads the code and reports what it finds.
tools: Read, Grep, Bash
---
You are {name}.
"""


def test_import_in_place_then_build_takes_over_what_it_read(
    make_bundle: MakeBundle, run: Runner
) -> None:
    # The files the import read become the specs; the first build replaces them
    # (no --force), keeps the project's own keys and touches nothing else.
    settings = '{"permissions": {"deny": ["Read(./.env)"]}, "env": {"A": "1"}}\n'
    own = "---\ndescription: The project's own Copilot agent, not Claude's.\n---\nHi.\n"
    root = make_bundle(
        {
            ".claude/settings.json": settings,
            ".claude/agents/one.md": CLAUDE_AGENT.format(name="one"),
            ".claude/agents/two.md": CLAUDE_AGENT.format(name="two"),
            ".github/agents/own.agent.md": own,
        }
    )
    imported = run("import", "claude", ".")
    assert imported.code == 0, imported.out + imported.err
    assert "the next build replaces the 3 runtime file(s)" in imported.err
    built = run("build")
    assert built.code == 0, built.out + built.err
    after = json.loads((root / ".claude/settings.json").read_text())
    assert after["env"] == {"A": "1"}  # the project's own key, kept
    assert any(".env" in rule for rule in after["permissions"]["deny"])
    assert (root / ".github/agents/own.agent.md").read_text() == own
    assert "own.agent.md" not in (root / ".promptc-manifest.json").read_text()
    assert run("check").code == 0


def test_import_in_place_takes_over_nothing_it_cannot_write(
    make_bundle: MakeBundle, run: Runner, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "one.md").write_text(CLAUDE_AGENT.format(name="one"))
    root = make_bundle({".claude/agents/two.md": CLAUDE_AGENT.format(name="two")})
    (root / ".claude/agents/one.md").symlink_to(elsewhere / "one.md")
    imported = run("import", "claude", ".")
    assert "one.md" not in (root / ".promptc-manifest.json").read_text()
    built = run("build")
    assert built.code == 1  # the symlink is refused, as every build refuses it
    assert (elsewhere / "one.md").read_text() == CLAUDE_AGENT.format(name="one"), imported.err


def test_import_from_elsewhere_keeps_the_default_layout(
    make_bundle: MakeBundle, run: Runner, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / ".opencode/agents").mkdir(parents=True)
    helper = (
        "---\ndescription: Helps with the code base and its tests.\nmode: subagent\n---\nHelp.\n"
    )
    (other / ".opencode/agents/helper.md").write_text(helper)
    root = make_bundle({"README.md": "A project.\n"})
    assert run("import", "opencode", str(other)).code == 0
    assert "layout" not in (root / "promptc.toml").read_text()

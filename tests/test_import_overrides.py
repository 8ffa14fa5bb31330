"""`promptc import gemini|copilot|codex` carries the keys of each runtime's
agent file that a spec's `targets.<runtime>` override takes, so that a build for
the same runtime writes the same agent files back, and reports only what it
cannot carry."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.core import validate
from promptc_compiler.core.config import load_config
from promptc_compiler.core.resources import load_schema
from promptc_compiler.pipeline import importer
from promptc_compiler.pipeline.importer import plan_import
from promptc_compiler.runtimes import FILE_SCHEMAS, import_lists
from promptc_compiler.runtimes.claude import agents as claude_agents
from promptc_compiler.runtimes.claude import import_ as import_claude
from promptc_compiler.runtimes.codex import import_ as import_codex
from promptc_compiler.runtimes.copilot import import_ as copilot_import
from promptc_compiler.runtimes.copilot.tools import COPILOT
from promptc_compiler.runtimes.gemini import import_ as gemini_import
from promptc_compiler.runtimes.gemini.tools import GEMINI
from promptc_compiler.runtimes.tool_lists import Runtime
from tests import bundles, strategies

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py

# Where each runtime's agent files are, and how one reads as (frontmatter, body).
AGENT_FOLDERS = {
    "gemini": ".gemini/agents/",
    "copilot": ".github/agents/",
    "codex": ".codex/agents/",
}
SOURCES = {"overrides": bundles.FIXTURES / "overrides", "team": bundles.TEAM}


# How each import reads a runtime's agent files.
READINGS = {"gemini": gemini_import.READING, "copilot": copilot_import.READING}


def narrowed(runtime: Runtime) -> frozenset[str]:
    """The runtime's tools whose permissions an import of an agent listing the
    tool does not allow wholly (the runtime asks about them, or refuses some
    inputs): a build may leave such a tool out of the list again."""
    return frozenset(
        tool
        for tool, permissions in runtime.tools
        if any(
            import_lists.permission_map(READINGS[runtime.target], [tool], [])[p] != "allow"
            for p in permissions
        )
    )


NARROWED = {"gemini": narrowed(GEMINI), "copilot": narrowed(COPILOT)}
# The keys each import writes under `targets.<runtime>` (the override table's own
# words), which its notes therefore never name.
CARRIED = {
    "gemini": ("display_name", "model", "temperature", "timeout_mins"),
    "copilot": ("model", "infer"),
    "codex": ("nickname_candidates",),
}


def agent_file(rel: str, data: bytes) -> tuple[list[tuple[str, Any]], str]:
    """The agent file's keys and values, in the order written, and its body."""
    text = data.decode()
    if rel.endswith(".toml"):
        role = tomllib.loads(text)
        return list(role.items()), str(role.get("developer_instructions", ""))
    _, head, body = text.split("---\n", 2)
    front = yaml.safe_load(head)
    assert isinstance(front, dict), rel
    return list(front.items()), body


# Keys a build writes from the agent's permission rules, which an import reads
# back coarser: Copilot's `tools` and its preToolUse hook, which holds the
# rules themselves (the import reads the list only; the keys this file is about
# are the override table's).
FROM_RULES = {"copilot": ("tools", "hooks")}


def agent_files(files: Mapping[str, bytes], target: str) -> dict[str, Any]:
    folder = AGENT_FOLDERS[target]
    found = {}
    for rel, data in files.items():
        if rel.startswith(folder):
            keys, body = agent_file(rel, data)
            kept = [(k, v) for k, v in keys if k not in FROM_RULES.get(target, ())]
            found[rel] = (kept, body)
    return found


def in_project(target: str, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """A build as a project holds it: the gemini target writes an extension, whose
    `agents/`, `commands/` and `skills/` a project keeps under `.gemini/`."""
    if target != "gemini":
        return dict(files)
    folders = ("agents/", "commands/", "skills/")
    return {f".gemini/{rel}" if rel.startswith(folders) else rel: d for rel, d in files.items()}


def _write(root: Path, files: Mapping[str, bytes]) -> None:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("target", sorted(AGENT_FOLDERS))
def test_a_build_imported_and_built_again_gives_the_same_agent_files(
    source: str, target: str, tmp_path: Path
) -> None:
    built = in_project(target, bundles.render(SOURCES[source], target))
    _write(tmp_path / "built", built)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    done = api.import_bundle(target, tmp_path / "built", load_config(cwd=bundle))
    # The import turns the runtime's target on itself, and checks the bundle as a
    # build for it would: what that build writes is what it rendered.
    assert f"[targets.{target}]" in (bundle / "promptc.toml").read_text()
    assert done.lint is not None
    assert done.ok, [d.as_text() for d in (*done.plan.notes, *done.lint.diagnostics)]
    rebuilt = {rel.removeprefix(f"{target}/"): data for rel, data in done.lint.files.items()}
    before = agent_files(built, target)
    assert before
    after = agent_files(in_project(target, rebuilt), target)
    # A tool the import narrows (an OpenCode ask, or a read with `.env` denied) a
    # build may leave out of the list (never wider); everything else comes back.
    assert unasked(after, target) == unasked(before, target)
    for rel, (keys, _) in after.items():
        assert set(dict(keys).get("tools", ())) <= set(dict(before[rel][0]).get("tools", ())), rel


def unasked(files: Mapping[str, Any], target: str) -> dict[str, Any]:
    """The agent files with the tools an import narrows taken out of `tools`."""
    asked = NARROWED.get(target, frozenset())
    return {
        rel: (
            [(k, [t for t in v if t not in asked] if k == "tools" else v) for k, v in keys],
            body,
        )
        for rel, (keys, body) in files.items()
    }


@pytest.mark.parametrize("target", sorted(AGENT_FOLDERS))
def test_the_notes_name_no_carried_key(target: str, tmp_path: Path) -> None:
    _write(tmp_path, in_project(target, bundles.render(SOURCES["overrides"], target)))
    (tmp_path / "bundle").mkdir()
    plan = plan_import(target, tmp_path, load_config(cwd=tmp_path / "bundle"))
    imported = {
        rel: yaml.safe_load(text.split("---\n")[1])
        for rel, text in plan.files.items()
        if rel.startswith("specs/agents/")
    }
    tables = [spec.get("targets", {}).get(target, {}) for spec in imported.values()]
    assert any(tables), "the fixture sets override keys for every runtime"
    for note in plan.notes:
        assert not any(f"`{key}`" in note.message for key in CARRIED[target]), note


def test_the_carried_keys_are_the_override_tables_own() -> None:
    """Each key an import writes under `targets.<runtime>` is one the agent schema
    takes there, and every key the table takes is carried somewhere."""
    for target, carried in CARRIED.items():
        table = load_schema("agent")["$defs"][f"{target}Agent"]["properties"]
        overridable = {k for k, v in table.items() if v != {"$ref": "#/$defs/notOverridable"}}
        assert set(carried) <= overridable, target
        # The rest have an OpenCode key of their own: `description`, and
        # Gemini's `max_turns` (`steps`), Codex's `model` and effort.
        assert overridable - set(carried) <= {
            "description",
            "max_turns",
            "model",
            "model_reasoning_effort",
        }
    assert READINGS["gemini"].overrides == CARRIED["gemini"]
    assert CARRIED["codex"] == import_codex.OVERRIDES


def test_the_list_runtimes_override_keys_are_the_schemas() -> None:
    """The keys a Copilot or Gemini override may give are written once, on the
    runtime's record: what the agent schema takes there (Copilot's `infer` beside
    them: it may hide an agent, never offer one), and the import carries the
    ones OpenCode has no key for."""
    for runtime in (COPILOT, GEMINI):
        table = load_schema("agent")["$defs"][f"{runtime.target}Agent"]["properties"]
        overridable = {k for k, v in table.items() if v != {"$ref": "#/$defs/notOverridable"}}
        extra = {"infer"} if runtime is COPILOT else set()
        assert overridable == {*runtime.overrides, *extra}, runtime.target
        assert set(runtime.opencode_keys) <= set(runtime.overrides)
        carried = set(READINGS[runtime.target].overrides)
        assert carried == set(runtime.overrides) - set(runtime.opencode_keys)


def test_claude_override_keys_are_written_or_refused_by_the_build() -> None:
    """Every key the agent schema takes under `targets.claude` is one a build writes
    (claude_agents.OVERRIDES) or refuses (REFUSED), never both."""
    table = load_schema("agent")["$defs"]["claudeAgent"]["properties"]
    assert set(table) == {*claude_agents.OVERRIDES, *claude_agents.REFUSED}
    assert not set(claude_agents.OVERRIDES) & set(claude_agents.REFUSED)


def test_a_claude_import_carries_only_what_a_build_writes_and_reports_the_rest() -> None:
    """Claude keys that say what an agent may do become its `permission`, and
    `hooks` and `mcpServers` are not carried over, which the import says: before,
    all five went under `targets.claude`, where every build ignores them, and the
    import said nothing about the hooks and MCP servers it did not carry."""
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}
    meta = {
        "name": "a",
        "description": "An agent.",
        "tools": "Read, Bash",
        "disallowedTools": "Write",
        "permissionMode": "default",
        "hooks": hooks,
        "mcpServers": ["github"],
        "model": "sonnet",
        "color": "pink",
        "maxTurns": 5,
        "effort": "high",
    }
    spec, notes = import_claude.agent_spec("a", meta)
    table = spec["targets"]["claude"]
    assert table == {"model": "sonnet", "color": "pink", "maxTurns": 5, "effort": "high"}
    assert set(table) <= set(claude_agents.OVERRIDES)
    said = {note.key: note.message for note in notes}
    assert "not carried over" in said["hooks"]
    assert "not carried over" in said["mcpServers"]
    assert not {"tools", "disallowedTools", "permissionMode"} & set(said)
    assert spec["permission"]["edit"] == "deny"  # no Edit or Write in `tools`
    assert schemas_valid(spec)


def schemas_valid(spec: Mapping[str, Any]) -> bool:
    return validate.Schemas(FILE_SCHEMAS).valid("agent", spec)


# --- the same, as a property of the import alone --------------------------------------------

_LISTS = {"gemini": GEMINI, "copilot": COPILOT}
_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
_VALUES: Mapping[str, st.SearchStrategy[Any]] = {
    "display_name": st.text(max_size=20),
    "model": _NAMES,
    "temperature": st.floats(0, 2) | st.integers(0, 2),
    "timeout_mins": st.integers(1, 600),
    "max_turns": st.integers(1, 500),
    "infer": st.booleans(),
}


@st.composite
def list_agents(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A Copilot or Gemini agent's frontmatter with any of its override keys set."""
    target = draw(st.sampled_from(sorted(_LISTS)))
    keys = ("model", "infer") if target == "copilot" else (*CARRIED["gemini"], "max_turns")
    meta: dict[str, Any] = {"name": "agent", "description": "An agent."}
    for key in draw(st.lists(st.sampled_from(keys), unique=True)):
        meta[key] = draw(_VALUES[key])
    return target, meta


@settings(max_examples=strategies.ci_examples(60), deadline=None)
@given(list_agents())
def test_every_override_key_is_carried_as_written_and_never_noted(
    drawn: tuple[str, dict[str, Any]],
) -> None:
    strategies.tick("import-override-keys")
    target, meta = drawn
    spec, notes = import_lists.agent_spec(READINGS[target], "agent", meta)
    # No `tools`: every tool, which the import reports at `tools`, not at an override key.
    assert spec is not None
    assert [note.key for note in notes] == ["tools"]
    table = spec.get("targets", {}).get(target, {})
    for key, value in meta.items():
        if key in table:
            assert table[key] == value
            assert type(table[key]) is type(value)
    assert ("steps" in spec) == ("max_turns" in meta)
    written = {key for key in meta if key in CARRIED[target] and key != "infer"}
    assert set(table) == written | ({"infer"} if meta.get("infer") is True else set())
    schemas = validate.Schemas(FILE_SCHEMAS)
    assert schemas.valid("agent", spec), list(validate.issues(spec, schemas.validator("agent")))


# --- Codex's apply_patch, accepted back -------------------------------------------------------


def test_a_codex_role_denied_edits_is_built_back_with_its_apply_patch_accepted(
    tmp_path: Path,
) -> None:
    """A read-only role (or one without apply_patch_freeform) is imported with
    `edit: deny`, as it meant, while Codex still gives it apply_patch: the
    proposed config accepts that widening for the codex target, so the role
    builds back; a folder with no such role proposes nothing of the kind. `bash`
    is accepted either way: the forced-`rm` asks by path (`*/rm *-*f*`) also take
    `echo a/rm -f`, which Codex runs and no prefix rule can stop."""
    roles = {
        "writer": 'name = "writer"\ndescription = "Writes."\ndeveloper_instructions = "Write."\n',
        "reader": (
            'name = "reader"\ndescription = "Reads."\nsandbox_mode = "read-only"\n'
            'developer_instructions = "Read."\n'
        ),
    }
    for case, names in (("both", ("writer", "reader")), ("writer", ("writer",))):
        source = tmp_path / case / "source/.codex/agents"
        source.mkdir(parents=True)
        for name in names:
            (source / f"{name}.toml").write_text(roles[name])
        bundle = tmp_path / case / "bundle"
        bundle.mkdir()
        plan = plan_import("codex", source.parent.parent, load_config(cwd=bundle))
        accepted = plan.config.get("targets", {}).get("codex", {}).get("accept_wider")
        assert accepted == (["bash", "edit"] if "reader" in names else ["bash"]), case
        for rel, text in plan.files.items():
            (bundle / rel).parent.mkdir(parents=True, exist_ok=True)
            (bundle / rel).write_text(text)
        # The import turns the Codex target on itself (tests/test_import_targets.py).
        (bundle / "promptc.toml").write_text(importer.config_toml(plan.config))
        built = bundles.render(bundle, "codex")
        assert {rel for rel in built if rel.startswith(".codex/agents/")} == {
            f".codex/agents/{name}.toml" for name in names
        }

"""Round trips decided call by call: a runtime's folder imported (`promptc import
<runtime>`) and built back for the same runtime.

OpenCode: a generated `.opencode` folder is imported, built, and the built
folder imported again; every call of the matrix (promptc_compiler.permissions.calls.matrix) is
decided by OpenCode's model (promptc_compiler.permissions.calls.decide, as `promptc can` answers)
from both bundles and must be decided the same; agents keep their names, their
bodies byte for byte and their permission maps. Claude Code: a generated
`.claude` folder is imported and built for Claude; Claude Code's decision model
(promptc_compiler.runtimes.claude.decide) reads the original folder and the built files. The
built files decide no call more permissively than the original, and every tool
an agent loses on the way is said: by the import or by the build's `lost-tool`.
Where the two decide alike is printed as a figure (the import narrows what
OpenCode cannot say as surely: docs/import.md).

Then one test per case a new user met (issue "Round trips"): the runtime's
target turned on by the import, once; a command's `allowed-tools`; a
`Read(./.env)` deny that kept every agent's Read; MCP servers and hooks said;
a folder without agents; an agent id with a dot.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import RANK, Call
from promptc_compiler.pipeline import importer
from promptc_compiler.pipeline.proof import KINDS
from promptc_compiler.runtimes.claude import decide as claude_model
from tests import bundles
from tests.claude import oracle as claude_cli
from tests.conftest import Run
from tests.decisions import concrete, project_for
from tests.strategies import (
    CLAUDE_AGENTS,
    SCRATCH,
    ci_examples,
    claude_agent_meta,
    claude_settings,
    permission_maps,
    tick,
)
from tests.test_import_never_widens import imported, original, runtime_names

FIXTURES = bundles.FIXTURES / "import"
# Lints about a generated permission map itself (an odd but valid map), which a
# round trip neither causes nor cures.
QUIET = "".join(
    f'[rules.{rule}]\nlevel = "off"\n\n'
    for rule in (
        *("missing-catch-all", "shadowed-rule", "dangerous-allow", "unreachable-subagent"),
        *("task-unknown-agent", "unknown-skill", "task-primary", "subagent-delegates"),
    )
)


def _write(root: Path, files: Mapping[str, str | bytes]) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            (root / rel).write_bytes(data)
        else:
            (root / rel).write_text(data, encoding="utf-8")
    return root


def _built(bundle: Path, target: str) -> api.Result:
    """What `promptc build --target <target>` decides and writes, in memory."""
    result = api.render(load_config(cwd=bundle), only=[target])
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    assert not errors, errors
    return result


def _files(result: api.Result, target: str) -> dict[str, str]:
    prefix = f"{target}/"
    return {rel.removeprefix(prefix): data.decode() for rel, data in result.files.items()}


def _front(text: str) -> dict[str, Any]:
    front = yaml.safe_load(text[4:].split("\n---\n", 1)[0])
    return front if isinstance(front, dict) else {}


def _body(text: str) -> str:
    return text.split("\n---\n", 1)[1]


# --- OpenCode ----------------------------------------------------------------------------------

OPENCODE_AGENTS = ["scout", "smith", "lead", "team/reviewer"]
OPENCODE_BODIES = [
    "Body of the agent.\n",
    "Read the diff.\n\nSay <<what>> you found, as <% this %> reads.\n",
    "No newline at the end",
]
# Permissions a generated map may name: OpenCode's own (the strategy's custom
# tool `plan_db` is not configured here).
_MAPS: st.SearchStrategy[dict[str, Any]] = permission_maps.map(
    lambda found: {k: v for k, v in found.items() if k != "plan_db"}
)


@st.composite
def opencode_folders(draw: st.DrawFn) -> dict[str, str]:
    """A hand-written OpenCode project: up to four agents with generated
    permission maps and bodies, maybe a command, and an opencode.json with a
    config-level permission, a default agent and MCP servers."""
    files: dict[str, str] = {}
    names = draw(st.lists(st.sampled_from(OPENCODE_AGENTS), min_size=1, max_size=3, unique=True))
    primaries = []
    for name in names:
        meta: dict[str, Any] = {"description": f"The {name} agent, generated for the test."}
        meta["mode"] = draw(st.sampled_from(["subagent", "primary", "all"]))
        if meta["mode"] != "subagent":
            primaries.append(name)
        if permission := draw(_MAPS):
            meta["permission"] = permission
        front = yaml.safe_dump(meta, sort_keys=False)
        body = draw(st.sampled_from(OPENCODE_BODIES))
        files[f".opencode/agents/{name}.md"] = f"---\n{front}---\n{body}"
    if draw(st.booleans()):
        files[".opencode/commands/check.md"] = (
            "---\ndescription: Check the work so far against the plan.\n---\nCheck $ARGUMENTS\n"
        )
    config: dict[str, Any] = {"$schema": "https://opencode.ai/config.json"}
    if shared := draw(_MAPS):
        config["permission"] = shared
    if draw(st.booleans()) and primaries:
        config["default_agent"] = draw(st.sampled_from(primaries))
    if draw(st.booleans()):
        config["mcp"] = {"docs": {"type": "remote", "url": "http://127.0.0.1:9/mcp"}}
    files["opencode.json"] = json.dumps(config, indent=2)
    return files


def _decisions(bundle: Path) -> dict[Call, str]:
    project = bundles.project(bundle, "opencode")
    runtime = calls.runtime_of(project)
    return {call: calls.decide(runtime, call).action for call in calls.matrix(project, runtime)}


def _opencode_round_trip(scratch: Path, files: Mapping[str, str]) -> tuple[Path, Path, Path]:
    """The folder imported (`first`), built, and the built folder imported again
    (`second`); returns (first, built folder, second)."""
    source = _write(scratch / "source", files)
    first = scratch / "first"
    first.mkdir()
    imported("opencode", source, first)
    with (first / "promptc.toml").open("a", encoding="utf-8") as config:
        config.write(f"\n{QUIET}")  # lints about generated maps, not the round trip
    built = _write(scratch / "built", _files(_built(first, "opencode"), "opencode"))
    second = scratch / "second"
    second.mkdir()
    imported("opencode", built, second)
    return first, built, second


@settings(max_examples=ci_examples(12), deadline=None)
@given(opencode_folders())
def test_an_opencode_folder_imported_and_built_back_decides_every_call_alike(
    files: dict[str, str],
) -> None:
    tick("round-trip-opencode")
    with tempfile.TemporaryDirectory(prefix="promptc-round-", dir=SCRATCH) as scratch:
        first, built, second = _opencode_round_trip(Path(scratch), files)
        before, after = _decisions(first), _decisions(second)
        rebuilt = {
            rel: (built / rel).read_text(encoding="utf-8")
            for rel in files
            if rel.startswith(".opencode/") and (built / rel).is_file()
        }
        config = json.loads((built / "opencode.json").read_text(encoding="utf-8"))
    assert before, "the matrix holds calls"
    differ = [
        f"{c.describe()}: {before[c]} -> {after.get(c)}"
        for c in before
        if after.get(c) != before[c]
    ]
    assert not differ, "\n".join(differ[:10])
    # Names as OpenCode knew them, bodies byte for byte, the permission maps as written.
    assert set(rebuilt) == {rel for rel in files if rel.startswith(".opencode/")}
    assert config.get("default_agent") == json.loads(files["opencode.json"]).get("default_agent")
    for rel, text in rebuilt.items():
        # Byte for byte, but for the final newline every file promptc writes ends in.
        body = _body(files[rel])
        assert _body(text) == (body if body.endswith("\n") else f"{body}\n"), rel
        if rel.startswith(".opencode/agents/"):
            permission = _front(files[rel]).get("permission")
            assert json.dumps(_front(text).get("permission")) == json.dumps(permission), rel


def test_opencode_mcp_servers_are_reported_at_their_line(tmp_path: Path) -> None:
    source = tmp_path / "source"
    _write(
        source,
        {
            ".opencode/agents/scout.md": "---\ndescription: Finds things.\n---\nFind.\n",
            "opencode.json": '{\n  "mcp": {"docs": {"type": "remote", "url": "http://x"}}\n}\n',
        },
    )
    plan = importer.plan_import("opencode", source, load_config(cwd=tmp_path))
    notes = [n for n in plan.notes if "`mcp`" in n.message]
    assert [(n.line, n.column) for n in notes] == [(2, 3)]
    assert "not carried over" in notes[0].message
    assert "MCP servers" in notes[0].message


# --- Claude Code -------------------------------------------------------------------------------


GENERATED = "A generated Claude Code agent for the test."


def _claude_folder(
    root: Path, agents: Sequence[Mapping[str, Any]], docs: Sequence[Mapping[str, Any]]
) -> Path:
    files = {}
    for name, meta in zip(CLAUDE_AGENTS, agents, strict=True):
        front = yaml.safe_dump({"name": name, **meta}, sort_keys=False)
        files[f".claude/agents/{name}.md"] = f"---\n{front}---\nBody of {name}.\n"
    for file, doc in zip(("settings.json", "settings.local.json"), docs, strict=False):
        files[f".claude/{file}"] = json.dumps(doc)
    return _write(root / "source", files)


def claude_round_trip(
    source: Path, bundle: Path
) -> tuple[list[tuple[Call, str, str, str]], api.Result]:
    """Each call of the imported bundle's matrix, in the runtime's names, decided by
    Claude Code's model on the original folder, by OpenCode on the imported specs
    and by Claude Code's model on the files built back; and the build's result."""
    imported("claude", source, bundle)
    files = original("claude", source)
    names = runtime_names("claude", files)
    before = claude_model.load(files)
    result = _built(bundle, "claude")
    after = claude_model.load(_files(result, "claude"))
    project = bundles.project(bundle, "opencode")
    runtime = calls.runtime_of(project)
    found = []
    for call in calls.matrix(project, runtime):
        theirs = replace(call, agent=names.get(call.agent, call.agent))
        if call.permission == "task":
            theirs = replace(theirs, input=names.get(call.input, call.input))
        decided = calls.decide(runtime, call).action
        found.append((theirs, before.decide(theirs).action, decided, after.decide(theirs).action))
    return found, result


def _lost(found: Sequence[tuple[Call, str, str]]) -> set[tuple[str, str]]:
    """(agent, kind of tool) usable on the first side of each call and not on the second."""
    usable: dict[tuple[str, str], list[bool]] = {}
    for call, before, after in found:
        kind = KINDS.get(call.permission)
        if kind is not None and before != "deny":
            usable.setdefault((call.agent, kind), []).append(after != "deny")
    return {key for key, kept in usable.items() if not any(kept)}


@settings(max_examples=ci_examples(10), deadline=None)
@given(
    agents=st.lists(claude_agent_meta(), min_size=3, max_size=3),
    docs=st.lists(claude_settings(), max_size=2),
)
# Found by the search: every kind `lead` loses, said in a message that counts them.
@example(
    agents=[
        {"description": GENERATED, "disallowedTools": ""},
        {"description": GENERATED},
        {"description": GENERATED, "disallowedTools": "", "permissionMode": "default"},
    ],
    docs=[{"permissions": {"defaultMode": "dontAsk"}}],
)
def test_a_claude_folder_imported_and_built_back_decides_no_call_wider(
    agents: list[dict[str, Any]], docs: list[dict[str, Any]]
) -> None:
    tick("round-trip-claude")
    with tempfile.TemporaryDirectory(prefix="promptc-round-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        source = _claude_folder(root, agents, docs)
        (root / "bundle").mkdir()
        found, result = claude_round_trip(source, root / "bundle")
    wider = [f"{c.describe()}: {b} -> {a}" for c, b, _, a in found if RANK[a] > RANK[b]]
    assert not wider, "\n".join(wider[:10])
    # A tool the imported specs give an agent and the built files take from it
    # is said by the build (lost-tool names the agent and the kind of tool):
    # never the silent loss of Read a `Read(./.env)` deny once caused. The kinds
    # are in the detail: the message counts them when the line would be too long,
    # which depends on how long the folder's path is.
    said = [f"{d.message}\n{d.detail}" for d in result.diagnostics if d.rule == "lost-tool"]
    silent = [
        (agent, kind)
        for agent, kind in _lost([(c, opencode, a) for c, _, opencode, a in found])
        if not any(f"`{agent}` loses" in message and kind in message for message in said)
    ]
    assert not silent, silent
    same = sum(b == a for _, b, _, a in found)
    print(f"claude round trip: {same} of {len(found)} calls decided alike")


def _claude_fixture(tmp_path: Path, settings_doc: Mapping[str, Any]) -> Path:
    agents = {
        name: f"---\nname: {name}\ndescription: The {name} agent of the team.\n"
        f"tools: Read, Grep, Glob, Bash\n---\nYou are the {name}.\n"
        for name in ("reviewer", "writer", "tester")
    }
    files: dict[str, str] = {f".claude/agents/{n}.md": t for n, t in agents.items()}
    files[".claude/settings.json"] = json.dumps(settings_doc, indent=2)
    return _write(tmp_path / "source", files)


def test_a_read_env_deny_comes_back_and_every_agent_keeps_read(tmp_path: Path) -> None:
    source = _claude_fixture(tmp_path, {"permissions": {"deny": ["Read(./.env)"]}})
    (tmp_path / "bundle").mkdir()
    found, result = claude_round_trip(source, tmp_path / "bundle")
    decided = {(c.agent, c.permission, c.input): (b, a) for c, b, _, a in found}
    for agent in ("reviewer", "writer", "tester"):
        assert decided[agent, "read", "src/app.py"] == ("allow", "allow"), agent
        assert decided[agent, "read", ".env"] == ("deny", "deny"), agent
        assert decided[agent, "read", ".ENV"][1] == "deny", agent
    lost = [d for d in result.diagnostics if d.rule == "lost-tool"]
    assert not [d for d in lost if "read" in f"{d.message}\n{d.detail}"]
    settings_doc = json.loads(_files(result, "claude")[".claude/settings.json"])
    denied = settings_doc["permissions"]["deny"]
    assert "Read" not in denied
    assert any(rule.startswith("Read(") and ".env" in rule for rule in denied), denied
    # Claude Code matches path rules in any case: `.env*` and `.ENV*` are one rule.
    paths = [rule for rule in denied if rule.startswith("Read(")]
    assert len({rule.lower() for rule in paths}) == len(paths), paths
    # Nothing asks before every read (Claude Code's own ask before a name ending
    # in a dot is given back without one).
    assert not [
        rule
        for rule in settings_doc["permissions"].get("ask", [])
        if rule in ("Read", "Read(//**/*)", "Read(**)")
    ]
    assert not any(c.permission == "read" and RANK[a] > RANK[b] for c, b, _, a in found)


# What the real Claude Code does: ran, asked, refused (or absent: no such tool).
CLI_ACTIONS = {"ran": "allow", "asked": "ask", "refused": "deny", "absent": "deny"}
ENV_PROBES = (("read", "src/app.py"), ("read", ".env"), ("bash", "cat .env"))


def _on_the_cli(files: Mapping[str, str], scratch: Path, agent: str) -> list[str]:
    """The real `claude` (offline, tests/oracles) deciding ENV_PROBES for `agent`
    started as a subagent, in a scratch project holding `files`."""
    home = scratch / "home"
    home.mkdir(parents=True)
    root = project_for(scratch / "run", files)
    attempts = [
        claude_cli.attempt(permission, concrete(text, root, home), root)
        for permission, text in ENV_PROBES
    ]
    assert all(attempts), attempts
    found = claude_cli.run(root, [a for a in attempts if a], agent=agent, delegate=True, home=home)
    return [CLI_ACTIONS[outcome.verdict] for outcome in found]


@pytest.mark.slow
def test_the_real_claude_decides_the_env_round_trip_as_the_original(tmp_path: Path) -> None:
    source = _claude_fixture(tmp_path, {"permissions": {"deny": ["Read(./.env)"]}})
    (tmp_path / "bundle").mkdir()
    _, result = claude_round_trip(source, tmp_path / "bundle")
    before = _on_the_cli(original("claude", source), tmp_path / "before", "reviewer")
    after = _on_the_cli(_files(result, "claude"), tmp_path / "after", "reviewer")
    assert before == ["allow", "deny", "deny"]
    assert after == before


@pytest.mark.parametrize("kind", sorted(importer.LAYOUTS))
def test_the_import_turns_its_runtime_on_once(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    done: Run = run("import", kind, str(FIXTURES / kind))
    assert done.code == 0, done.out + done.err
    config = load_config(cwd=tmp_path)
    assert kind in config.targets
    assert "opencode" in config.targets  # still on, as before the import
    assert "claude-plugin" not in config.targets
    for spec in (tmp_path / "specs").rglob("*.md"):
        assert "claude-plugin" not in spec.read_text(), spec
    built: Run = run("build")
    assert built.code == 0, built.out + built.err
    assert (tmp_path / "build" / kind).is_dir()


def test_an_existing_config_without_the_target_is_told(tmp_path: Path) -> None:
    (tmp_path / "promptc.toml").write_text('[targets.opencode]\n\n[permission]\nread = "allow"\n')
    plan = importer.plan_import("claude", FIXTURES / "claude", load_config(cwd=tmp_path))
    told = [n for n in plan.notes if "[targets.claude]" in n.message]
    assert [(Path(n.path).name, n.line) for n in told] == [("promptc.toml", 1)]


def _command(tmp_path: Path, settings_doc: Mapping[str, Any]) -> dict[str, str]:
    source = _claude_fixture(tmp_path, settings_doc)
    _write(
        source,
        {
            ".claude/commands/test.md": "---\ndescription: Run the tests of the project.\n"
            "allowed-tools: Bash(npm test:*)\n---\nRun the tests: $ARGUMENTS\n"
        },
    )
    (tmp_path / "bundle").mkdir()
    imported("claude", source, tmp_path / "bundle")
    result = _built(tmp_path / "bundle", "claude")
    reported = [
        d.message
        for d in result.diagnostics
        if d.rule == "lossy-translation" and "allowed-tools" in d.message
    ]
    return {
        "command": _files(result, "claude")[".claude/commands/test.md"],
        "reported": "\n".join(reported),
    }


def test_a_command_allowed_tools_comes_back_where_opencode_allows_it(tmp_path: Path) -> None:
    found = _command(tmp_path, {"permissions": {"allow": ["Bash"]}})
    assert _front(found["command"])["allowed-tools"] == ["Bash(npm test:*)"]
    assert _body(found["command"]) == "Run the tests: $ARGUMENTS\n"
    assert not found["reported"]


def test_a_command_allowed_tools_for_one_command_is_reported_as_every_spelling(
    tmp_path: Path,
) -> None:
    # Claude Code's `Bash(npm test:*)` also runs `npm  test` and `\npm test`;
    # the imported map allows `npm test*` alone, as OpenCode reads it, so the
    # build cannot pre-approve the command without running more than it allows.
    found = _command(tmp_path, {"permissions": {"allow": ["Bash(npm test:*)"]}})
    assert "allowed-tools" not in _front(found["command"])
    assert "`Bash(npm test:*)` is left out of the command's `allowed-tools`" in found["reported"]


def test_a_command_allowed_tools_opencode_does_not_allow_is_reported(tmp_path: Path) -> None:
    found = _command(tmp_path, {})
    assert "allowed-tools" not in _front(found["command"])
    assert "`Bash(npm test:*)` is left out of the command's `allowed-tools`" in found["reported"]


def test_claude_mcp_servers_and_hooks_are_reported(tmp_path: Path) -> None:
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}
    source = _claude_fixture(tmp_path, {"hooks": hooks, "enabledMcpjsonServers": ["gh"]})
    _write(source, {".mcp.json": '{"mcpServers": {"gh": {"command": "gh-mcp"}}}'})
    plan = importer.plan_import("claude", source, load_config(cwd=tmp_path))
    said = {(Path(n.path).name, n.message.split(":")[0]) for n in plan.notes}
    assert ("settings.json", "`hooks`") in said
    assert ("settings.json", "`enabledMcpjsonServers`") in said
    assert (".mcp.json", "the project's MCP servers") in said


@pytest.mark.parametrize(
    ("kind", "files"),
    [
        (
            "codex",
            {".codex/rules/default.rules": 'prefix_rule(pattern=["ls"], decision="allow")\n'},
        ),
        ("claude", {".claude/settings.json": '{"permissions": {"deny": ["Bash(rm *)"]}}'}),
        (
            "claude",
            {".claude/commands/hi.md": "---\ndescription: Say hello to the user.\n---\nHello.\n"},
        ),
    ],
)
def test_a_folder_without_agents_imports_what_it_has(
    kind: str, files: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Any
) -> None:
    source = _write(tmp_path / "source", files)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    monkeypatch.chdir(bundle)
    done: Run = run("import", kind, str(source))
    assert done.code == 0, done.out + done.err
    assert "cannot read folder" not in done.out + done.err
    assert "no agent here" in done.out
    assert (bundle / "specs").is_dir()
    assert run("build").code == 0


def test_an_agent_id_with_a_dot_is_refused_at_the_spec_for_claude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Any
) -> None:
    _write(
        tmp_path,
        {
            "promptc.toml": '[targets.claude]\n\n[rules.agent-id]\nlevel = "warning"\n',
            "specs/agents/powershell-5.1-expert.md": "---\ndescription: Writes and reviews "
            "PowerShell 5.1 scripts.\nmode: subagent\n---\nYou know PowerShell.\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    done: Run = run("build")
    assert done.code == 1
    assert "promptc bug" not in done.out + done.err
    assert (
        "specs/agents/powershell-5.1-expert.md:1:1: error [claude-name] agent "
        "'powershell-5.1-expert' would be named 'powershell-5.1-expert' in Claude Code"
    ) in done.out

"""The schemas themselves, the Claude Code formats, emitted-file validation and the key rules."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import near_miss
from promptc_compiler.core import validate
from promptc_compiler.core.loader import load_bytes
from promptc_compiler.core.resources import load_schema, schema_dir
from promptc_compiler.runtimes import FILE_SCHEMAS, TARGETS
from promptc_compiler.runtimes.claude import agents as claude_agents
from promptc_compiler.runtimes.opencode import target as opencode
from tests.conftest import AGENT, MakeBundle, Run
from tests.schema_cases import REFERENCE_AGENT
from tests.strategies import ci_examples, yaml_values

Runner = Callable[..., Run]
# Every schema promptc ships: its own formats' (schemas/), the runtimes' files'.
SCHEMAS = sorted(
    [
        *(p.name.removesuffix(".schema.json") for p in schema_dir().glob("*.schema.json")),
        *FILE_SCHEMAS,
    ]
)


def shipped(name: str) -> dict[str, Any]:
    """A shipped schema by name, wherever it stands."""
    return dict(FILE_SCHEMAS.get(name) or load_schema(name))


OUTPUT_SCHEMAS = [
    "opencode-agent",
    "opencode-command",
    "opencode-config",
    "claude-agent",
    "claude-command",
    "claude-settings",
    "claude-plugin",
]
# Keywords that draft-07 engines (VS Code's JSON support, yaml-language-server)
# understand as well, plus annotations they ignore: the schemas stay usable in editors.
EDITOR_KEYWORDS = {
    "$schema", "$id", "$ref", "$defs", "title", "description", "type", "properties",
    "additionalProperties", "required", "enum", "anyOf", "allOf", "not", "items", "pattern",
    "minimum", "uniqueItems", "deprecated", "deprecationMessage", "errorMessage", "x-models",
    "x-finite", "default", "minLength", "maxLength", "propertyNames", "minItems", "const",
}  # fmt: skip


def problems(schema: str, text: str) -> list[tuple[int, int, str]]:
    """(line, column, message) for a markdown document against a schema."""
    source = load_bytes(Path("x.md"), textwrap.dedent(text).lstrip("\n").encode())
    assert source.frontmatter is not None, source.findings
    found = validate.check_frontmatter(source.frontmatter, schema, validate.Schemas(FILE_SCHEMAS))
    return [(p.line, p.column, p.message) for p in found]


def emitted(target: str, relative: str, text: str) -> list[Problem]:
    """The problems of an emitted file."""
    return list(
        validate.check_emitted(
            TARGETS[target].SCHEMAS, relative, text, validate.Schemas(FILE_SCHEMAS)
        )
    )


# --- the schema files ---------------------------------------------------------


@pytest.mark.parametrize("name", SCHEMAS)
def test_schema_is_draft_2020_12_with_id_title_and_runtime(name: str) -> None:
    schema = shipped(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{name}.schema.json")
    assert schema["title"]
    runtimes = ("opencode-ai 1.18.33", "@anthropic-ai/claude-code 2.1.332", "promptc")
    assert any(runtime in schema["x-models"] for runtime in runtimes)


def test_every_format_has_its_schema() -> None:
    assert {"agent", "mode", "fragment", "config", *OUTPUT_SCHEMAS} <= set(SCHEMAS)


def _keywords(node: Any, inside_properties: bool = False) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if not inside_properties:
                yield key
            if inside_properties or key not in ("default", "enum", "const", "examples"):
                yield from _keywords(
                    value, not inside_properties and key in ("properties", "$defs")
                )
    elif isinstance(node, list):
        for item in node:
            yield from _keywords(item)


@pytest.mark.parametrize("name", SCHEMAS)
def test_schema_uses_only_keywords_editors_understand(name: str) -> None:
    assert set(_keywords(shipped(name))) <= EDITOR_KEYWORDS


def test_definitions_shared_between_files_are_identical() -> None:
    """Each file is self-contained (editors cannot fetch $refs to promptc.dev), so shared
    definitions are copies; they must not drift apart."""
    seen: dict[str, tuple[str, Any]] = {}
    for name in SCHEMAS:
        for key, definition in shipped(name).get("$defs", {}).items():
            if key in seen:
                assert definition == seen[key][1], f"$defs/{key}: {name} != {seen[key][0]}"
            seen[key] = (name, definition)


def test_claude_colours_are_the_schemas_own() -> None:
    """Claude Code's colours are written once in Python (claude_agents), beside the
    schemas' `color` enum, which the lint's hint for an OpenCode `color` reads."""
    colour = shipped("claude-agent")["$defs"]["claudeAgent"]["properties"]["color"]
    assert tuple(colour["enum"]) == claude_agents.COLORS
    assert "teal" not in claude_agents.COLORS


def test_each_validator_is_built_once_per_run_and_never_shared() -> None:
    """A run's Schemas builds a schema's validator the first time it is asked
    for; another run's Schemas builds its own (no state outlives a run)."""
    schemas = validate.Schemas(FILE_SCHEMAS)
    assert schemas.validator("agent") is schemas.validator("agent")
    assert schemas.validator("agent") is not validate.Schemas(FILE_SCHEMAS).validator("agent")
    assert schemas.validator("agent") is not schemas.validator("mode")


def test_each_entry_checked_once_per_run_decides_as_the_whole_map_does() -> None:
    """A run checks each distinct entry of a map once (Schemas.valid): an entry
    valid in one map is valid in the next, and the map is still refused for a
    missing required key, another entry, or a value equal in Python but of
    another type (True, 1 and 1.0)."""
    schemas = validate.Schemas()
    permission = {"edit": "deny", "bash": {"*": "ask", "git diff *": "allow"}}
    good = {"description": "Reviews diffs.", "mode": "subagent", "permission": permission}
    whole = schemas.validator("agent")
    cases: list[Any] = [
        good,
        {**good, "description": "Another agent."},  # the shared entries, checked before
        {"mode": "subagent", "permission": permission},  # `description` is required
        {**good, "mode": "sidekick"},  # one entry refused beside the shared ones
        {**good, "hidden": True},
        {**good, "hidden": 1},  # equal to True in Python, not a boolean
        {**good, "steps": 1},
        {**good, "steps": 1.0},
        {**good, "steps": True},
        {**good, "permission": {**permission, "edit": "maybe"}},
        ["description"],  # not a map: the whole is checked
    ]
    verdicts = [schemas.valid("agent", case) for case in cases]
    assert verdicts == [bool(whole.is_valid(case)) for case in cases]
    assert verdicts == [True, True, False, False, True, False, True, True, False, False, False]


def _property_names(schema: Any) -> set[str]:
    """Every key any `properties` of the schema names, at any depth."""
    found: set[str] = set()
    if isinstance(schema, dict):
        found.update(schema.get("properties", {}))
        for value in schema.values():
            found |= _property_names(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= _property_names(item)
    return found


_LIKELY_VALID = [
    "allow", "deny", "ask", "subagent", "a-b", "ab", "Reviews diffs.", "1.0.0", True, False, 3, 0.5,
    ["Read", "Bash(git diff *)"], {"*": "ask", "git diff *": "allow"}, {"bash": {"*": "deny"}},
    {"edit": "deny"}, {"opencode": {"mode": "subagent"}}, [], {},
]  # fmt: skip
_VALUES: st.SearchStrategy[Any] = yaml_values | st.sampled_from(_LIKELY_VALID)


# No shipped schema gives keys by pattern at its top level: this one does,
# and in two `allOf` parts, each with the keys it leaves to others.
_BY_PATTERN = {
    "type": "object",
    "required": ["id"],
    "allOf": [
        {
            "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},
            "patternProperties": {"^x-": {"type": "string"}, "_[0-9]$": {"type": "integer"}},
            "additionalProperties": {"type": "boolean"},
        },
        {
            "properties": {"id": True, "n": True, "x-y": {"maxLength": 2}},
            "patternProperties": {"^x-a": {"maxLength": 3}, "^m": True},
            "additionalProperties": False,
        },
    ],
}
_FILES = {**FILE_SCHEMAS, "by-pattern": _BY_PATTERN}
_SPLIT = [
    name for name in [*SCHEMAS, "by-pattern"] if validate.Schemas(_FILES).entry_validator(name)
]
_ODD_KEYS = ["x-y", "x-abc", "x-a", "mcp_1", "n_1", "m", "*", "", "bash "]


@settings(max_examples=ci_examples(400))
@given(data=st.data())
def test_each_entry_checked_against_its_keys_schemas_decides_as_the_whole_map_does(
    data: st.DataObject,
) -> None:
    """Schemas.valid checks a map entry by entry, each value against the
    subschemas that judge its key (properties, patternProperties,
    additionalProperties, in allOf parts too): each entry of a shipped schema
    gets jsonschema's verdict on the entry alone, and a map its verdict on
    the whole map."""
    name = data.draw(st.sampled_from(_SPLIT) | st.just("by-pattern"))
    schemas = validate.Schemas(_FILES)
    split = schemas.entry_validator(name)
    assert split is not None
    entry, required = split
    keys = st.sampled_from(sorted(_property_names(entry.schema))) | st.sampled_from(_ODD_KEYS)
    key, value = data.draw(keys | st.text()), data.draw(_VALUES)
    judges = validate.judges_of(entry, key)
    assert all(judge.is_valid(value) for judge in judges) == entry.is_valid({key: value})
    instance = {key: data.draw(_VALUES) for key in required}
    instance.update(data.draw(st.dictionaries(keys, _VALUES, max_size=3)))
    assert schemas.valid(name, instance) == schemas.validator(name).is_valid(instance)


# --- valid examples of the reference sheets -----------------------------------


def test_reference_opencode_agent_is_valid_source_and_output() -> None:
    assert problems("agent", REFERENCE_AGENT) == []
    assert problems("opencode-agent", REFERENCE_AGENT) == []


CLAUDE_AGENT = """
    ---
    name: code-reviewer
    description: Reviews code for bugs. Use after code changes.
    tools: Read, Grep, Glob, Bash(git diff *), Agent(worker)
    disallowedTools:
      - Write
      - Edit
    model: sonnet
    permissionMode: acceptEdits
    maxTurns: 20
    skills: [review]
    mcpServers: [github]
    hooks: {}
    memory: project
    background: false
    effort: high
    isolation: worktree
    color: blue
    initialPrompt: Start with git diff.
    ---
    You review code.
"""
CLAUDE_COMMAND = """
    ---
    description: Build it
    argument-hint: "[target]"
    allowed-tools: Bash(git status *), Read
    model: claude-haiku-4-5
    disable-model-invocation: true
    ---
    Build $ARGUMENTS
"""
# shared/reference/claude-code.md §4, verbatim.
CLAUDE_SETTINGS = """\
{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(git status *)", "Bash(git diff *)", "Edit(/src/**)", "WebFetch(domain:docs.python.org)"],
    "ask":   ["Bash(git push *)"],
    "deny":  ["Read(./.env)", "Bash(rm -rf *)", "Agent(Explore)"]
  }
}
"""
CLAUDE_PLUGIN = """\
{"name": "ndomo", "version": "0.1.0", "description": "Test plugin", "author": {"name": "Test Author"}}
"""


def test_claude_examples_are_valid() -> None:
    assert problems("claude-agent", CLAUDE_AGENT) == []
    assert problems("claude-command", CLAUDE_COMMAND) == []
    assert emitted("claude", ".claude/settings.json", CLAUDE_SETTINGS) == []
    assert emitted("claude-plugin", ".claude-plugin/plugin.json", CLAUDE_PLUGIN) == []
    assert (
        problems(
            "claude-agent",
            "---\nname: scout\ndescription: Scouts the code.\ntools: Read, Grep\n---\nYou scout.\n",
        )
        == []
    )


CLAUDE_DEFECTS = [
    ("claude-agent", "description: x\n", 1, 1, "$: required key 'name' is missing"),
    ("claude-agent", "name: ns:co\ndescription: x\n", 2, 7, "Claude Code skips an agent whose name holds `:`"),
    ("claude-agent", "name: a\ndescription: x\nhooks: []\n", 4, 1, "`hooks: []` makes Claude Code drop the whole file"),
    ("claude-agent", "name: a\ndescription: x\ncolor: teal\n", 4, 8, "$.color: 'teal' is not one of red, blue"),
    ("claude-agent", "name: a\ndescription: x\nmodel: anthropic/claude-x\n", 4, 8, "(Claude Code takes no provider/ prefix)"),
    ("claude-agent", "name: a\ndescription: x\npermission: {}\n", 4, 1, "unknown key 'permission' at $"),
    ("claude-agent", "name: a\ndescription: x\npermissionMode: yolo\n", 4, 17, "$.permissionMode: 'yolo' is not one of default"),
    ("claude-agent", "name: a\ndescription: x\nmaxTurns: many\n", 4, 11, "$.maxTurns: must be a whole number of at least 1"),
    ("claude-command", "argument-hint: [file]\n", 2, 1, "quote it (`argument-hint: \"[file]\"`)"),
    ("claude-command", "allowed_tools: Read\n", 2, 1, "unknown key 'allowed_tools' at $ (did you mean `allowed-tools`?)"),
]  # fmt: skip


@pytest.mark.parametrize(("schema", "front", "line", "column", "message"), CLAUDE_DEFECTS)
def test_claude_frontmatter_defect(
    schema: str, front: str, line: int, column: int, message: str
) -> None:
    found = problems(schema, f"---\n{front}---\nbody\n")
    assert [(ln, col) for ln, col, _ in found] == [(line, column)], found
    assert message in found[0][2]


SETTINGS_DEFECTS = [
    ('"allow": ["bash(ls *)"]', "must be `Tool` or `Tool(specifier)` with a capitalised tool name"),
    ('"allow": ["Bash()"]', "must be `Tool` or `Tool(specifier)`"),
    ('"deny": ["Bash(rm -rf *"]', "must be `Tool` or `Tool(specifier)`"),
    (
        '"allow": ["WebFetch(docs.python.org)"]',
        "a WebFetch rule names a domain: `WebFetch(domain:example.com)`",
    ),
    ('"allow": ["*"]', "must be `Tool` or `Tool(specifier)`"),
    ('"allow": ["mcp__*"]', "`mcp__*` in allow grants every MCP tool"),
    ('"defaultMode": "yolo"', "$.permissions.defaultMode: 'yolo' is not one of default"),
]


@pytest.mark.parametrize(("entry", "message"), SETTINGS_DEFECTS)
def test_claude_settings_defect_at_its_line(entry: str, message: str) -> None:
    text = '{\n  "permissions": {\n    ' + entry + "\n  }\n}\n"
    found = emitted("claude", ".claude/settings.json", text)
    assert len(found) == 1, found
    assert found[0].line == 3
    assert message in found[0].message


def test_claude_plugin_manifest_defects() -> None:
    text = (
        '{\n  "name": "Bad Name",\n  "author": "Someone",\n  "agents": "agents/",\n  "foo": 1\n}\n'
    )
    found = emitted("claude-plugin", ".claude-plugin/plugin.json", text)
    assert [(p.line, p.column) for p in found] == [(2, 11), (3, 13), (4, 13), (5, 3)]
    assert "$.name: must be kebab-case" in found[0].message
    assert "$.author: expected a map, found the text 'Someone'" in found[1].message
    assert (
        "$.agents: must be a path starting with `./` (found the text 'agents/')" in found[2].message
    )
    assert "unknown key 'foo'" in found[3].message


# --- emitted files ------------------------------------------------------------


@pytest.mark.usefixtures("sample")
def test_every_emitted_file_has_a_schema_and_matches_it() -> None:
    from promptc_compiler import api
    from promptc_compiler.core.config import load_config

    result = api.render(load_config())
    assert [d for d in result.diagnostics if d.rule == "emit"] == []
    assert result.files
    for name in result.files:
        target, _, relative = name.partition("/")
        assert validate.output_schema(TARGETS[target].SCHEMAS, relative), name


def test_emitter_bug_is_caught_before_anything_is_written(
    sample: Path, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = opencode.files

    def broken(project: Any, options: Any) -> Iterator[tuple[str, str]]:
        for rel, text in real(project, options):
            if rel == ".opencode/agents/scout.md":
                text = text.replace("mode: subagent", "mode: helper")
            if rel == "opencode.json":
                text = (
                    '{\n  "$schema": "https://opencode.ai/config.json",\n  "default_agent": 5\n}\n'
                )
            yield rel, text

    monkeypatch.setattr(opencode, "files", broken)
    result = run("build")
    assert result.code == 1
    assert not (sample / "build").exists()
    lines = result.lines
    assert (
        "build/opencode/.opencode/agents/scout.md:3:7: error [emit] $.mode: 'helper' is not one of "
        "subagent, primary, all (opencode-agent.schema.json); generated from "
        "specs/agents/scout.md. This is a promptc bug: please report it"
    ) in lines
    assert (
        "build/opencode/opencode.json:3:20: error [emit] $.default_agent: expected a string, "
        "found the number 5 (opencode-config.schema.json). This is a promptc bug: "
        "please report it"
    ) in lines


def test_an_emitted_claude_agent_with_an_opencode_key_fails_where_opencode_passes() -> None:
    permission = "permission:\n  edit: deny\n"
    opencode = f"---\ndescription: Reviews code.\n{permission}---\nbody\n"
    claude = f"---\nname: rev\ndescription: Reviews code.\n{permission}---\nbody\n"
    assert emitted("opencode", ".opencode/agents/rev.md", opencode) == []
    found = emitted("claude", ".claude/agents/rev.md", claude)
    assert [(p.line, p.column) for p in found] == [(4, 1)]
    assert "unknown key 'permission'" in found[0].message


def test_an_emitted_file_missing_a_required_key_fails() -> None:
    whole = "---\nname: rev\ndescription: Reviews code.\n---\nbody\n"
    assert emitted("claude", ".claude/agents/rev.md", whole) == []
    found = emitted("claude", ".claude/agents/rev.md", "---\nname: rev\n---\n")
    assert [p.message.split(" (")[0] for p in found] == ["$: required key 'description' is missing"]


def test_an_emitted_file_with_a_duplicate_key_is_unreadable() -> None:
    text = "---\nname: rev\ndescription: a\nname: rev\n---\nbody\n"
    found = emitted("claude", ".claude/agents/rev.md", text)
    assert [(p.line, p.column) for p in found] == [(4, 1)]
    assert "unreadable frontmatter" in found[0].message


def test_an_emitted_file_with_a_nul_byte_is_unreadable() -> None:
    found = emitted("opencode", ".opencode/agents/rev.md", "---\ndescription: a\n---\nb\x00\n")
    assert [(p.line, p.column) for p in found] == [(4, 2)]
    assert "unreadable frontmatter: file contains a NUL byte" in found[0].message


def test_emitted_file_of_an_invalid_spec_is_not_reported_twice(
    make_bundle: MakeBundle, run: Runner
) -> None:
    make_bundle({"specs/agents/scout.md": AGENT.replace("mode: subagent", "mode: 7")})
    result = run("build")
    assert result.code == 1
    assert "[schema] $.mode" in result.out
    assert "[emit]" not in result.out


# --- modes and the key rules ------------------------------------------------------


MODE_CASES = [
    ("agnet: scout\n", 3, 1, "schema", "unknown key 'agnet' at $ (did you mean `agent`?)"),
    ("model: haiku\n", 3, 8, "cross-ecosystem", "'haiku' is a Claude Code model name"),
    ("subtask: yes\n", 3, 10, "schema", "$.subtask: expected true or false"),
    ("targets:\n  claude:\n    argument-hint: [x]\n", 5, 5, "schema", "quote it"),
    ("targets:\n  opencode:\n    template: x\n", 5, 5, "schema", "unknown key 'template' at $.targets.opencode"),
]  # fmt: skip


@pytest.mark.parametrize(("front", "line", "column", "rule", "message"), MODE_CASES)
def test_mode_defect(
    make_bundle: MakeBundle,
    run: Runner,
    front: str,
    line: int,
    column: int,
    rule: str,
    message: str,
) -> None:
    mode = (
        f"---\ndescription: Build a feature from the user's request.\n{front}---\nHaz: $ARGUMENTS\n"
    )
    make_bundle({"specs/modes/build.md": mode})
    result = run("lint", "--format", "json")
    report = json.loads(result.out)["diagnostics"]
    found = [d for d in report if d["path"] == "specs/modes/build.md"]
    assert [(d["line"], d["column"], d["rule"]) for d in found] == [(line, column, rule)], found
    assert message in found[0]["message"]


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("permisson", "permission"),
        ("permissions", "permission"),
        ("permision", "permission"),
        ("temprature", "temperature"),
        ("topP", "top_p"),
        ("max_steps", "maxSteps"),
        ("mdoe", "mode"),
        ("colour", "color"),
        ("version", None),
        ("tags", None),
        ("category", None),
        ("id", None),
        ("max_tokens", None),
    ],
)
def test_near_miss(word: str, meant: str | None) -> None:
    assert near_miss(word, validate.opencode_agent_keys()) == meant


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ((), "$"),
        (("permission", "bash", "git *"), '$.permission.bash["git *"]'),
        (("targets", "claude-plugin", "tools", 0), "$.targets.claude-plugin.tools[0]"),
        (("permission", "*"), '$.permission["*"]'),
    ],
)
def test_json_path(path: tuple[str | int, ...], text: str) -> None:
    assert validate.json_path(path) == text


def test_documented_problem_matcher_reads_promptc_output(
    make_bundle: MakeBundle, run: Runner
) -> None:
    page = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
    line = next(ln for ln in page.read_text(encoding="utf-8").splitlines() if '"regexp":' in ln)
    pattern = re.compile(json.loads("{" + line.strip().rstrip(",") + "}")["regexp"])
    make_bundle(
        {"specs/agents/scout.md": AGENT.replace("mode: subagent", "mode: sidekick\ncategory: x")}
    )
    # The second message goes on, indented, on a line the matcher leaves alone.
    out = [ln for ln in run("lint", "--no-color").out.splitlines() if not ln.startswith("    ")]
    matches = [pattern.match(ln) for ln in out]
    assert len(out) == 2, out
    assert all(matches), out
    assert [m.group(1, 2, 3, 4, 5) for m in matches if m] == [
        ("specs/agents/scout.md", "3", "7", "error", "schema"),
        ("specs/agents/scout.md", "4", "1", "warning", "unknown-key"),
    ]

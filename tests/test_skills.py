"""Skills: discovery, composition of every markdown file, byte-exact copies, emitted trees."""

from __future__ import annotations

import itertools
import json
import os
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.permissions.ruleset import evaluate
from promptc_compiler.runtimes.claude import permission_rules as claude_rules
from promptc_compiler.runtimes.claude import target as claude_target
from promptc_compiler.runtimes.claude import variants
from promptc_compiler.runtimes.claude.translate import TRANSLATOR
from promptc_compiler.runtimes.skills import emit_skill_tree, emit_skills
from tests import bundles, oracle, strategies
from tests.claude import claude_model
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


# --- a skill's allowed-tools for Claude Code: never wider than OpenCode -------------------------

GRANTED = (
    "---\nname: demo\ndescription: Demo skill for the tests.\n"
    'allowed-tools: ["Bash(git status:*)", Read]\n---\nUse it.\n'
)
# Only the agent under test may load the skill: the main thread (OpenCode's
# `build`) reads the config's deny.
ONLY_AGENTS = '[targets.claude]\n[targets.claude-plugin]\n[permission]\nskill = "deny"\n'
SKILL_FILE = "specs/skills/demo/SKILL.md"


def loader(permission: str, skill: str = "allow") -> str:
    return (
        "---\ndescription: Loads the demo skill to check the work.\nmode: subagent\n"
        f"permission:\n  skill: {skill}\n{textwrap.indent(permission, '  ')}---\nBody.\n"
    )


def skill_bundle(make_bundle: MakeBundle, agent: str) -> Path:
    files = {"promptc.toml": ONLY_AGENTS, "specs/agents/a.md": agent, SKILL_FILE: GRANTED}
    return make_bundle(files)


def emitted(root: Path, target: str = "claude") -> dict[str, str]:
    return {rel: data.decode() for rel, data in bundles.render(root, target).items()}


def lossy(root: Path) -> list[tuple[str, int, int, str]]:
    result = api.lint(load_config(cwd=root))
    return [
        (Path(d.path).as_posix(), d.line, d.column, d.message)
        for d in result.diagnostics
        if d.rule == "lossy-translation" and str(d.path).endswith("SKILL.md")
    ]


def test_allowed_tools_opencode_allows_for_the_loading_agent_are_kept(
    make_bundle: MakeBundle,
) -> None:
    # A whole `Read` reads outside the project too: kept only where OpenCode
    # allows that as well (external_directory); `Bash(git status:*)` runs
    # `git  status` and `'git' status` too: kept where OpenCode allows those.
    root = skill_bundle(
        make_bundle,
        loader('bash:\n  "*": allow\nread: allow\nexternal_directory: allow\n'),
    )
    for target, prefix in (("claude", ".claude/skills/"), ("claude-plugin", "skills/")):
        files = emitted(root, target)
        front = files[f"{prefix}demo/SKILL.md"]
        assert 'allowed-tools:\n  - "Bash(git status:*)"\n  - Read\n' in front
        assert "## Skills" not in files["TRANSLATION.md"]
    assert lossy(root) == []


def test_an_allowed_tool_the_loading_agent_is_asked_for_is_left_out_and_reported(
    make_bundle: MakeBundle,
) -> None:
    root = skill_bundle(make_bundle, loader("bash: ask\nread: allow\nexternal_directory: allow\n"))
    for target, prefix in (("claude", ".claude/skills/"), ("claude-plugin", "skills/")):
        files = emitted(root, target)
        front = files[f"{prefix}demo/SKILL.md"]
        assert "allowed-tools:\n  - Read\n" in front
        assert "Bash(" not in front
        report = files["TRANSLATION.md"].split("## Skills\n", 1)[1]
        assert "### demo\n\n- `Bash(git status:*)` is left out" in report
        assert "OpenCode does not allow all of it for a\n" in report
    [(path, line, column, message)] = lossy(root)
    assert (path.endswith(SKILL_FILE), line, column) == (True, 4, 1)
    assert message.startswith("`Bash(git status:*)` is left out of the Claude Code skill")
    assert message.endswith("OpenCode does not allow all of it for a")


def test_a_skill_no_agent_may_load_keeps_no_allowed_tools(make_bundle: MakeBundle) -> None:
    root = skill_bundle(make_bundle, loader("bash: allow\nread: allow\n", skill="deny"))
    front = emitted(root)[".claude/skills/demo/SKILL.md"]
    assert "allowed-tools" not in front
    # one diagnostic at the key, saying both rules (the rule joins a place's messages)
    [(_, line, _, message)] = lossy(root)
    assert line == 4
    assert message.startswith("`Bash(git status:*)` is left out")
    assert ". `Read` is left out" in message  # a sentence each
    assert message.count("no agent may load the skill in OpenCode") == 2


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # and every other spelling Claude Code runs it in
        ("Bash(git status:*)", ("bash", variants.reach("git status *"))),
        ("Bash(npm test)", ("bash", variants.reach("npm test"))),
        ("Read(src/**)", ("read", ("*",))),  # Claude Code reads SRC/ too: no exact form
        ("Read(*.env)", ("read", ("*",))),  # no exact OpenCode form: the whole tool
        ("WebFetch(domain:example.com)", ("webfetch", ("*",))),
        ("Grep", ("grep", ("*",))),
        ("mcp__github__create_issue", None),
        ("Bash(a (b))", None),
        ("Bash(git", None),
    ],
)
def test_each_rule_reads_as_an_opencode_pattern_no_narrower(
    rule: str, expected: tuple[str, tuple[str, ...]] | None
) -> None:
    assert claude_rules.pre_approved(rule) == expected


def test_a_string_of_rules_splits_outside_parentheses() -> None:
    assert claude_rules.split_rules("Read, Bash(git diff *) Grep") == [
        "Read",
        "Bash(git diff *)",
        "Grep",
    ]
    assert claude_rules.split_rules(["Read", "Bash(x y)"]) == ["Read", "Bash(x y)"]


# Inputs the property reads each kept rule against, in both runtimes.
_COMMANDS = [
    " ".join(words)
    for size in (1, 2, 3)
    for words in itertools.product(["git", "status", "push", "-f", "x"], repeat=size)
]
_PATHS = ["src/a.py", ".env", "a/b.env", "x.env.example", "notes.md"]
_RULES = st.one_of(
    st.builds(
        lambda p, tail: f"Bash({p}{tail})", strategies.bash_patterns, st.sampled_from(["", ":*"])
    ),
    st.sampled_from(["Bash", "Read", "Read(src/**)", "Read(*.env)", "Grep", "mcp__x__y"]),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    maps=st.lists(strategies.bash_maps, min_size=1, max_size=3),
    skills=st.lists(st.sampled_from(["allow", "ask", "deny"]), min_size=3, max_size=3),
    read=st.sampled_from(['"allow"', '"ask"', '{ "*" = "allow", "*.env" = "deny" }']),
    rules=st.lists(_RULES, min_size=1, max_size=5),
)
def test_no_kept_allowed_tool_lets_a_loading_agent_do_more_than_opencode_allows(
    tmp_path_factory: pytest.TempPathFactory,
    maps: list[object],
    skills: list[str],
    read: str,
    rules: list[str],
) -> None:
    root = tmp_path_factory.mktemp("grants")
    files = {
        "promptc.toml": f'[targets.claude]\n[permission]\nskill = "{skills[-1]}"\nread = {read}\n',
        SKILL_FILE: yaml.safe_dump(
            {"name": "demo", "description": "Demo skill.", "allowed-tools": rules},
            explicit_start=True,
        )
        + "---\nUse it.\n",
    }
    for index, bash in enumerate(maps):
        front = {
            "description": "Generated agent.",
            "mode": "subagent",
            "permission": {"bash": bash, "skill": skills[index]},
        }
        files[f"specs/agents/a{index}.md"] = f"---\n{yaml.safe_dump(front)}---\nBody.\n"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    project = bundles.project(root, "claude")
    front = yaml.safe_load(
        emit_skills(project, "", grants=claude_target.grants_of(project))["demo/SKILL.md"].split(
            "---\n"
        )[1]
    )
    kept = front.get("allowed-tools", [])
    loaders = [
        s
        for s in project.translations.of(TRANSLATOR).subjects
        if evaluate(s.rules, "skill", "demo").action != "deny"
    ]
    for rule in kept:
        tool, spec = claude_model.parse_rule(rule)
        permission, inputs = ("bash", _COMMANDS) if tool == "Bash" else (tool.lower(), _PATHS)
        for subject in loaders:
            for value in inputs:
                if claude_model._matches((tool, spec), tool, value):
                    action = evaluate(subject.rules, permission, value).action
                    assert action == "allow", (rule, subject.name, value, action)


@pytest.mark.slow
@pytest.mark.parametrize("bash", ['bash:\n  "*": ask\n  "git status*": allow\n', "bash: ask\n"])
def test_claude_validates_the_plugin_skills_with_their_allowed_tools(
    make_bundle: MakeBundle, tmp_path: Path, bash: str
) -> None:
    oracle.binary("claude")
    root = skill_bundle(make_bundle, loader(f"{bash}read: allow\n"))
    out = tmp_path / "plugin"
    for rel, text in emitted(root, "claude-plugin").items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    done = oracle.run("claude", ["plugin", "validate", str(out), "--strict", "--json"], out)
    report = json.loads(done.stdout)
    assert done.returncode == 0, report
    assert report["contents"] == []
    assert [s.split(":")[1] for s in report["provides"]["skills"]] == ["demo"]

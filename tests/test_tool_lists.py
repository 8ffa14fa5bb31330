"""Copilot CLI and Gemini CLI never decide above OpenCode, and every narrowing is reported.

The runtimes are modelled here from what the real binaries showed (the
conformance tests, the fact sheet): an agent may use a tool for any input when
the tool is in its `tools` list, and not at all otherwise; each tool acts under
the OpenCode permissions below. Copilot also gives every agent `skill` and
`sql` (its todo list), whatever the list says, so those two are not held to
the property: each agent OpenCode does not allow them for must be told so
instead. For every agent, OpenCode permission and many inputs (every pattern
of the agent's rules made concrete, and more), the runtime's decision must not
be above OpenCode's (deny < ask < allow); where it is below, the rule that
decides the input in OpenCode must be among the reported losses. The bundles
are the repository's, the fixtures, and generated ones (tests/strategies.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings

from compiler import api, tool_lists
from compiler.permissions import KNOWN_KEYS, Rule, evaluate
from compiler.project import Project
from compiler.runtime import resolve
from compiler.translate import ENVIRONMENT
from tests import bundles, strategies

RANK = {"deny": 0, "ask": 1, "allow": 2}
COPILOT = {
    "read": {"read", "list"},  # view: files and folders
    "search": {"grep", "glob"},
    "edit": {"edit"},  # edit, create
    "execute": {"bash"},  # bash, read_bash, ...
    "agent": {"task"},
    "web": {"webfetch", "websearch"},  # web_fetch; web_search through GitHub's MCP server
}
COPILOT_ALWAYS = {"skill", "todowrite"}  # `skill` and `sql`
GEMINI = {
    "read_file": {"read"},
    "read_many_files": {"read"},
    "list_directory": {"list"},
    "glob": {"glob"},
    "grep_search": {"grep"},
    "replace": {"edit"},
    "write_file": {"edit"},
    "run_shell_command": {"bash"},
    "web_fetch": {"webfetch"},
    "google_web_search": {"websearch"},
    "write_todos": {"todowrite"},
    "ask_user": {"question"},
    "activate_skill": {"skill"},
}
TARGETS = {"copilot": COPILOT, "gemini": GEMINI}
# Every permission an OpenCode tool asks for (folders and repeated calls are not tools).
TOOL_PERMISSIONS = tuple(k for k in KNOWN_KEYS if k not in ("external_directory", "doom_loop"))
EXTRA = ("", "x", "git status", "git push origin main", "rm -rf /", ".env", "a/.env", "src/a.ts")
BUNDLES = {
    "repository": bundles.REPOSITORY,
    "claude": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
    "permissions": bundles.FIXTURES / "permissions",
}


@dataclass(frozen=True)
class Written:
    tools: tuple[str, ...]
    started: bool  # the main session may start it (Copilot: no `infer: false`)


def read_agents(target: str, files: Mapping[str, bytes]) -> dict[str, Written]:
    """The agents a target wrote, by name, as its runtime reads them."""
    folder = ".github/agents/" if target == "copilot" else ".gemini/agents/"
    found = {}
    for rel, data in files.items():
        if rel.startswith(folder) and rel.endswith(".md"):
            meta = yaml.safe_load(data.decode().split("---\n")[1])
            assert isinstance(meta["tools"], list), rel  # never left to the default: all
            found[meta["name"]] = Written(tuple(meta["tools"]), meta.get("infer") is not False)
    return found


def inputs(rules: tuple[Rule, ...], permission: str) -> tuple[str, ...]:
    """Every pattern written for the permission, made concrete several ways, and more."""
    found = set(EXTRA)
    for rule in rules:
        if rule.names(permission):
            for fill in ("", "x", "a b", "src/a/b.ts", ".env"):
                text = rule.pattern.replace("*", fill).replace("?", "q")
                found |= {text, f"{text} --flag", f"{text}/x", f"x{text}"}
    return tuple(sorted(found))


def decided(target: str, written: Written | None, permission: str) -> str:
    if target == "copilot" and permission in COPILOT_ALWAYS and written is not None:
        return "allow"
    tools = written.tools if written is not None else ()
    return "allow" if any(permission in TARGETS[target].get(t, ()) for t in tools) else "deny"


def decisions(
    target: str, project: Project, files: Mapping[str, bytes]
) -> Iterator[tuple[str, str, str, str, str, Rule | None]]:
    """(agent, permission, input, runtime decision, OpenCode decision, OpenCode's rule)."""
    written = read_agents(target, files)
    for agent in resolve(project, ENVIRONMENT).bundle_agents():
        rules = agent.effective(agent.mode != "primary")
        mine = written.get(tool_lists.runtime_name(agent.name))
        for permission in (*TOOL_PERMISSIONS, *project.config.custom_tools):
            for value in inputs(rules, permission):
                theirs = evaluate(rules, permission, value)
                ours = decided(target, mine, permission)
                yield agent.name, permission, value, ours, theirs.action, theirs.rule


def check(target: str, project: Project, files: Mapping[str, bytes]) -> list[tuple[Any, ...]]:
    """Every widening, and every narrowing the losses do not report."""
    found = tool_lists.plan(
        project, tool_lists.COPILOT if target == "copilot" else tool_lists.GEMINI
    )
    reported = {(loss.subject, loss.rule) for loss in found.losses}
    wrong = []
    for name, permission, value, ours, theirs, rule in decisions(target, project, files):
        always = target == "copilot" and permission in COPILOT_ALWAYS
        if RANK[ours] > RANK[theirs] and not always:
            wrong.append(("wider", name, permission, value, ours, theirs))
        narrowed = RANK[ours] < RANK[theirs] or (always and ours != theirs)
        if narrowed and rule is not None and name in found.tools and (name, rule) not in reported:
            wrong.append(("unreported", name, permission, value, ours, theirs, rule.text()))
    return wrong


def check_starts(target: str, project: Project, files: Mapping[str, bytes]) -> list[str]:
    """Agents the runtime's main session may start that OpenCode's `build` may not."""
    agents = resolve(project, ENVIRONMENT).agents
    build = agents["build"]
    ids = {tool_lists.runtime_name(a.name): a for a in agents.values() if not a.native}
    return [
        name
        for name, written in read_agents(target, files).items()
        if written.started
        and (
            ids[name].mode == "primary"
            or evaluate(build.rules, "task", ids[name].name).action != "allow"
        )
    ]


@functools.cache
def case(bundle: str, target: str) -> tuple[Project, dict[str, bytes]]:
    root = BUNDLES[bundle]
    files = bundles.render(root, target, lint_errors=bundle == "permissions")
    return bundles.project(root, target), files


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_no_agent_gets_more_than_in_opencode_and_every_narrowing_is_reported(
    bundle: str, target: str
) -> None:
    project, files = case(bundle, target)
    assert check(target, project, files) == []
    assert check_starts(target, project, files) == []


@pytest.mark.parametrize("target", list(TARGETS))
def test_the_property_is_not_vacuous(target: str) -> None:
    # Across the bundles, a tool is allowed somewhere and narrowed somewhere.
    found = {
        (ours, theirs)
        for bundle in BUNDLES
        for _, _, _, ours, theirs, _ in decisions(target, *case(bundle, target))
    }
    assert ("allow", "allow") in found
    assert ("deny", "allow") in found and ("deny", "ask") in found


@pytest.mark.parametrize(
    ("target", "folder", "tool"),
    [
        ("copilot", ".github/agents/smith.agent.md", "execute"),
        ("gemini", ".gemini/agents/smith.md", "run_shell_command"),
    ],
)
def test_the_property_catches_an_agent_file_that_grants_too_much(
    target: str, folder: str, tool: str
) -> None:
    project, files = case("claude", target)
    text = files[folder].decode()
    widened = re.sub(r"^tools:\n", f"tools:\n  - {tool}\n", text, count=1, flags=re.MULTILINE)
    widened = widened.replace("tools: []\n", f"tools:\n  - {tool}\n")
    assert widened != text
    wrong = check(target, project, {**files, folder: widened.encode()})
    assert ("wider", "smith", "bash") in {w[:3] for w in wrong}


def test_the_start_check_catches_a_primary_copilot_may_start() -> None:
    project, files = case("claude", "copilot")
    rel = ".github/agents/craftsman.agent.md"
    loosened = files[rel].replace(b"infer: false\n", b"")
    assert loosened != files[rel]
    assert check_starts("copilot", project, {**files, rel: loosened}) == ["craftsman"]


@settings(max_examples=40, deadline=None)
@given(files=strategies.tool_list_bundles())
def test_generated_permission_maps_never_get_more(files: dict[str, bytes]) -> None:
    strategies.tick("tool lists")
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=list(TARGETS))
        for target in TARGETS:
            emitted = {
                rel.removeprefix(f"{target}/"): data
                for rel, data in result.files.items()
                if rel.startswith(f"{target}/")
            }
            project = bundles.project(Path(root), target)
            assert check(target, project, emitted) == []
            assert check_starts(target, project, emitted) == []

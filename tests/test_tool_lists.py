"""Copilot CLI and Gemini CLI never decide above OpenCode.

Every call of a bundle's matrix (promptc_compiler.permissions.calls) is decided by OpenCode from
the specs and by the runtime's decision model (promptc_compiler.runtimes) from the files
the target wrote: the runtime's decision must never be above OpenCode's (deny
< ask < allow). The models themselves are held to the real CLIs by
tests/test_decisions_gemini.py and tests/test_decisions_copilot.py. The
bundles are the real-shape team, the fixtures, and generated ones
(tests/strategies.py). The main session of either runtime may start a
written agent only where OpenCode's default agent `build` may start it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings

from promptc_compiler import api
from promptc_compiler.core.project import Project
from promptc_compiler.permissions.ruleset import evaluate
from promptc_compiler.permissions.runtime import resolve
from promptc_compiler.runtimes.translation import ENVIRONMENT, flat_name
from tests import bundles, decisions, strategies

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py

TARGETS = ("copilot", "gemini")
BUNDLES = {
    "team": bundles.TEAM,
    "claude": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
    "permissions": bundles.FIXTURES / "permissions",
}
FOLDER = {"copilot": ".github/agents/", "gemini": "agents/"}


@dataclass(frozen=True)
class Written:
    tools: tuple[str, ...]
    started: bool  # the main session may start it (Copilot: no `infer: false`)


def read_agents(target: str, files: Mapping[str, bytes]) -> dict[str, Written]:
    """The agents a target wrote, by name, as its runtime reads them."""
    folder = FOLDER[target]
    found = {}
    for rel, data in files.items():
        if rel.startswith(folder) and rel.endswith(".md"):
            meta = yaml.safe_load(data.decode().split("---\n")[1])
            assert isinstance(meta["tools"], list), rel  # never left to the default: all
            found[meta["name"]] = Written(tuple(meta["tools"]), meta.get("infer") is not False)
    return found


def decided(target: str, project: Project, files: Mapping[str, bytes]) -> list[decisions.Decided]:
    """Every call of the matrix, as the target's model and OpenCode decide it."""
    texts = {rel: data.decode() for rel, data in files.items()}
    return decisions.decided(project, target, texts)


def wider(found: Iterable[decisions.Decided]) -> list[tuple[Any, ...]]:
    """Every call the target's model decides above OpenCode."""
    return [
        ("wider", d.call.agent, d.call.permission, d.call.input, d.model, d.opencode)
        for d in decisions.wider(found)
    ]


def check(target: str, project: Project, files: Mapping[str, bytes]) -> list[tuple[Any, ...]]:
    return wider(decided(target, project, files))


def check_starts(target: str, project: Project, files: Mapping[str, bytes]) -> list[str]:
    """Agents the runtime's main session may start that OpenCode's `build` may not."""
    agents = resolve(project, ENVIRONMENT).agents
    build = agents["build"]
    ids = {flat_name(a.name): a for a in agents.values() if not a.native}
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


@functools.cache
def case_decided(bundle: str, target: str) -> tuple[decisions.Decided, ...]:
    """A fixture's calls, decided once for the tests that read them."""
    return tuple(decided(target, *case(bundle, target)))


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_no_agent_gets_more_than_in_opencode_and_every_narrowing_is_reported(
    bundle: str, target: str
) -> None:
    project, files = case(bundle, target)
    assert wider(case_decided(bundle, target)) == []
    assert check_starts(target, project, files) == []


@pytest.mark.parametrize("target", list(TARGETS))
def test_the_property_is_not_vacuous(target: str) -> None:
    # Across the bundles, a call is allowed somewhere and narrowed somewhere.
    found = set()
    for bundle in BUNDLES:
        found |= {(d.model, d.opencode) for d in case_decided(bundle, target)}
    assert ("allow", "allow") in found
    assert ("deny", "allow") in found
    assert ("deny", "ask") in found


def test_the_property_catches_an_agent_file_that_grants_too_much() -> None:
    # Gemini: a tool added to a subagent's list; Copilot: an agent's hook taken
    # away (Copilot then runs read-only commands unasked, which OpenCode asks for).
    project, files = case("claude", "gemini")
    text = files["agents/smith.md"].decode()
    widened = re.sub(r"^tools:\n", "tools:\n  - ask_user\n", text, count=1, flags=re.MULTILINE)
    assert widened != text
    wrong = check("gemini", project, {**files, "agents/smith.md": widened.encode()})
    assert ("wider", "smith", "question") in {w[:3] for w in wrong}
    project, files = case("claude", "copilot")
    rel = ".github/agents/smith.agent.md"
    unhooked = files[rel].replace(b"\nhooks:\n", b"\nhooked:\n")
    assert unhooked != files[rel]
    wrong = check("copilot", project, {**files, rel: unhooked})
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

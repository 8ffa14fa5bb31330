"""Conformance: the real `opencode` (tests/package.json) loads what promptc emits, as promptc meant it.

Each bundle (tests/fixtures/team, a team of real shape, and
tests/fixtures/opencode with its awkward values) is emitted in memory through
the library API and written to a scratch project, because OpenCode writes
into the project it runs in (`.opencode/.gitignore`). The scratch project is a
fresh git repository, because OpenCode otherwise collects agents from every
`.opencode/` folder up to the file-system root.

Two runs per bundle answer everything:
- `opencode agent list`: every loaded agent, its mode and its resolved rule
  list (the same list `opencode debug agent NAME` prints; checked below);
- `opencode debug config`: the resolved configuration, holding every agent's
  frontmatter as OpenCode's YAML reader parsed it, and every command.

Isolating an agent's own rules: OpenCode builds the list as built-in defaults,
then the global config's `permission`, then opencode.json's, then the agent's,
then one rule it adds (the tool-output folder). The scratch HOME's global
config holds a single sentinel rule, so everything after the sentinel is the
project's and the agent's own rules, followed by that one added rule.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from promptc_compiler.core.project import Project
from promptc_compiler.permissions import runtime
from promptc_compiler.runtimes.opencode import target as opencode
from tests import bundles, oracle

# Each test starts a slow runtime (OpenCode, Gemini CLI): `make conformance` runs them.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

BUNDLES = {"team": bundles.TEAM, "fixture": bundles.FIXTURES / "opencode"}
# The agents OpenCode 1.18.33 defines itself; a bundle may override any of them.
NATIVE = {"build", "compaction", "explore", "general", "plan", "summary", "title"}
SENTINEL = {"permission": "promptc_sentinel", "pattern": "*", "action": "deny"}

Rule = tuple[str, str, str]


@dataclass(frozen=True)
class Loaded:
    """One bundle, emitted and loaded by the real binary."""

    project: Project
    root: Path
    home: Path
    agents: Mapping[str, tuple[str, list[Rule]]]  # `agent list`: id -> (mode, rules)
    config: Mapping[str, Any]  # `debug config`


def parse_agent_list(text: str) -> dict[str, tuple[str, list[Rule]]]:
    """`opencode agent list` output: `<name> (<mode>)` lines, each followed by a JSON list.

    Anything else in the output fails the parse, so a change of format shows.
    """
    header = re.compile(r"(?P<name>[^\n]+) \((?P<mode>primary|subagent|all)\)\n  ")
    decoder = json.JSONDecoder()
    agents: dict[str, tuple[str, list[Rule]]] = {}
    position = 0
    while position < len(text):
        match = header.match(text, position)
        assert match, f"unexpected agent list output at {position}: {text[position:][:200]!r}"
        rules, position = decoder.raw_decode(text, match.end())
        assert match["name"] not in agents, f"agent {match['name']} listed twice"
        agents[match["name"]] = (
            match["mode"],
            [(r["permission"], r["pattern"], r["action"]) for r in rules],
        )
        position += text[position:].startswith("\n")
    return agents


def run_ok(loaded_root: Path, home: Path, *args: str) -> str:
    done = oracle.run("opencode", list(args), loaded_root, home=home)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr or done.stdout
    return done.stdout


@pytest.fixture(scope="module", params=list(BUNDLES))
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    oracle.binary("opencode")  # skip (or fail in CI) before any work
    source = BUNDLES[request.param]
    root = tmp_path_factory.mktemp(f"opencode-{request.param}")
    for rel, data in bundles.render(source, "opencode").items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    home = tmp_path_factory.mktemp("home")
    global_config = home / ".config" / "opencode" / "opencode.json"
    global_config.parent.mkdir(parents=True)
    global_config.write_text(json.dumps({"permission": {SENTINEL["permission"]: "deny"}}))
    return Loaded(
        project=bundles.project(source, "opencode"),
        root=root,
        home=home,
        agents=parse_agent_list(run_ok(root, home, "agent", "list")),
        config=json.loads(run_ok(root, home, "debug", "config")),
    )


def enabled(project: Project) -> dict[str, str]:
    """id -> mode of every agent OpenCode should load (`disable: true` ones it drops)."""
    return {
        ident: runtime.agent_frontmatter(spec).get("mode", "all")
        for ident, spec in project.agents.items()
        if runtime.agent_frontmatter(spec).get("disable") is not True
    }


def test_agent_list_shows_every_agent_with_its_mode(loaded: Loaded) -> None:
    expected = enabled(loaded.project)
    assert expected, "the bundle has no enabled agent to check"
    listed = {name: mode for name, (mode, _) in loaded.agents.items()}
    assert {name: listed.get(name) for name in expected} == expected
    assert set(listed) - set(expected) == NATIVE - set(expected)


def test_every_agent_file_is_read_as_written(loaded: Loaded) -> None:
    """OpenCode's YAML reader sees each frontmatter exactly as promptc meant it, order included."""
    for ident, spec in loaded.project.agents.items():
        front = runtime.agent_frontmatter(spec)
        extra = {k: v for k, v in front.items() if k not in runtime.AGENT_KEYS}
        permission = front.get("permission", {})
        expected = {
            "name": ident,
            **front,
            "prompt": spec.body.strip(),
            "options": {**front.get("options", {}), **extra},
            "permission": {"*": permission} if isinstance(permission, str) else permission,
        }
        read = loaded.config["agent"][ident]
        assert read == expected, ident
        assert json.dumps(read["permission"]) == json.dumps(expected["permission"]), ident


def test_every_command_is_discovered(loaded: Loaded) -> None:
    expected = {
        ident: {**opencode.command_frontmatter(spec), "template": spec.body.strip()}
        for ident, spec in loaded.project.modes.items()
    }
    assert loaded.config["command"] == expected


def flatten(permission: Any, home: Path) -> Iterator[Rule]:
    """A permission map as OpenCode turns it into rules: source order, `~`/`$HOME` expanded."""
    if isinstance(permission, str):
        permission = {"*": permission}
    for key, value in permission.items():
        if isinstance(value, str):
            yield (key, "*", value)
            continue
        for pattern, action in value.items():
            yield (key, _expand(pattern, home), action)


def _expand(pattern: str, home: Path) -> str:
    if pattern == "~":
        return str(home)
    if pattern.startswith("~/"):
        return str(home) + pattern[1:]
    if pattern.startswith("$HOME"):
        return str(home) + pattern[5:]
    return pattern


def test_each_agent_ends_with_its_own_rules_in_source_order(loaded: Loaded) -> None:
    emitted_config = json.loads((loaded.root / "opencode.json").read_text())
    shared = list(flatten(emitted_config.get("permission", {}), loaded.home))
    tool_output = (
        "external_directory",
        f"{loaded.home}/.local/share/opencode/tool-output/*",
        "allow",
    )
    sentinel = (SENTINEL["permission"], SENTINEL["pattern"], SENTINEL["action"])
    for ident in enabled(loaded.project):
        _, rules = loaded.agents[ident]
        assert rules.count(sentinel) == 1, ident
        own = rules[rules.index(sentinel) + 1 :]
        front = runtime.agent_frontmatter(loaded.project.agents[ident])
        expected = [*shared, *flatten(front.get("permission", {}), loaded.home), tool_output]
        assert own == expected, ident


def test_debug_agent_prints_the_rules_agent_list_prints(loaded: Loaded) -> None:
    # One agent per bundle, the one with the most rules: `agent list` stands in
    # for N runs of `debug agent`, so the two must agree.
    ident = max(enabled(loaded.project), key=lambda name: len(loaded.agents[name][1]))
    shown = json.loads(run_ok(loaded.root, loaded.home, "debug", "agent", ident))
    rules = [(r["permission"], r["pattern"], r["action"]) for r in shown["permission"]]
    assert (shown["name"], shown["mode"], rules) == (ident, *loaded.agents[ident])

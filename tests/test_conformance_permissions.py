"""Conformance with the real OpenCode (opencode-ai 1.18.33, tests/package.json).

For the real-shape team (tests/fixtures/team) and the fixture bundle
(tests/fixtures/permissions, every tricky case on purpose), promptc's emitted
files are loaded by the real binary in a scratch project with a scratch HOME.
Then:

- every agent's resolved, ordered rule list (and mode) that promptc computes
  equals the one `opencode agent list` prints (every agent, OpenCode's own
  included) and the one `opencode debug agent NAME` prints (the trickiest
  fixture agents, and one team agent per model: each run costs seconds
  of CPU, and `agent list` prints the same lists, see
  test_agent_list_is_debug_agent); the machine-specific entries (the
  tool-output and temporary folders, `~` and `$HOME` expansions) are compared
  too, because promptc computes them from the same environment the binary sees;
- the tools `debug agent` shows as disabled are the ones promptc says;
- for at least 300 (permission, input) queries per agent, generated from the
  agent's own patterns, promptc's decision and deciding rule equal those of
  OpenCode's own `Permission.evaluate` and `Wildcard.match`, taken out of the
  binary (tests/opencode_js.py) and run by the binary's own JavaScript engine
  on the rule list OpenCode printed;
- for every agent, the tools promptc says are disabled equal those of
  OpenCode's own `Permission.disabled` (the function behind `debug agent`'s
  list), asked about every tool id `debug agent` showed and every permission
  the queries ask about;
- the rules a subagent session gets (`task: deny`, `todowrite: deny` unless
  mentioned) equal what the task tool's own function builds from that list.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from promptc_compiler import api
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import load_config
from promptc_compiler.core.project import make_project
from promptc_compiler.permissions.ruleset import (
    KNOWN_KEYS,
    TOOL_PERMISSION,
    Environment,
    Rule,
    disabled_tools,
    evaluate,
)
from promptc_compiler.permissions.runtime import Runtime, agent_frontmatter, resolve
from promptc_compiler.runtimes import TARGET_NAMES
from tests import opencode_js, oracle

# Each test starts a slow runtime (OpenCode, Gemini CLI): `make conformance` runs them.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BUNDLES = {"team": FIXTURES / "team", "fixture": FIXTURES / "permissions"}
MIN_QUERIES = 300


def _project(root: Path) -> Any:
    config = load_config(cwd=root)
    bundle = load_bundle(config)
    return make_project(
        config, bundle, compose_bundle(bundle, "opencode", TARGET_NAMES), "opencode"
    )


def bundle_agents(name: str) -> list[str]:
    """Agent ids of a bundle, read at collection time (disabled ones included)."""
    return sorted(_project(BUNDLES[name]).agents)


def one_per_model(name: str) -> tuple[str, ...]:
    """The first agent of each model a bundle names (OpenCode asks its tool registry
    for the tools of the agent's model)."""
    first: dict[object, str] = {}
    for ident, spec in sorted(_project(BUNDLES[name]).agents.items()):
        first.setdefault(agent_frontmatter(spec).get("model"), ident)
    return tuple(sorted(first.values()))


# Agents also checked with `debug agent` (all are checked with `agent list`).
# Each run costs seconds of CPU (OpenCode initialises its tools), so a few suffice:
# `agent list` prints the same rule lists for every agent, and
# test_agent_list_is_debug_agent shows the two agree; the tools a run shows
# disabled tie OpenCode's own Permission.disabled, asked about every agent, to
# the binary's output.
DEBUGGED = {"team": one_per_model("team"), "fixture": ("wildcards", "general", "home-paths")}


@dataclass
class Loaded:
    """A bundle emitted into a scratch project, as promptc and as OpenCode see it."""

    project: Path
    env: dict[str, str]
    runtime: Runtime
    listed: dict[str, tuple[str, list[dict[str, str]]]] = field(default_factory=dict)
    debug: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)


def _run(binary: Path, args: list[str], loaded: Loaded) -> subprocess.CompletedProcess[str]:
    return oracle.capture([str(binary), *args], loaded.project, loaded.env, 180)


def _agent_list(text: str) -> dict[str, tuple[str, list[dict[str, str]]]]:
    heads = list(re.finditer(r"^(\S+) \((primary|subagent|all)\)$", text, re.MULTILINE))
    found = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        found[head.group(1)] = (head.group(2), json.loads(text[head.end() : end]))
    return found


def _load(name: str, binary: Path, scratch: Path) -> Loaded:
    root = BUNDLES[name]
    config = load_config(cwd=root)
    files = api.render(config).files
    project = scratch / "project"
    for rel, data in files.items():
        if rel.startswith("opencode/"):
            path = project / rel.removeprefix("opencode/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    home = scratch / "home"
    home.mkdir()
    env = oracle.scratch_env(home)
    runtime = resolve(_project(root), Environment.from_environ(env, project))
    loaded = Loaded(project, env, runtime)
    listing = _run(binary, ["agent", "list"], loaded)
    assert listing.returncode == 0, listing.stderr
    loaded.listed = _agent_list(oracle._ANSI.sub("", listing.stdout))
    debugged = [*DEBUGGED[name], "off"] if name == "fixture" else list(DEBUGGED[name])
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = pool.map(lambda a: _run(binary, ["debug", "agent", a], loaded), debugged)
        loaded.debug = dict(zip(debugged, outputs, strict=True))
    return loaded


@pytest.fixture(scope="session")
def opencode() -> Path:
    return oracle.binary("opencode").resolve()


@pytest.fixture(scope="session")
def loaded(opencode: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Loaded]]:
    cache: dict[str, Loaded] = {}

    class Lazy(dict[str, Loaded]):
        def __missing__(self, key: str) -> Loaded:
            cache[key] = _load(key, opencode, tmp_path_factory.mktemp(f"oc-{key}"))
            self[key] = cache[key]
            return cache[key]

    yield Lazy()
    for item in cache.values():
        shutil.rmtree(item.project.parent, ignore_errors=True)


def _as_json(rules: tuple[Rule, ...]) -> list[dict[str, str]]:
    return [r.as_json() for r in rules]


@pytest.mark.parametrize("bundle", sorted(BUNDLES))
def test_opencode_loads_exactly_the_agents_promptc_resolves(
    loaded: dict[str, Loaded], bundle: str
) -> None:
    item = loaded[bundle]
    assert sorted(item.listed) == sorted(item.runtime.agents)


@pytest.mark.parametrize("bundle", sorted(BUNDLES))
def test_agent_list_rules_equal_promptc(loaded: dict[str, Loaded], bundle: str) -> None:
    item = loaded[bundle]
    for name, (mode, rules) in item.listed.items():
        mine = item.runtime.agents[name]
        assert (name, mine.mode, _as_json(mine.rules)) == (name, mode, rules)


DEBUG_CASES = [(bundle, agent) for bundle in sorted(BUNDLES) for agent in DEBUGGED[bundle]]


@pytest.mark.parametrize(("bundle", "agent"), DEBUG_CASES)
def test_debug_agent_rules_equal_promptc(
    loaded: dict[str, Loaded], bundle: str, agent: str
) -> None:
    item = loaded[bundle]
    done = item.debug[agent]
    if agent not in item.runtime.agents:  # disabled: OpenCode must not know it either
        assert done.returncode == 1
        assert f"Agent {agent} not found" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    mine = item.runtime.agents[agent]
    assert printed["mode"] == mine.mode
    assert printed["permission"] == _as_json(mine.rules)
    hidden = disabled_tools(printed["tools"], mine.rules)
    assert {t for t, on in printed["tools"].items() if not on} == hidden


@pytest.mark.parametrize(("bundle", "agent"), DEBUG_CASES)
def test_agent_list_is_debug_agent(loaded: dict[str, Loaded], bundle: str, agent: str) -> None:
    item = loaded[bundle]
    if agent not in item.listed:  # disabled: checked by test_debug_agent_rules_equal_promptc
        return
    printed = json.loads(item.debug[agent].stdout)
    assert (printed["mode"], printed["permission"]) == item.listed[agent]


def test_a_disabled_agent_is_unknown_to_opencode(loaded: dict[str, Loaded]) -> None:
    done = loaded["fixture"].debug["off"]
    assert done.returncode == 1
    assert "Agent off not found" in done.stderr


def _variants(pattern: str, home: str) -> Iterator[str]:
    yield pattern
    for fill in ("", "x", "a/b", "x y", "\n", "..", "*"):
        yield pattern.replace("*", fill)
    for fill in ("q", "", "qq", "\U0001f600", "/"):
        yield pattern.replace("?", fill)
    yield pattern + "x"
    yield "x" + pattern
    yield pattern + " --flag"
    yield pattern[:-1]
    yield pattern[1:]
    yield pattern.upper()
    yield pattern.replace("/", "\\")
    if pattern.endswith(" *"):
        yield pattern[:-2]
        yield pattern[:-2] + "x"
    if pattern.startswith(home):
        yield "~" + pattern[len(home) :]


COMMON = [
    "",
    "*",
    "rm -rf /",
    "git push origin main",
    "git status",
    "/etc/passwd",
    "src/app.ts",
    ".env",
    "a.env.example",
    "https://example.com",
    "general",
    "explore",
    "C:\\Users\\x",
]


def permissions_asked(rules: list[dict[str, str]]) -> list[str]:
    """The agent's own permissions (wildcards filled in), every known key, and a few others."""
    perms = list(dict.fromkeys([r["permission"] for r in rules]))
    perms += [
        p for p in (*KNOWN_KEYS, "mcp_search", "plan_db", "Bash", "context7_x") if p not in perms
    ]
    perms = [p.replace("*", "x").replace("?", "q") if "*" in p or "?" in p else p for p in perms]
    return list(dict.fromkeys(perms))


def queries(rules: list[dict[str, str]], names: list[str], home: str) -> list[tuple[str, str]]:
    """Deterministic (permission, input) pairs drawn from the agent's own patterns."""
    found: dict[tuple[str, str], None] = {}
    for perm in permissions_asked(rules):
        inputs = [*COMMON, *names, home, home + "/notes/a"]
        for rule in rules:
            if rule["permission"] in (perm, "*") or "*" in rule["permission"]:
                inputs += list(_variants(rule["pattern"], home))
        for text in dict.fromkeys(inputs):
            found[(perm, text)] = None
    return list(found)


def shown_tools(loaded: dict[str, Loaded]) -> list[str]:
    """Every tool id `debug agent` showed, for any agent of either bundle."""
    found: set[str] = set()
    for bundle in sorted(BUNDLES):
        for done in loaded[bundle].debug.values():
            if done.returncode == 0:
                found.update(json.loads(done.stdout)["tools"])
    assert found, "no `debug agent` run showed a tool"
    return sorted(found)


@dataclass(frozen=True)
class Answered:
    """One agent's questions to OpenCode's own code, and its answers."""

    asked: list[tuple[str, str]]  # (permission, input) queries
    decided: list[tuple[str, int]]  # per query: action, index of the deciding rule or -1
    session: list[dict[str, str]]  # rules the task tool adds to a subagent session
    tools: list[str]  # tool ids asked about
    hidden: set[str]  # those Permission.disabled turns off


Decisions = dict[tuple[str, str], Answered]


@pytest.fixture(scope="session")
def decisions(loaded: dict[str, Loaded], opencode: Path) -> Decisions:
    """For every agent of both bundles: its queries, OpenCode's answers, the rules
    OpenCode's task tool adds when it starts the agent as a subagent, and the tools
    its rules disable; one process."""
    shown = shown_tools(loaded)
    batches = []
    keys = []
    for bundle in sorted(BUNDLES):
        item = loaded[bundle]
        home = item.env["HOME"]
        for name, (_, rules) in sorted(item.listed.items()):
            keys.append((bundle, name))
            tools = sorted({*shown, *TOOL_PERMISSION, *permissions_asked(rules)})
            asked = queries(rules, sorted(item.listed), home)
            batches.append(opencode_js.Batch(rules, asked, tools))
    answers = opencode_js.run(opencode, loaded["fixture"].env, batches)
    return {
        key: Answered(batch.queries, decided, session, batch.tools, hidden)
        for key, batch, decided, session, hidden in zip(
            keys, batches, answers.decisions, answers.sessions, answers.hidden, strict=True
        )
    }


ALL_AGENTS = (
    [("team", a) for a in bundle_agents("team")]
    + [("fixture", a) for a in bundle_agents("fixture")]
    + [("fixture", native) for native in ("build", "plan", "explore", "compaction")]
)


@pytest.mark.parametrize(("bundle", "agent"), ALL_AGENTS)
def test_decisions_equal_opencode_evaluate(
    loaded: dict[str, Loaded], decisions: Decisions, bundle: str, agent: str
) -> None:
    if agent not in loaded[bundle].listed:  # disabled: OpenCode has nothing to decide
        assert agent not in loaded[bundle].runtime.agents
        return
    asked, answered = decisions[(bundle, agent)].asked, decisions[(bundle, agent)].decided
    assert len(asked) >= MIN_QUERIES
    rules = loaded[bundle].runtime.agents[agent].rules
    mine = []
    for permission, text in asked:
        decision = evaluate(rules, permission, text)
        index = next((i for i in range(len(rules) - 1, -1, -1) if rules[i] is decision.rule), -1)
        mine.append((decision.action, index))
    wrong = [(q, m, o) for q, m, o in zip(asked, mine, answered, strict=True) if m != o]
    assert wrong == []


@pytest.mark.parametrize(("bundle", "agent"), ALL_AGENTS)
def test_subagent_session_rules_equal_opencode(
    loaded: dict[str, Loaded], decisions: Decisions, bundle: str, agent: str
) -> None:
    if agent not in loaded[bundle].listed:
        return
    mine = loaded[bundle].runtime.agents[agent].session_rules()
    assert [r.as_json() for r in mine] == decisions[(bundle, agent)].session


@pytest.mark.parametrize(("bundle", "agent"), ALL_AGENTS)
def test_disabled_tools_equal_opencode_disabled(
    loaded: dict[str, Loaded], decisions: Decisions, bundle: str, agent: str
) -> None:
    if agent not in loaded[bundle].listed:
        return
    answered = decisions[(bundle, agent)]
    mine = disabled_tools(answered.tools, loaded[bundle].runtime.agents[agent].rules)
    assert mine == answered.hidden


@pytest.mark.parametrize(("bundle", "agent"), DEBUG_CASES)
def test_debug_agent_hides_what_permission_disabled_hides(
    loaded: dict[str, Loaded], decisions: Decisions, bundle: str, agent: str
) -> None:
    """The extracted function is the one behind `debug agent`'s tool list."""
    # A disabled agent: checked by test_debug_agent_rules_equal_promptc.
    if agent not in loaded[bundle].listed:
        return
    tools = json.loads(loaded[bundle].debug[agent].stdout)["tools"]
    answered = decisions[(bundle, agent)]
    assert set(tools) <= set(answered.tools)
    assert {t for t, on in tools.items() if not on} == answered.hidden & set(tools)


def test_the_extracted_code_is_opencodes(opencode: Path) -> None:
    found = opencode_js.locate(opencode)
    answers = opencode_js.run(opencode, oracle.scratch_env(Path("/nonexistent")), [], [])
    assert 'replace(/\\*/g,".*")' in answers.match_source
    assert answers.match_source.startswith(f"function {found.match_name}(")
    assert ".findLast(" in answers.evaluate_source
    assert answers.disabled_source.startswith(f"function {found.disabled_name}(")
    assert '["edit","write","apply_patch"]' in answers.disabled_source
    assert '.pattern==="*"&&' in answers.disabled_source
    assert '.action==="deny"' in answers.disabled_source
    assert '??{action:"ask"' in answers.evaluate_source
    assert 'permission:"task",pattern:"*",action:"deny"' in answers.session_source


ALPHABET = [
    "a",
    "b",
    " ",
    "*",
    "?",
    "/",
    "\\",
    ".",
    "+",
    "(",
    "|",
    "[",
    "]",
    "^",
    "$",
    "\n",
    "\U0001f600",
    "~",
]


def _strings(size: int, count: int, seed: int) -> list[str]:
    import random

    rng = random.Random(seed)
    return [
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, size))) for _ in range(count)
    ]


def test_wildcard_match_equals_opencode_on_random_pairs(opencode: Path) -> None:
    from promptc_compiler.permissions.wildcard import match

    texts = _strings(6, 1500, 1)
    patterns = _strings(5, 1500, 2)
    pairs = [*zip(texts, patterns, strict=True), *((p.replace("*", "ab"), p) for p in patterns)]
    answers = opencode_js.run(opencode, oracle.scratch_env(Path("/nonexistent")), [], pairs)
    mine = [match(t, p) for t, p in pairs]
    wrong = [(t, p, m) for (t, p), m, o in zip(pairs, mine, answers.matches, strict=True) if m != o]
    assert wrong == []
    assert any(answers.matches)
    assert not all(answers.matches)

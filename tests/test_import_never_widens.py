"""`promptc import` never widens: a runtime's folder imported into specs decides
no call more permissively than the runtime itself decided it (deny < ask < allow).

For every hand-written folder under tests/fixtures/import (and, for Claude
Code, generated ones), the folder is imported into a fresh bundle and every
call of the imported bundle's matrix (promptc_compiler.permissions.calls.matrix) is decided twice:
by OpenCode from the imported specs (promptc_compiler.permissions.calls.decide), and by the source
runtime's decision model (promptc_compiler.runtimes) from the ORIGINAL folder, the same
model a build proves its output with. The models are held to the real CLIs by
the decision tests (tests/test_decisions_<runtime>.py) and, for what only a
hand-written folder has, by tests/test_import_oracles.py.

A runtime names an agent by its file's `name` (Codex by the role's `name`),
the import by its file path: the calls are put to the model in the runtime's
names.
"""

from __future__ import annotations

import json
import tempfile
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.core.project import Project
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import RANK, Call, Decided, Model, Verdict
from promptc_compiler.permissions.runtime import Runtime
from promptc_compiler.pipeline import importer
from promptc_compiler.runtimes import MODELS
from promptc_compiler.runtimes.copilot import import_ as copilot_import
from promptc_compiler.runtimes.copilot.tools import COPILOT
from promptc_compiler.runtimes.gemini import import_ as gemini_import
from promptc_compiler.runtimes.gemini.tools import GEMINI
from tests import bundles
from tests.strategies import CLAUDE_AGENTS, SCRATCH, ci_examples, claude_agent_meta, tick
from tests.strategies import claude_settings as claude_settings_docs

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py

FIXTURES = bundles.FIXTURES / "import"
# Hand-written folders, by the runtime they are written for.
SOURCES = {
    "claude": ("claude", "claude-session", "claude-dontask"),
    "codex": ("codex", "codex-never"),
    "copilot": ("copilot",),
    "gemini": ("gemini",),
}


@dataclass(frozen=True)
class Compared:
    call: Call  # in OpenCode's names
    opencode: Decided
    runtime: Verdict

    @property
    def wider(self) -> bool:
        return RANK[self.opencode.action] > RANK[self.runtime.action]

    def describe(self) -> str:
        return (
            f"{self.call.describe()}: OpenCode {self.opencode.action} "
            f"({self.opencode.reason()}), the runtime {self.runtime.action} ({self.runtime.why})"
        )


def original(kind: str, folder: Path) -> dict[str, str]:
    """The runtime's folder as its model reads it: path under the project -> text."""
    root = importer.source_root(kind, folder)
    return {
        path.relative_to(root.parent).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def runtime_names(kind: str, files: Mapping[str, str]) -> dict[str, str]:
    """Imported agent id -> the name the runtime knows the agent by."""
    folder = f"{importer.LAYOUTS[kind]}/agents/"
    found: dict[str, str] = {}
    for rel, text in files.items():
        if not rel.startswith(folder):
            continue
        ident = rel[len(folder) :]
        if kind == "codex":
            ident = ident.removesuffix(".toml")
            name = tomllib.loads(text).get("name")
        else:
            ident = ident.removesuffix(".md").removesuffix(".agent" if kind == "copilot" else "")
            front = yaml.safe_load(text[4:].split("\n---", 1)[0])
            name = front.get("name") if isinstance(front, dict) else None
        found[ident] = name if isinstance(name, str) else ident.replace("/", "-")
    return found


def imported(kind: str, folder: Path, bundle: Path) -> None:
    """Import `folder` into the empty folder `bundle`, as `promptc import` writes it."""
    plan = importer.plan_import(kind, folder, load_config(cwd=bundle))
    errors = [note for note in plan.notes if note.severity.value == "error"]
    assert not errors, errors
    importer.write(plan, bundle)
    (bundle / "promptc.toml").write_text(importer.config_toml(plan.config), encoding="utf-8")


def compared(kind: str, folder: Path, bundle: Path) -> list[Compared]:
    """Every call of the imported bundle's matrix: OpenCode's decision from the
    imported specs beside the runtime's from the original folder."""
    side = _Sides.of(kind, folder, bundle)
    found = []
    for call in calls.matrix(side.project, side.runtime):
        theirs = replace(call, agent=side.names.get(call.agent, call.agent))
        if call.permission == "task":
            theirs = replace(theirs, input=side.names.get(call.input, call.input))
        found.append(side.compare(call, theirs))
    return found


@dataclass(frozen=True)
class _Sides:
    """An imported bundle's OpenCode runtime beside the original folder's model."""

    project: Project
    runtime: Runtime
    model: Model
    names: Mapping[str, str]  # imported agent -> the runtime's own name

    @classmethod
    def of(cls, kind: str, folder: Path, bundle: Path) -> _Sides:
        imported(kind, folder, bundle)
        files = original(kind, folder)
        project = bundles.project(bundle, "opencode")
        model = MODELS[kind][1](files)
        return cls(project, calls.runtime_of(project), model, runtime_names(kind, files))

    def compare(self, call: Call, theirs: Call) -> Compared:
        return Compared(call, calls.decide(self.runtime, call), self.model.decide(theirs))


def figures(name: str, found: Sequence[Compared]) -> str:
    usable = [c for c in found if c.runtime.action != "deny"]
    kept = [c for c in usable if c.opencode.action != "deny"]
    share = 100 * len(kept) // len(usable) if usable else 100
    wider = sum(c.wider for c in found)
    return (
        f"import {name}: {len(found)} calls, {wider} wider; OpenCode keeps {share}% of the "
        f"{len(usable)} calls the runtime lets the agents make"
    )


Imports = Callable[[str, str], tuple[list[Compared], Path]]


@pytest.fixture(scope="module")
def imports(tmp_path_factory: pytest.TempPathFactory) -> Imports:
    """(the calls compared, the bundle) of a fixture folder, imported once for the
    module: the tests below read the same comparisons."""
    done: dict[tuple[str, str], tuple[list[Compared], Path]] = {}

    def imported_folder(kind: str, name: str) -> tuple[list[Compared], Path]:
        if (kind, name) not in done:
            bundle = tmp_path_factory.mktemp(name)
            done[kind, name] = (compared(kind, FIXTURES / name, bundle), bundle)
        return done[kind, name]

    return imported_folder


@pytest.mark.parametrize(
    ("kind", "name"), [(kind, name) for kind, names in SOURCES.items() for name in names]
)
def test_an_imported_folder_decides_no_call_wider_than_its_runtime(
    kind: str, name: str, imports: Imports
) -> None:
    found, bundle = imports(kind, name)
    print(figures(name, found))
    agents = {c.call.agent for c in found}
    assert len(agents) == len(runtime_names(kind, original(kind, FIXTURES / name))), agents
    wider = [c.describe() for c in found if c.wider]
    assert not wider, f"{len(wider)} wider:\n" + "\n".join(wider[:20])
    # What the import writes is a bundle promptc takes as it is (the lint that
    # `promptc import` runs at its end finds no error in it).
    errors = [
        d for d in api.lint(load_config(cwd=bundle)).diagnostics if d.severity.value == "error"
    ]
    assert not errors, errors


# Codex matches a rule, and its forced-`rm` check, on the basename of a first word
# given as a path (tests/test_import_oracles.py holds that to the real CLI); the
# matrix names commands, so each of its lines is put again by path.
BY_PATH = ("/usr/bin/{}", "./{}", "tools/{}")


def by_path(kind: str, folder: Path, bundle: Path, lines: Sequence[str] = ()) -> list[Compared]:
    """Each bash line of the imported bundle's matrix (and `lines`) with its first
    word spelt as a path, OpenCode's decision beside the runtime's."""
    side = _Sides.of(kind, folder, bundle)
    found = []
    for call in calls.matrix(side.project, side.runtime):
        first, _, rest = call.input.partition(" ")
        if call.permission != "bash" or not first.isalnum():
            continue
        for spelling in BY_PATH:
            spelt = replace(call, input=f"{spelling.format(first)} {rest}".strip())
            found.append(
                side.compare(spelt, replace(spelt, agent=side.names.get(call.agent, call.agent)))
            )
    for agent in side.names:
        for line in lines:
            call = Call(agent, "bash", line, delegated=True)
            found.append(side.compare(call, call))
    return found


@pytest.mark.parametrize("name", SOURCES["codex"])
def test_a_command_named_by_its_path_is_decided_no_wider_than_codex_does(
    name: str, tmp_path: Path
) -> None:
    found = by_path("codex", FIXTURES / name, tmp_path)
    wider = [c.describe() for c in found if c.wider]
    assert not wider, f"{len(wider)} wider:\n" + "\n".join(wider[:20])
    # Something to hold: rules by path that refuse, and commands by path still run.
    seen = {(c.runtime.action, c.opencode.action) for c in found}
    assert {("deny", "deny"), ("allow", "allow")} <= seen, seen


def test_a_forced_rm_named_by_its_path_asks_as_in_codex(tmp_path: Path) -> None:
    """No rule names `rm`: Codex's own check asks for a forced one by any path, and
    so does the import; an `rm` that is not forced, or a path that only ends a
    later word, runs in Codex (the second asks in the import: narrower)."""
    source = tmp_path / "source/.codex"
    (source / "agents").mkdir(parents=True)
    (source / "agents/lead.toml").write_text(
        'name = "lead"\ndescription = "Leads."\ndeveloper_instructions = "Lead."\n'
    )
    (source / "rules").mkdir()
    (source / "rules/default.rules").write_text(
        'prefix_rule(pattern = ["npm", "test"], decision = "allow")\n'
    )
    lines = ("/bin/rm -rf build", "/usr/bin/sudo rm -f x", "sudo ./rm -f x", "/bin/rm x")
    found = {c.call.input: c for c in by_path("codex", tmp_path / "source", tmp_path / "b", lines)}
    decided = {line: (found[line].runtime.action, found[line].opencode.action) for line in lines}
    assert decided == {
        "/bin/rm -rf build": ("ask", "ask"),
        "/usr/bin/sudo rm -f x": ("ask", "ask"),
        "sudo ./rm -f x": ("ask", "ask"),
        "/bin/rm x": ("allow", "allow"),
    }
    assert not [c.describe() for c in found.values() if c.wider]


def test_the_fixtures_exercise_every_decision(imports: Imports) -> None:
    """The folders give the comparison something to hold: for each runtime, calls
    it allows, asks about and refuses, and OpenCode agreeing with each."""
    for kind, names in SOURCES.items():
        seen: set[tuple[str, str]] = set()
        for name in names:
            seen |= {(c.runtime.action, c.opencode.action) for c in imports(kind, name)[0]}
        assert {("allow", "allow"), ("ask", "ask"), ("deny", "deny")} <= seen, (kind, seen)


# --- generated Claude Code folders --------------------------------------------------------


def _claude_folder(
    root: Path, agents: Sequence[Mapping[str, Any]], docs: Sequence[Mapping[str, Any]]
) -> Path:
    folder = root / "source/.claude/agents"
    folder.mkdir(parents=True)
    for name, meta in zip(CLAUDE_AGENTS, agents, strict=False):
        front = yaml.safe_dump({"name": name, **meta}, sort_keys=False)
        (folder / f"{name}.md").write_text(f"---\n{front}---\nBody of {name}.\n")
    for file, doc in zip(("settings.json", "settings.local.json"), docs, strict=False):
        (root / "source/.claude" / file).write_text(json.dumps(doc))
    return root / "source"


@settings(max_examples=ci_examples(40), deadline=None)
@given(
    agents=st.lists(claude_agent_meta(), min_size=1, max_size=3),
    docs=st.lists(claude_settings_docs(), max_size=2),
)
# Found by the search: an agent's own mode asks where the session's `dontAsk`
# denies, for a tool Claude Code never offers here (TodoWrite): it stays denied.
@example(
    agents=[{"description": "An agent of the default mode.", "permissionMode": "default"}],
    docs=[
        {"permissions": {"defaultMode": "default"}},
        {"permissions": {"ask": ["TodoWrite"], "defaultMode": "dontAsk"}},
    ],
)
# ...and `Edit(./.env)`, imported as `.env` at any depth: so Claude Code 2.1.332
# reads it too (`./` anchors nothing), which the model once did not.
@example(
    agents=[{"description": "An agent of the default mode.", "permissionMode": "default"}],
    docs=[{"permissions": {"allow": ["Edit(./.env)"], "defaultMode": "default"}}],
)
def test_imported_claude_agents_never_decide_wider_than_claude_code(
    agents: list[dict[str, Any]], docs: list[dict[str, Any]]
) -> None:
    tick("import-never-widens")
    with tempfile.TemporaryDirectory(prefix="promptc-import-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        source = _claude_folder(root, agents, docs)
        (root / "bundle").mkdir()
        found = compared("claude", source, root / "bundle")
    wider = [c.describe() for c in found if c.wider]
    assert not wider, "\n".join(wider[:10])


# --- generated Gemini CLI and Copilot CLI folders -----------------------------------------

# What a hand-written `tools` list may hold: every tool and alias the runtime
# takes, MCP names, wildcards and a name it does not have.
LIST_TOOLS = {
    "gemini": [
        *(tool for tool, _ in GEMINI.tools),
        *gemini_import.OWN_NAMES,
        *("mcp_github_*", "mcp_*", "*", "no_such_tool"),
    ],
    "copilot": [
        *(tool for tool, _ in COPILOT.tools),
        *copilot_import.OWN_NAMES,
        *("github/*", "todo", "*", "no-such-tool"),
    ],
}
LIST_FILES = {"gemini": ".gemini/agents/{}.md", "copilot": ".github/agents/{}.agent.md"}


@st.composite
def list_folders(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    """A Gemini or Copilot agent folder: up to three agents, each with a `tools`
    list (or none), Copilot's maybe with `infer: false`."""
    kind = draw(st.sampled_from(sorted(LIST_FILES)))
    files = {}
    for name in draw(st.lists(st.sampled_from(CLAUDE_AGENTS), min_size=1, unique=True)):
        meta: dict[str, Any] = {"name": name, "description": f"The {name}."}
        if draw(st.integers(0, 3)):
            meta["tools"] = draw(st.lists(st.sampled_from(LIST_TOOLS[kind]), unique=True))
        if kind == "copilot" and draw(st.integers(0, 3)) == 0:
            meta["infer"] = False
        front = yaml.safe_dump(meta, sort_keys=False)
        files[LIST_FILES[kind].format(name)] = f"---\n{front}---\nBody of {name}.\n"
    return kind, files


@settings(max_examples=ci_examples(30), deadline=None)
@given(list_folders())
def test_imported_gemini_and_copilot_agents_never_decide_wider(
    drawn: tuple[str, dict[str, str]],
) -> None:
    tick("import-lists-never-widen")
    kind, files = drawn
    with tempfile.TemporaryDirectory(prefix="promptc-import-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        for rel, text in files.items():
            (root / "source" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "source" / rel).write_text(text)
        (root / "bundle").mkdir()
        found = compared(kind, root / "source", root / "bundle")
    wider = [c.describe() for c in found if c.wider]
    assert not wider, "\n".join(wider[:10])

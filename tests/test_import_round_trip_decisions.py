"""Round trips for Codex, Gemini and Copilot: import a runtime's folder, build the
imported bundle for the same runtime, and the runtime decides every call as before
from files that say the same.

Decisions: the runtime's decision model (promptc_compiler.runtimes, held to the real CLIs
by tests/test_decisions_<runtime>.py) reads the original folder and the rebuilt
one; every call of the imported bundle's matrix (promptc_compiler.permissions.calls.matrix), put in
the names the runtime knows the agents by, is decided by both. Files: every
agent comes back under the name the runtime knew it by, with its instructions
byte for byte and its description. Hand-written folders under
tests/fixtures/import and generated ones (hypothesis) for each runtime.
"""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
import tempfile
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import RANK, Call, Verdict
from promptc_compiler.runtimes import MODELS
from promptc_compiler.runtimes.codex.decide import plain_commands
from promptc_compiler.runtimes.codex.translate import SHELLS
from tests import bundles, oracle
from tests.codex.test_conformance_codex import roles_listed, startup_warnings
from tests.conftest import AGENT, MakeBundle, Run
from tests.strategies import SCRATCH, ci_examples, tick
from tests.test_import_never_widens import imported, list_folders, original, runtime_names

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py

FIXTURES = bundles.FIXTURES / "import"


@dataclass(frozen=True)
class Differs:
    call: Call  # in the runtime's names
    before: Verdict
    after: Verdict
    spec: str  # what OpenCode decides from the imported spec

    def describe(self) -> str:
        return (
            f"{self.call.describe()}: before {self.before.action} ({self.before.why}), "
            f"after {self.after.action} ({self.after.why}), the spec {self.spec}"
        )


def rebuilt(kind: str, bundle: Path) -> dict[str, str]:
    """The imported bundle built for `kind`, as paths the runtime's model reads."""
    config = bundle / "promptc.toml"
    text = config.read_text(encoding="utf-8")
    if f"[targets.{kind}]" not in text:
        config.write_text(f"{text}\n[targets.{kind}]\n", encoding="utf-8")
    files = bundles.render(bundle, kind)
    return {rel: data.decode("utf-8") for rel, data in files.items()}


def agent_files(kind: str, files: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Each agent as the runtime knows it: name -> its keys (the body as `body`)."""
    found: dict[str, dict[str, Any]] = {}
    for rel, text in files.items():
        if kind == "codex":
            if rel.startswith(".codex/agents/") and rel.endswith(".toml"):
                data = tomllib.loads(text)
                data["body"] = data.pop("developer_instructions", None)
                found[str(data.get("name"))] = data
            continue
        folders = (".github/agents/",) if kind == "copilot" else ("agents/", ".gemini/agents/")
        if rel.startswith(folders) and rel.endswith(".md") and text.startswith("---\n"):
            head, _, body = text[4:].partition("\n---\n")
            front = yaml.safe_load(head)
            if isinstance(front, dict) and "description" in front:
                name = front.get("name") or rel.rsplit("/", 1)[-1].split(".", 1)[0]
                found[str(name)] = {**front, "body": body}
    return found


def descriptions(kind: str, files: Mapping[str, str]) -> dict[str, str]:
    """Codex: a role's description, from its file or from config.toml's `[agents]`."""
    agents = agent_files(kind, files)
    found = {name: str(data.get("description", "")) for name, data in agents.items()}
    if kind == "codex":
        table = tomllib.loads(files.get(".codex/config.toml", "")).get("agents", {})
        for name, entry in table.items():
            if isinstance(entry, dict) and not found.get(name, "").strip():
                found[name] = str(entry.get("description", ""))
    return found


def round_trip(kind: str, source: Path, root: Path) -> tuple[list[Differs], dict[str, str]]:
    """(calls decided differently, rebuilt files): `source` imported into a
    bundle under `root`, built for `kind`."""
    bundle = root / "bundle"
    bundle.mkdir()
    imported(kind, source, bundle)
    before_files = original(kind, source)
    after_files = rebuilt(kind, bundle)
    names = runtime_names(kind, before_files)
    before = MODELS[kind][1](before_files)
    after = MODELS[kind][1](after_files)
    project = bundles.project(bundle, "opencode")
    runtime = calls.runtime_of(project)
    differs = []
    for call in calls.matrix(project, runtime):
        theirs = replace(call, agent=names.get(call.agent, call.agent))
        if call.permission == "task":
            theirs = replace(theirs, input=names.get(call.input, call.input))
        old, new = before.decide(theirs), after.decide(theirs)
        if old.action != new.action:
            spec = calls.decide(runtime, call).action
            differs.append(Differs(theirs, old, new, spec))
    return differs, after_files


def commands(files: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Gemini's commands, by name: their TOML keys (the prompt as Gemini reads it)."""
    found = {}
    for rel, text in files.items():
        for folder in ("commands/", ".gemini/commands/"):
            if rel.startswith(folder) and rel.endswith(".toml"):
                found[rel[len(folder) : -len(".toml")]] = tomllib.loads(text)
    return found


# --- what the round trip may narrow, runtime by runtime -----------------------------------
#
# Each is a call the rebuilt files decide more narrowly than the original, for a
# reason the target documents (docs/targets/<runtime>.md); any other difference
# fails. Never wider: a call the rebuilt files decide more permissively always fails.


def _codex_narrows(differs: Differs, files: Mapping[str, str]) -> bool:
    call = differs.call
    config = tomllib.loads(files.get(".codex/config.toml", ""))
    # With `approval_policy = "never"` Codex asks nobody: what it would ask, it refuses.
    if config.get("approval_policy") == "never" and differs.before.action == "ask":
        return differs.after.action == "deny"
    # The target writes the workspace-write sandbox; with none (the user's own
    # settings decide: the model takes the widest) apply_patch writes anywhere.
    if call.permission == "edit" and config.get("sandbox_mode") is None:
        return differs.after.action == "ask"
    if call.permission != "bash":
        return False
    lines = plain_commands(call.input)
    # A line that is not plain words reaches the rules as `bash -lc <line>`, hiding
    # its commands: when a role's rules ask or deny anything, the target asks or
    # forbids such lines, with one rule on the shells themselves.
    if lines is None:
        return True
    # Codex asks before a forced `rm` no rule names; OpenCode's patterns for it are
    # wider (`rm *-*f*`), so the target prompts for `rm` (and `sudo rm`) as a whole,
    # by any path (Codex matches the basename of a first word given as a path).
    return any(posixpath.basename(words[0]) in ("rm", "sudo", *SHELLS) for words in lines)


NARROWS: dict[str, Callable[[Differs, Mapping[str, str]], bool]] = {"codex": _codex_narrows}


def check_round_trip(kind: str, source: Path, root: Path) -> None:
    differs, after_files = round_trip(kind, source, root)
    before_files = original(kind, source)
    wider = [d for d in differs if RANK[d.after.action] > RANK[d.before.action]]
    assert not wider, "wider after the round trip:\n" + "\n".join(d.describe() for d in wider[:20])
    # The import's own narrowings (a default it cannot say exactly, reported by the
    # import and held never wider by tests/test_import_never_widens.py) come back
    # as the spec says; what else differs, the target narrows for a documented reason.
    narrows = NARROWS[kind]
    other = [d for d in differs if d.after.action != d.spec and not narrows(d, before_files)]
    assert not other, f"{len(other)} calls differ:\n" + "\n".join(d.describe() for d in other[:20])
    before_agents = agent_files(kind, before_files)
    after_agents = agent_files(kind, after_files)
    assert set(after_agents) == set(before_agents)
    for name, data in before_agents.items():
        assert after_agents[name]["body"] == data["body"], name
    assert descriptions(kind, after_files) == descriptions(kind, before_files)
    assert commands(after_files) == commands(before_files)


@pytest.mark.parametrize(("kind", "name"), [("codex", "codex"), ("codex", "codex-never")])
def test_a_codex_folder_comes_back_from_import_and_build(
    kind: str, name: str, tmp_path: Path
) -> None:
    check_round_trip(kind, FIXTURES / name, tmp_path)


# --- generated Codex folders ---------------------------------------------------------------

CODEX_ROLES = ["scout", "code_reviewer", "lead"]
RULE_PATTERNS = [
    ["git", "status"],
    ["git", ["push", "commit"]],
    ["npm", "test"],
    ["rm"],
    ["curl"],
    ["docker", "ps"],
    ["docker"],
]


def _toml_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@st.composite
def codex_folders(draw: st.DrawFn) -> dict[str, str]:
    """A `.codex/` folder: up to three roles (snake_case names too), each with its
    description in its file or only in config.toml's `[agents]`, maybe without a
    shell or in a read-only sandbox; the project's tools; a rules file."""
    files: dict[str, str] = {}
    config: list[str] = []
    if draw(st.booleans()):
        config.append(f"web_search = {_toml_value(draw(st.sampled_from(['disabled', 'live'])))}")
    if draw(st.booleans()):
        config += ["[features]", f"view_image = {str(draw(st.booleans())).lower()}"]
    if draw(st.booleans()):
        config += ["[tools.update_plan]", "enabled = true"]
    names = draw(st.lists(st.sampled_from(CODEX_ROLES), min_size=1, max_size=3, unique=True))
    for name in names:
        description = f"The {name} role, generated for the round trip."
        role = [f"name = {_toml_value(name)}"]
        in_file = draw(st.booleans())
        if in_file:
            role.append(f"description = {_toml_value(description)}")
        if draw(st.integers(0, 3)) == 0:
            role.append('nickname_candidates = ["Ada", "Lin"]')
        if draw(st.integers(0, 3)) == 0:
            role.append('sandbox_mode = "read-only"')
        body = draw(st.sampled_from(["Review the diff.\n", "Spawn code_reviewer, then lead.\n"]))
        role.append(f'developer_instructions = """\n{body}"""')
        if draw(st.integers(0, 3)) == 0:
            role += ["[features]", "shell_tool = false"]
        files[f".codex/agents/{name}.toml"] = "\n".join(role) + "\n"
        config += [f"[agents.{name}]", f'config_file = "agents/{name}.toml"']
        if not in_file:
            config.append(f"description = {_toml_value(description)}")
    files[".codex/config.toml"] = "\n".join(config) + "\n"
    rules = []
    for pattern in draw(st.lists(st.sampled_from(RULE_PATTERNS), max_size=4)):
        decision = draw(st.sampled_from(["allow", "prompt", "forbidden"]))
        rules.append(f"prefix_rule(pattern = {json.dumps(pattern)}, decision = {decision!r})")
    if rules:
        files[".codex/rules/default.rules"] = "\n".join(rules) + "\n"
    return files


def _write(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@settings(max_examples=ci_examples(12), deadline=None)
@given(codex_folders())
def test_generated_codex_folders_come_back_from_import_and_build(files: dict[str, str]) -> None:
    tick("round-trip-codex")
    with tempfile.TemporaryDirectory(prefix="promptc-round-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        check_round_trip("codex", _write(root / "source", files), root)


# --- Copilot CLI and Gemini CLI ------------------------------------------------------------


def _hidden_from_rules(call: Call) -> bool:
    """A call the Copilot hook or the Gemini policies decide exactly only when it
    is plain: a path outside the project, a command line naming one or not made of
    plain commands. Such a call is refused where a deny rule could decide it."""
    if call.permission in calls.PATH_TOOLS:
        return not calls.inside(calls.absolute(call.input))
    if call.permission == "bash":
        return plain_commands(call.input) is None or bool(calls.outside_folders(call.input))
    return False


def _copilot_narrows(differs: Differs, _files: Mapping[str, str]) -> bool:
    # The copilot target lists tool aliases only: a subagent `task` starts gets no
    # `sql` (its todo list), which a hand-written `tools` may name.
    if differs.call.permission == "todowrite":
        return differs.after.action == "deny"
    return _hidden_from_rules(differs.call) and differs.after.action == "deny"


# Gemini tools kept only where OpenCode denies none of their calls, else left out
# or made to ask (docs/targets/gemini.md): an imported path map with denies loses
# `list_directory`; an agent with every tool asks for glob, grep and web search.
_GEMINI_WHOLE_TOOLS = ("list", "glob", "grep", "websearch", "webfetch")


def _gemini_narrows(differs: Differs, _files: Mapping[str, str]) -> bool:
    call = differs.call
    if call.permission in _GEMINI_WHOLE_TOOLS:
        return True
    # Gemini's policies see a command line whole: one of several commands is refused
    # where a deny rule could decide it.
    several = call.permission == "bash" and len(plain_commands(call.input) or ()) > 1
    return (several or _hidden_from_rules(call)) and differs.after.action == "deny"


NARROWS.update(copilot=_copilot_narrows, gemini=_gemini_narrows)


@pytest.mark.parametrize("kind", ["copilot", "gemini"])
def test_a_copilot_or_gemini_folder_comes_back_from_import_and_build(
    kind: str, tmp_path: Path
) -> None:
    check_round_trip(kind, FIXTURES / kind, tmp_path)


# A Gemini command's prompt: Gemini's `{{args}}`, a literal `$ARGUMENTS`, both, or neither.
GEMINI_PROMPTS = [
    "Review {{args}} carefully.\n",
    "Fix the issue described in $ARGUMENTS.\n",
    "Compare {{args}} with $ARGUMENTS.\n",
    "Summarise the repository.\n",
]


@st.composite
def list_round_trip_folders(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    """A Copilot or Gemini agents folder (tests/test_import_never_widens.py's),
    maybe with a README beside the agents, and Gemini commands."""
    kind, files = draw(list_folders())
    folder = ".github/agents" if kind == "copilot" else ".gemini/agents"
    if draw(st.booleans()):
        files[f"{folder}/README.md"] = "# Our agents\n\nWhat each one is for.\n"
    if kind == "gemini":
        for index, prompt in enumerate(draw(st.lists(st.sampled_from(GEMINI_PROMPTS)))):
            description = draw(st.sampled_from(["Review it.", "A long description. " * 15]))
            data = {"description": description.strip(), "prompt": prompt}
            files[f".gemini/commands/c{index}.toml"] = "".join(
                f"{key} = {json.dumps(value)}\n" for key, value in data.items()
            )
    return kind, files


@settings(max_examples=ci_examples(10), deadline=None)
@given(list_round_trip_folders())
def test_generated_copilot_and_gemini_folders_come_back_from_import_and_build(
    drawn: tuple[str, dict[str, str]],
) -> None:
    tick("round-trip-lists")
    kind, files = drawn
    with tempfile.TemporaryDirectory(prefix="promptc-round-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        check_round_trip(kind, _write(root / "source", files), root)


# --- the cases met adopting real folders, one by one ----------------------------------------


def _import(run: Callable[..., Run], kind: str, files: Mapping[str, str], root: Path) -> Run:
    source = _write(root / "source", files)
    (root / "bundle").mkdir()
    os.chdir(root / "bundle")
    return run("import", kind, str(source))


def test_codex_descriptions_in_config_toml_and_snake_case_names_come_back(
    tmp_path: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    files = {
        ".codex/config.toml": (
            '[agents.code_reviewer]\ndescription = "Reviews every diff for bugs."\n'
            'config_file = "agents/code_reviewer.toml"\n'
        ),
        ".codex/agents/code_reviewer.toml": (
            'name = "code_reviewer"\nsandbox_mode = "danger-full-access"\n'
            'developer_instructions = """\nHand the fix to agent_type code_reviewer.\n"""\n'
        ),
    }
    done = _import(run, "codex", files, tmp_path)
    assert done.code == 0, done.out + done.err
    # No agent-id error (the config proposal printed may name the rule's table).
    assert "[agent-id]" not in done.out + done.err
    assert "`sandbox_mode = 'danger-full-access'`" in done.out  # reported, not dropped
    role = tomllib.loads(rebuilt("codex", tmp_path / "bundle")[".codex/agents/code_reviewer.toml"])
    assert role["name"] == "code_reviewer"
    assert role["description"] == "Reviews every diff for bugs."


def test_a_codex_role_without_a_description_is_refused_by_the_build(
    make_bundle: MakeBundle, run: Callable[..., Run]
) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.codex]\n",
            "specs/agents/scout.md": '---\ndescription: ""\nmode: subagent\n---\nLook.\n',
        }
    )
    done = run("build")
    assert done.code == 1
    assert "specs/agents/scout.md:2:14: error [runtime-limits] Codex CLI refuses" in done.out


def test_codex_rules_keep_every_role_s_shell(
    tmp_path: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    files = {
        ".codex/agents/lead.toml": 'name = "lead"\ndescription = "Leads the work here."\n'
        'developer_instructions = "Lead."\n',
        ".codex/rules/default.rules": 'prefix_rule(pattern = ["git", "push"], decision = "forbidden")\n'
        'prefix_rule(pattern = ["npm", "test"], decision = "allow")\n',
    }
    assert _import(run, "codex", files, tmp_path).code == 0
    written = rebuilt("codex", tmp_path / "bundle")
    role = tomllib.loads(written[".codex/agents/lead.toml"])
    assert "features" not in role  # no `shell_tool = false`
    rules = written[".codex/rules/promptc.rules"]
    assert 'pattern = ["git", "push"],\n    decision = "forbidden"' in rules
    assert 'pattern = ["npm", "test"],\n    decision = "allow"' in rules


def test_a_readme_beside_copilot_agents_is_skipped_with_a_warning(
    tmp_path: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    files = {
        ".github/agents/README.md": "# Our agents\n",
        ".github/agents/helper.agent.md": "---\ndescription: Helps with the repository.\n---\nHi.\n",
        ".github/chatmodes/plan.chatmode.md": "---\ndescription: Plans.\n---\nPlan.\n",
    }
    done = _import(run, "copilot", files, tmp_path)
    assert done.code == 0, done.out + done.err
    assert "README.md:1:1: warning [import] no `description` text" in done.out
    assert "chatmodes:1:1: warning [import] Copilot CLI reads no chatmodes/" in done.out
    # An agent without `tools` has every tool, MCP servers' too: said, not "nothing lost".
    assert "helper.agent.md:1:1: warning [import] no `tools` list" in done.out
    assert sorted(p.name for p in (tmp_path / "bundle/specs/agents").iterdir()) == ["helper.md"]
    assert run("build").code == 0


def test_a_long_gemini_command_description_is_carried_whole(
    tmp_path: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    description = "Explains the change in detail. " * 12
    files = {
        ".gemini/commands/explain.toml": f'description = "{description}"\n'
        'prompt = "Explain $ARGUMENTS.\\n"\n',
    }
    assert _import(run, "gemini", files, tmp_path).code == 0
    command = tomllib.loads(rebuilt("gemini", tmp_path / "bundle")["commands/explain.toml"])
    assert command == {"description": description, "prompt": "Explain $ARGUMENTS.\n"}


def test_agent_id_takes_snake_case_only_when_asked(make_bundle: MakeBundle) -> None:
    root = make_bundle({"specs/agents/code_reviewer.md": AGENT})
    found = [d.rule for d in api.lint(load_config(cwd=root)).diagnostics]
    assert "agent-id" in found
    (root / "promptc.toml").write_text("[rules.agent-id]\nunderscores = true\n")
    found = [d.rule for d in api.lint(load_config(cwd=root)).diagnostics]
    assert "agent-id" not in found


@pytest.mark.conformance
def test_the_real_codex_loads_every_role_before_and_after_the_round_trip(
    tmp_path: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    oracle.binary("codex")
    monkeypatch.chdir(tmp_path)
    files = {
        ".codex/config.toml": "".join(
            f'[agents.{name}]\ndescription = "The {name} role, described here."\n'
            f'config_file = "agents/{name}.toml"\n'
            for name in CODEX_ROLES
        ),
        **{
            f".codex/agents/{name}.toml": f'name = "{name}"\ndeveloper_instructions = "Work."\n'
            for name in CODEX_ROLES
        },
        ".codex/rules/default.rules": 'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n',
    }
    assert _import(run, "codex", files, tmp_path).code == 0
    after = _write(tmp_path / "after", rebuilt("codex", tmp_path / "bundle"))
    listed = []
    for folder in (tmp_path / "source", after):
        subprocess.run(["git", "init", "--quiet", str(folder)], check=True)
        home = tmp_path / f"home-{folder.name}"
        assert startup_warnings(folder, home) is None, folder.name
        roles, _ = roles_listed(folder, home)
        assert set(CODEX_ROLES) <= set(roles), folder.name  # beside Codex's own roles
        listed.append(roles)
    assert listed[0] == listed[1]  # each role said the same: its description

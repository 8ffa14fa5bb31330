"""Conformance: the real `codex` (tests/package.json, 0.171.0) loads what promptc emits.

Each bundle's codex output (the fixtures, tests/fixtures/team among them,
emitted into scratch folders) is run the way Codex reads a project: a scratch HOME whose `.codex/config.toml`
trusts the folder, so its `.codex/` loads. Three oracles, each one process
per question where Codex allows it:

- `codex doctor --json`: no startup warning (a malformed role would be one);
- `codex debug prompt-input`: the spawn_agent tool lists every role, with the
  model and reasoning effort promptc wrote, and the skills are offered;
- `codex execpolicy check`: for sampled commands, the decision of the emitted
  rules is never wider than the narrowest `promptc can` answer among the
  agents that keep a shell, and it is what promptc_compiler.runtimes.codex.decide computes.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from promptc_compiler.permissions.calls import RANK
from promptc_compiler.runtimes.codex import decide as codex_model
from promptc_compiler.runtimes.codex import target as codex
from tests import bundles, oracle
from tests.codex import oracle as codex_oracle
from tests.codex.test_target_codex import can, commands_of, load, opencode_answers, render, shell_of
from tests.codex.test_target_codex import policy as model_policy
from tests.oracles import Attempt, harness
from tests.oracles.server import serve

# Each test starts the real runtime, many times: `make conformance` runs them.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

BUNDLES = {
    "team": bundles.TEAM,
    "codex": bundles.FIXTURES / "codex",
    "opencode": bundles.FIXTURES / "opencode",
    "claude": bundles.FIXTURES / "claude",
    "permissions": bundles.FIXTURES / "permissions",
    "overrides": bundles.FIXTURES / "overrides",
}


def emit(bundle: str, scratch: Path) -> Path:
    """The codex output folder, written into a scratch folder."""
    out = scratch / bundle
    files = render(BUNDLES[bundle], lint_errors=bundle == "permissions")
    for rel, data in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return out


def run_codex(args: list[str], folder: Path, home: Path) -> Any:
    """Run codex in `folder` with a HOME that trusts it; stdout as JSON."""
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    trust = f'[projects.{json.dumps(str(folder.resolve()))}]\ntrust_level = "trusted"\n'
    (home / ".codex" / "config.toml").write_text(trust)
    done = oracle.run("codex", args, folder, home=home)
    return json.loads(done.stdout)


def startup_warnings(folder: Path, home: Path) -> str | None:
    # doctor exits 1 without credentials: its JSON says what it found.
    report = run_codex(["doctor", "--json"], folder, home)
    details = report["checks"]["config.load"]["details"]
    assert Path(details["cwd"]).resolve() == folder.resolve()
    found = details.get("startup warning")
    return "".join(found) if isinstance(found, list) else found


def roles_listed(folder: Path, home: Path) -> tuple[dict[str, str], str]:
    """spawn_agent's roles (name -> what it says of the role) and the whole input."""
    found = run_codex(["debug", "prompt-input", "hi"], folder, home)
    text = json.dumps(found)

    def walk(tools: list[Any]) -> Any:
        for tool in tools:
            if tool.get("name") == "spawn_agent":
                return tool
            inner = walk(tool.get("tools", []))
            if inner is not None:
                return inner
        return None

    spawn = walk(next(i["tools"] for i in found if i.get("type") == "additional_tools"))
    listing = spawn["parameters"]["properties"]["agent_type"]["description"]
    roles = dict(re.findall(r"^(\S+): \{\n(.*?)\n\}$", listing, re.MULTILINE | re.DOTALL))
    return roles, text


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_doctor_shows_no_startup_warning(bundle: str, tmp_path: Path) -> None:
    oracle.binary("codex")
    assert startup_warnings(emit(bundle, tmp_path), tmp_path / "home") is None


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_prompt_input_lists_every_role_with_its_model(bundle: str, tmp_path: Path) -> None:
    oracle.binary("codex")
    folder = emit(bundle, tmp_path)
    roles, text = roles_listed(folder, tmp_path / "home")
    written = {
        path.relative_to(folder / ".codex" / "agents").with_suffix("").as_posix(): tomllib.loads(
            path.read_text()
        )
        for path in (folder / ".codex" / "agents").rglob("*.toml")
    }
    assert written, "a bundle without roles would prove nothing"
    for ident, role in written.items():
        said = roles[role["name"]]
        assert said.startswith(role["description"].strip()), ident
        model, effort = role.get("model"), role.get("model_reasoning_effort")
        if model:
            assert f"model is set to `{model}`" in said, ident
        if effort:
            assert f"reasoning effort is set to `{effort}`" in said, ident
        if not model and not effort:
            assert "cannot be changed" not in said, ident
    for skill in (folder / ".codex" / "skills").glob("*/SKILL.md"):
        assert f"- {skill.parent.name}: " in text


def native_codex() -> Path:
    """The platform binary inside the npm package: `execpolicy check` answers one
    command per process, and the node wrapper would cost five times as long."""
    found = sorted((oracle.BIN.parent / "@openai").glob("codex-*/vendor/*/bin/codex*"))
    return found[0] if found else oracle.binary("codex")


def policy(rules: Path, command: list[str], home: Path) -> str | None:
    done = oracle.capture(
        [
            str(native_codex()),
            *("execpolicy", "check", "--resolve-host-executables", "--rules", str(rules)),
            *("--", *command),
        ],
        rules.parent,
        oracle.scratch_env(home),
        60,
    )
    assert done.returncode == 0, done.stderr
    answer: str | None = json.loads(done.stdout).get("decision")
    return answer


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_execpolicy_is_never_wider_than_the_narrowest_promptc_can_answer(
    bundle: str, tmp_path: Path
) -> None:
    oracle.binary("codex")
    folder = emit(bundle, tmp_path)
    files = {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }
    model = load(files)
    runtime, names = opencode_answers(bundles.config(BUNDLES[bundle]))
    shell = [role for role in names if shell_of(model, role)]
    commands = commands_of(runtime)[:30]
    for command in commands:
        words = command.split()
        found = policy(folder / codex.RULES_FILE, words, tmp_path / "home")
        assert found == model_policy(model, words), command  # Codex's own reading
        mine = codex_model.AS_OPENCODE[found] if found else "allow"
        answers = [can(runtime, names[role], command) for role in shell]
        if answers:
            narrowest = min(answers, key=RANK.__getitem__)
            assert RANK[mine] <= RANK[narrowest], (command, found, narrowest)


def test_the_model_reads_unions_and_defaults_as_codex_does(tmp_path: Path) -> None:
    oracle.binary("codex")
    rules = tmp_path / "x.rules"
    rules.write_text(
        'prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt")\n'
        'prefix_rule(pattern=[["npm", "pnpm"]])\n'
        'prefix_rule(pattern=["npm", "publish"], decision="forbidden")\n'
        'prefix_rule(pattern=["git", "push", "--force"], decision="forbidden")\n'
    )
    parsed = codex_model.parse_rules(rules.read_text(), "x.rules")
    model = codex_model.Codex({}, codex_model.session({}), parsed)
    for command in (
        "git push",
        "git fetch origin",
        "git pushx",
        "git",
        "git push --force x",
        "npm test",
        "pnpm publish",
        "npm publish x",
        "ls",
        "/usr/bin/git push",  # by the basename of a first word given as a path
        "/usr/bin/npm publish",
    ):
        words = command.split()
        assert policy(rules, words, tmp_path / "home") == model_policy(model, words), command


def test_the_oracles_would_catch_a_broken_role(tmp_path: Path) -> None:
    # The checks above can fail: the same output with a key Codex does not know
    # in one role is refused at startup, and that role is missing from the list.
    oracle.binary("codex")
    folder = tmp_path / "broken"
    shutil.copytree(emit("codex", tmp_path), folder)
    smith = folder / ".codex" / "agents" / "smith.toml"
    smith.write_text(smith.read_text().replace('name = "smith"', 'name = "smith"\nbogus_key = 1'))
    warning = startup_warnings(folder, tmp_path / "home")
    assert warning is not None
    assert "smith.toml" in warning
    assert "bogus_key" in warning
    roles, _ = roles_listed(folder, tmp_path / "home")
    assert "smith" not in roles
    assert "scout" in roles


def test_a_main_session_without_a_shell_has_no_exec_command(tmp_path: Path) -> None:
    oracle.binary("codex")
    folder = emit("codex", tmp_path)
    _, before = roles_listed(folder, tmp_path / "home")
    config = folder / ".codex" / "config.toml"
    config.write_text(
        config.read_text().replace("[features]\n", "[features]\nshell_tool = false\n")
    )
    _, after = roles_listed(folder, tmp_path / "home")
    # The exec tool's own description names exec_command as an example; its
    # companion write_stdin is there only with the shell.
    assert "write_stdin" in before
    assert "write_stdin" not in after


def offered(body: dict[str, Any]) -> set[str]:
    """The tools a request offers the model: its own and nested ones (a namespace's,
    code mode's `additional_tools`)."""
    found: set[str] = set()

    def walk(tools: list[Any]) -> None:
        for tool in tools:
            if tool.get("type") == "namespace":
                walk(tool.get("tools", []))
            else:
                found.add(tool.get("name") or tool.get("type", ""))

    walk(body.get("tools", []))
    for item in body.get("input", []):
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            walk(item.get("tools", []))
    return found


def test_a_spawned_role_is_offered_the_tools_the_decision_model_counts(
    tmp_path: Path,
) -> None:
    # What the translation counts on, seen on the scripted model server
    # (tests/oracles): a role file's model and effort reach the spawned role,
    # and its `[features] shell_tool = false` takes exec_command away (its
    # sandbox_mode does not apply, so promptc never counts on that); every
    # other tool the role has is the project's, as promptc_compiler.runtimes.codex.decide reads
    # it. The main session spawns both roles, then waits; each role only answers.
    oracle.binary("codex")
    folder = emit("codex", tmp_path)
    message = f"{harness.QUIET}: answer done."
    spawn = [
        Attempt("spawn_agent", {"agent_type": role, "task_name": f"t{i}", "message": message})
        for i, role in enumerate(("smith", "scout"))
    ]
    wait = Attempt("wait_agent", {"timeout_ms": 60000})
    # A wait ends when one role has finished: a second waits for the other,
    # which on a loaded machine had not asked the model yet when the session ended.
    plan = harness.Plan((), (*spawn, wait, wait), fill=codex_oracle.fill)
    home = tmp_path / "home"
    with serve(plan) as server:
        # A model name Codex does not know: the agent tools are offered at once.
        codex_oracle.prepare(home, folder, server.url, model="gpt-6.2-sol")
        args = [str(oracle.binary("codex")), "exec", "--skip-git-repo-check", "spawn the roles"]
        oracle.capture(args, folder, codex_oracle.environment(home), 120)
        exchanges = server.exchanges()
    roles: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for exchange in exchanges:
        meta = json.loads(exchange.turn.headers.get("x-codex-turn-metadata", "{}"))
        if meta.get("agent_name", "/root") != "/root" and meta.get("request_kind") == "turn":
            roles[meta["agent_name"].rsplit("/", 1)[-1]] = (meta, dict(exchange.turn.body))
    assert set(roles) == {"t0", "t1"}, [(e.turn.results, e.reply) for e in exchanges]
    (smith, smith_body), (scout, scout_body) = roles["t0"], roles["t1"]
    assert (smith["model"], smith["reasoning_effort"]) == ("gpt-5.5", "high")
    assert (scout["model"], scout["reasoning_effort"]) == ("gpt-5.5", "low")
    assert scout["sandbox_mode"] != "read-only"  # written, not applied
    assert "Implementa con pruebas" in json.dumps(smith_body, ensure_ascii=False)
    codex_files = (p for p in (folder / ".codex").rglob("*") if p.is_file())
    model = load({p.relative_to(folder).as_posix(): p.read_bytes() for p in codex_files})
    session = model.session
    counted = {
        "view_image": session.view_image,
        "web_search": session.web_search,
        "update_plan": session.update_plan,
        "spawn_agent": session.max_depth >= 2,
    }
    assert session.web_search
    assert not session.view_image  # both ways are seen
    for name, body in (("smith", smith_body), ("scout", scout_body)):
        tools = offered(body)
        assert ("exec_command" in tools) == shell_of(model, name), (name, tools)
        assert "apply_patch" in tools, (name, tools)  # every role, whatever it may edit
        assert {t for t, on in counted.items() if on} == set(counted) & tools, (name, tools)

"""Copilot CLI's decisions, call by call: never wider than OpenCode's, and the real hook's.

The model (promptc_compiler.runtimes.copilot.decide) reads the agent files the copilot target
wrote, their preToolUse hooks included, and decides every call of a bundle's
matrix (promptc_compiler.permissions.calls); OpenCode decides the same calls from the specs.
Three properties:

- on the model, for the real-shape team, every fixture and generated
  permission maps, no call is wider than OpenCode's;
- each hook promptc wrote, run in sh as Copilot runs it (the call as JSON on
  stdin, in a git project), answers every call of the matrix as
  promptc_compiler.runtimes.copilot.script.decide says;
- the real `copilot -p` (tests/copilot/oracle.py, a scripted model on
  127.0.0.1) decides a sample of calls as the model does: a few in `make
  test`, over 200 in the conformance run. `-p` has no user: an ask is
  refused ("no interactive user response", or from a hook "unable to ask
  user for confirmation"), which reads as the ask it stands for. The runs
  pass `--disallow-temp-dir`, so that Copilot does not open the scratch
  project's parent folder (under /tmp) as it opens /tmp by default.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings

from promptc_compiler import api
from promptc_compiler.core.project import Project
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import Call
from promptc_compiler.runtimes.copilot import decide as model_of
from promptc_compiler.runtimes.copilot import script as copilot_script
from tests import bundles, decisions, strategies
from tests.oracles import Attempt

TARGET = "copilot"
BUNDLES = {
    "team": bundles.TEAM,
    "claude": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
    "permissions": bundles.FIXTURES / "permissions",
    "overrides": bundles.FIXTURES / "overrides",
    "skills": bundles.FIXTURES / "skills",
}
SEEN = {"ran": "allow", "asked": "ask", "refused": "deny", "absent": "deny"}


@functools.cache
def emitted(bundle: str) -> tuple[Project, Mapping[str, str]]:
    """The project the copilot files are emitted from, and the files by path."""
    root = BUNDLES[bundle]
    files = bundles.render(root, TARGET, lint_errors=bundle == "permissions")
    return bundles.project(root, TARGET), {rel: data.decode() for rel, data in files.items()}


@functools.cache
def decided(bundle: str) -> tuple[decisions.Decided, ...]:
    project, files = emitted(bundle)
    return tuple(decisions.decided(project, TARGET, files))


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_no_call_is_wider_than_opencode(bundle: str) -> None:
    found = decided(bundle)
    assert decisions.wider(found) == []
    print(decisions.figures(f"{TARGET} ({bundle})", found, 0))


def test_the_team_keeps_what_copilot_can_say() -> None:
    # Every agent's hook decides its calls as OpenCode does: nearly every call
    # OpenCode allows runs, and none OpenCode asks about runs.
    found = decided("team")
    usable = [d for d in found if d.opencode != "deny"]
    kept = [d for d in usable if d.model == d.opencode]
    assert len(kept) * 10 >= len(usable) * 9
    assert not [d for d in found if d.opencode == "ask" and d.model == "allow"]
    print(decisions.figures(TARGET, found, 0))


@settings(max_examples=strategies.ci_examples(15), deadline=None)
@given(files=strategies.tool_list_bundles())
def test_generated_permission_maps_never_get_more(files: dict[str, bytes]) -> None:
    strategies.tick("copilot hooks")
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=[TARGET])
        texts = {r.removeprefix("copilot/"): d.decode() for r, d in result.files.items()}
        project = bundles.project(Path(root), TARGET)
    found = tuple(decisions.decided(project, TARGET, texts))
    assert decisions.wider(found) == []


# --- the model is not vacuous ---------------------------------------------------------------


def widened(bundle: str, rel: str, edit: Any, call: Call) -> str:
    """The model's decision of the call once the agent file `rel` is edited."""
    _, files = emitted(bundle)
    return model_of.load({**files, rel: edit(files[rel])}).decide(call).action


def test_the_model_reads_a_table_loosened() -> None:
    call = Call("smith", "bash", "rm -rf x", delegated=True)
    rel = ".github/agents/smith.agent.md"
    _, files = emitted("claude")
    assert model_of.load(files).decide(call).action == "deny"
    script = yaml.safe_load(files[rel].split("---\n")[1])["hooks"]["preToolUse"][0]["bash"]
    assert "'rm'|'rm '*) echo deny ;;" in script
    loosened = widened(
        "claude", rel, lambda t: t.replace("'rm '*) echo deny", "'rm '*) echo allow"), call
    )
    assert loosened == "allow"


def test_a_table_answers_with_its_first_matching_item_as_case_does() -> None:
    star, home = copilot_script.STAR, copilot_script.HOME
    table = copilot_script.Table(
        "bash_m",
        (
            ((("git push",), ("git push ", star)), "deny"),
            ((("git ", star), (home, "/bin/", star)), "allow"),
            (((star,),), "ask"),
        ),
    )
    case = table.case("/home/u")
    assert case.decide("git push") == "deny"  # the second item matches it too
    assert case.decide("git push origin") == "deny"
    assert case.decide("git status") == "allow"
    assert case.decide("/home/u/bin/x") == "allow"
    assert case.decide("/home/v/bin/x") == "ask"  # another user's home
    assert table.case("/home/v").decide("/home/v/bin/x") == "allow"
    assert case.decide("rm -rf x") == "ask"
    assert case.decide("git log\nrm x") == "allow"  # sh's `*` matches a newline too


def test_a_hook_promptc_did_not_write_is_taken_as_allowing_everything() -> None:
    call = Call("smith", "bash", "rm -rf x", delegated=True)
    rel = ".github/agents/smith.agent.md"
    found = widened(
        "claude", rel, lambda t: t.replace("        exit 0\n", "        exit 0 \n"), call
    )
    assert found == "allow"
    assert widened("claude", rel, lambda t: t.replace("hooks:\n", "hooked:\n"), call) == "ask"


# --- the hooks, run in sh ---------------------------------------------------------------------


def hook_input(call: Call, project: Path, home: Path) -> tuple[str, dict[str, str]] | None:
    """The Copilot tool call a matrix call stands for (tool, string arguments)."""
    if call.permission not in model_of.TOOL:
        return None
    tool, argument = model_of.TOOL[call.permission]
    value = decisions.concrete(call.input, project, home)
    if call.permission in ("read", "list", "edit"):
        value = value if value.startswith("/") else str(project / value)
    if call.permission == "task":
        value = value.replace("/", "-")
    return tool, ({argument: value} if argument else {})


def run_hook(
    script: str, tool: str, args: Mapping[str, str], parent: bool, project: Path, home: Path
) -> str:
    """What the script answers, run by sh in the project as Copilot runs it."""
    payload: dict[str, Any] = {
        "sessionId": "s",
        "timestamp": 1,
        "cwd": str(project),
        "toolName": tool,
        "toolArgs": dict(args),
    }
    if parent:
        payload |= {"agentId": "a", "agentType": "x", "parentAgentId": "p"}
    done = subprocess.run(
        ["sh", "-c", script],
        input=json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
        capture_output=True,
        text=True,
        cwd=project,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)},
        timeout=30,
        check=False,
    )
    if done.returncode != 0:
        return "deny"  # Copilot refuses a call whose hook fails
    if not done.stdout.strip():
        return "none"
    return str(json.loads(done.stdout)["permissionDecision"])


def scripts(files: Mapping[str, str]) -> dict[str, str]:
    found = {}
    for rel, text in files.items():
        if rel.startswith(".github/agents/"):
            front = yaml.safe_load(text.split("---\n")[1])
            found[front["name"]] = front["hooks"]["preToolUse"][0]["bash"]
    return found


@pytest.mark.slow
# One bundle here; the others in `make conformance` (each hook run is a node process).
@pytest.mark.parametrize(
    "bundle",
    [
        pytest.param("claude", marks=pytest.mark.conformance),
        pytest.param("opencode", marks=pytest.mark.conformance),
        "permissions",
    ],
)
def test_every_hook_answers_as_the_model_reads_it(bundle: str, tmp_path: Path) -> None:
    # A sample of each matrix (every permission and decision present) in
    # `make test`; every call, the team's too, in the conformance run.
    assert hooks_disagree(bundle, decisions.sample(decided(bundle), size=200), tmp_path) == []


# Lines the matrix does not build: quotes, escapes, controls, reserved words,
# a folder outside named in quotes, a comment.
ODD_LINES = (
    'git commit -m "fix"',
    'git commit -m "a; rm -rf x"',
    'cat "/etc/hosts"',
    'echo "\\"',
    "ls\nrm -rf x",
    "ls\trm -rf x",
    "ls;\x0brm -rf x",
    "git status && rm -rf build",
    "echo é && rm -rf x",
    "cd /etc && ls",
    "FOO=1 rm -rf x",
    "if true; then rm -rf x; fi",
    "rm -rf x # comment",
    "sudo rm -rf x",
    "git push --force origin main",
    "git  push --force",
)


@pytest.mark.slow
@pytest.mark.parametrize("bundle", ["team", "claude"])
def test_odd_lines_are_never_wider_and_every_hook_agrees(bundle: str, tmp_path: Path) -> None:
    project, files = emitted(bundle)
    model = model_of.load(files)
    runtime = calls.runtime_of(project)
    found = []
    for d in decided(bundle):
        if d.call.permission == "bash" and d.call.input == "ls":  # one per agent and context
            for line in ODD_LINES:
                call = Call(d.call.agent, "bash", line, d.call.delegated)
                theirs = calls.decide(runtime, call).action
                found.append(decisions.Decided(call, theirs, model.decide(call).action, ""))
    assert len(found) > len(ODD_LINES)
    assert decisions.wider(found) == []
    assert {d.model for d in found} == {"allow", "ask", "deny"}
    assert hooks_disagree(bundle, found, tmp_path) == []


@pytest.mark.conformance
@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_every_hook_answers_every_call_as_the_model_reads_it(bundle: str, tmp_path: Path) -> None:
    assert hooks_disagree(bundle, list(decided(bundle)), tmp_path) == []


def hooks_disagree(
    bundle: str, chosen: list[decisions.Decided], tmp_path: Path
) -> list[tuple[Any, ...]]:
    _, files = emitted(bundle)
    project = decisions.project_for(tmp_path, {"README.md": "# scratch\n"})
    home = tmp_path / "home"
    model = model_of.load(files)
    wrong: list[tuple[Any, ...]] = []
    for name, script in scripts(files).items():
        read = model.agents[name].hook
        assert isinstance(read, copilot_script.Cases)
        hook = read.hook.cases(str(home), {})  # the script runs in sh with HOME set to `home`
        for d in chosen:
            if d.call.agent.replace("/", "-") != name:
                continue
            found = hook_input(d.call, project, home)
            if found is None:
                continue
            tool, args = found
            mine = copilot_script.decide(hook, tool, args, d.call.delegated, str(project))
            real = run_hook(script, tool, args, d.call.delegated, project, home)
            if (mine or "none") != real:
                wrong.append((name, d.call, mine, real))
    return wrong


# --- the real CLI ---------------------------------------------------------------------------


@pytest.mark.slow
def test_sampled_calls_are_decided_by_the_real_copilot_as_by_the_model(tmp_path: Path) -> None:
    oracle_ = pytest.importorskip("tests.copilot.oracle")
    found = decided("claude")
    chosen = decisions.sample([d for d in found if d.call.agent == "smith"], size=10)
    real = run_on_copilot(oracle_, emitted("claude")[1], chosen, tmp_path)
    assert real == {d.call: d.model for d in chosen if d.call in real}
    assert {"allow", "ask", "deny"} <= set(real.values())
    print(decisions.figures(TARGET, found, len(real)))


@pytest.mark.conformance
def test_the_conformance_sample_is_decided_by_the_real_copilot_as_by_the_model(
    tmp_path: Path,
) -> None:
    oracle_ = pytest.importorskip("tests.copilot.oracle")
    total = 0
    for index, bundle in enumerate(("team", "claude", "opencode", "permissions")):
        found = decided(bundle)
        chosen = decisions.sample(found, size=70, seed=index)
        real = run_on_copilot(oracle_, emitted(bundle)[1], chosen, tmp_path / bundle)
        assert real == {d.call: d.model for d in chosen if d.call in real}, bundle
        total += len(real)
        print(decisions.figures(f"{TARGET} ({bundle})", found, len(real)))
    assert total >= 200


@pytest.mark.conformance
@settings(max_examples=4, deadline=None, derandomize=True, database=None)
@given(files=strategies.tool_list_bundles())
def test_generated_maps_are_decided_by_the_real_copilot_as_by_the_model(
    files: dict[str, bytes],
) -> None:
    # Rule order, overlapping wildcards, `?`, case, trailing spaces, the home
    # folder, `"*": deny` with exceptions (tests/strategies.py), on the CLI.
    oracle_ = pytest.importorskip("tests.copilot.oracle")
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=[TARGET])
        texts = {r.removeprefix("copilot/"): d.decode() for r, d in result.files.items()}
        project = bundles.project(Path(root), TARGET)
    found = tuple(decisions.decided(project, TARGET, texts))
    chosen = decisions.sample(found, size=30)
    with tempfile.TemporaryDirectory(prefix="copilot-generated-") as folder:
        real = run_on_copilot(oracle_, texts, chosen, Path(folder))
    assert real == {d.call: d.model for d in chosen if d.call in real}
    print(decisions.figures(f"{TARGET} (generated)", found, len(real)))


@pytest.mark.conformance
def test_a_hook_answers_before_task_looks_for_the_agent(tmp_path: Path) -> None:
    # Found by CI: scout (`infer: false`, so run as the main session) calls
    # `task scout`; its hook asks before `task` finds no agent to start, and
    # Copilot reports the ask. An agent the hook allows is still not started.
    oracle_ = pytest.importorskip("tests.copilot.oracle")
    files = {
        "promptc.toml": b'[permission]\n"task" = "ask"\n',
        "specs/agents/scout.md": b"---\ndescription: Scout.\nmode: subagent\n---\nB.\n",
        "specs/agents/smith.md": (
            b"---\ndescription: Smith.\nmode: subagent\npermission:\n  task:\n"
            b'    "*": deny\n    scout: allow\n---\nB.\n'
        ),
    }
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=[TARGET])
        texts = {r.removeprefix("copilot/"): d.decode() for r, d in result.files.items()}
        project = bundles.project(Path(root), TARGET)
    found = decisions.decided(project, TARGET, texts)
    chosen = [d for d in found if d.call.permission == "task"]
    model = {d.call: d.model for d in chosen}
    assert model[Call("scout", "task", "scout", delegated=True)] == "ask"
    assert model[Call("smith", "task", "scout", delegated=True)] == "deny"
    assert run_on_copilot(oracle_, texts, chosen, tmp_path) == model


def verdict(outcome: Any) -> str:
    """The outcome as the model's action: a hook's ask, refused for want of a
    user, is an ask."""
    if "unable to ask user for confirmation" in outcome.result:
        return "ask"
    return SEEN[outcome.verdict]


def run_on_copilot(
    oracle_: Any, files: Mapping[str, str], chosen: list[decisions.Decided], folder: Path
) -> dict[Call, str]:
    """Each chosen call made by its agent on the real CLI, as the main session or
    started by `task` as the call says: the verdict as an action."""
    real: dict[Call, str] = {}
    groups: dict[tuple[str, bool], list[Call]] = {}
    for d in chosen:
        groups.setdefault((d.call.agent, d.call.delegated), []).append(d.call)
    for index, ((agent, delegated), found) in enumerate(groups.items()):
        # A project of its own per run: a run's allowed edits (a file named
        # `.claude`, say) must not change what the next run's calls meet.
        project = decisions.project_for(folder / f"run{index}", dict(files))
        home = folder / f"run{index}" / "home"
        attempts = []
        for call in found:
            if call.permission in ("question", "websearch", "webfetch"):
                continue  # no such tool offline in `-p` mode
            value = decisions.concrete(call.input, project, home)
            if call.permission == "task":  # Copilot names `team/reviewer` `team-reviewer`
                value = value.replace("/", "-")
            if call.permission == "edit":  # `create` makes no folder: a call it refuses
                (project / value).parent.mkdir(parents=True, exist_ok=True)
            attempt = oracle_.attempt(call.permission, value, project)
            if call.permission == "todowrite":  # Copilot's todo list is its `sql` store
                attempt = Attempt("sql", {"description": "todo", "query": "SELECT 1"})
            if attempt is None:
                real[call] = "deny"
            else:
                attempts.append((call, attempt))
        if not attempts:
            continue
        # `task` starts no agent with `infer: false`: the user runs it (`--agent`),
        # and its hook decides its calls with the same rules.
        name = agent.replace("/", "-")
        outcomes = oracle_.run(
            project,
            [a for _, a in attempts],
            agent=name,
            delegate=delegated and model_of.load(files).agents[name].offered,
            home=home,
            flags=["--disallow-temp-dir"],
        )
        for (call, _), outcome in zip(attempts, outcomes, strict=True):
            real[call] = verdict(outcome)
    return real

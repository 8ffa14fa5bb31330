"""Gemini CLI's decisions, call by call: never wider than OpenCode's, and the real engine's.

The model (promptc_compiler.runtimes.gemini.decide) reads the extension and user policy the
gemini target wrote and decides every call of a bundle's matrix
(promptc_compiler.permissions.calls); OpenCode decides the same calls from the specs. Three
properties:

- on the model, for the real-shape team, every fixture and generated
  permission maps, no call is wider than OpenCode's;
- Gemini's own policy engine (PolicyEngine.check and parseCommandDetails
  from the pinned bundle, run in node by tests/gemini/gemini_engine.mjs on the same
  files) answers every call that reaches it as the model does, with a user
  and without one, and splits every command line of the matrices as the
  model does; cheap, so every call of every bundle;
- the real `gemini -p` (tests/gemini/oracle.py, a scripted model on
  127.0.0.1), the extension linked and the user policy copied as
  TRANSLATION.md says, decides a sample of calls as the model does: a few
  in `make test`, over 200 in the conformance run.

`gemini -p` has no user. Gemini then leaves out every tool its own
write.toml denies without a user (the shell, the edit tools, skills,
web_fetch) whatever a subagent's rules say, since it offers tools by the
rules that name no subagent. So the sample runs with one more user rule,
OFFER: ask for those tools, below every rule promptc writes and naming no
subagent. Each subagent's calls are then decided by its own rules as in an
interactive session, and an outcome reads as the interactive decision: ran
is allow, "requires user confirmation" (asked) is ask, refused or absent is
deny. The model decides with OFFER too, without a user (`headless`): the
only difference from an interactive session is then a call no rule
decides, which Gemini refuses without a user and asks about with one, and
every tool promptc keeps has a rule for every call.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from promptc_compiler import api
from promptc_compiler.core.project import Project
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import Call
from promptc_compiler.runtimes.gemini import decide as model_of
from tests import bundles, decisions, oracle, strategies

TARGET = "gemini"
BUNDLES = {
    "team": bundles.TEAM,
    "claude": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
    "permissions": bundles.FIXTURES / "permissions",
    "overrides": bundles.FIXTURES / "overrides",
}
GEMINI_BUNDLE = bundles.REPOSITORY / "tests" / "node_modules" / "@google" / "gemini-cli" / "bundle"
ENGINE = Path(__file__).resolve().parent / "gemini_engine.mjs"
ACTION = {"allow": "allow", "ask_user": "ask", "deny": "deny"}
# The rule that makes `gemini -p` offer the tools Gemini keeps from a run
# without a user (bundle/policies/write.toml), so each subagent's own rules
# decide their calls.
OFFER = """\
[[rule]]
toolName = ["run_shell_command", "write_file", "replace", "activate_skill", "web_fetch"]
decision = "ask_user"
priority = 1
"""
# What `gemini -p` did (with OFFER), as the model's action.
SEEN = {"ran": "allow", "asked": "ask", "refused": "deny", "absent": "deny"}


@functools.cache
def emitted(bundle: str) -> tuple[Project, Mapping[str, str]]:
    """The project the gemini files are emitted from, and the files by path."""
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
    _, files = emitted(bundle)
    headless = model_of.headless(files)
    assert [d for d in found if headless.decide(d.call).action not in ("deny", d.model)] == []
    print(decisions.figures(f"{TARGET} ({bundle})", found, 0))


def test_the_team_keeps_what_gemini_can_say() -> None:
    # The subagents keep their shells, edits and reads under policy rules:
    # most calls OpenCode allows run, and none OpenCode asks about runs.
    found = decided("team")
    kept = {(d.call.permission, d.model) for d in found if d.opencode == "allow"}
    assert {("bash", "allow"), ("edit", "allow"), ("read", "allow")} <= kept
    assert not [d for d in found if d.opencode == "ask" and d.model == "allow"]
    print(decisions.figures(TARGET, found, 0))


def test_lines_and_rules_read_once_decide_as_when_read_afresh() -> None:
    # The model parses a line once for every agent asked about it, and finds
    # each agent's rules once for all its calls: each call is decided as by
    # a model that parses its line and finds the rules anew.
    _, files = emitted("team")
    calls_ = [d.call for d in decided("team")]
    shared, fresh = model_of.load(files), model_of.load(files)
    answers = []
    for call in calls_:
        fresh.__dict__.pop("_parsed", None)  # forget every line parsed before
        fresh.__dict__.pop("_merged", None)  # and every agent's rules found
        fresh.__dict__.pop("_by_tool", None)  # and those of each tool
        answers.append(fresh.decide(call))
    assert [shared.decide(call) for call in calls_] == answers
    shells = [c for c in calls_ if c.permission == "bash"]
    # every agent is asked about the same lines: far fewer are parsed than asked
    assert 0 < len(shared._parsed) < len(shells) / 2
    # each agent's rules are sorted by tool once, not per call
    assert 0 < len(shared._by_tool) < len(calls_) / 4


def test_without_a_policy_file_gemini_s_own_rules_decide_by_session() -> None:
    # Gemini's write.toml asks in an interactive session and denies in a
    # headless one: each session reads only the rules of its mode.
    _, files = emitted("team")
    own = {rel: text for rel, text in files.items() if not rel.endswith(".toml")}
    request = model_of.Request("write_file", "chronicler", (("file_path", "notes.txt"),))
    reading = model_of.Request("read_file", "chronicler", (("file_path", "notes.txt"),))
    interactive, headless = model_of.load(own), model_of.headless(own)
    assert interactive.check(request).action == "ask"
    assert headless.check(request).action == "deny"
    assert interactive.check(reading).action == headless.check(reading).action == "allow"


# --- the translation reads OpenCode's order soundly ---------------------------------------


ORDERED = """\
---
description: An agent whose rules only make sense in their order.
mode: subagent
permission:
  bash:
    "*": allow
    "rm *": deny
    "git *": ask
  edit:
    "*": allow
    "secret/*": deny
---
Body.
"""


def test_a_later_ask_never_undoes_an_earlier_deny() -> None:
    # `git *: ask` after `rm *: deny`: `rm git x` is refused by OpenCode, and
    # an ask loosened to match it anywhere in a line would ask for it.
    files = {"promptc.toml": b"[targets.gemini]\n", "specs/agents/x.md": ORDERED.encode()}
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=[TARGET])
        assert result.ok, result.diagnostics
        model = model_of.load(
            {r.removeprefix("gemini/"): d.decode() for r, d in result.files.items()}
        )
        project = bundles.project(Path(root), TARGET)
    runtime = calls.runtime_of(project)
    for permission, text, theirs, ours in (
        ("bash", "rm git x", "deny", "deny"),
        ("bash", "git status", "ask", "ask"),
        ("bash", "ls", "allow", "allow"),
        ("bash", "ls && rm x", "deny", "deny"),
        ("bash", "cat /etc/hosts", "ask", "ask"),  # a folder outside: never allowed
        ("bash", "rm -rf /tmp/x", "deny", "deny"),
        ("edit", "secret/a", "deny", "deny"),
        ("edit", "src/a.py", "allow", "allow"),
        ("edit", "./secret/a", "deny", "deny"),  # not plain: refused as a deny could decide it
        ("edit", "./src/a.py", "allow", "deny"),  # so is every odd path, then
    ):
        call = Call("x", permission, text, delegated=True)
        assert calls.decide(runtime, call).action == theirs, text
        assert model.decide(call).action == ours, (text, model.decide(call))


HOME_SKILL = """\
---
description: An agent whose skill rule names the home folder.
mode: subagent
permission:
  skill:
    "*": allow
    "~/notas/*": ask
---
Body.
"""


def test_a_skill_pattern_naming_the_home_folder_is_refused_not_read_as_written() -> None:
    # OpenCode expands `~/` to the user's home folder, which a policy file cannot
    # know: where such a rule could decide a skill, Gemini refuses it.
    files = {"promptc.toml": b"[targets.gemini]\n", "specs/agents/x.md": HOME_SKILL.encode()}
    with strategies.bundle_on_disk(files) as (_, config):
        result = api.render(config, only=[TARGET])
        assert result.ok, result.diagnostics
        model = model_of.load(
            {r.removeprefix("gemini/"): d.decode() for r, d in result.files.items()}
        )
    assert model.decide(Call("x", "skill", "/home/user/notas/a", delegated=True)).action == "deny"
    assert model.decide(Call("x", "skill", "caveman", delegated=True)).action == "allow"


# --- Gemini's own engine, in node ----------------------------------------------------------


class Engine:
    """One node process running tests/gemini/gemini_engine.mjs for the whole module."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    def ask(self, request: Mapping[str, Any]) -> Any:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "gemini_engine.mjs stopped"
        return json.loads(line)

    def decide(
        self,
        files: Mapping[str, str],
        requests: list[model_of.Request],
        folder: Path,
        interactive: bool,
    ) -> list[str]:
        """What Gemini's engine decides for each request, with these files installed."""
        for rel, text in files.items():
            if rel.startswith(("policies/", "user-policies/")):
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                (folder / rel).write_text(text, encoding="utf-8")
        calls_ = [{"name": r.tool, "args": dict(r.args), "subagent": r.subagent} for r in requests]
        answer = self.ask(
            {
                "extension": [str(folder / "policies")],
                "user": sorted(str(p) for p in (folder / "user-policies").glob("*.toml")),
                "interactive": interactive,
                "calls": calls_,
            }
        )
        return [ACTION[a] for a in answer]


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    """Gemini's engine in node: loading the bundle's chunk takes seconds, once."""
    node = oracle.binary("gemini").parent / "node"
    command = ["node" if not node.exists() else str(node), str(ENGINE), str(GEMINI_BUNDLE)]
    if not (GEMINI_BUNDLE / "chunk-JDPZ4CE3.js").exists():
        pytest.skip("the pinned Gemini CLI bundle is not installed (run `make npm`)")
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
    )
    try:
        yield Engine(process)
    finally:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()


def requests_of(
    model: model_of.Gemini, found: tuple[decisions.Decided, ...]
) -> list[model_of.Request]:
    requests = [model.request(d.call) for d in found]
    return list(dict.fromkeys(r for r in requests if isinstance(r, model_of.Request)))


def disagreements(
    engine: Engine, files: Mapping[str, str], found: tuple[decisions.Decided, ...], folder: Path
) -> list[tuple[str, str, dict[str, str], str, str]]:
    wrong = []
    for interactive in (True, False):
        model = model_of.load(files, interactive=interactive)
        requests = requests_of(model, found)
        real = engine.decide(files, requests, folder, interactive)
        for request, action in zip(requests, real, strict=True):
            mine = model.check(request).action
            if mine != action:
                wrong.append((request.subagent, request.tool, dict(request.args), mine, action))
    return wrong


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_the_engine_decides_every_call_as_the_model(
    bundle: str, engine: Engine, tmp_path: Path
) -> None:
    _, files = emitted(bundle)
    found = decided(bundle)
    assert disagreements(engine, files, found, tmp_path) == []


# Lines tree-sitter-bash reads with an error, or nearly so.
ODD_LINES = (
    "a)",
    "echo 'x",
    'echo "x',
    "echo x\\",
    "echo $(a",
    "echo `a",
    "a | (b)",
    "a && (b || c)",
    "if x",
    "if x; then y; fi",
    "a ; ; b",
    "a &&",
    "| a",
    "a || ",
    "a &",
    "a; b;",
    "cat .env > out 2>&1",
    "npm test 2>&1 | tee log",
    "bash -c 'rm -rf x'",
)


def test_the_engine_splits_every_line_as_the_model(engine: Engine) -> None:
    lines = sorted(
        {d.call.input for bundle in BUNDLES for d in decided(bundle) if d.call.permission == "bash"}
    )
    lines += ODD_LINES
    split = engine.ask({"split": lines})
    mine = [model_of.subcommands(line) if model_of.parses(line) else None for line in lines]
    assert dict(zip(lines, mine, strict=True)) == dict(zip(lines, split, strict=True))
    assert None in split
    assert len(lines) > 500


@settings(max_examples=strategies.ci_examples(15), deadline=None)
@given(files=strategies.tool_list_bundles())
def test_generated_permission_maps_are_decided_by_the_engine_as_by_the_model(
    files: dict[str, bytes], engine: Engine, tmp_path_factory: pytest.TempPathFactory
) -> None:
    strategies.tick("gemini engine")
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=[TARGET])
        texts = {r.removeprefix("gemini/"): d.decode() for r, d in result.files.items()}
        project = bundles.project(Path(root), TARGET)
    found = tuple(decisions.decided(project, TARGET, texts))
    assert decisions.wider(found) == []
    folder = tmp_path_factory.mktemp("generated")
    assert disagreements(engine, texts, found, folder) == []


def test_the_engine_sees_a_rule_loosened(engine: Engine, tmp_path: Path) -> None:
    # Not vacuous: an allow written for every command is the engine's answer
    # and the model's, and wider than OpenCode's.
    project, files = emitted("team")
    rel = next(r for r in files if r.startswith("user-policies/"))
    loose = files[rel] + (
        '\n[[rule]]\ntoolName = "run_shell_command"\nsubagent = "smith"\n'
        'decision = "allow"\npriority = 999\n'
    )
    changed = {**files, rel: loose}
    call = Call("smith", "bash", "git push origin main", delegated=True)
    model = model_of.load(changed)
    request = model.request(call)
    assert isinstance(request, model_of.Request)
    assert engine.decide(changed, [request], tmp_path, True) == ["allow"]
    assert model.decide(call).action == "allow"
    assert calls.decide(calls.runtime_of(project), call).action != "allow"


# --- the real CLI ---------------------------------------------------------------------------


@pytest.mark.slow
def test_sampled_calls_are_decided_by_the_real_gemini_as_by_the_model(tmp_path: Path) -> None:
    oracle_ = pytest.importorskip("tests.gemini.oracle")
    found = decided("claude")
    chosen = decisions.sample([d for d in found if d.call.agent == "smith"], size=10)
    _, files = emitted("claude")
    real = run_on_gemini(oracle_, files, chosen, tmp_path)
    assert real == expected(files, [d for d in chosen if d.call in real])
    assert {"allow", "ask", "deny"} <= set(real.values())
    print(decisions.figures(TARGET, found, len(real)))


@pytest.mark.conformance
def test_the_conformance_sample_is_decided_by_the_real_gemini_as_by_the_model(
    tmp_path: Path,
) -> None:
    # Over 200 calls of the team's and the fixtures' matrices, every
    # permission, OpenCode decision and model decision present in each.
    oracle_ = pytest.importorskip("tests.gemini.oracle")
    total = 0
    for index, bundle in enumerate(("team", "claude", "opencode", "permissions")):
        found = decided(bundle)
        chosen = decisions.sample(found, size=70, seed=index)
        _, files = emitted(bundle)
        real = run_on_gemini(oracle_, files, chosen, tmp_path / bundle)
        assert real == expected(files, [d for d in chosen if d.call in real]), bundle
        total += len(real)
        print(decisions.figures(f"{TARGET} ({bundle})", found, len(real)))
    assert total >= 200


@pytest.mark.conformance
@settings(max_examples=4, deadline=None, derandomize=True, database=None)
@given(files=strategies.tool_list_bundles())
def test_generated_maps_are_decided_by_the_real_gemini_as_by_the_model(
    files: dict[str, bytes],
) -> None:
    # Rule order, overlapping wildcards, `?`, case, trailing spaces, the home
    # folder, `"*": deny` with exceptions (tests/strategies.py), on the CLI.
    oracle_ = pytest.importorskip("tests.gemini.oracle")
    # Room for every attempt: a generated `steps` (max_turns) may be 1.
    files = {rel: re.sub(rb"(?m)^steps: \d+$", b"steps: 200", data) for rel, data in files.items()}
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=[TARGET])
        texts = {r.removeprefix("gemini/"): d.decode() for r, d in result.files.items()}
        project = bundles.project(Path(root), TARGET)
    found = tuple(decisions.decided(project, TARGET, texts))
    chosen = [d for d in decisions.sample(found, size=30) if d.call.delegated]
    with tempfile.TemporaryDirectory(prefix="gemini-generated-") as folder:
        real = run_on_gemini(oracle_, texts, chosen, Path(folder))
    assert real == expected(texts, [d for d in chosen if d.call in real])
    print(decisions.figures(f"{TARGET} (generated)", found, len(real)))


def expected(files: Mapping[str, str], chosen: list[decisions.Decided]) -> dict[Call, str]:
    """The model's decision of each call in a `gemini -p` run with OFFER."""
    model = model_of.headless({**files, "user-policies/offer.toml": OFFER})
    return {d.call: model.decide(d.call).action for d in chosen}


def install(files: Mapping[str, str], folder: Path, home: Path) -> None:
    """The documented set-up in a scratch HOME: the extension linked, the user
    policy copied to ~/.gemini/policies/."""
    extension = folder / "extension"
    for rel, text in files.items():
        target = home / ".gemini" / "policies" if rel.startswith("user-policies/") else extension
        path = target / (Path(rel).name if rel.startswith("user-policies/") else rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (home / ".gemini" / "policies" / "offer.toml").write_text(OFFER, encoding="utf-8")
    done = oracle.run(
        "gemini", ["extensions", "link", str(extension), "--consent"], folder, home=home
    )
    assert "linked successfully" in done.stdout + done.stderr, done


def run_on_gemini(
    oracle_: Any, files: Mapping[str, str], chosen: list[decisions.Decided], folder: Path
) -> dict[Call, str]:
    """Each chosen call made by its subagent on the real CLI: the verdict as an action."""
    folder.mkdir(parents=True, exist_ok=True)
    project = decisions.project_for(folder, {"README.md": "# scratch\n"})
    home = folder / "home"
    install(files, folder, home)
    skills = {rel.split("/")[1] for rel in files if rel.startswith("skills/")}
    real: dict[Call, str] = {}
    by_agent: dict[str, list[Call]] = {}
    for d in chosen:
        by_agent.setdefault(d.call.agent, []).append(d.call)
    for agent, found in by_agent.items():
        attempts = []
        for call in found:
            if not checked_first(call, project, home, skills):
                continue
            attempt = attempt_of(oracle_, call, project, home)
            if attempt is None or call.permission == "task" or not call.delegated:
                real[call] = "deny"  # no Gemini tool, or no subagent to make it
            else:
                attempts.append((call, attempt))
        if not attempts or agent.replace("/", "-") not in model_of.load(files).agents:
            real.update((c, "deny") for c, _ in attempts)
            continue
        # The oracle checks a write by its file: relative paths are the project's.
        with contextlib.chdir(project):
            outcomes = oracle_.run(
                project,
                [a for _, a in attempts],
                agent=agent.replace("/", "-"),
                delegate=True,
                home=home,
            )
        for (call, _), outcome in zip(attempts, outcomes, strict=True):
            real[call] = SEEN[outcome.verdict]
    return real


def checked_first(call: Call, project: Path, home: Path, skills: set[str]) -> bool:
    """Whether Gemini asks its policy about the call before its tool refuses its
    input (a file tool given a folder, `list_directory` given a file,
    `activate_skill` given a skill it does not have, `grep_search` given a
    pattern that is no regular expression)."""
    if call.permission == "skill":
        return call.input in skills
    if call.permission == "grep":
        try:
            re.compile(call.input)
        except re.error:
            return False
        return True
    if call.permission not in ("read", "edit", "list"):
        return True
    path = project / decisions.concrete(call.input, project, home)
    return not (path.is_file() if call.permission == "list" else path.is_dir())


def attempt_of(oracle_: Any, call: Call, project: Path, home: Path) -> Any:
    """The call in Gemini's terms, its path as the matrix gives it (relative
    ones stay relative: Gemini resolves them in the project, as OpenCode does)."""
    value = decisions.concrete(call.input, project, home)
    found = oracle_.attempt(call.permission, value, project)
    if found is None:
        return None
    for key in ("file_path", "dir_path"):
        if key in found.arguments and not Path(value).is_absolute():
            found = type(found)(found.tool, {**found.arguments, key: value})
    return found

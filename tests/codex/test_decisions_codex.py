"""Codex's decisions, call by call: never wider than OpenCode's, and the real `codex`'s.

The model (promptc_compiler.runtimes.codex.decide) reads the files the codex target wrote and
decides every call of a bundle's matrix (promptc_compiler.permissions.calls); OpenCode decides the
same calls from the specs. Two properties:

- on the model, for the real-shape team and every fixture, no call is wider
  than OpenCode's, but those of a permission the bundle's config accepts
  (`accept_wider`): Codex cannot keep one role from editing the project
  (every role has apply_patch), so a bundle whose agents may not all edit
  everywhere accepts `edit` or is refused; the fixtures without a codex table
  are held with that one acceptance;
- on the real CLI (tests/codex/oracle.py, a scripted model on 127.0.0.1),
  each sampled call's verdict is the model's: a few in `make test`, more in
  the conformance run.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings

from promptc_compiler import api
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.project import Project, make_project
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import Call
from promptc_compiler.runtimes import TARGET_NAMES
from promptc_compiler.runtimes.codex import decide as model_of
from promptc_compiler.runtimes.codex import translate as codex_rules
from tests import bundles, decisions, oracle, strategies
from tests.codex import oracle as codex_oracle
from tests.codex.test_target_codex import CANNOT_SAY, codex_config
from tests.conftest import MakeBundle, Run
from tests.oracles import Attempt, Outcome, harness

TARGET = "codex"
BUNDLES = {
    "team": bundles.TEAM,
    "codex": bundles.FIXTURES / "codex",
    "opencode": bundles.FIXTURES / "opencode",
    "claude": bundles.FIXTURES / "claude",
    "permissions": bundles.FIXTURES / "permissions",
    "overrides": bundles.FIXTURES / "overrides",
    "skills": bundles.FIXTURES / "skills",
}


@functools.cache
def emitted(bundle: str) -> tuple[Project, Mapping[str, str]]:
    """The project the codex files are emitted from, and the files by path."""
    config = codex_config(BUNDLES[bundle])
    result = api.render(config, only=[TARGET])
    refused = [d for d in result.diagnostics if d.rule == "wider-translation"]
    assert refused == [], refused
    files = {
        rel.removeprefix(f"{TARGET}/"): data.decode()
        for rel, data in result.files.items()
        if rel.startswith(f"{TARGET}/")
    }
    assert files, result.diagnostics
    bundle_files = load_bundle(config)
    project = make_project(
        config, bundle_files, compose_bundle(bundle_files, TARGET, TARGET_NAMES), TARGET
    )
    return project, files


@functools.cache
def decided(bundle: str) -> tuple[decisions.Decided, ...]:
    project, files = emitted(bundle)
    return tuple(decisions.decided(project, TARGET, files))


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_no_call_is_wider_than_opencode_but_what_the_config_accepts(bundle: str) -> None:
    project, _ = emitted(bundle)
    found = decided(bundle)
    accepted = codex_rules.accepted(project)
    assert set(accepted) <= set(CANNOT_SAY), accepted
    wider = [d for d in decisions.wider(found) if d.call.permission not in accepted]
    assert wider == []
    print(decisions.figures(f"{TARGET} ({bundle})", found, 0, accepted))


def test_the_team_accepts_only_apply_patch() -> None:
    # Its promptc.toml accepts `edit` and nothing else: apply_patch runs in the
    # project, and asks (never runs) outside it or in a protected folder.
    project, _ = emitted("team")
    assert codex_rules.accepted(project) == {"edit"}
    wider = decisions.wider(decided("team"))
    assert wider, "the team's read-only agents are what `edit` is accepted for"
    for found in wider:
        full = calls.absolute(found.call.input)
        assert found.call.permission == "edit", found
        ran = calls.inside(full) and "/.git/" not in full and "/.codex/" not in full
        assert found.model == ("allow" if ran else "ask"), found


def test_the_team_keeps_what_codex_can_say() -> None:
    # The usable share counts what the roles keep: every edit in the project,
    # and nothing OpenCode asks about is run unasked. Shells are lost (their
    # `"*": ask` cannot be said), so delegation, questions and plans are too.
    found = decided("team")
    kept = {(d.call.permission, d.model) for d in found if d.opencode != "deny"}
    assert ("edit", "allow") in kept
    assert all(d.model == "deny" for d in found if d.call.permission in ("task", "question"))
    print(decisions.figures(TARGET, found, 0, codex_rules.accepted(emitted("team")[0])))


# --- the model is not vacuous ---------------------------------------------------------------


def widened(bundle: str, rel: str, old: str, new: str, calls_of: list[Call]) -> list[str]:
    """The calls decided wider than OpenCode once `old` is `new` in the file `rel`."""
    project, files = emitted(bundle)
    assert old in files[rel], (rel, old)
    model = model_of.load({**files, rel: files[rel].replace(old, new)})
    runtime = calls.runtime_of(project)
    return [
        c.describe()
        for c in calls_of
        if calls.RANK[model.decide(c).action] > calls.RANK[calls.decide(runtime, c).action]
    ]


def test_the_model_sees_a_role_given_back_its_shell() -> None:
    call = Call("lead", "bash", "make")
    found = widened("codex", ".codex/agents/lead.toml", "shell_tool = false", "x = 1", [call])
    assert found == [call.describe()]


def test_the_model_sees_a_rule_loosened() -> None:
    call = Call("smith", "bash", "sudo ls", delegated=True)
    rel = ".codex/rules/promptc.rules"
    old = 'pattern = ["sudo"],\n    decision = "forbidden"'
    found = widened("codex", rel, old, 'pattern = ["sudo"],\n    decision = "allow"', [call])
    assert found == [call.describe()]


def test_the_model_sees_the_project_give_every_role_a_tool() -> None:
    rel = ".codex/config.toml"
    task = Call("smith", "task", "scout", delegated=True)
    plan = Call("smith", "todowrite", "*", delegated=True)
    assert widened("codex", rel, "max_depth = 1", "max_depth = 2", [task]) == [task.describe()]
    old = "[tools.update_plan]\nenabled = false"
    new = "[tools.update_plan]\nenabled = true"
    assert widened("codex", rel, old, new, [plan]) == [plan.describe()]


def test_a_line_codex_cannot_read_as_plain_words_is_held_as_one_command() -> None:
    _, files = emitted("codex")
    model = model_of.load(files)
    for line, action in (
        ("git status", "allow"),
        ("git push origin main", "deny"),
        ("echo $(git push)", "deny"),  # hidden from the rules, caught on the shell
        ("npm test > log.txt", "deny"),
        ("rm -rf build", "ask"),
        ("/usr/bin/sudo ls", "deny"),  # a first word given as a path: by its basename
    ):
        verdict = model.decide(Call("smith", "bash", line, delegated=True))
        assert verdict.action == action, (line, verdict)


# --- refused unless accepted ----------------------------------------------------------------

READ_ONLY = """\
    ---
    description: Reads the code and reports, and edits nothing.
    mode: subagent
    permission:
      edit: deny
      bash: deny
    ---
    Lee.
    """


def test_a_widening_codex_cannot_narrow_is_refused_naming_agent_rule_and_runtime(
    make_bundle: MakeBundle, run: Callable[..., Run]
) -> None:
    make_bundle({"promptc.toml": "[targets.codex]\n", "specs/agents/reader.md": READ_ONLY})
    done = run("build")
    assert done.code == 1
    found = [line for line in done.lines if "[wider-translation]" in line]
    assert len(found) == 1, done.out
    line = found[0]
    assert line.startswith("specs/agents/reader.md:5:3: error [wider-translation] Codex (codex)")
    assert "`reader`" in line
    assert "`edit: deny`" in line
    assert "apply_patch" in line
    assert 'accept_wider = ["edit"]' in line
    assert not Path("build").exists()


def test_an_accepted_widening_is_built_and_shown_first(
    make_bundle: MakeBundle, run: Callable[..., Run]
) -> None:
    config = '[targets.codex]\naccept_wider = ["edit"]\n'
    make_bundle({"promptc.toml": config, "specs/agents/reader.md": READ_ONLY})
    done = run("build")
    assert done.code == 0, done.out + done.err
    shown = (done.out + done.err).splitlines()
    first = next(i for i, line in enumerate(shown) if line.startswith("promptc: codex:"))
    assert "codex: accepted wider `edit`: Codex lets `reader` make" in shown[first]
    report = Path("build/codex/TRANSLATION.md").read_text()
    # Once, in the proof's section, before every other
    assert report.index("ACCEPTED WIDENINGS") < report.index("## Every role")
    edits = [line for line in report.splitlines() if line.startswith("- `reader`, `edit`")]
    assert [line.split(": ")[1] for line in edits] == ["8 call(s), e.g. `src/app.py`"]
    assert "- `reader` `edit`" not in report  # no second list of the same calls


# --- the real CLI ---------------------------------------------------------------------------

# What `codex exec` sends back where an interactive run would ask: its
# approval policy is `never`, so an approval request comes back rejected.
_EXEC_ASKS = ("rejected by user approval settings", "not permitted")
# A command that ran in the sandbox and was kept from writing: it ran unasked.
_RAN_IN_SANDBOX = "Read-only file system"


def action(outcome: Outcome) -> str:
    """An oracle's verdict as a decision of the model's vocabulary."""
    if outcome.verdict == "refused" and any(t in outcome.result for t in _EXEC_ASKS):
        return "ask"
    if outcome.verdict == "refused" and _RAN_IN_SANDBOX in outcome.result:
        return "allow"
    return {"ran": "allow", "asked": "ask", "refused": "deny", "absent": "deny"}[outcome.verdict]


def on_codex(
    files: Mapping[str, str], chosen: list[decisions.Decided], folder: Path
) -> dict[Call, str]:
    """Each chosen call made by its role on the real CLI, as a decision; the calls
    the CLI cannot decide (no attempt: a tool run by the model's server, or none
    at all) are left out, as are edits of a path with blanks around it. Every role runs on the oracle's model, whose tools the
    scripted server calls directly (a code-mode model nests them in `exec`)."""
    model = f'model = "{codex_oracle.MODEL}"'
    written = {
        rel: re.sub(r'^model = ".*"$', model, text, flags=re.M)
        if rel.startswith(".codex/agents/")
        else text
        for rel, text in files.items()
    }
    home = folder / "home"
    project = harness.scratch_project(folder / "project", written)
    by_agent: dict[str, list[tuple[Call, Attempt]]] = {}
    for d in chosen:
        value = decisions.concrete(d.call.input, project, home)
        if d.call.permission == "edit" and value != value.strip():
            continue  # apply_patch trims the path: the oracle cannot find what it wrote
        attempt = codex_oracle.attempt(d.call.permission, value, project)
        if attempt is not None:
            by_agent.setdefault(d.call.agent, []).append((d.call, attempt))
    real: dict[Call, str] = {}
    for agent, found in by_agent.items():
        attempts = [attempt for _, attempt in found]
        outcomes = codex_oracle.run(project, attempts, agent=agent, delegate=True, home=home)
        for (call, _), outcome in zip(found, outcomes, strict=True):
            real[call] = action(outcome)
    return real


def check_on_codex(
    bundle: str,
    files: Mapping[str, str],
    found: list[decisions.Decided],
    size: int,
    seed: int,
    accepted: Collection[str] = (),
) -> int:
    chosen = decisions.sample(found, size=size, seed=seed)
    with tempfile.TemporaryDirectory(prefix="codex-decisions-") as scratch:
        real = on_codex(files, chosen, Path(scratch))
    expected = {d.call: d.model for d in chosen if d.call in real}
    assert real == expected, bundle
    print(decisions.figures(f"{TARGET} ({bundle})", found, len(real), accepted))
    return len(real)


@pytest.mark.slow
def test_sampled_calls_are_decided_by_the_real_codex_as_by_the_model() -> None:
    oracle.binary("codex")
    _, files = emitted("codex")
    accepted = codex_rules.accepted(emitted("codex")[0])
    assert check_on_codex("codex", files, list(decided("codex")), 14, 0, accepted) >= 8


@pytest.mark.conformance
def test_over_200_calls_are_decided_by_the_real_codex_as_by_the_model() -> None:
    # The team's and the fixtures' matrices: every permission, OpenCode
    # decision and model decision present in each sample.
    oracle.binary("codex")
    total = 0
    for seed, (bundle, size) in enumerate((("team", 140), ("codex", 100), ("permissions", 100))):
        _, files = emitted(bundle)
        accepted = codex_rules.accepted(emitted(bundle)[0])
        total += check_on_codex(bundle, files, list(decided(bundle)), size, seed, accepted)
    assert total >= 200


@pytest.mark.conformance
@settings(max_examples=4)
@given(files=strategies.permission_bundles("codex"))
def test_generated_permission_maps_are_decided_by_the_real_codex_as_by_the_model(
    files: dict[str, bytes],
) -> None:
    # Rule order, overlapping wildcards, `?`, trailing spaces and case,
    # `"*": deny` with exceptions: whatever the generator writes.
    strategies.tick("codex-real-permission-maps")
    with strategies.bundle_on_disk(files) as (_, config):
        result = api.render(config, only=[TARGET])
        assert result.ok, result.diagnostics
        written = {rel.removeprefix(f"{TARGET}/"): d.decode() for rel, d in result.files.items()}
        project = make_project(
            config,
            load_bundle(config),
            compose_bundle(load_bundle(config), TARGET, TARGET_NAMES),
            TARGET,
        )
        found = decisions.decided(project, TARGET, written)
        accepted = codex_rules.accepted(project)
        check_on_codex("generated", written, found, 10, len(found), accepted)

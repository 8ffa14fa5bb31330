"""promptc_compiler.pipeline.proof: every call of the matrix decided by OpenCode and by the runtime's model.

The files proven here are written by hand, so the proof is tested on its own,
not through whatever a translation emits today.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import Call, Verdict
from promptc_compiler.pipeline import proof
from promptc_compiler.runtimes import MODELS, TARGETS
from promptc_compiler.runtimes.translations import Translated
from tests import bundles
from tests.conftest import MakeBundle, Run
from tests.rules.conftest import agent

CODER = """
description: Writes code and runs the tests.
mode: subagent
permission:
  bash:
    "*": ask
    "npm test": allow
  edit: allow
  webfetch: deny
"""


def _project(make_bundle: MakeBundle, config: str = "") -> Translated:
    root = make_bundle({"promptc.toml": config, "specs/agents/coder.md": agent(CODER)})
    return bundles.project(Path(root), "claude")


def _claude(tools: str, allow: list[str], ask: list[str], deny: list[str]) -> dict[str, str]:
    front = f"---\nname: coder\ndescription: Writes code.\ntools: {tools}\n---\nBody.\n"
    settings = {"permissions": {"allow": allow, "ask": ask, "deny": deny}}
    return {".claude/agents/coder.md": front, ".claude/settings.json": json.dumps(settings)}


def test_files_that_hold_opencodes_rules_are_never_wider(make_bundle: MakeBundle) -> None:
    files = _claude(
        "Read, Edit, Write, Glob, Grep, Bash",
        allow=["Bash(npm test)", "Edit(/**)"],
        ask=["Bash", "Read(**/*.env)", "Read(**/*.env.*)"],
        deny=[f"Bash({command} *)" for command in ("cat", "head", "wc", "grep", "ls", "git")],
    )
    found = proof.prove(_project(make_bundle), "claude", files)
    assert found is not None
    assert found.wider == ()
    assert found.runtime == "Claude Code"
    assert found.agents == 1
    # It keeps the shell and edits: lost only what it has no tool for.
    assert "shell" not in found.lost.get("coder", ())
    assert "edit" not in found.lost.get("coder", ())


def test_a_bare_edit_allow_is_wider_outside_the_project(make_bundle: MakeBundle) -> None:
    files = _claude("Edit, Write", allow=["Edit"], ask=[], deny=[])
    found = proof.prove(_project(make_bundle), "claude", files)
    assert found is not None
    wider = {(w.call.permission, w.call.input) for w in found.refused}
    assert ("edit", "/home/user/.ssh/authorized_keys") in wider
    assert ("edit", "src/app.py") not in wider  # OpenCode allows that one too
    assert found.accepted == ()


def test_an_accepted_widening_is_kept_and_shown_first(make_bundle: MakeBundle) -> None:
    project = _project(make_bundle, '[targets.claude]\naccept_wider = ["edit"]\n')
    found = proof.prove(project, "claude", _claude("Edit, Write", ["Edit"], [], []))
    assert found is not None
    assert found.refused == ()
    assert found.accepted
    lines = proof.lines([found])
    assert lines[0].startswith("claude: accepted wider `edit`: Claude Code lets `coder` make")
    assert "ACCEPTED WIDER" in lines[-1]


def test_a_tool_taken_away_is_lost_and_counted(make_bundle: MakeBundle) -> None:
    found = proof.prove(_project(make_bundle), "claude", _claude("Read", [], [], []))
    assert found is not None
    assert set(found.lost["coder"]) >= {"shell", "edit"}
    assert found.kept < found.usable
    assert found.summary().startswith("claude: 1 agents; ")
    assert "lost shell" in found.summary()


def test_a_target_without_a_model_is_not_proven(make_bundle: MakeBundle) -> None:
    assert proof.prove(_project(make_bundle), "opencode", {}) is None


class _AllowsEverything:
    def decide(self, _call: Call) -> Verdict:
        return Verdict("allow", "this stand-in runtime allows everything")

    def alike(self, _agent: str) -> None:
        return None  # every agent alike


READER = """
description: Reads only.
mode: subagent
permission:
  edit: deny
  bash: deny
"""


@pytest.mark.parametrize("accept", ["", 'accept_wider = ["edit", "bash"]'])
def test_the_build_refuses_a_wider_translation_unless_accepted(
    make_bundle: MakeBundle, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch, accept: str
) -> None:
    # The codex target's files read by a model that allows every call: the
    # build must refuse them at the rules they widen, or print them first.
    monkeypatch.setitem(MODELS, "codex", ("Codex", lambda _files: _AllowsEverything()))
    make_bundle(
        {
            "promptc.toml": f"[targets.codex]\n{accept}\n",
            "specs/agents/reader.md": agent(READER),
        }
    )
    done = run("build", "--no-cache")
    wider = [line for line in done.lines if "[wider-translation]" in line]
    edit = [line for line in wider if line.startswith("specs/agents/reader.md:5:3: error")]
    if not accept:
        assert done.code == 1
        assert edit
        assert "Codex (codex) would allow `reader` as a subagent `edit`" in edit[0]
        assert "`edit: deny`" in edit[0]
        assert "accept_wider" in edit[0]
        assert not (Path("build") / "codex").exists()  # nothing written
    else:
        assert not edit
        assert "codex: accepted wider `bash`: Codex lets `reader` make" in done.err.splitlines()[0]
    assert "codex: 1 agents;" in done.err


def test_translation_md_says_the_proof_accepted_widenings_first(make_bundle: MakeBundle) -> None:
    project = _project(make_bundle, '[targets.claude]\naccept_wider = ["edit"]\n')
    found = proof.prove(project, "claude", _claude("Edit, Write", ["Edit"], [], []))
    assert found is not None
    report = proof.with_proof("# Title\n\nIntro.\n\n## Agents\n\nText.\n", found)
    assert report.startswith("# Title\n\nIntro.\n\n## Decided call by call\n\nACCEPTED WIDENINGS")
    assert "- `coder`, `edit`: " in report
    assert report.endswith("## Agents\n\nText.\n")
    assert "Tools an agent can use in OpenCode and not here:\n\n- `coder`: " in report


READS_AND_RUNS = """
description: Reads and runs a few commands.
mode: {mode}
permission:
  bash: {bash}
  edit:
    "*": {edit}
    "*.env": deny
  task:
    "*": deny
    "{peer}": allow
{more}"""
BASH = '{"*": ask, "git *": allow, "rm *": deny}'
# Agents that share every rule (a, b), share all but their edit, task, bash or
# folder rules (c, d, h, i: the runtime may then decide the rest otherwise, as Claude
# Code's searches without Bash), run as primary or both ways (e, f), or write
# nothing (g).
SHAPES = {
    "a": ("subagent", "ask", "c", BASH),
    "b": ("subagent", "ask", "c", BASH),
    "c": ("subagent", "allow", "c", BASH),
    "d": ("subagent", "ask", "a", BASH),
    "e": ("primary", "ask", "a", BASH),
    "f": ("all", "deny", "b", BASH),
    "g": None,
    "h": ("subagent", "ask", "c", "deny"),
    "i": ("subagent", "ask", "c", BASH, "  external_directory: deny\n"),
}
CONFIG = "[targets.claude]\n[targets.codex]\n[targets.copilot]\n[targets.gemini]\n"


def _shaped(make_bundle: MakeBundle, target: str) -> tuple[Translated, dict[str, str]]:
    """The SHAPES bundle for `target`, and the files the target writes for it."""
    files = {"promptc.toml": CONFIG}
    for name, shape in SHAPES.items():
        front = "description: Writes nothing.\nmode: subagent\n"
        if shape is not None:
            mode, edit, peer, bash, *more = shape
            front = READS_AND_RUNS.format(
                mode=mode, edit=edit, peer=peer, bash=bash, more="".join(more)
            )
        files[f"specs/agents/{name}.md"] = agent(front)
    project = bundles.project(make_bundle(files), target)
    return project, dict(TARGETS[target].files(project, project.config.targets[target]))


@pytest.mark.parametrize("target", ["claude", "codex", "copilot", "gemini"])
def test_agents_a_model_finds_alike_get_the_same_action_for_every_call(
    make_bundle: MakeBundle, target: str
) -> None:
    # What lets the proof decide a call once for several agents: equal values of
    # `alike` mean equal actions, whatever the call.
    project, texts = _shaped(make_bundle, target)
    model = MODELS[target][1](texts)
    by_value: dict[object, list[str]] = {}
    for name in [*SHAPES, "no-such-agent"]:
        by_value.setdefault(model.alike(name), []).append(name)
    assert len(by_value) > 1  # some agents are told apart
    assert any(len(names) > 1 for names in by_value.values())  # and some are not
    for call in project.translations.matrix:
        for other in by_value[model.alike(call.agent)]:
            theirs = model.decide(replace(call, agent=other))
            assert theirs.action == model.decide(call).action, (call, other)


@pytest.mark.parametrize("target", ["claude", "codex", "copilot", "gemini"])
def test_the_proof_is_deciding_every_call_of_every_agent(
    make_bundle: MakeBundle, target: str
) -> None:
    # Calls are decided once for every agent whose rules (and runtime files) decide
    # them alike: the proof must equal deciding each call of each agent.
    project, texts = _shaped(make_bundle, target)
    found = proof.prove(project, target, texts)
    assert found is not None
    model = MODELS[target][1](texts)
    runtime = calls.runtime_of(project)
    decided = {call: calls.decide(runtime, call) for call in calls.matrix(project, runtime)}
    verdicts = {call: model.decide(call) for call in decided}
    wider = [
        proof.Widening(call, decided[call], verdicts[call], accepted=False)
        for call in decided
        if calls.RANK[verdicts[call].action] > calls.RANK[decided[call].action]
    ]
    usable = [call for call in decided if decided[call].action != "deny"]
    assert found.wider == tuple(wider)
    assert (found.agents, found.calls, found.usable) == (len(SHAPES), len(decided), len(usable))
    assert found.kept == sum(verdicts[call].action != "deny" for call in usable)
    lost = {
        (call.agent, proof.KINDS[call.permission])
        for call in usable
        if call.permission in proof.KINDS
    } - {
        (call.agent, proof.KINDS[call.permission])
        for call in usable
        if call.permission in proof.KINDS and verdicts[call].action != "deny"
    }
    assert {(agent, kind) for agent, kinds in found.lost.items() for kind in kinds} == lost

"""Claude Code decides no call more permissively than OpenCode: every call on the model, a sample on the binary.

compiler/promptc_compiler/runtimes/claude/decide.py reads the files the `claude` and `claude-plugin`
targets emit as Claude Code 2.1.332 decides them. Here:

- every call of the matrix (promptc_compiler.permissions.calls) of the real-shape team
  (tests/fixtures/team) and of each fixture bundle, and of generated permission maps, is decided by
  OpenCode and by the model: none wider (fast, in `make test`);
- the real `claude` (tests/claude/oracle.py, offline against a scripted
  model endpoint) decides a sample of those calls in a scratch project
  holding the emitted files, and each real verdict must equal the model's:
  a few calls of two agents in `make test`, at least 200 calls per target
  in `make conformance` (the team, the fixtures, hard maps written
  here and generated ones), each target's figures printed;
- the three calls Claude Code was once seen running unasked: a Write to
  `~/.ssh/authorized_keys` by the main agent, `cat .env`, and `Skill foo`
  for an agent whose skills OpenCode asks for.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings

from promptc_compiler import api
from promptc_compiler.core.project import Project
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import Call
from promptc_compiler.runtimes.claude import decide as model
from promptc_compiler.runtimes.translation import flat_name
from tests import bundles, decisions, strategies
from tests.claude import oracle as claude
from tests.conftest import MakeBundle
from tests.decisions import Decided
from tests.oracles import OracleError, Outcome, Verdict
from tests.oracles.harness import Evidence

pytestmark = pytest.mark.slow

TARGETS = ("claude", "claude-plugin")
BUNDLES = {
    "team": bundles.TEAM,
    **{name: bundles.FIXTURES / name for name in ("claude", "codex", "opencode", "permissions")},
    **{name: bundles.FIXTURES / name for name in ("overrides", "skills", "hard")},
}
# Maps each runtime is known to get wrong: rule order, overlapping
# wildcards, `?`, trailing spaces and case, `"*": deny` with exceptions,
# external_directory and skill patterns; one primary starts the others.
HARD = {
    "lead": {
        "mode": "primary",
        "permission": {
            "bash": {"*": "allow", "git *": "ask", "git status*": "allow", "rm *": "deny"},
            "edit": {"*": "ask", "src/*": "allow", "src/*.lock": "deny", "*.md": "allow"},
            "task": {"*": "deny", "order": "allow", "spaces": "ask"},
        },
    },
    "order": {
        "mode": "subagent",
        "permission": {"bash": {"*": "ask", "ls ?": "allow", "git status ": "allow"}},
    },
    "spaces": {
        "mode": "subagent",
        "permission": {"bash": {"*": "ask", "GIT *": "deny", "git log*": "allow"}},
    },
    "excepted": {
        "mode": "subagent",
        "permission": {
            "bash": {"*": "deny", "git log*": "allow"},
            "read": {"*": "deny", "src/*": "allow"},
        },
    },
    "outside": {
        "mode": "subagent",
        "permission": {
            "edit": "allow",
            "external_directory": {"*": "ask", "~/notes/*": "allow", "/tmp/secret/*": "deny"},
        },
    },
    "walled": {"mode": "subagent", "permission": {"external_directory": "deny", "edit": "allow"}},
    "skills": {"mode": "subagent", "permission": {"skill": {"*": "ask", "cave*": "allow"}}},
    "picky": {
        "mode": "subagent",
        "permission": {"skill": {"*": "allow", "foo": "deny", "bar*": "deny"}},
    },
}
HARD_CONFIG = (
    'default_agent = "lead"\n\n[targets.claude]\n\n[targets.claude-plugin]\nname = "hard"\n'
)
# Skills a user installed in their own folder: the matrix asks about `foo`.
USER_SKILL = "---\nname: foo\ndescription: A skill the user installed.\n---\nSay hi.\n"


# --- the model, every call ------------------------------------------------------------------


def render(root: Path, target: str, *, lint_errors: bool = False) -> dict[str, str]:
    """The target's files; with `lint_errors`, a bundle made of permission maps that
    lint rules report (an unknown skill, an unreachable subagent) on purpose."""
    files = bundles.render(root, target, lint_errors=lint_errors)
    return {rel: data.decode() for rel, data in files.items()}


@functools.cache
def emitted(bundle: str, target: str) -> dict[str, str]:
    return render(BUNDLES[bundle], target, lint_errors=bundle == "permissions")


@functools.cache
def found(bundle: str, target: str) -> tuple[Decided, ...]:
    project = bundles.project(BUNDLES[bundle], "claude")
    return tuple(decisions.decided(project, target, emitted(bundle, target)))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_no_call_of_a_bundle_is_wider_on_the_model(bundle: str, target: str) -> None:
    decided = found(bundle, target)
    assert decisions.wider(decided) == []
    print(decisions.figures(target, decided, 0))


@pytest.mark.parametrize("target", TARGETS)
def test_the_comparison_is_not_vacuous(target: str) -> None:
    # Claude Code allows something OpenCode allows, and narrows something.
    pairs = {(d.opencode, d.model) for d in found("team", target)}
    assert ("allow", "allow") in pairs
    assert any(calls.RANK[m] < calls.RANK[o] for o, m in pairs)


def decide(bundle: str, target: str, call: Call) -> str:
    return model.load(emitted(bundle, target)).decide(call).action


def test_the_main_agent_may_not_write_outside_the_project_unasked() -> None:
    call = Call("craftsman", "edit", f"{calls.HOME}/.ssh/authorized_keys")
    assert decide("team", "claude", call) == "ask"
    assert decide("team", "claude", Call("craftsman", "edit", "src/app.py")) == "allow"


@pytest.mark.parametrize("command", ["cat .env", "head .env", "wc -l .env", "git show HEAD"])
def test_read_only_commands_ask_where_opencode_asks(command: str) -> None:
    assert decide("team", "claude", Call("craftsman", "bash", command)) == "ask"
    # OpenCode allows `git status` as written and asks about `git  status`, which
    # Claude Code would run unasked: it asks for both (a narrowing).
    assert decide("team", "claude", Call("craftsman", "bash", "git  status")) == "ask"
    assert decide("team", "claude", Call("craftsman", "bash", "git status")) == "ask"
    assert decide("team", "claude", Call("craftsman", "edit", "src/app.py")) == "allow"


def test_a_model_that_lets_a_read_only_command_through_is_caught() -> None:
    # Without the shared ask rules, Claude Code runs `cat .env` unasked.
    files = dict(emitted("team", "claude"))
    document = json.loads(files[".claude/settings.json"])
    document["permissions"]["ask"] = [
        rule for rule in document["permissions"]["ask"] if not rule.startswith("Bash(cat")
    ]
    files[".claude/settings.json"] = json.dumps(document)
    project = bundles.project(bundles.TEAM, "claude")
    wider = {
        (d.call.agent, d.call.input)
        for d in decisions.wider(decisions.decided(project, "claude", files))
    }
    assert ("craftsman", "cat .env") in wider


def test_a_model_that_lets_an_agent_keep_a_tool_is_caught() -> None:
    files = dict(emitted("team", "claude"))
    rel = ".claude/agents/scout.md"
    files[rel] = files[rel].replace("  - Read\n", "  - Read\n  - Edit\n  - Write\n", 1)
    project = bundles.project(bundles.TEAM, "claude")
    wider = {
        (d.call.agent, d.call.permission)
        for d in decisions.wider(decisions.decided(project, "claude", files))
    }
    assert ("scout", "edit") in wider


# --- generated and hard permission maps -------------------------------------------------------


def hard_bundle(make_bundle: MakeBundle) -> Path:
    files: dict[str, str | bytes] = {"promptc.toml": HARD_CONFIG}
    for name, meta in HARD.items():
        front = {"description": f"Agente {name} con permisos difíciles.", **meta}
        files[f"specs/agents/{name}.md"] = (
            f"---\n{yaml.safe_dump(front, sort_keys=False)}---\nCuerpo.\n"
        )
    return make_bundle(files)


@pytest.mark.parametrize("target", TARGETS)
def test_no_call_of_the_hard_maps_is_wider_on_the_model(
    make_bundle: MakeBundle, target: str
) -> None:
    root = hard_bundle(make_bundle)
    hard = render(root, target, lint_errors=True)
    decided = decisions.decided(bundles.project(root, "claude"), target, hard)
    assert decisions.wider(decided) == []
    print(decisions.figures(target, decided, 0))


@settings(
    max_examples=strategies.ci_examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(files=strategies.tool_list_bundles())
# Found by the property: a stop with two `*` and a trailing ` *` (`git st?tus *`,
# written `git st*tus *`) missed the bare `git status` in Claude Code.
@example(
    files={
        "promptc.toml": b'"custom_tools" = ["plan_db"]\n',
        "specs/agents/scout.md": b"---\ndescription: Agente scout con permisos generados.\n"
        b"mode: subagent\npermission:\n  '*':\n    '*': allow\n    git st?tus *: ask\n---\nCuerpo.\n",
    }
)
def test_generated_permission_maps_are_never_wider_on_the_model(files: dict[str, bytes]) -> None:
    files = {
        **files,
        "promptc.toml": files["promptc.toml"] + b"\n[targets.claude]\n\n[targets.claude-plugin]\n",
    }
    with strategies.bundle_on_disk(files) as (root, config):
        result = api.render(config, only=list(TARGETS))
        assert not [d for d in result.diagnostics if d.rule == "wider-translation"]
        project = bundles.project(root, "claude")
        for target in TARGETS:
            texts = {
                rel.removeprefix(f"{target}/"): data.decode()
                for rel, data in result.files.items()
                if rel.startswith(f"{target}/")
            }
            assert decisions.wider(decisions.decided(project, target, texts)) == []


# --- the real claude ---------------------------------------------------------------------------


_NO_VERDICT = ("File has not been read yet", "Unknown skill")
_REFUSALS = (
    "denied by your permission settings",
    "blocked by permission rules",
    "has been denied by permission rule",
)


def agreed(outcome: Outcome) -> str | None:
    """A real verdict in the model's words, or None when the run could not tell.

    The driver reads a call as refused only from "Permission to use ... has been
    denied"; Claude Code 2.1.332 also refuses with "File is in a directory that
    is denied by your permission settings" (a Read or Edit deny), "Skill
    execution blocked by permission rules", "Agent type ... has been denied by
    permission rule" and "Agent type ... not found" (the tool's own error, not
    listed in permission_denials). An agent without Read
    cannot Write a file that exists ("File has not been read yet") before any
    permission is asked, and a skill the scratch folders do not hold is
    "Unknown": no verdict."""
    text = outcome.result
    if any(words in text for words in _NO_VERDICT):
        return None
    if outcome.verdict in ("refused", "absent"):
        return "deny"
    if any(words in text for words in _REFUSALS):
        return "deny"
    if outcome.verdict == "ran" and "Agent type '" in text and "not found" in text:
        return "deny"
    return "ask" if outcome.verdict == "asked" else "allow"


def _tolerant(classify: Callable[[Evidence], Verdict]) -> Callable[[Evidence], Verdict]:
    """The driver's reading, except that a tool error no permission decided (an
    unknown skill, a file not read yet) is left for `agreed` to read as no
    verdict, where the driver would stop the run."""

    def read(seen: Evidence) -> Verdict:
        try:
            return classify(seen)
        except OracleError:
            if any(words in seen.result for words in _NO_VERDICT):
                return "ran"
            raise

    return read


# The folders decisions.project_for makes, on the stand-in paths.
SCRATCH_FOLDERS = frozenset({calls.PROJECT, f"{calls.PROJECT}/src", calls.OUTSIDE, calls.HOME})


def runnable(decided: Decided) -> bool:
    """Calls a scratch run can make: a tool Claude Code has, a file inside the
    scratch folders (never the machine's own, such as /etc/hosts, for a write),
    not a folder."""
    call = decided.call
    if call.permission not in model.TOOL or call.permission == "lsp":
        return False
    if call.permission in ("edit", "read") and call.input.rstrip(" ").endswith("/"):
        return False  # a folder: the tool refuses it before any permission is asked
    if call.permission in ("edit", "read") and calls.absolute(call.input) in SCRATCH_FOLDERS:
        return False  # a folder of the scratch project (decisions.project_for), so too
    if call.permission == "edit":
        full = calls.absolute(call.input)
        return any(
            full.startswith(f"{root}/") for root in (calls.PROJECT, calls.HOME, calls.OUTSIDE)
        )
    return True


def offline(decided: Decided, project: Path, home: Path) -> str:
    """A call's input in the scratch folders; URLs and searches kept on loopback."""
    call = decided.call
    if call.permission == "webfetch":
        return "http://127.0.0.1:9/oracle"  # no WebFetch(domain:...) rule is written
    if call.permission == "websearch":
        return "promptc oracle"  # Claude Code needs two characters
    if call.permission == "task":
        return call.input.replace("/", "-")
    return decisions.concrete(call.input, project, home)


def real(
    target: str, files: Mapping[str, str], chosen: Iterable[Decided], folder: Path
) -> list[tuple[Decided, str, str]]:
    """Each chosen call as the real claude decides it: (call, verdict in the model's
    words, the CLI's result text). One run per agent and context."""
    plugin = target == "claude-plugin"
    # the plugin's files live beside the project
    project = decisions.project_for(folder, {} if plugin else _started(files))
    home = folder / "home"
    (home / ".claude/skills/foo").mkdir(parents=True)
    (home / ".claude/skills/foo/SKILL.md").write_text(USER_SKILL)
    prefix = ""
    if plugin:
        for rel, text in _started(files).items():
            (folder / "plugin" / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / "plugin" / rel).write_text(text)
        prefix = json.loads(files[".claude-plugin/plugin.json"])["name"] + ":"
    groups: dict[tuple[str, bool], dict[str, tuple[Decided, object]]] = {}
    agents = model.load(files).agents
    for decided in chosen:
        permission, value = decided.call.permission, offline(decided, project, home)
        if permission == "task" and f"agents/{value}.md" in {
            rel.removeprefix(".claude/") for rel in files
        }:
            value = prefix + value  # a bundle agent: the plugin's name for it
        tools = agents[flat_name(decided.call.agent)].tools
        tool = model.TOOL.get(permission, "")
        if tool in model.LISTED_ONLY and tool not in tools and "Bash" in tools:
            # the search an agent with Bash makes instead (Claude Code offers no Glob)
            permission, value = "bash", model.search_command(tool, value)
        attempt = claude.attempt(permission, value, project)
        if attempt is None:
            continue
        key = json.dumps([attempt.tool, attempt.arguments], sort_keys=True)
        groups.setdefault((decided.call.agent, decided.call.delegated), {})[key] = (
            decided,
            attempt,
        )
    out = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(claude, "classify", _tolerant(claude.classify))
        if plugin:
            patch.setitem(claude.ENV, "CLAUDE_CODE_PLUGIN_DIRS", str(folder / "plugin"))
        for (agent, delegated), group in groups.items():
            pairs = list(group.values())
            outcomes = claude.run(
                project,
                [a for _, a in pairs],  # type: ignore[misc]
                agent=prefix + flat_name(agent),
                delegate=delegated,
                home=home,
            )
            for (d, _), outcome in zip(pairs, outcomes, strict=True):
                seen = agreed(outcome)
                if seen is not None:
                    out.append((d, seen, outcome.result))
    return out


def _started(files: Mapping[str, str]) -> dict[str, str]:
    """The files as a run reads them: the settings' `agent` left out, so that the
    session that starts a subagent may start any (a main agent is named with
    `--agent`, which wins over it anyway), and no agent's `maxTurns`, which
    would end a run before its calls (neither decides a call)."""
    found = {rel: re.sub(r"(?m)^maxTurns: \d+\n", "", text) for rel, text in files.items()}
    rel = ".claude/settings.json"
    if rel in found:
        document = json.loads(found[rel])
        document.pop("agent", None)
        found[rel] = json.dumps(document)
    return found


def check_real(
    target: str, files: Mapping[str, str], chosen: Sequence[Decided], folder: Path
) -> int:
    """The real verdicts equal the model's; returns how many calls ran for real."""
    results = real(target, files, chosen, folder)
    differ = [
        (d.call.describe(), f"model {d.model} ({d.why})", f"claude {seen}: {text[:160]}")
        for d, seen, text in results
        if seen != d.model
    ]
    assert differ == [], "\n".join(map(str, differ))
    return len(results)


def picked(decided: Sequence[Decided], agents: set[tuple[str, bool]], size: int) -> list[Decided]:
    mine = [d for d in decided if (d.call.agent, d.call.delegated) in agents and runnable(d)]
    return decisions.sample(mine, size)


@pytest.mark.parametrize("target", TARGETS)
def test_the_real_claude_decides_a_sample_as_the_model(target: str, tmp_path: Path) -> None:
    # Two runs: the main agent and one subagent, about a dozen calls each.
    chosen = picked(found("team", target), {("craftsman", False), ("smith", True)}, 24)
    count = check_real(target, emitted("team", target), chosen, tmp_path)
    print(decisions.figures(target, found("team", target), count))


@pytest.mark.conformance
def test_the_three_calls_claude_once_ran_unasked_are_asked_or_refused(
    make_bundle: MakeBundle, tmp_path: Path
) -> None:
    files = emitted("team", "claude")
    chosen = [
        d
        for d in found("team", "claude")
        if (d.call.agent, d.call.delegated) == ("craftsman", False)
        and (d.call.permission, d.call.input)
        in {("edit", f"{calls.HOME}/.ssh/authorized_keys"), ("bash", "cat .env")}
    ]
    results = real("claude", files, chosen, tmp_path / "team")
    assert sorted(seen for _, seen, _ in results) == ["ask", "ask"], results
    assert not (tmp_path / "team/home/.ssh/authorized_keys").exists()
    root = hard_bundle(make_bundle)
    hard = render(root, "claude", lint_errors=True)
    decided = decisions.decided(bundles.project(root, "claude"), "claude", hard)
    skill = [
        d
        for d in decided
        if (d.call.agent, d.call.permission, d.call.input) == ("skills", "skill", "foo")
    ]
    [(_, seen, _)] = real("claude", hard, skill, tmp_path / "hard")
    assert seen in ("ask", "deny")


# Which path rules hold at any depth: `./` names the project's folder and anchors
# nothing of its own, a `/` inside or in front of the path anchors it.
ANCHORS = {"x/.env": "allow", "a/b.txt": "allow", "z/a/b.txt": "ask", "x/c.txt": "ask"}


@pytest.mark.conformance
def test_the_real_claude_anchors_path_rules_as_the_model(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files = {
        ".claude/settings.json": json.dumps(
            {"permissions": {"allow": ["Edit(./.env)", "Edit(./a/b.txt)", "Edit(/c.txt)"]}}
        ),
        ".claude/agents/scout.md": "---\nname: scout\ndescription: Scouts the code.\n---\nScout.\n",
    }
    for rel, text in {**files, **dict.fromkeys(ANCHORS, "A=1\n")}.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    decided = model.load(files)
    assert {p: decided.decide(Call("scout", "edit", p)).action for p in ANCHORS} == ANCHORS
    attempts = [claude.attempt("edit", path, project) for path in ANCHORS]
    (tmp_path / "home").mkdir()
    outcomes = claude.run(project, attempts, agent="scout", home=tmp_path / "home")  # type: ignore[arg-type]
    assert {p: agreed(o) for p, o in zip(ANCHORS, outcomes, strict=True)} == ANCHORS


# --- conformance: at least 200 calls per target ------------------------------------------------

SAMPLES = {
    "team": 70,
    "claude": 30,
    "opencode": 25,
    "permissions": 45,
    "skills": 15,
    "hard": 40,
}


@pytest.mark.conformance
@pytest.mark.parametrize("target", TARGETS)
def test_the_real_claude_decides_every_bundle_as_the_model(
    make_bundle: MakeBundle, target: str, tmp_path: Path
) -> None:
    count = 0
    everything: list[Decided] = []
    for bundle, size in SAMPLES.items():
        decided = found(bundle, target)
        everything += decided
        chosen = decisions.sample([d for d in decided if runnable(d)], size)
        count += check_real(target, emitted(bundle, target), chosen, tmp_path / bundle)
    root = hard_bundle(make_bundle)
    hard = render(root, target, lint_errors=True)
    made = decisions.decided(bundles.project(root, "claude"), target, hard)
    everything += made
    count += check_real(target, hard, [d for d in made if runnable(d)][::3], tmp_path / "maps")
    assert count >= 200
    print(decisions.figures(target, everything, count))


@pytest.mark.conformance
@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(files=strategies.tool_list_bundles())
def test_the_real_claude_decides_generated_maps_as_the_model(files: dict[str, bytes]) -> None:
    files = {**files, "promptc.toml": files["promptc.toml"] + b"\n[targets.claude]\n"}
    with strategies.bundle_on_disk(files) as (root, _):
        emitted_ = render(root, "claude", lint_errors=True)
        project: Project = bundles.project(root, "claude")
        decided = decisions.decided(project, "claude", emitted_)
        chosen = decisions.sample([d for d in decided if runnable(d)], 20)
        check_real("claude", emitted_, chosen, root / "oracle")

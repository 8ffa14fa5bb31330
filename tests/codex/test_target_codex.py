"""The codex target: Codex never decides a command above OpenCode, and says what it loses.

The property tests read the emitted `.codex` files through Codex's decision
model (promptc_compiler.runtimes.codex.decide, held against the real `codex execpolicy check`
in test_conformance_codex.py and the real CLI in test_decisions_codex.py) and
compare, for every role and the main session and many commands, with the
answer `promptc can` gives for the same agent (promptc_compiler.api.can: the agent's
OpenCode rules, decided with promptc_compiler.permissions.ruleset.evaluate): deny < ask <
allow, and Codex's decision must never be above it. The rules are
project-wide, so that is the same as Codex's decision never being above the
narrowest answer among the agents that have a shell.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptc_compiler import api, rules
from promptc_compiler.base.diagnostics import Severity
from promptc_compiler.core.config import Config, load_config
from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.calls import RANK, Call
from promptc_compiler.permissions.ruleset import evaluate
from promptc_compiler.permissions.runtime import Runtime
from promptc_compiler.runtimes.codex import decide as codex_model
from promptc_compiler.runtimes.codex import import_ as import_codex
from promptc_compiler.runtimes.codex import target as codex
from promptc_compiler.runtimes.codex import translate as codex_rules
from promptc_compiler.runtimes.translation import MAIN
from tests import bundles, strategies
from tests.conftest import MakeBundle, Run

BUNDLES = {
    "team": bundles.TEAM,
    "codex": bundles.FIXTURES / "codex",
    "opencode": bundles.FIXTURES / "opencode",
    "claude": bundles.FIXTURES / "claude",
}
SAMPLE_COMMANDS = [
    "git status",
    "git status --short",
    "git push",
    "git push origin main",
    "git push --force origin",
    "git pushx",
    "npm test",
    "npm publish",
    "rm -rf build",
    "rm a.txt",
    "sudo ls",
    "curl example.org",
    "zig build",
    "zig build test",
    "ls",
    "ls -la",
    "make",
]


# --- which words a prefix rule can hold -----------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "cover", "inside"),
    [
        ("git push *", ("git", "push"), ("git", "push")),
        ("git push*", ("git",), ("git", "push")),
        ("sudo *", ("sudo",), ("sudo",)),
        ("rm -rf *", ("rm", "-rf"), ("rm", "-rf")),
        ("zig build", ("zig", "build"), None),
        ("npm publish*", ("npm",), ("npm", "publish")),
        ("git * main", ("git",), None),
        ("*", None, None),
        ("git*", None, ("git",)),
        ("*push", None, None),
        ("echo $HOME *", ("echo",), None),
        ("git  push *", ("git",), None),
    ],
)
def test_a_pattern_is_held_by_the_words_every_command_it_matches_starts_with(
    pattern: str, cover: tuple[str, ...] | None, inside: tuple[str, ...] | None
) -> None:
    patterns = wildcard.Patterns()
    assert codex_rules.cover_words(patterns, pattern) == cover
    assert codex_rules.inside_words(patterns, pattern) == inside


# --- the decision property ------------------------------------------------------------------


CANNOT_SAY = ("edit",)


def codex_config(root: Path) -> Config:
    """The bundle's config; a fixture without a codex table gets one that accepts the
    one widening Codex cannot narrow for a single role (`edit`: every role has
    apply_patch, test_decisions_codex.py)."""
    config = bundles.config(root)
    if "codex" in config.targets:
        return config
    targets = {**config.targets, "codex": {"accept_wider": list(CANNOT_SAY)}}
    return dataclasses.replace(config, targets=targets)


def render(root: Path, *, lint_errors: bool = False) -> dict[str, bytes]:
    """bundles.render for the codex target, on codex_config."""
    result = api.render(codex_config(root), only=["codex"])
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    if lint_errors:
        errors = [d for d in errors if rules.RULES[d.rule].STAGE]
    assert errors == [], errors
    return {rel.removeprefix("codex/"): data for rel, data in result.files.items()}


def opencode_answers(config: Config) -> tuple[Runtime, Mapping[str, str]]:
    """The OpenCode runtime `promptc can` answers from, and role name -> agent name."""
    runtime, _ = api.opencode_runtime(config)
    names = {a.name: a.name for a in runtime.bundle_agents()}
    return runtime, {**names, MAIN: "build"}


def load(files: Mapping[str, bytes]) -> codex_model.Codex:
    """Codex's model of the files, with Codex's own main session as a role (MAIN) that
    keeps whatever shell the project gives it."""
    model = codex_model.load({rel: data.decode() for rel, data in files.items()})
    main = codex_model.Role(MAIN, True, ".codex/config.toml")
    return codex_model.Codex({**model.roles, MAIN: main}, model.session, model.rules)


def shell_of(model: codex_model.Codex, role: str) -> bool:
    return model.session.shell and model.roles[role].shell


def policy(model: codex_model.Codex, command: list[str]) -> str | None:
    """What `codex execpolicy check` says: the strictest matching decision, or None."""
    found = [r.decision for r in model.matching(command)]
    return max(found, key=codex_model.STRICT.__getitem__) if found else None


def can(runtime: Runtime, agent: str, command: str) -> str:
    """What `promptc can AGENT bash COMMAND` answers (promptc_compiler.api.can, without reloading)."""
    found = runtime.agents[agent]
    return evaluate(found.effective(found.runs_as_subagent), "bash", command).action


def decisions(
    model: codex_model.Codex, runtime: Runtime, names: Mapping[str, str], commands: list[str]
) -> Iterator[tuple[str, str, str, str]]:
    """(role, command, Codex's decision, OpenCode's) for every role and command."""
    for role, agent in names.items():
        for command in commands:
            mine = model.decide(Call(role, "bash", command)).action
            yield role, command, mine, can(runtime, agent, command)


@functools.cache
def case(bundle: str) -> tuple[codex_model.Codex, Runtime, Mapping[str, str]]:
    root = BUNDLES[bundle]
    model = load(render(root))
    runtime, names = opencode_answers(bundles.config(root))
    return model, runtime, names


def commands_of(runtime: Runtime) -> list[str]:
    """The sample commands, and each bash pattern of the bundle made into commands."""
    found = dict.fromkeys(SAMPLE_COMMANDS)
    for agent in runtime.agents.values():
        for rule in agent.rules:
            if rule.permission in ("bash", "*") and rule.pattern != "*":
                for fill in ("", "x", "x y"):
                    text = " ".join(rule.pattern.replace("*", f" {fill} ").split())
                    if text and all(codex_rules.PLAIN.fullmatch(w) for w in text.split()):
                        found[text.replace("?", "q")] = None
    return list(found)


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_codex_never_decides_a_command_above_opencode(bundle: str) -> None:
    model, runtime, names = case(bundle)
    wider = [
        d for d in decisions(model, runtime, names, commands_of(runtime)) if RANK[d[2]] > RANK[d[3]]
    ]
    assert wider == []


def test_the_property_is_not_vacuous() -> None:
    # Roles keep their shell, rules forbid, prompt and allow, and Codex both
    # matches OpenCode and narrows it.
    model, runtime, names = case("codex")
    found = {(d[2], d[3]) for d in decisions(model, runtime, names, commands_of(runtime))}
    assert {("allow", "allow"), ("deny", "deny"), ("ask", "ask"), ("deny", "allow")} <= found
    assert {r.decision for r in model.rules} == {"forbidden", "prompt", "allow"}
    assert shell_of(model, "smith")
    assert not shell_of(model, "lead")


def test_the_property_catches_a_rules_file_that_grants_too_much() -> None:
    root = BUNDLES["codex"]
    files = dict(bundles.render(root, "codex"))
    rel = codex.RULES_FILE
    files[rel] = files[rel].replace(b'decision = "forbidden"', b'decision = "allow"')
    _, runtime, names = case("codex")
    widened = decisions(load(files), runtime, names, ["sudo ls", "git push"])
    assert {(d[0], d[1]) for d in widened if RANK[d[2]] > RANK[d[3]]} >= {("smith", "sudo ls")}


def test_the_property_catches_a_role_given_back_its_shell() -> None:
    root = BUNDLES["codex"]
    files = dict(bundles.render(root, "codex"))
    rel = ".codex/agents/lead.toml"
    files[rel] = files[rel].replace(b"shell_tool = false", b"shell_tool = true")
    _, runtime, names = case("codex")
    widened = decisions(load(files), runtime, names, ["make"])
    assert ("lead", "make", "allow", "ask") in set(widened)


@given(
    files=strategies.permission_bundles("codex"), sample=st.lists(strategies.commands, max_size=8)
)
def test_generated_maps_never_get_more_in_codex(
    files: dict[str, bytes], sample: list[list[str]]
) -> None:
    strategies.tick("codex-permission-maps")
    with strategies.bundle_on_disk(files) as (_, config):
        result = api.render(config, only=["codex"])
        assert result.ok, result.diagnostics
        emitted = {rel.removeprefix("codex/"): data for rel, data in result.files.items()}
        model = load(emitted)
        runtime, names = opencode_answers(config)
        commands = list(dict.fromkeys([*(" ".join(c) for c in sample), *commands_of(runtime)]))
        shell = [r for r in names if shell_of(model, r)]
        for command in commands:
            narrowest = min(
                (can(runtime, names[r], command) for r in shell), key=RANK.__getitem__, default=None
            )
            if narrowest is not None:
                mine = model.decide(Call(shell[0], "bash", command)).action
                assert RANK[mine] <= RANK[narrowest], command
        for role, command, mine, theirs in decisions(model, runtime, names, commands):
            assert RANK[mine] <= RANK[theirs], (role, command, mine, theirs)


def test_the_examples_of_each_rule_are_the_rule_s_own() -> None:
    # Codex refuses a rules file whose match example misses its rule, or whose
    # not_match example hits it; the model says the same of every example.
    text = bundles.render(BUNDLES["codex"], "codex")[codex.RULES_FILE].decode()
    calls = [n.value for n in ast.parse(text).body if isinstance(n, ast.Expr)]
    assert calls
    for call in calls:
        assert isinstance(call, ast.Call)
        args = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        pattern = tuple(tuple(w) if isinstance(w, list) else (w,) for w in args["pattern"])
        rule = codex_model.PrefixRule(pattern, args["decision"], codex.RULES_FILE)
        assert all(rule.matches(e.split()) for e in args["match"]), args
        assert not any(rule.matches(e.split()) for e in args.get("not_match", [])), args


# --- what the files hold --------------------------------------------------------------------


def test_role_files_carry_name_description_model_effort_and_the_body_exactly() -> None:
    project = bundles.project(BUNDLES["codex"], "codex")
    files = bundles.render(BUNDLES["codex"], "codex")
    smith = tomllib.loads(files[".codex/agents/smith.toml"].decode())
    assert smith["name"] == "smith"
    assert (smith["model"], smith["model_reasoning_effort"]) == ("gpt-5.5", "high")
    assert smith["developer_instructions"] == project.agents["smith"].body
    assert "features" not in smith
    assert "sandbox_mode" not in smith
    scout = tomllib.loads(files[".codex/agents/scout.toml"].decode())
    assert (scout["sandbox_mode"], scout["features"]) == ("read-only", {"shell_tool": False})
    reviewer = tomllib.loads(files[".codex/agents/team/reviewer.toml"].decode())
    assert reviewer["name"] == "team/reviewer"
    assert "model" not in reviewer
    config = tomllib.loads(files[".codex/config.toml"].decode())
    assert config["agents"]["team/reviewer"]["config_file"] == "agents/team/reviewer.toml"
    roles = [name for name, value in config["agents"].items() if isinstance(value, dict)]
    assert sorted(roles) == sorted(project.agents)
    # What every role inherits: the project's sandbox, and each tool Codex
    # cannot narrow per role off unless every role may use it.
    assert config["sandbox_mode"] == "workspace-write"
    assert config["sandbox_workspace_write"]["exclude_slash_tmp"] is True
    assert (config["agents"]["max_depth"], config["features"]["view_image"]) == (1, False)
    assert config["tools"]["update_plan"]["enabled"] is False
    assert ".codex/skills/release-notes/SKILL.md" in files


def overridden(*codex: str) -> str:
    """An agent spec whose `targets.codex` holds the lines `codex`."""
    lines = "".join(f"    {line}\n" for line in codex)
    return (
        "---\ndescription: Revisa los cambios antes de fusionarlos.\nmode: subagent\n"
        "model: anthropic/claude-sonnet-4-5\nvariant: low\npermission:\n  bash: deny\n"
        f"targets:\n  codex:\n{lines}---\nRevisa.\n"
    )


def test_targets_codex_sets_the_role_s_description_model_effort_and_nicknames(
    make_bundle: MakeBundle,
) -> None:
    spec = overridden(
        "description: Reviews diffs for Codex users.",
        "model: gpt-5.5-codex",
        "model_reasoning_effort: high",
        "nickname_candidates: [Ada, Grace Hopper]",
    )
    make_bundle({"promptc.toml": "[targets.codex]\n", "specs/agents/rev.md": spec})
    files = bundles.render(Path.cwd(), "codex")
    role = tomllib.loads(files[".codex/agents/rev.toml"].decode())
    assert role["description"] == "Reviews diffs for Codex users."
    assert role["nickname_candidates"] == ["Ada", "Grace Hopper"]
    assert (role["model"], role["model_reasoning_effort"]) == ("gpt-5.5-codex", "high")
    config = tomllib.loads(files[".codex/config.toml"].decode())
    assert config["agents"]["rev"]["description"] == "Reviews diffs for Codex users."
    # The override's model is Codex's own: the unmapped OpenCode model is not reported.
    report = files["TRANSLATION.md"].decode()
    assert "Model: gpt-5.5-codex." in report
    assert "counterpart" not in report


@pytest.mark.parametrize(
    ("line", "position", "message"),
    [
        ("sandbox_mode: danger-full-access", (11, 19), "cannot be overridden"),
        ("model_reasoning_effort: huge", (11, 29), "'huge' is not one of none, minimal"),
        ("nickname_candidates: [Ada, Ada]", (11, 5), "non-empty list of distinct names"),
        ("nickname_candidates: [Zoë]", (11, 27), "ASCII letters, digits, spaces"),
        ("developer_instructions: x", (11, 5), "unknown key 'developer_instructions'"),
    ],
)
def test_a_codex_override_codex_would_refuse_or_that_widens_is_an_error_at_its_key(
    make_bundle: MakeBundle,
    run: Callable[..., Run],
    line: str,
    position: tuple[int, int],
    message: str,
) -> None:
    spec = overridden("description: Reviews diffs for Codex users.", line)
    make_bundle({"promptc.toml": "[targets.codex]\n", "specs/agents/rev.md": spec})
    done = run("build")
    assert done.code == 1
    assert f"specs/agents/rev.md:{position[0]}:{position[1]}: error [schema] " in done.out
    assert message in done.out
    assert not Path("build").exists()


@given(st.text())
def test_any_text_survives_as_a_toml_string(text: str) -> None:
    for multiline in (False, True):
        value = tomllib.loads(f"x = {codex.toml_string(text, multiline)}\n")["x"]
        assert value == text


def test_a_catch_all_costs_a_role_its_shell_and_each_allow_is_reported(
    make_bundle: MakeBundle,
) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.codex]\n",
            "specs/agents/a.md": """\
                ---
                description: Asks before every command but git status.
                mode: subagent
                permission:
                  bash:
                    "*": ask
                    "git status *": allow
                  edit: deny
                ---
                Trabaja.
                """,
            "specs/agents/b.md": """\
                ---
                description: Runs no command at all, and says so once.
                mode: subagent
                permission:
                  bash: deny
                ---
                Trabaja.
                """,
        }
    )
    translation = bundles.project(Path.cwd(), "codex").translations.of(codex_rules.TRANSLATOR)
    assert translation.shell == {"a": False, "b": False}
    lost = {(x.subject, x.rule.text()): x.message for x in translation.losses}
    assert "left out of a's tools" in lost["a", 'bash "git status *": allow']
    # What Codex widens (apply_patch for a read-only agent) is the proof's to
    # refuse, never an info here.
    assert ("a", "edit: deny") not in lost
    assert not any(subject == "b" for subject, _ in lost)  # denied altogether: nothing lost


def test_a_main_session_that_asks_for_every_command_turns_the_shell_off(
    make_bundle: MakeBundle,
) -> None:
    make_bundle(
        {
            "promptc.toml": '[targets.codex]\n\n[permission]\nbash = { "*" = "ask" }\n',
            "specs/agents/a.md": "---\ndescription: Runs git only.\nmode: subagent\n---\nTrabaja.\n",
        }
    )
    files = bundles.render(Path.cwd(), "codex")
    assert tomllib.loads(files[".codex/config.toml"].decode())["features"]["shell_tool"] is False
    assert load(files).decide(Call("a", "bash", "ls", delegated=True)).action == "deny"


def test_codex_options_are_checked_like_any_target_s(
    make_bundle: MakeBundle, run: Callable[..., Run]
) -> None:
    make_bundle({"promptc.toml": "[targets.codex]\nmodels = 3\nmodles = {}\n"})
    done = run("build")
    assert done.code == 2
    assert "targets" in done.err
    assert "codex" in done.err


def test_lossy_translation_names_codex_and_claude_in_one_message(make_bundle: MakeBundle) -> None:
    make_bundle(
        {
            "promptc.toml": "[targets.codex]\n\n[targets.claude]\n",
            "specs/agents/a.md": """\
                ---
                description: Runs git status and no other command.
                mode: subagent
                permission:
                  bash:
                    "*": deny
                    "git status *": allow
                ---
                Trabaja.
                """,
        }
    )
    result = api.lint(load_config(cwd=Path.cwd()))
    found = [d for d in result.diagnostics if d.rule == "lossy-translation" and d.line == 7]
    assert len(found) == 1
    assert "in Claude Code:" in found[0].message
    assert "in Codex:" in found[0].message


# --- import ---------------------------------------------------------------------------------


def test_import_codex_refuses_a_config_too_large_or_deep_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Callable[..., Run]
) -> None:
    """TOML's integers are 64-bit; tomllib reads a hex one of any size, which
    the import would carry into the proposed config; nesting past the
    interpreter's recursion limit stopped tomllib itself."""
    config = tmp_path / "project/.codex/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "x"\nbig = 0x' + "f" * 5000 + "\n")
    (tmp_path / "new").mkdir()
    monkeypatch.chdir(tmp_path / "new")
    done = run("import", "codex", str(tmp_path / "project"))
    message = "cannot read: integer out of TOML's range: integers are 64-bit, -2^63 to 2^63-1"
    assert f"{config}:2:1: error [import] {message}; not imported" in done.out
    assert (done.code, "internal error" in done.err) == (1, False)
    config.write_text('model = "x"\nx = ' + "[" * 900 + "]" * 900 + "\n")  # a RecursionError
    done = run("import", "codex", str(tmp_path / "project"))
    message = "cannot read: nested deeper than 64 levels (at line 2, column 69); not imported"
    assert f"{config}:2:69: error [import] {message}" in done.out
    assert (done.code, "internal error" in done.err) == (1, False)


def test_import_codex_adopts_the_roles_the_target_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Callable[..., Run]
) -> None:
    source = tmp_path / "project"
    for rel, data in bundles.render(BUNDLES["codex"], "codex").items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_bytes(data)
    (tmp_path / "new").mkdir()
    monkeypatch.chdir(tmp_path / "new")
    done = run("import", "codex", str(source))
    assert done.code in (0, 1), done.err
    project = bundles.project(BUNDLES["codex"], "codex")
    imported = bundles.project(tmp_path / "new", "codex")
    assert sorted(imported.agents) == sorted(project.agents)
    for ident, spec in project.agents.items():
        assert imported.agents[ident].body == spec.body
    # What Codex has no tool for, the session's tools as the config the target
    # wrote sets them, then `shell_tool = false` and the read-only sandbox.
    session = tomllib.loads((source / ".codex/config.toml").read_text())
    tools = {
        "read": "allow" if session["features"]["view_image"] else "deny",
        "websearch": "allow" if session["web_search"] != "disabled" else "deny",
        "todowrite": "allow" if session["tools"]["update_plan"]["enabled"] else "deny",
    }
    assert imported.agents["scout"].meta["permission"] == {
        **dict.fromkeys(import_codex.NO_TOOL, "deny"),
        **tools,
        "bash": "deny",
        "edit": "deny",
    }
    assert imported.agents["smith"].meta["model"] == "openai/gpt-5.5"
    config = (tmp_path / "new" / "promptc.toml").read_text()
    assert '"openai/gpt-5.5" = "gpt-5.5"' in config
    # The command rules as written, after what Codex runs when no rule names a command.
    assert '"sudo *" = "deny"' in config
    assert '"*" = "allow"' in config


def test_the_calls_rules_by_path_let_codex_make_are_each_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Callable[..., Run]
) -> None:
    # The import writes each deny by path too (`*/curl *`), which also takes
    # `echo a/curl x`: Codex runs that line, so the import proposes
    # `accept_wider = ["bash"]`, and the build shows those calls among the
    # accepted ones (the matrix probes a leading `*` glued to a word).
    (tmp_path / "new").mkdir()
    monkeypatch.chdir(tmp_path / "new")
    assert run("import", "codex", str(bundles.FIXTURES / "import" / "codex")).code in (0, 1)
    config = Path("promptc.toml").read_text(encoding="utf-8")
    assert '"*/curl *" = "deny"' in config
    assert 'accept_wider = ["bash", "edit"]' in config
    done = run("build", "--no-cache")
    assert done.code == 0, done.err
    [bash] = [line for line in done.err.splitlines() if "accepted wider `bash`" in line]
    assert "`echo a/" in bash
    # Without it, the roles lose their shell rather than run such a line.
    Path("promptc.toml").write_text(config.replace('"bash", "edit"', '"edit"'), encoding="utf-8")
    done = run("build", "--no-cache")
    assert "accepted wider `bash`" not in done.err
    assert "lost shell" in done.err

"""Permission translation: Claude Code never grants more than OpenCode, and says what it loses.

The rule patterns promptc writes, the model's reading of them
(compiler/promptc_compiler/runtimes/claude/decide.py, held to the real CLI by
tests/test_decisions_claude.py, which also decides every call of each
bundle's matrix), random inputs beyond the matrix, and what the translation
keeps and loses case by case.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.permissions import calls, wildcard
from promptc_compiler.permissions.calls import Call
from promptc_compiler.permissions.ruleset import DEFAULT, Environment, Origin, Rule, evaluate
from promptc_compiler.permissions.runtime import Agent, Runtime, resolve
from promptc_compiler.runtimes import translation
from promptc_compiler.runtimes.claude import decide as model
from promptc_compiler.runtimes.claude import permission_rules as claude_rules
from promptc_compiler.runtimes.claude import translate
from promptc_compiler.runtimes.claude.permission_rules import cover, inside
from promptc_compiler.runtimes.claude.translate import Translation
from promptc_compiler.runtimes.translation import ENVIRONMENT, Loss, Subject, flat_name
from tests import bundles
from tests.conftest import MakeBundle

pytestmark = pytest.mark.slow

BUNDLES = {
    "team": bundles.TEAM,
    "claude": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
    "permissions": bundles.FIXTURES / "permissions",
}
RANK = calls.RANK


# --- Claude rule patterns ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "pattern", "specifier", "exact", "reach"),
    [
        ("command", "*", None, ("*",), ("*",)),
        ("command", "git status*", "git status*", ("git status*",), ("git status*",)),
        ("command", "rm *", "rm *", ("rm *",), ("rm *",)),
        ("command", "ls ?", "ls *", ("ls ?",), ("ls *",)),
        ("command", "git status:*", "git status*", ("git status:*",), ("git status*",)),
        ("command", "echo (a)*", "echo *", ("echo (a)*",), ("echo *",)),
        ("command", "(x)", None, ("(x)",), ("*",)),
        ("path", "**", None, ("*",), ("*",)),
        ("path", "src/**", "src/**", ("src/**",), ("src/*",)),
        ("path", "src/*", "src/**", ("src/*",), ("src/*",)),
        ("path", "*.lock", "//**/*.lock", ("*.lock",), ("*.lock",)),  # ../../x.lock too
        ("path", "git *", "**/git*", ("git *",), ("*git*",)),  # Claude Code reads `git ` as `git`
        ("path", "*.env.*", "//**/*.env.*", ("*.env.*",), ("*.env.*",)),
        ("path", "secret*", "**/secret*", ("secret*",), ("*secret*",)),
        ("path", "docs/a.md", "docs/a.md", ("docs/a.md",), ("docs/a.md",)),
        ("path", "src/*.ts", "src/**/*.ts", ("src/*.ts",), ("src/*.ts",)),
        ("path", "src/?.ts", "src/**/*.ts", ("src/?.ts",), ("src/*.ts",)),
        ("path", "src/a*b/c", "src/**", ("src/a*b/c",), ("src/*",)),
        ("path", "a*b/c", None, ("a*b/c",), ("*",)),
        ("path", "*/.env*", "//**/.env*", ("*/.env*",), (".env*", "*/.env*")),  # ../x/.env too
        ("path", "*/*.pem", "//**/*.pem", ("*/*.pem",), ("*.pem",)),
        ("path", "*/*", None, ("*/*",), ("*",)),
        ("path", "/~/notes/*", "~/notes/**", ("/~/notes/*",), ("/~/notes/*",)),
        ("skill", "caveman", "caveman", ("caveman",), ("caveman",)),
        ("skill", "cave*", "cave:*", ("cave*",), ("cave*",)),
        ("skill", "*x", None, ("*x",), ("*",)),
        ("plain", "x*", None, ("*",), ("*",)),
    ],
)
def test_cover_matches_at_least_the_opencode_pattern(
    kind: str, pattern: str, specifier: str | None, exact: tuple[str, ...], reach: tuple[str, ...]
) -> None:
    found = cover(kind, pattern)
    assert (found.specifier, found.exact, found.reach) == (specifier, exact, reach)


def test_the_imported_suspicious_path_ask_leaves_the_rest_to_claude_code() -> None:
    # A last name ending in a dot Claude Code asks about by itself; a rule asks
    # only for a dot and a space inside the last name (`a. b`), never every Read.
    assert cover("path", claude_rules.SUSPICIOUS, "ask").specifier == "//**/*. *"
    assert cover("path", claude_rules.SUSPICIOUS, "deny").specifier != "//**/*. *"


def test_a_skill_ask_covers_every_skill() -> None:
    # Claude Code 2.1.332 reads no Skill(...) ask: only a whole-tool one asks.
    assert cover("skill", "caveman", "ask").whole


@pytest.mark.parametrize(
    ("kind", "pattern", "specifier"),
    [
        ("command", "*", "no form"),  # a bare Bash runs `cat /etc/hosts` unasked
        ("command", "git log*", "git log*"),
        ("command", "git status:*", "no form"),
        ("command", "echo (a)", "no form"),
        ("path", "*", "/**"),  # the project only: a bare Edit holds outside it too
        ("path", "src/**", "no form"),  # Claude Code would allow SRC/ too
        ("path", "01/*", "01/**/*"),
        ("path", "*.lock", "no form"),
        ("path", "docs/a.md", "no form"),
        ("plain", "*", None),
        ("plain", "x", "no form"),
    ],
)
def test_inside_matches_only_what_the_opencode_pattern_matches(
    kind: str, pattern: str, specifier: str | None
) -> None:
    found = inside(kind, pattern)
    assert (found.specifier if found else "no form") == specifier


@pytest.mark.parametrize(
    ("spec", "path", "expected"),
    [
        ("src/**", "src/a/b.ts", True),
        ("src/**", "src", True),
        ("src/**/*", "src", False),
        ("src/**", "SRC/a.ts", True),  # any case
        ("src/**", "lib/src/a.ts", False),
        ("**/*.env", ".env", True),
        ("**/*.env", ".env ", True),  # trailing spaces do not count
        ("**/*.env", "a/b/prod.env", True),
        ("**/*.env", "a/prod.env/x", True),
        ("**/*.env", "a/prod.envx", False),
        ("src/**/*.ts", "src/a.ts", True),
        ("src/**/*.ts", "src/x/y/a.ts", True),
        ("src/**/*.ts", "a.ts", False),
        ("/**", "src/a.ts", True),
        ("/**", f"{calls.HOME}/.ssh/authorized_keys", False),
        ("~/.ssh/**", "~/.ssh/id", True),
        ("~/.ssh/**", ".ssh/id", False),
        ("//etc/**", "/etc/hosts", True),
        ("//**/*.env", "~/.env", True),
        ("//**/*.env", "a/.env", True),
        # `./` anchors nothing of its own (seen on the real binary:
        # tests/claude/test_decisions_claude.py)
        ("./.env", "x/.env", True),
        ("./a/b.txt", "a/b.txt", True),
        ("./a/b.txt", "z/a/b.txt", False),
        ("/c.txt", "x/c.txt", False),
    ],
)
def test_the_model_reads_paths_the_gitignore_way(spec: str, path: str, expected: bool) -> None:
    assert model.PathRule.of(spec).matches(path) is expected


@pytest.mark.parametrize(
    ("spec", "command", "expected"),
    [
        ("git status *", "git status", True),
        ("git status *", "git status -s", True),
        ("git status *", "git statusx", False),
        ("git status *", "GIT STATUS", False),  # Bash rules keep their case
        ("git status:*", "git status -s", True),
        ("git status*", "git statusx", True),
        ("ls ?", "ls a", False),
        ("ls ?", "ls ?", True),
        ("git st*tus *", "git status", False),  # the trailing ` *` is optional alone
        ("git st*tus *", "git status -s", True),
        ("git  status *", "git status", True),  # blanks are one space
    ],
)
def test_the_model_reads_commands_as_claude_code_does(
    spec: str, command: str, expected: bool
) -> None:
    assert any(pattern.matches(command) for pattern in model._bash_patterns(spec)) is expected


# --- the property, beyond the matrix: random inputs ----------------------------------------------


@functools.cache
def rendered(bundle: str) -> dict[str, bytes]:
    """The Claude Code files of a fixture bundle, rendered once for the tests that read them."""
    return bundles.render(BUNDLES[bundle], "claude", lint_errors=bundle == "permissions")


@functools.cache
def claude_model(bundle: str) -> model.Claude:
    return model.load({rel: data.decode() for rel, data in rendered(bundle).items()})


@functools.cache
def opencode(bundle: str) -> Runtime:
    return calls.runtime_of(bundles.project(BUNDLES[bundle], "claude"))


_FRAGMENTS = st.sampled_from(
    [
        "git",
        "status",
        "push",
        "rm",
        "-rf",
        "src",
        "/",
        "*",
        ".env",
        ".lock",
        "ui",
        "a",
        " ",
        "npm",
        "x",
        "cat ",
        "&& ",
        "| ",
        "~/",
        "..",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    bundle=st.sampled_from(list(BUNDLES)),
    words=st.lists(_FRAGMENTS, max_size=6),
    pick=st.integers(min_value=0),
)
def test_random_inputs_never_get_more_in_claude(bundle: str, words: list[str], pick: int) -> None:
    value = "".join(words) or "x"
    runtime = opencode(bundle)
    agents = runtime.bundle_agents()
    agent = agents[pick % len(agents)]
    for permission in ("bash", "edit", "read", "skill", "webfetch", "task"):
        for delegated in (True,) if agent.mode == "subagent" else (False, True):
            call = Call(agent.name, permission, value, delegated)
            mine = claude_model(bundle).decide(call).action
            theirs = calls.decide(runtime, call).action
            assert RANK[mine] <= RANK[theirs], (call, mine, theirs)


def test_a_read_only_command_spaced_twice_is_not_wider_in_claude() -> None:
    # Claude Code runs `git  status` unasked; OpenCode asks (`"git status*": allow`
    # is matched as written), so the settings ask for `git status` in any spelling.
    runtime = opencode("team")
    for command in ("git  status", "git\tstatus", "'git' status", "LANG=C git status"):
        call = Call("craftsman", "bash", command, False)
        assert calls.decide(runtime, call).action == "ask"
        assert claude_model("team").decide(call).action == "ask"


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_commands_pre_approve_only_what_their_agent_may_run(bundle: str) -> None:
    root = BUNDLES[bundle]
    project = bundles.project(root, "claude")
    files = rendered(bundle)
    planned = project.translations.of(translate.TRANSLATOR)
    for ident, spec in project.modes.items():
        text = files[f".claude/commands/{flat_name(ident)}.md"].decode()
        agent = str(spec.meta.get("agent"))
        names = {s.name: s for s in planned.subjects}
        runner = names.get(agent) or names[planned.main_agent or translation.MAIN]
        for command in re.findall(r"^  - Bash\((.*)\)$", text, re.MULTILINE):
            assert evaluate(runner.rules, "bash", command).action == "allow", (ident, command)


# --- what the translation keeps and loses, case by case ---------------------------------------


def _translate(make_bundle: MakeBundle, agents: dict[str, str], config: str = "") -> Translation:
    files: dict[str, str | bytes] = {"promptc.toml": config}
    files.update({f"specs/agents/{name}.md": text for name, text in agents.items()})
    root = make_bundle(files)
    return bundles.project(root, "claude").translations.of(translate.TRANSLATOR)


def _agent(mode: str, permission: str) -> str:
    lines = "\n".join(f"  {line}" for line in permission.strip().splitlines())
    return f"---\ndescription: Agente de prueba con permisos.\nmode: {mode}\npermission:\n{lines}\n---\nCuerpo.\n"


def test_a_tool_denied_for_every_input_is_left_out_silently(make_bundle: MakeBundle) -> None:
    t = _translate(make_bundle, {"a": _agent("subagent", "edit: deny\nbash: deny\nwebfetch: deny")})
    assert t.tools["a"] == ("Read", "Glob", "Grep", "WebSearch", "Skill", "LSP")
    assert [loss for loss in t.losses if loss.subject == "a" and _own(loss)] == []


def test_a_deny_with_exceptions_leaves_the_tool_out_and_reports_each_exception(
    make_bundle: MakeBundle,
) -> None:
    t = _translate(
        make_bundle,
        {"a": _agent("subagent", 'bash:\n  "*": deny\n  "git log*": allow\n  "git diff*": ask')},
    )
    assert "Bash" not in t.tools["a"]
    lost = {
        loss.rule.text(): loss.message for loss in t.losses if loss.subject == "a" and _own(loss)
    }
    assert set(lost) == {'bash "git log*": allow', 'bash "git diff*": ask'}
    assert all("left out of a's tools" in m for m in lost.values())


def test_a_partial_deny_goes_to_the_shared_settings_and_narrows_the_others(
    make_bundle: MakeBundle,
) -> None:
    t = _translate(
        make_bundle,
        {
            "a": _agent("subagent", 'bash:\n  "*": ask\n  "rm *": deny'),
            "b": _agent("subagent", 'bash:\n  "*": ask\n  "rm *": allow'),
        },
        'default_agent = "c"\n',
    )
    assert [e.text({}) for e in t.deny if e.tool == "Bash"] == ["Bash(rm *)"]
    lost = [
        (loss.subject, loss.rule.text()) for loss in t.losses if loss.rule.origin.kind == "agent"
    ]
    assert lost == [("b", 'bash "rm *": allow')]


def test_an_allow_is_shared_only_when_every_holder_allows_it(make_bundle: MakeBundle) -> None:
    every = 'bash:\n  "*": allow\n  "rm *": deny\n  "make*": allow'
    shared = _translate(
        make_bundle,
        {"a": _agent("primary", every), "b": _agent("subagent", every)},
        'default_agent = "a"\n',
    )
    assert [e.text({}) for e in shared.allow if e.tool == "Bash"] == ["Bash(make*)"]
    # b asks about `\make x`, which Claude Code would run under `Bash(make*)`
    asked = _translate(
        make_bundle,
        {"a": _agent("primary", every), "b": _agent("subagent", 'bash:\n  "*": ask')},
        'default_agent = "a"\n',
    )
    assert [e.text({}) for e in asked.allow if e.tool == "Bash"] == []
    lost = [
        (loss.subject, loss.rule.text())
        for loss in asked.losses
        if loss.rule.origin.kind == "agent"
    ]
    assert ("a", 'bash "make*": allow') in lost
    assert ("a", 'bash "rm *": deny') not in lost


def test_an_allow_claude_code_would_read_in_other_spellings_is_not_written(
    make_bundle: MakeBundle,
) -> None:
    # `git add *` runs `git  add x`, `'git' add x` and `LANG=C git add x` in
    # Claude Code, each asked about by OpenCode: no allow, a narrowing reported.
    t = _translate(
        make_bundle, {"a": _agent("subagent", 'bash:\n  "*": ask\n  "git add *": allow')}
    )
    assert [e.text({}) for e in t.allow if e.tool == "Bash"] == []
    [loss] = [loss for loss in t.losses if loss.subject == "a" and _own(loss)]
    assert loss.rule.text() == 'bash "git add *": allow'
    assert "other spellings of it (`git  add`, `\\git add`, `LANG=C git add`)" in loss.message
    # OpenCode allowing every spelling keeps it
    kept = _translate(make_bundle, {"a": _agent("subagent", 'bash:\n  "git add *": allow')})
    assert [loss for loss in kept.losses if loss.subject == "a" and _own(loss)] == []


def test_a_read_only_command_gets_an_ask_where_opencode_asks_about_a_spelling(
    make_bundle: MakeBundle,
) -> None:
    t = _translate(
        make_bundle, {"a": _agent("subagent", 'bash:\n  "*": ask\n  "git status*": allow')}
    )
    asked = {e.text({}) for e in t.ask if e.tool == "Bash"}
    assert "Bash(git status *)" in asked
    # an agent that allows every other spelling gets none
    t = _translate(make_bundle, {"a": _agent("subagent", 'bash:\n  "*": allow\n  "rm *": deny')})
    assert {e.text({}) for e in t.ask if e.tool == "Bash"} == set()


def test_a_primary_starts_exactly_the_subagents_its_task_rules_allow(
    make_bundle: MakeBundle,
) -> None:
    t = _translate(
        make_bundle,
        {
            "lead": _agent(
                "primary",
                'task:\n  "*": deny\n  "s-*": allow\n  s-two: ask\n  boss: allow',
            ),
            "boss": _agent("primary", "edit: deny"),
            "s-one": _agent("subagent", "edit: deny"),
            "s-two": _agent("subagent", "edit: deny"),
            "other": _agent("subagent", "edit: deny"),
        },
        'default_agent = "lead"\n',
    )
    assert t.spawn["lead"] == ("s-one",)
    assert "Agent" not in t.tools["s-one"]
    assert {e.text({}) for e in t.deny if e.tool == "Agent"} == {"Agent(boss)", "Agent(lead)"}
    lost = [loss.rule.text() for loss in t.losses if loss.subject == "lead" and _own(loss)]
    assert lost == ['task "s-two": ask']


def test_tools_without_a_claude_equivalent_are_reported(make_bundle: MakeBundle) -> None:
    t = _translate(
        make_bundle,
        {
            "a": _agent(
                "subagent",
                'plan_db: allow\nmymcp_*: ask\nwrite: allow\nlist: allow\nexternal_directory:\n  "/x/*": allow',
            )
        },
        'custom_tools = ["plan_db"]\n',
    )
    lost = {loss.rule.text() for loss in t.losses if loss.subject == "a" and _own(loss)}
    assert lost == {"plan_db: allow", '"mymcp_*": ask', 'external_directory "/x/*": allow'}


# --- the report ------------------------------------------------------------------------------


@pytest.mark.parametrize("bundle", ["claude", "opencode", "permissions"])
def test_the_report_names_each_lossy_rule_once(bundle: str) -> None:
    root = BUNDLES[bundle]
    report = rendered(bundle)["TRANSLATION.md"].decode()
    t = bundles.project(root, "claude").translations.of(translate.TRANSLATOR)
    own = [loss for loss in t.losses if loss.rule.origin.kind == "agent"]
    assert own, "the bundle must lose something for this test to mean anything"
    for loss in own:
        line = f"- `{loss.rule.text()}` ({_where(loss.rule, root)}): {loss.message}"
        assert report.count(line) == 1, line
    for rule in {loss.rule for loss in t.losses if loss.rule.origin.kind != "agent"}:
        head = f"- `{rule.text()}` ({_where(rule, root)})"
        assert report.splitlines().count(head) == 1, head


def test_the_report_names_a_linked_spec_as_the_diagnostics_do(make_bundle: MakeBundle) -> None:
    """A spec that is a link to a file elsewhere in the project: the report says
    where the bundle reads it, as each diagnostic of the same rule does."""
    root = make_bundle(
        {
            "promptc.toml": "[targets.claude]\n",
            "shared/rev.md": _agent("subagent", 'bash:\n  "*": ask\n  "git status *": allow'),
        }
    )
    (root / "specs/agents").mkdir(parents=True)
    try:
        (root / "specs/agents/rev.md").symlink_to(root / "shared/rev.md")
    except OSError:
        pytest.skip("this system does not let a test make a symbolic link")
    result = api.render(load_config(cwd=root), only=["claude"])
    report = result.files["claude/TRANSLATION.md"].decode()
    assert "(specs/agents/rev.md:" in report
    assert "shared/rev.md" not in report
    assert {d.path for d in result.diagnostics} == {"specs/agents/rev.md"}


def _where(rule: Rule, root: Path) -> str:
    origin = rule.origin
    if origin.path is None:
        return origin.label
    return f"{origin.path.relative_to(root).as_posix()}:{origin.line}:{origin.column}"


def _own(loss: Loss) -> bool:
    return loss.rule.origin.kind == "agent"


# --- one plan per distinct rule list, one reading per list of writers -----------------------

PERMISSIONS = ["bash", "edit", "read", "task", "webfetch", "skill", "*", "external_directory"]
PATTERNS = ["*", "git *", "git status *", "rm *", "src/*", "*.env", "/~/x/*", "a?", "scout", "sm*"]
KEY = st.tuples(
    st.sampled_from([*PERMISSIONS, "plan_db", "todowrite", "doom_loop"]),
    st.sampled_from(PATTERNS),
    st.sampled_from(["allow", "ask", "deny"]),
)
# The built-in defaults: one list of Rule objects every agent starts with, as resolve gives.
DEFAULTS = (
    Rule("*", "*", "allow", DEFAULT),
    Rule("external_directory", "*", "ask", DEFAULT, written="*"),
    Rule("read", "*", "allow", DEFAULT, written="*"),
    Rule("read", "*.env", "ask", DEFAULT, written="*.env"),
    Rule("read", "*.env.example", "allow", DEFAULT, written="*.env.example"),
)


def _written(name: str, keys: list[tuple[str, str, str]], home: str) -> tuple[Rule, ...]:
    """An agent's rules for a map: each at its own position in its own file."""
    origin = functools.partial(Origin, "agent", name, Path(f"specs/agents/{name}.md"))
    found = []
    for line, (permission, pattern, action) in enumerate(keys, start=4):
        written = home + pattern[2:] if pattern.startswith("/~") else pattern
        found.append(Rule(permission, pattern, action, origin(line, 5), written=written))
    return tuple(found)


def test_agents_with_one_map_share_its_plans_and_keep_their_own_lines() -> None:
    keys = [("bash", "*", "deny"), ("bash", "git *", "allow"), ("edit", "src/*", "ask")]
    found = []
    for name in ("scout", "smith"):
        agent = Agent(name, "subagent", (*DEFAULTS, *_written(name, keys, "~")))
        found.append(Subject(name, agent, agent.effective(True)))
    plan = translate._Planner(tuple(found), "scout", (), wildcard.Patterns())
    assert plan.shapes == [0, 0]
    result = plan.run()
    lost = {(loss.subject, loss.rule.origin.path, loss.rule.origin.line) for loss in result.losses}
    # `"*": deny` then `"git *": allow` leaves Bash out of each agent, reported at its own file
    assert ("scout", Path("specs/agents/scout.md"), 5) in lost
    assert ("smith", Path("specs/agents/smith.md"), 5) in lost


@dataclass(frozen=True)
class Region:
    rule: Rule | None
    action: str
    pattern: str
    later: tuple[str, ...]


def regions_oracle(rules: tuple[Rule, ...], permission: str) -> tuple[Region, ...]:
    """The regions as the translation finds them for each agent on its own."""
    relevant = [r for r in rules if wildcard.match(permission, r.permission)]
    found: list[Region] = []
    for index, rule in enumerate(relevant):
        later = tuple(dict.fromkeys(r.pattern for r in relevant[index + 1 :]))
        if not any(wildcard.universal(p) for p in later) and translation.hits(
            wildcard.Patterns(), (rule.pattern,), later
        ):
            found.append(Region(rule, rule.action, rule.pattern, later))
    every = tuple(dict.fromkeys(r.pattern for r in relevant))
    if not any(wildcard.universal(p) for p in every):
        found.append(Region(None, "ask", "*", every))
    return tuple(found)


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(KEY, max_size=8),
    permission=st.sampled_from(PERMISSIONS),
    homes=st.tuples(st.sampled_from(["~", "$HOME"]), st.sampled_from(["~", "$HOME"])),
)
def test_spans_of_one_list_are_the_regions_of_any_list_with_its_keys(
    keys: list[tuple[str, str, str]], permission: str, homes: tuple[str, str]
) -> None:
    # What lets agents with one map share its plans.
    first = (*DEFAULTS, *_written("scout", keys, homes[0]))
    other = (*DEFAULTS, *_written("smith", keys, homes[1]))
    found = translation.spans(wildcard.Patterns(), first, permission)
    for rules in (first, other):
        mapped = tuple(
            Region(None if s.at is None else rules[s.at], s.action, s.pattern, s.later)
            for s in found
        )
        assert mapped == regions_oracle(rules, permission)


def describe_oracle(sources: Sequence[translation.Source], me: Subject) -> str:
    """Every writer's words in order, without repeats, as the message names them."""
    parts: list[str] = []
    for source in sources:
        kind = source.rule.origin.kind if source.rule else None
        if kind == "agent" or kind is None:
            if source.subject != me.name:
                parts.append(source.subject)
            elif kind == "agent" and source.rule:
                parts.append(f"its own `{source.rule.text()}`")
        elif kind == "config":
            parts.append("the config's `permission`")
        elif kind == "session":
            parts.append("OpenCode's subagent defaults")
        else:
            parts.append("OpenCode's built-in rules")
    names = list(dict.fromkeys(parts))
    if len(names) > 4:
        names = [*names[:3], f"{len(names) - 3} more"]
    return translation.join_names(names)


# Subject names include the words of non-agent writers, to reach every tie.
WRITER = st.sampled_from(["a", "b", "c", "d", "e", translation.MAIN, "the config's `permission`"])
SOURCE = st.builds(
    lambda subject, kind, pattern: translation.Source(
        subject,
        None
        if kind is None
        else Rule("bash", pattern, "deny", Origin(kind, "x", Path("x.md") if kind else None)),
    ),
    WRITER,
    st.sampled_from([None, "agent", "agent", "config", "session", "default", "native"]),
    st.sampled_from(["*", "rm *", "git push*"]),
)


@settings(max_examples=500, deadline=None)
@given(
    parts=st.lists(st.lists(SOURCE, max_size=6).map(tuple), min_size=1, max_size=3),
    order=st.lists(st.integers(0, 2), min_size=1, max_size=5),
    readers=st.lists(WRITER, min_size=1, max_size=6),
)
def test_writers_are_described_for_each_agent_as_listing_them_all(
    parts: list[tuple[translation.Source, ...]], order: list[int], readers: list[str]
) -> None:
    # The words for agents that wrote none of it are remembered: asked in turn
    # by agents that did and did not, each gets the plain listing. The sources
    # come in runs, and a run met again (entries share theirs) is the same
    # object: the words are those of every source, repeats included.
    runs = [parts[i % len(parts)] for i in order]
    sources = [s for run in runs for s in run]
    who = translate._Who.of_runs(runs)
    # More readings than SCANS: the later ones read the agents' rules as filed.
    for name in readers * (translate.SCANS + 1):
        subject = Subject(name, Agent(name, "primary", ()), ())
        if sources:
            assert who.describe(subject) == describe_oracle(sources, subject)
    assert who.started_only is all(
        s.rule is None and s.subject != translation.MAIN for s in sources
    )
    assert who.subjects == list(dict.fromkeys(s.subject for s in sources))


@settings(max_examples=500, deadline=None)
@given(
    sources=st.lists(SOURCE, max_size=12),
    data=st.data(),
    readers=st.lists(WRITER, min_size=1, max_size=6),
)
def test_writers_of_a_pool_less_some_and_plus_others_are_those_listed(
    sources: list[translation.Source], data: st.DataObject, readers: list[str]
) -> None:
    # The objectors to an allow: a pool's sources less those removed, with
    # others placed among them. Each agent reads them as the list of them all
    # in order of place, however many readings came before (past SCANS).
    places = sorted(
        data.draw(st.sets(st.integers(0, 40), min_size=len(sources), max_size=len(sources)))
    )
    split = data.draw(st.lists(st.booleans(), min_size=len(sources), max_size=len(sources)))
    removed = frozenset(
        data.draw(st.sets(st.integers(0, max(len(sources) - 1, 0)))) if sources else set()
    )
    in_pool = [(at, s) for at, s, mine in zip(places, sources, split, strict=True) if mine]
    near = [(at, s) for at, s, mine in zip(places, sources, split, strict=True) if not mine]
    removed = frozenset(i for i in removed if i < len(in_pool))
    pool = translate._Pool([s for _, s in in_pool], [at for at, _ in in_pool])
    who = translate._Who(pool, removed, near)
    listed = sorted(
        [*(item for i, item in enumerate(in_pool) if i not in removed), *near],
        key=lambda item: item[0],
    )
    expected = [s for _, s in listed]
    assert who.sources == expected
    assert who.size == len(expected)
    for name in readers * (translate.SCANS + 1):
        subject = Subject(name, Agent(name, "primary", ()), ())
        if expected:
            assert who.describe(subject) == describe_oracle(expected, subject)


def test_writers_whose_first_sources_are_removed_are_named_where_they_stand_next() -> None:
    # a, b and c stand first and again after h: removed there, they come after
    # d to h, which lead the message, though the pool met them first.
    names = ["a", "b", "c", "d", "e", "f", "g", "h", "a", "b", "c"]
    sources = [translation.Source(name, None) for name in names]
    pool = translate._Pool(sources, list(range(0, 2 * len(names), 2)))
    who = translate._Who(pool, frozenset({0, 1, 2}))
    me = Subject("z", Agent("z", "primary", ()), ())
    assert who.describe(me) == describe_oracle(sources[3:], me) == "d, e, f and 5 more"


@pytest.mark.parametrize("home", ["/home/u", "/~", "/root"])
@pytest.mark.parametrize("bundle", ["claude", "opencode", "permissions"])
def test_resolves_that_share_their_patterns_are_fresh_resolves(bundle: str, home: str) -> None:
    # A run resolves under the machine's home and the translation's stand-in
    # with one Patterns: each finds the agents as a resolve of its own would.
    root = BUNDLES[bundle]
    project = bundles.project(root, "claude")
    machine = Environment.from_environ({"HOME": home}, root)
    shared = wildcard.Patterns()
    assert resolve(project, ENVIRONMENT, shared) == resolve(project, ENVIRONMENT)
    assert resolve(project, machine, shared) == resolve(project, machine)


# --- maps per agent: every plan asked once per shape ----------------------------------------


def _distinct_maps(count: int) -> dict[str, str]:
    """Agents with a map each, near one another (`git status 1 *`, `git status 12 *`) and apart,
    in three shapes of their `*` rule."""
    agents = {}
    for i in range(count):
        catch_all = ("ask", "deny", "allow")[i % 3]
        permission = (
            f'bash:\n  "*": {catch_all}\n  "git status {i} *": allow\n  "tool{i} *": allow\n'
            f'  "git diff {i}*": allow\n  "rm {i} *": deny\n  "ls {i} *": ask'
            + ('\n  "git *": ask' if i % 2 else "")
        )
        agents[f"a{i}"] = _agent("subagent", permission)
    return agents


def _maps_of_their_own(count: int, permission: str) -> dict[str, str]:
    """Subagents a0, a1, ... whose `permission` names each its own commands ({i})."""
    return {f"a{i}": _agent("subagent", permission.format(i=i)) for i in range(count)}


def test_writers_met_again_are_the_writers_a_fresh_reading_finds(
    make_bundle: MakeBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The planner reuses the last list's writers: each is what a fresh reading
    # of the runs finds, the losses are those of a translation that reads every
    # list afresh, and some are reused. Maps of two kinds, so that lists as long
    # as the one before may hold other runs.
    agents = _maps_of_their_own(
        14,
        'edit: deny\nwebfetch: ask\nbash:\n  "*": ask\n  "git status {i} *": allow\n'
        '  "git diff {i} *": allow\n  "tool{i} *": allow\n  "rm {i} *": deny\n'
        'task:\n  "*": deny',
    )
    agents.update({f"b{name}": text for name, text in _distinct_maps(14).items()})
    config = "[targets.opencode]\n\n[targets.claude]\n"
    kept = _translate(make_bundle, agents, config)
    reused = {"count": 0}
    writers = translate._Planner._writers

    def fresh(planner: translate._Planner, runs: list[translate.Run]) -> translate._Who:
        before = planner.writers
        who, read = writers(planner, runs), translate._Who.of_runs(runs)
        assert who.sources == read.sources
        reused["count"] += before is not None and who is before[1]
        return read

    monkeypatch.setattr(translate._Planner, "_writers", fresh)
    assert _translate(make_bundle, agents, config).losses == kept.losses
    assert reused["count"] > 0


def test_writers_drawn_from_every_entry_are_those_of_the_entries_met(
    make_bundle: MakeBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With a map per agent each agent's `*` meets every other agent's deny:
    # the writers are read from the pool of every deny less the agent's own.
    # Each list so drawn holds the sources of the entries met, in order, and
    # the losses are those of a translation that lists them afresh.
    agents = _maps_of_their_own(
        12, 'bash:\n  "*": ask\n  "git status {i} *": allow\n  "rm {i} *": deny\n  "mv {i} *": deny'
    )
    config = "[targets.opencode]\n\n[targets.claude]\n"
    drawn = {"count": 0}
    writers = translate._Filed.writers

    def checked(filed: translate._Filed, numbers: list[int]) -> translate._Who | None:
        who = writers(filed, numbers)
        if who is not None:
            runs = [run for n in numbers for run in filed.entries[n].runs]
            assert who.sources == translate._Who.of_runs(runs).sources
            drawn["count"] += 1
        return who

    monkeypatch.setattr(translate._Filed, "writers", checked)
    kept = _translate(make_bundle, agents, config)
    assert drawn["count"] > 0
    monkeypatch.setattr(translate._Filed, "writers", lambda _filed, _numbers: None)
    assert _translate(make_bundle, agents, config).losses == kept.losses


def test_items_filed_after_a_question_are_near_for_the_next() -> None:
    # `near` keeps its answers per start until the next `add`.
    filed = translate._ByHead(wildcard.Patterns())
    filed.add("git status *", 0)
    assert filed.near(("git *",)) == {0}
    filed.add("git diff *", 1)
    assert filed.near(("git *",)) == {0, 1}
    assert filed.near(("rm *",)) == set()


def test_objections_and_read_only_stops_are_what_asking_every_plan_finds(
    make_bundle: MakeBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = {"objections": 0, "stops": 0, "objected": 0}
    objections, first_stops = translate._Planner._objections, translate._Planner._first_stops

    def every_plan(
        planner: translate._Planner, pattern: claude_rules.Pattern, heads: translate._Heads
    ) -> translate._Who:
        found = objections(planner, pattern, heads)
        own, anywhere = heads.split(pattern.reach)
        expected = [
            placed
            for plan in heads.plans
            if (span := planner._anywhere(plan, planner._first(own, plan, heads), anywhere, heads))
            for placed in heads.sources(plan, span)
        ]
        assert found.sources == [
            source for _, source in sorted(expected, key=lambda placed: placed[0])
        ]
        assert found.size == len(expected)
        asked["objections"] += 1
        asked["objected"] += bool(found.size)
        return found

    def every_stop(
        planner: translate._Planner, heads: translate._Heads, globs: tuple[str, ...]
    ) -> dict[translate._Plan, translation.Span | None]:
        found = first_stops(planner, heads, globs)
        assert found == {plan: planner._first_stop(plan, globs) for plan in heads.plans}
        asked["stops"] += 1
        return found

    monkeypatch.setattr(translate._Planner, "_objections", every_plan)
    monkeypatch.setattr(translate._Planner, "_first_stops", every_stop)
    _translate(make_bundle, _distinct_maps(14))
    assert asked["objections"] > 14  # every allow of every agent
    assert asked["objected"] > 0
    assert asked["stops"] > 100  # every read-only command, and what may stand before one

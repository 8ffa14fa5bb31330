"""The permission model: rule lists in OpenCode's order, with the file:line:col of each rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import load_config
from promptc_compiler.core.project import Project, make_project
from promptc_compiler.permissions import delegation, wildcard
from promptc_compiler.permissions import ruleset as permissions
from promptc_compiler.permissions.ruleset import Environment, Origin, Rule, evaluate
from promptc_compiler.permissions.runtime import (
    Agent,
    Runtime,
    Written,
    agent_frontmatter,
    resolve,
)
from promptc_compiler.runtimes import TARGET_NAMES
from tests.conftest import MakeBundle
from tests.rules.conftest import agent

ENV = Environment(home="/h", data="/h/.local/share/opencode", tmp="/tmp/opencode", worktree="/")
DEFAULTS = [
    ("*", "*", "allow"),
    ("doom_loop", "*", "ask"),
    ("external_directory", "*", "ask"),
    ("external_directory", "/h/.local/share/opencode/tool-output/*", "allow"),
    ("external_directory", "/tmp/opencode/*", "allow"),
    ("question", "*", "deny"),
    ("plan_enter", "*", "deny"),
    ("plan_exit", "*", "deny"),
    ("read", "*", "allow"),
    ("read", "*.env", "ask"),
    ("read", "*.env.*", "ask"),
    ("read", "*.env.example", "allow"),
]
TAIL = [("external_directory", "/h/.local/share/opencode/tool-output/*", "allow")]


def load(make_bundle: MakeBundle, files: dict[str, str], config: str = "") -> Runtime:
    return resolve(made(make_bundle, files, config), ENV)


def made(make_bundle: MakeBundle, files: dict[str, str], config: str = "") -> Project:
    make_bundle({"promptc.toml": config, **files})
    cfg = load_config()
    bundle = load_bundle(cfg)
    return make_project(cfg, bundle, compose_bundle(bundle, "opencode", TARGET_NAMES), "opencode")


def triples(rules: tuple[permissions.Rule, ...]) -> list[tuple[str, str, str]]:
    return [(r.permission, r.pattern, r.action) for r in rules]


def test_defaults_then_config_then_agent_then_tool_output(make_bundle: MakeBundle) -> None:
    front = (
        'description: Order of everything.\npermission:\n  bash:\n    "*": ask\n    "git *": allow'
    )
    config = '[permission]\nwebfetch = "deny"\n'
    rt = load(make_bundle, {"specs/agents/a.md": agent(front)}, config)
    assert triples(rt.agents["a"].rules) == [
        *DEFAULTS,
        ("webfetch", "*", "deny"),
        ("bash", "*", "ask"),
        ("bash", "git *", "allow"),
        *TAIL,
    ]


def test_rules_remember_where_they_were_written(make_bundle: MakeBundle) -> None:
    front = 'description: Positions.\npermission:\n  edit: deny\n  bash:\n    "git *": allow'
    config = '[permission]\nbash = { "*" = "ask" }\n'
    rt = load(make_bundle, {"specs/agents/a.md": agent(front)}, config)
    rules = rt.agents["a"].rules
    where = [
        (r.origin.kind, r.origin.path and r.origin.path.name, r.origin.line, r.origin.column)
        for r in rules
    ]
    assert where[0] == ("default", None, 0, 0)
    assert where[12] == ("config", "promptc.toml", 2, 10)
    assert where[13:15] == [("agent", "a.md", 4, 3), ("agent", "a.md", 6, 5)]
    assert where[15] == ("runtime", None, 0, 0)


def test_javascript_key_order(make_bundle: MakeBundle) -> None:
    front = 'description: Numeric keys first.\npermission:\n  bash:\n    "rg *": allow\n    "10": deny\n    "*": ask\n    "2": allow\n    "02": deny\n  "7": deny'
    rt = load(make_bundle, {"specs/agents/a.md": agent(front)})
    own = [(r.permission, r.pattern) for _, r in rt.agents["a"].own_rules()]
    assert own == [
        ("7", "*"),
        ("bash", "2"),
        ("bash", "10"),
        ("bash", "rg *"),
        ("bash", "*"),
        ("bash", "02"),
    ]


@pytest.mark.parametrize(
    ("written", "expanded"),
    [
        ("~/notes/*", "/h/notes/*"),
        ("~", "/h"),
        ("$HOME/docs/*", "/h/docs/*"),
        ("$HOME", "/h"),
        ("$HOMEx/y", "/hx/y"),
        ("~user/z", "~user/z"),
        ("${HOME}/z", "${HOME}/z"),
        ("/abs/~/x", "/abs/~/x"),
    ],
)
def test_home_expansion(written: str, expanded: str) -> None:
    assert permissions.expand_home(written, "/h") == expanded


def test_own_rules_are_shared_across_environments_but_those_naming_home(
    make_bundle: MakeBundle,
) -> None:
    plain = "description: No home.\npermission:\n  bash:\n    '*': ask\n    'git *': allow"
    homely = "description: Home.\npermission:\n  external_directory:\n    '~/notes/*': allow"
    files = {"specs/agents/plain.md": agent(plain), "specs/agents/homely.md": agent(homely)}
    built = made(make_bundle, files)
    other = Environment(home="/u", data="/u/.local/share/opencode", tmp="/t", worktree="/")
    written = Written()
    first = resolve(built, ENV, None, written)
    second = resolve(built, other, None, written)
    alone = resolve(built, other)
    for runtime, home in ((first, "/h"), (second, "/u"), (alone, "/u")):
        [(_, rule)] = runtime.agents["homely"].own_rules()
        assert rule.pattern == f"{home}/notes/*"
    # The same rules, not rules alike: worked out once for both environments.
    mine = [r for _, r in first.agents["plain"].own_rules()]
    assert all(a is b for a, (_, b) in zip(mine, second.agents["plain"].own_rules(), strict=True))
    assert triples(second.agents["plain"].rules) == triples(alone.agents["plain"].rules)
    assert triples(second.agents["homely"].rules) == triples(alone.agents["homely"].rules)


def test_problems_in_writing_rules_are_found_in_every_environment(
    make_bundle: MakeBundle,
) -> None:
    # A refused value and a bad mode, resolved twice with one Written: each
    # resolution reports both, once.
    front = "description: Bad.\nmode: sometimes\npermission:\n  bash: perhaps"
    built = made(make_bundle, {"specs/agents/bad.md": agent(front)})
    other = Environment(home="/u", data="/u/.local/share/opencode", tmp="/t", worktree="/")
    written = Written()
    found = [resolve(built, env, None, written).agents["bad"].problems for env in (ENV, other)]
    assert found[0] == found[1] == resolve(built, other).agents["bad"].problems
    assert len(found[0]) == 2


def test_scalar_permission_and_tools(make_bundle: MakeBundle) -> None:
    front = "description: Whole permission as one action.\npermission: ask\ntools:\n  write: false\n  bash: true"
    rt = load(make_bundle, {"specs/agents/a.md": agent(front)})
    own = list(rt.agents["a"].own_rules())
    # The opencode target emits `tools` only if it passes unknown keys through;
    # the model follows whatever it emits.
    emitted = agent_frontmatter(rt.agents["a"].spec)  # type: ignore[arg-type]
    expected = [("*", "*", "ask")]
    if "tools" in emitted:
        expected = [("edit", "*", "deny"), ("bash", "*", "allow"), ("*", "*", "ask")]
    assert [(r.permission, r.pattern, r.action) for _, r in own] == expected


def test_target_override_replaces_permission_and_points_at_it(make_bundle: MakeBundle) -> None:
    front = "description: Per-target override.\npermission:\n  edit: deny\ntargets:\n  opencode:\n    permission:\n      edit: allow"
    rt = load(make_bundle, {"specs/agents/a.md": agent(front)})
    [(_, rule)] = rt.agents["a"].own_rules()
    assert (rule.permission, rule.action, rule.origin.line, rule.origin.column) == (
        "edit",
        "allow",
        8,
        7,
    )


def test_native_agents_and_overrides(make_bundle: MakeBundle) -> None:
    front = "description: Replaces OpenCode's general subagent.\npermission:\n  bash: deny"
    rt = load(make_bundle, {"specs/agents/general.md": agent(front)})
    general = rt.agents["general"]
    assert general.mode == "subagent"
    assert not general.native
    assert triples(general.rules)[12:] == [("todowrite", "*", "deny"), ("bash", "*", "deny"), *TAIL]
    assert rt.agents["explore"].mode == "subagent"
    assert rt.agents["explore"].native
    assert {a.name for a in rt.agents.values() if a.native} == {
        "build",
        "plan",
        "explore",
        "compaction",
        "title",
        "summary",
    }


def test_disabled_agents_are_gone(make_bundle: MakeBundle) -> None:
    front = "description: Switched off for now.\nmode: subagent\ndisable: true"
    rt = load(make_bundle, {"specs/agents/off.md": agent(front)})
    assert "off" not in rt.agents


def test_subagent_sessions_deny_task_and_todowrite_unless_mentioned(
    make_bundle: MakeBundle,
) -> None:
    files = {
        "specs/agents/quiet.md": agent("description: Never mentions task.\nmode: subagent"),
        "specs/agents/loud.md": agent(
            "description: Mentions task.\nmode: subagent\npermission:\n  task:\n    x: deny"
        ),
    }
    rt = load(make_bundle, files)
    quiet, loud = rt.agents["quiet"], rt.agents["loud"]
    assert triples(quiet.session_rules()) == [("todowrite", "*", "deny"), ("task", "*", "deny")]
    assert triples(loud.session_rules()) == [("todowrite", "*", "deny")]
    assert evaluate(quiet.effective(True), "task", "loud").action == "deny"
    assert evaluate(loud.effective(True), "task", "quiet").action == "allow"
    assert evaluate(quiet.rules, "task", "loud").action == "allow"


def test_config_level_task_counts_as_a_mention(make_bundle: MakeBundle) -> None:
    files = {"specs/agents/quiet.md": agent("description: Never mentions task.\nmode: subagent")}
    rt = load(make_bundle, files, '[permission]\ntask = { "quiet" = "deny" }\n')
    assert triples(rt.agents["quiet"].session_rules()) == [("todowrite", "*", "deny")]


def test_denying_the_tool_output_folder_drops_the_tail(make_bundle: MakeBundle) -> None:
    front = 'description: Denies the tool-output folder.\npermission:\n  external_directory:\n    "~/.local/share/opencode/tool-output/*": deny'
    rt = load(make_bundle, {"specs/agents/a.md": agent(front)})
    assert triples(rt.agents["a"].rules)[-1] == (
        "external_directory",
        "/h/.local/share/opencode/tool-output/*",
        "deny",
    )


def test_refused_values_are_problems_not_rules(make_bundle: MakeBundle) -> None:
    front = "description: Values OpenCode refuses.\npermission:\n  todowrite:\n    '*': deny\n  bash: maybe\n  edit: deny"
    rt = load(make_bundle, {"specs/agents/a.md": agent(front)})
    a = rt.agents["a"]
    assert [(p.line, p.column) for p in a.problems] == [(4, 3), (6, 3)]
    assert [r.permission for _, r in a.own_rules()] == ["edit"]


def test_evaluate_last_match_wins_and_fallback_is_ask() -> None:
    origin = permissions.Origin("agent", "a")
    rules = [
        permissions.Rule("bash", "*", "deny", origin),
        permissions.Rule("bash", "git *", "allow", origin),
    ]
    assert evaluate(rules, "bash", "git push").action == "allow"
    assert evaluate(rules, "bash", "ls").action == "deny"
    assert evaluate(rules, "edit", "x") == permissions.Decision("ask", None)


def test_disabled_tools() -> None:
    origin = permissions.Origin("agent", "a")
    rules = [
        permissions.Rule("*", "*", "allow", origin),
        permissions.Rule("edit", "*", "deny", origin),
        permissions.Rule("bash", "*", "deny", origin),
        permissions.Rule("bash", "git *", "allow", origin),
    ]
    tools = ["edit", "write", "apply_patch", "bash", "read"]
    assert permissions.disabled_tools(tools, rules) == {"edit", "write", "apply_patch"}


def test_environment_follows_opencode(tmp_path: Path) -> None:
    env = Environment.from_environ({"HOME": "/u", "TMPDIR": "/var/t/"}, tmp_path)
    assert (env.home, env.data, env.tmp) == ("/u", "/u/.local/share/opencode", "/var/t/opencode")
    env = Environment.from_environ({"HOME": "/u", "XDG_DATA_HOME": "/d"}, tmp_path)
    assert (env.data, env.tmp, env.tool_output) == (
        "/d/opencode",
        "/tmp/opencode",
        "/d/opencode/tool-output/*",
    )
    (tmp_path / ".git").mkdir()
    assert Environment.from_environ({"HOME": "/u"}, tmp_path / "x").worktree == tmp_path.as_posix()


def test_config_level_permission_reaches_opencode_json(make_bundle: MakeBundle) -> None:
    make_bundle(
        {
            "promptc.toml": '[permission]\nbash = { "*" = "ask", "git *" = "allow" }\nwebfetch = "deny"\n',
            "specs/agents/a.md": agent("description: Any agent will do here."),
        }
    )
    result = api.render(load_config())
    text = result.files["opencode/opencode.json"].decode()
    assert (
        '"permission": {\n    "bash": {\n      "*": "ask",\n      "git *": "allow"\n    },\n    "webfetch": "deny"\n  }'
        in text
    )


def test_config_level_scalar_only_keys_refuse_maps(make_bundle: MakeBundle) -> None:
    from promptc_compiler.base.errors import ConfigError

    make_bundle({"promptc.toml": '[permission]\ntodowrite = { "*" = "deny" }\n'})
    with pytest.raises(ConfigError, match=r"promptc\.toml:2:1: \[permission\.todowrite\]"):
        load_config()


# --- who may be decided an action, and who may start whom ---------------------------------

PATTERN = st.text(alphabet="ab */?\\", max_size=5)
NAME = st.text(alphabet="ab/\\\U0001f600", min_size=1, max_size=3)
ACTION = st.sampled_from(["allow", "ask", "deny"])
ORIGIN = Origin("agent", "a")
RULE = st.builds(
    lambda p, pat, a: Rule(p, pat, a, ORIGIN),
    st.sampled_from(["task", "t*", "*", "bash", "ta?k"]),
    PATTERN,
    ACTION,
)
# Agent names: the same letters, so literal task patterns name them.
AGENT_NAME = st.text(alphabet="ab\\", min_size=1, max_size=3)


@settings(max_examples=400, deadline=None)
@given(
    rules=st.lists(RULE, max_size=7),
    permission=st.sampled_from(["task", "bash", "tak"]),
    texts=st.lists(NAME, min_size=1, max_size=5),
    wanted=st.sampled_from([("allow",), ("allow", "ask"), ("ask",)]),
)
def test_reaching_holds_every_text_decided_a_wanted_action(
    rules: list[Rule], permission: str, texts: list[str], wanted: tuple[str, ...]
) -> None:
    reached = permissions.reaching(rules, permission, wanted)
    for text in texts:
        if evaluate(rules, permission, text).action in wanted:
            assert reached is None or wildcard.normal(text) in reached


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(AGENT_NAME, min_size=1, max_size=5, unique=True),
    modes=st.lists(st.sampled_from(["primary", "subagent", "all"]), min_size=5, max_size=5),
    task=st.lists(
        st.tuples(st.one_of(AGENT_NAME, PATTERN), ACTION).map(
            lambda pa: Rule("task", pa[0], pa[1], ORIGIN)
        ),
        max_size=5,
    ),
)
def test_edges_are_every_offered_agent_not_denied(
    names: list[str], modes: list[str], task: list[Rule]
) -> None:
    source = Agent("source", "primary", tuple(task))
    agents = {"source": source}
    agents.update({n: Agent(n, m, ()) for n, m in zip(names, modes, strict=False)})
    runtime = Runtime(agents, (), ENV)
    expected = [
        (target.name, evaluate(source.task_rules, "task", target.name))
        for target in agents.values()
        if target.mode != "primary"
        and evaluate(source.task_rules, "task", target.name).action != "deny"
    ]
    found = [(e.target.name, e.decision) for e in delegation.edges_from(runtime, source)]
    assert found == expected


@settings(max_examples=300, deadline=None)
@given(pattern=st.text(alphabet="~$HOME/x*", max_size=7))
def test_names_home_is_whether_expand_home_changes_the_pattern(pattern: str) -> None:
    assert permissions.names_home(pattern) is (permissions.expand_home(pattern, "/h") != pattern)


def test_a_rule_holds_where_it_was_written_and_compares_by_it() -> None:
    """A rule keeps its origin's fields (no Origin object of its own) and gives the
    origin back; two rules are equal when all but their matchers are."""
    here = Origin("agent", "scout", Path("specs/agents/scout.md"), 7, 5)
    rule = Rule("bash", "git *", "allow", here, "git *")
    assert rule.origin == here
    assert (rule.kind, rule.path, rule.line, rule.column) == ("agent", here.path, 7, 5)
    twin = Rule(
        "bash", "git *", "allow", here, "git *", wildcard.Patterns().matchers("bash", "git *")
    )
    assert twin == rule
    assert hash(twin) == hash(rule)
    assert Rule("bash", "git *", "allow", here._replace(line=8), "git *") != rule
    assert Rule("bash", "git *", "allow", here._replace(label="smith"), "git *") != rule

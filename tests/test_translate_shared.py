"""The Claude translation plans each distinct permission list once, and is what
planning every agent on its own gives.

Agents repeat their permission maps, so compiler.translate plans each
permission once per distinct list of (permission, pattern, action) and maps
the plan back to every agent's own rules by index; compiler.runtime reads a
spec's rules once for both of a run's resolves. The oracle for the first is
the same planner with sharing off (`share=False`: every agent planned on its
own, as before); for the second, a resolve with nothing remembered. Bundles
here mix agents that share a map (with their own positions, and the home
folder written as `~/` or `$HOME`) with agents whose maps differ.
"""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import api, runtime, translate, wildcard
from compiler.permissions import DEFAULT, Environment, Origin, Rule, expand_home, names_home
from compiler.runtime import Agent
from compiler.translate import MAIN, Subject, Translation, hits, spans
from tests import bundles
from tests.conftest import every_field
from tests.strategies import bundle_on_disk
from tests.test_fast_paths import SOURCE, WRITER, describe_oracle

PERMISSIONS = ["bash", "edit", "read", "task", "webfetch", "skill", "*", "external_directory"]
PATTERNS = ["*", "git *", "git status *", "rm *", "src/*", "*.env", "/~/x/*", "a?", "scout", "sm*"]
ACTIONS = ["allow", "ask", "deny"]
NAMES = ["scout", "smith", "sage", "team/rev", "sm"]
KEY = st.tuples(
    st.sampled_from([*PERMISSIONS, "plan_db", "todowrite", "doom_loop"]),
    st.sampled_from(PATTERNS),
    st.sampled_from(ACTIONS),
)
# The built-in defaults: one list of Rule objects every agent starts with, as resolve gives.
DEFAULTS = (
    Rule("*", "*", "allow", DEFAULT),
    Rule("external_directory", "*", "ask", DEFAULT, written="*"),
    Rule("read", "*", "allow", DEFAULT, written="*"),
    Rule("read", "*.env", "ask", DEFAULT, written="*.env"),
    Rule("read", "*.env.example", "allow", DEFAULT, written="*.env.example"),
)
CONFIG = Origin("config", "config", Path("promptc.toml"), 3, 1)


def _own(name: str, keys: list[tuple[str, str, str]], home: str) -> tuple[Rule, ...]:
    """An agent's rules for a map: each at its own position in its own file."""
    origin = functools.partial(Origin, "agent", name, Path(f"specs/agents/{name}.md"))
    found = []
    for line, (permission, pattern, action) in enumerate(keys, start=4):
        written = home + pattern[2:] if pattern.startswith("/~") else pattern
        found.append(Rule(permission, pattern, action, origin(line, 5), written=written))
    return tuple(found)


@st.composite
def subjects(draw: st.DrawFn) -> tuple[tuple[Subject, ...], str | None]:
    # A map, and others that differ from it in one permission, pattern or action.
    maps = [draw(st.lists(KEY, max_size=5))]
    for _ in range(draw(st.integers(0, 2))):
        other = list(maps[0])
        if other:
            at = draw(st.integers(0, len(other) - 1))
            field = draw(st.integers(0, 2))
            changed = list(other[at])
            changed[field] = draw(KEY)[field]
            other[at] = (changed[0], changed[1], changed[2])
        maps.append(other)
    shared = tuple(
        Rule(p, pat, a, CONFIG, written=pat) for p, pat, a in draw(st.lists(KEY, max_size=2))
    )
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    found = []
    for name in names:
        keys = maps[draw(st.integers(0, len(maps) - 1))]
        home = draw(st.sampled_from(["~", "$HOME"]))
        mode = draw(st.sampled_from(["subagent", "primary", "all"]))
        agent = Agent(name, mode, (*DEFAULTS, *shared, *_own(name, keys, home)))
        found.append(Subject(name, agent, agent.effective(mode != "primary")))
    main = draw(st.sampled_from([None, *names]))
    if main is None:
        build = Agent("build", "primary", (*DEFAULTS, *shared))
        found.append(Subject(MAIN, build, build.rules, False))
    return tuple(found), main


def _plan(found: tuple[Subject, ...], main: str | None, share: bool) -> Translation:
    return translate._Planner(found, main, ("plan_db",), share).run()


@settings(max_examples=400, deadline=None)
@given(case=subjects())
def test_shared_plans_translate_as_each_agent_planned_alone(
    case: tuple[tuple[Subject, ...], str | None],
) -> None:
    found, main = case
    assert _plan(found, main, share=True) == _plan(found, main, share=False)


def test_agents_with_one_map_share_its_plans_and_keep_their_own_lines() -> None:
    keys = [("bash", "*", "deny"), ("bash", "git *", "allow"), ("edit", "src/*", "ask")]
    found = []
    for name in ("scout", "smith"):
        agent = Agent(name, "subagent", (*DEFAULTS, *_own(name, keys, "~")))
        found.append(Subject(name, agent, agent.effective(True)))
    plan = translate._Planner(tuple(found), "scout", (), share=True)
    assert plan.shapes == [0, 0]
    result = plan.run()
    assert result == _plan(tuple(found), "scout", share=False)
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
    """The regions as the translation found them for each agent on its own."""
    relevant = [r for r in rules if wildcard.match(permission, r.permission)]
    found: list[Region] = []
    for index, rule in enumerate(relevant):
        later = tuple(dict.fromkeys(r.pattern for r in relevant[index + 1 :]))
        if not any(wildcard.universal(p) for p in later) and hits((rule.pattern,), later):
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
    first = (*DEFAULTS, *_own("scout", keys, homes[0]))
    other = (*DEFAULTS, *_own("smith", keys, homes[1]))
    found = spans(first, permission)
    for rules in (first, other):
        mapped = tuple(
            Region(None if s.at is None else rules[s.at], s.action, s.pattern, s.later)
            for s in found
        )
        assert mapped == regions_oracle(rules, permission)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.lists(SOURCE, max_size=6), min_size=1, max_size=3),
    readers=st.lists(WRITER, min_size=1, max_size=6),
)
def test_one_list_of_writers_is_described_for_each_agent_as_listing_them_all(
    parts: list[list[translate.Source]], readers: list[str]
) -> None:
    # describe() remembers the words for agents that wrote none of it: asked in
    # turn by agents that did and did not, each gets the plain listing.
    sources = [s for part in parts for s in part]
    who = translate._Who([translate._Writers(part) for part in parts])
    for name in readers:
        subject = Subject(name, Agent(name, "primary", ()), ())
        if sources:
            assert who.describe(subject) == describe_oracle(sources, subject)


# --- whole bundles: diagnostics and files --------------------------------------------------

MAPS = [
    "",
    "permission:\n  edit: deny\n  webfetch: ask\n  bash:\n    '*': ask\n"
    "    'git status *': allow\n    'rm *': deny\n  task:\n    '*': deny\n",
    "permission:\n  bash:\n    '*': deny\n    'git *': allow\n",
    "permission:\n  bash:\n    '*': deny\n    'rm *': allow\n",
    "permission:\n  bash:\n    'rm *': deny\n    'git *': allow\n",
    "permission:\n  edit:\n    'src/*': allow\n    '*.env': deny\n  read:\n"
    "    '{home}/secrets/*': deny\n  webfetch: ask\n",
    "permission:\n  task:\n    '*': deny\n    scout: allow\n    'sm*': ask\n"
    "  plan_db: allow\n  external_directory: allow\n",
    "tools:\n  write: false\npermission:\n  '*': ask\n  bash:\n    '{home}/bin/*': allow\n",
]
AGENT = "---\ndescription: Reads the code and reports what it finds, with paths.\n{mode}{map}---\nWork.\n"
CONFIGS = [
    "custom_tools = ['plan_db']\n",
    "default_agent = 'scout'\n",
    "[permission]\nbash = { 'git push*' = 'deny' }\n",
]


@st.composite
def bundle_files(draw: st.DrawFn) -> dict[str, bytes]:
    config = draw(st.sampled_from(CONFIGS)) + "[targets.opencode]\n\n[targets.claude]\n"
    files = {"promptc.toml": config.encode()}
    # two maps at most, so that agents share them
    maps = draw(st.lists(st.sampled_from(MAPS), min_size=1, max_size=2))
    for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True)):
        mode = draw(st.sampled_from(["", "mode: subagent\n", "mode: primary\n"]))
        body = draw(st.sampled_from(maps)).format(home=draw(st.sampled_from(["~", "$HOME"])))
        text = AGENT.format(mode=mode, map=body)
        files[f"specs/agents/{name}.md"] = text.encode()
    return files


def _render_both(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[api.Result, api.Result]:
    shared = api.render(bundles.config(root))
    with monkeypatch.context() as patch:
        patch.setattr(translate, "planner", functools.partial(translate.planner, share=False))
        alone = api.render(bundles.config(root))
    return shared, alone


@settings(max_examples=40, deadline=None)
@given(files=bundle_files())
def test_bundles_give_the_same_diagnostics_and_files_planned_alone(files: dict[str, bytes]) -> None:
    with bundle_on_disk(files) as (root, _), pytest.MonkeyPatch.context() as monkeypatch:
        shared, alone = _render_both(root, monkeypatch)
    assert every_field(shared.diagnostics) == every_field(alone.diagnostics)
    assert dict(shared.files) == dict(alone.files)


@pytest.mark.parametrize("bundle", ["claude", "opencode", "permissions"])
def test_fixture_bundles_give_the_same_diagnostics_and_files_planned_alone(
    bundle: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / bundle
    shutil.copytree(bundles.FIXTURES / bundle, root)
    config = root / "promptc.toml"
    if "[targets.claude]" not in config.read_text():
        config.write_text(config.read_text() + "\n[targets.claude]\n")
    shared, alone = _render_both(root, monkeypatch)
    assert every_field(shared.diagnostics) == every_field(alone.diagnostics)
    assert dict(shared.files) == dict(alone.files)
    assert any(d.rule == "lossy-translation" for d in shared.diagnostics)


# --- runtime: a spec read once for both resolves ------------------------------------------


@settings(max_examples=40, deadline=None)
@given(files=bundle_files(), home=st.sampled_from(["/home/u", "/~", "/root"]))
def test_a_resolve_after_another_home_is_a_fresh_resolve(
    files: dict[str, bytes], home: str
) -> None:
    with bundle_on_disk(files) as (root, _):
        project = bundles.project(root, "claude")
        machine = Environment.from_environ({"HOME": home}, root)
        runtime._READ.clear()
        alone = runtime.resolve(project, translate.ENVIRONMENT)
        runtime._READ.clear()
        fresh = runtime.resolve(project, machine)
        # each resolve now finds the specs as the other one read them
        assert runtime.resolve(project, translate.ENVIRONMENT) == alone
        assert runtime.resolve(project, machine) == fresh


@settings(max_examples=300, deadline=None)
@given(pattern=st.text(alphabet="~$HOME/x*", max_size=7))
def test_names_home_is_whether_expand_home_changes_the_pattern(pattern: str) -> None:
    assert names_home(pattern) is (expand_home(pattern, "/h") != pattern)

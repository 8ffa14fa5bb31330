"""Bodies let go and composed again (a huge bundle) give exactly the run that holds them.

bundle.HELD_BODY_CHARS and compose.KEPT_CHARS bound what a run keeps in memory;
past them, bodies are read again from their files and composed again when
asked for. Set to 0 here, every agent takes that path: every diagnostic, every
emitted byte and every `check` verdict must equal the default run's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compiler import api, bundle, compose, loader
from compiler.config import load_config
from compiler.loader import SourceChanged
from tests.bundles import FIXTURES, REPOSITORY
from tests.conftest import AGENT, MODE, MakeBundle, Run, every_field

BUNDLES = [REPOSITORY, FIXTURES / "permissions", FIXTURES / "skills"]


@pytest.fixture
def let_go(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every body let go and every composed body rendered again when asked for."""
    monkeypatch.setattr(bundle, "HELD_BODY_CHARS", 0)
    monkeypatch.setattr(compose, "KEPT_CHARS", 0)
    yield


def _runs(root: Path) -> dict[str, object]:
    cwd = os.getcwd()
    os.chdir(root)
    try:
        config = load_config(cwd=root)
        rendered = api.render(config)
        return {
            "lint": every_field(api.lint(config).diagnostics),
            "render": (every_field(rendered.diagnostics), dict(rendered.files)),
            "check": every_field(api.check(config).diagnostics),
        }
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("root", BUNDLES, ids=lambda p: p.name)
def test_letting_go_changes_nothing(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held = _runs(root)
    monkeypatch.setattr(bundle, "HELD_BODY_CHARS", 0)
    monkeypatch.setattr(compose, "KEPT_CHARS", 0)
    released = _runs(root)
    assert released == held
    assert held["render"][1]  # type: ignore[index]


SNIPPET = """\
---
description: The tone snippet.
params:
  level: {type: string, enum: [lite, full], default: full}
---
Tono: caveman, nivel <<level>>.
"""

CONFIG = """\
[targets.opencode]
[targets.claude]

[rules.required-snippet]
fragment = "tone"
params = {level = "full"}
applies_to = "all"
expected_count = 2
"""


def _mixed(make_bundle: MakeBundle) -> Path:
    """Agents that pass, carry the snippet wrong, are empty, or fail to compose."""
    body = "<% if target == 'claude' %>\nUsa Agent.\n<% else %>\nUsa task.\n<% endif %>\n"
    return make_bundle(
        {
            "promptc.toml": CONFIG,
            "fragments/tone.md": SNIPPET,
            "specs/agents/scout.md": AGENT.replace("# Scout\n", "<<tone>>\n\n# Scout\n" + body),
            "specs/agents/lite.md": AGENT.replace("# Scout\n", '<<tone(level="lite")>>\n'),
            "specs/agents/copy.md": AGENT.replace("# Scout\n", "Tono: caveman, nivel full.\n"),
            "specs/agents/empty.md": AGENT.split("# Scout")[0],
            "specs/agents/broken.md": AGENT.replace("# Scout\n", "<<nothing_here>>\n"),
            # read again, a body must come out of the same encoding fixes
            "specs/agents/windows.md": b"\xef\xbb\xbf"
            + AGENT.replace("# Scout\n", "<<tone>>\n\n# Scout\n").replace("\n", "\r\n").encode(),
            "specs/modes/build.md": MODE,
        }
    )


def test_letting_go_changes_nothing_with_errors(
    make_bundle: MakeBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _mixed(make_bundle)
    held = _runs(root)
    rules = {row[3] for row in held["lint"]}  # type: ignore[attr-defined]  # (path, line, column, rule, ...)
    assert {"required-snippet", "empty-body", "compose", "encoding"} <= rules
    monkeypatch.setattr(bundle, "HELD_BODY_CHARS", 0)
    monkeypatch.setattr(compose, "KEPT_CHARS", 0)
    assert _runs(root) == held


def test_check_keeps_no_file_and_still_finds_stale_ones(
    sample: Path, run: Callable[..., Run], let_go: None
) -> None:
    assert run("build").code == 0
    result = api.check(load_config())
    assert result.ok and result.files == {}
    assert "opencode/.opencode/agents/scout.md" in result.generated
    agent = sample / "specs/agents/scout.md"
    agent.write_text(agent.read_text() + "Más.\n")
    outcome = run("check")
    assert outcome.code == 1
    assert "error [stale-output] generated file is stale; run promptc build" in outcome.out


def test_a_body_changed_after_loading_stops_the_run(
    sample: Path, run: Callable[..., Run], let_go: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = sample / "specs/agents/scout.md"
    real = api.load_bundle

    def edited_meanwhile(config: object) -> object:
        loaded = real(config)  # type: ignore[arg-type]
        agent.write_text(agent.read_text().replace("Lee", "Lee con cuidado"))
        return loaded

    monkeypatch.setattr(api, "load_bundle", edited_meanwhile)
    result = run("build")
    assert result.code == 1
    assert (
        "specs/agents/scout.md:1:1: error [syntax] file changed while promptc was reading it; "
        "run promptc again"
    ) in result.out.splitlines()
    assert not (sample / "build").exists()


def test_a_body_read_again_must_be_the_same(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("---\ndescription: x\n---\nuno\n")
    source = loader.load_file(path)
    source.held.release()
    assert source.body == "uno\n"  # read again, same bytes
    path.write_text("---\ndescription: x\n---\ndos\n")  # same length, other text
    with pytest.raises(SourceChanged):
        _ = source.body
    path.unlink()
    with pytest.raises(SourceChanged):
        _ = source.body


def test_whole_bundle_rules_compose_no_agent(let_go: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule that reads agents' bodies must be a session (project.Session): run
    over the whole project, it would compose every agent again past the budget."""
    from compiler import lint
    from compiler.project import make_project

    config = load_config(cwd=REPOSITORY)
    loaded = bundle.load_bundle(config)
    project = make_project(config, loaded, compose.compose_bundle(loaded, "opencode"), "opencode")
    rendered: list[str] = []
    real = compose._Engine.render

    def counted(
        engine: compose._Engine, unit: compose._Unit, *args: object, **kw: object
    ) -> object:
        if unit.kind == "agent":
            rendered.append(unit.name)
        return real(engine, unit, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(compose._Engine, "render", counted)
    assert list(lint.run_rules(project, sessions=False))
    assert rendered == []
    list(lint.run_rules(project))  # the sessions do read them, once each
    assert sorted(rendered) == sorted(project.agents)


def test_past_the_budgets_bodies_are_let_go_and_read_again(
    let_go: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The equality tests above would pass with the budgets ignored: this one
    sees that bodies are let go, read again once each, and composed text not kept."""
    from compiler import lint
    from compiler.project import make_project

    config = load_config(cwd=REPOSITORY)
    loaded = bundle.load_bundle(config)
    assert loaded.agents and all(s.held.released for s in loaded.agents.values() if s.ok)
    assert not any(s.held.released for s in loaded.modes.values())  # agents only
    reads: list[Path] = []
    real = loader._read_again

    def counted(source: loader.SourceFile) -> str:
        reads.append(source.path)
        return real(source)

    monkeypatch.setattr(loader, "_read_again", counted)
    composition = compose.compose_bundle(loaded, "opencode")
    project = make_project(config, loaded, composition, "opencode")
    list(lint.run_rules(project))
    assert sorted(reads) == sorted(s.path for s in loaded.agents.values())
    assert composition._engine.kept == 0  # nothing kept past a budget of 0


def test_within_the_budgets_nothing_is_let_go() -> None:
    config = load_config(cwd=REPOSITORY)
    loaded = bundle.load_bundle(config)
    assert not any(s.held.released for s in loaded.agents.values())

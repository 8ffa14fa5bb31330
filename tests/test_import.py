"""promptc import: specs from an existing OpenCode or Claude Code folder."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.cli.main import main
from promptc_compiler.core.config import load_config
from promptc_compiler.core.loader import load_file
from promptc_compiler.runtimes.claude import import_ as claude_import
from promptc_compiler.runtimes.reading import escape
from tests import bundles
from tests.conftest import Run

pytestmark = pytest.mark.slow  # collected first: tests/conftest.py

FIXTURES = bundles.FIXTURES / "import"


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("plain text\n", "plain text\n"),
        ("use <<name>> here\n", "use \\<<name>> here\n"),
        ("<% if x %>\n", "\\<% if x %>\n"),
        ("a <# note #> b\n", "a \\<# note #> b\n"),
        ("in code `<<name>>` stays\n", "in code `<<name>>` stays\n"),
        ("```\n<<name>>\n```\n", "```\n<<name>>\n```\n"),
        ("cat <<EOF and a << 2\n", "cat <<EOF and a << 2\n"),
        ("already \\<<name>> escaped\n", "already \\\\<<name>> escaped\n"),
    ],
)
def test_escape_keeps_text_as_composed(text: str, escaped: str) -> None:
    assert escape(text) == escaped


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "bundle"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def originals(folder: Path, sub: str) -> dict[str, str]:
    base = folder / sub
    return {
        p.relative_to(base).with_suffix("").as_posix(): load_file(p).body
        for p in sorted(base.rglob("*.md"))
    }


def test_opencode_import_writes_specs_fragment_and_config(
    work: Path, run: Callable[..., Run]
) -> None:
    done = run("import", "opencode", str(FIXTURES / "opencode"))
    assert done.code == 0, done.out + done.err
    written = sorted(p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_file())
    assert written == [
        "fragments/shared_intro.md",
        "promptc.toml",
        "specs/agents/build.md",
        "specs/agents/docs.md",
        "specs/agents/lead.md",
        "specs/agents/reviewer.md",
        "specs/agents/scout.md",
        "specs/agents/team/reviewer.md",
        "specs/modes/plan.md",
        "specs/modes/review.md",
    ]
    assert (work / "fragments/shared_intro.md").read_text() == (
        "Tono: directo, frases cortas, sin relleno. Responde en el idioma del usuario.\n"
        "Si algo no está claro, pregunta antes de actuar.\n"
    )
    # Frontmatter line for line (key and permission order kept); the shared block replaced.
    source = (FIXTURES / "opencode/.opencode/agents/scout.md").read_text()
    front, _, _ = source.partition("\n---\n")
    assert (
        (work / "specs/agents/scout.md")
        .read_text()
        .startswith(front + "\n---\n<<shared_intro>>\n\n# Scout\n")
    )
    assert (work / "promptc.toml").read_text() == (
        'default_agent = "lead"\n\n[permission]\nwebfetch = "ask"\n\n'
        '[rules.required-snippet]\nfragment = "shared_intro"\napplies_to = "all"\n'
        'exempt = ["build", "lead"]\nexpected_count = 4\n'
    )
    assert "promptc: imported 9 file(s)" in done.err
    assert "[deprecated-key]" in done.out  # the lint of the result runs at the end


def test_opencode_import_composes_back_to_every_body(work: Path, run: Callable[..., Run]) -> None:
    assert run("import", "opencode", str(FIXTURES / "opencode/.opencode")).code == 0
    files = bundles.render(work, "opencode")
    for sub, out in (("agents", ".opencode/agents"), ("commands", ".opencode/commands")):
        for ident, body in originals(FIXTURES / "opencode/.opencode", sub).items():
            emitted = files[f"{out}/{ident}.md"].decode()
            assert emitted.split("\n---\n", 1)[1] == body, ident


def test_existing_specs_are_never_replaced_without_force(
    work: Path, run: Callable[..., Run]
) -> None:
    (work / "promptc.toml").write_text("")
    (work / "specs/agents").mkdir(parents=True)
    (work / "specs/agents/scout.md").write_text("mine\n")
    done = run("import", "opencode", str(FIXTURES / "opencode"))
    assert done.code == 1
    assert "specs/agents/scout.md: exists; not replaced (use --force)" in done.out
    assert (work / "specs/agents/scout.md").read_text() == "mine\n"
    assert not (work / "specs/agents/lead.md").exists()  # nothing at all is written
    forced = run("import", "opencode", "--force", str(FIXTURES / "opencode"))
    assert forced.code == 0, forced.out
    assert (work / "specs/agents/scout.md").read_text().startswith("---\n")
    # A config existed: it is proposed on stdout, never rewritten.
    assert (work / "promptc.toml").read_text() == ""
    assert "Proposed config" in forced.out
    assert 'default_agent = "lead"' in forced.out


@pytest.mark.usefixtures("work")
def test_a_folder_without_the_layout_is_a_usage_error(run: Callable[..., Run]) -> None:
    done = run("import", "claude", str(FIXTURES / "opencode"))
    assert done.code == 2
    assert "no .claude/ folder here" in done.err


def test_invalid_file_is_reported_and_fails_the_run(
    work: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    source = tmp_path / "project"
    shutil.copytree(FIXTURES / "opencode", source)
    broken = source / ".opencode/agents/broken.md"
    broken.write_text("---\ndescription: x\npermission:\n  bash:\n    *: deny\n---\nbody\n")
    done = run("import", "opencode", str(source))
    assert done.code == 1
    assert (
        f"{broken}:5:5: error [import] invalid YAML: a bare `*` starts a YAML alias; "
        'quote it as "*"; not imported'
    ) in done.out
    assert (work / "specs/agents/scout.md").is_file()
    assert not (work / "specs/agents/broken.md").exists()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        # a name alone: at any depth, as gitignore reads it
        (".env", [".env", "*/.env", ".env/*", "*/.env/*"]),
        # `./` names the project's folder and anchors nothing (the real binary:
        # tests/claude/test_decisions_claude.py); a `/` inside the path does
        ("./.env", [".env", "*/.env", ".env/*", "*/.env/*"]),
        ("./src/a.py", ["src/a.py", "src/a.py/*"]),
        ("src/a.py", ["src/a.py", "src/a.py/*"]),
        # a name ending at any depth, which OpenCode's `*` is too (it crosses folders)
        ("*.md", ["*.md"]),
        ("./*.md", ["*.md"]),
    ],
)
def test_a_claude_path_allow_becomes_only_what_claude_code_matches(
    spec: str, expected: list[str]
) -> None:
    assert claude_import.inside("path", spec) == expected


def test_claude_import_reports_what_it_cannot_carry(work: Path, run: Callable[..., Run]) -> None:
    done = run("import", "claude", str(FIXTURES / "claude"))
    assert done.code == 0, done.out + done.err
    where = FIXTURES / "claude/.claude"
    assert (
        f"{where}/agents/orchestrator.md:2:1: warning [import] name `lead` differs from the "
        "file name `orchestrator`: the id is `orchestrator`"
    ) in done.out
    assert f"{where}/agents/researcher.md:9:1: warning [import] model `haiku`" in done.out
    assert run("import", "claude", "--strict", "--force", str(FIXTURES / "claude")).code == 1
    assert api.render(load_config()).ok
    project = bundles.project(work, "opencode")
    for ident, body in originals(where, "agents").items():
        assert project.agents[ident].body == body, ident


# Claude tool -> what the OpenCode agent asks for it; (permission, input).
PROBES = {
    "Read": ("read", "src/a.py"),
    "Edit": ("edit", "src/a.py"),
    "Write": ("edit", "src/a.py"),
    "Glob": ("glob", "*"),
    "Grep": ("grep", "*"),
    "Bash": ("bash", "rm -rf build"),
    "Agent": ("task", "researcher"),
    "WebFetch": ("webfetch", "*"),
    "WebSearch": ("websearch", "*"),
    "TodoWrite": ("todowrite", "*"),
    "Skill": ("skill", "*"),
}


def imported_once(root: Path, source: Path) -> Path:
    """A bundle `promptc import claude SOURCE` made, for tests that only ask what
    it decides: one import serves a table of questions."""
    bundle = root / "bundle"
    bundle.mkdir()
    with contextlib.chdir(bundle):
        assert main(["import", "claude", str(source)]) == 0
    return bundle


@pytest.fixture(scope="module")
def claude_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return imported_once(tmp_path_factory.mktemp("claude"), FIXTURES / "claude")


@pytest.mark.parametrize(
    ("agent", "allowed"),
    [
        ("code-reviewer", {"Read", "Grep", "Glob"}),
        ("debugger", {"Read", "Edit", "Write", "Bash", "Grep", "Glob"}),
        ("researcher", {"Read", "WebFetch", "WebSearch"}),
        ("orchestrator", {"Read", "TodoWrite"}),
    ],
)
def test_claude_permissions_never_grant_more(
    claude_fixture: Path, monkeypatch: pytest.MonkeyPatch, agent: str, allowed: set[str]
) -> None:
    monkeypatch.chdir(claude_fixture)
    config = load_config()
    for tool, (permission, text) in PROBES.items():
        decision = api.can(config, agent, permission, text).decision
        if tool not in allowed:
            assert decision.action == "deny", (agent, tool, decision)


@pytest.mark.parametrize(
    ("agent", "permission", "text", "action"),
    [
        # `tools` says which commands exist for the agent; Claude Code still asks
        # before each, as settings.json allows none of them.
        ("code-reviewer", "bash", "git diff HEAD", "ask"),
        ("code-reviewer", "bash", "git log", "ask"),
        ("code-reviewer", "bash", "rm -rf /", "deny"),
        ("orchestrator", "task", "debugger", "allow"),
        ("orchestrator", "task", "researcher", "deny"),
        ("researcher", "bash", "ls", "deny"),
    ],
)
def test_claude_tool_patterns_become_rules(
    claude_fixture: Path,
    monkeypatch: pytest.MonkeyPatch,
    agent: str,
    permission: str,
    text: str,
    action: str,
) -> None:
    monkeypatch.chdir(claude_fixture)
    assert api.can(load_config(), agent, permission, text).decision.action == action


WORDPRESS = """---
name: wordpress-master
description: WordPress expert for themes, plugins and site performance work.
tools: Read, Write, Edit, Bash, Glob, Grep, WebFetch, WebSearch
---
You build WordPress sites.
"""


def _claude_folder(root: Path, agents: dict[str, str], settings: str | None = None) -> Path:
    for name, text in agents.items():
        (root / ".claude/agents").mkdir(parents=True, exist_ok=True)
        (root / f".claude/agents/{name}.md").write_text(text)
    if settings is not None:
        (root / ".claude/settings.json").write_text(settings)
    return root


@pytest.fixture(scope="module")
def wordpress(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wordpress")
    return imported_once(root, _claude_folder(root / "source", {"wordpress-master": WORDPRESS}))


@pytest.mark.parametrize(
    ("permission", "text"),
    [("bash", "rm -rf /"), ("edit", "src/a.py"), ("webfetch", "https://x.org"), ("websearch", "*")],
)
def test_claude_import_asks_where_claude_code_asks(
    wordpress: Path, monkeypatch: pytest.MonkeyPatch, permission: str, text: str
) -> None:
    monkeypatch.chdir(wordpress)
    decision = api.can(load_config(), "wordpress-master", permission, text).decision
    assert decision.action == "ask", decision


SETTINGS = json.dumps(
    {
        "permissions": {
            "allow": [
                "Bash(npm test:*)",
                "Bash(git *)",
                "Edit(src/**)",
                "WebFetch(domain:docs.python.org)",
            ],
            "ask": ["Bash(git push *)"],
            "deny": ["Read(./.env)", "Bash(rm -rf *)"],
        }
    }
)


@pytest.fixture(scope="module")
def wordpress_with_settings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("settings")
    agents = {"wordpress-master": WORDPRESS}
    return imported_once(root, _claude_folder(root / "source", agents, SETTINGS))


@pytest.mark.parametrize(
    ("permission", "text", "action"),
    [
        ("bash", "npm test --watch", "allow"),  # allow: Bash(npm test:*)
        ("bash", "npm publish", "ask"),
        ("bash", "git push origin main", "ask"),  # ask: Bash(git push *), over the allow
        ("bash", "rm -rf build", "deny"),  # deny: Bash(rm -rf *)
        ("read", ".env", "deny"),  # deny: Read(./.env)
        ("read", "src/.env", "deny"),
        ("read", "src/a.py", "allow"),
        ("edit", "src/a.py", "allow"),  # allow: Edit(src/**)
        ("edit", "docs/a.md", "ask"),
        ("webfetch", "https://docs.python.org/3/", "ask"),  # one rule for every URL
    ],
)
def test_claude_settings_rules_refine_the_defaults(
    wordpress_with_settings: Path,
    monkeypatch: pytest.MonkeyPatch,
    permission: str,
    text: str,
    action: str,
) -> None:
    monkeypatch.chdir(wordpress_with_settings)
    assert api.can(load_config(), "wordpress-master", permission, text).decision.action == action


@pytest.mark.usefixtures("work")
def test_a_settings_rule_left_out_is_reported_at_its_line(
    tmp_path: Path, run: Callable[..., Run]
) -> None:
    settings = (
        '{\n  "permissions": {\n    "allow": ["Edit(/src/**)", "WebFetch(domain:x.org)"]\n  }\n}\n'
    )
    source = _claude_folder(tmp_path / "source", {"wordpress-master": WORDPRESS}, settings)
    done = run("import", "claude", str(source))
    path = source / ".claude/settings.json"
    assert f"{path}:3:15: warning [import] `Edit(/src/**)`: OpenCode cannot match only" in done.out
    assert f"{path}:3:32: warning [import] `WebFetch(domain:x.org)`: OpenCode cannot" in done.out


@pytest.mark.usefixtures("work")
def test_a_json_file_too_large_or_deep_to_read_is_not_imported(
    tmp_path: Path, run: Callable[..., Run]
) -> None:
    """json.loads refuses a number of 5,000 digits with a ValueError that is not
    a JSONDecodeError, and nesting past the recursion limit with a
    RecursionError: the import was an internal error."""
    settings = '{"permissions": {"allow": ["Read"]},\n  "n": ' + "9" * 5000 + "}\n"
    source = _claude_folder(tmp_path / "source", {"wordpress-master": WORDPRESS}, settings)
    done = run("import", "claude", str(source))
    path = source / ".claude/settings.json"
    message = "cannot read: a number of 5,000 digits; promptc reads up to 4,300"
    assert f"{path}:2:8: error [import] {message}: line 2 column 8" in done.out
    assert (done.code, "internal error" in done.err) == (1, False)
    deep = "[" * 100_000 + "]" * 100_000  # past json.loads's recursion limit
    path.write_text('{"permissions": {"allow": ["Read"]}, "n": ' + deep + "}\n")
    done = run("import", "claude", str(source))
    message = "cannot read: nested deeper than 64 levels: line 1 column 106"
    assert f"{path}:1:106: error [import] {message}" in done.out
    assert (done.code, "internal error" in done.err) == (1, False)


@pytest.mark.usefixtures("work")
def test_fresh_claude_import_raises_no_dangerous_allow(
    tmp_path: Path, run: Callable[..., Run]
) -> None:
    agents = {
        "wordpress-master": WORDPRESS,
        "tester": WORDPRESS.replace("wordpress-master", "tester"),
    }
    source = _claude_folder(tmp_path / "source", agents)
    (source / ".claude/agents/bare.md").write_text(
        "---\nname: bare\ndescription: No tools line at all, so every tool.\n---\nBody.\n"
    )
    done = run("import", "claude", str(source))
    assert done.code == 0, done.out
    assert "[dangerous-allow]" not in done.out
    fixture = run("import", "claude", "--force", str(FIXTURES / "claude"))
    assert "[dangerous-allow]" not in fixture.out


def test_claude_import_into_a_config_without_its_permission_warns(
    work: Path, tmp_path: Path, run: Callable[..., Run]
) -> None:
    (work / "promptc.toml").write_text('specs = "specs"\n')
    source = _claude_folder(tmp_path / "source", {"wordpress-master": WORDPRESS})
    done = run("import", "claude", str(source))
    assert (
        "promptc.toml:1:1: warning [import] the imported agents rely on the proposed "
        "config-level `permission`"
    ) in done.out
    assert 'bash = "ask"' in done.out  # the proposal, printed

"""`promptc init`: a starting bundle that passes every rule, builds, and loads in the real runtimes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc_compiler.cli.init import TEMPLATES, bundle_files, choose_targets
from promptc_compiler.runtimes import TARGETS
from tests import oracle
from tests.claude.test_conformance_claude import validate
from tests.conftest import Run
from tests.opencode.test_conformance_opencode import parse_agent_list, run_ok

pytestmark = pytest.mark.slow

Runner = Callable[..., Run]
REPOSITORY = Path(__file__).resolve().parent.parent
SOURCES = [
    "promptc.toml",
    "specs/agents/coder.md",
    "specs/agents/lead.md",
    "specs/agents/reviewer.md",
    "specs/modes/review.md",
    "fragments/house-rules.md",
    "fragments/review/steps.md",
]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_writes_the_bundle_builds_it_and_says_what_to_edit_first(
    here: Path, run: Runner
) -> None:
    done = run("init", "my-agents")
    assert done.code == 0, done.out + done.err
    listed = [line.strip() for line in done.out.splitlines() if line.startswith("  ")]
    assert listed[: len(SOURCES) + 1] == [*SOURCES, ".gitignore (created)"]
    assert "cd my-agents\n  1. Edit specs/agents/lead.md first" in done.out
    assert done.err == "promptc: no problems; wrote 5, removed 0 file(s)\n"
    for rel in SOURCES:
        assert (here / "my-agents" / rel).is_file(), rel
    assert (here / "my-agents/build/opencode/.opencode/agents/lead.md").is_file()


@pytest.mark.parametrize("target", ["opencode", "claude", "both"])
def test_a_new_bundle_passes_every_rule_and_its_build_is_fresh(
    here: Path, run: Runner, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    assert run("init", "b", "--target", target).code == 0
    monkeypatch.chdir(here / "b")
    # --strict and --verbose: no error, no warning, and not even an info.
    checked = run("check", "--strict", "--verbose", "--no-cache")
    assert (checked.code, checked.out, checked.err) == (0, "", "promptc: no problems\n")
    built = run("build", "--strict")
    # A build also says what the Claude Code files keep: every tool, for this bundle.
    kept = r"promptc: claude: 3 agents; no tool lost; \d+% of \d+ usable calls kept"
    *summaries, count = built.err.splitlines()
    assert (built.code, count) == (0, "promptc: no problems")
    assert len(summaries) == (target != "opencode")
    assert all(re.fullmatch(kept, s) for s in summaries)
    expected = {"both": ["claude", "opencode"]}.get(target, [target])
    assert sorted(p.name for p in (here / "b/build").iterdir() if p.is_dir()) == expected


def test_every_runtime_gets_a_bundle_without_errors(
    here: Path, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtimes that cannot say every permission lose tools (warnings), never more."""
    others = ",".join(name for name in TARGETS if name not in ("opencode", "claude"))
    done = run("init", "b", "--target", others)
    assert done.code == 0, done.err
    monkeypatch.chdir(here / "b")
    checked = run("check", "--no-cache")
    assert checked.code == 0, checked.out
    assert " error " not in checked.out, checked.out
    assert {line.split("[")[1].split("]")[0] for line in checked.lines} == {"lost-tool"}
    built = sorted(p.name for p in (here / "b/build").iterdir() if p.is_dir())
    assert built == sorted(others.split(","))


def test_target_takes_every_registry_name_repeated_or_comma_separated() -> None:
    assert choose_targets([]) == ("opencode",)
    assert choose_targets(["gemini, codex", "copilot", "codex"]) == ("codex", "copilot", "gemini")
    assert choose_targets(["both"]) == ("opencode", "claude")
    assert choose_targets([",".join(reversed(list(TARGETS)))]) == tuple(TARGETS)


def test_an_unknown_target_is_a_usage_error_and_writes_nothing(here: Path, run: Runner) -> None:
    done = run("init", "b", "--target", "opencode,cladue")
    assert done.code == 2
    assert "unknown target 'cladue' (did you mean `claude`?); the targets: opencode," in done.err
    assert list(here.iterdir()) == []


def test_the_promptc_toml_names_its_targets(here: Path, run: Runner) -> None:
    run("init", "c", "--target", "claude")
    text = (here / "c/promptc.toml").read_text()
    assert "\n[targets.claude]\n" in text
    assert "\n# [targets.opencode]\n" in text
    assert "@targets@" not in text


# Two OpenCode runs, 8 s of CPU: `make conformance`, beside the root layout's
# (tests/test_layout_root.py). `make test` has OpenCode load a build in
# tests/opencode/test_decisions_opencode.py.
@pytest.mark.conformance
def test_the_real_opencode_lists_every_agent(
    here: Path, run: Runner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    oracle.binary("opencode")
    assert run("init", "b").code == 0
    project = tmp_path_factory.mktemp("project")
    shutil.copytree(here / "b/build/opencode", project, dirs_exist_ok=True)
    # OpenCode collects agents from every .opencode/ up to the repository root.
    subprocess.run(["git", "init", "--quiet", str(project)], check=True)
    home = tmp_path_factory.mktemp("home")
    agents = parse_agent_list(run_ok(project, home, "agent", "list"))
    assert {name: agents[name][0] for name in ("lead", "coder", "reviewer")} == {
        "lead": "primary",
        "coder": "subagent",
        "reviewer": "subagent",
    }
    config = json.loads(run_ok(project, home, "debug", "config"))
    assert config["default_agent"] == "lead"
    assert config["command"]["review"]["agent"] == "lead"
    assert "1. Read the diff (`git diff`)" in config["command"]["review"]["template"]
    assert "with the task tool." in config["agent"]["lead"]["prompt"]


def test_the_real_claude_validates_the_claude_layout(here: Path, run: Runner) -> None:
    oracle.binary("claude")
    assert run("init", "b", "--target", "both").code == 0
    code, result = validate(here / "b/build/claude")
    assert (code, result["success"], result["contents"]) == (0, True, []), result
    lead = (here / "b/build/claude/.claude/agents/lead.md").read_text()
    assert "with the Agent tool." in lead
    assert "  - Agent(coder, reviewer)\n" in lead


def test_init_refuses_to_replace_a_file_and_writes_nothing(here: Path, run: Runner) -> None:
    (here / "b/specs/agents").mkdir(parents=True)
    (here / "b/specs/agents/lead.md").write_text("mine\n")
    done = run("init", "b")
    assert (done.code, done.out, done.err) == (
        1,
        "b/specs/agents/lead.md: exists; not replaced\n",
        "promptc: nothing written\n",
    )
    assert (here / "b/specs/agents/lead.md").read_text() == "mine\n"
    assert sorted(p.relative_to(here).as_posix() for p in here.rglob("*")) == [
        "b",
        "b/specs",
        "b/specs/agents",
        "b/specs/agents/lead.md",
    ]


def test_init_reads_a_pyproject_nested_past_the_recursion_limit_as_no_config(
    here: Path, run: Runner
) -> None:
    """tomllib stops at the interpreter's recursion limit: init was an internal error."""
    (here / "pyproject.toml").write_text("[project]\nx = " + "[" * 900 + "]" * 900 + "\n")
    done = run("init")
    assert (done.code, "internal error" in done.err) == (0, False)
    assert (here / "promptc.toml").is_file()


def test_init_refuses_a_folder_whose_pyproject_holds_a_config(here: Path, run: Runner) -> None:
    (here / "pyproject.toml").write_text('[tool.promptc]\nspecs = "prompts"\n')
    done = run("init")
    assert (done.code, done.out) == (1, "pyproject.toml: holds [tool.promptc], a config\n")
    assert sorted(p.name for p in here.iterdir()) == ["pyproject.toml"]


def test_init_refuses_a_file_given_as_the_folder(here: Path, run: Runner) -> None:
    (here / "notes").write_text("x\n")
    assert (run("init", "notes").code, run("init", "notes").out) == (1, "notes: not a folder\n")


def test_a_failed_write_leaves_no_half_bundle(here: Path, run: Runner) -> None:
    (here / "specs").write_text("a file where the folder goes\n")
    done = run("init")
    assert done.code == 1
    assert done.err.startswith("promptc: cannot write specs")
    assert done.err.endswith("; nothing written\n")
    assert sorted(p.name for p in here.iterdir()) == ["specs"]


def test_init_adds_only_the_missing_lines_to_a_gitignore(here: Path, run: Runner) -> None:
    (here / ".gitignore").write_text("node_modules/\n.promptc-cache/")  # no final newline
    done = run("init")
    assert done.code == 0
    assert "  .gitignore (updated)\n" in done.out
    assert (here / ".gitignore").read_text() == (
        "node_modules/\n.promptc-cache/\n# promptc\n"
        "build/.promptc.lock\nbuild/.promptc.stamp\nbuild/.promptc.d\npromptc.sarif\n"
    )


def git_untracked(root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(line[3:] for line in done.stdout.splitlines())


def test_the_gitignore_keeps_out_what_promptc_writes_besides_the_build(
    here: Path, run: Runner
) -> None:
    subprocess.run(["git", "init", "--quiet", str(here)], check=True)
    assert run("init").code == 0
    # The make recipe's stamp and depfile, the cache of every run, a SARIF log.
    assert (
        run("build", "--stamp", "build/.promptc.stamp", "--depfile", "build/.promptc.d").code == 0
    )
    assert run("check").code == 0
    sarif = run("lint", "--format", "sarif")
    Path("promptc.sarif").write_text(sarif.out)
    assert (here / ".promptc-cache").is_dir()
    assert (here / "build/.promptc.d").is_file()
    assert git_untracked(here) == sorted(
        [
            ".gitignore",
            *SOURCES,
            "build/.promptc-manifest.json",
            "build/opencode/.opencode/agents/coder.md",
            "build/opencode/.opencode/agents/lead.md",
            "build/opencode/.opencode/agents/reviewer.md",
            "build/opencode/.opencode/commands/review.md",
            "build/opencode/opencode.json",
        ]
    )


def test_the_starter_is_neutral_and_borrows_nothing_from_the_repository_bundle() -> None:
    """A new user's agents get plain house rules, not this repository's own tone lines."""
    ours = bundle_files(["opencode"])
    theirs = {
        line.strip()
        for path in (REPOSITORY / "fragments").rglob("*.md")
        for line in path.read_text(encoding="utf-8").split("---\n", 2)[-1].splitlines()
        if len(line.strip()) > 20
    }
    for rel, text in ours.items():
        assert not theirs & {line.strip() for line in text.splitlines()}, rel
    assert "<<house_rules>>" in ours["specs/agents/coder.md"]
    assert "caveman" not in "".join(ours.values()).lower()


def test_every_template_file_is_used() -> None:
    """A file under templates/init/ that init never reads would be dead weight in the wheel."""
    used = {*bundle_files(["opencode"]), "gitignore", "next-steps.txt"}
    found = {p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*") if p.is_file()}
    assert found == used


def test_each_target_s_starter_lines_stand_in_its_table() -> None:
    """A target's own lines (its STARTER, in its runtime's package) follow its table's
    header: as written when it is chosen, commented out when it is not."""
    chosen = bundle_files(list(TARGETS))["promptc.toml"].splitlines()
    left = bundle_files(["opencode"])["promptc.toml"].splitlines()
    lines = [line for t in TARGETS.values() for line in t.STARTER.table.splitlines()]
    assert any(not line.startswith("#") for line in lines)  # some option is set, not only shown
    for name, target in TARGETS.items():
        table = [f"[targets.{name}]", *target.STARTER.table.splitlines()]
        at = chosen.index(table[0])
        assert chosen[at : at + len(table)] == table
        commented = [line if line.startswith("#") else f"# {line}" for line in table]
        if name != "opencode":
            at = left.index(commented[0])
            assert left[at : at + len(table)] == commented


def test_init_help_names_the_targets(run: Runner) -> None:
    done = run("init", "--help")
    assert "[DIR]" in done.out
    assert "[" + "|".join(TARGETS) + "][,...]" in done.out

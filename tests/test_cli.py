"""The command line: exit codes, output format, rules and explain."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.pipeline import importer
from tests.conftest import AGENT, MakeBundle, Run

Runner = Callable[..., Run]


def test_clean_bundle_exits_0(sample: Path, run: Runner) -> None:
    result = run("lint")
    assert result.code == 0, result.out + result.err
    assert result.out == ""
    assert "no problems" in result.err


def test_error_exits_1_with_position(make_bundle: MakeBundle, run: Runner) -> None:
    bad = AGENT.replace("mode: subagent", "mode: sidekick")
    make_bundle({"specs/agents/scout.md": bad})
    result = run("lint")
    assert result.code == 1
    assert result.out.startswith("specs/agents/scout.md:3:7: error [schema] $.mode: 'sidekick'")


def test_frontmatter_error_at_line_7_column_3(make_bundle: MakeBundle, run: Runner) -> None:
    text = AGENT.replace("  edit: deny", "  edit: deny\n  edit: ask")
    make_bundle({"specs/agents/scout.md": text})
    result = run("lint")
    assert result.code == 1
    assert "specs/agents/scout.md:6:3: error [syntax] duplicate key 'edit'" in result.out


def test_warnings_pass_unless_strict(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "specs/agents/scout.md": AGENT.replace(
                "Explores the codebase read-only and reports findings.", "Explorer"
            )
        }
    )
    assert run("lint").code == 0
    strict = run("lint", "--strict")
    assert strict.code == 1
    assert "warning [description-length]" in strict.out


def test_quiet_hides_warnings(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "specs/agents/scout.md": AGENT.replace(
                "Explores the codebase read-only and reports findings.", "Explorer"
            )
        }
    )
    result = run("lint", "--quiet")
    assert (result.code, result.out, result.err) == (0, "", "")


def test_quiet_strict_prints_the_warnings_that_fail_the_run(
    make_bundle: MakeBundle, run: Runner
) -> None:
    """--strict makes a warning fail the run: --quiet still says which (never exit 1
    with nothing printed)."""
    make_bundle(
        {
            "specs/agents/scout.md": AGENT.replace(
                "Explores the codebase read-only and reports findings.", "Explorer"
            )
        }
    )
    result = run("lint", "--quiet", "--strict")
    assert result.code == 1
    assert result.out.startswith("specs/agents/scout.md:2:14: warning [description-length]")
    assert result.err == ""


def test_unknown_config_key_exits_2(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({"promptc.toml": 'out = "build"\ntargts = {}\n', "specs/agents/scout.md": AGENT})
    result = run("lint")
    assert result.code == 2
    assert "promptc.toml:2:1: unknown key 'targts'" in result.err
    assert "did you mean `targets`?" in result.err


def test_missing_specs_folder_exits_2(
    tmp_path: Path, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("lint")
    assert result.code == 2
    assert "specs folder not found" in result.err


def test_unknown_option_exits_2(sample: Path, run: Runner) -> None:
    assert run("lint", "--frobnicate").code == 2
    assert run("build", "--target", "nowhere").code == 2


def test_internal_error_exits_3_without_traceback(
    sample: Path, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(api, "lint", boom)
    result = run("lint")
    assert result.code == 3
    assert result.err.strip() == (
        "promptc: internal error: RuntimeError: kaboom (re-run with --traceback to see where)"
    )
    assert "Traceback" not in result.err
    with pytest.raises(RuntimeError, match="kaboom"):
        run("--traceback", "lint")


def test_json_format(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({"specs/agents/scout.md": AGENT.replace("mode: subagent", "mode: sidekick")})
    result = run("lint", "--format", "json")
    document = json.loads(result.out)
    assert document["version"] == 1
    [item] = document["diagnostics"]
    assert (item["path"], item["line"], item["column"], item["rule"], item["severity"]) == (
        "specs/agents/scout.md",
        3,
        7,
        "schema",
        "error",
    )
    assert document["summary"] == {"error": 1, "warning": 0, "info": 0}


def test_every_problem_is_reported_in_one_run(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "specs/agents/a.md": AGENT.replace("mode: subagent", "mode: sidekick"),
            "specs/agents/b.md": AGENT + "<<missing>>\n",
            "specs/agents/c.md": b"---\ndescription: \xff\n---\n",
        }
    )
    result = run("lint")
    lines = [line for line in result.out.splitlines() if not line.startswith("    hint:")]
    rules = [line.split(" [")[1].split("]")[0] for line in lines]
    assert rules == ["schema", "compose", "syntax"]


def test_rules_lists_every_rule(run: Runner) -> None:
    result = run("rules")
    assert result.code == 0
    ids = [line.split()[0] for line in result.out.splitlines()]
    assert {"syntax", "schema", "compose", "description-length"} <= set(ids)
    assert ids == sorted(ids)


def test_explain_prints_the_docstring(run: Runner) -> None:
    result = run("explain", "description-length")
    assert result.code == 0
    assert "Options:" in result.out and "min (integer, default 20)" in result.out
    wrong = run("explain", "description-lenght")
    assert wrong.code == 2
    assert "did you mean `description-length`?" in wrong.err


def test_version(run: Runner) -> None:
    from promptc_compiler import __version__

    result = run("--version")
    assert (result.code, result.out.strip()) == (0, f"promptc, version {__version__}")


def test_python_dash_m(sample: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "promptc_compiler", "lint"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_infos_are_shown_with_verbose(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": '[rules.description-length]\nlevel = "info"\n',
            "specs/agents/scout.md": AGENT.replace(
                "Explores the codebase read-only and reports findings.", "Explorer"
            ),
        }
    )
    quiet = run("lint", "--strict")
    assert (quiet.code, quiet.out) == (0, "")
    assert "1 info (shown with --verbose)" in quiet.err
    loud = run("lint", "--strict", "--verbose")
    assert loud.code == 0
    assert "info [description-length]" in loud.out
    assert json.loads(run("lint", "--format", "json").out)["summary"]["info"] == 1


@pytest.mark.parametrize("kind", sorted(importer.LAYOUTS))
def test_import_help_names_the_folder_each_runtime_reads(run: Runner, kind: str) -> None:
    """Copilot CLI's project folder is .github/, not .copilot/."""
    result = run("import", kind, "--help")
    folder = importer.LAYOUTS[kind]
    assert result.code == 0
    assert f"(a project holding {folder}/, or {folder}/ itself)" in " ".join(result.out.split())


def test_import_help_names_every_runtime(run: Runner) -> None:
    result = run("import", "--help")
    summary = " ".join(result.out.split("Options:")[0].split())
    assert "Turn an existing OpenCode, Claude Code, Codex, Copilot or Gemini folder" in summary

"""The integration recipes, run for real: make, pre-commit and GitHub Actions.

Each recipe is read from docs/integrations.md (the fenced block after its
`<!-- recipe: NAME -->` marker), so what a user copies is what runs here:
make with the depfile, pre-commit (the recipes' configs, the hook repository
at a commit of this source tree), and the workflows validated against SchemaStore's
workflow schema (tests/schemas/) with their shell steps executed. The recipes
pin the release of the version in compiler/promptc_compiler/__init__.py (docs/releasing.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from promptc_compiler import __version__
from promptc_compiler.cli import depfile
from tests.conftest import AGENT, MODE, Run

# Slow end to end (pre-commit and the CI recipes install promptc in fresh environments (2 min)): `make conformance` runs it, not `make test`.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

Runner = Callable[..., Run]

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = Path(__file__).resolve().parent / "schemas"
BIN = Path(sys.executable).parent
BAD_MODE = AGENT.replace("mode: subagent", "mode: sidekick")
SCOUT = "specs/agents/scout.md"


RECIPES = ROOT / "docs" / "integrations.md"
# What the recipes install: the release of this version, on PyPI.
RELEASE = f"promptc-compiler=={__version__}"


def recipe(name: str) -> str:
    text = RECIPES.read_text(encoding="utf-8")
    match = re.search(rf"<!-- recipe: {name} -->\n```\w*\n(.*?)^```", text, re.S | re.M)
    assert match, f"docs/integrations.md has no recipe '{name}'"
    return match.group(1)


def environment(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: scratch HOME, this venv's promptc first on PATH, a git identity."""
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env.pop("NO_COLOR", None)
    env |= {
        "HOME": str(home),
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "GIT_AUTHOR_NAME": "promptc tests",
        "GIT_AUTHOR_EMAIL": "tests@promptc.invalid",
        "GIT_COMMITTER_NAME": "promptc tests",
        "GIT_COMMITTER_EMAIL": "tests@promptc.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return env | extra


def sh(*args: str | Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def write_bundle(root: Path, agent: str = AGENT) -> Path:
    files = {
        "promptc.toml": "",
        SCOUT: agent.replace("# Scout", "<<tone>>\n\n# Scout"),
        "specs/modes/build.md": MODE,
        "fragments/tone.md": "Tono: directo.\n",
    }
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    return root


# --- make -------------------------------------------------------------------


@dataclass
class Make:
    root: Path
    env: dict[str, str]

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return sh("make", *args, cwd=self.root, env=self.env)

    def up_to_date(self) -> bool:
        done = self("-q")
        assert done.returncode in (0, 1), done.stderr
        return done.returncode == 0

    def builds(self) -> bool:
        """Run make; True when it ran promptc (and promptc succeeded)."""
        done = self()
        assert done.returncode == 0, done.stdout + done.stderr
        return "promptc build" in done.stdout


@pytest.fixture
def make(tmp_path: Path) -> Make:
    root = write_bundle(tmp_path / "bundle")
    (root / "Makefile").write_text(recipe("make"), encoding="utf-8")
    return Make(root, environment(tmp_path / "home"))


def touch(path: Path, stamp: Path) -> None:
    """What an editor's save does to the mtime: now, which is after the last build started."""
    os.utime(path)
    assert path.stat().st_mtime_ns > stamp.stat().st_mtime_ns


def test_make_recipe_builds_once_then_only_on_change(make: Make) -> None:
    root = make.root
    stamp, deps = root / "build/.promptc.stamp", root / "build/.promptc.d"
    assert not make.up_to_date()
    assert make.builds()
    agent = root / "build/opencode/.opencode/agents/scout.md"
    assert "Tono: directo." in agent.read_text()
    assert deps.read_text() == (
        "build/.promptc.stamp: \\\n"
        "  promptc.toml \\\n"
        "  fragments/tone.md \\\n"
        "  specs/agents/scout.md \\\n"
        "  specs/modes/build.md \\\n"
        "  specs \\\n"
        "  specs/agents \\\n"
        "  specs/modes \\\n"
        "  fragments\n"
        "promptc.toml:\nfragments/tone.md:\nspecs/agents/scout.md:\nspecs/modes/build.md:\n"
        "specs:\nspecs/agents:\nspecs/modes:\nfragments:\n"
    )
    # Touching nothing rebuilds nothing.
    assert make.up_to_date()
    assert not make.builds()
    # Touching a fragment (same bytes) reruns promptc once, which rewrites nothing.
    before = agent.stat().st_mtime_ns
    touch(root / "fragments/tone.md", stamp)
    assert not make.up_to_date()
    assert make.builds()
    assert agent.stat().st_mtime_ns == before
    assert make.up_to_date()
    # Every kind of input counts: the config, a spec, a mode.
    for rel in ("promptc.toml", SCOUT, "specs/modes/build.md"):
        touch(root / rel, stamp)
        assert make.builds(), rel
        assert not make.builds(), rel
    # An edit reaches the output.
    (root / "fragments/tone.md").write_text("Tono: seco.\n")
    assert make.builds()
    assert "Tono: seco." in agent.read_text()


def test_make_recipe_follows_added_and_removed_files(make: Make) -> None:
    root = make.root
    assert make.builds()
    (root / "specs/agents/helper.md").write_text(AGENT)
    assert make.builds()
    helper = root / "build/opencode/.opencode/agents/helper.md"
    assert helper.is_file()
    assert not make.builds()
    # Removing a file that the depfile lists must not break make ("No rule to make target").
    (root / "specs/agents/helper.md").unlink()
    assert make.builds()
    assert not helper.exists()
    assert "helper" not in (root / "build/.promptc.d").read_text()
    assert not make.builds()


def test_make_recipe_retries_a_failed_build(make: Make) -> None:
    root = make.root
    assert make.builds()
    stamp = root / "build/.promptc.stamp"
    stamped = stamp.stat().st_mtime_ns
    (root / SCOUT).write_text(BAD_MODE)
    failed = make()
    assert failed.returncode == 2
    assert "specs/agents/scout.md:3:7: error [schema]" in failed.stdout
    assert stamp.stat().st_mtime_ns == stamped
    assert not make.up_to_date()
    (root / SCOUT).write_text(AGENT)
    assert make.builds()
    assert make.up_to_date()


@pytest.mark.parametrize("name", ["with space.md", "hash#.md", "dollar$.md", "colon:.md"])
def test_depfile_names_are_read_back_by_make(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("x")
    (tmp_path / "stamp").write_text("")
    (tmp_path / "deps.d").write_text(depfile.render("stamp", [name]))
    (tmp_path / "Makefile").write_text("stamp: ; touch $@\n-include deps.d\n")
    env = environment(tmp_path / "home")
    ago(tmp_path / name, seconds=20)
    ago(tmp_path / "stamp", seconds=10)
    assert sh("make", "-q", "stamp", cwd=tmp_path, env=env).returncode == 0
    ago(tmp_path / name, seconds=5)
    assert sh("make", "-q", "stamp", cwd=tmp_path, env=env).returncode == 1
    ago(tmp_path / name, seconds=20)
    assert sh("make", "-q", "stamp", cwd=tmp_path, env=env).returncode == 0
    (tmp_path / name).unlink()  # the empty rule: a deleted input means "rebuild", not an error
    done = sh("make", "-q", "stamp", cwd=tmp_path, env=env)
    assert (done.returncode, done.stderr) == (1, "")


def ago(path: Path, seconds: int) -> None:
    when = time.time_ns() - seconds * 1_000_000_000
    os.utime(path, ns=(when, when))


def test_depfile_refuses_names_make_cannot_hold() -> None:
    with pytest.raises(depfile.DepfileError, match="tab or line break"):
        depfile.escape("a\nb.md")


@pytest.mark.usefixtures("sample")
def test_depfile_without_stamp_targets_itself(run: Runner) -> None:
    assert run("build", "--depfile", "deps.d").code == 0
    assert Path("deps.d").read_text().startswith("deps.d: \\\n  promptc.toml \\\n")


def test_depfile_and_stamp_only_after_success(
    make_bundle: Callable[[dict[str, str | bytes]], Path], run: Runner
) -> None:
    short = AGENT.replace("Explores the codebase read-only and reports findings.", "Explorer")
    make_bundle({"promptc.toml": "", SCOUT: short})
    args = ("build", "--stamp", "s", "--depfile", "d")
    assert run(*args, "--strict").code == 1  # a warning under --strict is a failure
    assert not Path("s").exists()
    assert not Path("d").exists()
    assert run(*args).code == 0
    assert Path("s").exists()
    assert Path("d").exists()
    Path(SCOUT).write_text(BAD_MODE)
    before = Path("s").stat().st_mtime_ns
    assert run(*args).code == 1
    assert Path("s").stat().st_mtime_ns == before


@pytest.mark.usefixtures("sample")
def test_depfile_usage_and_write_errors(run: Runner) -> None:
    wrong = run("build", "--check", "--depfile", "d")
    assert wrong.code == 2
    assert "--check writes nothing" in wrong.err
    Path("folder").mkdir()
    assert run("build", "--depfile", "folder").code == 2
    Path("file").write_text("")
    failed = run("build", "--stamp", "file/stamp")
    assert failed.code == 1
    assert failed.out == (
        "file/stamp:1:1: error [write] cannot write the stamp: File exists (file)\n"
    )


# --- pre-commit ---------------------------------------------------------------


def git(*args: str, cwd: Path, env: dict[str, str]) -> str:
    done = sh("git", *args, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("pre-commit")
    return environment(base / "home", PRE_COMMIT_HOME=str(base / "cache"))


@pytest.fixture(scope="module")
def promptc_repo(tmp_path_factory: pytest.TempPathFactory, hook_env: dict[str, str]) -> str:
    """This source tree, committed to a scratch git repository (pre-commit clones a commit)."""
    repo = tmp_path_factory.mktemp("promptc-src")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("compiler", "schemas"):
        shutil.copytree(ROOT / folder, repo / folder, ignore=ignore)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, repo / name)
    git("init", "-q", cwd=repo, env=hook_env)
    git("add", "-A", cwd=repo, env=hook_env)
    git("commit", "-q", "-m", "promptc", cwd=repo, env=hook_env)
    return str(repo)


def bundle_repo(root: Path, env: dict[str, str]) -> Path:
    write_bundle(root)
    assert sh("promptc", "build", cwd=root, env=env).returncode == 0
    (root / "notes.txt").write_text("not part of the bundle\n")
    git("init", "-q", cwd=root, env=env)
    git("add", "-A", cwd=root, env=env)
    git("commit", "-q", "-m", "bundle", cwd=root, env=env)
    return root


def break_bundle(root: Path, env: dict[str, str]) -> None:
    (root / SCOUT).write_text(BAD_MODE.replace("# Scout", "<<tone>>\n\n# Scout"))
    git("add", "-A", cwd=root, env=env)


def pre_commit(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return sh(sys.executable, "-m", "pre_commit", *args, cwd=cwd, env=env)


def test_pre_commit_recipe(tmp_path: Path, hook_env: dict[str, str], promptc_repo: str) -> None:
    """The first recipe works before any release: the hook repository at a commit."""
    root = bundle_repo(tmp_path / "bundle", hook_env)
    config = yaml.safe_load(recipe("pre-commit"))
    [entry] = config["repos"]
    assert [hook["id"] for hook in entry["hooks"]] == ["promptc-check"]
    assert (entry["repo"], entry["rev"]) == ("<promptc's git URL>", "<a commit SHA of it>")
    # What this test changes: the placeholders, for this source tree's commit,
    # and the repository's other hook beside it (one installation serves both).
    entry["repo"] = promptc_repo
    entry["rev"] = git("rev-parse", "HEAD", cwd=Path(promptc_repo), env=hook_env)
    entry["hooks"].append({"id": "promptc-lint"})
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    clean = pre_commit("run", "--all-files", cwd=root, env=hook_env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"^promptc check\.+Passed$", clean.stdout, re.M)
    assert re.search(r"^promptc lint\.+Passed$", clean.stdout, re.M)
    # A change outside the bundle runs no hook.
    others = pre_commit("run", "--files", "notes.txt", cwd=root, env=hook_env)
    assert others.returncode == 0
    assert "(no files to check)Skipped" in others.stdout
    break_bundle(root, hook_env)
    broken = pre_commit("run", cwd=root, env=hook_env)  # the staged change, as on commit
    assert broken.returncode == 1
    assert re.search(r"^promptc check\.+Failed$", broken.stdout, re.M)
    assert re.search(r"^promptc lint\.+Failed$", broken.stdout, re.M)
    assert "specs/agents/scout.md:3:7: error [schema]" in broken.stdout


def test_the_pypi_pre_commit_recipe_pins_the_release_and_says_when_it_works() -> None:
    """Not run: it installs from PyPI, where the release appears only after publishing."""
    config = yaml.safe_load(recipe("pre-commit-pypi"))
    [entry] = config["repos"]
    [hook] = entry["hooks"]
    assert (entry["repo"], hook["id"], hook["language"]) == ("local", "promptc-check", "python")
    assert hook["additional_dependencies"] == [RELEASE]
    shared = ("entry", "pass_filenames", "require_serial", "files")
    assert {key: hook[key] for key in shared} == {
        key: HOOKS["promptc-check"][key] for key in shared
    }
    text = " ".join(RECIPES.read_text(encoding="utf-8").split())
    assert f"After the first release is on PyPI (`{RELEASE}`" in text


def test_the_hook_repository_recipe_names_the_release_tag() -> None:
    text = " ".join(RECIPES.read_text(encoding="utf-8").split())
    assert f"`rev:` a release tag such as `v{__version__}`" in text
    ids = re.findall(
        r"the hook ids `([a-z-]+)` \(specs, fragments and config\) and `([a-z-]+)`", text
    )
    assert ids == [tuple(HOOKS)]


def test_system_pre_commit_recipe(tmp_path: Path, hook_env: dict[str, str]) -> None:
    root = bundle_repo(tmp_path / "bundle", hook_env)
    (root / ".pre-commit-config.yaml").write_text(recipe("pre-commit-system"))
    clean = pre_commit("run", "--all-files", cwd=root, env=hook_env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"^promptc check\.+Passed$", clean.stdout, re.M)
    (root / "build/opencode/.opencode/agents/scout.md").write_text("edited by hand\n")
    git("add", "-A", cwd=root, env=hook_env)
    stale = pre_commit("run", cwd=root, env=hook_env)
    assert stale.returncode == 1
    assert "generated file was edited by hand" in stale.stdout


def test_repository_pre_commit_config(tmp_path: Path, hook_env: dict[str, str]) -> None:
    """This repository's own hooks pass on its own tree (a copy, so nothing here changes)."""
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("compiler", "specs", "fragments", "schemas", "build"):
        if (ROOT / folder).is_dir():
            shutil.copytree(ROOT / folder, copy / folder, ignore=ignore)
    for name in ("pyproject.toml", ".pre-commit-config.yaml"):
        shutil.copy2(ROOT / name, copy / name)
    (copy / ".venv").symlink_to(BIN.parent)
    git("init", "-q", cwd=copy, env=hook_env)
    git("add", "-A", cwd=copy, env=hook_env)
    done = pre_commit("run", "--all-files", cwd=copy, env=hook_env)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in (
        "ruff check",
        "ruff format",
        "promptc lint",
        r"promptc check \(build/ is up to date\)",
    ):
        assert re.search(rf"^{name}\.+Passed$", done.stdout, re.M), name


HOOKS = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}

MATCHES = [
    ("specs/agents/scout.md", True, True),
    ("specs/modes/build.md", True, True),
    ("fragments/flow/build/plan.md", True, True),
    ("promptc.toml", True, True),
    ("pyproject.toml", True, True),
    ("prompts/specs/agents/scout.md", True, True),  # a bundle in a subfolder
    ("prompts/promptc.toml", True, True),
    (".opencode/agents/scout.md", True, True),
    (".claude/agents/scout.md", True, True),
    (".opencode/commands/build.md", False, True),
    (".claude/settings.json", False, True),
    ("build/opencode/.opencode/agents/scout.md", True, True),  # lint runs needlessly: harmless
    ("README.md", False, False),
    ("src/specs.py", False, False),
    ("docs/promptc.toml.md", False, False),
]


@pytest.mark.parametrize(("path", "lint", "check"), MATCHES)
def test_hook_file_patterns(path: str, lint: bool, check: bool) -> None:
    # pre-commit matches `files` with re.search on the repository-relative path.
    assert bool(re.search(HOOKS["promptc-lint"]["files"], path)) == lint
    assert bool(re.search(HOOKS["promptc-check"]["files"], path)) == check


def test_hook_manifest_is_valid(tmp_path: Path) -> None:
    env = environment(tmp_path / "home")
    done = pre_commit("validate-manifest", str(ROOT / ".pre-commit-hooks.yaml"), cwd=ROOT, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    for hook in HOOKS.values():
        assert (hook["language"], hook["pass_filenames"], hook["require_serial"]) == (
            "python",
            False,
            True,
        )
    assert HOOKS["promptc-lint"]["entry"] == "promptc lint"
    assert HOOKS["promptc-check"]["entry"] == "promptc check"


# --- GitHub Actions -------------------------------------------------------------


@cache
def workflow_validator() -> Any:
    schema = json.loads((SCHEMAS / "github-workflows.json").read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(schema)


@cache
def sarif_validator() -> Any:
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


def load_workflow(text: str) -> dict[str, Any]:
    workflow: dict[Any, Any] = yaml.safe_load(text)
    if True in workflow:  # YAML 1.1 reads the key `on` as a boolean
        workflow["on"] = workflow.pop(True)
    workflow_validator().validate(workflow)
    return workflow


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    [job] = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    result: list[dict[str, Any]] = job["steps"]
    return result


def test_workflow_oracle_can_fail() -> None:
    assert not workflow_validator().is_valid({"on": "push", "jobs": {"x": {"steps": []}}})


def test_repository_workflow(tmp_path: Path) -> None:
    workflow = load_workflow((ROOT / ".github/workflows/ci.yml").read_text())
    found = steps(workflow)
    runs = [step.get("run") for step in found]
    assert "make test" in runs
    sarif_step = next(s for s in found if "--format sarif" in s.get("run", ""))
    assert sarif_step["run"] == ".venv/bin/promptc lint --format sarif > promptc.sarif"
    assert runs.index("make test") < found.index(sarif_step)
    upload = found[-1]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "promptc.sarif"
    # Run the SARIF step on a copy of this repository's bundle (promptc refuses symlinks).
    for folder in ("specs", "fragments", "build"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / ".venv").symlink_to(BIN.parent)
    done = bash(sarif_step["run"], tmp_path, environment(tmp_path / "home", CI="true"))
    assert done.returncode == 0, done.stderr
    sarif_validator().validate(json.loads((tmp_path / "promptc.sarif").read_text()))


def bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # The shell GitHub runs `run:` steps with on Linux.
    return sh("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script, cwd=cwd, env=env)


def should_run(condition: str | None, failed: bool, cwd: Path) -> bool:
    """The few `if:` expressions the recipe uses; anything else fails the test."""
    if condition is None:
        return not failed
    body = condition.strip().removeprefix("${{").removesuffix("}}")
    verdict = True
    for term in (t.strip() for t in body.split("&&")):
        if term == "!cancelled()":
            continue
        hashed = re.fullmatch(r"hashFiles\('([^']+)'\) != ''", term)
        assert hashed, f"expression the test cannot evaluate: {term}"
        verdict = verdict and (cwd / hashed.group(1)).is_file()
    return verdict


def run_workflow(
    workflow: dict[str, Any], cwd: Path, env: dict[str, str]
) -> Iterator[tuple[str, str, str]]:
    """Run a one-job workflow's steps in order: (step, outcome, output) for each."""
    failed = False
    for step in steps(workflow):
        name = step.get("name") or step.get("uses") or step["run"]
        if not should_run(step.get("if"), failed, cwd):
            yield name, "skipped", ""
            continue
        if "uses" in step:
            ok, output = uses(step, cwd)
        elif name == "Install promptc":
            # The release on PyPI; here this test's own installation stands for it.
            assert step["run"] == f'python -m pip install "{RELEASE}"'
            ok, output = True, ""
        else:
            done = bash(step["run"], cwd, env)
            ok, output = done.returncode == 0, done.stdout + done.stderr
        failed = failed or not ok
        yield name, "success" if ok else "failure", output


def uses(step: dict[str, Any], cwd: Path) -> tuple[bool, str]:
    action = step["uses"].split("@")[0]
    if action in ("actions/checkout", "actions/setup-python"):
        return True, ""  # the bundle is the checkout; this Python has promptc
    assert action == "github/codeql-action/upload-sarif", action
    log = json.loads((cwd / step["with"]["sarif_file"]).read_text())
    sarif_validator().validate(log)
    return True, json.dumps(log["runs"][0]["results"])


def test_workflow_recipe(tmp_path: Path) -> None:
    workflow = load_workflow(recipe("github-actions"))
    env = environment(tmp_path / "home", GITHUB_ACTIONS="true", CI="true")
    root = write_bundle(tmp_path / "bundle")
    assert sh("promptc", "build", cwd=root, env=env).returncode == 0
    clean = list(run_workflow(workflow, root, env))
    assert [outcome for _, outcome, _ in clean] == ["success"] * len(clean)
    assert clean[-1][2] == "[]"  # no results uploaded

    (root / SCOUT).write_text(BAD_MODE.replace("# Scout", "<<tone>>\n\n# Scout"))
    broken = {
        name: (outcome, output) for name, outcome, output in run_workflow(workflow, root, env)
    }
    outcome, output = broken["promptc check"]
    assert outcome == "failure"
    assert output.startswith(
        "::error file=specs/agents/scout.md,line=3,col=7,title=promptc [schema]::$.mode: 'sidekick'"
    )
    assert broken["promptc lint as SARIF"][0] == "failure"  # exit 1, the log still written
    outcome, output = broken["Upload SARIF"]
    assert outcome == "success"
    [result] = json.loads(output)
    assert (result["ruleId"], result["locations"][0]["physicalLocation"]["region"]) == (
        "schema",
        {"startLine": 3, "startColumn": 7},
    )

"""README.md and docs/ cannot drift from what promptc does.

- Every `console` block is run: each `$ ` line is a shell command, the lines
  below it what it prints (stdout and stderr as a terminal shows them; a line
  `...` stands for any number of lines). A page runs its blocks in order in a
  copy of this repository's bundle, or, when it holds the comment
  `<!-- console: scratch -->`, in an empty folder of its own (a `cd` carries
  over to the next command), where `<!-- file: PATH -->` before a fenced block
  writes that block to PATH first. A plain `promptc ...` line, one that needs
  no shell, runs in this process (the command's own entry point, `main`);
  every other line, `promptc` with a pipe, a redirection or `$?` among them,
  runs in bash.
- A shell example never shows output outside a `console` block: no fence right
  after a `sh` block, no `$ ` prompt inside one.
- A block after `<!-- same as: PATH -->` is that file of the repository, byte
  for byte.
- A table row that names a rule and a level names the rule's default level.
- The README's links lead to files that exist.
- Every TOML example is a valid config (or part of one): known keys, targets
  with their own options, rules that exist.
- The generated parts of the reference (the rule list, the config keys) equal
  what tests/docs_pages.py generates from the registry and the schema.
- The options table of the command line reference names every option.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import click
import jsonschema
import pytest
from click.testing import CliRunner

from promptc_compiler import __version__, rules
from promptc_compiler.cli.main import cli, main
from promptc_compiler.core.resources import load_schema
from promptc_compiler.runtimes import TARGETS, options_schema
from tests import docs_pages

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
# The pages at the repository's root, beside README.md: their links are checked too.
ROOT_PAGES = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")
PAGES = [*(ROOT / name for name in ROOT_PAGES), *sorted((ROOT / "docs").rglob("*.md"))]
BIN = Path(sys.executable).parent
FENCE = re.compile(
    r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)
FILE_MARK = re.compile(r"<!-- file: (?P<path>\S+) -->\n*$")
SAME_MARK = re.compile(r"<!-- same as: (?P<path>\S+) -->\n(?P<fence>```)")


@dataclass
class Block:
    page: Path
    line: int
    info: str
    body: str
    file: str | None  # the <!-- file: PATH --> it follows
    start: int  # offsets of its opening fence and just past its closing one
    end: int


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        indent = len(match["indent"])
        body = "".join(ln[indent:] for ln in match["body"].splitlines(True))
        mark = FILE_MARK.search(text, 0, match.start())
        file = mark["path"] if mark and mark.end() == match.start() else None
        line = text.count("\n", 0, match.start()) + 1
        found.append(
            Block(page, line, match["info"].strip(), body, file, match.start(), match.end())
        )
    return found


@dataclass
class Step:
    command: str
    expected: list[str] = field(default_factory=list)


def steps(block: Block) -> Iterator[Step]:
    step: Step | None = None
    for line in block.body.splitlines():
        if line.startswith("$ "):
            if step:
                yield step
            step = Step(line[2:])
        else:
            assert step is not None, f"{block.page}:{block.line}: output before the first `$ `"
            step.expected.append(line)
    if step:
        yield step


def matches(expected: list[str], actual: list[str]) -> bool:
    """`...` alone on a line matches any number of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def environment(home: Path) -> dict[str, str | None]:
    """The variables a command runs with, each one set to None taken away."""
    env: dict[str, str | None] = dict(os.environ)
    for name in env:
        if name.startswith(("GITHUB_", "PROMPTC_")) or name == "NO_COLOR":
            env[name] = None
    env |= {"HOME": str(home), "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "COLUMNS": "80"}
    return env


# What a shell reads even inside double quotes, and what it reads outside quotes:
# `$?` and variables, pipes, redirections, `;` and `&&`, globs, comments.
EXPANDED = re.compile(r"[$`\\]")
SHELL_SYNTAX = re.compile(r"[|&;<>()*?\[\]{}~!#]")
QUOTED = re.compile(r""""[^"]*"|'[^']*'""")


def plain_promptc(command: str) -> list[str] | None:
    """The arguments of a `promptc` command that needs no shell; None for any other."""
    if EXPANDED.search(command) or SHELL_SYNTAX.search(QUOTED.sub("", command)):
        return None
    words = shlex.split(command)
    return words[1:] if words[0] == "promptc" else None


def run_in_process(args: list[str], cwd: Path, env: dict[str, str | None]) -> str:
    """What `promptc ARGS` prints, stdout and stderr in the order written, as a
    terminal 80 columns wide shows them (click's test runner mixes the two)."""
    with contextlib.chdir(cwd), CliRunner().isolation(env=env) as (_, _, output):
        # The runner fixes help at 80 columns; a terminal's COLUMNS=80 gives 78.
        click.formatting.FORCED_WIDTH = None  # put back by the runner
        main(args)
        sys.stdout.flush()  # click.echo flushes; print() may not
        sys.stderr.flush()
    return output.getvalue().decode("utf-8")


def run_in_bash(command: str, cwd: Path, env: dict[str, str | None]) -> str:
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env={k: v for k, v in env.items() if v is not None},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    return done.stdout


def repository_copy(where: Path) -> Path:
    """The repository's bundle, copied, so that examples never write into this tree."""
    for folder in ("specs", "fragments", "build"):
        shutil.copytree(ROOT / folder, where / folder)
    shutil.copy2(ROOT / "pyproject.toml", where / "pyproject.toml")
    return where


def run_page(page: Path, where: Path) -> list[str]:
    """Run a page's console blocks; one message per command whose output differs."""
    found = blocks(page)
    if not any(block.info == "console" for block in found):
        return []
    scratch = "<!-- console: scratch -->" in page.read_text(encoding="utf-8")
    cwd = where / "bundle"
    if scratch:
        cwd.mkdir()
    else:
        repository_copy(cwd)
    env = environment(where / "home")
    (where / "home").mkdir()
    failures = []
    for block in found:
        if block.file and scratch:
            target = cwd / block.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
        if block.info != "console":
            continue
        for step in steps(block):
            # `cd` alone on its line carries over; inside a longer command it would not.
            assert not re.search(r"[;&|] *cd ", step.command), f"{page}: `cd` on its own line"
            if step.command.startswith("cd "):
                cwd = (cwd / step.command[3:].strip()).resolve()
                continue
            args = plain_promptc(step.command)
            if args is None:
                printed = run_in_bash(step.command, cwd, env)
            else:
                printed = run_in_process(args, cwd, env)
            actual = printed.rstrip("\n").split("\n") if printed else []
            if not matches(step.expected, actual):
                failures.append(f"{page.name}:{block.line}: `{step.command}` printed:\n" + printed)
    return failures


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_console_example_prints_what_the_page_shows(page: Path, tmp_path: Path) -> None:
    failures = run_page(page, tmp_path)
    assert not failures, "\n".join(failures)


def test_a_stale_example_fails(tmp_path: Path) -> None:
    """The stale `can` example the README once held would now fail."""
    page = tmp_path / "page.md"
    page.write_text(
        '```console\n$ promptc can craftsman bash "git push origin main"\n'
        'deny  craftsman  bash "git push origin main"\n'
        'specs/agents/craftsman.md:14:7: bash "git push*": deny\n```\n'
    )
    (tmp_path / "run").mkdir()
    [failure] = run_page(page, tmp_path / "run")
    assert 'printed:\nask  craftsman  bash "git push origin main"\n' in failure


def test_only_a_promptc_command_without_shell_syntax_runs_in_process() -> None:
    quoted = 'promptc can scout bash "git diff | sh"'  # the pipe is the input's
    assert plain_promptc(quoted) == ["can", "scout", "bash", "git diff | sh"]
    assert plain_promptc("promptc lint --format json") == ["lint", "--format", "json"]
    assert plain_promptc("promptc lint --format sarif > promptc.sarif") is None
    assert plain_promptc('promptc check --quiet; echo "exit $?"') is None
    assert plain_promptc('promptc can lead bash "echo $HOME"') is None
    assert plain_promptc("promptc lint specs/*.md") is None
    assert plain_promptc("python ci.py") is None


def test_the_ellipsis_matches_any_lines() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert not matches(["a"], ["a", "b"])


def shell_output(page: Path) -> list[str]:
    """Shell examples that show output outside a console block."""
    found = blocks(page)
    text = page.read_text(encoding="utf-8")
    problems = []
    for index, block in enumerate(found):
        after = found[index + 1] if index + 1 < len(found) else None
        if block.info not in ("sh", "bash", "shell"):
            continue
        if re.search(r"^\$ ", block.body, re.M):
            problems.append(f"{page.name}:{block.line}: a `$ ` prompt: use ```console")
        if after is not None and not text[block.end : after.start].strip():
            problems.append(f"{page.name}:{block.line}: output right after: use ```console")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_shell_examples_show_output_only_in_console_blocks(page: Path) -> None:
    assert shell_output(page) == []


def test_output_shown_after_a_sh_block_is_noticed(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\npromptc graph\n```\n```\nlead (primary)\n```\n\n```sh\n$ promptc rules\n```\n"
    )
    assert shell_output(page) == [
        "page.md:1: output right after: use ```console",
        "page.md:8: a `$ ` prompt: use ```console",
    ]


def test_the_readme_is_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("name", list(docs_pages.GENERATED))
def test_generated_reference_is_fresh(name: str) -> None:
    page, _ = docs_pages.GENERATED[name]
    text = (ROOT / page).read_text(encoding="utf-8")
    assert docs_pages.regenerate(text, name) == text, (
        f"{page} is stale: run `python -m tests.docs_pages` (or `make docs`)"
    )


def test_a_stale_generated_block_is_noticed() -> None:
    page, _ = docs_pages.GENERATED["rules"]
    text = (ROOT / page).read_text(encoding="utf-8")
    stale = text.replace("| error |", "| warning |", 1)
    assert docs_pages.regenerate(stale, "rules") != stale


def cli_options(command: str) -> set[str]:
    group = click.Context(cli)
    found = cli.get_command(group, command)
    assert found is not None
    return {
        max(param.opts, key=len)
        for param in found.params
        if isinstance(param, click.Option) and param.name != "help"
    }


def test_the_cli_reference_lists_every_option_of_lint_build_and_check() -> None:
    text = (ROOT / "docs/reference/cli.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(--[a-z-]+)", text, re.M))
    every = cli_options("lint") | cli_options("build") | cli_options("check")
    assert listed == every


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_block_marked_same_as_a_file_is_that_file(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    starts = {block.start: block for block in blocks(page)}
    for mark in SAME_MARK.finditer(text):
        block = starts[mark.start("fence")]
        assert block.body == (ROOT / mark["path"]).read_text(encoding="utf-8"), mark["path"]


def test_every_rule_in_a_table_has_its_default_level() -> None:
    rows = 0
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for rule_id, level in re.findall(
            r"^\| \[?`([a-z-]+)`(?:\]\([^)]*\))? \| (\w+)", text, re.M
        ):
            if rule_id in rules.RULES:
                rows += 1
                assert level == rules.RULES[rule_id].DEFAULT_LEVEL, f"{page.name}: {rule_id}"
    assert rows > len(rules.RULES)  # the reference's table and the guides'


@pytest.mark.parametrize("name", ROOT_PAGES)
def test_the_links_of_a_root_page_lead_to_files(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?!https?:)[^)#]+)(?:#[^)]*)?\)", text)
    assert links
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert missing == []


def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))


def test_contributing_names_only_make_targets_that_exist() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = {word for run in re.findall(r"`make((?: [a-z-]+)*)`", text) for word in run.split()}
    assert {"test", "conformance", "npm"} <= named
    assert named - make_targets() == set()


def test_the_changelog_keeps_unreleased_above_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\]", text, re.M)
    assert versions[:2] == ["Unreleased", __version__]
    # Keep a Changelog's kinds of change, and no others.
    kinds = set(re.findall(r"^### (.+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


CONFIG_KEYS = {*load_schema("config")["properties"], "tool"}


def toml_examples() -> Iterator[tuple[str, str]]:
    """TOML blocks that hold a promptc config: another tool's (Codex's config.toml) are left out."""
    for page in PAGES:
        for block in blocks(page):
            if block.info == "toml" and set(tomllib.loads(block.body)) & CONFIG_KEYS:
                yield f"{page.relative_to(ROOT).as_posix()}:{block.line}", block.body


@pytest.mark.parametrize("body", [pytest.param(body, id=where) for where, body in toml_examples()])
def test_every_toml_example_is_a_valid_config(body: str) -> None:
    data = tomllib.loads(body)
    table = data["tool"]["promptc"] if "tool" in data else data
    jsonschema.validate(table, load_schema("config"))
    for name, options in table.get("targets", {}).items():
        jsonschema.validate(options, options_schema(TARGETS[name]))
    assert set(table.get("rules", {})) <= set(rules.RULES)

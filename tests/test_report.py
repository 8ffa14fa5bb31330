"""Reporters and the options every checking command shares.

Each machine format is checked by an outside oracle: SARIF against the SARIF
2.1.0 schema (tests/schemas/, see its README), json against
schemas/report.schema.json, github lines parsed back the way the Actions
runner reads workflow commands.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from promptc_compiler import __version__
from promptc_compiler import rules as registry
from promptc_compiler.base.diagnostics import Diagnostic, Severity
from promptc_compiler.cli import report
from tests.conftest import AGENT, MakeBundle, Run

Runner = Callable[..., Run]

HERE = Path(__file__).resolve().parent
SHORT = AGENT.replace("Explores the codebase read-only and reports findings.", "Explorer")
BAD_MODE = AGENT.replace("mode: subagent", "mode: sidekick")


@cache
def sarif_validator() -> Any:
    schema = json.loads((HERE / "schemas/sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@cache
def json_validator() -> Any:
    schema = json.loads((HERE.parent / "schemas/report.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


# --- github: parse workflow commands back, as the Actions runner does --------

_COMMAND = re.compile(r"^::(?P<name>[a-z]+)(?: (?P<props>[^:]*))?::(?P<data>.*)$")


def _unescape(value: str, property_value: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")]
    if property_value:
        pairs += [("%3A", ":"), ("%2C", ",")]
    for escaped, plain in [*pairs, ("%25", "%")]:
        value = value.replace(escaped, plain)
    return value


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    match = _COMMAND.match(line)
    assert match, f"not a workflow command: {line!r}"
    props: dict[str, str] = {}
    for item in filter(None, (match["props"] or "").split(",")):
        key, _, value = item.partition("=")
        props[key] = _unescape(value, property_value=True)
    return match["name"], props, _unescape(match["data"], property_value=False)


TRICKY = [
    Diagnostic("specs/agents/scout.md", 3, 7, "schema", Severity.ERROR, "plain message"),
    Diagnostic("a,b:c.md", 1, 1, "syntax", Severity.WARNING, "100% sure:: a,b\r\nnext %0A"),
    Diagnostic("d.md", 9, 2, "empty-body", Severity.INFO, "msg", hint="add text: more"),
]


def test_github_line_format() -> None:
    [line] = report.github([TRICKY[0]])
    assert line == (
        "::error file=specs/agents/scout.md,line=3,col=7,title=promptc [schema]::plain message"
    )


@pytest.mark.parametrize("diagnostic", TRICKY, ids=["plain", "escapes", "hint"])
def test_github_lines_parse_back(diagnostic: Diagnostic) -> None:
    [line] = report.github([diagnostic])
    assert "\n" not in line
    assert "\r" not in line
    name, props, data = parse_command(line)
    expected = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    assert name == expected[diagnostic.severity]
    assert props == {
        "file": diagnostic.path,
        "line": str(diagnostic.line),
        "col": str(diagnostic.column),
        "title": f"promptc [{diagnostic.rule}]",
    }
    message = diagnostic.message + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
    assert data == message


def test_github_is_chosen_under_github_actions(
    make_bundle: MakeBundle, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_bundle({"specs/agents/scout.md": BAD_MODE})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = run("lint")
    assert result.code == 1
    [line] = result.out.splitlines()
    name, props, data = parse_command(line)
    assert (name, props["file"], props["line"], props["col"]) == (
        "error",
        "specs/agents/scout.md",
        "3",
        "7",
    )
    assert data.startswith("$.mode: 'sidekick' is not one of")
    assert run("lint", "--format", "text").out.startswith("specs/agents/scout.md:3:7: error")
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert run("lint").out.startswith("specs/agents/scout.md:3:7: error")


# --- sarif ------------------------------------------------------------------


@pytest.mark.usefixtures("sample")
def test_sarif_of_clean_bundle_is_valid(run: Runner) -> None:
    assert run("build").code == 0
    result = run("check", "--format", "sarif")
    assert result.code == 0, result.err
    log = json.loads(result.out)
    sarif_validator().validate(log)
    assert log["runs"][0]["results"] == []


@pytest.mark.usefixtures("sample")
def test_sarif_rules_carry_their_documentation(run: Runner) -> None:
    log = json.loads(run("lint", "--format", "sarif").out)
    driver = log["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("promptc", __version__)
    assert [rule["id"] for rule in driver["rules"]] == sorted(registry.RULES)
    for rule in driver["rules"]:
        module = registry.RULES[rule["id"]]
        assert rule["help"]["text"] == inspect.cleandoc(module.__doc__ or "")
        assert rule["shortDescription"]["text"] == registry.summary(module)
        full = rule["fullDescription"]["text"]
        assert full.startswith(registry.summary(module))
        assert "Fails:" not in full
        assert "Options:" not in full
        level = {"error": "error", "warning": "warning", "info": "note"}.get(module.DEFAULT_LEVEL)
        expected = {"level": level} if level else {"enabled": False}
        assert rule["defaultConfiguration"] == expected


def test_sarif_results_match_the_text_diagnostics(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": '[rules.description-length]\nlevel = "info"\n',
            "specs/agents/scout.md": BAD_MODE,
            "specs/agents/short.md": SHORT,
            "specs/agents/Code Reviewer.md": AGENT,
            "specs/agents/b.md": AGENT + "<<missing>>\n",
        }
    )
    text = [line for line in run("lint", "--verbose").out.splitlines() if not line.startswith(" ")]
    sarif = run("lint", "--format", "sarif")
    assert sarif.code == 1
    log = json.loads(sarif.out)
    sarif_validator().validate(log)
    run_ = log["runs"][0]
    assert run_["columnKind"] == "unicodeCodePoints"
    rules = run_["tool"]["driver"]["rules"]
    seen = []
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        region = physical["region"]
        seen.append(
            (
                physical["artifactLocation"]["uri"],
                region["startLine"],
                region["startColumn"],
                result["ruleId"],
                result["level"],
            )
        )
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert seen == [
        ("specs/agents/Code%20Reviewer.md", 1, 1, "agent-id", "error"),
        ("specs/agents/b.md", 11, 1, "compose", "error"),
        ("specs/agents/scout.md", 3, 7, "schema", "error"),
        ("specs/agents/short.md", 2, 14, "description-length", "note"),
    ]
    assert [f"{line.split(': ')[0]}" for line in text] == [
        "specs/agents/Code Reviewer.md:1:1",
        "specs/agents/b.md:11:1",
        "specs/agents/scout.md:3:7",
        "specs/agents/short.md:2:14",
    ]
    messages = [result["message"]["text"].split("\n")[0] for result in run_["results"]]
    assert messages == [line.split("] ", 1)[1] for line in text]


def test_sarif_keeps_hints_and_absolute_paths() -> None:
    [line] = report.sarif(
        [Diagnostic("/abs/x y.md", 2, 3, "syntax", Severity.ERROR, "m", hint="h")]
    )
    log = json.loads(line)
    sarif_validator().validate(log)
    [result] = log["runs"][0]["results"]
    assert result["message"]["text"] == "m\nhint: h"
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "file:///abs/x%20y.md"}


@pytest.mark.usefixtures("sample")
def test_the_sarif_oracle_can_fail() -> None:
    [line] = report.sarif([TRICKY[0]])
    log = json.loads(line)
    log["runs"][0]["results"][0]["level"] = "info"  # not a SARIF level
    assert not sarif_validator().is_valid(log)
    log["runs"][0]["results"][0]["level"] = "note"
    del log["version"]
    assert not sarif_validator().is_valid(log)


# --- json -------------------------------------------------------------------


def test_json_validates_against_its_schema(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({"specs/agents/scout.md": BAD_MODE, "specs/agents/short.md": SHORT})
    document = json.loads(run("lint", "--format", "json").out)
    json_validator().validate(document)
    assert document["summary"] == {"error": 1, "warning": 1, "info": 0}
    assert [(d["path"], d["rule"], d["fixable"]) for d in document["diagnostics"]] == [
        ("specs/agents/scout.md", "schema", False),
        ("specs/agents/short.md", "description-length", False),
    ]
    quiet = json.loads(run("lint", "--format", "json", "--quiet").out)
    json_validator().validate(quiet)
    assert quiet["summary"] == {"error": 1, "warning": 0, "info": 0}


def test_json_field_set_is_stable() -> None:
    [line] = report.as_json([TRICKY[2]])
    assert json.loads(line) == {
        "version": 1,
        "diagnostics": [
            {
                "path": "d.md",
                "line": 9,
                "column": 2,
                "rule": "empty-body",
                "severity": "info",
                "message": "msg",
                "hint": "add text: more",
                "fixable": False,
                "detail": None,
            }
        ],
        "summary": {"error": 0, "warning": 0, "info": 1},
    }


# --- common options ---------------------------------------------------------

COMMANDS = [("lint",), ("build",), ("check",)]


def _parse(fmt: str, out: str) -> list[tuple[str, int, int, str]]:
    """(path, line, column, rule) of every diagnostic, whatever the format."""
    if fmt == "text":
        found = re.findall(r"^(.+?):(\d+):(\d+): \w+ \[([a-z-]+)\]", out, re.M)
        return [(p, int(line), int(col), rule) for p, line, col, rule in found]
    if fmt == "json":
        items = json.loads(out)["diagnostics"]
        return [(d["path"], d["line"], d["column"], d["rule"]) for d in items]
    if fmt == "github":
        parsed = [parse_command(line)[1] for line in out.splitlines()]
        return [(p["file"], int(p["line"]), int(p["col"]), p["title"][9:-1]) for p in parsed]
    log = json.loads(out)
    sarif_validator().validate(log)
    return [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
            r["ruleId"],
        )
        for r in log["runs"][0]["results"]
    ]


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_command_speaks_every_format(
    make_bundle: MakeBundle, run: Runner, command: tuple[str, ...], fmt: str
) -> None:
    make_bundle({"specs/agents/scout.md": BAD_MODE, "specs/agents/short.md": SHORT})
    result = run(*command, "--format", fmt)
    assert result.code == 1
    assert _parse(fmt, result.out) == [
        ("specs/agents/scout.md", 3, 7, "schema"),
        ("specs/agents/short.md", 2, 14, "description-length"),
    ]
    quiet = run(*command, "--format", fmt, "--quiet")
    assert (quiet.code, quiet.err) == (1, "")
    assert _parse(fmt, quiet.out) == [("specs/agents/scout.md", 3, 7, "schema")]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_strict_fails_on_warnings_in_every_command(
    make_bundle: MakeBundle, run: Runner, command: tuple[str, ...]
) -> None:
    make_bundle({"specs/agents/short.md": SHORT})
    if command[0] == "check":
        assert run("build").code == 0
    assert run(*command).code == 0
    assert run(*command, "--strict").code == 1


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ((), {}, True),
        (("--no-color",), {}, False),
        ((), {"NO_COLOR": "1"}, False),
        ((), {"NO_COLOR": ""}, True),  # no-color.org: only a non-empty value counts
        (("--format", "github"), {}, False),
    ],
)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_colour_only_on_a_terminal_and_never_when_asked(
    make_bundle: MakeBundle,
    run: Runner,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    args: tuple[str, ...],
    env: dict[str, str],
    coloured: bool,
) -> None:
    make_bundle({"specs/agents/scout.md": BAD_MODE})
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    result = run(*command, *args)
    assert result.code == 1
    assert ("\033[" in result.out) == coloured
    plain = re.sub(r"\033\[[0-9;]*m", "", result.out)
    assert "specs/agents/scout.md" in plain


def test_no_colour_off_a_terminal(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({"specs/agents/scout.md": BAD_MODE})
    assert "\033[" not in run("lint").out


def test_documented_json_example_is_valid() -> None:
    page = (HERE.parent / "docs/reference/output.md").read_text(encoding="utf-8")
    # What `promptc lint --format json` printed there (tests/test_docs.py runs it).
    example = page.split("$ promptc lint --format json\n", 1)[1].split("```", 1)[0]
    document = json.loads(example)
    json_validator().validate(document)
    assert set(document["diagnostics"][0]) == set(
        json_validator().schema["properties"]["diagnostics"]["items"]["properties"]
    )


# --- the text format: no line longer than report.WIDTH ------------------------


def test_a_long_message_goes_on_with_one_sentence_per_line() -> None:
    # Several runtimes' findings, one sentence each (rule lossy-translation).
    sentences = [
        f"`temperature` has no {runtime} equivalent; the {runtime} agent leaves it out" + " x" * 20
        for runtime in ("Claude Code", "Codex", "Gemini CLI")
    ]
    long = Diagnostic("a.md", 3, 5, "lossy-translation", Severity.INFO, ". ".join(sentences))
    assert list(report.text([long])) == [
        f"a.md:3:5: info [lossy-translation] {sentences[0]}.",
        f"    {sentences[1]}.",
        f"    {sentences[2]}",
    ]
    short = Diagnostic("a.md", 1, 1, "schema", Severity.ERROR, "a; b. c")
    assert list(report.text([short])) == ["a.md:1:1: error [schema] a; b. c"]


def test_a_detail_is_printed_below_its_diagnostic_only_with_verbose() -> None:
    lost = Diagnostic(
        "a.md", 6, 1, "lost-tool", Severity.WARNING, "`a` loses read, shell",
        detail="Codex (codex): read, shell: ...\nGemini CLI (gemini): read: ...",
    )  # fmt: skip
    head = "a.md:6:1: warning [lost-tool] `a` loses read, shell"
    assert list(report.text([lost])) == [head]
    assert list(report.text([lost], verbose=True)) == [
        head,
        "    Codex (codex): read, shell: ...",
        "    Gemini CLI (gemini): read: ...",
    ]
    [document] = report.as_json([lost])
    assert json.loads(document)["diagnostics"][0]["detail"] == lost.detail


def test_a_long_sentence_goes_on_at_its_clauses_then_its_words() -> None:
    clauses = ["y" * 120, "(e.g. `a; b`. kept whole)", "z " * 150]
    long = Diagnostic("a.md", 1, 1, "schema", Severity.ERROR, "; ".join(clauses))
    lines = list(report.text([long]))
    assert lines[0] == f"a.md:1:1: error [schema] {clauses[0]}; {clauses[1]};"
    assert all(len(line) <= report.WIDTH for line in lines)
    assert all(line.startswith(("    z", "      z")) for line in lines[1:])
    # The words are all there, in order, only broken into lines.
    assert " ".join(line.strip() for line in lines).endswith(clauses[-1].strip())


def test_a_long_message_is_coloured_at_its_head_only() -> None:
    long = Diagnostic("a.md", 1, 1, "schema", Severity.ERROR, ". ".join(["y" * 150] * 2))
    first, second = report.text([long], color=True)
    assert re.sub(r"\033\[[0-9;]*m", "", first) == "a.md:1:1: error [schema] " + "y" * 150 + "."
    assert second == "    " + "y" * 150


@pytest.mark.parametrize(
    "root",
    [HERE / f"fixtures/{name}" for name in ("team", "hard", "permissions", "claude")],
    ids=lambda p: p.name,
)
def test_no_line_of_lint_verbose_is_over_the_width(
    root: Path, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The ndomo team once printed lines of ~900 characters, one Codex
    # sentence repeated; every path here is short, so no line is excused.
    monkeypatch.chdir(root)
    result = run("lint", "-v", "--no-cache", "--no-color")
    lines = [*result.out.splitlines(), *result.err.splitlines()]
    assert len(lines) > 1
    over = [line for line in lines if len(line) > report.WIDTH]
    assert not over, over[:3]


def test_an_absolute_path_does_not_count_against_the_width() -> None:
    # A scratch folder's path may run long: the line naming it stays whole,
    # while a pattern that looks like a path counts as text.
    path = "/tmp/" + "x" * 190 + "/build/.promptc.lock"
    message = f"cannot write the output: no space left on device ({path}); delete it"
    long = Diagnostic("build", 1, 1, "write", Severity.ERROR, message)
    assert list(report.text([long])) == [f"build:1:1: error [write] {message}"]
    pattern = Diagnostic("a.md", 1, 1, "x", Severity.INFO, '`"~/' + "n" * 200 + '/*"`; more')
    assert len(list(report.text([pattern]))) == 2

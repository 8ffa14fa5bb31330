"""Hostile placeholders: sandbox escapes, runaway arithmetic, deep nesting,
cycles, and paths that try to reach outside. Each ends in a `compose` error
(or, for text that is not a placeholder, passes through byte for byte): never
an exception, never code run, never a file read outside the project.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Severity
from promptc_compiler.core.config import load_config
from promptc_compiler.core.scan import MAX_CONSTRUCTS
from tests.conftest import AGENT, MakeBundle, finished

SECRET = "SECRET-MARKER"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A fragment-like file outside the bundle whose text must never be emitted."""
    path = tmp_path / "secret.md"
    path.write_text(f"{SECRET}\n")
    return path


def agent_with(body: str) -> str:
    return AGENT + body + "\n"


def compose_errors(result: api.Result) -> list[tuple[str, int]]:
    """(file, line) of each compose error. Columns are left to the engine: it may
    point at the placeholder or at the offending token inside it."""
    return [
        (d.path, d.line)
        for d in result.diagnostics
        if d.rule == "compose" and d.severity is Severity.ERROR
    ]


def build(make_bundle: MakeBundle, files: Mapping[str, str | bytes]) -> api.Result:
    root = make_bundle({"promptc.toml": "", **files})
    result = api.build(load_config(cwd=root))
    out = root / "build"
    emitted = "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert SECRET not in emitted
    assert not (root / "PWNED").exists()
    if not result.ok:
        assert not out.exists(), "nothing is written while an error exists"
    return result


# --- sandbox escapes and runaway evaluation ----------------------------------------

ESCAPES = {
    "class-mro": "<<''.__class__.__mro__[1].__subclasses__()>>",
    "lipsum-globals": "<<lipsum.__globals__['os'].system('touch PWNED')>>",
    "cycler-globals": "<<cycler.__init__.__globals__.os.system('touch PWNED')>>",
    "joiner-globals": "<<joiner.__init__.__globals__>>",
    "namespace-globals": "<<namespace.__init__.__globals__>>",
    "self-globals": "<<self.__init__.__globals__>>",
    "fragment-class": "<<tone.__class__.__base__.__subclasses__()>>",
    "target-format": "<<target.format.__globals__>>",
    "range-huge": "<<range(10**9)>>",
    "range-list": "<<range(10**9)|list|length>>",
    "lipsum-huge": "<<lipsum(n=10**9)>>",
    "dict-attr": "<<dict.__base__.__subclasses__()>>",
    "config": "<<config.items()>>",
}


@pytest.mark.parametrize("placeholder", list(ESCAPES.values()), ids=list(ESCAPES))
def test_sandbox_escape_is_a_compose_error(make_bundle: MakeBundle, placeholder: str) -> None:
    result = build(
        make_bundle,
        {
            "specs/agents/scout.md": agent_with(f"<<tone>>\n\n{placeholder}"),
            "fragments/tone.md": "Tono: directo.\n",
        },
    )
    # AGENT's lines, then `<<tone>>` and a blank line, then the placeholder.
    assert compose_errors(result) == [("specs/agents/scout.md", AGENT.count("\n") + 3)]


RUNAWAY = {
    "power-tower": "<<10**10**10>>",
    "giant-string": "<<'x' * 10**9>>",
    "giant-call": "<<tone(level='x' * 10**9)>>",
}


@pytest.mark.parametrize("placeholder", list(RUNAWAY.values()), ids=list(RUNAWAY))
def test_runaway_arithmetic_is_never_evaluated(make_bundle: MakeBundle, placeholder: str) -> None:
    """An error, or literal text: the expression is never computed.

    Run in a child process: an engine that evaluated it would never return, and
    the test must fail rather than hang. The timeout is a guard, not a measure.
    """
    root = make_bundle(
        {
            "promptc.toml": "",
            "specs/agents/scout.md": agent_with(f"<<tone>>\n{placeholder}"),
            "fragments/tone.md": "t\n",
        }
    )
    done = finished(root, "build", hung=f"{placeholder} was evaluated: the build did not finish")
    if done.returncode == 0:
        emitted = (root / "build/opencode/.opencode/agents/scout.md").read_text()
        assert emitted.endswith(f"{placeholder}\n")
    else:
        assert done.returncode == 1, done.stderr
        line = AGENT.count("\n") + 2  # AGENT, then `<<tone>>`, then the placeholder
        assert done.stdout.startswith(f"specs/agents/scout.md:{line}:"), done.stdout
        assert "error [compose]" in done.stdout


# --- nesting and cycles ---------------------------------------------------------------


def test_fragment_chain_1000_deep(make_bundle: MakeBundle) -> None:
    files: dict[str, str | bytes] = {"specs/agents/scout.md": agent_with("<<f0>>")}
    for i in range(1000):
        files[f"fragments/f{i}.md"] = f"<<f{i + 1}>>\n" if i < 999 else "end\n"
    result = build(make_bundle, files)
    assert not result.ok
    assert compose_errors(result)


def test_fragment_cycle(make_bundle: MakeBundle) -> None:
    result = build(
        make_bundle,
        {
            "specs/agents/scout.md": agent_with("<<a>>"),
            "fragments/a.md": "<<b>>\n",
            "fragments/b.md": "<<a>>\n",
        },
    )
    assert not result.ok
    assert any("a -> b -> a" in d.message for d in result.diagnostics if d.rule == "compose")


def test_a_thousand_placeholders_on_one_line(make_bundle: MakeBundle) -> None:
    result = build(
        make_bundle,
        {"specs/agents/scout.md": agent_with("<<tone>>" * 1000), "fragments/tone.md": "t\n"},
    )
    assert result.ok, result.diagnostics
    assert result.files["opencode/.opencode/agents/scout.md"].decode().endswith("t" * 1000 + "\n")


def test_constructs_past_the_budget_are_one_error(make_bundle: MakeBundle) -> None:
    # 10,000 constructs compose; the 10,001st is refused where it stands, once.
    at_budget = "<<tone>>\n" * (MAX_CONSTRUCTS - 2) + "<# note #><<tone>>\n"
    files = {"specs/agents/scout.md": agent_with(at_budget), "fragments/tone.md": "t\n"}
    assert build(make_bundle, files).ok
    shutil.rmtree("build")
    files["specs/agents/scout.md"] = agent_with(at_budget + "x <% if true %>\n<<tone>>\n" * 3)
    result = build(make_bundle, files)
    first = AGENT.count("\n") + 1
    assert [
        (d.line, d.column, d.rule) for d in result.diagnostics if d.severity.value == "error"
    ] == [(first + MAX_CONSTRUCTS - 1, 3, "compose")]
    assert "more than 10,000 placeholders, tags and comments" in result.diagnostics[0].message


def test_expression_nested_1000_deep(make_bundle: MakeBundle) -> None:
    # Not a placeholder under the `<<name(...)>>` grammar: an error, or literal text.
    placeholder = "<<" + "(" * 1000 + "tone" + ")" * 1000 + ">>"
    result = build(
        make_bundle,
        {"specs/agents/scout.md": agent_with(placeholder), "fragments/tone.md": "t\n"},
    )
    if result.ok:
        assert placeholder in result.files["opencode/.opencode/agents/scout.md"].decode()
    else:
        assert compose_errors(result) == [("specs/agents/scout.md", 10)]


HUGE = {
    "placeholder argument": ("<<tone(level=" + "9" * 5000 + ")>>", "a number of 5,000 digits"),
    "hex in a condition": ("<% if target == 0x" + "f" * 5000 + " %>x<% endif %>", "64 bits"),
    "decimal in a condition": ("<% if target == " + "9" * 5000 + " %>x<% endif %>", "64 bits"),
    "negative in a condition": ("<% if target == -0x" + "f" * 30 + " %>x<% endif %>", "64 bits"),
}


@pytest.mark.parametrize("text", HUGE.values(), ids=HUGE.keys())
def test_an_integer_too_large_for_python_is_a_compose_error(
    make_bundle: MakeBundle, text: tuple[str, str]
) -> None:
    """Python writes no integer of over 4,300 digits, nor reads one from decimal
    text; a hex one of 5,000 digits has no limit until it is written: each was
    an internal error in a placeholder or a condition."""
    body, words = text
    result = build(
        make_bundle,
        {"specs/agents/scout.md": agent_with(body), "fragments/tone.md": "t\n"},
    )
    assert compose_errors(result) == [("specs/agents/scout.md", 11)]
    assert words in next(d.message for d in result.diagnostics if d.rule == "compose")


PARAMS = "---\nparams:\n  level:\n    type: string\n---\n"


def test_calls_nested_1000_deep(make_bundle: MakeBundle) -> None:
    placeholder = "<<" + "tone(level=" * 1000 + '"x"' + ")" * 1000 + ">>"
    result = build(
        make_bundle,
        {
            "specs/agents/scout.md": agent_with(placeholder),
            "fragments/tone.md": PARAMS + "<<level>>\n",
        },
    )
    assert compose_errors(result) == [("specs/agents/scout.md", AGENT.count("\n") + 1)]


def test_cycle_through_parameters(make_bundle: MakeBundle) -> None:
    result = build(
        make_bundle,
        {
            "specs/agents/scout.md": agent_with('<<a(level="1")>>'),
            "fragments/a.md": PARAMS + "<<b(level=level)>>\n",
            "fragments/b.md": PARAMS + "<<a(level=level)>>\n",
        },
    )
    assert not result.ok
    assert any("a -> b -> a" in d.message for d in result.diagnostics if d.rule == "compose")


# --- reaching outside: never read, whatever the syntax -----------------------------

TRAVERSALS = [
    "<<../../secret>>",
    "<<../secret>>",
    "<</etc/passwd>>",
    "<<..>>",
    "<<fragments/../../secret>>",
    "<<secret.md>>",
    '<% include "../../secret.md" %>',
    "<% include '/etc/passwd' %>",
    '<% import "../../secret.md" as s %>',
    '<% extends "../../secret.md" %>',
]


@pytest.mark.parametrize("text", TRAVERSALS)
def test_paths_in_placeholders_never_read_outside(
    make_bundle: MakeBundle, secret: Path, text: str
) -> None:
    relative = Path("..") / secret.name  # the bundle sits beside the secret file
    line = text.replace("../../secret", str(relative.with_suffix("")))
    result = build(make_bundle, {"specs/agents/scout.md": agent_with(line)})
    if result.ok:  # not a placeholder: it must pass through byte for byte
        assert line in result.files["opencode/.opencode/agents/scout.md"].decode()
    else:
        assert compose_errors(result)


RUNTIME_SYNTAX = [
    '{% include "../secret.md" %}',
    "{{ ''.__class__.__mro__ }}",
    "${{ runner.os }}",
    "{# comment #}",
    "cat <<EOF",
    "cout << x << y;",
]


@pytest.mark.parametrize("text", RUNTIME_SYNTAX)
@pytest.mark.usefixtures("secret")
def test_runtime_syntax_passes_through_untouched(make_bundle: MakeBundle, text: str) -> None:
    result = build(make_bundle, {"specs/agents/scout.md": agent_with(text)})
    assert result.ok, result.diagnostics
    assert result.files["opencode/.opencode/agents/scout.md"].decode().endswith(f"{text}\n")

"""Composition: placeholders, parameters, per-target text, passthrough, errors, source maps."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jinja2.sandbox import ImmutableSandboxedEnvironment
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from promptc_compiler.core import compose as compose_module
from promptc_compiler.core import scan as scan_module
from promptc_compiler.core.bundle import Bundle, fragment_name, load_bundle
from promptc_compiler.core.compose import BodyLines, Composition, LineOrigin, Site, compose_bundle
from promptc_compiler.core.config import load_config
from promptc_compiler.core.loader import load_bytes
from promptc_compiler.runtimes import TARGET_NAMES
from tests.bundles import TEAM
from tests.conftest import MakeBundle, Run

HEAD = "---\ndescription: Test agent.\n---\n"  # the agent body starts on line 4
AGENT = Path("specs/agents/a.md")
Runner = Callable[..., Run]


def bundle(body: str, fragments: Mapping[str, str] = {}) -> Bundle:
    """An in-memory bundle: agent `a` with `body`, fragments by path under fragments/."""
    agent = load_bytes(AGENT, (HEAD + body).encode())
    loaded = {
        fragment_name(rel.removesuffix(".md")): load_bytes(Path("fragments", rel), text.encode())
        for rel, text in fragments.items()
    }
    return Bundle({"a": agent}, {}, loaded)


def compose(body: str, fragments: Mapping[str, str] = {}, target: str = "opencode") -> Composition:
    return compose_bundle(bundle(body, fragments), target, TARGET_NAMES, display=Path.as_posix)


def errors(composition: Composition) -> list[tuple[str, int, int, str]]:
    return [(path.as_posix(), p.line, p.column, p.message) for _, path, p in composition.findings]


CAVEMAN = """\
---
description: The tone snippet.
params:
  level:
    type: string
    enum: [lite, full, ultra]
    default: full
    description: How terse.
---
Tono: caveman, nivel <<level>>.
"""

REPEAT = """\
---
params:
  times: {type: integer}
  loud: {type: boolean, default: false}
  ratio: {type: number, default: 0.5}
---
<<times>> veces, ratio <<ratio>><% if loud %>, ¡fuerte!<% endif %>
"""


@dataclass(frozen=True)
class Case:
    id: str
    body: str
    fragments: Mapping[str, str] = field(default_factory=dict)
    out: str | None = None  # the composed body, when there is no error
    errors: tuple[tuple[str, int, int, str], ...] = ()  # (path, line, column, message part)
    target: str = "opencode"


A = "specs/agents/a.md"
TONE = {"tone.md": "Tono: directo.\n"}

CASES = [
    # -- passthrough ------------------------------------------------------
    Case(
        "runtime-syntax",
        "{{injected_rules}} ${{ github.sha }} ${{ runner.os }}\n$ARGUMENTS $1 $2 !`git diff` @src/main.py\n",
        out="{{injected_rules}} ${{ github.sha }} ${{ runner.os }}\n$ARGUMENTS $1 $2 !`git diff` @src/main.py\n",
    ),
    Case(
        "shell-and-shift",
        'cat <<EOF\na << 2\ncat <<<"$x"\nx >> log\n<<\n>>\ncout << x\n',
        out='cat <<EOF\na << 2\ncat <<<"$x"\nx >> log\n<<\n>>\ncout << x\n',
    ),
    Case(
        "not-a-construct",
        "<%= erb %> <% <# 5 <<2>> <<-x>> << >> <<<tone>>>\n",
        TONE,
        out="<%= erb %> <% <# 5 <<2>> <<-x>> << >> <<<tone>>>\n",
    ),
    Case(
        "runs-of-angles-open-nothing-but-their-last-tag",
        "<<<<<<tone>> <<<<% if target == 'claude' %>a<<<<% endif %>b <<<<tone\n",
        TONE,
        out="<<<<<<tone>> <<<b <<<<tone\n",
    ),
    Case(
        "fenced-code-is-literal",
        "```sh\n<<tone>>\n<% if x %>\n```\n~~~\n<<tone>>\n~~~\n<<tone>>\n",
        TONE,
        out="```sh\n<<tone>>\n<% if x %>\n```\n~~~\n<<tone>>\n~~~\nTono: directo.\n",
    ),
    Case(
        "fence-in-list-and-longer-close",
        "- item\n    ````\n    <<tone>>\n    ```\n    still code <<tone>>\n    `````\n<<tone>>\n",
        TONE,
        out="- item\n    ````\n    <<tone>>\n    ```\n    still code <<tone>>\n    `````\nTono: directo.\n",
    ),
    Case(
        "unclosed-fence-runs-to-the-end",
        "```\n<<tone>>\n",
        TONE,
        out="```\n<<tone>>\n",
    ),
    Case(
        "inline-code-is-literal",
        "Write `<<tone>>` or ``a ` <<tone>>`` but <<tone>>.\n",
        TONE,
        out="Write `<<tone>>` or ``a ` <<tone>>`` but Tono: directo..\n",
    ),
    Case(
        "inline-code-across-lines",
        "see `code\n<<tone>>` here\n\n` lone backtick <<tone>>\n",
        TONE,
        out="see `code\n<<tone>>` here\n\n` lone backtick Tono: directo.\n",
    ),
    Case(
        "escaped-backtick-opens-nothing",
        "\\`<<tone>>` and ``<<tone>>` still``\n",
        TONE,
        out="\\`Tono: directo.` and ``<<tone>>` still``\n",
    ),
    Case(
        "escape",
        "\\<<tone>> and \\<< tone(x=1) >> \\<% if x %> \\<# c #> but \\<<EOF stays\n",
        TONE,
        out="<<tone>> and << tone(x=1) >> <% if x %> <# c #> but \\<<EOF stays\n",
    ),
    # -- nesting and whitespace -------------------------------------------
    Case(
        "nested",
        "Start\n<<outer>>\nEnd\n",
        {"outer.md": "O1\n<<flow_inner>>\nO2\n", "flow/inner.md": "I1\nI2\n"},
        out="Start\nO1\nI1\nI2\nO2\nEnd\n",
    ),
    Case(
        "inline-multiline-fragment",
        "A <<two>> B\n",
        {"two.md": "l1\nl2\n"},
        out="A l1\nl2 B\n",
    ),
    Case(
        "trailing-newline-or-not",
        "<<with>>|<<without>>|\n<<with>>\n<<without>>\n",
        {"with.md": "x\n", "without.md": "x"},
        out="x|x|\nx\nx\n",
    ),
    Case(
        "only-one-newline-dropped",
        "A\n<<blank>>\nB\n",
        {"blank.md": "x\n\n"},
        out="A\nx\n\nB\n",
    ),
    Case(
        "empty-fragment-removes-its-line",
        "A\n  <<empty>>  \nB <<empty>>C\n<<newline>>\nD\n",
        {"empty.md": "", "newline.md": "\n"},
        out="A\nB C\n\nD\n",
    ),
    Case(
        "indent-kept-on-first-line-only",
        "- item\n  <<two>>\n",
        {"two.md": "l1\nl2\n"},
        out="- item\n  l1\nl2\n",
    ),
    # -- parameters -------------------------------------------------------
    Case(
        "param-default",
        "<<caveman>>\n",
        {"caveman.md": CAVEMAN},
        out="Tono: caveman, nivel full.\n",
    ),
    Case(
        "param-given-with-blanks",
        '<< caveman( level = "ultra", ) >>\n',
        {"caveman.md": CAVEMAN},
        out="Tono: caveman, nivel ultra.\n",
    ),
    Case(
        "param-types",
        "<<repeat(times=2, loud=true)>>\n<<repeat(times=-1, ratio=2)>>\n",
        {"repeat.md": REPEAT},
        out="2 veces, ratio 0.5, ¡fuerte!\n-1 veces, ratio 2\n",
    ),
    Case(
        "closer-inside-a-quoted-value",
        '<<say(text="a >> b, \\"c\\"")>> <<say(text=\'%>\')>>\n',
        {"say.md": "---\nparams:\n  text: {type: string}\n---\n[<<text>>]"},
        out='[a >> b, "c"] [%>]\n',
    ),
    Case(
        "param-forwarded",
        '<<outer(mode="lite")>>\n',
        {
            "outer.md": "---\nparams:\n  mode: {type: string}\n---\n<<caveman(level=mode)>>\n",
            "caveman.md": CAVEMAN,
        },
        out="Tono: caveman, nivel lite.\n",
    ),
    Case(
        "param-bad-value",
        'Texto <<caveman(level="ultar")>>\n',
        {"caveman.md": CAVEMAN},
        errors=(
            (
                A,
                4,
                23,
                'parameter \'level\' must be one of "lite", "full", "ultra"; got "ultar" (did you mean `ultra`?)',
            ),
        ),
    ),
    Case(
        "param-unknown",
        '<<caveman(lvl="ultra")>>\n',
        {"caveman.md": CAVEMAN},
        errors=(
            (
                A,
                4,
                11,
                "fragment 'caveman' has no parameter 'lvl' (did you mean `level`?); its parameters: level",
            ),
        ),
    ),
    Case(
        "param-missing",
        "x\n  <<repeat>>\n",
        {"repeat.md": REPEAT},
        errors=((A, 5, 3, "fragment 'repeat' needs parameter 'times' (integer)"),),
    ),
    Case(
        "param-wrong-type",
        '<<repeat(times="2", loud=1)>>\n',
        {"repeat.md": REPEAT},
        errors=(
            (A, 4, 16, "parameter 'times' takes an integer, not the string \"2\""),
            (A, 4, 26, "parameter 'loud' takes a boolean (true or false), not the number 1"),
        ),
    ),
    Case(
        "param-forwarded-bad-value",
        '<<outer(mode="loud")>>\n',
        {
            "outer.md": "---\nparams:\n  mode: {type: string}\n---\nx <<caveman(level=mode)>>\n",
            "caveman.md": CAVEMAN,
        },
        errors=(("fragments/outer.md", 5, 19, 'got "loud"; included from specs/agents/a.md:4:1'),),
    ),
    Case(
        "param-unquoted-text",
        "<<caveman(level=ultra)>>\n",
        {"caveman.md": CAVEMAN},
        errors=(
            (A, 4, 17, "unknown variable 'ultra' for parameter 'level'; for text write \"ultra\""),
        ),
    ),
    Case(
        "fragment-without-params",
        "<<tone(x=1)>>\n",
        TONE,
        errors=((A, 4, 8, "fragment 'tone' takes no parameters"),),
    ),
    # -- per target -------------------------------------------------------
    Case(
        "target-opencode",
        'Uno\n<% if target == "claude" %>\nUsa la herramienta Agent; $0 es el primero.\n<% else %>\nUsa la herramienta task; $1 es el primero.\n<% endif %>\nDos\n',
        out="Uno\nUsa la herramienta task; $1 es el primero.\nDos\n",
    ),
    Case(
        "target-claude",
        'Uno\n<% if target == "claude" %>\nUsa la herramienta Agent; $0 es el primero.\n<% else %>\nUsa la herramienta task; $1 es el primero.\n<% endif %>\nDos\n',
        out="Uno\nUsa la herramienta Agent; $0 es el primero.\nDos\n",
        target="claude",
    ),
    Case(
        "elif-and-in",
        '<% if target == "opencode" %>\noc\n<% elif target in ["claude", "claude-plugin"] %>\ncc\n<% endif %>\n',
        out="cc\n",
        target="claude-plugin",
    ),
    Case(
        "inline-tags-and-comments",
        'Lee <% if target != "claude" %>task<% else %>Agent<% endif %> ya.<# nota #>\n  <# solo comentario #>  \nFin\n',
        out="Lee task ya.\nFin\n",
    ),
    Case(
        "target-variable-and-params-in-conditions",
        '<<target>>: <<caveman(level="ultra")>>\n',
        {
            "caveman.md": CAVEMAN.replace(
                "nivel <<level>>.",
                'nivel <<level>>.<% if level == "ultra" and not target == "claude" %> Máximo.<% endif %>',
            )
        },
        out="opencode: Tono: caveman, nivel ultra. Máximo.\n",
    ),
    Case(
        "fragment-only-in-a-target-branch",
        '<% if target == "claude" %>\n<<tone>>\n<% endif %>\nfin\n',
        TONE,
        out="fin\n",
    ),
    # -- errors -----------------------------------------------------------
    Case(
        "unknown-fragment",
        "Texto\nAquí <<tonoo>> va.\n",
        TONE,
        errors=((A, 5, 6, "unknown fragment 'tonoo' (did you mean `tone`?)"),),
    ),
    Case(
        "error-inside-fragment-names-the-chain",
        "x\n<<flow_build_plan>>\n",
        {
            "flow/build/plan.md": "---\ndescription: plan\n---\nPaso 1\n<<flow_step>>\n",
            "flow/step.md": "a\n  b <<nope>>\n",
        },
        errors=(
            (
                "fragments/flow/step.md",
                2,
                5,
                "unknown fragment 'nope'; included from fragments/flow/build/plan.md:5:1, from specs/agents/a.md:5:1",
            ),
        ),
    ),
    Case(
        "cycle",
        "<<a>>\n",
        {"a.md": "A\n<<b>>\n", "b.md": "B\n<<c>>\n", "c.md": "C <<a>>\n"},
        errors=(
            (
                "fragments/c.md",
                1,
                3,
                "fragment cycle: a -> b -> c -> a; included from fragments/b.md:2:1, from fragments/a.md:2:1, from specs/agents/a.md:4:1",
            ),
        ),
    ),
    Case(
        "self-include",
        "<<a>>\n",
        {"a.md": "A <<a>>\n"},
        errors=(
            ("fragments/a.md", 1, 3, "fragment cycle: a -> a; included from specs/agents/a.md:4:1"),
        ),
    ),
    Case(
        "sandbox-placeholders",
        "<< ''.__class__ >>\n<< target.__class__ >>\n<< range(10**9) >>\n<< lipsum.__globals__ >>\n<<caveman(level=''.join)>>\n",
        {"caveman.md": CAVEMAN},
        errors=(
            (
                A,
                4,
                4,
                "invalid placeholder `<< ''.__class__ >>`: expected a fragment name, found `''`",
            ),
            (A, 5, 10, "invalid placeholder `<< target.__class__ >>`: unexpected `.`"),
            (
                A,
                6,
                10,
                "invalid placeholder `<< range(10**9) >>`: expected a parameter name, found `10`",
            ),
            (A, 7, 10, "invalid placeholder `<< lipsum.__globals__ >>`: unexpected `.`"),
            (A, 8, 19, "invalid placeholder `<<caveman(level=''.join)>>`: unexpected `.`"),
        ),
    ),
    Case(
        "sandbox-conditions",
        "<% if ''.__class__ %>a<% endif %>\n<% if target.__class__ %>b<% endif %>\n<% if range(10**9) %>c<% endif %>\n<% if lipsum.__globals__ %>d<% endif %>\n<% if target|length %>e<% endif %>\n<% if 10**9 > 1 %>f<% endif %>\n",
        errors=(
            (A, 4, 7, "condition `''.__class__` uses attribute access"),
            (A, 5, 7, "condition `target.__class__` uses attribute access"),
            (A, 6, 7, "condition `range(10**9)` uses a function call"),
            (A, 7, 7, "condition `lipsum.__globals__` uses attribute access"),
            (A, 8, 7, "condition `target|length` uses a filter"),
            (A, 9, 7, "condition `10**9 > 1` uses arithmetic"),
        ),
    ),
    Case(
        "jinja-syntax-error-at-file-line",
        "<<flow>>\n",
        {"flow.md": "---\ndescription: d\n---\nuno\n<% if target == %>\ndos\n<% endif %>\n"},
        errors=(
            (
                "fragments/flow.md",
                5,
                7,
                "invalid condition `target ==`: unexpected 'end of statement block'",
            ),
        ),
    ),
    Case(
        "blocks-out-of-place",
        "<% endif %>\n<% if target == 'claude' %>\n<% else %>\n<% elif target == 'opencode' %>\n<% endif %>\n<% if target == 'claude' %>\n",
        errors=(
            (A, 4, 1, "`endif` without an open `if`"),
            (A, 7, 1, "`elif` after the `else` of the `if` at line 5"),
            (A, 9, 1, "`if` is never closed: add `<% endif %>`"),
        ),
    ),
    Case(
        "unknown-tag-and-variable",
        "<% for x in y %>\n<% endfi %>\n<% if tagret == 'claude' %>x<% endif %>\n<%- if x %>\n",
        errors=(
            (A, 4, 1, "unknown tag `for`: tags are if, elif, else and endif"),
            (A, 5, 1, "unknown tag `endfi` (did you mean `endif`?)"),
            (
                A,
                6,
                7,
                "unknown variable 'tagret' in condition (did you mean `target`?); variables here: target",
            ),
            (A, 7, 1, "`<%-` whitespace control is not supported"),
        ),
    ),
    Case(
        "misspelt-target-value",
        '<% if target == "cluade" %>x<% endif %>\n',
        errors=((A, 4, 7, "'target' is never \"cluade\" (did you mean `claude`?)"),),
    ),
    Case(
        "misspelt-enum-value-in-condition",
        "<<caveman>>\n",
        {"caveman.md": CAVEMAN + '<% if level in ["lite", "ultar"] %>x<% endif %>\n'},
        errors=(
            ("fragments/caveman.md", 11, 7, "'level' is never \"ultar\" (did you mean `ultra`?)"),
        ),
    ),
    Case(
        "runtime-error-in-condition",
        "<<num>>\n",
        {
            "num.md": "---\nparams:\n  n: {type: integer, default: 3}\n---\nuno\n<% if n > 'a' %>\nx\n<% endif %>\n"
        },
        errors=(
            (
                "fragments/num.md",
                6,
                7,
                "cannot evaluate the condition ('>' not supported between instances of 'int' and 'str') for target opencode; included from specs/agents/a.md:4:1",
            ),
        ),
    ),
    Case(
        "broken-fragment-stays-as-written",
        "<<broken>>\n",
        {"broken.md": "---\na: [1\n---\nx\n"},
        out="<<broken>>\n",  # the loader reports the YAML error; composition adds nothing
    ),
    Case(
        "variables-take-no-arguments",
        "<<target(x=1)>>\n<<caveman>>\n",
        {"caveman.md": CAVEMAN + "<<level()>>\n"},
        errors=(
            (
                "fragments/caveman.md",
                11,
                1,
                "'level' is a parameter of this fragment, not a fragment; it takes no arguments",
            ),
            (A, 4, 1, "'target' is the target variable, not a fragment; it takes no arguments"),
        ),
    ),
    Case(
        "positional-argument",
        '<<caveman("ultra")>>\n',
        {"caveman.md": CAVEMAN},
        errors=((A, 4, 11, 'expected a parameter name, found `"ultra"` (write `param=value`)'),),
    ),
    Case(
        "bad-declarations",
        "<<p>>\n",
        {
            "p.md": "---\nparams:\n  target: {type: string, default: x}\n  tone: {default: x}\n  n: {type: integer, enum: [1, two], default: 3}\n---\nx\n",
            **TONE,
        },
        errors=(
            ("fragments/p.md", 3, 3, "parameter name 'target' is reserved"),
            ("fragments/p.md", 4, 3, "parameter 'tone' has the name of fragment 'tone'"),
            (
                "fragments/p.md",
                5,
                32,
                'allowed value "two": parameter \'n\' takes an integer, not the string "two"',
            ),
            ("fragments/p.md", 5, 47, "default 3: parameter 'n' must be one of 1, \"two\"; got 3"),
        ),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_composition(case: Case) -> None:
    composition = compose(case.body, case.fragments, case.target)
    found = errors(composition)
    assert len(found) == len(case.errors), found
    for (path, line, column, message), expected in zip(found, case.errors, strict=True):
        assert (path, line, column) == expected[:3], message
        assert expected[3] in message
    if case.out is not None:
        assert composition.agents["a"] == case.out


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 30


def test_sandbox_attempts_never_reach_jinja(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rejected placeholder stays text; a rejected condition is never compiled, and
    its branch is not taken."""
    body = (
        "<< ''.__class__ >>\n<% if lipsum.__globals__ %>\nx\n<% endif %>\n"
        "<% if range(10**9) %>y<% endif %>\n<% if target == 'opencode' %>z<% endif %>\n"
    )
    compiled: list[str] = []
    real = ImmutableSandboxedEnvironment.compile_expression

    def recording(env: ImmutableSandboxedEnvironment, source: str, undefined_to_none: bool) -> Any:
        compiled.append(source)
        return real(env, source, undefined_to_none)

    monkeypatch.setattr(ImmutableSandboxedEnvironment, "compile_expression", recording)
    assert compose(body).agents["a"] == "<< ''.__class__ >>\n\nz\n"
    assert compiled == ["target == 'opencode'"]


def test_source_map_names_file_line_and_chain() -> None:
    fragments = {"outer.md": "---\ndescription: d\n---\nO1\n<<inner>>\n", "inner.md": "I1\nI2\n"}
    composition = compose(
        "Start <<outer>>\n\n<% if target == 'opencode' %>\nEnd\n<% endif %>\n", fragments
    )
    assert composition.agents["a"] == "Start O1\nI1\nI2\n\nEnd\n"
    site_a = Site(AGENT, 4, 7)
    site_o = Site(Path("fragments/outer.md"), 5, 1)
    assert composition.agent_maps["a"] == (
        LineOrigin(AGENT, 4),
        LineOrigin(Path("fragments/inner.md"), 1, (site_a, site_o)),
        LineOrigin(Path("fragments/inner.md"), 2, (site_a, site_o)),
        LineOrigin(AGENT, 5),
        LineOrigin(AGENT, 7),
    )
    # The same, as lines of the agent's file: an included line at its placeholder's.
    assert composition.agents.lines("a") == BodyLines(
        [4, 4, 4, 5, 7], [True, False, False] + [True] * 2
    )


def test_source_map_of_printed_values_points_at_the_placeholder() -> None:
    composition = compose(
        "<<caveman>>\nfin\n", {"caveman.md": CAVEMAN.replace("<<level>>.", "<<level>>\n<<level>>")}
    )
    assert composition.agents["a"] == "Tono: caveman, nivel full\nfull\nfin\n"
    caveman = Path("fragments/caveman.md")
    site = (Site(AGENT, 4, 1),)
    assert composition.agent_maps["a"] == (
        LineOrigin(caveman, 10, site),
        LineOrigin(caveman, 11, site),
        LineOrigin(AGENT, 5),
    )


def test_a_body_read_again_is_the_same_text_map_and_findings() -> None:
    """A composition keeps only the body read last: one read again after
    another is rendered again, to the same text, map and findings."""
    agents = {
        name: load_bytes(Path(f"specs/agents/{name}.md"), (HEAD + body).encode())
        for name, body in (("a", "<<caveman>>\n<<nope>>\nA\n"), ("b", "B <<caveman>>\n"))
    }
    caveman = load_bytes(Path("fragments/caveman.md"), CAVEMAN.encode())
    composition = compose_bundle(
        Bundle(agents, {}, {"caveman": caveman}), "opencode", TARGET_NAMES, Path.as_posix
    )
    first = composition.agents["a"]
    found = errors(composition)  # every body rendered: a's unknown fragment
    assert found == [("specs/agents/a.md", 5, 1, "unknown fragment 'nope'")]
    mapped = list(composition.mapped(0))
    assert [(name, text) for name, text, _ in mapped] == [
        ("a", first),
        ("b", composition.agents["b"]),
    ]
    assert composition.agents["a"] == first  # after b: rendered again
    assert errors(composition) == found
    assert dict(composition.agent_maps) == {name: origins for name, _, origins in mapped}


def test_a_composition_for_another_target_shares_the_checks_not_the_rendering() -> None:
    """for_target: the checks' findings (no target read) come with it; what
    rendering finds for one target stays with that target's composition."""
    only_opencode = "---\nparams:\n  kind: {type: string, enum: [opencode]}\n---\nKind <<kind>>.\n"
    body = "<<frag(kind=target)>>\n<<nope>>\nText.\n"
    opencode = compose(body, {"frag.md": only_opencode})
    unknown = ("specs/agents/a.md", 5, 1, "unknown fragment 'nope'")
    assert errors(opencode) == [unknown]
    claude = opencode.for_target("claude")
    refused = "fragment 'frag': parameter 'kind' must be one of \"opencode\"; got \"claude\""
    assert errors(claude) == [("specs/agents/a.md", 4, 13, refused), unknown]
    assert claude.agents["a"] == "<<frag(kind=target)>>\n<<nope>>\nText.\n"
    assert opencode.agents["a"] == "Kind opencode.\n<<nope>>\nText.\n"
    assert errors(opencode) == [unknown]  # claude's finding is claude's alone
    assert errors(claude) == errors(compose(body, {"frag.md": only_opencode}, "claude"))


def test_used_counts_every_branch_and_nested_fragments() -> None:
    body = '<% if target == "claude" %>\n<<claude_only>>\n<% endif %>\n<<outer>>\n'
    fragments = {
        "claude_only.md": "c\n",
        "outer.md": "<<inner>>\n",
        "inner.md": "i\n",
        "island.md": "<<island_part>>\n",
        "island_part.md": "p\n",
    }
    composition = compose(body, fragments)
    assert composition.agents["a"] == "i\n"
    assert composition.used == {"claude_only", "outer", "inner"}


def test_depth_limit() -> None:
    chain = {f"f{i}.md": f"<<f{i + 1}>>\n" for i in range(40)}
    chain["f40.md"] = "hoja\n"
    found = errors(compose("<<f0>>\n", chain))
    assert len(found) == 1
    path, line, column, message = found[0]
    assert (path, line, column) == ("fragments/f31.md", 1, 1)
    assert message.startswith("fragments nested more than 32 deep: a -> f0 -> f1 -> ")
    assert "-> f31 -> f32; included from fragments/f30.md:1:1," in message


def test_each_fragment_is_rendered_once_per_argument_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nineteen levels that each include the next twice: 2**19 expansions, 20 renders."""
    levels = {f"d{i}.md": f"<<d{i + 1}>><<d{i + 1}>>" for i in range(19)}
    levels["d19.md"] = "x"
    calls: list[str] = []
    render = compose_module._Engine.render

    def counting(
        self: compose_module._Engine, unit: compose_module._Unit, *args: object, **kw: object
    ) -> object:
        calls.append(unit.name)
        return render(self, unit, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(compose_module._Engine, "render", counting)
    composition = compose("<<d0>>\n", levels)
    assert composition.agents["a"] == "x" * 2**19 + "\n"
    assert sorted(calls) == sorted(["a", *(f"d{i}" for i in range(20))])


def test_size_limit() -> None:
    levels = {f"d{i}.md": f"<<d{i + 1}>><<d{i + 1}>>" for i in range(21)}
    levels["d21.md"] = "x"
    found = errors(compose("<<d0>>\n", levels))
    # d1 is cut at its second include, then d0 at its second include of d1.
    assert [(p, line, col) for p, line, col, _ in found] == [
        ("fragments/d0.md", 1, 7),
        ("fragments/d1.md", 1, 7),
    ]
    assert "composed text would exceed 1000000 characters" in found[0][3]


# Minimal agents with no bash rules: dangerous-allow (tested on its own) stays quiet.
QUIET = '[rules.dangerous-allow]\nlevel = "off"\n'


# -- the command line -------------------------------------------------------


def test_lint_reports_at_the_placeholder(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": QUIET,
            "specs/agents/scout.md": "---\ndescription: Explores the codebase read-only.\nmode: subagent\n---\n# Scout\n\nSigue <<flow_buidl_plan>>.\n",
            "fragments/flow/build/plan.md": "Planifica.\n",
        }
    )
    result = run("lint")
    assert result.code == 1
    assert result.out.splitlines() == [
        "fragments/flow/build/plan.md:1:1: warning [unused-fragment] fragment 'flow_build_plan' is not used by any agent or mode",
        "specs/agents/scout.md:7:7: error [compose] unknown fragment 'flow_buidl_plan' (did you mean `flow_build_plan`?)",
        "    hint: write `\\<<` (or `\\<%`, `\\<#`) to keep it as text, or put it in `code`",
    ]


def test_two_files_with_one_fragment_name(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": QUIET,
            "specs/agents/scout.md": "---\ndescription: Explores the codebase read-only.\nmode: subagent\n---\n<<flow_build>>\n",
            "fragments/flow/build.md": "uno\n",
            "fragments/flow-build.md": "dos\n",
        }
    )
    result = run("lint")
    assert result.code == 1
    assert (
        "fragments/flow-build.md:1:1: error [compose] fragment name 'flow_build' is also the name of fragments/flow/build.md"
        in result.out
    )


def test_parameter_declarations_are_checked_by_the_schema(
    make_bundle: MakeBundle, run: Runner
) -> None:
    make_bundle(
        {
            "promptc.toml": QUIET,
            "specs/agents/scout.md": "---\ndescription: Explores the codebase read-only.\nmode: subagent\n---\n<<tone>>\n",
            "fragments/tone.md": "---\nparams:\n  level:\n    tpye: string\n    default: [1]\n  size: {type: text}\n---\nx\n",
        }
    )
    result = run("lint")
    assert result.code == 1
    assert result.out.splitlines() == [
        "fragments/tone.md:4:5: error [schema] unknown key 'tpye' at $.params.level (did you mean `type`?)",
        "fragments/tone.md:5:5: error [schema] $.params.level.default: expected a string or a number or true or false, found a list",
        "fragments/tone.md:6:16: error [schema] $.params.size.type: 'text' is not one of string, integer, number, boolean",
        # A parameter without a default is required, whatever else is wrong with it.
        "specs/agents/scout.md:5:1: error [compose] fragment 'tone' needs parameter 'size'",
    ]


def test_build_emits_composed_text(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle(
        {
            "promptc.toml": QUIET,
            "specs/agents/scout.md": '---\ndescription: Explores the codebase read-only.\nmode: subagent\n---\n<<caveman(level="lite")>>\n\n# Scout\n<% if target == "opencode" %>\nUsa task.\n<% endif %>\n',
            "fragments/caveman.md": CAVEMAN,
        }
    )
    result = run("build")
    assert result.code == 0, result.out
    emitted = (root / "build/opencode/.opencode/agents/scout.md").read_text(encoding="utf-8")
    assert emitted.endswith("---\nTono: caveman, nivel lite.\n\n# Scout\nUsa task.\n")


# -- properties -------------------------------------------------------------

TOKENS = [
    "<<",
    ">>",
    "<<<",
    "<%",
    "%>",
    "<#",
    "#>",
    "<",
    ">",
    "%",
    "#",
    "`",
    "``",
    "```",
    "~~~",
    "\\",
    "\n",
    "\n\n",
    " ",
    "  ",
    "\t",
    "{{injected_rules}}",
    "${{ github.sha }}",
    "$ARGUMENTS",
    "$1",
    "!`git diff`",
    "@file",
    "cat <<EOF",
    "a << 2",
    "EOF",
    "x",
    "ñandú",
    "=",
    "(",
    ")",
    '"',
    "'",
    "-",
    "*",
    "# ",
    "{%",
    "%}",
    "{{",
    "}}",
    "2",
    "_",
]
CONSTRUCT = re.compile(r"<<[ \t]*[A-Za-z_'\"][^\n]*>>|<%[-+]?[ \t]*[A-Za-z_][^\n]*%>|<#[^\n]*#>")
FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)

markdown = st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(markdown)
def test_text_without_placeholders_composes_to_itself(text: str) -> None:
    assume(not CONSTRUCT.search(text))
    composition = compose(text)
    assert composition.agents["a"] == text
    assert composition.findings == ()
    lines = len(text.splitlines())
    assert composition.agent_maps["a"] == tuple(LineOrigin(AGENT, 4 + i) for i in range(lines))


# Lines a body is made of: its own text, an escape, a printed value, includes
# (alone on their line or not, of a fragment that includes another, that prints a
# value, that prints nothing), a block, blank lines.
BODY_LINES = [
    "Texto propio.",
    "",
    "\\<<nota>> escrito tal cual",
    "<<target>>",
    "Para <<target>>: fin.",
    "<<nota>>",
    "Antes <<nota>> después",
    "<<capas>>",
    '<<tono(level="ultra")>>',
    "<<vacio>>",
    "<% if target == 'opencode' %>",
    "<% else %>",
    "<% endif %>",
]
BODY_FRAGMENTS = {
    "nota.md": "Una nota\nde dos líneas.\n",
    "capas.md": "Arriba\n<<nota>>\nAbajo\n",
    "tono.md": CAVEMAN,
    "vacio.md": "",
}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(BODY_LINES), max_size=12), st.booleans())
def test_body_lines_say_what_the_source_map_says_of_the_agents_file(
    lines: list[str], newline: bool
) -> None:
    """Each composed line's line in the agent's file: its own, or its outermost
    include's; the same as the source map, which names every file. Every line
    has one (a trailing empty line aside): the snippet rule reads any."""
    body = "\n".join(lines) + ("\n" if newline else "")
    composition = compose(body, BODY_FRAGMENTS)
    origins = composition.agent_maps["a"]
    found = composition.agents.lines("a")
    assert found == BodyLines(
        [o.chain[0].line if o.chain else o.line for o in origins], [not o.chain for o in origins]
    )
    assert all(o.path == AGENT for o in origins if not o.chain)
    text = composition.agents["a"]
    assert len(found.lines) == (len(text.split("\n")) - text.endswith("\n") if text else 0)


@settings(max_examples=200, deadline=None)
@given(markdown, st.sampled_from(["opencode", "claude"]))
def test_text_inside_a_target_block_is_exact(text: str, target: str) -> None:
    """The same, through the Jinja template: a tag pair around the text."""
    assume(not CONSTRUCT.search(text) and not FENCE.search(text))
    body = f'<% if target == "{target}" %>\n{text}\n<% endif %>\n'
    composition = compose(body, target=target)
    assert composition.findings == ()
    assert composition.agents["a"] == text + "\n"
    assert compose(body, target="other-" + target).agents["a"] == ""


# -- the modes of a team of real shape (tests/fixtures/team) ----------------


class MarkdownSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "md"


MODES = sorted((TEAM / "specs" / "modes").glob("*.md"))


def test_the_bundle_has_modes() -> None:
    assert MODES, "tests/fixtures/team/specs/modes/ holds no mode"


@pytest.fixture(scope="module")
def team() -> Mapping[str, Composition]:
    config = load_config(cwd=TEAM)
    loaded = load_bundle(config)
    return {
        t: compose_bundle(loaded, t, TARGET_NAMES, config.display) for t in ("opencode", "claude")
    }


@pytest.mark.parametrize("target", ["opencode", "claude"])
@pytest.mark.parametrize("mode", [m.stem for m in MODES])
def test_mode_snapshot(
    team: Mapping[str, Composition], mode: str, target: str, snapshot: SnapshotAssertion
) -> None:
    composition = team[target]
    assert composition.findings == ()
    assert composition.modes[mode] == snapshot(extension_class=MarkdownSnapshot)


def test_a_line_in_two_bodies_stands_at_its_own_line_in_each() -> None:
    """The constructs and problems of one line's text are at its line in each body."""
    from promptc_compiler.core.scan import Placeholder, Tag, scan

    line = '<<tone(level="full")>> y <% if target == "claude" %>x<% endif %>'
    first = scan(f"{line}\n", 5)
    again = scan(f"a\n\n{line}\n", 20)
    for result, number in ((first, 5), (again, 22)):
        found = [s for s in result.segments if isinstance(s, Placeholder | Tag)]
        assert [(type(s).__name__, s.line) for s in found] == [
            ("Placeholder", number),
            ("Tag", number),
            ("Tag", number),
        ]
    bad = "<% fi %> and <<x(=1)>>"
    assert [p.line for p in scan(f"{bad}\n", 3).problems] == [3, 3]
    assert [p.line for p in scan(f"b\n{bad}\n", 9).problems] == [10, 10]


def test_a_code_span_closing_after_the_last_construct_still_hides_it() -> None:
    """Scan reads no line past the paragraph of the last `<`, but reads that
    paragraph whole: inline code closing on a later line keeps `<<x>>` text."""
    from promptc_compiler.core.scan import is_literal, literal_text, scan

    body = "`a <<x>>\nb` and more\nstill the paragraph\n\nthe rest\nof it\n"
    found = scan(body, 1)
    assert all(map(is_literal, found.segments))
    assert "".join(literal_text(s, body) for s in found.segments if is_literal(s)) == body
    assert found.problems == ()


def test_a_placeholder_left_open_is_an_error_where_it_opens() -> None:
    # `<<tone(level="lite"` with no `>>` would reach every target as that text.
    body = 'Uno <<tone(level="lite"\nDos <<tone\n'
    composition = compose(
        body, {"tone.md": "---\nparams:\n  level: {type: string}\n---\nt <<level\n"}
    )
    message = "`<<{}` has no `>>` to close it on its line, so it would stay text"
    assert errors(composition) == [
        ("fragments/tone.md", 5, 3, message.format("level")),
        ("specs/agents/a.md", 4, 5, message.format("tone")),
        ("specs/agents/a.md", 5, 5, message.format("tone")),
    ]
    assert composition.used == {"tone"}  # meant, so no unused-fragment beside the error


def test_text_that_opens_no_known_name_stays_text() -> None:
    body = (
        "cat <<EOF y cat <<tone_x, cout << tone, \\<<tone y <<<tone\n"
        "`<<tone` en código\n\n```\n<<tone\n```\n"
    )
    composition = compose(body, {"tone.md": "t\n"})
    assert errors(composition) == []
    assert composition.agents["a"] == body  # the backslash escapes constructs only


def test_a_dash_in_a_fragment_name_says_how_the_fragment_is_named() -> None:
    # fragments/review/steps.md and fragments/review-steps.md are both `review_steps`.
    composition = compose('<<review-steps(focus="bugs")>>\n', {"review/steps.md": "s\n"})
    ((path, line, column, message),) = errors(composition)
    assert (path, line, column) == ("specs/agents/a.md", 4, 3)
    assert message.startswith(
        'invalid placeholder `<<review-steps(focus="bugs")>>`: a fragment name has no `-`: '
        "write `review_steps` (its path under fragments/ with `/` and `-` as `_`)"
    )


@settings(max_examples=300)
@given(
    text=st.text(alphabet="<>%#'\"ab ", max_size=40),
    asked=st.lists(
        st.tuples(st.sampled_from([">>", "%>", "#>", "<<", "quote"]), st.integers(0, 45)),
        max_size=12,
    ),
)
def test_the_scanners_marks_answer_as_a_search_from_the_offset_does(
    text: str, asked: list[tuple[str, int]]
) -> None:
    """_Marks keeps each literal's last answer; asked in any order, it gives the
    first occurrence from the offset on, overlaps included, as a fresh search."""
    marks = scan_module._Marks(text)
    for key, start in asked:
        if key == "quote":
            found = [at for at in (text.find("'", start), text.find('"', start)) if at >= 0]
            expected = min(found) if found else None
        else:
            at = text.find(key, start)
            expected = at if at >= 0 else None
        assert marks.next(key, start) == expected

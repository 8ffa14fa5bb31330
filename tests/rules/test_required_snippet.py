"""The required-snippet rule: every diagnostic kind at its exact line and column."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Diagnostic
from promptc_compiler.cli.report import text
from promptc_compiler.core import snippet as snippet_module
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import Config, load_config
from promptc_compiler.core.project import make_project
from promptc_compiler.core.snippet import find_copies, make_snippet
from promptc_compiler.pipeline.lint import settings
from promptc_compiler.rules import required_snippet
from promptc_compiler.runtimes import TARGET_NAMES
from tests import bundles
from tests.conftest import MakeBundle

ID = required_snippet.ID
TONE = "Tono: caveman por default, nivel full. Activa siempre."
EXCEPTION = (
    "Excepción: prosa normal para advertencias de seguridad, "
    "acciones irreversibles o ambigüedad multi-paso."
)
SNIPPET = f"{TONE}\n{EXCEPTION}"
WRAPPED = (
    f"{TONE}\nExcepción: prosa normal para advertencias de seguridad,\n"
    "acciones irreversibles o ambigüedad multi-paso."
)
ULTRA = SNIPPET.replace("nivel full", "nivel ultra")
MAXI = SNIPPET.replace("nivel full", "nivel maxi")
ONE_CHARACTER = SNIPPET.replace("siempre.", "siempre!")
LEVELS = "lite, full, ultra, wenyan-lite, wenyan-full, wenyan-ultra"

# The bundle's fragment, with the level as a declared parameter.
FRAGMENT = f"""\
---
description: Tono caveman; se activa en cada subagente.
params:
  level:
    type: string
    enum: [{LEVELS}]
    default: full
    description: Intensidad del tono.
---
{SNIPPET.replace("nivel full", "nivel <<level>>")}
"""

CONFIG = """\
[rules.required-snippet]
fragment = "caveman"
params = {level = "full"}
exempt = ["craftsman", "foreman"]
"""

# The test agents here have no bash rules, which dangerous-allow reports (it has
# its own tests); appended, so the lines of CONFIG keep their numbers.
QUIET = '\n[rules.dangerous-allow]\nlevel = "off"\n'


def agent(body: str, mode: str = "subagent") -> str:
    """A spec whose body starts at line 5."""
    return f"---\ndescription: Un agente de prueba para la regla del snippet.\nmode: {mode}\n---\n{body}"


def lint(make_bundle: MakeBundle, files: dict[str, str], config: str = CONFIG) -> list[Diagnostic]:
    make_bundle({"promptc.toml": config, "fragments/caveman.md": FRAGMENT, **files})
    return [d for d in api.lint(load_config()).diagnostics if d.rule == ID]


# (case, body of specs/agents/scout.md, [(line, column, words of the message)])
AGENT_CASES: list[tuple[str, str, list[tuple[int, int, str]]]] = [
    # The docstring's Passes example; its Fails example is misplaced-and-drifted below.
    ("placeholder", "<<caveman>>\n\n# Scout\n", []),
    ("placeholder-with-expected-level", '<<caveman(level="full")>>\n\n# Scout\n', []),
    ("inline-exact", f"{SNIPPET}\n\n# Scout\n", []),
    ("heading-right-after", f"{SNIPPET}\n# Scout\n", []),
    ("blank-lines-first", f"\n\n{SNIPPET}\n\n# Scout\n", []),
    ("missing", "# Scout\n\nLee.\n", [(5, 1, "agent 'scout' lacks the `caveman` snippet")]),
    ("missing-after-blank-line", "\n# Scout\n", [(6, 1, "lacks the `caveman` snippet")]),
    ("missing-empty-body", "", [(5, 1, "lacks the `caveman` snippet")]),
    ("missing-other-prose", "Tono: formal.\n\n# Scout\n", [(5, 1, "lacks")]),
    ("missing-only-in-code-fence", f"```\n{SNIPPET}\n```\n", [(5, 1, "lacks")]),
    ("missing-only-in-inline-code", "`<<caveman>>`\n\n# Scout\n", [(5, 1, "lacks")]),
    (
        "drift-one-character",
        f"{ONE_CHARACTER}\n\n# Scout\n",
        [(5, 54, "the `caveman` snippet has drifted from fragments/caveman.md")],
    ),
    ("drift-rewrapped-over-three-lines", f"{WRAPPED}\n\n# Scout\n", [(6, 56, "has drifted")]),
    ("drift-second-line", SNIPPET.replace("multi-paso", "multipaso") + "\n", [(6, 98, "drifted")]),
    ("drift-trailing-space", f"{TONE} \n{EXCEPTION}\n", [(5, 55, "drifted")]),
    ("drift-first-line-only", f"{TONE}\n\n# Scout\n", [(5, 55, "has drifted")]),
    ("drift-first-line-only-heading-below", f"{TONE}\n# Scout\n", [(5, 55, "has drifted")]),
    ("drift-second-line-only", f"{EXCEPTION}\n\n# Scout\n", [(5, 1, "has drifted")]),
    ("drift-one-line", f"{TONE} {EXCEPTION}\n", [(5, 55, "has drifted")]),
    ("too-small-a-part-is-no-copy", "Activa siempre.\n\n# Scout\n", [(5, 1, "lacks")]),
    (
        "other-level-inline",
        f"{ULTRA}\n\n# Scout\n",
        [(5, 34, "the `caveman` snippet has level 'ultra'; expected 'full'")],
    ),
    (
        "unknown-level-inline",
        f"{MAXI}\n\n# Scout\n",
        [(5, 34, f"level 'maxi' of the `caveman` snippet is not one of {LEVELS}")],
    ),
    (
        "other-level-call",
        '<<caveman(level="ultra")>>\n\n# Scout\n',
        [(5, 17, "has level 'ultra'; expected 'full'")],
    ),
    (
        "unknown-level-call",
        "<<caveman(level='max')>>\n\n# Scout\n",
        [(5, 17, f"level 'max' of the `caveman` snippet is not one of {LEVELS}")],
    ),
    # The composer refuses a positional argument (a compose error at 5:11), so no
    # call of the snippet stands here, as unused-fragment says too.
    ("positional-call", '<<caveman("wenyan-full")>>\n', [(5, 1, "lacks the `caveman` snippet")]),
    (
        "misplaced-after-heading",
        "# Scout\n\n<<caveman>>\n\nLee.\n",
        [(7, 1, "must be the first text after the frontmatter, before the first heading")],
    ),
    ("misplaced-inline", f"# Scout\n\n{SNIPPET}\n", [(7, 1, "must be the first text")]),
    ("misplaced-after-prose", f"Lee.\n{SNIPPET}\n", [(6, 1, "must be the first text")]),
    (  # the docstring's Fails example
        "misplaced-and-drifted",
        f"# Scout\n\n{WRAPPED}\n",
        [(7, 1, "must be the first text"), (8, 56, "has drifted")],
    ),
    (
        "duplicated",
        "<<caveman>>\n\n# Scout\n\n<<caveman>>\n",
        [(9, 1, "the `caveman` snippet appears again (first at line 5)")],
    ),
    (
        "duplicated-call-and-text",
        f"<<caveman>>\n{SNIPPET}\n\n# Scout\n",
        [(6, 1, "appears again (first at line 5)")],
    ),
    (
        "duplicated-later-copy-kept-first",
        f"# Scout\n\n{SNIPPET}\n\n{SNIPPET}\n",
        [(7, 1, "must be the first text"), (10, 1, "appears again (first at line 7)")],
    ),
]


@pytest.mark.parametrize(
    ("body", "expected"), [c[1:] for c in AGENT_CASES], ids=[c[0] for c in AGENT_CASES]
)
def test_agent_cases(
    make_bundle: MakeBundle, body: str, expected: list[tuple[int, int, str]]
) -> None:
    found = lint(make_bundle, {"specs/agents/scout.md": agent(body)})
    assert [(d.path, d.line, d.column) for d in found] == [
        ("specs/agents/scout.md", line, column) for line, column, _ in expected
    ]
    for diagnostic, (_, _, words) in zip(found, expected, strict=True):
        assert words in diagnostic.message


def test_drift_hint_is_a_unified_diff(make_bundle: MakeBundle) -> None:
    [found] = lint(make_bundle, {"specs/agents/scout.md": agent(f"{WRAPPED}\n\n# Scout\n")})
    assert found.hint == (
        "--- fragments/caveman.md (level=full)\n"
        "+++ specs/agents/scout.md:5\n"
        "@@ -1,2 +1,3 @@\n"
        f" {TONE}\n"
        f"-{EXCEPTION}\n"
        "+Excepción: prosa normal para advertencias de seguridad,\n"
        "+acciones irreversibles o ambigüedad multi-paso."
    )


def test_text_report_indents_the_diff(make_bundle: MakeBundle) -> None:
    [found] = lint(make_bundle, {"specs/agents/scout.md": agent(f"{ULTRA}\n")})
    lines = "\n".join(text([found])).split("\n")
    assert lines[1] == "    hint: --- fragments/caveman.md (level=full)"
    assert lines[2:] == [
        "          +++ specs/agents/scout.md:5",
        "          @@ -1,2 +1,2 @@",
        f"          -{TONE}",
        f"          +{TONE.replace('full', 'ultra')}",
        f"           {EXCEPTION}",
    ]


def test_unknown_level_suggests_the_closest(make_bundle: MakeBundle) -> None:
    [found] = lint(make_bundle, {"specs/agents/scout.md": agent('<<caveman(level="fulll")>>\n')})
    assert "(did you mean `full`?)" in found.message
    assert found.message.endswith("this bundle expects level = 'full'")


def test_copy_inside_another_fragment_is_reported_at_the_include(make_bundle: MakeBundle) -> None:
    files = {
        "fragments/intro.md": f"{WRAPPED}\n\nOtra línea.\n",
        "specs/agents/scout.md": agent("<<intro>>\n\n# Scout\n"),
    }
    [found] = lint(make_bundle, files)
    assert (found.line, found.column) == (5, 1)
    assert found.message.endswith("(it comes from a fragment this line includes)")
    assert found.fix is None  # the copy's own lines are in another file


EXEMPT_CASES: list[tuple[str, dict[str, str], list[tuple[str, int, int]]]] = [
    (
        "exempt-placeholder",
        {"specs/agents/craftsman.md": agent("<<caveman>>\n\n# Craftsman\n", "primary")},
        [("specs/agents/craftsman.md", 5, 1)],
    ),
    (
        "exempt-inline-later",
        {"specs/agents/foreman.md": agent(f"# Foreman\n\n{WRAPPED}\n", "primary")},
        [("specs/agents/foreman.md", 7, 1)],
    ),
    (
        "exempt-subagent-needs-none",
        {"specs/agents/craftsman.md": agent("# Craftsman\n")},
        [],
    ),
    ("primary-needs-none", {"specs/agents/boss.md": agent("# Boss\n", "primary")}, []),
    ("mode-all-needs-none", {"specs/agents/boss.md": agent("# Boss\n", "all")}, []),
    (
        "primary-copy-is-still-checked",
        {"specs/agents/boss.md": agent(f"{ULTRA}\n", "primary")},
        [("specs/agents/boss.md", 5, 34)],
    ),
]


@pytest.mark.parametrize(
    ("files", "expected"), [c[1:] for c in EXEMPT_CASES], ids=[c[0] for c in EXEMPT_CASES]
)
def test_scope_cases(
    make_bundle: MakeBundle,
    files: dict[str, str],
    expected: list[tuple[str, int, int]],
) -> None:
    found = lint(make_bundle, files)
    assert [(d.path, d.line, d.column) for d in found] == expected


def test_exempt_message(make_bundle: MakeBundle) -> None:
    [found] = lint(make_bundle, {"specs/agents/craftsman.md": agent("<<caveman>>\n", "primary")})
    assert found.message == "agent 'craftsman' is exempt from the `caveman` snippet but carries it"


# (case, extra config lines, files, [(path, line, column, words)])
OPTION_CASES: list[tuple[str, str, dict[str, str], list[tuple[str, int, int, str]]]] = [
    (
        "applies-to-all",
        'applies_to = "all"\n',
        {"specs/agents/boss.md": agent("# Boss\n", "primary")},
        [("specs/agents/boss.md", 5, 1, "lacks")],
    ),
    (
        "applies-to-list",
        'applies_to = ["scout"]\n',
        {
            "specs/agents/scout.md": agent("# Scout\n"),
            "specs/agents/other.md": agent("# Other\n"),
        },
        [("specs/agents/scout.md", 5, 1, "lacks")],
    ),
    (
        "position-anywhere",
        'position = "anywhere"\n',
        {"specs/agents/scout.md": agent("# Scout\n\n<<caveman>>\n")},
        [],
    ),
    (
        "allow-inline-false",
        "allow_inline = false\n",
        {"specs/agents/scout.md": agent(f"{SNIPPET}\n\n# Scout\n")},
        [
            (
                "specs/agents/scout.md",
                5,
                1,
                "inline copy of the `caveman` snippet: write <<caveman>>",
            )
        ],
    ),
    (
        "allow-inline-false-placeholder-passes",
        "allow_inline = false\n",
        {"specs/agents/scout.md": agent("<<caveman>>\n")},
        [],
    ),
    (
        "expected-level-from-params",
        'params = {level = "ultra"}\n',
        {"specs/agents/scout.md": agent("<<caveman>>\n")},
        [("specs/agents/scout.md", 5, 1, "has level 'full'; expected 'ultra'")],
    ),
    (
        "allowed-overrides-the-enum",
        'allowed = {level = ["full", "maxi"]}\n',
        {"specs/agents/scout.md": agent(f"{MAXI}\n")},
        [("specs/agents/scout.md", 5, 34, "has level 'maxi'; expected 'full'")],
    ),
    (
        "level-off",
        'level = "off"\n',
        {"specs/agents/scout.md": agent("# Scout\n")},
        [],
    ),
]


@pytest.mark.parametrize(
    ("extra", "files", "expected"),
    [c[1:] for c in OPTION_CASES],
    ids=[c[0] for c in OPTION_CASES],
)
def test_option_cases(
    make_bundle: MakeBundle,
    extra: str,
    files: dict[str, str],
    expected: list[tuple[str, int, int, str]],
) -> None:
    config = CONFIG
    if extra.startswith("params"):
        config = config.replace('params = {level = "full"}\n', "")
    found = lint(make_bundle, files, config + extra)
    assert [(d.path, d.line, d.column) for d in found] == [e[:3] for e in expected]
    for diagnostic, (*_, words) in zip(found, expected, strict=True):
        assert words in diagnostic.message


def test_rule_is_off_without_a_fragment(make_bundle: MakeBundle) -> None:
    files = {"specs/agents/scout.md": agent("# Scout\n")}
    assert lint(make_bundle, files, "[rules.required-snippet]\nexempt = []\n") == []
    assert required_snippet.OPTIONS["fragment"]["default"] is None


# (case, config, [(line, column, words)]) — problems reported in promptc.toml itself
CONFIG_CASES: list[tuple[str, str, list[tuple[int, int, str]]]] = [
    (
        "unknown-fragment",
        '[rules.required-snippet]\nfragment = "cavemen"\n',
        [(2, 1, "fragment 'cavemen' does not exist in the bundle (did you mean `caveman`?)")],
    ),
    (
        "undeclared-parameter",
        '[rules.required-snippet]\nfragment = "caveman"\nparams = {nivel = "full"}\n',
        [(3, 1, "fragment 'caveman' declares no parameter 'nivel'")],
    ),
    (
        "parameter-value-not-allowed",
        '[rules.required-snippet]\nfragment = "caveman"\nparams = {level = "max"}\n',
        [(3, 1, f"level 'max' is not one of {LEVELS}")],
    ),
    (
        "applies-to-unknown-agent",
        '[rules.required-snippet]\nfragment = "caveman"\napplies_to = ["scuot"]\n',
        [(3, 1, "no agent 'scuot' (did you mean `scout`?)")],
    ),
    (
        "inline-needs-placeholder-style",
        '[rules.required-snippet]\nfragment = "caveman"\nallow_inline = false\nfix_style = "text"\n',
        [(3, 1, "allow_inline = false needs fix_style = 'placeholder'")],
    ),
    (
        "count-differs",
        CONFIG + "expected_count = 2\n",
        [(5, 1, "expected_count is 2, but 1 agent carry the `caveman` snippet")],
    ),
]


@pytest.mark.parametrize(
    ("config", "expected"), [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES]
)
def test_config_cases(
    make_bundle: MakeBundle, config: str, expected: list[tuple[int, int, str]]
) -> None:
    found = lint(make_bundle, {"specs/agents/scout.md": agent("<<caveman>>\n")}, config)
    assert [(d.path, d.line, d.column) for d in found] == [
        ("promptc.toml", line, column) for line, column, _ in expected
    ]
    for diagnostic, (*_, words) in zip(found, expected, strict=True):
        assert words in diagnostic.message


def test_count_in_pyproject_points_at_the_key(make_bundle: MakeBundle) -> None:
    pyproject = '[project]\nname = "x"\n\n[tool.promptc.rules.required-snippet]\n'
    pyproject += 'fragment = "caveman"\nexpected_count = 14\n'
    make_bundle(
        {
            "pyproject.toml": pyproject,
            "fragments/caveman.md": FRAGMENT,
            "specs/agents/scout.md": agent("<<caveman>>\n"),
            "specs/agents/sage.md": agent(f"{SNIPPET}\n"),
        }
    )
    [found] = [d for d in api.lint(load_config()).diagnostics if d.rule == ID]
    assert (found.path, found.line, found.column) == ("pyproject.toml", 6, 1)
    assert found.message == "expected_count is 14, but 2 agents carry the `caveman` snippet"
    assert found.hint == "carried by: sage, scout"


def test_the_right_count_in_pyproject_passes(make_bundle: MakeBundle) -> None:
    pyproject = '[project]\nname = "x"\n\n[tool.promptc.rules.required-snippet]\n'
    pyproject += 'fragment = "caveman"\nexpected_count = 2\n'
    make_bundle(
        {
            "pyproject.toml": pyproject,
            "fragments/caveman.md": FRAGMENT,
            "specs/agents/scout.md": agent("<<caveman>>\n"),
            "specs/agents/sage.md": agent(f"{SNIPPET}\n"),
        }
    )
    assert [d for d in api.lint(load_config()).diagnostics if d.rule == ID] == []


def test_count_without_a_config_file_names_the_first_agent(make_bundle: MakeBundle) -> None:
    make_bundle(
        {
            "promptc.toml": CONFIG + "expected_count = 3\n",
            "fragments/caveman.md": FRAGMENT,
            "specs/agents/scout.md": agent("<<caveman>>\n"),
            "specs/agents/boss.md": agent("# Boss\n", "primary"),
        }
    )
    config = dataclasses.replace(load_config(), source=None)
    [found] = [d for d in api.lint(config).diagnostics if d.rule == ID]
    assert (found.path, found.line, found.column) == ("specs/agents/boss.md", 1, 1)
    assert found.message.endswith("(rules.required-snippet.expected_count)")


# Fourteen subagents carry the snippet; craftsman and foreman carry their own tone section.
SUBAGENTS = sorted(
    {"chronicler", "guild", "inspector", "painter", "sage", "scout", "scribe", "smith"}
    | {f"{stack}-smith" for stack in ("go", "js", "python", "rust", "vue", "zig")}
)


def ndomo_like(make_bundle: MakeBundle, count: int) -> Path:
    files: dict[str, str | bytes] = {
        "promptc.toml": CONFIG + f"expected_count = {count}\n" + QUIET,
        "fragments/caveman.md": f"{SNIPPET}\n",
    }
    for name in SUBAGENTS:
        files[f"specs/agents/{name}.md"] = agent(f"<<caveman>>\n\n# {name}\n\nTrabaja.\n")
    for name in ("craftsman", "foreman"):
        tone = "## Tono\n\nProsa normal, directa.\n"
        files[f"specs/agents/{name}.md"] = agent(f"# {name}\n\n{tone}", "primary")
    return make_bundle(files)


def test_fourteen_carriers_two_exempt_is_clean(make_bundle: MakeBundle) -> None:
    ndomo_like(make_bundle, 14)
    assert api.lint(load_config()).diagnostics == ()


def test_fourteen_carriers_against_another_count(make_bundle: MakeBundle) -> None:
    ndomo_like(make_bundle, 13)
    [found] = [d for d in api.lint(load_config()).diagnostics if d.rule == ID]
    assert (found.path, found.line) == ("promptc.toml", 5)
    assert found.message == "expected_count is 13, but 14 agents carry the `caveman` snippet"


def assert_the_rule_holds(config: Config) -> None:
    """The snippet the config names stands, exact, in every subagent but the
    exempt ones, as many times as it says, and the rule reports nothing."""
    options = settings(config)[ID].options
    assert options["fragment"] == "caveman"
    assert set(options["exempt"]) == {"craftsman", "foreman"}
    bundle = load_bundle(config)
    project = make_project(
        config, bundle, compose_bundle(bundle, "opencode", TARGET_NAMES), "opencode"
    )
    fragment = bundle.fragments["caveman"]
    snippet = make_snippet("caveman", fragment, options["params"], options["allowed"])
    carriers = {i for i, s in project.agents.items() if find_copies(s, snippet)}
    subagents = {i for i, s in project.agents.items() if s.mode == "subagent"}
    assert carriers == subagents - set(options["exempt"])
    assert not carriers & set(options["exempt"])
    if options["expected_count"] is not None:
        assert len(carriers) == options["expected_count"]
    assert [d for d in api.lint(config).diagnostics if d.rule == ID] == []


def test_a_team_of_real_shape_satisfies_its_own_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(bundles.TEAM)
    assert_the_rule_holds(load_config())


def test_copies_are_traced_to_the_lines_that_made_them(make_bundle: MakeBundle) -> None:
    """A fragment's copy, then the same text inline, then another include: each copy
    is traced by what composition recorded. A diff of source and composed lines
    matched the inline lines to the first copy and blamed `<<outro>>` for the
    second (line 8, first at line 6)."""
    files = {
        "fragments/intro.md": f"{SNIPPET}\n",
        "fragments/outro.md": "Fin.\n",
        "specs/agents/scout.md": agent(f"<<intro>>\n{SNIPPET}\n<<outro>>\n"),
    }
    found = [(d.line, d.column, d.message) for d in lint(make_bundle, files)]
    assert found == [(6, 1, "the `caveman` snippet appears again (first at line 5)")]


def test_what_a_call_of_the_snippet_composed_is_never_compared(
    make_bundle: MakeBundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text `<<caveman>>` composes is the call itself: no window over it is
    compared with the snippet, and a copy written after it is still found."""
    compared: list[str] = []
    verdict = snippet_module._verdict

    def counted(text: str, *rest: object) -> tuple[float, bool] | None:
        compared.append(text)
        return verdict(text, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(snippet_module, "_verdict", counted)
    files = {"specs/agents/scout.md": agent("<<caveman>>\n\n# Scout\n")}
    assert lint(make_bundle, files) == []
    assert compared == []
    files = {"specs/agents/scout.md": agent(f"<<caveman>>\n\n{SNIPPET}\n")}
    found = [(d.line, d.message) for d in lint(make_bundle, files)]
    assert found == [(7, "the `caveman` snippet appears again (first at line 5)")]
    assert compared


def test_a_copy_whose_lines_composition_changed_is_not_rewritten(make_bundle: MakeBundle) -> None:
    """A drifted copy of the spec's own lines with a comment in one: the lines
    written are not the lines composed, so no fix rewrites them (the comment would
    go); an unchanged one is fixed."""
    commented = ONE_CHARACTER.replace("siempre!", "siempre!<# nota #>")
    files = {"specs/agents/scout.md": agent(f"{commented}\n\n# Scout\n")}
    [found] = lint(make_bundle, files)
    assert (found.line, "has drifted" in found.message, found.fix) == (5, True, None)
    files = {"specs/agents/scout.md": agent(f"{ONE_CHARACTER}\n\n# Scout\n")}
    [found] = lint(make_bundle, files)
    assert found.fix is not None
    assert (found.fix.start, found.fix.end) == (5, 6)


def test_agents_with_the_same_lines_get_their_own_positions(make_bundle: MakeBundle) -> None:
    """Agents sharing lines: each agent's copy is found at its own lines."""
    bodies = {
        "scout": f"{ONE_CHARACTER}\n\n# Scout\n",
        "smith": f"# Smith\n\nLee.\n\n{ONE_CHARACTER}\n",
        "sage": f"# Sage\n\n{ONE_CHARACTER}\n\n{ONE_CHARACTER}\n",
    }
    files: dict[str, str | bytes] = {
        f"specs/agents/{name}.md": agent(body) for name, body in bodies.items()
    }
    make_bundle({"promptc.toml": CONFIG + QUIET, "fragments/caveman.md": FRAGMENT, **files})
    found = sorted(
        (d.path, d.line, d.column, d.message.split(";")[0])
        for d in api.lint(load_config()).diagnostics
        if d.rule == "required-snippet"
    )
    first = "the `caveman` snippet must be the first text after the frontmatter, before the first heading"
    drift = "the `caveman` snippet has drifted from fragments/caveman.md"
    # Column 54 is the changed character, as for one agent alone (test_required_snippet).
    assert found == [
        ("specs/agents/sage.md", 7, 1, first),
        ("specs/agents/sage.md", 7, 54, drift),
        ("specs/agents/sage.md", 10, 1, "the `caveman` snippet appears again (first at line 7)"),
        ("specs/agents/scout.md", 5, 54, drift),
        ("specs/agents/smith.md", 9, 1, first),
        ("specs/agents/smith.md", 9, 54, drift),
    ]


@given(st.text(alphabet="a \n\t\x0b\x85\u2028", max_size=12))
@example("")
@example("\n\n")
@example(" \n a")
def test_first_line_is_the_first_non_blank_line(text: str) -> None:
    lines = text.split("\n")
    assert required_snippet._first_line(text) == next(
        (i for i, line in enumerate(lines) if line.strip()), None
    )

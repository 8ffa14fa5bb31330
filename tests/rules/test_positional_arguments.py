"""positional-arguments: `$1` in a mode body is one argument in OpenCode, the next in Claude Code."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found

RULE = "positional-arguments"
H = "specs/modes/hack.md"
MODE = "---\ndescription: Arreglo rápido con archivo.\nagent: a\n---\n"
AGENT = agent("description: Reviews diffs for bugs and missing tests.\nmode: subagent")
CLAUDE = "[targets.claude]\n"
BRANCH = '<% if target == "claude" %>\nArchivo: $0\n<% else %>\nArchivo: $1\n<% endif %>\n'


def counted(n: int) -> str:
    return f"`${n}` is argument {n} in OpenCode but argument {n + 1} in Claude Code, which counts from 0"


# (files besides the agent, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param(
        {H: MODE + "Arregla primero $1, luego el resto: $ARGUMENTS\n"},
        CLAUDE,
        [(H, 5, 17, f"{counted(1)}; branch on `target` or use `$ARGUMENTS`")],
        id="docstring-fails",
    ),
    pytest.param({H: MODE + "Arregla: $ARGUMENTS\n"}, CLAUDE, [], id="docstring-passes"),
    pytest.param({H: MODE + "Archivo: $1\n"}, CLAUDE, [(H, 5, 10, counted(1))], id="one"),
    pytest.param(
        {H: MODE + "$1 y $2\n"}, CLAUDE, [(H, 5, 1, counted(1)), (H, 5, 6, counted(2))], id="two-on-a-line"
    ),
    pytest.param({H: MODE + "Precio: \\$1 y $$2\n"}, CLAUDE, [], id="escaped-dollars"),
    pytest.param({H: MODE + "Línea\n\n  $10 al final\n"}, CLAUDE, [(H, 7, 3, counted(10))], id="two-digits"),
    pytest.param(
        {H: MODE + "<<frag>>\n", "fragments/frag.md": "Usa: $2\n"},
        CLAUDE,
        [("fragments/frag.md", 1, 6, counted(2))],
        id="in-a-fragment",
    ),
    pytest.param(
        {H: MODE + "<<frag>>\n", "fragments/frag.md": "Uno.\n<<inner>>\n", "fragments/inner.md": "Dos: $3\n"},
        CLAUDE,
        [("fragments/inner.md", 1, 6, counted(3))],
        id="in-a-nested-fragment",
    ),
    pytest.param({H: MODE + "Archivo: $1\n"}, "[targets.claude-plugin]\n", [(H, 5, 10, counted(1))], id="plugin"),
    pytest.param({H: MODE + BRANCH}, CLAUDE, [], id="branched-per-target"),
    pytest.param({H: MODE + BRANCH}, "[targets.opencode]\n\n" + CLAUDE, [], id="branched-linted-for-opencode"),
    pytest.param(
        {H: MODE + "Archivo: $1\n"}, "[targets.opencode]\n\n" + CLAUDE, [(H, 5, 10, counted(1))], id="linted-for-opencode"
    ),
    pytest.param({H: MODE + "Archivo: $1\n"}, "", [], id="silent-without-a-claude-target"),
    pytest.param({H: MODE + "Archivo: $1\n"}, "[targets.opencode]\n", [], id="silent-for-opencode-only"),
    pytest.param({"specs/agents/b.md": AGENT.replace("Cuerpo.", "Usa $1")}, CLAUDE, [], id="agents-are-not-checked"),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_positional_arguments(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    found = diagnostics(RULE, {"specs/agents/a.md": AGENT, **files}, config)
    assert_found(found, RULE, expected)


def test_is_a_warning(diagnostics: Diagnostics) -> None:
    files = {"specs/agents/a.md": AGENT, H: MODE + "Archivo: $1\n"}
    [found] = diagnostics(RULE, files, CLAUDE)
    assert found.severity.value == "warning"

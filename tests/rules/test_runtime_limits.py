"""runtime-limits: agents and modes Copilot CLI or Gemini CLI would not load, or would run otherwise."""

from __future__ import annotations

import pytest

from tests.rules.conftest import Diagnostics, Expected, agent, assert_found

RULE = "runtime-limits"
GEMINI = "[targets.gemini]\n"
COPILOT = "[targets.copilot]\n"
SUB = "description: Revisa el código sin editarlo.\nmode: subagent"
LONG = "Revisa cada archivo y reporta con ruta y línea.\n" * 700  # 33,600 characters
AT_LIMIT = "Revisa cada archivo y reporta con ruta y línea.\n" * 625  # 30,000 characters


def mode(body: str) -> str:
    return f"---\ndescription: Modo de prueba.\n---\n{body}"


# (files, config, expected)
CASES = [
    # The docstring's Fails and Passes examples.
    pytest.param({"specs/agents/Code Reviewer.md": agent(SUB, "Usa ${PROJECT_ROOT} como raíz.\n")}, GEMINI, [("specs/agents/Code Reviewer.md", 1, 1, "Gemini CLI names an agent by a slug"), ("specs/agents/Code Reviewer.md", 5, 5, "Gemini CLI fills `${PROJECT_ROOT}`")], id="docstring-fails"),
    pytest.param({"specs/agents/code-reviewer.md": agent(SUB, "Usa la raíz del proyecto.\n")}, GEMINI, [], id="docstring-passes"),
    # Only the configured runtimes are held to their limits.
    pytest.param({"specs/agents/Code Reviewer.md": agent(SUB, "Usa ${PROJECT_ROOT} como raíz.\n")}, "", [], id="no-new-target"),
    pytest.param({"specs/agents/Code Reviewer.md": agent(SUB)}, COPILOT, [], id="copilot-takes-any-name"),
    pytest.param({"specs/agents/_draft.md": agent(SUB)}, GEMINI, [("specs/agents/_draft.md", 1, 1, "Gemini CLI names an agent")], id="gemini-underscore"),
    pytest.param({"specs/agents/mute.md": agent("mode: subagent")}, GEMINI, [("specs/agents/mute.md", 1, 1, "Gemini CLI refuses an agent without")], id="gemini-no-description"),
    pytest.param({"specs/modes/m.md": mode("Mira !{ls} y @{README.md}\n")}, GEMINI, [("specs/modes/m.md", 4, 6, "Gemini CLI reads `!{` in a command as a shell"), ("specs/modes/m.md", 4, 14, "Gemini CLI reads `@{` in a command as a file")], id="gemini-mode-injection"),
    pytest.param({"specs/modes/m.md": mode("Mira el README y la salida de ls.\n")}, GEMINI, [], id="gemini-mode-without-injection"),
    pytest.param({"specs/modes/m.md": mode("Mira !{ls}\n")}, COPILOT, [], id="copilot-mode-text-is-text"),
    pytest.param({"specs/agents/a.md": agent(SUB, LONG)}, COPILOT, [("specs/agents/a.md", 5, 1, "body is 33,600 characters")], id="copilot-body-over-30000"),
    pytest.param({"specs/agents/a.md": agent(SUB, AT_LIMIT)}, COPILOT, [], id="copilot-body-of-30000"),
    pytest.param({"specs/agents/a.md": agent(SUB, LONG)}, GEMINI, [], id="gemini-long-body"),
    pytest.param({"specs/agents/team/reviewer.md": agent(SUB), "specs/agents/team-reviewer.md": agent(SUB)}, COPILOT, [("specs/agents/team-reviewer.md", 1, 1, "are both named 'team-reviewer' in Copilot CLI")], id="two-ids-one-name"),
    pytest.param({"specs/agents/team/reviewer.md": agent(SUB), "specs/agents/reviewer.md": agent(SUB)}, COPILOT, [], id="two-ids-two-names"),
]  # fmt: skip


@pytest.mark.parametrize(("files", "config", "expected"), CASES)
def test_runtime_limits(
    diagnostics: Diagnostics, files: dict[str, str], config: str, expected: Expected
) -> None:
    assert_found(diagnostics(RULE, files, config), RULE, expected)

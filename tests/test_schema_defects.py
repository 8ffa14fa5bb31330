"""The planted defects of tests/schema_cases.py: each reported at its line:col under its rule id."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Diagnostic
from promptc_compiler.core.config import load_config
from tests.schema_cases import CASES, REFERENCE_AGENT, Case


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Diagnostic]]:
    """One lint over a bundle holding every case: case name -> its diagnostics."""
    root = tmp_path_factory.mktemp("bundle")
    (root / "promptc.toml").write_text("")
    agents = root / "specs" / "agents"
    agents.mkdir(parents=True)
    for case in CASES:
        (agents / f"{case.name}.md").write_text(case.text, encoding="utf-8")
    (agents / "reference.md").write_text(REFERENCE_AGENT, encoding="utf-8")
    found: dict[str, list[Diagnostic]] = {}
    for diagnostic in api.lint(load_config(cwd=root)).diagnostics:
        # The table is about frontmatter validation; the permission rules have
        # their own tables (an agent that never mentions bash is flagged there).
        if diagnostic.rule in FRONTMATTER_RULES:
            found.setdefault(Path(diagnostic.path).stem, []).append(diagnostic)
    return found


FRONTMATTER_RULES = {
    "syntax",
    "schema",
    "key-typo",
    "unknown-key",
    "cross-ecosystem",
    "deprecated-key",
}


def test_the_table_is_large_and_names_are_unique() -> None:
    assert len(CASES) >= 25
    assert len({c.name for c in CASES}) == len(CASES)
    assert {rule for c in CASES for _, _, rule in c.expect} == {
        "schema",
        "key-typo",
        "unknown-key",
        "cross-ecosystem",
        "deprecated-key",
    }


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_defect_is_reported_at_its_position_under_its_rule(
    case: Case, reported: dict[str, list[Diagnostic]]
) -> None:
    got = {(d.line, d.column, d.rule) for d in reported.get(case.name, [])}
    assert got == set(case.expect), [d.as_text() for d in reported.get(case.name, [])]


def test_the_reference_example_has_no_diagnostic(reported: dict[str, list[Diagnostic]]) -> None:
    assert reported.get("reference", []) == []


# What a person reads: the path, what is accepted, what was found, how to fix it.
MESSAGES = {
    "mode-unknown": "$.mode: 'sidekick' is not one of subagent, primary, all",
    "temperature-string": "$.temperature: must be a number (found the text '0.2'). Remove the quotes: temperature: 0.2",
    "temperature-infinite": "$.temperature: must be a finite number, not the number inf",
    "steps-zero": "$.steps: must be a whole number of at least 1 (found the number 0)",
    "hidden-yes": "$.hidden: expected true or false, found the text 'yes'. The runtimes read YAML 1.2, where only true and false are booleans",
    "description-date": '$.description: expected a string, found the date 2026-01-13. YAML reads an unquoted date as a date: quote it ("2026-01-13")',
    "tools-list": "$.tools: must be a map of tool → true/false (deprecated; use `permission`). A list or a comma-separated string is Claude Code's `tools`; in OpenCode write `permission: {edit: deny, bash: deny, …}` (found a list)",
    "color-claude-name": "(found the text 'blue'). 'blue' is a `claude` colour: put it under `targets: {claude: {color: blue}}`",
    "color-hex-unquoted": 'An unquoted `#` starts a YAML comment: quote hex colours (color: "#FF5733")',
    "permission-null": "$.permission: must be an action (allow, ask or deny) or a map of permission → action or pattern map (found an empty value). YAML reads an empty value as null",
    "permission-action-typo": "$.permission.bash: must be allow, ask or deny (found the text 'alow'; did you mean `allow`?)",
    "permission-pattern-yes": "$.permission.bash[\"git *\"]: must be allow, ask or deny (found the text 'yes')",
    "permission-scalar-map": "$.permission.webfetch: takes one action (allow, ask or deny), not a map of patterns (found a map)",
    "description-missing": "$: required key 'description' is missing",
    "targets-unknown": "unknown key 'claud' at $.targets (did you mean `claude`?)",
    "targets-claude-hooks-list": "`hooks: []` makes Claude Code drop the whole file: write `hooks: {}` or leave it out (found a list)",
    "targets-claude-provider": "(Claude Code takes no provider/ prefix) (found the text 'anthropic/claude-haiku-4-5')",
    "key-permisson": "unknown key 'permisson' (did you mean `permission`?): OpenCode moves it into `options`, so none of its rules apply",
    "key-permissions": "unknown key 'permissions' (did you mean `permission`?)",
    "key-temprature": "unknown key 'temprature' (did you mean `temperature`?)",
    "key-invented": "'category' is not an OpenCode agent key: OpenCode moves it into `options`, which are sent to the model provider",
    "model-claude-alias": "'haiku' is a Claude Code model name; OpenCode needs `provider/model` (e.g. `anthropic/claude-haiku-4-5`)",
    "model-mode-value": "`model: subagent` names a mode, not a model: write `mode: subagent`",
    "allowed-tools-on-agent": "`allowed-tools` is a Claude Code key for commands and skills",
    "hooks-empty-list": "`hooks: []` makes Claude Code drop the agent",
    "permission-claude-tool": "`Bash` is a Claude Code tool name: OpenCode's permission keys are lowercase, so this rule matches no tool. Write `bash`",
    "permission-claude-rule": 'Write `bash: {"git push *": allow}`',
    "tools-map-and-permission": "Move its entries into `permission` (`permission: {bash: deny}`)",
    "max-steps": "`maxSteps` is deprecated: write `steps`",
}


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_message_is_actionable(name: str, reported: dict[str, list[Diagnostic]]) -> None:
    messages = [d.message for d in reported[name]]
    assert any(MESSAGES[name] in m for m in messages), messages

"""Rule tests, yamllint-style: a bundle in, the (path, line, column, rule) found out."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Diagnostic
from promptc_compiler.core.config import load_config
from tests.conftest import MakeBundle

Found = list[tuple[str, int, int, str]]
Lint = Callable[..., Found]
Diagnostics = Callable[..., list[Diagnostic]]
Messages = Callable[..., list[str]]
# What a case expects, one entry per diagnostic: (path, line, column, words of its message).
Expected = list[tuple[str, int, int, str]]


def agent(front: str, body: str = "Cuerpo.\n") -> str:
    """An agent file: frontmatter text (dedented) between fences, then a body."""
    return f"---\n{textwrap.dedent(front).strip()}\n---\n{body}"


def assert_found(found: list[Diagnostic], rule: str, expected: Expected) -> None:
    """`found` is exactly `expected`: each diagnostic of `rule`, at its place, saying its words."""
    assert [(d.path, d.line, d.column, d.rule) for d in found] == [
        (path, line, column, rule) for path, line, column, _ in expected
    ], [d.as_text() for d in found]
    for diagnostic, (*_, words) in zip(found, expected, strict=True):
        assert words in diagnostic.message, diagnostic.message


@pytest.fixture
def diagnostics(make_bundle: MakeBundle) -> Diagnostics:
    """diagnostics(rule_id, files, config="") -> every Diagnostic of that rule, in report order.

    `config` is the text of promptc.toml; None writes none (for a bundle configured in
    pyproject.toml, or not at all).
    """

    def run(rule: str, files: dict[str, str | bytes], config: str | None = "") -> list[Diagnostic]:
        make_bundle({**({"promptc.toml": config} if config is not None else {}), **files})
        result = api.lint(load_config())
        return [d for d in result.diagnostics if d.rule == rule]

    return run


@pytest.fixture
def lint(diagnostics: Diagnostics) -> Lint:
    """lint(rule_id, files, config="") -> every (path, line, column, rule) of that rule."""

    def run(rule: str, files: dict[str, str | bytes], config: str | None = "") -> Found:
        return [(d.path, d.line, d.column, d.rule) for d in diagnostics(rule, files, config)]

    return run


@pytest.fixture
def messages(diagnostics: Diagnostics) -> Messages:
    """messages(rule_id, files, config="") -> the text of every diagnostic of that rule."""

    def run(rule: str, files: dict[str, str | bytes], config: str | None = "") -> list[str]:
        return [d.as_text() for d in diagnostics(rule, files, config)]

    return run

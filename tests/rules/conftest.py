"""Rule tests, yamllint-style: a bundle in, the (path, line, column, rule) found out."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from compiler import api
from compiler.config import load_config
from tests.conftest import MakeBundle

Found = list[tuple[str, int, int, str]]
Lint = Callable[..., Found]


def agent(front: str, body: str = "Cuerpo.\n") -> str:
    """An agent file: frontmatter text (dedented) between fences, then a body."""
    return f"---\n{textwrap.dedent(front).strip()}\n---\n{body}"


@pytest.fixture
def lint(make_bundle: MakeBundle) -> Lint:
    """lint(rule_id, files, config="") -> every (path, line, column, rule) of that rule."""

    def run(rule: str, files: dict[str, str], config: str = "") -> Found:
        make_bundle({"promptc.toml": config, **files})
        result = api.lint(load_config())
        return [(d.path, d.line, d.column, d.rule) for d in result.diagnostics if d.rule == rule]

    return run


@pytest.fixture
def messages(make_bundle: MakeBundle) -> Callable[..., list[str]]:
    """messages(rule_id, files, config="") -> the text of every diagnostic of that rule."""

    def run(rule: str, files: dict[str, str], config: str = "") -> list[str]:
        make_bundle({"promptc.toml": config, **files})
        result = api.lint(load_config())
        return [d.as_text() for d in result.diagnostics if d.rule == rule]

    return run

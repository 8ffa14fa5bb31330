"""The README's delegation diagram is exactly what `promptc graph --format mermaid` prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler import api, delegation
from compiler.config import load_config

REPO = Path(__file__).resolve().parents[1]
BLOCK = re.compile(
    r"<!-- promptc graph --format mermaid -->\n```mermaid\n(.*?)```\n<!-- end promptc graph -->",
    re.DOTALL,
)


def test_readme_graph_is_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # edge labels are paths relative to the working directory
    config = load_config(cwd=REPO)
    expected = delegation.render(api.delegation_graph(config), "mermaid", config.display)
    found = BLOCK.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert found is not None, "README.md lost its promptc graph block"
    assert found.group(1) == expected, (
        "README.md's delegation graph is stale: paste `promptc graph --format mermaid` into it"
    )

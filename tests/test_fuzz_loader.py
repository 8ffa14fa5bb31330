"""Fuzz the loader and the config: any bytes end in findings or a parse, never an exception."""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from promptc_compiler.base.errors import ConfigError
from promptc_compiler.base.limits import MAX_DEPTH
from promptc_compiler.core.config import load_config
from promptc_compiler.core.loader import load_bytes
from promptc_compiler.rules import RULES
from tests.strategies import SCRATCH, line_count, shape, spec_bytes, tick, yaml_documents, yaml_text

P = Path("specs/agents/x.md")


def check_source(raw: bytes) -> None:
    source = load_bytes(P, raw)
    lines = line_count(raw)
    for rule, problem in source.findings:
        assert rule in RULES
        assert problem.message
        assert 1 <= problem.line <= lines, (problem, lines)
        assert problem.column >= 1
    if source.frontmatter is not None:
        assert isinstance(source.frontmatter.data, dict)
        for line, _ in (*source.frontmatter.keys.values(), *source.frontmatter.values.values()):
            assert 1 <= line <= lines
    if source.ok:
        assert source.body_line >= 1
        assert "\r" not in source.body


@given(st.binary(max_size=4096))
@example(b"---\na: " + b"[" * 2000 + b"\n---\n")
@example(b"---\nn: " + b"9" * 5000 + b"\n---\n")
@example(b"---\n\x85a: 1\n---\n")
def test_any_bytes(raw: bytes) -> None:
    tick("loader: any bytes")
    check_source(raw)


@given(spec_bytes())
def test_any_spec_file(raw: bytes) -> None:
    tick("loader: spec-shaped bytes")
    check_source(raw)


@given(yaml_text)
@example("a: &a [*a]")
@example("a: !!python/object/apply:os.system ['true']")
@example("? [a]\n: b")
def test_any_frontmatter(text: str) -> None:
    tick("loader: arbitrary YAML")
    check_source(f"---\n{text}\n---\nbody\n".encode("utf-8", "surrogatepass"))


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@given(yaml_documents)
def test_valid_yaml_keeps_its_shape(text: str) -> None:
    tick("loader: valid YAML documents")
    raw = f"---\n{text}---\nbody\n".encode()
    check_source(raw)
    source = load_bytes(P, raw)
    expected = yaml.safe_load(text) or {}
    if _depth(expected) <= MAX_DEPTH:
        assert source.ok, source.findings
        assert source.frontmatter is not None
        assert shape(source.frontmatter.data) == shape(expected)


TOML_PIECES = [
    'specs = "specs"\n',
    'out = "../outside"\n',
    "out = 3\n",
    'fragments = ""\n',
    "[targets.opencode]\n",
    "[targets.claude]\n",
    "[targets]\nopencode = 1\n",
    "[rules.description-length]\n",
    "min = -1\n",
    "max = 1e999\n",
    'level = "loud"\n',
    'level = "off"\n',
    "[rules.syntax]\n",
    "[rules.nope]\n",
    "custom_tools = [1, 2]\n",
    'custom_tools = ["plan_db"]\n',
    "default_agent = {}\n",
    "[[rules]]\n",
    "rules = []\n",
    "[tool.promptc]\n",
    "x = \n",
    "a.b.c = 1\n",
    "\n",
]

toml_text = st.lists(st.sampled_from(TOML_PIECES) | st.text(max_size=10), max_size=8).map("".join)


@given(toml_text, st.sampled_from(["promptc.toml", "pyproject.toml"]))
def test_any_config(text: str, name: str) -> None:
    tick("config: arbitrary TOML")
    with tempfile.TemporaryDirectory(prefix="promptc-fuzz-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        (root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            config = load_config(cwd=root)
        except ConfigError as exc:  # one outcome of an arbitrary text, not the expected one
            assert str(exc)  # noqa: PT017
            return
        assert config.root == root.resolve()

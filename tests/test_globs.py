"""runtimes.globs: star patterns matched as a backtracking expression would, in linear time."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptc_compiler.runtimes import globs
from promptc_compiler.runtimes.globs import Star
from tests.conftest import MakeBundle, finished

PARTS = st.lists(st.sampled_from(["a", "b", ".", "[^a]", globs.STAR]), max_size=8)
TEXTS = st.text(alphabet="ab\n/", max_size=12)


@given(PARTS, TEXTS)
def test_a_pattern_matches_what_its_expression_matches(parts: list[str], text: str) -> None:
    expression = "".join(".*" if part == globs.STAR else part for part in parts)
    expected = re.fullmatch(expression, text, re.DOTALL) is not None
    assert Star.of(parts).matches(text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("git *", "git status", True),
        ("git *", "git", False),
        ("*", "", True),
        ("a*b*a", "aba", True),
        ("a*b*a", "ab", False),  # the last piece may not reuse the first
        ("a*b*b", "ab", False),  # nor a middle one
        ("a*b*b", "abb", True),
        ("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a" * 5000, False),
        ("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a" * 5000 + "b", True),
        ("x?y", "x?y", True),  # only `*` is special
        ("x?y", "xay", False),
    ],
)
def test_literal_patterns(pattern: str, text: str, expected: bool) -> None:
    assert Star.literal(pattern).matches(text) is expected


HOSTILE = """\
---
description: Agente con un patron de muchas estrellas y un comando largo que lo roza.
mode: subagent
permission:
  bash:
    "*": allow
    "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b": deny
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa *": ask
---
Cuerpo.
"""


@pytest.mark.parametrize("target", ["claude", "copilot"])
def test_a_pattern_of_many_stars_never_hangs_a_decision_model(
    make_bundle: MakeBundle, target: str
) -> None:
    """The proof asks the model about a line of 48 `a`s: an expression with `.*`
    for each star did not end in a minute. Run in a child process, so that the
    test fails rather than hangs; the timeout is a guard, not a measure."""
    root = make_bundle({"promptc.toml": f"[targets.{target}]\n", "specs/agents/a.md": HOSTILE})
    built = finished(root, "build", "-q", hung="promptc build did not finish")
    assert (built.returncode, built.stderr) == (0, "")
    # A long line the pattern matches: the runtime's deny decides; one it does not
    # match: what OpenCode allows, the runtime allows or asks.
    for line, codes in (("a" * 5000 + "b", {20}), ("a" * 5000, {0, 10})):
        args = ("can", "a", "bash", line, "--target", target)
        done = finished(root, *args, hung="promptc can did not finish")
        assert done.returncode in codes, done.stdout + done.stderr
        if codes == {20}:
            assert "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b" in done.stdout

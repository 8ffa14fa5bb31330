"""`--fix`: the fixer's line arithmetic, and every required-snippet fix before and after."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from promptc_compiler.base.diagnostics import Diagnostic, Fix, Severity
from promptc_compiler.pipeline import fix
from promptc_compiler.pipeline.fix import split_lines
from tests.conftest import MakeBundle, Run
from tests.rules.test_required_snippet import (
    CONFIG,
    FRAGMENT,
    MAXI,
    ONE_CHARACTER,
    QUIET,
    SNIPPET,
    TONE,
    ULTRA,
    WRAPPED,
    agent,
)

Runner = Callable[..., Run]

# --- the fixer on text -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fixes", "expected"),
    [
        ("a\nb\nc\n", [Fix(2, 2, "B\n")], "a\nB\nc\n"),
        ("a\nb\nc\n", [Fix(2, 1, "x\n")], "a\nx\nb\nc\n"),
        ("a\nb\nc\n", [Fix(2, 3, "")], "a\n"),
        ("a\r\nb\r\nc\r\n", [Fix(2, 2, "B1\nB2\n")], "a\r\nB1\r\nB2\r\nc\r\n"),
        ("a\rb\rc\r", [Fix(3, 3, "C\n")], "a\rb\rC\r"),
        ("a\nb", [Fix(2, 2, "B\n")], "a\nB"),
        ("a\nb", [Fix(3, 2, "c\n")], "a\nb\nc\n"),
        ("", [Fix(1, 0, "a\n")], "a\n"),
        ("\ufeffa\nb\n", [Fix(1, 0, "x\n")], "\ufeffx\na\nb\n"),
        ("a\nb\n", [Fix(5, 5, "z\n")], "a\nb\n"),
        # Insertion before a replacement at the same line: both apply, in order.
        ("a\nb\n", [Fix(2, 2, "B\n"), Fix(2, 1, "x\n")], "a\nx\nB\n"),
        # Overlapping fixes: the earlier one wins this round.
        ("a\nb\nc\n", [Fix(2, 3, "X\n"), Fix(3, 3, "Y\n")], "a\nX\n"),
        # Two insertions at one place would need an order: only one applies.
        ("a\n", [Fix(1, 0, "y\n"), Fix(1, 0, "x\n")], "x\na\n"),
        # The same fix offered twice applies once.
        ("a\n", [Fix(1, 0, "x\n"), Fix(1, 0, "x\n")], "x\na\n"),
    ],
)
def test_apply(text: str, fixes: list[Fix], expected: str) -> None:
    assert fix.apply(text, fixes) == expected


def test_lines_are_numbered_like_the_loader() -> None:
    assert split_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]


def test_fixing_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_text("a\n")
    path.chmod(0o640)
    assert fix.fix_file(path, [Fix(1, 1, "b\n")])
    assert (path.read_text(), path.stat().st_mode & 0o777) == ("b\n", 0o640)
    assert not fix.fix_file(path, [Fix(1, 1, "b\n")])  # nothing to change: not rewritten


def test_fix_rounds_are_bounded(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_text("")
    rounds: list[int] = []

    def lint() -> list[Diagnostic]:
        rounds.append(1)
        offer = Fix(1, 0, "again\n")  # a fix that never stops changing the file
        return [Diagnostic(str(path), 1, 1, "x", Severity.ERROR, "m", None, offer)]

    assert fix.fix_until_stable(lint, rounds=3).changed == (str(path),)
    assert len(rounds) == 3
    assert path.read_text() == "again\n" * 3


# --- every required-snippet fix, before and after ---------------------------------------

PLAIN = f"{SNIPPET}\n"  # the repository's fragment: no parameters

# (case, files, extra config, replaced lines (first, last) of scout.md, clean afterwards)
# Bodies start at line 5. `clean` is False where the composer in use cannot yet
# expand a parameterised fragment, so only this rule's result is checked.
FIX_CASES: list[tuple[str, dict[str, str], str, tuple[int, int], bool]] = [
    (
        "drift-one-character",
        {"specs/agents/scout.md": agent(f"{ONE_CHARACTER}\n\n# Scout\n\nLee.\n")},
        "",
        (5, 6),
        True,
    ),
    (
        "drift-rewrapped",
        {"specs/agents/scout.md": agent(f"{WRAPPED}\n\n# Scout\n\nLee.\n")},
        "",
        (5, 7),
        True,
    ),
    (
        "drift-lost-a-line",
        {"specs/agents/scout.md": agent(f"{TONE}\n# Scout\n\nLee.\n")},
        "",
        (5, 5),
        True,
    ),
    (
        "drift-rewrapped-fixed-as-text",
        {"specs/agents/scout.md": agent(f"{WRAPPED}\n\n# Scout\n\nLee.\n")},
        'fix_style = "text"\n',
        (5, 7),
        True,
    ),
    (
        "other-level-inline",
        {"specs/agents/scout.md": agent(f"{ULTRA}\n\n# Scout\n"), "fragments/caveman.md": FRAGMENT},
        'fix_style = "text"\n',
        (5, 6),
        True,
    ),
    (
        "unknown-level-inline",
        {"specs/agents/scout.md": agent(f"{MAXI}\n\n# Scout\n"), "fragments/caveman.md": FRAGMENT},
        'fix_style = "text"\n',
        (5, 6),
        True,
    ),
    (
        "other-level-call",
        {
            "specs/agents/scout.md": agent('<<caveman(level="ultra")>>\n\n# Scout\n'),
            "fragments/caveman.md": FRAGMENT,
        },
        "",
        (5, 5),
        False,
    ),
    (
        "missing",
        {"specs/agents/scout.md": agent("# Scout\n\nLee.\n")},
        "",
        (5, 4),
        True,
    ),
    (
        "missing-after-blank-line",
        {"specs/agents/scout.md": agent("\n# Scout\n")},
        "",
        (6, 5),
        True,
    ),
    (
        "missing-empty-body-no-final-newline",
        {"specs/agents/scout.md": agent("").rstrip("\n")},
        "",
        (4, 4),  # the closing `---` gains the line ending it lacked
        True,
    ),
    (
        "missing-fixed-as-text",
        {"specs/agents/scout.md": agent("# Scout\n")},
        'fix_style = "text"\n',
        (5, 4),
        True,
    ),
    (
        "misplaced-after-heading",
        {"specs/agents/scout.md": agent("# Scout\n\n<<caveman>>\n\nLee.\n")},
        "",
        (5, 8),
        True,
    ),
    (
        "misplaced-at-end-of-file",
        {"specs/agents/scout.md": agent(f"# Scout\n\nLee.\n\n{SNIPPET}")},
        "",
        (5, 10),
        True,
    ),
    (
        "misplaced-and-drifted",
        {"specs/agents/scout.md": agent(f"# Scout\n\n{WRAPPED}\n\nLee.\n")},
        "",
        (5, 10),
        True,
    ),
    (
        "duplicated",
        {"specs/agents/scout.md": agent("<<caveman>>\n\n# Scout\n\n<<caveman>>\n\nLee.\n")},
        "",
        (9, 10),
        True,
    ),
    (
        "duplicated-right-below",
        {"specs/agents/scout.md": agent(f"<<caveman>>\n{SNIPPET}\n\n# Scout\n")},
        "",
        (6, 7),
        True,
    ),
    (
        "duplicated-misplaced-drifted",
        {"specs/agents/scout.md": agent(f"# Scout\n\n{WRAPPED}\n\nLee.\n\n{ONE_CHARACTER}\n")},
        "",
        (5, 14),
        True,
    ),
    (
        "exempt",
        {"specs/agents/craftsman.md": agent("<<caveman>>\n\n# Craftsman\n", "primary")},
        "",
        (5, 6),
        True,
    ),
    (
        "inline-copy-replaced",
        {"specs/agents/scout.md": agent(f"{SNIPPET}\n\n# Scout\n")},
        "allow_inline = false\n",
        (5, 6),
        True,
    ),
]


def _fixed_file(files: dict[str, str]) -> str:
    return next(p for p in files if p.startswith("specs/agents/"))


@pytest.mark.parametrize(
    ("case", "files", "extra", "lines", "clean"), FIX_CASES, ids=[c[0] for c in FIX_CASES]
)
def test_fix_case(
    make_bundle: MakeBundle,
    run: Runner,
    snapshot: SnapshotAssertion,
    case: str,
    files: dict[str, str],
    extra: str,
    lines: tuple[int, int],
    clean: bool,
) -> None:
    target = _fixed_file(files)
    make_bundle({"promptc.toml": CONFIG + extra, "fragments/caveman.md": PLAIN, **files})
    before = Path(target).read_bytes()

    first = run("lint", "--fix")
    after = Path(target).read_bytes()
    assert first.code == 1
    assert first.err.splitlines()[0] == f"Fixing {target}"
    assert "[required-snippet]" not in first.out
    assert {"before": before.decode(), "after": after.decode()} == snapshot

    # Only the snippet's lines changed: everything before and after them is byte-identical.
    start, end = lines
    old, new = split_lines(before.decode()), split_lines(after.decode())
    tail = len(old) - end
    assert new[: start - 1] == old[: start - 1]
    assert new[len(new) - tail :] == old[end:]

    second = run("lint", "--fix")
    assert "Fixing" not in second.err
    assert "[required-snippet]" not in second.out
    assert Path(target).read_bytes() == after
    if clean:
        assert second.code == 0, second.out


def test_crlf_file_keeps_its_line_endings(make_bundle: MakeBundle, run: Runner) -> None:
    text = agent(f"{WRAPPED}\n\n# Scout\n").replace("\n", "\r\n")
    make_bundle({"promptc.toml": CONFIG, "fragments/caveman.md": PLAIN})
    Path("specs/agents").mkdir(parents=True)
    Path("specs/agents/scout.md").write_bytes(text.encode())
    assert run("lint", "--fix").code == 1
    expected = agent("<<caveman>>\n\n# Scout\n").replace("\n", "\r\n").encode()
    assert Path("specs/agents/scout.md").read_bytes() == expected
    second = run("lint", "--fix")
    assert (second.code, "Fixing" in second.err) == (0, False)  # the CRLF warning remains


def test_fix_touches_only_files_with_problems(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": CONFIG,
            "fragments/caveman.md": PLAIN,
            "specs/agents/scout.md": agent("<<caveman>>\n\n# Scout\n"),
            "specs/agents/sage.md": agent("# Sage\n"),
            "specs/agents/smith.md": agent(f"{ONE_CHARACTER}\n\n# Smith\n"),
        }
    )
    untouched = Path("specs/agents/scout.md").stat().st_mtime_ns
    result = run("lint", "--fix")
    assert result.code == 1
    assert result.err.splitlines()[:2] == [
        "Fixing specs/agents/sage.md",
        "Fixing specs/agents/smith.md",
    ]
    assert "fixed 2 file(s)" in result.err
    assert Path("specs/agents/scout.md").stat().st_mtime_ns == untouched


def test_remaining_problems_are_reported_after_fixing(make_bundle: MakeBundle, run: Runner) -> None:
    nested = {"fragments/intro.md": f"{WRAPPED}\n", "specs/agents/sage.md": agent("<<intro>>\n")}
    make_bundle(
        {
            "promptc.toml": CONFIG + QUIET,
            "fragments/caveman.md": PLAIN,
            "specs/agents/scout.md": agent("# Scout\n"),
            **nested,
        }
    )
    result = run("lint", "--fix")
    assert result.code == 1
    assert result.err.splitlines()[0] == "Fixing specs/agents/scout.md"
    # The copy that comes from another fragment has no fix; it is still reported.
    assert result.out.startswith("specs/agents/sage.md:5:1: error [required-snippet] ")
    again = run("lint", "--fix")
    assert again.code == 1 and "Fixing" not in again.err


def test_a_file_that_cannot_be_written_is_an_error(
    make_bundle: MakeBundle, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_bundle(
        {
            "promptc.toml": CONFIG,
            "fragments/caveman.md": PLAIN,
            "specs/agents/scout.md": agent("# Scout\n"),
        }
    )

    def refuse(path: Path, content: bytes, mode: int | None = None) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(fix, "replace_file", refuse)
    result = run("lint", "--fix")
    assert result.code == 1
    assert "Fixing" not in result.err
    assert (
        "specs/agents/scout.md:1:1: error [write] cannot write the fix: Permission denied"
        in result.out.splitlines()
    )
    assert "specs/agents/scout.md:5:1: error [required-snippet]" in result.out
    assert Path("specs/agents/scout.md").read_text() == agent("# Scout\n")


def test_lint_without_fix_writes_nothing(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": CONFIG,
            "fragments/caveman.md": PLAIN,
            "specs/agents/scout.md": agent(f"{WRAPPED}\n"),
        }
    )
    before = Path("specs/agents/scout.md").read_bytes()
    result = run("lint")
    assert result.code == 1
    assert "specs/agents/scout.md:6:56: error [required-snippet]" in result.out
    assert Path("specs/agents/scout.md").read_bytes() == before


def test_check_fix(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": CONFIG,
            "fragments/caveman.md": PLAIN,
            "specs/agents/scout.md": agent("# Scout\n"),
        }
    )
    result = run("check", "--fix")
    assert result.code == 1
    assert result.err.splitlines()[0] == "Fixing specs/agents/scout.md"
    assert Path("specs/agents/scout.md").read_text() == agent("<<caveman>>\n\n# Scout\n")
    assert run("build").code == 0
    assert run("check", "--fix").code == 0


def test_fix_with_json_output_keeps_stdout_json(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": CONFIG + QUIET,
            "fragments/caveman.md": PLAIN,
            "specs/agents/scout.md": agent("# Scout\n"),
        }
    )
    result = run("lint", "--fix", "--format", "json")
    assert result.code == 1
    assert json.loads(result.out)["diagnostics"] == []
    assert result.err.splitlines()[0] == "Fixing specs/agents/scout.md"


def test_json_marks_fixable_diagnostics(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle(
        {
            "promptc.toml": CONFIG,
            "fragments/caveman.md": PLAIN,
            "specs/agents/scout.md": agent("# Scout\n"),
        }
    )
    items = json.loads(run("lint", "--format", "json").out)["diagnostics"]
    [item] = [i for i in items if i["rule"] == "required-snippet"]
    assert (item["rule"], item["line"], item["fixable"]) == ("required-snippet", 5, True)


# --- any arrangement: one --fix leaves nothing to fix and only snippet lines changed -----

OWN_TONE = "- Caveman nivel `full` SIEMPRE. Cero saludos, cero justificaciones, viñetas densas."
OTHER = ["# Título", "Prosa.", "- ítem", OWN_TONE]
PIECES = [SNIPPET, WRAPPED, ONE_CHARACTER, ULTRA, TONE, "<<caveman>>", "", *OTHER]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8), st.sampled_from(["subagent", "primary"]))
def test_any_arrangement_is_fixed_in_one_run(pieces: list[str], mode: str) -> None:
    from promptc_compiler import api
    from promptc_compiler.core.config import load_config

    body = "".join(f"{piece}\n" for piece in pieces)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "specs/agents").mkdir(parents=True)
        (root / "fragments").mkdir()
        (root / "promptc.toml").write_text(CONFIG, encoding="utf-8")
        (root / "fragments/caveman.md").write_text(PLAIN, encoding="utf-8")
        name = "craftsman" if mode == "primary" else "scout"
        spec = root / f"specs/agents/{name}.md"
        spec.write_text(agent(body, mode), encoding="utf-8")
        config = load_config(cwd=root)
        cwd = os.getcwd()
        os.chdir(root)
        try:
            api.lint(config, fix=True)
            result = api.lint(config, fix=True)
        finally:
            os.chdir(cwd)
        assert result.fixed == ()
        assert [d for d in result.diagnostics if d.rule == "required-snippet"] == []
        after = spec.read_text(encoding="utf-8").split("\n")
        kept = [line for line in after if line in OTHER]
        assert kept == [piece for piece in pieces if piece in OTHER]
        carried = after.count("<<caveman>>") + "\n".join(after).count(SNIPPET)
        assert carried == (1 if mode == "subagent" else 0)

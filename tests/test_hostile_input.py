"""Hostile and broken input, one case a test: each ends in exact diagnostics
(path:line:col, severity, rule) and the right exit code, never a traceback,
never a hang, never a read outside the project."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from promptc_compiler.core import loader
from tests.conftest import AGENT, MODE, MakeBundle, Run

Runner = Callable[..., Run]

# The first line after the sample agent, where an appended placeholder lands.
AFTER = AGENT.count("\n") + 1

HEAD = b"---\ndescription: Reviews diffs for bugs and missing tests.\n"


def diagnostics(result: Run) -> list[str]:
    """Each diagnostic as `path:line:col: severity [rule]`, message left out."""
    return [line.split("]")[0] + "]" for line in result.out.splitlines() if " [" in line]


# Minimal agents here never mention bash, which `dangerous-allow` rightly flags;
# these cases are about the input, so that rule is off.
QUIET = '[rules.dangerous-allow]\nlevel = "off"\n'


def lint(make_bundle: MakeBundle, run: Runner, files: Mapping[str, str | bytes]) -> Run:
    make_bundle({"promptc.toml": QUIET, **files})
    result = run("lint")
    assert "Traceback" not in result.err
    assert "internal error" not in result.err
    return result


# --- bytes and encodings --------------------------------------------------------

ENCODING_CASES = [
    ("nul", HEAD + b"---\nbody\x00more\n", ["4:5: error [syntax]"], "NUL byte"),
    ("latin-1", HEAD + b"---\ncaf\xe9\n", ["4:4: error [syntax]"], "byte 0xe9"),
    ("lone-0xff", b"\xff" + HEAD[1:], ["1:1: error [syntax]"], "byte 0xff"),
    ("overlong", HEAD + b"---\n\xc0\xaf\n", ["4:1: error [syntax]"], "byte 0xc0"),
    ("surrogate", HEAD + b"---\nok \xed\xa0\x80\n", ["4:4: error [syntax]"], "byte 0xed"),
    ("truncated", HEAD + b"---\nbody \xe2\x82", ["4:6: error [syntax]"], "byte 0xe2"),
    (
        "utf-16",
        "---\ndescription: x\n---\n".encode("utf-16"),
        ["1:1: error [syntax]"],
        "file is UTF-16; save it as UTF-8",
    ),
]


def test_crlf_is_a_warning_and_the_build_emits_lf(make_bundle: MakeBundle, run: Runner) -> None:
    make_bundle({"specs/agents/a.md": AGENT.replace("\n", "\r\n").encode()})
    result = run("build")
    assert result.code == 0
    assert diagnostics(result) == ["specs/agents/a.md:1:4: warning [encoding]"]
    emitted = Path("build/opencode/.opencode/agents/a.md").read_bytes()
    assert b"\r" not in emitted
    assert emitted.endswith(b"Lee el c\xc3\xb3digo y reporta.\n")


def test_lone_cr_line_endings(make_bundle: MakeBundle, run: Runner) -> None:
    result = lint(make_bundle, run, {"specs/agents/a.md": AGENT.replace("\n", "\r").encode()})
    assert result.code == 0
    assert diagnostics(result) == ["specs/agents/a.md:1:4: warning [encoding]"]


def test_bom_and_crlf_are_both_reported(make_bundle: MakeBundle, run: Runner) -> None:
    raw = b"\xef\xbb\xbf" + AGENT.replace("\n", "\r\n").encode()
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 0
    assert diagnostics(result) == [
        "specs/agents/a.md:1:1: warning [encoding]",
        "specs/agents/a.md:1:4: warning [encoding]",
    ]
    assert "byte-order mark" in result.out
    assert "CRLF" in result.out


def test_bom_inside_the_frontmatter(make_bundle: MakeBundle, run: Runner) -> None:
    raw = HEAD + "mode: \ufeffsubagent\n---\nbody\n".encode()
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    # Past the start of a file, U+FEFF is an invisible character too.
    assert diagnostics(result) == [
        "specs/agents/a.md:3:7: error [hidden-text]",
        "specs/agents/a.md:3:7: error [schema]",
    ]


def test_control_characters_never_reach_the_terminal(make_bundle: MakeBundle, run: Runner) -> None:
    raw = HEAD + b'"\\e[2J\\nX": 1\n"\\e[2J\\nX": 2\n---\nbody\n'
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    [line] = result.out.splitlines()
    assert line.startswith("specs/agents/a.md:4:1: error [syntax] duplicate key")
    assert "'\\x1b[2J\\x0aX'" in line
    assert "\x1b" not in result.out


# --- frontmatter fences and YAML --------------------------------------------------

FENCE_CASES = [
    ("unclosed", HEAD + b"mode: subagent\nbody\n", ["1:1: error [syntax]"], "never closed"),
    (
        "indented-4",
        b"    ---\n    description: Reviews diffs.\n    ---\nbody\n",
        ["1:5: error [syntax]"],
        "indented",
    ),
    ("after-blank-line", b"\n" + HEAD + b"---\nbody\n", ["2:1: error [syntax]"], "line 1"),
    ("only-a-fence", b"---\n", ["1:1: error [syntax]"], "never closed"),
    (
        "tab-indent",
        HEAD + b"permission:\n\tedit: deny\n---\nbody\n",
        ["4:1: error [syntax]"],
        "tab in indentation",
    ),
    (
        "duplicate-key",
        HEAD + b"mode: subagent\nmode: primary\n---\nbody\n",
        ["4:1: error [syntax]"],
        "duplicate key 'mode' (first defined at line 3)",
    ),
    (
        "unquoted-colon",
        b"---\ndescription: GDPR expert. Triggers on: 'GDPR', 'privacy'\n---\nbody\n",
        ["2:38: error [syntax]"],
        "mapping values are not allowed",
    ),
    (
        "bare-star",
        HEAD + b"permission:\n  bash:\n    *: allow\n---\nbody\n",
        ["5:5: error [syntax]"],
        'quote it as "*"',
    ),
    (
        "not-a-mapping",
        b"---\n- description\n- mode\n---\nbody\n",
        ["2:1: error [syntax]"],
        "must be a mapping",
    ),
    (
        "python-tag",
        HEAD + b"mode: !!python/object/apply:os.system ['touch PWNED']\n---\nbody\n",
        ["3:7: error [syntax]"],
        "unsupported YAML tag !!python/object/apply:os.system",
    ),
    (
        "custom-tag",
        HEAD + b"mode: !subagent x\n---\nbody\n",
        ["3:7: error [syntax]"],
        "unsupported YAML tag !subagent",
    ),
]


@pytest.mark.parametrize(
    ("raw", "expected", "words"),
    [case[1:] for case in (*ENCODING_CASES, *FENCE_CASES)],
    ids=[case[0] for case in (*ENCODING_CASES, *FENCE_CASES)],
)
def test_undecodable_or_broken_file(
    make_bundle: MakeBundle, run: Runner, raw: bytes, expected: list[str], words: str
) -> None:
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    assert diagnostics(result) == [f"specs/agents/a.md:{e}" for e in expected]
    assert words in result.out
    assert not Path("PWNED").exists()


def test_yaml_alias_bomb(make_bundle: MakeBundle, run: Runner) -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    raw = HEAD + ("\n".join(lines) + "\n---\nbody\n").encode()
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:2:1: error [syntax]"]
    assert "more than 20000 values (YAML alias bomb?)" in result.out


def test_recursive_alias(make_bundle: MakeBundle, run: Runner) -> None:
    result = lint(make_bundle, run, {"specs/agents/a.md": HEAD + b"x: &a [*a]\n---\nbody\n"})
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:2:1: error [syntax]"]
    assert "nested deeper than 64 levels" in result.out


def test_a_number_past_a_double_is_infinity_as_js_yaml_reads_it(
    make_bundle: MakeBundle, run: Runner
) -> None:
    """A hex integer has no digit limit in Python, and one of 5,000 digits made
    the build an internal error where the agent file wrote it in decimal."""
    raw = HEAD + b"steps: 0x" + b"f" * 5000 + b"\n---\nbody\n"
    make_bundle({"promptc.toml": QUIET, "specs/agents/a.md": raw})
    result = run("build")
    assert "internal error" not in result.err
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:3:8: error [schema]"]
    assert "must be a whole number of at least 1 (found the number inf)" in result.out


def test_deeply_nested_flow_yaml(make_bundle: MakeBundle, run: Runner) -> None:
    raw = HEAD + b"x: " + b"[" * 100_000 + b"]" * 100_000 + b"\n---\nbody\n"
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:3:1003: error [syntax]"]
    assert "invalid YAML: exceeded maximum nesting depth" in result.out


def test_deeply_nested_block_yaml(make_bundle: MakeBundle, run: Runner) -> None:
    nested = "".join(" " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "leaf: 1\n"
    raw = HEAD + nested.encode() + b"---\nbody\n"
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:2:1: error [syntax]"]
    assert "nested deeper than 64 levels" in result.out


def test_more_keys_than_the_budget(make_bundle: MakeBundle, run: Runner) -> None:
    keys = "".join(f"k{i}: {i}\n" for i in range(loader.NODE_BUDGET + 1))
    raw = HEAD + keys.encode() + b"---\nbody\n"
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:2:1: error [syntax]"]


def test_integer_beyond_python_digit_limit(make_bundle: MakeBundle, run: Runner) -> None:
    raw = HEAD + b"mode: " + b"9" * 5000 + b"\n---\nbody\n"
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:3:7: error [schema]"]


def test_plain_scalars_are_typed_as_the_runtimes_read_them(tmp_path: Path) -> None:
    # libyaml marks plain scalars with style '' (not None): they must still resolve.
    raw = b"---\nt: 0.2\nn: 0\nd: 2026-01-13\ny: yes\nq: '0.2'\nz: ~\n---\n"
    source = loader.load_bytes(tmp_path / "a.md", raw)
    assert source.frontmatter is not None
    data = dict(source.frontmatter.data)
    assert data == {"t": 0.2, "n": 0, "d": data["d"], "y": "yes", "q": "0.2", "z": None}
    assert str(data["d"]) == "2026-01-13"
    assert not isinstance(data["d"], str)


# --- size -------------------------------------------------------------------------


def test_ten_megabyte_body_is_refused_unread(make_bundle: MakeBundle, run: Runner) -> None:
    raw = HEAD + b"---\n" + b"a" * (10 << 20)
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:1:1: error [syntax]"]
    assert f"file is {len(raw):,} bytes; promptc reads spec files up to 1,048,576 bytes" in (
        result.out
    )


def test_ten_megabyte_fragment_is_refused(make_bundle: MakeBundle, run: Runner) -> None:
    files: dict[str, str | bytes] = {
        "specs/agents/a.md": AGENT + "<<big>>\n",
        "fragments/big.md": b"x" * (10 << 20),
    }
    result = lint(make_bundle, run, files)
    assert result.code == 1
    assert diagnostics(result) == ["fragments/big.md:1:1: error [syntax]"]


def test_a_file_just_under_the_limit_is_read(make_bundle: MakeBundle, run: Runner) -> None:
    body = b"`" * (loader.MAX_FILE_BYTES - len(HEAD) - 5)
    raw = HEAD + b"---\n" + body
    assert len(raw) < loader.MAX_FILE_BYTES
    result = lint(make_bundle, run, {"specs/agents/a.md": raw})
    assert (result.code, diagnostics(result)) == (0, [])


# --- the file tree ------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the bundle holding a valid agent with a marker in its body."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(AGENT.replace("Lee el código", "SECRET-MARKER"))
    return folder


def built_text() -> str:
    return "".join(p.read_text() for p in Path("build").rglob("*") if p.is_file())


def test_symlinked_file_outside_is_refused(
    make_bundle: MakeBundle, run: Runner, outside: Path
) -> None:
    root = make_bundle({"promptc.toml": "", "specs/agents/scout.md": AGENT})
    (root / "specs/agents/leak.md").symlink_to(outside / "secret.md")
    result = run("build")
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/leak.md:1:1: error [syntax]"]
    assert "symlink points outside the project; refused" in result.out
    assert "SECRET" not in result.out
    assert not Path("build").exists()


def test_symlinked_folder_outside_is_refused(
    make_bundle: MakeBundle, run: Runner, outside: Path
) -> None:
    root = make_bundle({"promptc.toml": "", "specs/agents/scout.md": AGENT})
    (root / "specs/agents/team").symlink_to(outside, target_is_directory=True)
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/team:1:1: error [syntax]"]
    assert "SECRET" not in result.out


def test_symlinked_agents_folder_outside_is_refused(
    make_bundle: MakeBundle, run: Runner, outside: Path
) -> None:
    root = make_bundle({"promptc.toml": ""})
    (root / "specs/agents").symlink_to(outside, target_is_directory=True)
    result = run("build")
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents:1:1: error [syntax]"]
    assert not Path("build").exists()


def test_symlinked_fragment_outside_is_refused(
    make_bundle: MakeBundle, run: Runner, outside: Path
) -> None:
    root = make_bundle({"promptc.toml": "", "specs/agents/scout.md": AGENT + "<<secret>>\n"})
    (root / "fragments").mkdir()
    (root / "fragments/secret.md").symlink_to(outside / "secret.md")
    result = run("build")
    assert result.code == 1
    assert diagnostics(result) == [
        "fragments/secret.md:1:1: error [syntax]",
        f"specs/agents/scout.md:{AFTER}:1: error [compose]",
    ]
    assert "SECRET" not in result.out
    assert not Path("build").exists()


def test_symlinked_folder_inside_the_project_is_followed(
    make_bundle: MakeBundle, run: Runner
) -> None:
    root = make_bundle({"promptc.toml": "", "shared/reviewer.md": AGENT})
    (root / "specs/agents").mkdir(parents=True)
    (root / "specs/agents/team").symlink_to(root / "shared", target_is_directory=True)
    result = run("build")
    assert (result.code, diagnostics(result)) == (0, [])
    assert Path("build/opencode/.opencode/agents/team/reviewer.md").is_file()


def test_symlink_loop_folder(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle({"promptc.toml": "", "specs/agents/scout.md": AGENT})
    (root / "specs/agents/again").symlink_to(".", target_is_directory=True)
    (root / "specs/agents/up").symlink_to("..", target_is_directory=True)
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == [
        "specs/agents/again:1:1: error [syntax]",
        "specs/agents/up:1:1: error [syntax]",
    ]
    assert result.out.count("symlink loop") == 2


def test_symlink_loop_file(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle({"promptc.toml": ""})
    (root / "specs/agents").mkdir()
    (root / "specs/agents/a.md").symlink_to("b.md")
    (root / "specs/agents/b.md").symlink_to("a.md")
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == [
        "specs/agents/a.md:1:1: error [syntax]",
        "specs/agents/b.md:1:1: error [syntax]",
    ]


def test_broken_symlink(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle({"promptc.toml": ""})
    (root / "specs/agents").mkdir()
    (root / "specs/agents/gone.md").symlink_to("nowhere.md")
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/gone.md:1:1: error [syntax]"]
    assert "broken link" in result.out


def test_fifo_is_refused_without_blocking(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle({"promptc.toml": "", "specs/agents/scout.md": AGENT})
    os.mkfifo(root / "specs/agents/pipe.md")
    os.mkfifo(root / "specs/agents/pipe.txt")
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == [
        "specs/agents/pipe.md:1:1: error [syntax]",
        "specs/agents/pipe.txt:1:1: warning [stray-file]",
    ]
    assert "not a regular file but a FIFO" in result.out


def test_file_name_that_is_not_utf8(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle({"promptc.toml": "", "specs/agents/scout.md": AGENT})
    (root / "specs/modes").mkdir()
    with open(os.fsencode(root / "specs/modes") + b"/caf\xe9.md", "wb") as handle:
        handle.write(AGENT.encode())
    result = run("build", "--format", "json")
    assert result.code == 1
    assert '"path": "specs/modes/caf\\\\xe9.md"' in result.out
    assert not Path("build").exists()


def test_unreadable_folder(
    make_bundle: MakeBundle, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root (CI) a chmod 000 folder stays readable: inject the error instead.
    root = make_bundle({"promptc.toml": "", "specs/agents/team/a.md": AGENT})
    real = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        if Path(path) == root / "specs/agents/team":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)  # the module bundle lists folders with
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/team:1:1: error [syntax]"]
    assert "cannot read folder: Permission denied" in result.out


def test_unreadable_file(
    make_bundle: MakeBundle, run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_bundle({"promptc.toml": "", "specs/agents/a.md": AGENT})
    real = os.open

    def deny(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        if str(path).endswith("a.md"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, flags, *args)

    monkeypatch.setattr(os, "open", deny)  # as promptc_compiler.base.files opens a spec
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents/a.md:1:1: error [syntax]"]
    assert "cannot read file: Permission denied" in result.out


def test_files_directly_under_specs_are_not_skipped_silently(
    make_bundle: MakeBundle, run: Runner
) -> None:
    result = lint(
        make_bundle,
        run,
        {"specs/scout.md": AGENT, "specs/skills/x.md": AGENT, "specs/.hidden": "x"},
    )
    assert result.code == 0
    assert diagnostics(result) == [
        "specs/scout.md:1:1: warning [stray-file]",
        "specs/skills/x.md:1:1: warning [stray-file]",
    ]


def test_agents_is_a_file_not_a_folder(make_bundle: MakeBundle, run: Runner) -> None:
    result = lint(make_bundle, run, {"specs/agents": AGENT})
    assert diagnostics(result) == ["specs/agents:1:1: warning [stray-file]"]


def test_a_flood_of_one_problem_is_summarised(make_bundle: MakeBundle, run: Runner) -> None:
    result = lint(make_bundle, run, {"specs/agents/a.md": AGENT + "<<nope>>\n" * 150})
    assert result.code == 1
    lines = [line for line in result.out.splitlines() if not line.startswith("    hint:")]
    assert len(lines) == 101
    assert lines[0].startswith(f"specs/agents/a.md:{AFTER}:1: error [compose] unknown fragment")
    assert lines[99].startswith(f"specs/agents/a.md:{AFTER + 99}:1: error [compose]")
    assert lines[100] == (
        f"specs/agents/a.md:{AFTER + 100}:1: error [compose] 50 more [compose] problems in this file "
        "not shown (promptc shows the first 100 of each rule per file)"
    )


def test_agents_folder_that_is_a_looping_symlink(make_bundle: MakeBundle, run: Runner) -> None:
    root = make_bundle({"promptc.toml": "", "specs/modes/build.md": MODE})
    (root / "specs/agents").symlink_to("agents", target_is_directory=True)
    result = run("lint")
    assert result.code == 1
    assert diagnostics(result) == ["specs/agents:1:1: error [syntax]"]


def test_a_flood_past_the_intake_is_counted_exactly(make_bundle: MakeBundle, run: Runner) -> None:
    result = lint(make_bundle, run, {"specs/agents/a.md": AGENT + "<<nope>>\n" * 2500})
    lines = [line for line in result.out.splitlines() if not line.startswith("    hint:")]
    assert len(lines) == 101
    assert lines[100].startswith(
        f"specs/agents/a.md:{AFTER + 100}:1: error [compose] 2,400 more [compose] problems in this file"
    )


def test_duplicate_findings_past_the_intake_count_once(sample: Path) -> None:
    from promptc_compiler.api import _Collector
    from promptc_compiler.base.diagnostics import Problem
    from promptc_compiler.core.config import load_config

    _INTAKE = 1000  # well past the 100 shown per file and rule
    collector = _Collector(load_config())
    path = sample / "specs/agents/scout.md"
    for _ in range(2):  # the same findings twice, as two targets' compositions give
        for line in range(1, _INTAKE + 51):
            collector.add("compose", path, Problem(line, 1, "unknown fragment 'x'"))
    result = collector.result()
    assert len(result.diagnostics) == 101
    assert result.diagnostics[-1].message.startswith(f"{_INTAKE - 50:,} more [compose] problems")

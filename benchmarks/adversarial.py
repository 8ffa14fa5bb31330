"""Adversarial inputs, timed: each case must answer in under 2 s and 200 MB.

Every case writes a bundle to a scratch folder and runs `promptc lint` on it
(or the command the case names, such as `promptc can`) in a fresh process,
measuring wall time and that process's peak resident memory (os.wait4 gives
the child's own rusage). A case passes when promptc exits as the case
expects (an exit-1 run must print an error diagnostic), never with a
traceback or an internal error (exit 3), within both budgets. Prints a
table, each case's time also as a ratio to the baseline's (`promptc lint` on
one plain agent, timed first in the same run, so that a loaded machine shows
in it); exits 1 if any case fails.

    .venv/bin/python benchmarks/adversarial.py            # every case
    .venv/bin/python benchmarks/adversarial.py alias deep # cases whose name contains a word
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TIME_LIMIT = 2.0  # seconds
MEMORY_LIMIT = 200  # MiB
GIVE_UP = 30.0  # seconds: a case still running then is killed and fails

HEAD = "---\ndescription: Reviews diffs for bugs and missing tests.\nmode: subagent\n---\n"
PARAMS = "---\nparams:\n  level:\n    type: string\n---\n"
Files = dict[str, str | bytes]


def agent(body: str) -> Files:
    return {"specs/agents/a.md": HEAD + body + "\n"}


def frontmatter(yaml: str) -> Files:
    return {"specs/agents/a.md": "---\ndescription: d\n" + yaml + "\n---\nbody\n"}


def alias_bomb() -> Files:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return frontmatter("\n".join(lines))


def deep_block() -> Files:
    return frontmatter("".join(" " * i + f"k{i}:\n" for i in range(900)) + " " * 900 + "x: 1")


def chain(depth: int) -> Files:
    files: Files = agent("<<f0>>")
    for i in range(depth):
        files[f"fragments/f{i}.md"] = f"<<f{i + 1}>>\n" if i < depth - 1 else "end\n"
    return files


def param_cycle() -> Files:
    return {
        **agent('<<a(level="1")>>'),
        "fragments/a.md": PARAMS + "<<b(level=level)>>\n",
        "fragments/b.md": PARAMS + "<<a(level=level)>>\n",
    }


DISTINCT = """---
description: Agent {i} explores the code and reports findings with paths and lines.
mode: subagent
permission:
  edit: deny
  webfetch: ask
  bash:
    "*": ask
    "git status {i} *": allow
    "git diff {i} *": allow
    "tool{i} *": allow
    "rm {i} *": deny
  task:
    "*": deny
---
Agent {i} body.
"""


def distinct_maps(count: int) -> Files:
    """A monorepo's agents, each with its own commands: the Claude translation
    weighs every agent's allows against every other agent's denies and asks."""
    files: Files = {"promptc.toml": "[targets.opencode]\n\n[targets.claude]\n"}
    for i in range(count):
        files[f"specs/agents/a{i}.md"] = DISTINCT.format(i=i)
    return files


def near_limit(unit: str) -> str:
    return unit * ((1_000_000 - len(HEAD)) // len(unit))


WORDS = [
    *("the", "of", "to", "and", "a", "in", "is", "it", "you", "that", "was", "for", "on"),
    *("are", "with", "as", "they", "be", "at", "one", "have", "this", "from", "or", "by"),
    *("word", "but", "what", "some", "we", "can", "out", "other", "were", "all", "when"),
]


def prose(count: int, seed: int, width: int = 80) -> str:
    """`count` lines of seeded random words, `width` - 4 to `width` characters
    each, in paragraphs of about ten lines."""
    rng = random.Random(seed)
    lines: list[str] = []
    for _ in range(count):
        line = rng.choice(WORDS)
        while len(line) < width - 4:
            line += " " + rng.choice(WORDS)
        lines.append(line[:width])
        if rng.random() < 0.1:
            lines.append("")
    return "\n".join(lines)


def drifted(text: str, wrap: int | None = None) -> str:
    """`text` with a word changed in its first, middle and last lines, and
    re-wrapped in lines of `wrap` characters if given."""
    lines = text.split("\n")
    for index in (0, len(lines) // 2, len(lines) - 1):
        words = lines[index].split(" ")
        words[len(words) // 2] += "x"
        lines[index] = " ".join(words)
    return "\n".join(textwrap.wrap(" ".join(lines), wrap)) if wrap else "\n".join(lines)


def long_drift(count: int, width: int, wrap: int | None = None) -> Files:
    """A snippet of `count` lines of `width` characters, and one agent that
    carries a drifted copy of it after its placeholder."""
    fragment = prose(count, count, width)
    return long_snippet(fragment, drifted(fragment, wrap))


def long_snippet(fragment: str, body: str) -> Files:
    """Two subagents open with the snippet `tone` (the required-snippet rule's
    fragment), then `body`: their composed bodies are both long."""
    return {
        "promptc.toml": '[rules.required-snippet]\nfragment = "tone"\n',
        "fragments/tone.md": fragment + "\n",
        "specs/agents/a.md": HEAD + "<<tone>>\n\n" + body + "\n",
        "specs/agents/b.md": HEAD + "<<tone>>\n\nOther words.\n\n" + body + "\n",
    }


def repeated_snippet(count: int) -> Files:
    """One subagent that writes the snippet's placeholder `count` times, each
    before a line of its own: every call but the first is a duplicate with a fix
    (cutting the file into lines once per duplicate took 21 s at 9,000)."""
    body = "".join(f"<<tone>>\nLine {i} after the call.\n" for i in range(count))
    return {
        "promptc.toml": '[rules.required-snippet]\nfragment = "tone"\n',
        "fragments/tone.md": "Tono: directo. Frases cortas, sin rodeos.\n",
        "specs/agents/a.md": HEAD + body,
    }


# A rule OpenCode's own matcher (a regular expression) backtracks on: each `*`
# may end at any `a` of the input.
BACKTRACKING = 'permission:\n  bash:\n    "*": ask\n    "*a*a*a*a*a*a*b": deny'


@dataclass(frozen=True)
class Case:
    name: str
    files: Callable[[], Files]
    exits: tuple[int, ...] = (1,)  # acceptable exit codes
    setup: Callable[[Path], None] | None = None  # for what files cannot express
    command: tuple[str, ...] = ("lint", "--no-color")  # promptc's arguments


def _symlink_file(root: Path) -> None:
    (root.parent / "secret.md").write_text(HEAD + "SECRET\n")
    (root / "specs/agents/leak.md").symlink_to(root.parent / "secret.md")


def _symlink_folder(root: Path) -> None:
    (root / "specs/agents/etc").symlink_to("/etc", target_is_directory=True)


def _symlink_loop(root: Path) -> None:
    (root / "specs/agents/loop").symlink_to(".", target_is_directory=True)


def _fifo(root: Path) -> None:
    os.mkfifo(root / "specs/agents/pipe.md")


CASES = [
    # YAML
    Case("yaml-alias-bomb", alias_bomb),
    Case("yaml-recursive-alias", lambda: frontmatter("x: &a [*a]")),
    Case("yaml-deep-flow-500k", lambda: frontmatter("x: " + "[" * 490_000 + "]" * 490_000)),
    Case("yaml-deep-block-900", deep_block),
    Case("yaml-20k-keys", lambda: frontmatter("".join(f"k{i}: {i}\n" for i in range(20_001)))),
    Case("yaml-huge-integer", lambda: frontmatter("temperature: " + "9" * 100_000), (0, 1)),
    Case("yaml-python-tag", lambda: frontmatter("x: !!python/object/apply:os.system [id]")),
    # bytes and size
    Case("body-10mb", lambda: {"specs/agents/a.md": HEAD + "a" * (10 << 20)}),
    Case("frontmatter-10mb", lambda: frontmatter("x: " + "a" * (10 << 20))),
    Case("body-1mb-lines", lambda: agent(near_limit("Lee el código y reporta.\n")), (0,)),
    Case("body-1mb-one-line", lambda: agent(near_limit("palabra ")), (0,)),
    Case("body-1mb-backticks", lambda: agent(near_limit("`")), (0,)),
    Case("body-1mb-code-spans", lambda: agent(near_limit("`a`<<x>>")), (0, 1)),
    Case("body-1mb-open-angles", lambda: agent(near_limit("<<")), (0, 1)),
    Case("nul-byte", lambda: {"specs/agents/a.md": HEAD.encode() + b"body\x00\n"}),
    Case("invalid-utf8", lambda: {"specs/agents/a.md": HEAD.encode() + b"caf\xe9\n"}),
    Case("utf16", lambda: {"specs/agents/a.md": (HEAD + "body\n").encode("utf-16")}),
    Case("crlf", lambda: {"specs/agents/a.md": (HEAD + "body\n").replace("\n", "\r\n")}, (0,)),
    Case("bom", lambda: {"specs/agents/a.md": "\ufeff" + HEAD + "body\n"}, (0,)),
    Case("tabs", lambda: frontmatter("permission:\n\tedit: deny")),
    Case("indented-fence", lambda: {"specs/agents/a.md": "    ---\n    description: d\n    ---\n"}),
    Case("unclosed-fence", lambda: {"specs/agents/a.md": "---\ndescription: d\nbody\n"}),
    # the file tree
    Case("symlink-file-outside", lambda: agent("x"), setup=_symlink_file),
    Case("symlink-folder-outside", lambda: agent("x"), setup=_symlink_folder),
    Case("symlink-loop", lambda: agent("x"), setup=_symlink_loop),
    Case("fifo", lambda: agent("x"), setup=_fifo),
    # composition
    Case("placeholder-traversal", lambda: agent("<<../../etc/passwd>>\n<</etc/passwd>>"), (0, 1)),
    Case("unknown-placeholders-1mb", lambda: agent(near_limit("<<nope>>\n"))),
    # Past 10,000 constructs a body is refused with one error (scan.MAX_CONSTRUCTS).
    Case("known-placeholders-1mb", lambda: {**agent(near_limit("<<t>>")), "fragments/t.md": "t"}),
    Case(
        "known-placeholders-10k",
        lambda: {**agent("<<t>>" * 10_000), "fragments/t.md": "t"},
        (0,),
    ),
    Case("fragment-chain-1000", lambda: chain(1000)),
    Case(
        "expression-nested-1000", lambda: agent("<<" + "(" * 1000 + "x" + ")" * 1000 + ">>"), (0, 1)
    ),
    Case(
        "calls-nested-1000",
        lambda: {
            **agent("<<t(level=" * 1000 + '"x"' + ")" * 1000 + ">>"),
            "fragments/t.md": PARAMS + "<<level>>\n",
        },
        (0, 1),
    ),
    Case("cycle-through-parameters", param_cycle, (0, 1)),
    Case("jinja-class-mro", lambda: agent("<<''.__class__.__mro__[1].__subclasses__()>>"), (0, 1)),
    Case(
        "jinja-lipsum-globals", lambda: agent("<<lipsum.__globals__['os'].system('id')>>"), (0, 1)
    ),
    Case("jinja-cycler-globals", lambda: agent("<<cycler.__init__.__globals__.os>>"), (0, 1)),
    Case("jinja-range-huge", lambda: agent("<<range(10**9)|list|length>>"), (0, 1)),
    Case("jinja-power-tower", lambda: agent("<<10**10**10>>"), (0, 1)),
    Case("jinja-giant-string", lambda: agent("<<'x' * 10**9>>"), (0, 1)),
    # the Claude translation
    Case("claude-300-distinct-maps", lambda: distinct_maps(300), (0,)),
    # the required-snippet search: a long fragment, long bodies
    Case(
        "snippet-5000-lines-750kb-bodies",
        lambda: long_snippet(prose(5_000, 1), prose(4_600, 2)),
        (0,),
    ),
    Case("snippet-750kb-prose", lambda: long_snippet(prose(9_600, 3), "x"), (0,)),
    Case("snippet-called-5000-times", lambda: repeated_snippet(5_000)),
    # ...a drifted copy of a snippet of long lines (difflib's ratio took minutes)
    Case("snippet-drift-30-lines-of-2000", lambda: long_drift(30, 2_000)),
    Case("snippet-drift-200x500-5kb-lines", lambda: long_drift(200, 500, 5_000)),
    # permissions: no `b` in the call, so the deny does not match and `"*": ask`
    # decides (exit 10, promptc_compiler.base.exit_codes.DECISIONS)
    Case(
        "can-backtracking-rule",
        lambda: frontmatter(BACKTRACKING),
        (10,),
        command=("can", "a", "bash", "a" * 250),
    ),
]
BASELINE = Case("baseline: one plain agent", lambda: agent("Reads the code."), (0,))


@dataclass(frozen=True)
class Outcome:
    code: int
    seconds: float
    mebibytes: float
    diagnostics: int
    problem: str  # empty when the case passes


def write_case(name: str, root: Path) -> None:
    """Lay out one case's bundle (run in a separate process: see run_case)."""
    case = next(c for c in [BASELINE, *CASES] if c.name == name)
    (root / "specs/agents").mkdir(parents=True)
    (root / "promptc.toml").write_text("")
    for rel, content in case.files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if case.setup:
        case.setup(root)


def run_case(case: Case, scratch: Path) -> Outcome:
    # The bundle is written by a separate process. On Linux a child's peak RSS
    # starts from its parent's high-water mark at exec, so this process must
    # never hold a 10 MB case itself or every later reading would include it.
    root = scratch / case.name.replace(" ", "-").replace(":", "") / "bundle"
    subprocess.run([sys.executable, __file__, "--write", case.name, str(root)], check=True)
    out, err = root.parent / "stdout", root.parent / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "promptc_compiler", *case.command],
            cwd=root,
            stdout=stdout,
            stderr=stderr,
        )
        status, usage = _wait(child, start + GIVE_UP)
        seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    code = child.returncode
    mebibytes = usage.ru_maxrss / 1024  # Linux reports KiB
    # Read line by line: holding a 15 MB report here would raise this
    # process's high-water mark, and with it every later child's reading.
    diagnostics = errors = 0
    with out.open(errors="replace") as report:
        for line in report:
            diagnostics += " [" in line
            errors += ": error [" in line
    problems = []
    if seconds >= GIVE_UP:
        problems.append(f"killed after {GIVE_UP:.0f} s")
    elif code not in case.exits:
        problems.append(f"exit {code}, expected {'/'.join(map(str, case.exits))}")
    if code == 1 and not errors:
        problems.append("exit 1 without an error diagnostic")
    if "Traceback" in err.read_text(errors="replace"):
        problems.append("traceback")
    if seconds > TIME_LIMIT:
        problems.append(f"over {TIME_LIMIT} s")
    if mebibytes > MEMORY_LIMIT:
        problems.append(f"over {MEMORY_LIMIT} MB")
    return Outcome(code, seconds, mebibytes, diagnostics, "; ".join(problems))


def _wait(child: subprocess.Popen[bytes], deadline: float) -> tuple[int, resource.struct_rusage]:
    """Wait for the child and return its status and own rusage; kill it at the deadline."""
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            return status, usage
        if time.perf_counter() > deadline:
            child.kill()
            _, status, usage = os.wait4(child.pid, 0)
            return status, usage
        time.sleep(0.005)


def main(words: list[str]) -> int:
    cases = [c for c in CASES if not words or any(w in c.name for w in words)]
    print(f"{'case':32} {'exit':>4} {'diags':>6} {'seconds':>8} {'ratio':>6} {'MB':>7}  verdict")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="promptc-adversarial-") as scratch:
        baseline = 0.0
        for case in [BASELINE, *cases]:
            result = run_case(case, Path(scratch))
            baseline = baseline or result.seconds
            failed += bool(result.problem)
            verdict = result.problem or "ok"
            print(
                f"{case.name:32} {result.code:>4} {result.diagnostics:>6} "
                f"{result.seconds:>8.2f} {result.seconds / baseline:>5.1f}x "
                f"{result.mebibytes:>7.1f}  {verdict}"
            )
    print(f"{len(cases) + 1 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        write_case(sys.argv[2], Path(sys.argv[3]))
    else:
        raise SystemExit(main(sys.argv[1:]))

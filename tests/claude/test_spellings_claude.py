"""Claude Code reads a command in spellings OpenCode tells apart: none of them is wider.

Claude Code 2.1.332 runs its read-only commands unasked in any spelling
(`git  status`, `'git' status`, `LANG=C git status`), and reads an allow
rule behind wrappers, variables and a quoted first word; OpenCode matches the
command as written (promptc_compiler.runtimes.claude.variants). Here a map
that asks about every spelling but the one it allows, and one that allows
every command but `rm`, are translated, and each spelling is decided by
OpenCode, by the model and, under the `conformance` marker, by the real
`claude`: the real verdict equals the model's, and neither is wider than
OpenCode's.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import Call
from promptc_compiler.permissions.runtime import Runtime
from promptc_compiler.runtimes.claude import decide as model
from promptc_compiler.runtimes.claude import permission_rules as claude_rules
from tests import bundles, decisions
from tests.claude import oracle as claude
from tests.conftest import MakeBundle

pytestmark = pytest.mark.slow

# OpenCode asks about every command but these (as written).
ASKER = {
    "*": "ask",
    "git status*": "allow",
    "ls *": "allow",
    "cat README*": "allow",
    "git add *": "allow",
    "make*": "allow",
}
# OpenCode allows every command but `rm`.
RUNNER = {"*": "allow", "rm *": "deny", "make*": "allow"}

# Each asked about by OpenCode under ASKER; Claude Code ran every one unasked
# before the translation asked for read-only commands in any spelling.
ASKED = [
    "git  status",
    "git\tstatus",
    "'git' status",
    "g'i't status",
    "git 'status'",
    '"git" status -s',
    "g\\it status",
    "command git status",
    "timeout 5 git status",
    "LANG=C git status",
    "TZ=UTC git status",
    "ls  -a",
    "'ls' -a",
    "LC_ALL=C ls -a",
    "command -p ls -a",
    "c'a't README.md",
    "timeout 3 cat README.md",
    "git  add README.md",
    "'git' add README.md",
    "nohup make x",
]
# Each allowed by OpenCode under RUNNER, run by Claude Code too.
RUN = [
    "git status",
    "git  status",
    "git\tstatus",
    "'git' status",
    "g'i't status",
    "command git status",
    "timeout 5 git status",
    "LANG=C git status",
    "ls  -a",
    "'ls' -a",
    "c'a't README.md",
    "make x",
    "'make' x",
    "m'a'ke x",
    "\\make x",
    "LANG=C make x",
    "command make x",
]
# Denied by OpenCode under RUNNER, or allowed there and refused by Claude Code
# (its deny reads the words unquoted: a narrowing).
REFUSED = ["rm -f x", "command rm -f x", "'rm' -f x"]


def bundle(make_bundle: MakeBundle, bash: dict[str, str]) -> Path:
    lines = "\n".join(f'    "{pattern}": {action}' for pattern, action in bash.items())
    spec = (
        "---\ndescription: Agente que lee el repositorio.\nmode: primary\n"
        f"permission:\n  bash:\n{lines}\n---\nCuerpo.\n"
    )
    config = 'default_agent = "reader"\n\n[targets.claude]\n'
    return make_bundle({"promptc.toml": config, "specs/agents/reader.md": spec})


def decided(root: Path, commands: list[str]) -> list[tuple[str, str, str]]:
    """Each command as (command, OpenCode's decision, the model's)."""
    project = bundles.project(root, "claude")
    files = {rel: data.decode() for rel, data in bundles.render(root, "claude").items()}
    claude_model = model.load(files)
    runtime = calls.runtime_of(project)
    found = []
    for command in commands:
        call = Call("reader", "bash", command, False)
        opencode = calls.decide(runtime, call).action
        found.append((command, opencode, claude_model.decide(call).action))
    return found


@pytest.mark.parametrize(("bash", "commands"), [(ASKER, ASKED), (RUNNER, RUN), (RUNNER, REFUSED)])
def test_no_spelling_is_wider_on_the_model(
    make_bundle: MakeBundle, bash: dict[str, str], commands: list[str]
) -> None:
    found = decided(bundle(make_bundle, bash), commands)
    assert [c for c, o, m in found if calls.RANK[m] > calls.RANK[o]] == []
    expected = {id(ASKED): "ask", id(RUN): "allow", id(REFUSED): "deny"}[id(commands)]
    assert [c for c, _, m in found if m != expected] == []


def test_the_asker_writes_an_ask_for_each_read_only_command(make_bundle: MakeBundle) -> None:
    root = bundle(make_bundle, ASKER)
    settings_ = json.loads(bundles.render(root, "claude")[".claude/settings.json"])
    asked = [rule for rule in settings_["permissions"]["ask"] if rule.startswith("Bash(")]
    assert sorted(f"Bash({form} *)" for form in claude_rules.READ_ONLY) == sorted(asked)
    # each allow has spellings OpenCode asks about
    assert [r for r in settings_["permissions"]["allow"] if r.startswith("Bash(")] == []
    runner = json.loads(
        bundles.render(bundle(make_bundle, RUNNER), "claude")[".claude/settings.json"]
    )
    assert [r for r in runner["permissions"]["allow"] if r.startswith("Bash(")] == ["Bash(make*)"]
    assert [r for r in runner["permissions"].get("ask", []) if r.startswith("Bash(")] == []


_VERDICT = {"ran": "allow", "asked": "ask", "refused": "deny"}


@pytest.mark.conformance
@pytest.mark.parametrize(
    ("bash", "commands"), [(ASKER, ASKED), (RUNNER, [*RUN, *REFUSED])], ids=["asker", "runner"]
)
def test_the_real_claude_runs_no_spelling_opencode_asks_about(
    make_bundle: MakeBundle, tmp_path: Path, bash: dict[str, str], commands: list[str]
) -> None:
    root = bundle(make_bundle, bash)
    files = {rel: data.decode() for rel, data in bundles.render(root, "claude").items()}
    project = decisions.project_for(tmp_path, files)
    (project / "README.md").write_text("# scratch\n")
    home = tmp_path / "home"
    home.mkdir()
    attempts = [claude.attempt("bash", command, project) for command in commands]
    outcomes = claude.run(project, [a for a in attempts if a], agent="reader", home=home)
    real = [_VERDICT[o.verdict] for o in outcomes]
    found = decided(root, commands)
    wider = [c for (c, o, _), r in zip(found, real, strict=True) if calls.RANK[r] > calls.RANK[o]]
    assert wider == []
    differ = [(c, m, r) for (c, _, m), r in zip(found, real, strict=True) if m != r]
    assert differ == []
    counts = {v: real.count(v) for v in ("allow", "ask", "deny")}
    print(
        f"{len(commands)} spellings: the real claude ran {counts['allow']}, "
        f"asked {counts['ask']}, refused {counts['deny']}"
    )


# --- the property: spellings of what the team fixture's agents allow ---------------------------

_FORMS = st.sampled_from(
    ["git status", "git diff", "git log", "ls", "cat README.md", "git add x", "make", "go vet"]
)


@st.composite
def spelled(draw: st.DrawFn) -> str:
    """A command respelled the ways Claude Code reads as the same."""
    words = draw(_FORMS).split()
    for at in range(len(words)):
        word = words[at]
        cut = draw(st.integers(0, len(word)))
        quote = draw(st.sampled_from(["", "'", '"', "\\"]))
        if quote == "\\":
            words[at] = word[:cut] + quote + word[cut:]
        elif quote:
            words[at] = f"{word[:cut]}{quote}{word[cut:]}{quote}"
    blank = draw(st.sampled_from([" ", "  ", "\t", " \t"]))
    front = draw(
        st.sampled_from(["", "command ", "timeout 5 ", "LANG=C ", "nohup ", "FOO=1 ", "env "])
    )
    return front + blank.join(words)


@settings(max_examples=300, deadline=None)
@given(command=spelled(), agent=st.sampled_from(["craftsman", "scout", "smith", "sage"]))
def test_no_spelling_of_an_allowed_command_is_wider_on_the_model(command: str, agent: str) -> None:
    call = Call(agent, "bash", command, agent != "craftsman")
    mine = _team_model().decide(call).action
    theirs = calls.decide(_team(), call).action
    assert calls.RANK[mine] <= calls.RANK[theirs], (call, mine, theirs)


@functools.cache
def _team_model() -> model.Claude:
    files = bundles.render(bundles.TEAM, "claude")
    return model.load({rel: data.decode() for rel, data in files.items()})


@functools.cache
def _team() -> Runtime:
    return calls.runtime_of(bundles.project(bundles.TEAM, "claude"))

"""Suppressing one finding with its reason: inline in frontmatter, or in the rule's table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import AGENT, Run

Runner = Callable[..., Run]
MakeBundle = Callable[[dict[str, str | bytes]], Path]

# `permisson` is a key-typo error; `category` an unknown-key warning.
TYPO = AGENT.replace("permission:", "permisson:")
CATEGORY = AGENT.replace("mode: subagent\n", "mode: subagent\ncategory: research\n")


def lint(make_bundle: MakeBundle, run: Runner, spec: str, config: str = "") -> Run:
    make_bundle({"promptc.toml": config, "specs/agents/scout.md": spec})
    return run("lint", "--no-cache")


def findings(done: Run) -> list[str]:
    """`line:col rule` of each diagnostic."""
    return [
        f"{line.split(':')[1]}:{line.split(':')[2]} {line.split('[')[1].split(']')[0]}"
        for line in done.out.splitlines()
        if not line.startswith(" ")
    ]


def test_a_comment_at_the_end_of_the_line_suppresses_its_finding(
    make_bundle: MakeBundle, run: Runner
) -> None:
    spec = CATEGORY.replace(
        "category: research",
        "category: research  # promptc: suppress[unknown-key] routing reads it",
    )
    done = lint(make_bundle, run, spec)
    assert (done.code, done.out, done.err) == (0, "", "promptc: no problems\n")
    assert findings(lint(make_bundle, run, CATEGORY)) == ["4:1 unknown-key"]


def test_a_comment_alone_suppresses_the_next_line_an_error_too_and_build_writes(
    make_bundle: MakeBundle, run: Runner
) -> None:
    spec = TYPO.replace(
        "permisson:", "# promptc: suppress[key-typo] kept while the importer is fixed\npermisson:"
    )
    done = lint(make_bundle, run, spec)
    # The typo's error is gone; what it causes (no permission at all) is still said.
    assert (done.code, findings(done)) == (0, ["1:1 dangerous-allow"]), done.out
    built = run("build")
    assert built.code == 0
    assert (Path("build/opencode/.opencode/agents/scout.md")).is_file()


def test_a_suppression_without_a_reason_is_an_error_and_suppresses_nothing(
    make_bundle: MakeBundle, run: Runner
) -> None:
    spec = CATEGORY.replace(
        "category: research", "category: research  # promptc: suppress[unknown-key]"
    )
    done = lint(make_bundle, run, spec)
    assert done.code == 1
    assert findings(done) == ["4:1 unknown-key", "4:21 unused-suppression"]
    assert "suppress[unknown-key] needs a reason after it" in done.out


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        ("schema", "[schema] findings cannot be suppressed: its errors guard what promptc writes"),
        ("wider-translation", "[wider-translation] findings cannot be suppressed"),
        ("write", "[write] findings cannot be suppressed"),
        ("unknown-keys", "no rule `unknown-keys` (did you mean `unknown-key`?)"),
    ],
)
def test_stages_that_guard_writing_and_unknown_rules_cannot_be_suppressed(
    make_bundle: MakeBundle, run: Runner, rule: str, said: str
) -> None:
    spec = CATEGORY.replace(
        "category: research", f"category: research  # promptc: suppress[{rule}] x"
    )
    done = lint(make_bundle, run, spec)
    assert done.code == 1, done.out
    assert said in done.out, done.out
    assert "4:21 unused-suppression" in findings(done)


def test_a_suppression_that_suppresses_nothing_is_a_warning(
    make_bundle: MakeBundle, run: Runner
) -> None:
    spec = AGENT.replace("  edit: deny", "  edit: deny  # promptc: suppress[key-typo] was a typo")
    done = lint(make_bundle, run, spec)
    assert (done.code, findings(done)) == (0, ["5:15 unused-suppression"])
    assert "this suppression for [key-typo] suppresses nothing: remove it" in done.out


CONFIGURED = """\
[[rules.unknown-key.suppress]]
path = "specs/agents/*.md"
contains = "category"
reason = "our router reads the category"

[[rules.unknown-key.suppress]]
path = "specs/agents/gone.md"
reason = "gone since"
"""


def test_the_rules_table_suppresses_by_path_and_text_and_reports_an_unused_entry(
    make_bundle: MakeBundle, run: Runner
) -> None:
    spec = CATEGORY.replace("mode: subagent\n", "mode: subagent\ntags: x\n")
    done = lint(make_bundle, run, spec, CONFIGURED)
    # `tags` has no `category` on its line: still reported.
    assert findings(done) == ["1:1 unused-suppression", "4:1 unknown-key"]
    assert "entry 2 of `suppress` for [unknown-key] suppresses nothing" in done.out


def test_a_configured_suppression_needs_its_reason(make_bundle: MakeBundle, run: Runner) -> None:
    config = CONFIGURED.replace('reason = "gone since"\n', "")
    done = lint(make_bundle, run, CATEGORY, config)
    assert done.code == 2
    assert "reason" in done.err, done.err
    assert "promptc.toml" in done.err, done.err
    stage = '[[rules.schema.suppress]]\npath = "x"\nreason = "no"\n'
    assert lint(make_bundle, run, CATEGORY, stage).code == 2  # a stage has no `suppress`


@pytest.mark.parametrize("command", ["lint", "check"])
def test_ci_can_ignore_the_inline_suppressions_but_not_the_configs(
    make_bundle: MakeBundle, run: Runner, command: str
) -> None:
    spec = TYPO.replace(
        "permisson:", "permisson:  # promptc: suppress[key-typo] kept while the importer is fixed"
    )
    config = '[[rules.dangerous-allow.suppress]]\npath = "specs/*/*.md"\nreason = "a sandbox"\n'
    make_bundle({"promptc.toml": config, "specs/agents/scout.md": spec})
    assert run("build").code == 0
    assert run(command).code == 0  # cached now: the flag must not answer from the cache
    strict = run(command, "--ignore-inline-suppressions")
    assert (strict.code, findings(strict)) == (1, ["4:1 key-typo"]), strict.out
    if command == "lint":
        named = run(command, "--ignore-inline-suppressions", "specs/agents/scout.md")
        assert (named.code, findings(named)) == (1, ["4:1 key-typo"])

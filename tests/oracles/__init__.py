"""Decision oracles: the real runtimes decide tool calls a scripted model makes.

Each runtime's driver (`tests/<runtime>/oracle.py`, in the runtime's test
folder) runs its pinned CLI once, offline, in a project folder, against
`server`: a model endpoint on 127.0.0.1 that answers with the tool calls a
test chose. What the CLI sends back for each call says what the runtime
decided:

    from tests.claude import oracle as claude
    found = claude.run(project, [claude.attempt("bash", "cat .env", project)])
    assert [o.verdict for o in found] == ["refused"]

Every driver has the same two functions:

- `run(project, attempts, *, agent=None, delegate=False, home=None)`: one
  Outcome per Attempt, in order. `agent` is the main agent (the runtime's
  default when None); with `delegate`, the main session starts `agent` as a
  subagent through the runtime's own delegation tool and the subagent makes
  the calls. `home` is the scratch HOME (a fresh one when None).
- `attempt(permission, value, project)`: the call that exercises an OpenCode
  permission (`bash` with a command, `edit` with a path, ...) in that
  runtime's own tool names and argument shapes, or None where it has no such
  tool.

FACTS.md beside this file says what the runtimes were seen to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Verdict = Literal["ran", "asked", "refused", "absent"]
"""What a runtime did with one call: ran it; wanted an approval it could not get
(no user in a non-interactive run); refused it by a rule or policy; or never
offered the tool to the model at all."""


@dataclass(frozen=True)
class Attempt:
    """One tool call, in the runtime's own vocabulary.

    `tool` is the name as the runtime offers it (`Bash`, `exec_command`,
    `run_shell_command`). `arguments` are the call's JSON arguments; a
    freeform tool (Codex's `apply_patch`) takes its text as `{"input": ...}`.
    """

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What the runtime decided for one Attempt.

    `result` is the tool result text the CLI sent back to the model ("" when
    the tool was absent).
    """

    attempt: Attempt
    verdict: Verdict
    result: str


class OracleError(AssertionError):
    """The run could not decide: the CLI failed, hung, or contradicted itself
    (said it refused a call whose side effect is there). An AssertionError, so
    pytest shows it as a failed check with the CLI's own output."""

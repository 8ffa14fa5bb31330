"""Codex CLI (codex 0.171.0) as a decision oracle.

Run: `codex exec --skip-git-repo-check --json PROMPT` in the project,
`CODEX_HOME` in a scratch HOME whose config.toml names the `mock` provider
(Responses API, no retries, no websockets), model `gpt-5.5`, sandbox
workspace-write with /tmp and $TMPDIR not writable, and trusts the project
(else its `.codex/` is not read). Never a bypass or full-auto flag.

Seen on the binary (tests/oracles/FACTS.md has the configs):
- Model gpt-5.5, main session: exec_command, write_stdin,
  request_user_input, apply_patch (freeform: `custom_tool_call` with the
  patch as `input`), view_image, get_goal, create_goal, update_goal,
  tool_search (run by the client) and web_search (run by the model's
  server: nothing the CLI decides). The agent tools (spawn_agent,
  wait_agent, send_input, close_agent, resume_agent, namespace
  multi_agent_v1) come only through tool_search; the driver searches first.
  An unknown model name offers the agent tools directly and no apply_patch.
  A role: the same without tool_search (no agent tools).
- exec never asks: a `prompt` rule or an escalation comes back
  "exec_command failed: ... Rejected(\"approval required by policy, but
  AskForApproval is set to Never\")" (asked); a `forbidden` rule
  "... rejected: policy forbids commands starting with `rm`" (refused);
  apply_patch outside the project "patch rejected: writing outside of the
  project; rejected by user approval settings"; a shell write the sandbox
  stops runs and fails "Read-only file system" (refused); request_user_input
  "is unavailable in Default mode" (main) or "can only be used by the root
  thread" (role). It goes on after each: one run decides a batch.
- Delegation: tool_search, `spawn_agent {agent_type, message}` (returns
  `{"agent_id"}`), `wait_agent {targets: [agent_id], timeout_ms}` (without
  targets: "agent ids must be non-empty"; without the wait, exec ends before
  the role answers). The role's conversation is recognised by MARKER in its
  user message.
- Timing (2 cores under a load of 13-16): 2-3 s a run, delegation included.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests import oracle
from tests.oracles import Attempt, OracleError, Outcome, Verdict, harness
from tests.oracles.server import ModelServer, Turn

TIMEOUT = 180
MODEL = "gpt-5.5"


def prepare(home: Path, project: Path, url: str, model: str = MODEL) -> None:
    """$CODEX_HOME/config.toml: the mock provider, the project trusted."""
    folder = home / ".codex"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        f'model = "{model}"\n'
        'model_provider = "mock"\n'
        'sandbox_mode = "workspace-write"\n'
        "check_for_update_on_startup = false\n\n"
        "[analytics]\nenabled = false\n\n"
        "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n\n"
        "[model_providers.mock]\n"
        f'name = "mock"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
        'env_key = "ORACLE_API_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n'
        "supports_websockets = false\n\n"
        f'[projects.{json.dumps(str(project.resolve()))}]\ntrust_level = "trusted"\n'
    )


def environment(home: Path) -> dict[str, str]:
    """The scratch environment for a HOME that `prepare` set up."""
    return {
        **oracle.scratch_env(home),
        "CODEX_HOME": str(home / ".codex"),
        "ORACLE_API_KEY": "offline-oracle",
    }


class _Launch:
    def __init__(self, project: Path, home: Path) -> None:
        self.project, self.home = project, home

    def __call__(
        self, server: ModelServer, _plan: harness.Plan
    ) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project, server.url)
        args = [str(oracle.binary("codex")), "exec", "--skip-git-repo-check", "--json"]
        try:
            return oracle.capture(
                [*args, harness.PROMPT], self.project, environment(self.home), TIMEOUT
            )
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"codex did not finish in {TIMEOUT} s") from error


_ASKED = ("approval required",)
_REFUSED = (
    "rejected",  # a forbidden prefix rule; a patch outside the sandbox
    "not permitted",  # Codex's own list of dangerous commands
    "unavailable in",  # request_user_input outside plan mode
    "can only be used by",  # request_user_input in a role
    "Read-only file system",  # a command the sandbox kept from writing
)


def classify(seen: harness.Evidence) -> Verdict:
    if any(text in seen.result for text in _ASKED):
        return "asked"
    if any(text in seen.result for text in _REFUSED):
        return "refused"
    return "ran"


def patch_adding(path: str) -> str:
    """An apply_patch input that adds one file."""
    return f"*** Begin Patch\n*** Add File: {path}\n+{harness.CONTENT}*** End Patch\n"


def attempt(permission: str, value: str, project: Path) -> Attempt | None:
    """The Codex call that exercises `permission` with `value`.

    Codex reads, lists and searches through its shell: `read`, `glob`,
    `grep` and `list` have no tool of their own, nor do `webfetch`,
    `skill` and `todowrite`; `web_search` is run by the model's server, not
    by the CLI, so `websearch` has no call the CLI decides.
    """
    path = harness.inside(value, project)
    calls = {
        "bash": lambda: Attempt("exec_command", {"cmd": value}),
        "edit": lambda: Attempt("apply_patch", {"input": patch_adding(str(path))}),
        "task": lambda: Attempt(
            "spawn_agent", {"agent_type": value, "message": f"{harness.QUIET}: answer done."}
        ),
        "question": lambda: Attempt(
            "request_user_input",
            {
                "questions": [
                    {
                        "id": "oracle",
                        "header": "oracle",
                        "question": value,
                        "options": [
                            {"label": "yes", "description": "yes"},
                            {"label": "no", "description": "no"},
                        ],
                    }
                ]
            },
        ),
    }
    make = calls.get(permission)
    return make() if make else None


def _creates(call: Attempt) -> Path | None:
    if call.tool == "apply_patch":
        found = re.search(r"^\*\*\* Add File: (.+)$", str(call.arguments.get("input", "")), re.M)
        return Path(found[1]) if found and Path(found[1]).is_absolute() else None
    return None


def _prelude(attempt: Attempt, turn: Turn) -> Attempt | None:
    """Load a deferred tool (the agent tools, for a known model) first."""
    if attempt.tool in turn.tools or "tool_search" not in turn.tools:
        return None
    return Attempt("tool_search", {"query": attempt.tool})


_AGENT_ID = re.compile(r'"agent_id"\s*:\s*"([^"]+)"')


def fill(attempt: Attempt, turn: Turn) -> Attempt:
    """wait_agent (with no `targets`) waits for every agent spawn_agent started."""
    if attempt.tool != "wait_agent" or "targets" in attempt.arguments:
        return attempt
    # Read from anywhere in a result: its JSON is not always the result's whole text.
    spawned = [m[1] for r in turn.results for m in _AGENT_ID.finditer(r.text)]
    if not spawned:
        # Spawned by task_name (`{"task_name": "/root/t0"}`): that wait_agent takes
        # only timeout_ms ("unknown field `targets`") and waits for them all.
        return attempt
    return Attempt(attempt.tool, {**attempt.arguments, "targets": spawned})


def _spawn(agent: str) -> tuple[Attempt, ...]:
    message = f"{harness.MARKER}: do the task."
    return (
        Attempt("tool_search", {"query": "spawn_agent wait_agent"}),
        Attempt("spawn_agent", {"agent_type": agent, "message": message, "task_name": "oracle"}),
        Attempt("wait_agent", {"timeout_ms": 60000}),
    )


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
) -> list[Outcome]:
    """Decide `attempts` with Codex in `project` (see the module docstring).

    `home/.codex/config.toml` is the driver's (provider, sandbox, trust); the
    project's `.codex/` decides. `agent` names a role, run only delegated.
    """
    if agent and not delegate:
        raise ValueError("Codex runs a role only as a subagent (delegate=True)")
    with tempfile.TemporaryDirectory(prefix="codex-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch)),
            classify=classify,
            spawn=_spawn,
            prelude=_prelude,
            fill=fill,
            creates=_creates,
        )
        return harness.decide(driver, attempts, agent, delegate)

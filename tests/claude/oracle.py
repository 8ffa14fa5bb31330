"""Claude Code (claude 2.1.332) as a decision oracle.

Run: `claude -p PROMPT --output-format json [--agent NAME]` in the project,
HOME a scratch folder whose `.claude.json` trusts the project and skips
onboarding, `ANTHROPIC_BASE_URL` the server (Anthropic Messages), the
non-essential traffic off. Never a bypass or accept-edits flag.

Seen on the binary (tests/oracles/FACTS.md has the configs):
- Tools offered in `-p` mode: Agent, Bash, Edit, ListAgents, Read,
  ReportFindings, ScheduleWakeup, Skill, ToolSearch, Workflow, Write.
  Deferred behind ToolSearch (listed in the system prompt, loaded with
  `select:NAME`, then in the tool list): WebFetch, WebSearch, NotebookEdit,
  Monitor, SendMessage, TaskStop, Cron*, *Worktree; the driver makes that
  call first. No Glob, Grep, TodoWrite, AskUserQuestion or LS: a call
  answers "No such tool available: Glob. Glob is not available in this
  session - find files with `find` via the Bash tool instead." (absent).
- Every call that did not run is in stdout's `permission_denials`
  (`tool_use_id`), asks and denies alike; the text tells them apart. Ask:
  "Claude requested permissions to use Bash, but you haven't granted it
  yet." ("... to write to PATH", "... to read from PATH"), "This command
  requires approval", "Output redirection to 'PATH' needs approval. ...".
  Deny: "Permission to use Bash with command rm -f .env has been denied.",
  "Skill execution blocked by permission rules".
- It goes on after an ask or a deny: one run decides a whole batch.
- Delegation: `Agent {description, prompt, subagent_type, run_in_background:
  false}` (in the background the subagent's asks are auto-denied and the run
  may end first); the subagent's denials land in the same
  `permission_denials`.
- Timing (2 cores under a load of 13-16): 2-3.5 s a run.
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

ENV = {
    "ANTHROPIC_API_KEY": "offline-oracle",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}

# The system prompt names the tools it defers: "... available via ToolSearch
# ... before calling them:\nCronCreate\nCronDelete\n...\n\n".
_DEFERRED = re.compile(r"deferred tools are now available via ToolSearch.*?:\n((?:\w+\n)+)", re.S)
_DENIED = re.compile(r"has been denied|denied by|is denied|blocked by permission rules")


def prepare(home: Path, project: Path) -> None:
    """A HOME where the project is trusted and onboarding is done."""
    state = home / ".claude.json"
    data = json.loads(state.read_text()) if state.exists() else {}
    data["hasCompletedOnboarding"] = True
    data.setdefault("projects", {})[str(project.resolve())] = {"hasTrustDialogAccepted": True}
    state.write_text(json.dumps(data))


class _Launch:
    def __init__(self, project: Path, home: Path, agent: str | None) -> None:
        self.project, self.home, self.agent = project, home, agent

    def __call__(
        self, server: ModelServer, _plan: harness.Plan
    ) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project)
        env = {**oracle.scratch_env(self.home), **ENV, "ANTHROPIC_BASE_URL": server.url}
        args = [str(oracle.binary("claude")), "-p", harness.PROMPT, "--output-format", "json"]
        if self.agent:
            args += ["--agent", self.agent]
        try:
            return oracle.capture(args, self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"claude did not finish in {TIMEOUT} s") from error


def _denials(stdout: str) -> set[str]:
    """The ids of the calls Claude's JSON output lists as not run."""
    try:
        found = json.loads(stdout).get("permission_denials", [])
    except (json.JSONDecodeError, AttributeError):
        return set()
    return {d.get("tool_use_id", "") for d in found}


def classify(seen: harness.Evidence) -> Verdict:
    """A call in `permission_denials` did not run: refused when a rule denied
    it, asked otherwise (Claude auto-denies what would need the user); a Read
    or Edit deny comes back as a tool_use_error too ("File is in a directory
    that is denied by your permission settings"). A tool the session does not
    have comes back as a tool_use_error."""
    if "No such tool available" in seen.result:
        return "absent"
    if seen.call_id in _denials(seen.process.stdout):
        return "refused" if _DENIED.search(seen.result) else "asked"
    if seen.result.startswith("<tool_use_error>"):
        raise OracleError(f"Claude did not take the call as made: {seen.attempt} -> {seen.result}")
    return "ran"


def _prelude(attempt: Attempt, turn: Turn) -> Attempt | None:
    """Load a deferred tool (WebFetch, WebSearch, NotebookEdit, ...) first."""
    listed = _DEFERRED.search(_system_text(turn))
    if attempt.tool in turn.tools or not listed or attempt.tool not in listed[1].split():
        return None
    return Attempt("ToolSearch", {"query": f"select:{attempt.tool}"})


def _system_text(turn: Turn) -> str:
    system = turn.body.get("system", "")
    if isinstance(system, str):
        return system
    return "\n".join(block.get("text", "") for block in system if isinstance(block, dict))


def attempt(permission: str, value: str, project: Path) -> Attempt | None:
    """The Claude Code call that exercises an OpenCode permission with `value`.

    `edit` writes a new file (Write); `webfetch` needs a 127.0.0.1 URL (the
    run must stay offline). Claude 2.1.332 has no `list` tool (LS was removed).
    """
    path = str(harness.inside(value, project))
    calls = {
        "bash": lambda: Attempt("Bash", {"command": value, "description": "oracle"}),
        "edit": lambda: Attempt("Write", {"file_path": path, "content": harness.CONTENT}),
        "read": lambda: Attempt("Read", {"file_path": path}),
        "glob": lambda: Attempt("Glob", {"pattern": value}),
        "grep": lambda: Attempt("Grep", {"pattern": value}),
        "webfetch": lambda: Attempt("WebFetch", {"url": value, "prompt": "Summarise."}),
        "websearch": lambda: Attempt("WebSearch", {"query": value}),
        "task": lambda: Attempt(
            "Agent",
            {
                "description": "oracle",
                "prompt": f"{harness.QUIET}: answer done.",
                "subagent_type": value,
                "run_in_background": False,
            },
        ),
        "skill": lambda: Attempt("Skill", {"skill": value}),
        "todowrite": lambda: Attempt(
            "TodoWrite",
            {"todos": [{"content": value, "status": "pending", "activeForm": value}]},
        ),
        "question": lambda: Attempt(
            "AskUserQuestion",
            {
                "questions": [
                    {
                        "question": value,
                        "header": "oracle",
                        "multiSelect": False,
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
    if call.tool == "Write":
        return Path(call.arguments["file_path"])
    return None


def _spawn(agent: str) -> tuple[Attempt, ...]:
    prompt = f"{harness.MARKER}: do the task."
    arguments = {
        "description": "oracle",
        "prompt": prompt,
        "subagent_type": agent,
        "run_in_background": False,
    }
    return (Attempt("Agent", arguments),)


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
) -> list[Outcome]:
    """Decide `attempts` with Claude Code in `project` (see the module docstring).

    `home` gets a `.claude.json` entry trusting the project (merged into one
    already there); user settings a test puts in `home/.claude/` apply.
    """
    with tempfile.TemporaryDirectory(prefix="claude-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), None if delegate else agent),
            classify=classify,
            spawn=_spawn,
            id_prefix="toolu_",
            prelude=_prelude,
            creates=_creates,
        )
        return harness.decide(driver, attempts, agent, delegate)

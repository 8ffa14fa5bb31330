"""Gemini CLI (gemini 0.61.0) as a decision oracle.

Run: `gemini -m gemini-2.5-flash -p PROMPT --output-format json [flags]`
in the project, `GOOGLE_GEMINI_BASE_URL` the server (`:streamGenerateContent
?alt=sse`), `GEMINI_CLI_NO_RELAUNCH=true`, HOME a scratch folder whose
settings choose API-key auth, turn folder trust, telemetry and updates off,
and acknowledge every project agent (sha256 of its file), as a user would.
A test puts user policies in `home/.gemini/policies/` or passes `--policy`.

Seen on the binary (tests/oracles/FACTS.md has the configs):
- Tools offered in `-p` mode with no rule: update_topic, list_directory,
  read_file, grep_search, glob, google_web_search, enter_plan_mode,
  invoke_agent. run_shell_command, write_file, replace, web_fetch,
  activate_skill, write_todos, ask_user are offered only when a rule
  allows them (absent otherwise).
- An offered tool: an `ask_user` rule gives "Tool execution for \"Shell\"
  requires user confirmation, which is not supported in non-interactive
  mode." (asked); a `deny` rule, and a call no rule matches, "Tool execution
  denied by policy." (refused); read_file on `.env` "Path not in workspace:
  ..." (refused). It goes on after each: one run decides a batch.
- Delegation: `invoke_agent {agent_name, prompt}`; the subagent is offered
  its `tools:` plus complete_task (ending with text instead gives
  ERROR_NO_COMPLETE_TASK_CALL, harmless). `--agent` does not exist: a
  subagent runs only through delegation.
- Timing (2 cores under a load of 13-16): 10-16 s a run.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests import oracle
from tests.oracles import Attempt, OracleError, Outcome, Verdict, harness
from tests.oracles.server import ModelServer

TIMEOUT = 180
MODEL = "gemini-2.5-flash"
_NAME = re.compile(r"^name:\s*['\"]?([\w-]+)", re.M)


def _merge(path: Path, data: dict[str, object]) -> None:
    """Write `data` over the JSON object at `path`, one level deep per key."""
    found = json.loads(path.read_text()) if path.exists() else {}
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(found.get(key), dict):
            found[key] = {**found[key], **value}
        else:
            found[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found, indent=1))


def prepare(home: Path, project: Path) -> None:
    """The scratch HOME's settings (API-key auth, nothing sent out), and every
    project agent acknowledged, as the user would on first use."""
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }
    _merge(home / ".gemini" / "settings.json", settings)
    agents = sorted((project / ".gemini" / "agents").glob("*.md"))
    hashes = {
        found[1]: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in agents
        if (found := _NAME.search(path.read_text(encoding="utf-8")))
    }
    if hashes:
        _merge(
            home / ".gemini" / "acknowledgments" / "agents.json", {str(project.resolve()): hashes}
        )


class _Launch:
    def __init__(self, project: Path, home: Path, flags: Sequence[str]) -> None:
        self.project, self.home, self.flags = project, home, flags

    def __call__(
        self, server: ModelServer, _plan: harness.Plan
    ) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project)
        env = {
            **oracle.scratch_env(self.home),
            "GEMINI_API_KEY": "offline-oracle",
            "GOOGLE_GEMINI_BASE_URL": server.url,
        }
        args = [str(oracle.binary("gemini")), "-m", MODEL, "-p", harness.PROMPT]
        args += ["--output-format", "json", *self.flags]
        try:
            return oracle.capture(args, self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"gemini did not finish in {TIMEOUT} s") from error


def classify(seen: harness.Evidence) -> Verdict:
    text = seen.result
    if "requires user confirmation" in text:
        return "asked"
    if "denied by policy" in text or text.startswith(("Path not in workspace", "Invalid path")):
        return "refused"
    return "ran"


def attempt(permission: str, value: str, project: Path) -> Attempt | None:
    """The Gemini CLI call that exercises `permission` with `value`.

    `edit` writes a new file (write_file); `webfetch` needs a 127.0.0.1 URL,
    given in the prompt as web_fetch takes it.
    """
    path = str(harness.inside(value, project))
    calls = {
        "bash": lambda: Attempt("run_shell_command", {"command": value}),
        "edit": lambda: Attempt("write_file", {"file_path": path, "content": harness.CONTENT}),
        "read": lambda: Attempt("read_file", {"file_path": path}),
        "glob": lambda: Attempt("glob", {"pattern": value}),
        "grep": lambda: Attempt("grep_search", {"pattern": value}),
        "list": lambda: Attempt("list_directory", {"dir_path": path}),
        "webfetch": lambda: Attempt("web_fetch", {"prompt": f"Summarise {value}"}),
        "websearch": lambda: Attempt("google_web_search", {"query": value}),
        "task": lambda: Attempt(
            "invoke_agent", {"agent_name": value, "prompt": f"{harness.QUIET}: answer done."}
        ),
        "skill": lambda: Attempt("activate_skill", {"name": value}),
        "todowrite": lambda: Attempt(
            "write_todos", {"todos": [{"description": value, "status": "pending"}]}
        ),
        "question": lambda: Attempt(
            "ask_user",
            {"questions": [{"question": value, "header": "oracle", "type": "text"}]},
        ),
    }
    make = calls.get(permission)
    return make() if make else None


def _creates(call: Attempt) -> Path | None:
    if call.tool == "write_file":
        return Path(call.arguments["file_path"])
    return None


def _spawn(agent: str) -> tuple[Attempt, ...]:
    prompt = f"{harness.MARKER}: do the task."
    return (Attempt("invoke_agent", {"agent_name": agent, "prompt": prompt}),)


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
    flags: Sequence[str] = (),
) -> list[Outcome]:
    """Decide `attempts` with Gemini CLI in `project` (see the module docstring).

    Settings are merged into `home/.gemini/settings.json`; user policies a
    test puts in `home/.gemini/policies/` apply. `flags`: more command-line
    arguments (`--policy FILE`). `agent` is a subagent, run only delegated.
    """
    if agent and not delegate:
        raise ValueError("Gemini CLI runs a subagent only through invoke_agent (delegate=True)")
    with tempfile.TemporaryDirectory(prefix="gemini-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), flags),
            classify=classify,
            spawn=_spawn,
            creates=_creates,
        )
        return harness.decide(driver, attempts, agent, delegate)

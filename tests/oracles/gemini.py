"""Gemini CLI (gemini 0.61.0) as a decision oracle.

(facts below)
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
    def __init__(self, project: Path, home: Path) -> None:
        self.project, self.home = project, home

    def __call__(self, server: ModelServer, plan: harness.Plan) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project)
        env = {
            **oracle.scratch_env(self.home),
            "GEMINI_API_KEY": "offline-oracle",
            "GOOGLE_GEMINI_BASE_URL": server.url,
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
        args = [
            str(oracle.binary("gemini")),
            "-m",
            MODEL,
            "-p",
            harness.PROMPT,
            "--output-format",
            "json",
        ]
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
) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="gemini-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch)),
            classify=classify,
            spawn=_spawn,
        )
        return harness.decide(driver, attempts, agent, delegate)

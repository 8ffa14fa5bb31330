"""Conformance: the real `copilot` (tests/package.json, 1.0.102) loads what promptc emits.

One `copilot --headless --stdio` process (a scratch HOME that trusts the
projects) answers every question: the JSON-RPC call `agents.discover` lists,
for each project folder, the custom agents it loaded, with their tools and
model. Copilot drops an invalid agent silently, so an agent missing from the
answer is an agent Copilot refused. The fixtures (tests/fixtures/team, a
team of real shape, among them) are emitted into scratch folders. The call
`skills.discover` lists the skills each folder holds, and the errors met
reading them. A copy with a broken agent and a broken skill shows both
oracles can fail.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from tests import bundles, oracle

pytestmark = pytest.mark.slow

BUNDLES = {
    "team": bundles.TEAM,
    "claude": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
    "permissions": bundles.FIXTURES / "permissions",
    "overrides": bundles.FIXTURES / "overrides",
    "skills": bundles.FIXTURES / "skills",
}


FLAGS = ["--headless", "--stdio", "--no-auto-update", "--no-auto-login"]


class Copilot:
    """A headless Copilot CLI speaking JSON-RPC with Content-Length framing."""

    def __init__(self, home: Path, trusted: list[Path]) -> None:
        (home / ".copilot").mkdir(parents=True)
        config = {"trusted_folders": [str(p) for p in trusted], "banner": "never"}
        (home / ".copilot" / "config.json").write_text(json.dumps(config))
        # Closed in close(): the process outlives this call.
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            [str(oracle.binary("copilot")), *FLAGS],
            cwd=home,
            env=oracle.scratch_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
        )
        self.calls = 0

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.calls += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.calls, "method": method, "params": params})
        data = body.encode()
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        stdin.flush()
        while True:
            message = self._read(stdout)
            if message.get("id") == self.calls:
                assert "error" not in message, message
                return message["result"]

    def _read(self, stdout: IO[bytes]) -> dict[str, Any]:
        headers = {}
        while (line := stdout.readline()) not in (b"\r\n", b"\n"):
            if not line:  # the process ended
                self.errors.seek(0)
                raise AssertionError(f"copilot exited: {self.errors.read()[-2000:]!r}")
            name, _, value = line.decode().partition(":")
            headers[name.lower()] = value.strip()
        message: dict[str, Any] = json.loads(stdout.read(int(headers["content-length"])))
        return message

    def discover(self, project: Path) -> dict[str, dict[str, Any]]:
        """The project's own agents (not the user's or built-in ones), by name."""
        found = self.call("agents.discover", {"projectPaths": [str(project)]})["agents"]
        return {a["name"]: a for a in found if a["source"] == "project"}

    def skills(self, project: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
        """The project's own skills, by name, and the errors Copilot met reading them."""
        found = self.call("skills.discover", {"projectPaths": [str(project)]})
        mine = {s["name"]: s for s in found["skills"] if s["source"] == "project"}
        return mine, found["errors"]

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.errors.close()


def emit(bundle: str, scratch: Path) -> Path:
    out = scratch / bundle
    rendered = bundles.render(BUNDLES[bundle], "copilot", lint_errors=bundle == "permissions")
    for rel, data in rendered.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return out


def front(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Per bundle, (emitted folder, discovered agents); plus the broken copy's."""
    oracle.binary("copilot")
    scratch = tmp_path_factory.mktemp("copilot")
    folders = {bundle: emit(bundle, scratch) for bundle in BUNDLES}
    broken = scratch / "broken"
    shutil.copytree(folders["claude"], broken)
    scout = broken / ".github" / "agents" / "scout.agent.md"
    scout.write_text(scout.read_text().replace("description: ", "description: 5\nx: ", 1))
    notes = broken / ".github" / "skills" / "review-notes" / "SKILL.md"
    notes.parent.mkdir(parents=True)
    notes.write_text("Writes review notes, with no frontmatter.\n")
    home = tmp_path_factory.mktemp("copilot-home")
    copilot = Copilot(home, [*folders.values(), broken])
    try:
        answers = {b: (f, copilot.discover(f), copilot.skills(f)) for b, f in folders.items()}
        answers["broken"] = (broken, copilot.discover(broken), copilot.skills(broken))
    finally:
        copilot.close()
    return answers


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_copilot_loads_every_agent_with_the_tools_and_model_promptc_wrote(
    loaded: dict[str, Any], bundle: str
) -> None:
    folder, agents, _ = loaded[bundle]
    files = sorted((folder / ".github" / "agents").glob("*.agent.md"))
    assert files, "a bundle without agents would prove nothing"
    wrote = {f.name.removesuffix(".agent.md"): front(f) for f in files}
    assert sorted(agents) == sorted(wrote)
    for name, meta in wrote.items():
        assert agents[name]["tools"] == meta["tools"], name
        assert agents[name].get("model") == meta.get("model"), name
        assert agents[name]["description"] == meta["description"], name
        assert agents[name]["path"] == str(folder / ".github" / "agents" / f"{name}.agent.md")


def test_the_oracle_drops_an_agent_copilot_refuses(loaded: dict[str, Any]) -> None:
    # The same files as the claude fixture's, with scout's description a number.
    _, broken, _ = loaded["broken"]
    _, whole, _ = loaded["claude"]
    assert sorted(broken) == sorted(set(whole) - {"scout"})


@pytest.mark.parametrize("bundle", ["team", "skills"])
def test_copilot_loads_every_skill_promptc_wrote(loaded: dict[str, Any], bundle: str) -> None:
    folder, _, (skills, errors) = loaded[bundle]
    files = sorted((folder / ".github" / "skills").glob("*/SKILL.md"))
    assert files, "a bundle without skills would prove nothing"
    assert errors == []
    assert {name: s["path"] for name, s in skills.items()} == {
        front(f)["name"]: str(f) for f in files
    }
    assert all(s["enabled"] and s["description"] for s in skills.values())


def test_the_oracle_reports_a_skill_copilot_cannot_read(loaded: dict[str, Any]) -> None:
    _, _, (skills, errors) = loaded["broken"]
    assert "review-notes" not in skills
    assert errors == [".github/skills/review-notes/SKILL.md: missing or malformed YAML frontmatter"]

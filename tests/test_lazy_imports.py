"""What a run imports: modules only some bundles need load only when those bundles run.

Measured as behaviour (the modules a fresh process has loaded), never as time.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import loaded_modules

# The Claude translation: only a bundle with a Claude target (or plugin) needs it.
TRANSLATION = ("compiler.translate", "compiler.translation_report", "compiler.claude_rules")


# Only a build writing many files syncs their file system in one call.
SYNCFS = ("ctypes",)


def _loaded(folder: Path, *args: str) -> list[str]:
    return loaded_modules(folder, {*TRANSLATION, *SYNCFS}, *args)


def test_an_opencode_bundle_is_built_and_checked_without_the_translation(sample: Path) -> None:
    assert _loaded(sample, "build", "--no-cache", "-q") == ["0"]
    assert _loaded(sample, "check", "--no-cache", "-q") == ["0"]


def test_a_claude_target_loads_the_translation(sample: Path) -> None:
    (sample / "promptc.toml").write_text("[targets.opencode]\n[targets.claude]\n")
    assert _loaded(sample, "build", "--no-cache", "-q") == ["0", *sorted(TRANSLATION)]
    assert _loaded(sample, "check", "--no-cache", "-q") == ["0", *sorted(TRANSLATION)]


def test_a_claude_plugin_target_loads_the_translation(sample: Path) -> None:
    (sample / "promptc.toml").write_text('[targets.claude-plugin]\nname = "scout-tools"\n')
    assert _loaded(sample, "build", "--no-cache", "-q") == ["0", *sorted(TRANSLATION)]

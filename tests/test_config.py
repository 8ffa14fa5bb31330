"""Config discovery, defaults, validation messages, immutability."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from promptc_compiler import api
from promptc_compiler.base.diagnostics import Severity
from promptc_compiler.base.errors import ConfigError
from promptc_compiler.core.config import load_config
from promptc_compiler.pipeline.lint import settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_any_config(tmp_path: Path) -> None:
    config = load_config(cwd=tmp_path)
    assert config.source is None
    assert config.specs == tmp_path.resolve() / "specs"
    assert config.out == tmp_path.resolve() / "build"
    assert list(config.targets) == ["opencode"]
    assert settings(config)["description-length"].options == {"min": 20, "max": 1024}


def test_found_by_walking_up_from_a_subfolder(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname="x"\n\n[tool.promptc]\nout = "dist"\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    config = load_config(cwd=deep)
    assert config.source == tmp_path / "pyproject.toml"
    assert config.out == tmp_path.resolve() / "dist"


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname="x"\n')
    write(tmp_path / "sub" / "pyproject.toml", '[project]\nname="y"\n')
    assert load_config(cwd=tmp_path / "sub").source is None


def test_promptc_toml_wins_in_the_same_folder(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.promptc]\nout = "a"\n')
    write(tmp_path / "promptc.toml", 'out = "b"\n')
    assert load_config(cwd=tmp_path).out.name == "b"


def test_explicit_path(tmp_path: Path) -> None:
    config_file = write(tmp_path / "conf" / "promptc.toml", 'specs = "s/../prompts"\n')
    config = load_config(config_file, cwd=Path("/"))
    assert config.root == tmp_path / "conf"
    assert config.specs == tmp_path.resolve() / "conf" / "prompts"


def test_explicit_pyproject_reads_its_tool_promptc_table(tmp_path: Path) -> None:
    text = '[project]\nname = "x"\n\n[tool.promptc]\nout = "dist"\n'
    config = load_config(write(tmp_path / "pyproject.toml", text), cwd=Path("/"))
    assert config.source == tmp_path / "pyproject.toml"
    assert config.out == tmp_path.resolve() / "dist"


def test_explicit_pyproject_without_the_table_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"pyproject\.toml:1:1: no \[tool\.promptc\] table"):
        load_config(path, cwd=Path("/"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'out = "b"\nspecz = "x"\n',
            "promptc.toml:2:1: unknown key 'specz' at the top level (did you mean `specs`?)",
        ),
        (
            "[rules.description-lenght]\nmin = 3\n",
            "promptc.toml:1:1: unknown rule 'description-lenght' (did you mean `description-length`?)",
        ),
        (
            "[rules.description-length]\nmin = 3\nmxa = 4\n",
            "promptc.toml:3:1: unknown key 'mxa' at [rules.description-length] (did you mean `max`?)",
        ),
        (
            '[rules.description-length]\nlevel = "loud"\n',
            "promptc.toml:2:1: [rules.description-length.level]",
        ),
        ('[rules.syntax]\nlevel = "off"\n', "promptc.toml:2:1: 'syntax' cannot be reconfigured"),
        (
            "[targets.opencod]\n",
            "promptc.toml:1:1: unknown target 'opencod' (did you mean `opencode`?)",
        ),
        ("out = 3\n", "promptc.toml:1:1: [out]: expected a string, found the number 3"),
        # An unknown table is named at its header, wherever it stands.
        (
            'out = "b"\n\n# targets\n\n[targetz.claude]\n',
            "promptc.toml:5:1: unknown key 'targetz' at the top level (did you mean `targets`?)",
        ),
        (
            'out = "b"\n\n  [ extra ]\nx = 1\n',
            "promptc.toml:3:3: unknown key 'extra' at the top level",
        ),
        # Tables pasted from a pyproject.toml: promptc.toml holds promptc's keys at the top.
        (
            'out = "b"\n\n[rules.empty-body]\nlevel = "off"\n\n\n[tool.promptc.permission]\nbash = "ask"\n',
            "promptc.toml:7:1: [tool.promptc.permission]: promptc.toml holds promptc's keys at "
            "the top level; drop the `tool.promptc.` prefix (`[permission]`)",
        ),
        (
            '[tool.promptc]\nout = "b"\n',
            "promptc.toml:1:1: [tool.promptc]: promptc.toml holds promptc's keys at the top "
            "level; drop the `[tool.promptc]` header",
        ),
        ('out = "a\n', "invalid TOML"),
    ],
)
def test_bad_config_names_file_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    """The config's own keys are checked as it loads, the rules' and targets'
    tables where those are known: either way before a run reads any spec."""
    write(tmp_path / "promptc.toml", text)
    with pytest.raises(ConfigError) as info:
        api.lint(load_config(cwd=tmp_path))
    assert message in str(info.value)
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('specs = "s"\nout = "a\n', "promptc.toml:2:9: invalid TOML: Illegal character '\\n'"),
        ('specs = "s"\nx = [\n', "promptc.toml:3:1: invalid TOML: Invalid value"),
        ('specs = "s"\nx = [', "promptc.toml:2:6: invalid TOML: Invalid value"),
    ],
)
def test_invalid_toml_names_its_line_and_column(tmp_path: Path, text: str, message: str) -> None:
    """A TOML syntax error is placed like every other config problem (`path:line:col:`),
    so an editor puts it on the line; tomllib's "(at end of document)" is the last line."""
    write(tmp_path / "promptc.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(cwd=tmp_path)
    assert str(info.value).endswith(message)
    assert "(at " not in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('cache = "no"\n', "[cache]: expected true or false, found the text 'no'"),
        ('cache = "yes"\n', "[cache]: expected true or false, found the text 'yes'"),
    ],
)
def test_config_messages_give_no_yaml_advice(tmp_path: Path, text: str, message: str) -> None:
    """promptc.toml is TOML: the hints about YAML's traps (YAML 1.1 booleans) that a
    spec's frontmatter gets do not apply to it."""
    write(tmp_path / "promptc.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(cwd=tmp_path)
    assert str(info.value).endswith(message)


_RANGE = "integer out of TOML's range: integers are 64-bit, -2^63 to 2^63-1"


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        ("[rules.description-length]\nmin = 0x" + "f" * 5000 + "\n", f"toml:2:1: {_RANGE}"),
        ('custom_tools = ["a", -9223372036854775809]\n', f"toml:1:1: {_RANGE}"),
        # tomllib reads it, and each reader after it recursed once per level.
        (
            "[rules.x]\na = " + "[" * 450 + "]" * 450 + "\n",
            "toml:2:1: nested deeper than 64 levels",
        ),
        # tomllib itself recursed past the interpreter's limit.
        (
            "[rules.x]\na = " + "{b=" * 900 + "1" + "}" * 900,
            "toml:2:197: invalid TOML: nested deeper than 64 levels",
        ),
    ],
)
def test_a_value_promptc_cannot_read_is_refused_at_its_key(
    tmp_path: Path, text: str, ending: str
) -> None:
    """TOML's integers are 64-bit, and tomllib reads any: a rule option written
    as 5,000 hex digits was an internal error when the rule's message wrote it.
    Nesting stops at the frontmatter's 64 levels: deeper was a RecursionError."""
    write(tmp_path / "promptc.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(cwd=tmp_path)
    assert str(info.value).endswith(ending)


def test_the_largest_64_bit_integers_are_read(tmp_path: Path) -> None:
    write(
        tmp_path / "promptc.toml", "[rules.x]\na = 9223372036854775807\nb = -9223372036854775808\n"
    )
    assert load_config(cwd=tmp_path).rules["x"] == {"a": 2**63 - 1, "b": -(2**63)}


def test_pyproject_messages_use_the_full_table_path(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.promptc]\nspecs = "s"\nfragmnts = "f"\n',
    )
    with pytest.raises(
        ConfigError,
        match=r"pyproject.toml:6:1: unknown key 'fragmnts' at \[tool.promptc\] \(did you mean `fragments`\?\)",
    ):
        load_config(cwd=tmp_path)


def test_rule_level_and_options_apply(tmp_path: Path) -> None:
    write(
        tmp_path / "promptc.toml",
        '[rules.description-length]\nlevel = "error"\nmin = 5\n'
        '[rules.unused-fragment]\nlevel = "off"\n',
    )
    rules = settings(load_config(cwd=tmp_path))
    assert rules["description-length"].level is Severity.ERROR
    assert rules["description-length"].options["min"] == 5
    assert rules["unused-fragment"].level is None


def test_config_is_immutable(tmp_path: Path) -> None:
    write(tmp_path / "promptc.toml", "[targets.opencode]\n")
    config = load_config(cwd=tmp_path)
    with pytest.raises(AttributeError):
        config.out = Path("/")  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.targets["claude"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        settings(config)["description-length"].options["min"] = 1  # type: ignore[index]


def test_display_follows_the_working_directory_and_each_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "promptc.toml").write_text("")
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    config = load_config(cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    assert config.display(tmp_path / "link" / "a.md") == "real/a.md"
    assert config.display(tmp_path / "link" / "deep" / "b.md") == "real/deep/b.md"
    assert config.display(tmp_path / "link" / "c.md") == "real/c.md"
    assert config.display(tmp_path) == "."
    monkeypatch.chdir(tmp_path / "real")
    # Same paths, another working directory: nothing remembered for the first one shows.
    assert config.display(tmp_path / "link" / "a.md") == "a.md"
    assert config.display(tmp_path / "link" / "deep" / "b.md") == "deep/b.md"
    assert config.display(tmp_path / "x.md") == (tmp_path / "x.md").as_posix()
    # A fresh Config (a new run) sees a folder that became a symlink since.
    os.rename(tmp_path / "real" / "deep", tmp_path / "real" / "moved")
    (tmp_path / "real" / "deep").symlink_to(tmp_path / "real" / "moved")
    fresh = load_config(cwd=tmp_path)
    assert fresh.display(tmp_path / "link" / "deep" / "b.md") == "moved/b.md"


@pytest.mark.parametrize(
    "text",
    ['out = "a\n', "[rules.nope]\n", "specz = 1\n", '[tool.promptc]\nout = "x"\n'],
)
def test_a_config_problem_names_the_file_as_diagnostics_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Relative to the working directory when the file is inside it (an editor and
    a terminal resolve it there), else the whole path."""
    write(tmp_path / "b" / "promptc.toml", text)
    for cwd, shown in ((tmp_path / "b", "promptc.toml:"), (tmp_path, "b/promptc.toml:")):
        monkeypatch.chdir(cwd)
        with pytest.raises(ConfigError) as info:
            api.lint(load_config(cwd=tmp_path / "b"))
        assert str(info.value).startswith(shown), str(info.value)
    monkeypatch.chdir(tmp_path / "b")
    with pytest.raises(ConfigError) as info:
        api.lint(load_config(tmp_path / "b" / "promptc.toml", cwd=Path("/")))
    assert str(info.value).startswith("promptc.toml:")
    (tmp_path / "c").mkdir()
    monkeypatch.chdir(tmp_path / "c")
    with pytest.raises(ConfigError) as info:
        api.lint(load_config(cwd=tmp_path / "b"))
    assert str(info.value).startswith(f"{(tmp_path / 'b').resolve()}/promptc.toml:")

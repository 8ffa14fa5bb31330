"""Fuzz the import of each runtime's folder: whatever one of its files holds
(frontmatter and markdown, JSON, TOML, Codex rules), `promptc import` ends in
notes or a bundle, never an exception, and its exit code is one the command
documents."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.base import exit_codes
from promptc_compiler.base.errors import PromptcError
from promptc_compiler.core.config import load_config
from promptc_compiler.pipeline.importer import LAYOUTS
from tests.strategies import SCRATCH, ci_examples, spec_bytes, tick, yaml_text

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent / "fixtures" / "import"
# Each fixture folder is a runtime's (`claude-session` is Claude Code's).
FOLDERS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
_DEEP = "[" * 2000 + "]" * 2000  # past every parser's recursion limit
_BIG = "9" * 5000  # json.loads refuses it with a ValueError of its own
_HEX = "0x" + "f" * 5000  # tomllib reads it; Python writes no integer that long
_KEYS = [
    *("permissions", "allow", "deny", "ask", "defaultMode", "model", "agent", "tools"),
    *("permission", "bash", "mcpServers", "name", "description", "sandbox_mode", "x"),
]
_LEAVES = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
_WORDS = st.sampled_from(["Read", "Bash(git *)", "allow", "deny", "ask", "read-only", "@BIG@"])
_VALUES = st.recursive(
    _LEAVES | _WORDS | st.just("@DEEP@"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner),
    max_leaves=12,
)
# Documents that parse up to a hostile value, where a parser or a reader meets it.
json_text = st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=5).map(
    lambda document: json.dumps(document).replace('"@BIG@"', _BIG).replace('"@DEEP@"', _DEEP)
)
_TOML_VALUES = ['"x"', "true", "1", '"read-only"', '"never"', "[1, 2]", "{a = 1}", _HEX, _DEEP]
_TOML_LINES = st.tuples(
    st.sampled_from([*_KEYS, "[agents.x]", "[features]"]), st.sampled_from(_TOML_VALUES)
)
toml_text = st.lists(_TOML_LINES, max_size=8).map(
    lambda lines: "\n".join(k if k.startswith("[") else f"{k} = {v}" for k, v in lines)
)


def _text_for(path: Path) -> st.SearchStrategy[bytes]:
    """Random text of the file's kind, or the file cut short."""
    raw = path.read_bytes()
    cut = st.integers(0, len(raw)).map(lambda end: raw[:end])
    if path.suffix == ".md":
        return spec_bytes() | cut
    if path.suffix == ".json":
        return json_text.map(str.encode) | cut
    if path.suffix == ".toml":
        return toml_text.map(str.encode) | cut
    return yaml_text.map(str.encode) | cut


@settings(max_examples=ci_examples(25))
@given(data=st.data())
def test_import_any_file_of_a_runtime_folder(data: st.DataObject) -> None:
    tick("import: any file of a runtime's folder")
    name = data.draw(st.sampled_from(FOLDERS))
    kind = next(k for k in LAYOUTS if name.startswith(k))
    files = sorted(p for p in (FIXTURES / name).rglob("*") if p.is_file())
    changed = data.draw(st.sampled_from(files))
    content = data.draw(_text_for(changed))
    with tempfile.TemporaryDirectory(dir=SCRATCH) as scratch:
        source, bundle = Path(scratch) / "source", Path(scratch) / "bundle"
        shutil.copytree(FIXTURES / name, source)
        (source / changed.relative_to(FIXTURES / name)).write_bytes(content)
        bundle.mkdir()
        try:
            imported = api.import_bundle(kind, source, load_config(cwd=bundle))
        except PromptcError:
            return  # a usage or config error: said, with its own exit code
        assert imported.exit_code() in (exit_codes.OK, exit_codes.PROBLEMS)

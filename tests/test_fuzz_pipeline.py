"""Fuzz the whole pipeline through the library API: whatever a bundle holds,
lint, check and build end in diagnostics or success, never an exception, and
a build either writes exactly what it reports or nothing at all."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptc_compiler import api
from promptc_compiler.pipeline import writer
from tests.strategies import (
    bundle_on_disk,
    bundles,
    check_result,
    ci_examples,
    markdown,
    spec_bytes,
    tick,
)

pytestmark = pytest.mark.slow

AGENT_HEAD = b"---\ndescription: Reviews diffs for bugs and missing tests.\nmode: subagent\n---\n"

# Each example writes a bundle to disk and runs the pipeline on it, several
# times the cost of an example of the other fuzz suites: under `make test` these
# take half the ci profile's examples. `make fuzz` runs them as long as the rest.
HALF = ci_examples(50)


@settings(max_examples=HALF)
@given(bundles())
@example({"promptc.toml": b"", "specs/agents/a.md": b"---\n---\n"})
@example({"promptc.toml": b"", "fragments/tone.md": b"<<tone>>", "specs/agents/a.md": b"<<tone>>"})
def test_lint_any_bundle(files: dict[str, bytes]) -> None:
    tick("pipeline: lint any bundle")
    with bundle_on_disk(files) as (_, config):
        check_result(api.lint(config), files)


@settings(max_examples=HALF)
@given(bundles())
def test_check_any_bundle_writes_nothing(files: dict[str, bytes]) -> None:
    tick("pipeline: build --check any bundle")
    with bundle_on_disk(files) as (_, config):
        result = api.check(config)
        check_result(result, files)
        assert not config.out.exists()
        assert not result.ok  # nothing is built yet: at least opencode.json is missing


@settings(max_examples=HALF)
@given(bundles())
def test_build_writes_all_or_nothing(files: dict[str, bytes]) -> None:
    tick("pipeline: build any bundle")
    with bundle_on_disk(files) as (_, config):
        result = api.build(config)
        check_result(result, files)
        if not result.ok:
            assert not config.out.exists(), result.diagnostics
            return
        on_disk = {
            p.relative_to(config.out).as_posix(): p.read_bytes()
            for p in config.out.rglob("*")
            if p.is_file() and p.name not in (writer.MANIFEST, writer.LOCK)
        }
        assert on_disk == dict(result.files)
        assert api.check(config).ok


@settings(max_examples=HALF)
@given(
    st.lists(st.sampled_from(["tone", "caveman", "flow/build/plan"]), unique=True),
    st.lists(markdown, min_size=1, max_size=4),
)
def test_compose_any_markdown(fragments: list[str], bodies: list[str]) -> None:
    """Agents and fragments whose bodies are markdown with and without placeholders."""
    tick("pipeline: compose any markdown")
    files = {"promptc.toml": b""}
    for i, body in enumerate(bodies):
        files[f"specs/agents/a{i}.md"] = AGENT_HEAD + body.encode("utf-8", "surrogatepass")
    for name in fragments:
        files[f"fragments/{name}.md"] = bodies[-1].encode("utf-8", "surrogatepass")
    with bundle_on_disk(files) as (_, config):
        check_result(api.build(config, check=True), files)


# Text with no `<` cannot hold a placeholder, a statement or a comment under any
# composition syntax promptc uses, so it must come out exactly as it went in.
plain_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="<\r\x00\ufeff"), min_size=1
).filter(lambda text: text.strip())


@settings(max_examples=HALF)
@given(
    plain_text
    | st.lists(
        st.sampled_from(["{{x}}", "${{ a.b }}", "$ARGUMENTS", "```", "`", "\n", "@x", "{% if %}"])
        | plain_text
    )
    .map("".join)
    .filter(lambda t: t.strip())
)
@example("{{injected_rules}} ${{ runner.os }} $ARGUMENTS `{% raw %}` {#")
def test_text_without_placeholders_passes_through(body: str) -> None:
    tick("pipeline: plain text passes through")
    files = {"promptc.toml": b"", "specs/agents/a.md": AGENT_HEAD + body.encode()}
    with bundle_on_disk(files) as (_, config):
        result = api.render(config)
        check_result(result, files)
        emitted = result.files["opencode/.opencode/agents/a.md"].decode()
        expected = body if body.endswith("\n") else body + "\n"
        assert emitted.split("\n---\n", 1)[1] == expected


@settings(max_examples=HALF)
@given(spec_bytes())
def test_any_fragment_file(raw: bytes) -> None:
    """A broken fragment is reported at its own file, and the agent using it too."""
    tick("pipeline: any fragment file")
    files = {
        "promptc.toml": b"",
        "specs/agents/a.md": AGENT_HEAD + b"<<tone>>\n\n# A\n",
        "fragments/tone.md": raw,
    }
    with bundle_on_disk(files) as (_, config):
        check_result(api.lint(config), files)

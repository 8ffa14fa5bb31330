"""The generated parts of the reference: the rules from the registry, the config keys from
schemas/config.schema.json.

Each stands in its page between `<!-- generated: NAME -->` and `<!-- end generated -->`;
tests/test_docs.py fails when a page differs from what is generated here, and
`python -m tests.docs_pages` (run by `make docs`) rewrites the pages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from promptc_compiler import api, rules
from promptc_compiler.cli.main import cli
from promptc_compiler.core.config import load_config
from promptc_compiler.core.resources import load_schema
from promptc_compiler.runtimes import TARGETS, options_schema

ROOT = Path(__file__).resolve().parent.parent


def explain(rule_id: str) -> str:
    """What `promptc explain RULE` prints."""
    done = CliRunner().invoke(cli, ["explain", rule_id])
    assert done.exit_code == 0, done.output
    return done.output


def rules_block() -> str:
    """The rule table (as `promptc rules` lists them), then each rule as `promptc explain` prints it."""
    lines = ["| rule | level | what it reports |", "|---|---|---|"]
    for rule_id, rule in sorted(rules.RULES.items()):
        level = f"{rule.DEFAULT_LEVEL} (stage)" if rule.STAGE else rule.DEFAULT_LEVEL
        summary = rules.summary(rule).replace("|", "\\|")
        lines.append(f"| [`{rule_id}`](#{rule_id}) | {level} | {summary} |")
    for rule_id in sorted(rules.RULES):
        lines += ["", f"## {rule_id}", "", "```text", explain(rule_id).rstrip("\n"), "```"]
    return "\n".join(lines) + "\n"


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def kind(schema: dict[str, Any]) -> str:
    if "$ref" in schema:  # the permission rules
        return "an action, or a table of rules"
    if schema.get("type") == "array":
        return f"list of {schema['items']['type']}s"
    if schema.get("type") == "object":
        return "table"
    return str(schema["type"])


def row(key: str, schema: dict[str, Any]) -> str:
    default = f"`{toml_value(schema['default'])}`" if "default" in schema else "none"
    meaning = schema.get("description", "").replace("|", "\\|").replace("<", "&lt;")
    return f"| `{key}` | {kind(schema)} | {default} | {meaning} |"


def config_block() -> str:
    """One row per top-level key of the config schema."""
    lines = ["| key | type | default | meaning |", "|---|---|---|---|"]
    lines += [row(key, schema) for key, schema in load_schema("config")["properties"].items()]
    return "\n".join(lines) + "\n"


def targets_block() -> str:
    """Each target's options, from the schema its module checks them with."""
    lines = []
    for name, target in TARGETS.items():
        lines += ["", f"`[targets.{name}]`", ""]
        options = options_schema(target)["properties"]
        if not options:
            lines.append("No options.")
            continue
        lines += ["| option | type | default | meaning |", "|---|---|---|---|"]
        lines += [row(key, schema) for key, schema in options.items()]
    return "\n".join(lines[1:]) + "\n"


def target_values_block() -> str:
    """What `target` holds while each target of the registry is composed (promptc_compiler.pipeline.emitter)."""
    lines = ["| target | runtime | `target` holds |", "|---|---|---|"]
    for name, target in TARGETS.items():
        composed = target.COMPOSE_AS
        note = "" if composed == name else " (the same bodies as that target)"
        lines.append(f"| {name} | {target.RUNTIME} | `{composed}`{note} |")
    return "\n".join(lines) + "\n"


def figures_block() -> str:
    """What every build of the repository's bundle proves, per target (promptc_compiler.pipeline.proof)."""
    result = api.render(load_config(cwd=ROOT))
    lines = ["```text", *result.summaries, "```"]
    return "\n".join(lines) + "\n"


# name -> (the page, what generates its block)
GENERATED: dict[str, tuple[str, Callable[[], str]]] = {
    "rules": ("docs/reference/rules.md", rules_block),
    "config": ("docs/reference/config.md", config_block),
    "targets": ("docs/reference/config.md", targets_block),
    "figures": ("docs/targets/never-wider.md", figures_block),
    "target-values": ("docs/composition.md", target_values_block),
}


def regenerate(text: str, name: str) -> str:
    """The page's text with its generated block made fresh."""
    _, generate = GENERATED[name]
    block = re.compile(rf"(<!-- generated: {name} -->\n).*?(<!-- end generated -->)", re.S)
    assert block.search(text), f"no `<!-- generated: {name} -->` block"
    return block.sub(lambda m: f"{m[1]}\n{generate()}\n{m[2]}", text)


def main() -> None:
    for name, (page, _) in GENERATED.items():
        path = ROOT / page
        path.write_text(regenerate(path.read_text(encoding="utf-8"), name), encoding="utf-8")


if __name__ == "__main__":
    main()

"""The README's rule table lists exactly the registered rules, with their levels and summaries."""

from __future__ import annotations

import re
from pathlib import Path

from compiler import rules

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"<!-- promptc rules -->\n(.*?)<!-- end promptc rules -->", re.DOTALL)


def table() -> str:
    lines = ["| rule | level | what it reports |", "|---|---|---|"]
    for rule_id, rule in sorted(rules.RULES.items()):
        level = f"{rule.DEFAULT_LEVEL} (stage)" if rule.STAGE else rule.DEFAULT_LEVEL
        summary = rules.summary(rule).replace("|", "\\|")
        lines.append(f"| `{rule_id}` | {level} | {summary} |")
    return "\n".join(lines) + "\n"


def test_readme_rule_table_is_fresh() -> None:
    found = BLOCK.search(README.read_text(encoding="utf-8"))
    assert found is not None, "README.md lost its rule table"
    assert found.group(1) == table(), (
        "README.md's rule table is stale: run `python tests/test_readme_rules.py`"
    )


if __name__ == "__main__":  # regenerate the table in place
    text = README.read_text(encoding="utf-8")
    README.write_text(
        BLOCK.sub(lambda m: f"<!-- promptc rules -->\n{table()}<!-- end promptc rules -->", text),
        encoding="utf-8",
    )

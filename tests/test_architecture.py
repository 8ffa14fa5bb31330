"""docs/architecture.md is drawn from the import contracts: nothing missing, nothing extra.

The contracts in pyproject.toml (`[tool.importlinter]`, held by `make layers`)
are the architecture; the page says them to a reader. Its layer table lists
the packages of each layer of the layers contract, top to bottom, and its two
bullets the forbidden and the independence contracts. The ladder covers every
package and top-level module of promptc_compiler, so that no package stands
outside the layers.
"""

from __future__ import annotations

import pkgutil
import re
import tomllib
from pathlib import Path
from typing import Any

import promptc_compiler
from promptc_compiler import runtimes

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "promptc_compiler."
_NAME = re.compile(r"`([^`]+)`")


def contracts() -> dict[str, dict[str, Any]]:
    """The import contracts by type (one of each)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = config["tool"]["importlinter"]["contracts"]
    assert len({c["type"] for c in found}) == len(found)
    return {c["type"]: c for c in found}


def _short(module: str) -> str:
    return module.removeprefix(PREFIX)


def contract_layers() -> list[set[str]]:
    """Each layer of the layers contract, top first, as the page names its packages."""
    return [
        {_short(name.strip()) for name in re.split(r"[|:]", layer)}
        for layer in contracts()["layers"]["layers"]
    ]


def page() -> str:
    return (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def page_layers(text: str) -> list[set[str]]:
    """The packages of each row of the page's layer table, top first."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [set(_NAME.findall(row.split("|")[2])) for row in rows[1:]]  # past the header


def bullet(text: str, kind: str) -> str:
    """The page's bullet on the contract of `kind`, on one line."""
    found = re.search(rf"^- {kind}:(.*?)(?=^\S|^- |\Z)", text, re.M | re.S)
    assert found, f"no `- {kind}:` bullet"
    return " ".join(found.group(1).split())


def test_the_layer_table_is_the_layers_contract() -> None:
    assert page_layers(page()) == contract_layers()


def test_the_layers_hold_every_package() -> None:
    modules = {m.name for m in pkgutil.iter_modules(promptc_compiler.__path__)}
    layers = contract_layers()
    assert set().union(*layers) == modules
    assert sum(len(layer) for layer in layers) == len(modules)  # each in one layer


def test_the_forbidden_bullet_is_the_forbidden_contract() -> None:
    contract = contracts()["forbidden"]
    sources, _, forbidden = bullet(page(), "forbidden").partition(" import none of ")
    assert set(_NAME.findall(sources)) == {_short(m) for m in contract["source_modules"]}
    said = set(_NAME.findall(forbidden.split(".", 1)[0]))
    assert said == {_short(m) for m in contract["forbidden_modules"]}


def test_the_independence_bullet_is_the_independence_contract() -> None:
    contract = contracts()["independence"]
    text = bullet(page(), "independence")
    shared = {line.rsplit(" -> ", 1)[1] for line in contract["ignore_imports"]}
    modules, _, rest = text.partition(" import none of each other")
    assert set(_NAME.findall(modules)) == {_short(m) for m in contract["modules"]}
    assert set(_NAME.findall(rest)) == {_short(m).removeprefix("runtimes.") for m in shared}


def test_the_shared_modules_are_every_module_of_runtimes_but_the_packages() -> None:
    """What the independence contract lets every runtime import is what no runtime owns."""
    shared = {
        line.rsplit(" -> ", 1)[1].rsplit(".", 1)[1]
        for line in contracts()["independence"]["ignore_imports"]
    }
    children = {m.name for m in pkgutil.iter_modules(runtimes.__path__)}
    assert shared == children - set(runtimes.RUNTIMES)


def test_a_page_without_a_layer_or_with_one_more_differs() -> None:
    """The comparison notices a row missing and a package the contract lacks."""
    text = page()
    rows = [line for line in text.splitlines() if line.startswith("| command line |")]
    assert len(rows) == 1
    assert page_layers(text.replace(rows[0] + "\n", "")) != contract_layers()
    extra = rows[0].replace("`public`", "`public`, `utils`")
    assert page_layers(text.replace(rows[0], extra)) != contract_layers()

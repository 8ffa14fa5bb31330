from __future__ import annotations

from promptc_compiler.cli.main import run

run()

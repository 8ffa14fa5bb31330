from __future__ import annotations

from compiler.cli import run

run()

from __future__ import annotations

from compiler.entry import run

run()

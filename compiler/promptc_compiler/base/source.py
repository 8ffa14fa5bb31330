"""The source language: promptc's specs are OpenCode's.

An agent's frontmatter, its permission model and its body syntax are
OpenCode's, and every other runtime's files are a translation of them. The
target that writes the specs back as OpenCode reads them bears its name, as
does the `target` a spec is composed for when no other is asked for. This is
the one place the name is written outside its runtime package
(tests/test_runtime_names.py).
"""

from __future__ import annotations

SOURCE = "opencode"

"""promptc: compose, check and emit AI coding-agent prompt specs.

The library API is promptc_compiler.public (docs/api.md): load_config, lint, build,
check, can, can_on and import_bundle, and the types they return. It is not
re-exported here: every `promptc` run imports this package first, and must
not load the pipeline before the result cache has answered (promptc_compiler.cli.main).
"""

from __future__ import annotations

__version__ = "0.1.0"

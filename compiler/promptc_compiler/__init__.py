"""promptc: compose, check and emit AI coding-agent prompt specs.

The library API is promptc_compiler.api (lint, build, check, can, delegation_graph,
import_bundle), with promptc_compiler.core.config.load_config to read a bundle's config.
"""

from __future__ import annotations

__version__ = "0.1.0"

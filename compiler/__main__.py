from __future__ import annotations

from compiler.cli import main

raise SystemExit(main())

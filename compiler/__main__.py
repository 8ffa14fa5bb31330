from __future__ import annotations

from compiler.entry import main

raise SystemExit(main())

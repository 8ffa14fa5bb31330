"""OpenCode: the source runtime; its target writes the specs back as OpenCode reads them."""

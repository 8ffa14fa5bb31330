"""Base: the records every layer returns (diagnostics, errors), did-you-mean, reading
only regular files, and where a run may write. Imports nothing else of promptc."""

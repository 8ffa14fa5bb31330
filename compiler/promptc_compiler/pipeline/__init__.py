"""The stages above the core and the runtimes: the rule runner, emit, proof, write, the
result cache, --fix, and import."""

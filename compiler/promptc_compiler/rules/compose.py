"""Composition errors: a placeholder, tag or fragment that cannot be composed exactly.

Reported by the compose stage, always as an error, at the construct's own
file:line:col; an error inside a fragment is reported in the fragment's file
and ends with the chain of placeholders that reached it, innermost first
("; included from fragments/flow/build.md:3:1, from specs/modes/build.md:12:1").
Nothing is written while one exists. The composition language itself is
described in docs/composition.md.

Covers:
- an unknown fragment or variable (with a did-you-mean);
- a placeholder that is not `<<name>>` or `<<name(param=value, ...)>>`:
  expressions, attribute access and calls are never evaluated;
- a call that names an unknown parameter, misses a required one, or passes
  a value of the wrong type or outside the declared `enum`;
- a parameter declaration whose default or allowed values do not fit its
  type, or whose name is reserved or is also a fragment's name;
- a condition that is not a comparison of variables with literals, compares
  `target` or an enum parameter with a value it can never have, has a syntax
  error, or fails when evaluated;
- a tag out of place (`endif` without `if`, `elif` after `else`, an `if`
  never closed), an unknown tag, `<%-` whitespace control;
- an include cycle (the whole chain is named), nesting deeper than 32
  fragments, a composed text over 1,000,000 characters;
- two fragment files that map to one name (both are named), a fragment
  file name that is not an identifier, a fragment called `target`.

Fails:
    <<flow_buidl_plan>>               # unknown fragment (did you mean `flow_build_plan`?)
    <<caveman(level="ultar")>>        # level must be one of "lite", "full", "ultra"
    << ''.__class__ >>                # not a placeholder; never evaluated
    <% if target == "cluade" %>       # 'target' is never "cluade" (did you mean `claude`?)

Passes:
    <<caveman(level="ultra")>>
    \\<<caveman>>                      # the escape: prints `<<caveman>>`
    `<<caveman>>`                     # inline code is literal
"""

ID = "compose"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}

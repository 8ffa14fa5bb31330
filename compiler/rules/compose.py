"""A placeholder that cannot be expanded: unknown fragment, cycle, bad name.

Reported by the compose stage at the placeholder's own file:line:col, always
as an error. An unknown name gets a did-you-mean; a cycle names the whole chain
(`a -> b -> a`); two fragment files that map to one name are both named.

Fails:
    <<flow_buidl_plan>>    # unknown fragment (did you mean `flow_build_plan`?)
"""

ID = "compose"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}

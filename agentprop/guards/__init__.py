"""agentprop's guards inside the user's framework: any `agentprop.intercept.Guard` run
where the framework decides about a tool call (docs/guardrails.md). Each adapter is a
module of its own that imports its framework; this package and `import agentprop` import
none.
"""

"""The test suite as a regular package: the `ppi-python` wheel (the dev extra) installs a
top-level `tests` package of its own, which would otherwise shadow this folder's
`tests.<area>.conftest` imports."""

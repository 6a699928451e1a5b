"""The report's sections, one module each; every module here registers one `Section`
(report/_section.py finds them all, so a new section is a new file here)."""

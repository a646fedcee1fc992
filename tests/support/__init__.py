"""Test support shared by every test directory (tests/ is on sys.path through the rootdir
conftest): `support.facts` builds fake facts and capture contexts, `support.cli` runs the CLI."""

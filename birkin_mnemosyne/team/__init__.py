"""A team index: one PostgreSQL index for many machines, filled from git repositories.

The Markdown files in git stay canonical; the database holds an index derived from
them (``ingest``), searched by every machine with the local ranking (``engine``:
``Mnemosyne(vault, index="postgresql://...")``), and a writer lock that serializes
writes from any working copy (``writes``). ``db`` holds the tables, ``remote`` feeds the
local ``Index`` from them, ``git`` reads the repositories, ``scratch`` starts a
throwaway server for tests and benchmarks. Needs the ``postgres`` extra (psycopg),
imported only here. See docs/how-to/team-index.md.
"""

"""Shared fixtures: an isolated environment and a factory for small vaults."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolate(monkeypatch, tmp_path_factory):
    """Never touch the real home folder or a vault named in the caller's environment."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in (
        "MNEMOSYNE_VAULT",
        "MNEMOSYNE_SEMANTIC",
        "MNEMOSYNE_PROJECT_KEY",
        "MNEMOSYNE_TASK_KEY",
        "MNEMOSYNE_MCP_TOOLS",
    ):
        monkeypatch.delenv(name, raising=False)


class VaultFactory:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, rel: str, text: str, *, dedent: bool = True) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n") if dedent else text, encoding="utf-8")
        return path

    def write_bytes(self, rel: str, data: bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path


@pytest.fixture
def cli(capsys):
    """Run ``mnemosyne`` in-process: ``code, out, err = cli("search", "x")``."""
    from birkin_mnemosyne.cli import main

    def run(*argv):
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def vault(tmp_path) -> VaultFactory:
    """A factory over an empty vault folder: ``vault.write("a/b.md", text)``."""
    root = tmp_path / "vault"
    root.mkdir()
    return VaultFactory(root)


EXAMPLE_VAULT = Path(__file__).resolve().parent.parent / "examples" / "vault"


def cache_text(path: Path) -> str:
    """Everything the search-index cache holds (base and log), decompressed, as one string."""
    import json

    from birkin_mnemosyne.cache import BlockFile, CacheMiss, LogFile
    from birkin_mnemosyne.index_store import INDEX_FORMAT, LOG_FILE, LOG_FORMAT

    reader = BlockFile(path, expect_format=INDEX_FORMAT)
    try:
        parts = [json.dumps(reader.header, ensure_ascii=False)]
        index = reader.header["index"]
        for name in ("sections", "note_fields"):
            for run in ("blocks", "tails"):
                for _, offset, length, size in index[name][run]:
                    parts.append(reader.block(offset, length, size))
        # The note columns and the headings (JSON chunks, index_columns.py).
        chunks = [*index["sec_heading"]["blocks"]]
        for entries in index["notes"]["columns"].values():
            chunks.extend(entries)
        for offset, length, size in chunks:
            parts.append(reader.block(offset, length, size))
    finally:
        reader.close()
    try:
        log = LogFile(path.parent / LOG_FILE, expect_format=LOG_FORMAT)
    except CacheMiss:
        return "\n".join(parts)
    try:
        parts.append(json.dumps(log.header, ensure_ascii=False))
        parts.extend(json.dumps(r, ensure_ascii=False) for r in log.read_records())
    finally:
        log.close()
    return "\n".join(parts)


def load_script(name: str, path: Path, *also: Path):
    """Import a benchmark script by path (its folder, and ``also``, on sys.path meanwhile)."""
    import importlib.util
    import sys

    folders = [str(path.parent), *(str(a) for a in also)]
    sys.path[:0] = folders
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for folder in folders:
            sys.path.remove(folder)


# A vault for the state questions (latest, host_history): a host note with aliases and
# dated lines, journals at different dates (daily and monthly, one superseded entry), a
# runbook and a superseded runbook. Shared by the library, CLI, MCP and Hermes tests.
STATE_NOTES = {
    "hosts/db1.md": """
        ---
        title: db1
        type: host
        host: db1
        aliases: [db-primary, pg-main]
        updated: 2026-06-19
        ---
        # db1

        The PostgreSQL primary.

        ## Facts
        - PostgreSQL 15, port 5432
        - 2026-03-02: disk replaced by the vendor
        - 2026-06-19: max_connections raised to 300

        ## Role history
        | from | role |
        |---|---|
        | 2026-02-18 | replica |
        """,
    "hosts/web1.md": """
        ---
        type: host
        aliases: [frontend]
        ---
        # web1

        nginx in front of the API.
        """,
    "journal/2026-03-02.md": """
        # 2026-03-02

        ### 09:40 — db1 disk replaced
        The disk of db1 was replaced; backup retention stays at 14 days.

        ### 14:10 — lunch
        Team lunch, nothing else.
        """,
    "journal/2026-04.md": """
        ---
        type: journal
        date: 2026-04-30
        ---
        # April 2026

        ## Week 14

        ### 04-07 10:00 — db1 backup retention
        Set backup retention to 21 days on db1.

        ### 04-08 11:00 — Superseded: db1 pool size
        The pool size on db1 was 40.
        """,
    "journal/2026-06-19.md": """
        # 2026-06-19

        ### 08:40 — retention change on db-primary
        Changed the backup retention to 30 days on the primary (db-primary).

        ### 13:00 — nginx reload
        Reloaded nginx on web1 after the certificate renewal.
        """,
    "runbooks/backup.md": """
        ---
        type: runbook
        date: 2026-01-10
        ---
        # Backup runbook

        ## Retention
        Backup retention is 14 days for every host, db1 included.
        """,
    "runbooks/old-backup.md": """
        ---
        status: superseded
        date: 2025-12-01
        ---
        # Old backup runbook

        Backup retention was 7 days.
        """,
}


@pytest.fixture
def state_vault(vault) -> VaultFactory:
    for rel, text in STATE_NOTES.items():
        vault.write(rel, text)
    return vault

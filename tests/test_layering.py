"""The layer rules of DESIGN.md, checked by reading every module's imports."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "birkin_mnemosyne"

# module (or package folder) -> layer; "errors"/"diagnostics"/"_version" are shared.
LAYERS = {
    "tokenizer": 0,
    "frontmatter": 0,
    "yaml_subset": 0,
    "markdown": 0,
    "labels": 0,
    "glossary": 0,  # cross-language query words; reads glossary_data
    "glossary_data": 0,
    "time_bounds": 0,  # since/until windows; the clock is passed in
    "progress": 0,  # the on_progress event type; no I/O, no clock
    "redact": 1,  # reads the secret-hash file
    "vault_paths": 1,
    "discovery": 1,
    "atomic": 1,
    "vault_lock": 1,
    "cache": 1,
    "freshness": 1,  # stat passes in a background thread, their interval
    "source_files": 1,  # reads folders outside the vault for imports
    "config": 1,
    "journal": 1,
    "document": 2,
    "index": 2,
    "index_columns": 2,
    "dynamics": 2,
    "ranking": 2,
    "note_kinds": 2,
    "snippets": 2,
    "reflexes": 0,  # reflex triggers a note declares and how they match; pure functions
    "similarity": 2,  # the exact near-duplicate join
    "graph": 3,
    "semantic": 2,
    "fusion": 2,  # rank fusion maths; standard library only
    "bm25": 2,  # plain Okapi BM25 over a caller's postings (0.7.2's bm25_scores)
    "engine": 3,
    "index_store": 3,  # the index's base file and log: load, follow, save, build lock
    "parse_workers": 3,  # worker processes of a large index build (python -m)
    "memory_index": 3,
    "startup": 3,
    "handoffs": 3,
    "curation": 3,
    "evaluate": 3,
    "change_plans": 3,
    "onboarding": 3,
    "importers": 3,
    "state_queries": 3,  # latest / host_history: sections newest first
    "team": 3,  # package: the PostgreSQL team index (ingest from git, its engine)
    # pure note-text helpers (they import only L0-L2), shared by the facade and the
    # onboarding/import features
    "notes_io": 3,
    "note_edits": 3,  # prepend, find-replace, replace a section, retarget wikilinks
    "memory": 4,  # package: VaultMemory, one module per group of operations
    "digest": 4,
    "cli": 5,
    "mcp_server": 5,  # package: build_server, one module per tool area, HTTP serving
    "claude": 5,  # package: Claude Code hooks, session capture, installer
    "claude_plugin": 5,  # the Claude Code plugin folder; its launcher script runs the CLI
    "hermes_install": 5,  # copies the Hermes plugin; standard library only
    "hermes_plugin": 5,  # the Hermes Agent memory provider (imports hermes-agent)
    "mcp_main": 5,  # the mnemosyne-mcp launcher: standard library until it serves
    "web": 5,  # package: mnemosyne serve's REST API, HTTP server, renderer, page
    "progress_view": 5,  # progress for people: the CLI's line, the MCP server's log
    "__main__": 5,
    "__init__": 5,
}
SHARED = {"errors", "diagnostics", "_version"}
# uvicorn comes with the mcp extra; mcp_server runs it for streamable HTTP
EXTRA_MODULES = {
    "mcp",
    "model2vec",
    "numpy",
    "pydantic",
    "tokenizers",
    "safetensors",
    "uvicorn",
    "psycopg",
}
# hermes-agent's top-level modules, imported only inside a running Hermes
EXTRA_MODULES |= {"agent", "hermes_constants", "yaml"}
MAY_IMPORT_EXTRAS = {"semantic", "mcp_server", "hermes_plugin", "team"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        yield rel.parts[0].removesuffix(".py"), path


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield 0, alias.name
        elif isinstance(node, ast.ImportFrom):
            yield node.level, node.module or ""


def test_every_module_has_a_layer():
    missing = {name for name, _ in _modules()} - LAYERS.keys() - SHARED
    assert not missing, f"add these modules to LAYERS: {missing}"


def test_modules_import_only_their_layer_or_lower():
    problems = []
    for name, path in _modules():
        if name in SHARED:
            continue
        layer = LAYERS[name]
        for level, module in _imports(path):
            if level == 0:
                continue
            target = module.split(".")[0] if module else ""
            if path.parent != PACKAGE and level == 1:
                continue  # inside a subpackage: its own modules
            if not target or target in SHARED or target == name:
                continue
            if LAYERS.get(target, 99) > layer:
                problems.append(f"{path.name} (L{layer}) imports {target} (L{LAYERS.get(target)})")
    assert not problems, problems


def test_core_imports_only_the_standard_library():
    stdlib = set(sys.stdlib_module_names)
    problems = []
    for name, path in _modules():
        for level, module in _imports(path):
            if level:
                continue
            top = module.split(".")[0]
            if top in stdlib or top == "birkin_mnemosyne":
                continue
            if top in EXTRA_MODULES and name in MAY_IMPORT_EXTRAS:
                continue
            problems.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert not problems, problems

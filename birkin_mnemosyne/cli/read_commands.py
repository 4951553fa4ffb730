"""Read-only subcommands: search, status, reindex."""

from __future__ import annotations

import argparse
import sys

from ..engine import Mnemosyne
from .output import Progress, highlight, print_json, query_words


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the machine-readable JSON shape")


def register_search(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "search",
        help="search the vault",
        description="Search the vault; one hit per note with its best section. Read-only.",
        epilog='example: mnemosyne search "restore the database" --limit 3',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("query", help="words, an identifier or (with --exact) a literal string")
    p.add_argument("--limit", type=int, default=8, help="at most N hits (default 8)")
    p.add_argument("--zone", help="only notes in this folder (and its subfolders)")
    p.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="NS:VALUE",
        help="only notes with this label (repeatable: AND)",
    )
    p.add_argument(
        "--exact", action="store_true", help="match a literal substring (case-insensitive)"
    )
    p.add_argument("--include-archive", action="store_true", help="also search _archive/")
    _json_flag(p)
    p.set_defaults(handler=run_search)
    return p


def run_search(args) -> int:
    engine = Mnemosyne(args.vault)
    response = engine.search_response(
        args.query,
        args.limit,
        zone=args.zone,
        labels=args.label,
        include_archive=args.include_archive,
        exact=args.exact,
    )
    if args.json:
        print_json(response)
        return 0 if response["hits"] else 1
    tty = sys.stdout.isatty()
    words = query_words(args.query)
    out = sys.stdout
    if response["no_strong_match"]:
        out.write("No strong match.")
        if response["best_weak"]:
            out.write(" Closest, weakly related:\n")
        else:
            out.write("\n")
    for rank, hit in enumerate(response["hits"] or response["best_weak"], 1):
        where = hit["path"] + (f" › {hit['heading']}" if hit["heading"] else "")
        flags = " [stale]" if hit["stale"] else ""
        flags += " [archived]" if hit.get("archived") else ""
        out.write(f"{rank}. {hit['title']}{flags}\n   {where}\n")
        if hit["snippet"]:
            out.write(f"   {highlight(hit['snippet'], words, tty)}\n")
        if hit["also"]:
            out.write(f"   also: {', '.join(hit['also'])}\n")
    if not response["index"]["fresh"]:
        print("mnemosyne: note: the index may be stale; run `mnemosyne reindex`", file=sys.stderr)
    return 0 if response["hits"] else 1


def register_status(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "status",
        help="show the vault, index freshness and indexing warnings",
        description="Vault path, note count, zones, index freshness, cache size, warnings.",
        epilog="example: mnemosyne status --json",
    )
    _json_flag(p)
    p.set_defaults(handler=run_status)
    return p


def run_status(args) -> int:
    stats = Mnemosyne(args.vault).stats()
    if args.json:
        print_json(stats)
        return 0
    out = sys.stdout
    out.write(f"vault:    {stats['vault']}\n")
    out.write(
        f"notes:    {stats['notes']} ({stats['archived']} archived, {stats['skipped']} skipped)\n"
    )
    out.write(f"sections: {stats['sections']}  terms: {stats['terms']}\n")
    idx = stats["index"]
    out.write(
        f"index:    {'fresh' if idx['fresh'] else 'stale'}, built {idx['built_at']}, checked {idx['checked_at']}\n"
    )
    cache = stats["cache"]
    size = "not written" if cache["bytes"] is None else f"{cache['bytes']:,} bytes"
    out.write(f"cache:    {cache['path']} ({size})\n")
    out.write(f"mode:     {stats['mode']}\n")
    if stats["zones"]:
        out.write("zones:\n")
        for zone, count in stats["zones"].items():
            out.write(f"  {zone or '(inbox)'}: {count}\n")
    for warning in stats["engine_warnings"]:
        out.write(f"warning: {warning}\n")
    for w in stats["warnings"]:
        line = f":{w['line']}" if w.get("line") else ""
        out.write(f"warning: {w['path']}{line}: {w['message']}\n")
    return 0


def register_reindex(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "reindex",
        help="bring the search index up to date (--full rebuilds it)",
        description="Re-read changed notes (or all of them with --full); progress on stderr.",
        epilog="example: mnemosyne reindex --full",
    )
    p.add_argument("--full", action="store_true", help="rebuild from scratch")
    _json_flag(p)
    p.set_defaults(handler=run_reindex)
    return p


def run_reindex(args) -> int:
    engine = Mnemosyne(args.vault)
    result = engine.refresh(full=args.full, progress=Progress("indexing"))
    for warning in engine.warnings:
        print(f"mnemosyne: warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(result)
    else:
        print(
            f"indexed {result['notes']} notes in {result['seconds']} s "
            f"(+{result['added']} ~{result['changed']} -{result['deleted']})"
        )
    return 0


REGISTER = (register_search, register_status, register_reindex)

"""Read-only subcommands: search, latest, host-history, show, related, list, recent, status,
digest, path.

None of them counts as a use of a note (only ``VaultMemory.record_access`` does), and none
writes a note; opening the vault may refresh the derived search index.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
import time

from ..cache import cache_dir
from ..config import CONFIG_NAME
from ..journal import JOURNAL_DIR
from ..memory import STATE_DIR
from .common import CommandError, add_command, add_json_flag, add_label_option, open_memory
from .output import describe_labels, highlight, note, print_json, query_words


def _add_repo_filter(parser) -> None:
    parser.add_argument(
        "--repo",
        action="append",
        default=[],
        metavar="NAME",
        help="with a team index (--index): only notes of this repository (repeatable)",
    )


def register_search(sub):
    p = add_command(
        sub,
        "search",
        help="search the vault",
        description=(
            "Search the vault; one hit per note with its best section. Read-only: a search\n"
            "never counts as a use of a note. Exit 1 when nothing matched well."
        ),
        examples=[
            'mnemosyne search "restore the database" --limit 3',
            "mnemosyne search ECONNREFUSED --exact --json",
        ],
    )
    p.add_argument("query", help="words, an identifier or (with --exact) a literal string")
    p.add_argument("--limit", type=int, default=8, metavar="N", help="at most N hits (default 8)")
    p.add_argument("--zone", metavar="ZONE", help="only notes in this folder and its subfolders")
    add_label_option(p, "only notes with this label (repeatable: all must match)")
    p.add_argument(
        "--exact", action="store_true", help="match a literal substring (case-insensitive)"
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="with --exact: every note holding the text, past the cap of 200",
    )
    p.add_argument("--include-archive", action="store_true", help="also search _archive/")
    _add_repo_filter(p)
    p.add_argument(
        "--semantic",
        action="store_true",
        help="hybrid keyword + semantic search (needs `mnemosyne semantic prepare`)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_search)
    return p


def run_search(args) -> int:
    if args.all and not args.exact:
        raise CommandError(
            "--all needs --exact: a ranked search returns its best matches (at most --limit "
            "200); --exact --all lists every note holding a literal text"
        )
    started = time.time()
    with open_memory(args) as memory:
        if args.semantic:
            memory.engine.use_semantic()
        response = memory.search_response(
            args.query,
            None if args.all else args.limit,
            zone=args.zone,
            labels=args.label,
            include_archive=args.include_archive,
            exact=args.exact,
            repos=args.repo or None,
        )
    if args.json:
        print_json(response)
        return 0 if response["hits"] else 1
    tty = sys.stdout.isatty()
    words = query_words(args.query)
    out = sys.stdout
    if response["no_strong_match"]:
        reason = response.get("absence_note")
        out.write(f"No strong match: {reason}." if reason else "No strong match.")
        out.write(" Closest, weakly related:\n" if response["best_weak"] else "\n")
    elif response["hits"] and response.get("confidence") == "low":
        out.write("Low confidence: the closest notes, which may not answer it.\n")
    for rank, hit in enumerate(response["hits"] or response["best_weak"], 1):
        where = hit["path"] + (f" › {hit['heading']}" if hit["heading"] else "")
        flags = " [stale]" if hit["stale"] else ""
        flags += " [archived]" if hit.get("archived") else ""
        out.write(f"{rank}. {hit['title']}{flags}\n   {where}\n")
        if hit["snippet"]:
            out.write(f"   {highlight(hit['snippet'], words, tty)}\n")
        if hit["also"]:
            out.write(f"   also: {', '.join(hit['also'])}\n")
    if args.exact and not args.all and len(response["hits"]) == args.limit:
        note(f"stopped at --limit {args.limit}; --all lists every note holding it")
    stale = _stale_note(response["index"], started)
    if stale:
        note(stale)
    return 0 if response["hits"] else 1


def _stale_note(index: dict, started: float) -> str | None:
    """What to say when the index may miss edits: not when this command checked every
    note itself (a first build that took longer than the check interval is as fresh as
    its check, which began after the command did), only when it answered from an older
    check (a large vault's check running in the background)."""
    if index["fresh"]:
        return None
    checked = index.get("checked_at")
    if checked:
        with contextlib.suppress(ValueError):
            # checked_at is given to the second: a check begun in this command's first
            # second reads up to a second before ``started``
            if dt.datetime.fromisoformat(checked).timestamp() >= started - 1.0:
                return None
    if index.get("checking"):
        when = f"as checked at {checked}" if checked else "as saved"
        return (
            f"note: answered from the index {when}; a check for edits since is "
            "running (a later search sees them)"
        )
    return "note: the index may be stale; run `mnemosyne reindex`"


def register_latest(sub):
    p = add_command(
        sub,
        "latest",
        help="the newest sections holding every word of a query",
        description=(
            "The sections that hold every word of the query, newest first (by the date and\n"
            "time in their headings, else their note's date), then by score: for \"what is X\n"
            'now" questions. When no section holds them all, the most common words are\n'
            "dropped one at a time (listed as dropped). Stale sections stay in, flagged.\n"
            "Read-only. Exit 1 when nothing matched."
        ),
        examples=[
            'mnemosyne latest "PgBouncer default_pool_size"',
            'mnemosyne latest "restic retention" --zone journal --limit 3 --json',
        ],
    )
    p.add_argument("query", help="the words every section must hold")
    p.add_argument(
        "--limit", type=int, default=10, metavar="N", help="at most N sections (default 10)"
    )
    p.add_argument("--zone", metavar="ZONE", help="only notes in this folder and its subfolders")
    p.add_argument("--include-archive", action="store_true", help="also look in _archive/")
    add_json_flag(p)
    p.set_defaults(handler=run_latest)
    return p


def run_latest(args) -> int:
    with open_memory(args) as memory:
        result = memory.latest(
            args.query, args.limit, zone=args.zone, include_archive=args.include_archive
        )
    if args.json:
        print_json(result)
        return 0 if result["hits"] else 1
    _print_dated(result["hits"], query_words(args.query))
    if result["dropped_terms"]:
        note(
            f"no section holds every word; left out: {', '.join(result['dropped_terms'])}"
            + (f" (matched: {', '.join(result['matched_terms'])})" if result["hits"] else "")
        )
    if not result["hits"]:
        note("nothing matched")
    return 0 if result["hits"] else 1


def register_host_history(sub):
    p = add_command(
        sub,
        "host-history",
        help="a host's journal entries and host-record lines, newest first",
        description=(
            "What happened to a host, newest first: the journal sections that mention it (by\n"
            "its host note's title, file name, host: or any alias) and the sections and dated\n"
            "lines of its host note. --topic keeps the entries that also hold those words.\n"
            "Read-only. Exit 1 when no host note has that name or nothing is recorded."
        ),
        examples=[
            "mnemosyne host-history db1",
            'mnemosyne host-history db-primary --topic "restic" --limit 5 --json',
        ],
    )
    p.add_argument("host", help="the host note's title, file name, host: value or an alias")
    p.add_argument("--topic", metavar="WORDS", help="only entries that also hold these words")
    p.add_argument(
        "--limit", type=int, default=20, metavar="N", help="at most N entries (default 20)"
    )
    add_json_flag(p)
    p.set_defaults(handler=run_host_history)
    return p


def run_host_history(args) -> int:
    with open_memory(args) as memory:
        result = memory.host_history(args.host, args.topic, args.limit)
    if args.json:
        print_json(result)
        return 0 if result["entries"] else 1
    record = result["host_note"]
    aliases = f" (also: {', '.join(result['aliases'])})" if result["aliases"] else ""
    sys.stdout.write(f"host: {result['host']}{aliases} — {record['path']}\n")
    _print_dated(result["entries"], query_words(args.topic or ""))
    if not result["entries"]:
        note("nothing recorded" + (" on that topic" if args.topic else ""))
    return 0 if result["entries"] else 1


def _print_dated(rows: list[dict], words: list[str]) -> None:
    """Dated sections, one block each: date, where, flags, then the snippet."""
    tty = sys.stdout.isatty()
    out = sys.stdout
    for row in rows:
        where = f"{row['path']}:{row['line']}" + (f" › {row['heading']}" if row["heading"] else "")
        flags = f" [{row['kind'].replace('_', ' ')}]" if row.get("kind") else ""
        flags += " [stale]" if row["stale"] else ""
        flags += " [archived]" if row.get("archived") else ""
        out.write(f"{row['date'] or 'undated':<16}  {where}{flags}\n")
        if row["snippet"]:
            out.write(f"    {highlight(row['snippet'], words, tty)}\n")


def register_show(sub):
    p = add_command(
        sub,
        "show",
        help="print a note (whole, one section, or its outline)",
        description=(
            "Print a note's text, secrets redacted, with its path, key, zone, version and\n"
            "labels. The version is what `replace --expected-version` wants. Several keys\n"
            "print each note in turn (--json: {notes, errors}). Read-only. Exit 1 when no\n"
            "note (or section) has a name given; the notes found are printed all the same."
        ),
        examples=[
            "mnemosyne show postgres-restore",
            'mnemosyne show runbooks/postgres-restore.md --section "Verify" --max-chars 2000',
            "mnemosyne show postgres-restore --outline",
            "mnemosyne show postgres-restore db1 --max-chars 500",
        ],
    )
    p.add_argument(
        "keys",
        metavar="KEY",
        nargs="+",
        help="the note: key, path or title (several: each note)",
    )
    p.add_argument("--section", metavar="HEADING", help="only the section under this heading")
    p.add_argument("--outline", action="store_true", help="only the headings, no text")
    p.add_argument("--max-chars", type=int, metavar="N", help="at most N characters of text")
    p.add_argument(
        "--offset", type=int, default=0, metavar="N", help="start at character N (default 0)"
    )
    add_json_flag(p)
    p.set_defaults(handler=run_show)
    return p


def run_show(args) -> int:
    options = {
        "section": args.section,
        "outline": args.outline,
        "max_chars": args.max_chars,
        "offset": args.offset,
    }
    with open_memory(args) as memory:
        if len(args.keys) == 1:
            result = memory.get_note(args.keys[0], **options)
        else:
            many = memory.get_notes(args.keys, **options)
    if len(args.keys) == 1:
        if args.json:
            print_json(result)
        else:
            _print_note(result, args)
        return 0
    if args.json:
        print_json(many)
    else:
        for number, result in enumerate(many["notes"]):
            sys.stdout.write(("\n" if number else "") + f"==> {result['path']} <==\n")
            _print_note(result, args)
        for problem in many["errors"]:
            print(f"mnemosyne: error: {problem['message']}", file=sys.stderr)
    return 1 if many["errors"] else 0


def _print_note(result: dict, args) -> None:
    out = sys.stdout
    out.write(f"title:   {result['title']}\n")
    out.write(f"path:    {result['path']}\n")
    out.write(f"key:     {result['key']}\n")
    out.write(f"zone:    {result['zone'] or '(inbox)'}\n")
    out.write(f"version: {result['version']}\n")
    out.write(f"labels:  {describe_labels(result['labels'])}\n")
    if result["outline"]:
        out.write("outline:\n")
        for heading in result["outline"]:
            indent = "  " * heading["level"]
            out.write(f"{indent}{heading['heading']} (line {heading['line']})\n")
    if not args.outline:
        text = result["text"]
        out.write("\n" + text + ("" if text.endswith("\n") or not text else "\n"))
    if result["truncated"] and not args.outline:
        end = result["offset"] + result["returned_chars"]
        note(
            f"showed characters {result['offset']}-{end} of {result['total_chars']}; "
            f"continue with --offset {end}"
        )


def register_related(sub):
    p = add_command(
        sub,
        "related",
        help="show the notes linked to and from a note, and its lexical neighbours",
        description=(
            "Outbound [[wikilinks]], backlinks, links that name no note, and notes that\n"
            "share its words without being linked. Read-only."
        ),
        examples=["mnemosyne related postgres-restore", "mnemosyne related db1 --limit 3 --json"],
    )
    p.add_argument("key", metavar="KEY", help="the note: key, path or title")
    p.add_argument(
        "--limit", type=int, default=5, metavar="N", help="at most N neighbours (default 5)"
    )
    add_json_flag(p)
    p.set_defaults(handler=run_related)
    return p


def run_related(args) -> int:
    with open_memory(args) as memory:
        result = memory.related(args.key, limit=args.limit)
    if args.json:
        print_json(result)
        return 0
    out = sys.stdout
    for title, rows in (
        ("links to", result.get("outbound", [])),
        ("linked from", result.get("backlinks", [])),
        ("neighbours", result.get("neighbours", [])),
    ):
        out.write(f"{title}:\n")
        if not rows:
            out.write("  (none)\n")
        for row in rows:
            out.write(f"  {row['key']}  {row['path']}  {row.get('title', '')}\n")
    unresolved = result.get("unresolved", [])
    if unresolved:
        out.write("unresolved links:\n")
        for row in unresolved:
            out.write(f"  [[{row['target']}]]\n")
    return 0


def register_list(sub):
    p = add_command(
        sub,
        "list",
        help="list notes, newest first",
        description=(
            "List live notes, newest first (frontmatter updated/date, else file time).\n"
            "--since/--until keep the notes whose time is in that window, both ends\n"
            "included: WHEN is a day (2026-03-02, the whole day), a UTC time\n"
            "(2026-03-02T10:15, or with Z or +02:00) or a span back from now (7d, 12h, 2w).\n"
            "A frontmatter date counts as its whole day. Exit 1 when no note passes."
        ),
        examples=[
            "mnemosyne list --zone runbooks --limit 5",
            "mnemosyne list --label project:atlas",
            "mnemosyne list --since 7d",
            "mnemosyne list --since 2026-03-01 --until 2026-03-31 --all",
        ],
    )
    p.add_argument("--zone", metavar="ZONE", help="only notes in this folder and its subfolders")
    add_label_option(p, "only notes with this label (repeatable: all must match)")
    p.add_argument("--since", metavar="WHEN", help="only notes from then on")
    p.add_argument("--until", metavar="WHEN", help="only notes up to then")
    size = p.add_mutually_exclusive_group()
    size.add_argument(
        "--limit", type=int, default=20, metavar="N", help="notes per page, 1-200 (default 20)"
    )
    size.add_argument("--all", action="store_true", help="every note, on one page")
    p.add_argument("--page", type=int, default=1, metavar="N", help="page number (default 1)")
    _add_repo_filter(p)
    add_json_flag(p)
    p.set_defaults(handler=run_list)
    return p


def run_list(args) -> int:
    with open_memory(args) as memory:
        listing = memory.list_notes(
            zone=args.zone,
            labels=args.label or None,
            page=args.page,
            limit=None if args.all else args.limit,
            since=args.since,
            until=args.until,
            repos=args.repo or None,
        )
    if args.json:
        print_json(listing)
        return 0 if listing["total"] else 1
    for row in listing["notes"]:
        day = row["updated"] or row["date"] or "-"
        labels = f"  [{', '.join(row['labels'])}]" if row["labels"] else ""
        print(f"{day:<10}  {row['path']}  {row['title']}{labels}")
    first = (listing["page"] - 1) * (listing["limit"] or 0)
    shown = len(listing["notes"])
    if listing["total"] == 0:
        note("no notes match")
    elif first + shown < listing["total"]:
        note(
            f"showed {first + 1}-{first + shown} of {listing['total']}; "
            f"next page: --page {listing['page'] + 1}, or --all for every one"
        )
    return 0 if listing["total"] else 1


def register_recent(sub):
    p = add_command(
        sub,
        "recent",
        help="notes changed lately, newest first, with what changed",
        description=(
            "Notes by their last change, newest first: created, edited, moved, archived or\n"
            "restored (from the journal, with the operation and its transaction), or\n"
            "modified (changed outside mnemosyne: by the file's time). --since/--until take\n"
            "the WHEN of `list`. Read-only. Exit 1 when nothing changed in the window."
        ),
        examples=["mnemosyne recent", "mnemosyne recent --since 2d --json"],
    )
    p.add_argument(
        "--limit", type=int, default=20, metavar="N", help="at most N notes, 1-200 (default 20)"
    )
    p.add_argument("--since", metavar="WHEN", help="only changes from then on")
    p.add_argument("--until", metavar="WHEN", help="only changes up to then")
    add_json_flag(p)
    p.set_defaults(handler=run_recent)
    return p


def run_recent(args) -> int:
    with open_memory(args) as memory:
        result = memory.recent(args.limit, since=args.since, until=args.until)
    if args.json:
        print_json(result)
        return 0 if result["changes"] else 1
    for row in result["changes"]:
        how = f"  ({row['operation']})" if row["operation"] else ""
        was = f"  (was {row['previous_path']})" if row["previous_path"] else ""
        print(f"{row['at']}  {row['change']:<9} {row['path']}{was}{how}")
    if not result["changes"]:
        note("nothing changed in that window")
    elif result["total"] > len(result["changes"]):
        note(f"showed {len(result['changes'])} of {result['total']}; --limit shows more")
    return 0 if result["changes"] else 1


def register_status(sub):
    p = add_command(
        sub,
        "status",
        help="show the vault, index freshness and every warning",
        description=(
            "Vault path, note count, zones, index freshness and build time, cache size,\n"
            "search mode, recent journaled changes and every warning (with the files named)."
        ),
        examples=["mnemosyne status", "mnemosyne status --json"],
    )
    add_json_flag(p)
    p.set_defaults(handler=run_status)
    return p


def run_status(args) -> int:
    with open_memory(args) as memory:
        stats = memory.status()
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
    if idx.get("backend") == "postgresql":
        out.write(f"index:    team index, {'fresh' if idx['fresh'] else 'stale'}\n")
        for repo in idx["repos"]:
            state = {True: "current", False: f"here at {(repo['head'] or '-')[:12]}"}.get(
                repo["current"], "no working copy here"
            )
            out.write(
                f"  {repo['repo']}: {(repo['indexed_head'] or 'no commit')[:12]}, "
                f"{repo['notes']} notes, ingested {repo['ingested_at']} ({state})\n"
            )
    else:
        out.write(
            f"index:    {'fresh' if idx['fresh'] else 'stale'}, built {idx['built_at']}, "
            f"checked {idx['checked_at']} (outside edits seen within "
            f"{idx['staleness_window_s']:g} s)\n"
        )
    cache = stats["cache"]
    size = "not written" if cache["bytes"] is None else f"{cache['bytes']:,} bytes"
    out.write(f"cache:    {cache['path']} ({size})\n")
    out.write(f"mode:     {stats['mode']}\n")
    out.write(f"evidence: {'required' if stats['evidence_required'] else 'optional'}\n")
    if stats["zones"]:
        out.write("zones:\n")
        for zone, count in stats["zones"].items():
            out.write(f"  {zone or '(inbox)'}: {count}\n")
    recent = stats["journal"]["recent"]
    if recent:
        out.write("recent changes:\n")
        for row in recent:
            out.write(f"  {row['transaction_id']}  {row['operation']}  {row['state']}\n")
    for warning in stats["engine_warnings"]:
        out.write(f"warning: {warning}\n")
    for w in stats["warnings"]:
        where = w["path"] + (f":{w['line']}" if w.get("line") else "")
        out.write(f"warning: {where + ': ' if where else ''}{w['message']}\n")
    return 0


def register_digest(sub):
    p = add_command(
        sub,
        "digest",
        help="print a compact summary of the vault for a session start",
        description=(
            "A compact text summary for an agent's session start: identity and preferences\n"
            "first, then zones by recent activity, within a token budget. Read-only."
        ),
        examples=["mnemosyne digest --limit 3 --budget-tokens 400"],
    )
    p.add_argument(
        "--limit", type=int, default=5, metavar="N", help="at most N notes per group (default 5)"
    )
    p.add_argument(
        "--budget-tokens",
        type=int,
        default=800,
        metavar="N",
        help="stay within about N tokens (default 800)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_digest)
    return p


def run_digest(args) -> int:
    with open_memory(args) as memory:
        text = memory.render_digest(args.limit, args.budget_tokens)
    if args.json:
        print_json({"text": text})
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def register_path(sub):
    p = add_command(
        sub,
        "path",
        help="print where the vault, its cache and its state live",
        description=(
            "Print the vault folder this command line would use (after --vault,\n"
            "$MNEMOSYNE_VAULT and the default) and where its cache, state, journal and\n"
            "configuration live. Works before the vault exists (`exists` says so)."
        ),
        examples=["mnemosyne path", "mnemosyne --vault ~/notes path --json"],
    )
    add_json_flag(p)
    p.set_defaults(handler=run_path)
    return p


def run_path(args) -> int:
    vault = args.vault.resolve()
    places = {
        "vault": str(vault),
        "exists": vault.is_dir(),
        "cache": str(cache_dir(vault)),
        "state": str(vault / STATE_DIR),
        "journal": str(vault / JOURNAL_DIR),
        "config": str(vault / ".mnemosyne" / CONFIG_NAME),
    }
    if args.json:
        print_json(places)
        return 0
    for name in ("vault", "cache", "state", "journal", "config"):
        print(f"{name + ':':<9}{places[name]}")
    if not places["exists"]:
        note("the vault does not exist yet — `mnemosyne init` creates it")
    return 0


REGISTER = (
    register_search,
    register_latest,
    register_host_history,
    register_show,
    register_related,
    register_list,
    register_recent,
    register_status,
    register_digest,
    register_path,
)

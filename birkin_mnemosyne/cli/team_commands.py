"""``mnemosyne ingest``: fill a team index (``--index URL``) from git repositories."""

from __future__ import annotations

import sys
from pathlib import Path

from .common import CommandError, add_command, add_json_flag, expand, progress_of
from .output import print_json


def _repos(args, config) -> list[tuple[str, Path]]:
    """``--repo [NAME=]PATH`` entries, else the configured ``repos``, else the vault."""
    if args.repo:
        out = []
        for value in args.repo:
            name, sep, path = value.partition("=")
            if not sep:
                name, path = "", value
            folder = expand(path).resolve()
            out.append((name or folder.name, folder))
        names = [name for name, _ in out]
        if len(set(names)) != len(names):
            raise CommandError("two --repo entries have the same name — name them: NAME=PATH")
        return out
    if config.repos:
        return list(config.repos)
    vault = Path(args.vault).resolve()
    return [(vault.name, vault)]


def _ingest(args) -> int:
    from ..config import load_config
    from ..errors import VaultNotFoundError
    from ..team.ingest import ingest

    vault = Path(args.vault)
    if not vault.is_dir():
        raise VaultNotFoundError(
            f"vault not found: {vault} — pass the folder with the team's configuration"
        )
    if not args.index:
        raise CommandError(
            "no team index to ingest into — pass --index postgresql://user@host/db "
            "or set $MNEMOSYNE_INDEX"
        )
    config = load_config(vault)
    report = ingest(
        args.index,
        _repos(args, config),
        config=config,
        pull=args.pull,
        rebuild=args.rebuild,
        on_progress=progress_of(args),
    )
    if args.json:
        print_json(report.to_dict())
    else:
        for repo in report.repos:
            if repo.error:
                print(f"{repo.name}: failed: {repo.error}", file=sys.stderr)
                continue
            head = (repo.head or "no commit")[:12]
            print(
                f"{repo.name} @ {head}: {repo.added} added, {repo.changed} changed, "
                f"{repo.removed} removed, {repo.unchanged} unchanged ({repo.seconds:.1f} s)"
            )
        if report.clustered_s is not None:
            print(f"postings rewritten in term order ({report.clustered_s:.1f} s)")
    return 0 if report.ok else 2


def register(sub):
    p = add_command(
        sub,
        "ingest",
        help="bring a team index (--index URL) up to the HEAD of git repositories",
        description=(
            "Walk each repository's HEAD and store what changed since the last ingest in\n"
            "the team index: new and changed notes (parsed and redacted as a local index\n"
            "does), removed ones dropped. Unchanged blobs are skipped by sha, so running it\n"
            "from a timer is cheap. The repositories: --repo [NAME=]PATH (repeatable), else\n"
            "'repos' in .mnemosyne/config.json, else the vault folder itself. Exit 2 when a\n"
            "repository failed (the others are still ingested). See docs/how-to/team-index.md."
        ),
        examples=[
            "mnemosyne --index postgresql://mnemo@db.internal/mnemosyne ingest",
            "mnemosyne ingest --index $URL --repo platform=~/src/platform-notes --pull",
            "mnemosyne ingest --rebuild    # after losing the database: rebuild from git",
        ],
    )
    p.add_argument(
        "--repo",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="a repository to ingest (repeatable; default: 'repos' in the configuration)",
    )
    p.add_argument("--pull", action="store_true", help="git pull --ff-only each repository first")
    p.add_argument(
        "--rebuild", action="store_true", help="drop the team index and ingest everything again"
    )
    add_json_flag(p)
    p.set_defaults(handler=_ingest)
    return p


REGISTER = (register,)

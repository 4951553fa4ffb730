"""Opt-in semantic search: ``mnemosyne semantic prepare`` and ``mnemosyne semantic status``.

Preparing is the only step that may download a model; search loads the prepared copy.
"""

from __future__ import annotations

import argparse

from ..change_plans import require_vault
from .common import CommandError, add_command, add_json_flag
from .output import print_json


def register_semantic(sub):
    from ..semantic import DEFAULT_MODEL

    p = add_command(
        sub,
        "semantic",
        help="prepare the model for opt-in hybrid (keyword + semantic) search",
        description=(
            "Opt-in hybrid search with a model2vec static embedding model (the 'semantic'\n"
            "extra). Actions:\n"
            "  prepare [--model NAME_OR_PATH]   load the model once and save it for this vault\n"
            "  status                           what is prepared, and whether search can use it\n"
            "Then search with --semantic (or MNEMOSYNE_SEMANTIC=1). Search never downloads."
        ),
        examples=[
            "mnemosyne semantic prepare",
            "mnemosyne semantic prepare --model ./models/potion-multilingual-128M",
            'mnemosyne search --semantic "how do I bring the database back?"',
        ],
    )
    actions = p.add_subparsers(dest="semantic_action", metavar="ACTION")

    def missing(args) -> int:
        raise CommandError("choose an action — see `mnemosyne semantic --help`")

    p.set_defaults(handler=missing)
    s = add_command(
        actions,
        "prepare",
        help="load a model once and save it for this vault",
        description=(
            "Load a model2vec model (a Hugging Face id, downloaded once, or a local folder),\n"
            "optionally reduce and quantize it, save it under .mnemosyne/models/semantic/\n"
            "and record what was prepared."
        ),
        examples=["mnemosyne semantic prepare --model /path/to/model2vec-folder"],
    )
    s.add_argument(
        "--model",
        default=DEFAULT_MODEL,
        metavar="NAME_OR_PATH",
        help=f"model id or local folder (default {DEFAULT_MODEL})",
    )
    s.add_argument(
        "--dimensions", type=int, metavar="N", help="keep only the first N dimensions (memory)"
    )
    s.add_argument(
        "--no-quantize", action="store_true", help="keep the weights' dtype (default: float16)"
    )
    s.add_argument("--vault", metavar="PATH", default=argparse.SUPPRESS, help="the vault")
    add_json_flag(s)
    s.set_defaults(handler=run_prepare)
    s = add_command(
        actions,
        "status",
        help="show the prepared model and whether hybrid search is available",
        description="Show the prepared model and whether hybrid search is available.",
        examples=["mnemosyne semantic status --json"],
    )
    s.add_argument("--vault", metavar="PATH", default=argparse.SUPPRESS, help="the vault")
    add_json_flag(s)
    s.set_defaults(handler=run_status)
    return p


def run_prepare(args) -> int:
    from .. import semantic

    vault = require_vault(args.vault)
    if semantic.missing_extra():
        raise CommandError(semantic.missing_extra())
    try:
        record = semantic.prepare(
            vault,
            args.model,
            dimensions=args.dimensions,
            quantize=None if args.no_quantize else semantic.DTYPE,
        )
    except OSError as exc:
        raise CommandError(
            f"cannot load model {args.model!r}: {exc} — pass a model2vec folder or a "
            "Hugging Face id reachable from this machine",
            1,
        ) from None
    if args.json:
        print_json(record)
    else:
        print(
            f"prepared {record['model']} ({record['dimensions']} dimensions) in "
            f"{semantic.model_dir(vault)}; search with --semantic or MNEMOSYNE_SEMANTIC=1"
        )
    return 0


def run_status(args) -> int:
    from .. import semantic

    vault = require_vault(args.vault)
    missing = semantic.missing_extra()
    record = semantic.prepared_model(vault)
    result = {
        "extra_installed": missing is None,
        "prepared": record,
        "available": missing is None and record is not None,
        "reason": missing
        or (None if record else f"no model is prepared — {semantic.PREPARE_HINT}"),
    }
    if args.json:
        print_json(result)
    elif result["available"]:
        print(f"hybrid search available: {record['model']} ({record['dimensions']} dimensions)")
    else:
        print(f"hybrid search unavailable: {result['reason']}")
    return 0 if result["available"] else 1


REGISTER = (register_semantic,)
